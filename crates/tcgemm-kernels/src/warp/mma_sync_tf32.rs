//! `mma.sync.aligned.m16n8k8` TF32 fragment loads.
//!
//! An operand kept k-contiguous in shared memory (A not transposed, B transposed) is read with
//! `ldmatrix.x4`: an 8×8 tile of 16-bit elements is an 8×4 tile of fp32, so the four tiles
//! `(rows 0–7, k 0–3), (rows 8–15, k 0–3), (rows 0–7, k 4–7), (rows 8–15, k 4–7)` are exactly the
//! m16n8k8 A fragment `a0..a3` (and two B fragments per `x4`). `ldmatrix.trans` moves 16-bit halves,
//! so an operand kept r-contiguous is read with `ld.shared` instead: a B fragment's two registers
//! (k and `k + 4`) one word each, an A fragment's `a0, a1` (rows `g`, `g + 8` at k) and `a2, a3`
//! (at `k + 4`) one 8-byte load each, straight into the MMA's register pairs, the fragment rows
//! being **permuted** so that each pair lies side by side in memory ([`permuted_row`]): the `mma`
//! does not care which row of memory a fragment row holds, as long as the epilogue writes each
//! accumulator row where it came from (`epilogue::fragment::store_pairs_permuted_rows`). (Loads
//! of four rows at once put the values in other registers than the MMA's pairs: ptxas then spent
//! about three register moves per MMA; docs/kernel-log.md, session 41.) Every fragment register is
//! rounded to nearest (ties away) before the MMA by adding half a TF32 ulp to its bits, the tensor
//! core truncating the rest (`f32_to_tf32_rna_mma_operand`).
//!
//! Shared operand tiles of f32: k-contiguous `smem[r][BK + KPAD]`, r-contiguous `smem[k][R + RPAD]`
//! (see `threadblock::global_to_shared`).

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::f32_to_tf32_rna_mma_operand,
    crate::arch::ldmatrix::shared_to_reg_x4,
    crate::arch::smem::{ld_shared_u32, ld_shared_v2_u32},
};

/// The memory row (relative to the m16 tile's first) of fragment row `8h + g` (`h` = 0, 1; lane
/// group `g = lane / 4`) of an r-contiguous A: rows `g` and `g + 8` of the fragment are memory
/// rows `2g` and `2g + 1`. In rows of `R + 8` floats (`R` = 16, 32, 64 or 128: the catalog's tile
/// heights) the 8-byte loads of a half-warp at one k then cover the 32 banks once.
///
/// ```
/// use tcgemm_kernels::warp::mma_sync_tf32::permuted_row;
/// assert_eq!((permuted_row(0, 5), permuted_row(1, 5)), (10, 11));
/// ```
#[inline(always)]
pub const fn permuted_row(h: u32, g: u32) -> u32 {
    2 * g + h
}

/// Rounds f32 bits to TF32 as an `mma` operand (to nearest, ties away from zero).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn tf32(bits: u32) -> u32 {
    f32_to_tf32_rna_mma_operand(f32::from_bits(bits))
}

/// Byte offset of element `(r, k)` in an f32 operand tile of `R` rows.
#[cfg(target_arch = "nvptx64")]
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

/// The m16n8k8 A fragment of rows `m..m+16`, k `kk..kk+8` of the tile at `t` (r-contiguous: its
/// rows permuted, [`permuted_row`]).
///
/// # Safety
/// Warp-convergent; `t` holds an operand tile of the layout above, 8-byte aligned.
#[cfg(target_arch = "nvptx64")]
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
        let row = m + permuted_row(0, g);
        let at_k = ld_shared_v2_u32(t + at(false, row, kk + q));
        let at_k4 = ld_shared_v2_u32(t + at(false, row, kk + q + 4));
        [at_k[0], at_k[1], at_k4[0], at_k4[1]]
    };
    [tf32(r[0]), tf32(r[1]), tf32(r[2]), tf32(r[3])]
}

/// The m16n8k8 B fragments of columns `n..n+8` and `n+8..n+16`, k `kk..kk+8` of the tile at `t`.
///
/// # Safety
/// As [`a_fragment`].
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::permuted_row;
    use std::vec::Vec;

    /// Rows of A's operand tile of every TF32 `mma.sync` tile (`BM`: 128, 16, 32, 64).
    const TILE_ROWS: [u32; 4] = [128, 16, 32, 64];

    /// Each lane group's two fragment rows are two adjacent memory rows, and the 8 groups cover
    /// the m16 tile's 16 rows once.
    #[test]
    fn permuted_rows_pair_up_and_cover_the_tile() {
        let mut rows: Vec<u32> = (0..8)
            .flat_map(|g| [permuted_row(0, g), permuted_row(1, g)])
            .collect();
        for g in 0..8 {
            assert_eq!(permuted_row(1, g), permuted_row(0, g) + 1);
            assert!(permuted_row(0, g).is_multiple_of(2));
        }
        rows.sort_unstable();
        assert_eq!(rows, (0..16).collect::<Vec<_>>());
    }

    /// The 8-byte loads of one half-warp (one shared-memory wavefront) at k and `k + 4` hit the
    /// 32 banks once in rows of `R + 8` floats, for every m16 tile of the operand tile.
    #[test]
    fn pair_loads_are_conflict_free() {
        for r in TILE_ROWS {
            for m in (0..r).step_by(16) {
                for kk in [0, 8, 16, 24] {
                    for kh in [0, 4] {
                        for half in 0..2 {
                            let mut banks: Vec<u32> = Vec::new();
                            for lane in 16 * half..16 * half + 16 {
                                let (g, q) = (lane / 4, lane % 4);
                                let word = (kk + q + kh) * (r + 8) + m + permuted_row(0, g);
                                assert!(word.is_multiple_of(2));
                                banks.extend([word % 32, (word + 1) % 32]);
                            }
                            banks.sort_unstable();
                            banks.dedup();
                            assert_eq!(banks.len(), 32, "R {r} m {m} k {kk}+{kh} half {half}");
                        }
                    }
                }
            }
        }
    }
}
