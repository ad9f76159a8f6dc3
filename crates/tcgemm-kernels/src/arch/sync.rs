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

/// `bar.sync id, threads;` — a barrier among the `threads` threads (whole warps) that reach
/// barrier `id` (1–15: 0 is [`sync_threads`]'s); orders their shared and global accesses as the
/// block-wide barrier does.
///
/// # Safety
/// Behavior is undefined unless exactly `threads` threads, the same warps each time, reach it.
#[inline(always)]
pub unsafe fn sync_named(id: u32, threads: u32) {
    asm!("bar.sync {0}, {1};", in(reg32) id, in(reg32) threads, options(nostack));
}

/// `bar.arrive id, threads;` — counts this warp's threads in barrier `id` (1–15) without waiting:
/// the barrier completes, and its [`sync_named`] callers go on, once `threads` threads arrived or
/// synced. A producer's half of an ordering between warp groups.
///
/// # Safety
/// Behavior is undefined unless the arrivals and syncs on `id` add up to exactly `threads` each
/// time the barrier is used, the same warps each time.
#[inline(always)]
pub unsafe fn arrive_named(id: u32, threads: u32) {
    asm!("bar.arrive {0}, {1};", in(reg32) id, in(reg32) threads, options(nostack));
}

/// `bar.red.or.pred` on barrier 0 — a block-wide barrier (as [`sync_threads`]) that returns, on
/// every thread, whether `p` was true on any thread.
///
/// # Safety
/// As [`sync_threads`].
#[inline(always)]
pub unsafe fn sync_threads_or(p: bool) -> bool {
    let any: u32;
    asm!("{{ .reg .pred p, q; setp.ne.u32 p, {1}, 0; bar.red.or.pred q, 0, p; selp.u32 {0}, 1, 0, q; }}",
        out(reg32) any, in(reg32) u32::from(p), options(nostack));
    any != 0
}

/// `fence.acq_rel.gpu;` — orders this thread's memory accesses before and after it at GPU scope.
///
/// # Safety
/// None beyond being on the device; `unsafe` as every inline-assembly wrapper here.
#[inline(always)]
pub unsafe fn fence_acq_rel_gpu() {
    asm!("fence.acq_rel.gpu;", options(nostack));
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

/// The sum of `x` over the warp's 32 lanes by a butterfly of `shfl.sync.bfly` (lane distance 16,
/// 8, 4, 2, 1): every lane adds the same two values at every step, so all lanes end with the same
/// bits, in a fixed association.
///
/// # Safety
/// Warp-convergent: all 32 lanes must execute it together.
#[inline(always)]
pub unsafe fn warp_sum(x: f32) -> f32 {
    let mut x = x;
    x += f32::from_bits(shfl_xor::<0b10000>(x.to_bits()));
    x += f32::from_bits(shfl_xor::<0b1000>(x.to_bits()));
    x += f32::from_bits(shfl_xor::<0b100>(x.to_bits()));
    x += f32::from_bits(shfl_xor::<0b10>(x.to_bits()));
    x + f32::from_bits(shfl_xor::<0b1>(x.to_bits()))
}

/// `shfl.sync.down.b32` by one lane within segments of 8 lanes: lane `l` receives `v` of lane
/// `l + 1`, and the last lane of each segment (`l % 8 == 7`) its own `v`.
///
/// # Safety
/// Warp-convergent: all 32 lanes must execute it together.
#[inline(always)]
pub unsafe fn shfl_down1_in8(v: u32) -> u32 {
    let r: u32;
    // c = (32 − 8) << 8 | (8 − 1): segments of 8 lanes, clamped at each segment's last lane
    asm!("shfl.sync.down.b32 {0}, {1}, 1, 0x1807, -1;", out(reg32) r, in(reg32) v,
        options(nomem, nostack));
    r
}

/// `shfl.sync.idx.b32` within segments of 8 lanes: every lane receives `v` of lane `src` (0..8) of
/// its own segment.
///
/// # Safety
/// Warp-convergent: all 32 lanes must execute it together.
#[inline(always)]
pub unsafe fn shfl_idx_in8(v: u32, src: u32) -> u32 {
    let r: u32;
    // c = (32 − 8) << 8 | (8 − 1): segments of 8 lanes
    asm!("shfl.sync.idx.b32 {0}, {1}, {2}, 0x1807, -1;", out(reg32) r, in(reg32) v, in(reg32) src,
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
