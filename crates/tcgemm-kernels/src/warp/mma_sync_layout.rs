//! Where the lanes of a warp read their `m16n8k16` fragments in the 16-bit `mma.sync` kernels'
//! shared tiles: unpadded, XOR-swizzled ([`swizzled`]), k-contiguous `smem[r][BK]` or
//! r-contiguous `smem[k][R]` of 2-byte elements. Plain arithmetic, tested on the host; the loads
//! themselves are `warp::mma_sync`'s (device code).

use crate::config::GemmShape;
use crate::threadblock::global_to_shared::swizzled;

/// Byte offsets, within the A and B tiles of a `block` tile, of the row this lane addresses in the
/// first `ldmatrix` of each operand at k step 0 (A fragment 0 at row `wm0`, B fragments 0–1 at
/// column `wn0`), in the unpadded swizzled layout of [`swizzled`]. The other fragments and k steps
/// are a fixed XOR or add away ([`a_fragment_offset`], [`b_fragment_offset`]): steps along a tile
/// row (k in a k-contiguous tile, m or n in an r-contiguous one) stay inside the lane's 128-byte
/// line and XOR its chunk bits, which the lane's own offset leaves clear; steps of 16 rows keep
/// the row's XOR pattern and add.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::lane_offsets};
/// let block = GemmShape::new(128, 256, 32);
/// // lane 0 of the first warp reads row 0, k 0 of both tiles
/// assert_eq!(lane_offsets(block, true, false, 0, 0, 0), (0, 0));
/// // lane 9 (matrix 1, row 1) of a k-contiguous A: row 9 of 64-byte rows, chunk 0 XOR (9 % 8)
/// assert_eq!(lane_offsets(block, true, false, 0, 0, 9).0, (9 * 64) ^ (1 << 4));
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
    let (bm, bn, bk) = (block.m, block.n, block.k);
    // matrix li = lane / 8 of an `ldmatrix.x4`, row lr = lane % 8 of it. A: M0 rows 0-7 k 0-7,
    // M1 rows 8-15 k 0-7, M2 rows 0-7 k 8-15, M3 rows 8-15 k 8-15. B: b0, b1 of n-tile j (k 0-7,
    // k 8-15), then b0, b1 of n-tile j + 1.
    let (li, lr) = (lane / 8, lane % 8);
    let a = if a_kc {
        swizzled((wm0 + lr + (li % 2) * 8) * bk * 2 + (li / 2) * 16, bk * 2)
    } else {
        swizzled(
            (lr + (li / 2) * 8) * bm * 2 + (wm0 + (li % 2) * 8) * 2,
            bm * 2,
        )
    };
    let b = if b_kc {
        swizzled((wn0 + lr + (li / 2) * 8) * bk * 2 + (li % 2) * 16, bk * 2)
    } else {
        swizzled(
            (lr + (li % 2) * 8) * bn * 2 + (wn0 + (li / 2) * 8) * 2,
            bn * 2,
        )
    };
    (a, b)
}

/// Byte offset, within the A tile of a `block` tile, of this lane's `ldmatrix` row for A fragment
/// `i` (16 rows from the warp's first) at k step `kk`; `la` from [`lane_offsets`].
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::{a_fragment_offset, lane_offsets}};
/// let block = GemmShape::new(128, 256, 32);
/// let (la, _) = lane_offsets(block, true, true, 0, 0, 0);
/// // fragment 1 at k step 16: row 16, k 16 of 64-byte rows (row 16 keeps row 0's pattern)
/// assert_eq!(a_fragment_offset(block, true, la, 1, 16), 16 * 64 + 32);
/// ```
#[inline(always)]
pub const fn a_fragment_offset(block: GemmShape, a_kc: bool, la: u32, i: u32, kk: u32) -> u32 {
    if a_kc {
        // 16 rows down; k: kk·2 bytes along the row
        (la ^ (kk * 2)) + i * 16 * block.k * 2
    } else {
        // 16 elements along the row; k: kk rows down
        (la ^ (i * 32)) + kk * block.m * 2
    }
}

