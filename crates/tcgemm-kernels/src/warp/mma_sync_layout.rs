//! Where the lanes of a warp read their `m16n8k16` fragments in the 16-bit `mma.sync` kernels'
//! shared tiles: unpadded, XOR-swizzled ([`swizzled`]), k-contiguous `smem[r][BK]` or
//! r-contiguous `smem[k][R]` of 2-byte elements. Plain arithmetic, tested on the host; the loads
//! themselves are `warp::mma_sync`'s (device code).
//!
//! Each lane computes its `ldmatrix` row offset once ([`lane_offsets`]); every other fragment and
//! k step is a fixed XOR or add away ([`OperandTile::step`]): steps along a tile row (k in a
//! k-contiguous tile, m or n in an r-contiguous one) stay inside the lane's 128-byte line and XOR
//! its chunk bits, which the lane's own offset leaves clear; steps of 16 rows keep the row's XOR
//! pattern and add.

use crate::config::GemmShape;
use crate::threadblock::global_to_shared::swizzled;

/// One operand tile of a 16-bit `mma.sync` block tile: `rows` rows (M for A, N for B), depth `bk`,
/// k-contiguous (A not transposed, B transposed) or r-contiguous.
#[derive(Clone, Copy, Debug)]
pub struct OperandTile {
    /// Rows along M (A) or N (B).
    pub rows: u32,
    /// Depth along K.
    pub bk: u32,
    /// The k index is contiguous in shared memory (and in global memory).
    pub k_contig: bool,
}

impl OperandTile {
    /// A's tile of `block`.
    #[inline(always)]
    pub const fn a(block: GemmShape, k_contig: bool) -> Self {
        OperandTile {
            rows: block.m,
            bk: block.k,
            k_contig,
        }
    }

    /// B's tile of `block`.
    #[inline(always)]
    pub const fn b(block: GemmShape, k_contig: bool) -> Self {
        OperandTile {
            rows: block.n,
            bk: block.k,
            k_contig,
        }
    }

    /// Byte offset of element `(r, k)`: unpadded rows of `bk` (k-contiguous) or `rows` elements,
    /// swizzled.
    ///
    /// ```
    /// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::OperandTile};
    /// let a = OperandTile::a(GemmShape::new(128, 256, 32), true);
    /// // row 9 of 64-byte rows, k 0: chunk 0 XOR (9 % 8)
    /// assert_eq!(a.offset(9, 0), (9 * 64) ^ (1 << 4));
    /// ```
    #[inline(always)]
    pub const fn offset(self, r: u32, k: u32) -> u32 {
        if self.k_contig {
            swizzled(r * self.bk * 2 + k * 2, self.bk * 2)
        } else {
            swizzled(k * self.rows * 2 + r * 2, self.rows * 2)
        }
    }

    /// The offset `dr` rows along M or N (a multiple of 8) and `kk` along K (a multiple of 16)
    /// from a lane's offset `lane` ([`lane_offsets`]): XOR along the stored row, add across rows.
    ///
    /// ```
    /// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::OperandTile};
    /// let b = OperandTile::b(GemmShape::new(128, 256, 32), false);
    /// // 16 columns and 16 k along an r-contiguous B from lane 0: k row 16, column 16 (chunk 2)
    /// assert_eq!(b.step(b.offset(0, 0), 16, 16), b.offset(16, 16));
    /// ```
    #[inline(always)]
    pub const fn step(self, lane: u32, dr: u32, kk: u32) -> u32 {
        if self.k_contig {
            (lane ^ (kk * 2)) + dr * self.bk * 2
        } else {
            (lane ^ (dr * 2)) + kk * self.rows * 2
        }
    }
}

/// Byte offsets, within the A and B tiles of a `block` tile, of the row this lane addresses in the
/// first `ldmatrix` of each operand at k step 0: A fragment 0 at row `wm0`, B fragments 0–1 at
/// column `wn0`.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::lane_offsets};
/// // lane 0 of the first warp reads row 0, k 0 of both tiles
/// assert_eq!(lane_offsets(GemmShape::new(128, 256, 32), true, false, 0, 0, 0), (0, 0));
/// ```
#[inline(always)]
pub const fn lane_offsets(
    block: GemmShape,
    a_kc: bool,
    b_kc: bool,
    wm0: u32,
    wn0: u32,
    lane: u32,
) -> (u32, u32) {
    // matrix li = lane / 8 of an `ldmatrix.x4`, row lr = lane % 8 of it; a matrix's rows run along
    // r in a k-contiguous tile (plain `ldmatrix`) and along k in an r-contiguous one (`.trans`).
    // A: M0 rows 0-7 k 0-7, M1 rows 8-15 k 0-7, M2 rows 0-7 k 8-15, M3 rows 8-15 k 8-15. B: b0, b1
    // of n-tile j (k 0-7, k 8-15), then b0, b1 of n-tile j + 1.
    let (li, lr) = (lane / 8, lane % 8);
    let (a, b) = (OperandTile::a(block, a_kc), OperandTile::b(block, b_kc));
    (
        if a_kc {
            a.offset(wm0 + lr + (li % 2) * 8, (li / 2) * 8)
        } else {
            a.offset(wm0 + (li % 2) * 8, lr + (li / 2) * 8)
        },
        if b_kc {
            b.offset(wn0 + lr + (li / 2) * 8, (li % 2) * 8)
        } else {
            b.offset(wn0 + (li / 2) * 8, lr + (li % 2) * 8)
        },
    )
}

