//! Block index → output tile, grouped along M for L2 reuse.
//!
//! Consecutive block indices walk down `group_m` tile rows, then step one tile column: the blocks
//! resident at once share A rows and B columns in L2 instead of streaming one whole row of tiles.

use super::BlockTile;

/// Maps linear block index `bid` to the tile it computes, for a `tiles_m × tiles_n` grid of
/// `bm × bn` tiles.
#[inline(always)]
pub fn tile_of_block(
    bid: u32,
    tiles_m: u32,
    tiles_n: u32,
    group_m: u32,
    bm: u32,
    bn: u32,
) -> BlockTile {
    let g = if group_m == 0 { 1 } else { group_m };
    let per_group = g * tiles_n;
    let group = bid / per_group;
    let first_m = group * g;
    let rows_in_group = if tiles_m - first_m < g {
        tiles_m - first_m
    } else {
        g
    };
    let in_group = bid - group * per_group;
    let tm = first_m + in_group % rows_in_group;
    let tn = in_group / rows_in_group;
    BlockTile {
        m0: tm * bm,
        n0: tn * bn,
    }
}