/// Byte offset, within the B tile of a `block` tile, of this lane's `ldmatrix` row for B fragments
/// `j` and `j + 1` (`j` even; 8 columns each from the warp's first) at k step `kk`; `lb` from
/// [`lane_offsets`].
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, warp::mma_sync_layout::{b_fragment_offset, lane_offsets}};
/// let block = GemmShape::new(128, 256, 32);
/// let (_, lb) = lane_offsets(block, true, false, 0, 0, 0);
/// // fragments 2-3 at k step 16 of an r-contiguous B: k row 16, column 16 (chunk 2)
/// assert_eq!(b_fragment_offset(block, false, lb, 2, 16), 16 * 512 + 32);
/// ```
#[inline(always)]
pub const fn b_fragment_offset(block: GemmShape, b_kc: bool, lb: u32, j: u32, kk: u32) -> u32 {
    if b_kc {
        // n-tile j: 8j rows down; k: kk·2 bytes along the row
        (lb ^ (kk * 2)) + j * 8 * block.k * 2
    } else {
        // n-tile j: 8j elements along the row; k: kk rows down
        (lb ^ (j * 16)) + kk * block.n * 2
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::config::{Elem, Family, KERNELS};
    use crate::threadblock::{m16n8_tiles, warp_grid};
    use std::{collections::HashMap, vec::Vec};

    /// Every 16-bit multistage kernel's fragment offsets, in every layout, for every warp, lane,
    /// fragment and k step: the swizzled place of the element the lane addresses, and the eight
    /// rows of each `ldmatrix` matrix on eight distinct 16-byte bank groups.
    #[test]
    fn fragment_offsets_are_the_swizzled_layout_without_conflicts() {
        let tiles = KERNELS
            .iter()
            .filter(|k| k.family == Family::MmaSyncMultistage && k.input != Elem::F32);
        let mut checked = 0;
        for k in tiles {
            let (b, (wgm, wgn), (mi, ni)) =
                (k.block, warp_grid(k.block, k.warp), m16n8_tiles(k.warp));
            for (a_kc, b_kc) in [(true, true), (true, false), (false, true), (false, false)] {
                for warp in 0..wgm * wgn {
                    let (wm0, wn0) = ((warp / wgn) * mi as u32 * 16, (warp % wgn) * ni as u32 * 8);
                    let mut chunks = HashMap::<(u32, u32, u32, u32), Vec<u32>>::new();
                    for lane in 0..32 {
                        let (la, lb) = lane_offsets(b, a_kc, b_kc, wm0, wn0, lane);
                        let (li, lr) = (lane / 8, lane % 8);
                        for kk in (0..b.k).step_by(16) {
                            for i in 0..mi as u32 {
                                let m = wm0 + i * 16;
                                let lin = if a_kc {
                                    (m + lr + (li % 2) * 8) * b.k * 2 + (kk + (li / 2) * 8) * 2
                                } else {
                                    (kk + lr + (li / 2) * 8) * b.m * 2 + (m + (li % 2) * 8) * 2
                                };
                                let rb = if a_kc { b.k * 2 } else { b.m * 2 };
                                let at = a_fragment_offset(b, a_kc, la, i, kk);
                                assert_eq!(
                                    at,
                                    swizzled(lin, rb),
                                    "{} A i {i} kk {kk} lane {lane}",
                                    k.name
                                );
                                chunks
                                    .entry((0, i, kk, li))
                                    .or_default()
                                    .push((at / 16) % 8);
                            }
                            for j in (0..ni as u32).step_by(2) {
                                let n = wn0 + j * 8;
                                let lin = if b_kc {
                                    (n + lr + (li / 2) * 8) * b.k * 2 + (kk + (li % 2) * 8) * 2
                                } else {
                                    (kk + lr + (li % 2) * 8) * b.n * 2 + (n + (li / 2) * 8) * 2
                                };
                                let rb = if b_kc { b.k * 2 } else { b.n * 2 };
                                let at = b_fragment_offset(b, b_kc, lb, j, kk);
                                assert_eq!(
                                    at,
                                    swizzled(lin, rb),
                                    "{} B j {j} kk {kk} lane {lane}",
                                    k.name
                                );
                                chunks
                                    .entry((1, j, kk, li))
                                    .or_default()
                                    .push((at / 16) % 8);
                            }
                        }
                    }
                    for (key, mut c) in chunks {
                        c.sort_unstable();
                        c.dedup();
                        assert_eq!(
                            c.len(),
                            8,
                            "{} {key:?}: an ldmatrix matrix's rows share banks",
                            k.name
                        );
                    }
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