/// Test support shared by the fragment-offset tests of the 16-bit and TF32 `mma.sync` kernels.
#[cfg(test)]
pub(crate) mod fragment_checks {
    extern crate std;
    use crate::config::{Elem, Family, KernelSpec, KERNELS};
    use crate::threadblock::{m16n8_tiles, warp_grid};
    use std::{collections::HashMap, fmt::Debug, vec::Vec};

    /// The multistage `mma.sync` kernels of f32 inputs (TF32) or of 16-bit ones, each with the
    /// origins `(wm0, wn0)` of its warps' tiles in the block tile.
    pub(crate) fn kernels_and_warps(
        f32_input: bool,
    ) -> Vec<(&'static KernelSpec, Vec<(u32, u32)>)> {
        KERNELS
            .iter()
            .filter(|k| {
                k.family == Family::MmaSyncMultistage && (k.input == Elem::F32) == f32_input
            })
            .map(|k| {
                let ((wgm, wgn), (mi, ni)) = (warp_grid(k.block, k.warp), m16n8_tiles(k.warp));
                let warps = (0..wgm * wgn)
                    .map(|w| ((w / wgn) * mi as u32 * 16, (w % wgn) * ni as u32 * 8))
                    .collect();
                (k, warps)
            })
            .collect()
    }

    /// Asserts that the eight rows of each `ldmatrix` matrix (`chunks`: a matrix's key → the
    /// 16-byte chunk, within its 128-byte line, each of its rows starts at) fall on eight distinct
    /// bank groups.
    pub(crate) fn assert_matrices_conflict_free<K: Debug>(
        name: &str,
        chunks: HashMap<K, Vec<u32>>,
    ) {
        for (key, mut c) in chunks {
            c.sort_unstable();
            c.dedup();
            assert_eq!(
                c.len(),
                8,
                "{name} {key:?}: an ldmatrix matrix's rows share banks"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::fragment_checks::{assert_matrices_conflict_free, kernels_and_warps};
    use super::*;
    use crate::threadblock::m16n8_tiles;
    use std::{collections::HashMap, vec::Vec};

    /// Every 16-bit multistage kernel's fragment offsets, in every layout, for every warp, lane,
    /// fragment and k step: the stepped offset is the place of the element the lane addresses, and
    /// the eight rows of each `ldmatrix` matrix fall on eight distinct 16-byte bank groups.
    #[test]
    fn fragment_offsets_are_the_swizzled_layout_without_conflicts() {
        let tiles = kernels_and_warps(false);
        let mut checked = 0;
        for (k, warps) in tiles {
            let (b, (mi, ni)) = (k.block, m16n8_tiles(k.warp));
            for (a_kc, b_kc) in [(true, true), (true, false), (false, true), (false, false)] {
                let (ta, tb) = (OperandTile::a(b, a_kc), OperandTile::b(b, b_kc));
                for &(wm0, wn0) in &warps {
                    let mut chunks = HashMap::<(bool, u32, u32, u32), Vec<u32>>::new();
                    for lane in 0..32 {
                        let (la, lb) = lane_offsets(b, a_kc, b_kc, wm0, wn0, lane);
                        let (li, lr) = (lane / 8, lane % 8);
                        // (operand, its tile, lane offset, fragment steps along R, matrix origin)
                        let a = (
                            false,
                            ta,
                            la,
                            (0..mi as u32).map(|i| i * 16).collect::<Vec<_>>(),
                        );
                        let bb = (
                            true,
                            tb,
                            lb,
                            (0..ni as u32).step_by(2).map(|j| j * 8).collect(),
                        );
                        for (is_b, t, lane_off, steps) in [a, bb] {
                            let (r0, k0) = if is_b {
                                (wn0 + (li / 2) * 8, (li % 2) * 8)
                            } else {
                                (wm0 + (li % 2) * 8, (li / 2) * 8)
                            };
                            for kk in (0..b.k).step_by(16) {
                                for &dr in &steps {
                                    let (r, kx) = if t.k_contig {
                                        (r0 + dr + lr, k0 + kk)
                                    } else {
                                        (r0 + dr, k0 + kk + lr)
                                    };
                                    let at = t.step(lane_off, dr, kk);
                                    assert_eq!(
                                        at,
                                        t.offset(r, kx),
                                        "{} {} dr {dr} kk {kk} lane {lane}",
                                        k.name,
                                        if is_b { "B" } else { "A" }
                                    );
                                    chunks
                                        .entry((is_b, dr, kk, li))
                                        .or_default()
                                        .push((at / 16) % 8);
                                }
                            }
                        }
                    }
                    assert_matrices_conflict_free(k.name, chunks);
                }
            }
            checked += 1;
        }
        assert!(
            checked >= 20,
            "only {checked} 16-bit multistage kernels checked"
        );
    }
}
