//! The seed TF32 kernel (seed document 000), in Rust: `128×128×16` block tile, 256 threads as 4 (M) ×
//! 2 (N) warps of `32×64`, each warp `2×8` `mma.sync.m16n8k8` tiles, `cp.async` double buffering that
//! prefetches k-tile `t+1` into the *other* stage while tile `t` is multiplied, padded shared tiles,
//! A fragments hoisted out of the N loop, built for 2 blocks/SM.
//!
//! Kept as the named baseline `tf32_*_128x128x16_w32x64_s2_seed`: every later TF32 change is measured
//! against it. Generalised beyond the seed to any transposes (the shared layout follows the memory
//! layout, see [`super::tile_io`]) and any M, N, K (zero-filled copies, predicated stores).
//!
//! Rounding: operands are rounded f32 → TF32 with `cvt.rna.tf32.f32` (to nearest, ties away from
//! zero) as they are loaded from shared memory into fragments; accumulation is f32.
//!
//! Shared layout per stage (bytes): A then B. k-contiguous operand: `128 × (16+4)` floats (the seed's
//! A layout); r-contiguous operand: `16 × (128+4)` floats (the seed's B layout).

use super::tile_io::TileCopy32;
use super::{batch_bases, raster::tile_of_block};
use crate::arch::convert::{f32_to_tf32_rna, fma_rn_f32};
use crate::arch::cp_async::{commit_group, wait_all};
use crate::arch::global::{ld_global_f32, st_global_f32};
use crate::arch::mma::mma_m16n8k8_row_col_f32_tf32_tf32_f32;
use crate::arch::smem::{base, ld_shared_f32};
use crate::arch::sync::sync_threads;
use crate::params::{flags, GemmParams};

/// Block tile rows.
pub const BM: u32 = 128;
/// Block tile columns.
pub const BN: u32 = 128;
/// Block tile depth.
pub const BK: u32 = 16;
const THREADS: u32 = 256;
const KPAD: u32 = 4;
const RPAD: u32 = 4;
/// Bytes of one operand tile (both layouts hold 128·16 floats plus padding; take the larger).
const TILE_BYTES: u32 = max(BM * (BK + KPAD), BK * (BM + RPAD)) * 4;
const STAGE_BYTES: u32 = 2 * TILE_BYTES;
/// Dynamic shared memory: 2 stages.
pub const SMEM_BYTES: u32 = 2 * STAGE_BYTES;
const _: () = assert!(SMEM_BYTES == crate::config::TF32_SEED_SMEM);

