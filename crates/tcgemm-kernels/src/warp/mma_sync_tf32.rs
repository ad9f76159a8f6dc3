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
//! rounded to nearest before the MMA (`f32_to_tf32_mma_operand`: one `cvt.rn.tf32.f32` where built
//! for sm_90, else half a TF32 ulp added to its bits, the tensor core truncating the rest).
//!
//! Shared operand tiles of f32: k-contiguous `smem[r][BK]` of 128-byte lines (`BK` = 32), each
//! line's 16-byte chunk `c` at `c ^ (r % 8)` (`threadblock::global_to_shared::swizzled`: the eight
//! rows of an `ldmatrix` matrix on eight distinct bank groups, and every 128-byte line of the
//! operand copied into one line of shared memory); r-contiguous `smem[k][R + RPAD]`. A lane's
//! `ldmatrix` address is computed once per stage ([`kc_lane_offset`]); each k step is an XOR of its
//! chunk bits, each further m16 or n16 fragment an add.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::f32_to_tf32_mma_operand,
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

/// Bytes of a k-contiguous tile's line: 32 f32 of k.
pub const KC_LINE: u32 = 128;

/// Byte offset, in a k-contiguous tile, of the row this lane addresses in an `ldmatrix.x4` at k
/// step 0 whose four matrices are (rows `r0 + 8·(i % 2)` or, with `rows_second`, `r0 + 8·(i / 2)`)
/// × (k `4·(i / 2)` or `4·(i % 2)`), matrix `i = lane / 8`, row `lane % 8` of it. A's fragment
/// takes its rows first (`a0, a1` at k 0–3, `a2, a3` at k 4–7), two B fragments take k first
/// (`rows_second`: `b0, b1` of n-tile j, then of j + 1). The offset of k step `kk` is this XOR
/// `4·kk` (the chunk bits, which a line's start leaves clear), of the next 16 rows this plus
/// `16·KC_LINE`.
///
/// ```
/// use tcgemm_kernels::threadblock::global_to_shared::swizzled;
/// use tcgemm_kernels::warp::mma_sync_tf32::{kc_lane_offset, KC_LINE};
/// // lane 13 of an A fragment: matrix 1 (rows 8–15, k 0–3), row 5 → row 13, k 0; at k step 8
/// let at = kc_lane_offset(0, false, 13) ^ (4 * 8);
/// assert_eq!(at, swizzled(13 * KC_LINE + 8 * 4, KC_LINE));
/// ```
#[inline(always)]
pub const fn kc_lane_offset(r0: u32, rows_second: bool, lane: u32) -> u32 {
    let (i, lr) = (lane / 8, lane % 8);
    let (dr, dk) = if rows_second {
        (i / 2, i % 2)
    } else {
        (i % 2, i / 2)
    };
    // chunk dk of row r0 + lr + 8·dr, swizzled by the row (r0 a multiple of 8)
    (r0 + lr + 8 * dr) * KC_LINE + ((dk ^ lr) << 4)
}

/// Rounds f32 bits to TF32 as an `mma` operand (to nearest, ties away from zero).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn tf32(bits: u32) -> u32 {
    f32_to_tf32_mma_operand(f32::from_bits(bits))
}

/// Byte offset of element `(r, k)` in an r-contiguous f32 operand tile of `R` rows.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn rc_at<const R: u32, const RPAD: u32>(r: u32, k: u32) -> u32 {
    (k * (R + RPAD) + r) * 4
}

/// The m16n8k8 A fragment of rows `m..m+16`, k `kk..kk+8` of an r-contiguous tile at `t` (its
/// rows permuted, [`permuted_row`]).
///
/// # Safety
/// Warp-convergent; `t` holds an operand tile of the layout above, 8-byte aligned.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn rc_a_fragment<const R: u32, const RPAD: u32>(
    t: u32,
    m: u32,
    kk: u32,
    lane: u32,
) -> [u32; 4] {
    let (g, q) = (lane / 4, lane % 4);
    let row = m + permuted_row(0, g);
    let at_k = ld_shared_v2_u32(t + rc_at::<R, RPAD>(row, kk + q));
    let at_k4 = ld_shared_v2_u32(t + rc_at::<R, RPAD>(row, kk + q + 4));
    [at_k[0], at_k[1], at_k4[0], at_k4[1]]
}

/// The m16n8k8 B fragments of columns `n..n+8` and `n+8..n+16`, k `kk..kk+8` of an r-contiguous
/// tile at `t`.
///
/// # Safety
/// As [`rc_a_fragment`].
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn rc_b_fragments<const R: u32, const RPAD: u32>(
    t: u32,
    n: u32,
    kk: u32,
    lane: u32,
) -> [u32; 4] {
    let (g, q) = (lane / 4, lane % 4);
    let at = rc_at::<R, RPAD>;
    [
        ld_shared_u32(t + at(n + g, kk + q)),
        ld_shared_u32(t + at(n + g, kk + q + 4)),
        ld_shared_u32(t + at(n + g + 8, kk + q)),
        ld_shared_u32(t + at(n + g + 8, kk + q + 4)),
    ]
}

