//! A TF32 operand A stored M-major, fed to `wgmma` from registers (sm_90a): `wgmma … .tf32` reads
//! only K-major operands from shared memory, but takes A from registers in any order the threads
//! load it.
//!
//! Shared memory holds a consumer's 64 rows of A as TMA writes an M-major operand with the
//! 128-byte swizzle: two boxes of 32 m (one 128-byte row) × 32 k-rows, 4 KiB each; element `(m, k)`
//! of a box sits in k-row `k`, 16-byte chunk `(m / 4) ^ (k % 8)`, word `m % 4`
//! ([`mn_major_offset`]).
//!
//! A thread's fragment of one `k8` slice is rows `r`, `r + 8` (`r = 16·warp + lane/4`) × columns
//! `q`, `q + 4` (`q = lane % 4`). The fragment rows are a permutation of the tile's rows
//! ([`fragment_row`]): rows `r` and `r + 8` of the fragment are the adjacent rows `m`, `m + 1` of
//! the tile, so one 8-byte load brings both, and each half-warp's 16 loads of a slice cover the
//! 32 banks once (the permutation spreads a half-warp over the 8 chunk positions of the swizzle).
//! The epilogue stores fragment rows `r`, `r + 8` at tile rows `m`, `m + 1`.
//!
//! Per slice a thread issues two `ld.shared.v2` (columns `q` and `q + 4`); a consumer warpgroup's
//! k-tile of 32 k costs 8 of them per thread, 16 wavefronts per warp, against 64 for the in-place
//! transpose the staged kernels run (a read and a write of every word of A).

/// Bytes of one box of an M-major TF32 operand: 32 m (one 128-byte row) × 32 k-rows.
pub const BOX_BYTES: u32 = 32 * 128;

/// Byte offset of element `(m, k)` (`m < 64`, `k < 32`) in a consumer's two boxes of an M-major
/// TF32 operand (TMA's 128-byte swizzle: 16-byte chunk `(m % 32) / 4` of k-row `k` sits at
/// position `chunk ^ (k % 8)`).
///
/// ```
/// use tcgemm_kernels::warp::wgmma_register_a::mn_major_offset;
/// assert_eq!(mn_major_offset(0, 0), 0);
/// assert_eq!(mn_major_offset(5, 1), 128 + (1 ^ 1) * 16 + 4);
/// assert_eq!(mn_major_offset(33, 9), 4096 + 9 * 128 + (0 ^ 1) * 16 + 4);
/// ```
pub const fn mn_major_offset(m: u32, k: u32) -> u32 {
    (m / 32) * BOX_BYTES + k * 128 + (((m % 32) / 4) ^ (k % 8)) * 16 + (m % 4) * 4
}

/// The tile row (of a consumer's 64) of fragment row `16·warp + g` (`g` = lane/4 < 8); fragment
/// row `16·warp + g + 8` is the next tile row. Warp `w`'s half-warp `h = g / 4` takes box
/// `u / 4` and chunk positions `u % 4` and `u % 4 + 4` of it (`u = 2w + h`), two row pairs per
/// chunk.
///
/// ```
/// use tcgemm_kernels::warp::wgmma_register_a::fragment_row;
/// assert_eq!([fragment_row(0, 0), fragment_row(0, 1), fragment_row(0, 2)], [0, 2, 16]);
/// assert_eq!(fragment_row(0, 4), 4);
/// assert_eq!(fragment_row(3, 7), 32 + 4 * 7 + 2);
/// ```
pub const fn fragment_row(warp: u32, g: u32) -> u32 {
    let u = 2 * warp + g / 4;
    let gg = g % 4;
    let chunk = u % 4 + 4 * (gg / 2);
    32 * (u / 4) + 4 * chunk + 2 * (gg % 2)
}

/// Loads the thread's A fragments of the four `k8` slices of a k-tile: `[A(r, q), A(r + 8, q),
/// A(r, q + 4), A(r + 8, q + 4)]` of slice `kk` (fragment rows as [`fragment_row`]) from the
/// consumer's boxes at `a0`; `row = fragment_row(warp, lane / 4)`, `q = lane % 4`.
///
/// # Safety
/// `a0` is the 1024-byte-aligned shared address of the consumer's two boxes, complete (their
/// `full` barrier waited for).
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn load_k_tile(a0: u32, row: u32, q: u32) -> [[u32; 4]; 4] {
    use crate::arch::smem::ld_shared_v2_u32;
    core::array::from_fn(|kk| {
        let k = 8 * kk as u32 + q;
        let lo = ld_shared_v2_u32(a0 + mn_major_offset(row, k));
        let hi = ld_shared_v2_u32(a0 + mn_major_offset(row, k + 4));
        [lo[0], lo[1], hi[0], hi[1]]
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Every tile row is the first or second row of exactly one thread's pair.
    #[test]
    fn fragment_rows_are_a_permutation() {
        let mut seen = [0u32; 64];
        for w in 0..4 {
            for g in 0..8 {
                let m = fragment_row(w, g);
                assert!(m.is_multiple_of(2) && m + 1 < 64, "warp {w} g {g}: {m}");
                seen[m as usize] += 1;
                seen[m as usize + 1] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
    }

    /// Each half-warp's 8-byte loads of a slice column hit 32 distinct banks (no conflicts), and
    /// stay inside the two boxes, 8-byte aligned.
    #[test]
    fn slice_loads_are_conflict_free() {
        for w in 0..4 {
            for kk in 0..4 {
                for col in [0, 4] {
                    for half in 0..2 {
                        let mut banks: Vec<u32> = Vec::new();
                        for lane in 16 * half..16 * half + 16 {
                            let (g, q) = (lane / 4, lane % 4);
                            let off = mn_major_offset(fragment_row(w, g), 8 * kk + q + col);
                            assert!(off.is_multiple_of(8) && off + 8 <= 2 * BOX_BYTES);
                            banks.extend([(off / 4) % 32, (off / 4 + 1) % 32]);
                        }
                        banks.sort_unstable();
                        banks.dedup();
                        assert_eq!(banks.len(), 32, "warp {w} slice {kk} col {col} half {half}");
                    }
                }
            }
        }
    }

    /// The two words of a load are the fragment's rows `r` and `r + 8`: tile rows `m`, `m + 1`.
    #[test]
    fn a_load_brings_both_rows_of_the_pair() {
        for w in 0..4 {
            for g in 0..8 {
                let m = fragment_row(w, g);
                for k in 0..32 {
                    assert_eq!(mn_major_offset(m + 1, k), mn_major_offset(m, k) + 4);
                }
            }
        }
    }
}