const fn max(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

/// Shared byte offset of element `(r, k)` of an operand tile.
#[inline(always)]
fn at(k_contig: bool, r: u32, k: u32) -> u32 {
    if k_contig {
        (r * (BK + KPAD) + k) * 4
    } else {
        (k * (BM + RPAD) + r) * 4
    }
}

/// Loads element `(r, k)` of a shared operand tile rounded to TF32.
#[inline(always)]
unsafe fn frag(tile: u32, k_contig: bool, r: u32, k: u32) -> u32 {
    f32_to_tf32_rna(ld_shared_f32(tile + at(k_contig, r, k)))
}

/// Computes the block's output tile of batch item `z`.
///
/// # Safety
/// Launched with 256 threads, `SMEM_BYTES` of dynamic shared memory, the host-derived grid, and
/// validated parameters.
#[inline(always)]
pub unsafe fn tf32_seed<const TRANS_A: bool, const TRANS_B: bool>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let smem = base();
    let warp = tid / 32;
    let lane = tid % 32;
    let g = lane / 4;
    let q = lane % 4;
    let wm0 = (warp / 2) * 32;
    let wn0 = (warp % 2) * 64;
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);

    {
        let (ga, gb, gc) = batch_bases(p, z, 4, 4);
        let ca = TileCopy32 {
            base: ga,
            ld: p.lda,
            k_contig: a_kc,
            r0: tile.m0,
            rows: p.m,
            k: p.k,
            vec: p.flags & flags::VEC_A != 0,
        };
        let cb = TileCopy32 {
            base: gb,
            ld: p.ldb,
            k_contig: b_kc,
            r0: tile.n0,
            rows: p.n,
            k: p.k,
            vec: p.flags & flags::VEC_B != 0,
        };
        let mut acc = [[[0.0f32; 4]; 8]; 2];

        if ktiles > 0 {
            ca.issue::<BM, BK, KPAD, RPAD, THREADS>(smem, 0, tid);
            cb.issue::<BN, BK, KPAD, RPAD, THREADS>(smem + TILE_BYTES, 0, tid);
            commit_group();
            wait_all();
            sync_threads();
            let mut kt = 0;
            while kt < ktiles {
                let cur = smem + (kt & 1) * STAGE_BYTES;
                let next = smem + ((kt + 1) & 1) * STAGE_BYTES;
                if kt + 1 < ktiles {
                    ca.issue::<BM, BK, KPAD, RPAD, THREADS>(next, (kt + 1) * BK, tid);
                    cb.issue::<BN, BK, KPAD, RPAD, THREADS>(next + TILE_BYTES, (kt + 1) * BK, tid);
                }
                commit_group();
                let ta = cur;
                let tb = cur + TILE_BYTES;
                let mut kk = 0;
                while kk < BK {
                    // A fragments hoisted out of the N loop
                    let mut a = [[0u32; 4]; 2];
                    for (i, ai) in a.iter_mut().enumerate() {
                        let r = wm0 + i as u32 * 16 + g;
                        *ai = [
                            frag(ta, a_kc, r, kk + q),
                            frag(ta, a_kc, r + 8, kk + q),
                            frag(ta, a_kc, r, kk + q + 4),
                            frag(ta, a_kc, r + 8, kk + q + 4),
                        ];
                    }
                    for j in 0..8u32 {
                        let c = wn0 + j * 8 + g;
                        let b = [frag(tb, b_kc, c, kk + q), frag(tb, b_kc, c, kk + q + 4)];
                        for i in 0..2 {
                            mma_m16n8k8_row_col_f32_tf32_tf32_f32(&mut acc[i][j as usize], a[i], b);
                        }
                    }
                    kk += 8;
                }
                wait_all();
                sync_threads();
                kt += 1;
            }
        }
        epilogue_m16n8(p, &acc, gc, tile.m0 + wm0 + g, tile.n0 + wn0 + 2 * q);
    }
}

/// Writes `C = alpha·acc + beta·C` from `2×8` m16n8 accumulator tiles: tile `(i, j)` element
/// `c[h·2 + e]` is at row `row0 + 16i + 8h`, column `col0 + 8j + e`. Pairs of adjacent columns are
/// written with scalar stores (the seed's epilogue); C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is the batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer.
#[inline(always)]
pub unsafe fn epilogue_m16n8(
    p: &GemmParams,
    acc: &[[[f32; 4]; 8]; 2],
    gc: u64,
    row0: u32,
    col0: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    for (i, acc_i) in acc.iter().enumerate() {
        for h in 0..2u32 {
            let row = row0 + i as u32 * 16 + h * 8;
            if row >= p.m {
                continue;
            }
            let row_addr = gc.wrapping_add(row as u64 * p.ldc * 4);
            for (j, acc_ij) in acc_i.iter().enumerate() {
                for e in 0..2u32 {
                    let col = col0 + j as u32 * 8 + e;
                    if col < p.n {
                        let addr = row_addr.wrapping_add(col as u64 * 4);
                        let mut y = p.alpha * acc_ij[(h * 2 + e) as usize];
                        if !beta_zero {
                            y = fma_rn_f32(p.beta, ld_global_f32(addr), y);
                        }
                        st_global_f32(addr, y);
                    }
                }
            }
        }
    }
}
