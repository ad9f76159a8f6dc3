//! Programmatic dependent launch (sm_90): a grid launched with programmatic stream serialization
//! (the host's `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`) may be scheduled before the
//! grid ahead of it on the stream has finished, once every CTA of that grid has called
//! [`launch_dependents`] or exited; it must [`wait_prerequisite_grids`] before it touches memory
//! the earlier grid writes or reads. Both instructions do nothing in a grid launched without the
//! attribute, or without a dependent launched with it.

use core::arch::asm;

/// `griddepcontrol.wait;` — waits until every prerequisite grid of this one has completed and its
/// memory operations are visible to this grid. Returns at once in a grid launched without
/// programmatic stream serialization.
///
/// # Safety
/// None beyond being on the device; `unsafe` as every inline-assembly wrapper here. (Not `nomem`:
/// no memory access may move above it.)
#[inline(always)]
pub unsafe fn wait_prerequisite_grids() {
    asm!("griddepcontrol.wait;", options(nostack));
}

/// `griddepcontrol.launch_dependents;` — lets the grid launched after this one with programmatic
/// stream serialization be scheduled once every CTA of this grid has called it or exited (the
/// first call of a CTA counts; later ones do nothing). It orders nothing: the dependent still
/// waits ([`wait_prerequisite_grids`]) for this grid's memory operations.
///
/// # Safety
/// None beyond being on the device; `unsafe` as every inline-assembly wrapper here.
#[inline(always)]
pub unsafe fn launch_dependents() {
    asm!("griddepcontrol.launch_dependents;", options(nostack));
}
