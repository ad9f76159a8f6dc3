//! `mma.sync.aligned.m16n8k8` TF32 fragment loads.
//!
//! An operand kept k-contiguous in shared memory (A not transposed, B transposed) is read with
//! `ldmatrix.x4`: an 8×8 tile of 16-bit elements is an 8×4 tile of fp32, so the four tiles
//! `(rows 0–7, k 0–3), (rows 8–15, k 0–3), (rows 0–7, k 4–7), (rows 8–15, k 4–7)` are exactly the
//! m16n8k8 A fragment `a0..a3` (and two B fragments per `x4`). `ldmatrix.trans` moves 16-bit halves,
//! so an operand kept r-contiguous is read with scalar `ld.shared` instead. Every fragment register
//! is rounded to nearest (ties away) before the MMA by adding half a TF32 ulp to its bits, the
//! tensor core truncating the rest (`f32_to_tf32_rna_mma_operand`).
//!
//! Shared operand tiles of f32: k-contiguous `smem[r][BK + KPAD]`, r-contiguous `smem[k][R + RPAD]`
//! (see `threadblock::global_to_shared`).

use crate::arch::convert::f32_to_tf32_rna_mma_operand;
use crate::arch::ldmatrix::shared_to_reg_x4;
use crate::arch::smem::ld_shared_u32;

/// Rounds f32 bits to TF32 as an `mma` operand (to nearest, ties away from zero).
#[inline(always)]
fn tf32(bits: u32) -> u32 {
    f32_to_tf32_rna_mma_operand(f32::from_bits(bits))
}

/// Byte offset of element `(r, k)` in an f32 operand tile of `R` rows.
#[inline(always)]
fn at<const R: u32, const BK: u32, const KPAD: u32, const RPAD: u32>(
    k_contig: bool,
    r: u32,
    k: u32,
) -> u32 {
    if k_contig {
        (r * (BK + KPAD) + k) * 4
    } else {
        (k * (R + RPAD) + r) * 4
    }
}

/// The m16n8k8 A fragment of rows `m..m+16`, k `kk..kk+8` of the tile at `t`.
///
/// # Safety
/// Warp-convergent; `t` holds an operand tile of the layout above.
#[inline(always)]
pub unsafe fn a_fragment<const R: u32, const BK: u32, const KPAD: u32, const RPAD: u32>(
    t: u32,
    k_contig: bool,
    m: u32,
    kk: u32,
    lane: u32,
) -> [u32; 4] {
    let at = at::<R, BK, KPAD, RPAD>;
    let r = if k_contig {
        let (li, lr) = (lane / 8, lane % 8);
        shared_to_reg_x4(t + at(true, m + lr + (li % 2) * 8, kk + (li / 2) * 4))
    } else {
        let (g, q) = (lane / 4, lane % 4);
        [
            ld_shared_u32(t + at(false, m + g, kk + q)),
            ld_shared_u32(t + at(false, m + g + 8, kk + q)),
            ld_shared_u32(t + at(false, m + g, kk + q + 4)),
            ld_shared_u32(t + at(false, m + g + 8, kk + q + 4)),
        ]
    };
    [tf32(r[0]), tf32(r[1]), tf32(r[2]), tf32(r[3])]
}

/// The m16n8k8 B fragments of columns `n..n+8` and `n+8..n+16`, k `kk..kk+8` of the tile at `t`.
///
/// # Safety
/// As [`a_fragment`].
#[inline(always)]
pub unsafe fn b_fragments<const R: u32, const BK: u32, const KPAD: u32, const RPAD: u32>(
    t: u32,
    k_contig: bool,
    n: u32,
    kk: u32,
    lane: u32,
) -> [[u32; 2]; 2] {
    let at = at::<R, BK, KPAD, RPAD>;
    let r = if k_contig {
        let (li, lr) = (lane / 8, lane % 8);
        shared_to_reg_x4(t + at(true, n + lr + (li / 2) * 8, kk + (li % 2) * 4))
    } else {
        let (g, q) = (lane / 4, lane % 4);
        [
            ld_shared_u32(t + at(false, n + g, kk + q)),
            ld_shared_u32(t + at(false, n + g, kk + q + 4)),
            ld_shared_u32(t + at(false, n + g + 8, kk + q)),
            ld_shared_u32(t + at(false, n + g + 8, kk + q + 4)),
        ]
    };
    [[tf32(r[0]), tf32(r[1])], [tf32(r[2]), tf32(r[3])]]
}

/// Loads the A fragments (`MI` m16 tiles from row `wm0`) and B fragments (`NI` n8 tiles from column
/// `wn0`) of k step `kk` of the stage at `stage` (the `BM`-row A tile, then the `BN`-row B tile at
/// `a_bytes`), rounded to TF32.
///
/// # Safety
/// As [`a_fragment`]; `stage` holds both tiles.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn load_fragments<
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const KPAD: u32,
    const RPAD: u32,
    const MI: usize,
    const NI: usize,
>(
    af: &mut [[u32; 4]; MI],
    bf: &mut [[u32; 2]; NI],
    stage: u32,
    a_bytes: u32,
    a_kc: bool,
    b_kc: bool,
    wm0: u32,
    wn0: u32,
    kk: u32,
    lane: u32,
) {
    for (i, f) in af.iter_mut().enumerate() {
        *f = a_fragment::<BM, BK, KPAD, RPAD>(stage, a_kc, wm0 + i as u32 * 16, kk, lane);
    }
    let mut j = 0;
    while j < NI {
        let pair =
            b_fragments::<BN, BK, KPAD, RPAD>(stage + a_bytes, b_kc, wn0 + j as u32 * 8, kk, lane);
        bf[j] = pair[0];
        bf[j + 1] = pair[1];
        j += 2;
    }
}
