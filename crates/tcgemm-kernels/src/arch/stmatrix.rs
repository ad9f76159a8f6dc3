//! `stmatrix` (sm_90): registers → shared memory, 8×8 tiles of 16-bit elements, one row address per
//! lane; the inverse of [`ldmatrix`](super::ldmatrix).

use core::arch::asm;

/// `stmatrix.sync.aligned.m8n8.x4.shared.b16` — four 8×8 tiles: lanes 8i..8i+7 give tile i's row
/// addresses, and word `i` of lane `l` holds elements `(l / 4, 2·(l % 4))` and `+1` of tile `i`
/// (the `mma`/`wgmma` accumulator fragment of an 8×8 block, packed).
///
/// # Safety
/// Behavior is undefined unless all 32 lanes execute it convergently and each lane's `addr` is a
/// 16-byte-aligned shared address of an 8-element row.
#[inline(always)]
pub unsafe fn reg_to_shared_x4(addr: u32, v: [u32; 4]) {
    asm!("stmatrix.sync.aligned.m8n8.x4.shared.b16 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg32) addr, in(reg32) v[0], in(reg32) v[1], in(reg32) v[2], in(reg32) v[3],
        options(nostack));
}
