//! Thread-block clusters (sm_90): the cluster-wide barrier and distributed shared memory.

use core::arch::asm;

/// `barrier.cluster.arrive.release; barrier.cluster.wait.acquire;` — waits until every thread of
/// every CTA of the cluster has arrived (an exited thread counts as arrived); this thread's
/// memory accesses before it are ordered, at cluster scope, before every thread's accesses after it.
///
/// # Safety
/// Launched as a cluster; every thread of the cluster reaches the same sequence of these barriers
/// (or exits).
#[inline(always)]
pub unsafe fn sync_cluster() {
    asm!(
        "barrier.cluster.arrive.release;",
        "barrier.cluster.wait.acquire;",
        options(nostack)
    );
}

/// `mapa.shared::cluster.u32` — the address, in the cluster's shared window, of the byte at
/// `addr` of CTA `rank`'s shared memory.
///
/// # Safety
/// Launched as a cluster of more than `rank` CTAs; `addr` inside the launch's shared memory.
#[inline(always)]
pub unsafe fn map_shared(addr: u32, rank: u32) -> u32 {
    let r: u32;
    asm!("mapa.shared::cluster.u32 {0}, {1}, {2};", out(reg32) r, in(reg32) addr, in(reg32) rank,
        options(pure, nomem, nostack));
    r
}

/// `ld.shared::cluster.v4.f32` — 16 bytes of another CTA's shared memory ([`map_shared`]).
///
/// # Safety
/// `addr` is a 16-byte-aligned address from [`map_shared`] whose CTA is running and whose bytes
/// a cluster barrier ordered before this load.
#[inline(always)]
pub unsafe fn ld_cluster_v4_f32(addr: u32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("ld.shared::cluster.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg32) addr,
        options(readonly, nostack));
    [a, b, c, d]
}
