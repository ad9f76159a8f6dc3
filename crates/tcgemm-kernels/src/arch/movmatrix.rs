//! `movmatrix` (sm_75+): transposes an 8×8 tile of 16-bit elements held across a warp's registers,
//! in the `mma`/`wgmma` accumulator fragment layout.

use core::arch::asm;

/// `movmatrix.sync.aligned.m8n8.trans.b16` — lane `l` gives elements `(l / 4, 2·(l % 4))` and `+1`
/// of an 8×8 tile `M` packed in one word (the lower column in the low half) and receives the same
/// elements of `Mᵀ`: `M[2·(l % 4)][l / 4]` in the low half, `M[2·(l % 4) + 1][l / 4]` in the high.
///
/// # Safety
/// Behavior is undefined unless all 32 lanes execute it convergently.
#[inline(always)]
pub unsafe fn transpose_b16(v: u32) -> u32 {
    let t: u32;
    asm!("movmatrix.sync.aligned.m8n8.trans.b16 {0}, {1};",
        out(reg32) t, in(reg32) v, options(nomem, nostack));
    t
}