/// Loads the A fragments (`MI` m16 tiles from row `wm0`) and B fragments (`NI` n8 tiles from column
/// `wn0`) of k step `kk` of the stage at `stage` (the `BM`-row A tile, then the `BN`-row B tile at
/// `a_bytes`; 128-byte aligned), rounded to TF32.
///
/// # Safety
/// Warp-convergent; `stage` holds both tiles in the layouts of the module docs.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn load_fragments<
    const BM: u32,
    const BN: u32,
    const BK: u32,
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
    const { assert!(BK * 4 == KC_LINE) };
    let round = |r: [u32; 4]| [tf32(r[0]), tf32(r[1]), tf32(r[2]), tf32(r[3])];
    // a k-contiguous tile's lane address at this k step (the stage's line starts leave the chunk
    // bits clear); each further fragment 16 rows on
    let a_at = (stage + kc_lane_offset(wm0, false, lane)) ^ (4 * kk);
    for (i, f) in af.iter_mut().enumerate() {
        *f = round(if a_kc {
            shared_to_reg_x4(a_at + i as u32 * 16 * KC_LINE)
        } else {
            rc_a_fragment::<BM, RPAD>(stage, wm0 + i as u32 * 16, kk, lane)
        });
    }
    let tb = stage + a_bytes;
    let b_at = (tb + kc_lane_offset(wn0, true, lane)) ^ (4 * kk);
    let mut j = 0;
    while j < NI {
        let r = round(if b_kc {
            shared_to_reg_x4(b_at + j as u32 * 8 * KC_LINE)
        } else {
            rc_b_fragments::<BN, RPAD>(tb, wn0 + j as u32 * 8, kk, lane)
        });
        bf[j] = [r[0], r[1]];
        bf[j + 1] = [r[2], r[3]];
        j += 2;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{kc_lane_offset, permuted_row, KC_LINE};
    use crate::threadblock::{global_to_shared::swizzled, m16n8_tiles};
    use crate::warp::mma_sync_layout::fragment_checks::{
        assert_matrices_conflict_free, kernels_and_warps,
    };
    use std::{collections::HashMap, vec::Vec};

    /// Every TF32 multistage kernel's k-contiguous fragment addresses, for every warp, lane,
    /// fragment and k step: the lane's offset XOR the k step plus the fragment's rows is the
    /// swizzled place (where the copy puts it) of the element the `ldmatrix` row should start at,
    /// and the eight rows of each `ldmatrix` matrix fall on eight distinct 16-byte bank groups.
    #[test]
    fn k_contiguous_fragments_are_the_swizzled_layout_without_conflicts() {
        let tiles = kernels_and_warps(true);
        let mut checked = 0;
        for (k, warps) in tiles {
            let (b, (mi, ni)) = (k.block, m16n8_tiles(k.warp));
            assert_eq!(b.k * 4, KC_LINE, "{}", k.name);
            for &(wm0, wn0) in &warps {
                // (B?, fragment rows, k step, matrix) → the matrix rows' chunks
                let mut chunks = HashMap::<(bool, u32, u32, u32), Vec<u32>>::new();
                for lane in 0..32 {
                    let (i, lr) = (lane / 8, lane % 8);
                    // A: matrices (rows 0–7, 8–15) × (k 0–3, 4–7), rows first; B: two n8 tiles'
                    // (k 0–3, 4–7), k first
                    let a = (false, wm0, (0..mi as u32).map(|f| f * 16), (i % 2, i / 2));
                    let bb = (
                        true,
                        wn0,
                        (0..ni as u32).step_by(2).map(|f| f * 8),
                        (i / 2, i % 2),
                    );
                    for (is_b, r0, steps, (dr, dk)) in [
                        (a.0, a.1, a.2.collect::<Vec<_>>(), a.3),
                        (bb.0, bb.1, bb.2.collect(), bb.3),
                    ] {
                        let lane_off = kc_lane_offset(r0, is_b, lane);
                        for kk in (0..b.k).step_by(8) {
                            for &f in &steps {
                                let at = (lane_off ^ (4 * kk)) + f * KC_LINE;
                                let (row, kx) = (r0 + f + 8 * dr + lr, kk + 4 * dk);
                                assert_eq!(
                                    at,
                                    swizzled(row * KC_LINE + 4 * kx, KC_LINE),
                                    "{} {} rows +{f} k {kk} lane {lane}",
                                    k.name,
                                    if is_b { "B" } else { "A" }
                                );
                                chunks
                                    .entry((is_b, f, kk, i))
                                    .or_default()
                                    .push((at / 16) % 8);
                            }
                        }
                    }
                }
                assert_matrices_conflict_free(k.name, chunks);
            }
            checked += 1;
        }
        assert!(
            checked >= 24,
            "only {checked} TF32 multistage kernels checked"
        );
    }

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
