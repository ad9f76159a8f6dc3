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

/// `shfl.sync.bfly.b32` over the full warp: the value `v` of lane `lane ^ MASK`.
///
/// # Safety
/// Warp-convergent: all 32 lanes must execute it together.
#[inline(always)]
pub unsafe fn shfl_xor<const MASK: u32>(v: u32) -> u32 {
    let r: u32;
    asm!("shfl.sync.bfly.b32 {0}, {1}, {2}, 31, -1;", out(reg32) r, in(reg32) v, const MASK,
        options(nomem, nostack));
    r
}

/// `bar.warp.sync -1;` — the warp's lanes wait for each other and their memory accesses are ordered.
///
/// # Safety
/// Warp-convergent: all 32 lanes must reach it.
#[inline(always)]
pub unsafe fn sync_warp() {
    asm!("bar.warp.sync -1;", options(nostack));
}
