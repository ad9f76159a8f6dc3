//! Barriers and fences.

use core::arch::asm;

/// `bar.sync 0;` — block-wide barrier; also orders shared-memory accesses among the block's threads.
///
/// # Safety
/// Behavior is undefined if not every thread of the block reaches the same barrier (divergent call).
#[inline(always)]
pub unsafe fn sync_threads() {
    asm!("bar.sync 0;", options(nostack));
}
