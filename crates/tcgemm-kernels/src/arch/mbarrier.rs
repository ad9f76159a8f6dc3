//! `mbarrier` objects in shared memory (sm_90 forms): arrival counts plus transaction bytes, waited on
//! by phase parity. Addresses are 8-byte-aligned offsets in the `.shared` window.

use core::arch::asm;

/// `mbarrier.init.shared::cta.b64 [addr], count;`
///
/// # Safety
/// `addr` must be an 8-byte-aligned shared address no other thread uses until a barrier (and
/// [`fence_init`]) publishes the initialization.
#[inline(always)]
pub unsafe fn init(addr: u32, count: u32) {
    asm!("mbarrier.init.shared::cta.b64 [{0}], {1};", in(reg32) addr, in(reg32) count, options(nostack));
}

/// `fence.mbarrier_init.release.cluster;` — makes initialized barriers visible to the async proxy
/// (TMA completions) and to the other threads once they pass the next barrier.
///
/// # Safety
/// None beyond being executed by the initializing thread.
#[inline(always)]
pub unsafe fn fence_init() {
    asm!("fence.mbarrier_init.release.cluster;", options(nostack));
}

/// `mbarrier.arrive.shared::cta.b64 _, [addr];` — one arrival.
///
/// # Safety
/// `addr` must be an initialized barrier whose current phase still expects this arrival.
#[inline(always)]
pub unsafe fn arrive(addr: u32) {
    asm!("mbarrier.arrive.shared::cta.b64 _, [{0}];", in(reg32) addr, options(nostack));
}

/// `mbarrier.arrive.shared::cluster.b64 _, [addr];` — one arrival on a barrier of another CTA of
/// the cluster (`addr` from [`map_shared`](crate::arch::cluster::map_shared)), release at CTA
/// scope as CUTLASS's cluster pipelines arrive (cluster scope measured about 1 µs per arrival,
/// docs/hopper-log.md, session 29).
///
/// # Safety
/// `addr` must be a cluster address of an initialized barrier, in a CTA that is running, whose
/// current phase still expects this arrival.
#[inline(always)]
pub unsafe fn arrive_cluster(addr: u32) {
    asm!("mbarrier.arrive.shared::cluster.b64 _, [{0}];", in(reg32) addr, options(nostack));
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [addr], bytes;` — one arrival that also announces
/// `bytes` of asynchronous transactions (TMA copies) the phase must wait for.
///
/// # Safety
/// As [`arrive`]; the announced bytes must be delivered by copies that signal this barrier.
#[inline(always)]
pub unsafe fn arrive_expect_tx(addr: u32, bytes: u32) {
    asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{0}], {1};", in(reg32) addr, in(reg32) bytes, options(nostack));
}

/// `mbarrier.try_wait.parity.shared::cta.b64` — whether the phase with parity `parity` has completed
/// (the instruction may suspend the thread for a system-defined time before answering false).
///
/// # Safety
/// `addr` must be an initialized barrier.
#[inline(always)]
pub unsafe fn try_wait_parity(addr: u32, parity: u32) -> bool {
    let done: u32;
    asm!(
        "{{",
        ".reg .pred p;",
        "mbarrier.try_wait.parity.shared::cta.b64 p, [{1}], {2};",
        "selp.u32 {0}, 1, 0, p;",
        "}}",
        out(reg32) done, in(reg32) addr, in(reg32) parity,
        options(nostack)
    );
    done != 0
}

/// Spins until the phase with parity `parity` of the barrier at `addr` has completed.
///
/// # Safety
/// As [`try_wait_parity`]; the phase must eventually complete or the thread hangs.
#[inline(always)]
pub unsafe fn wait_parity(addr: u32, parity: u32) {
    while !try_wait_parity(addr, parity) {}
}
