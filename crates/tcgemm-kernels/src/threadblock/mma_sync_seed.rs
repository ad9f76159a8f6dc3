//! The seed TF32 kernel (seed document 000), in Rust: `mma.sync.m16n8k8` with f32 accumulators,
//! `cp.async` double buffering that prefetches k-tile `t+1` into the *other* stage while tile `t` is
//! multiplied, padded shared tiles, A fragments hoisted out of the N loop (its shapes and blocks
//! per SM are its catalog line's).
//!
//! Kept as the named baseline (`tf32_*_seed`): every later TF32 change is measured against it.
//! Generalised beyond the seed to any transposes (the shared layout follows the memory layout, see
//! `super::global_to_shared`) and any M, N, K (zero-filled copies, predicated stores).
//!
//! Rounding: operands are rounded f32 → TF32 with `cvt.rna.tf32.f32` (to nearest, ties away from
//! zero) as they are loaded from shared memory into fragments, one scalar `ld.shared.f32` each;
//! accumulation is f32. The epilogue writes element by element (`store_elements_f32`).
//!
//! Shared layout per stage: A then B, each the larger of the two operand layouts: k-contiguous
//! `R × (BK+4)` floats (the seed's A layout) or r-contiguous `BK × (R+4)` floats (the seed's B
//! layout).

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::per_chunk::PerChunkCopy,
    super::{batch_bases, raster::tile_of_block},
    crate::arch::convert::f32_to_tf32_rna,
    crate::arch::cp_async::{commit_group, wait_all},
    crate::arch::mma::mma_m16n8k8_row_col_f32_tf32_tf32_f32,
    crate::arch::smem::{base, ld_shared_f32},
    crate::arch::sync::sync_threads,
    crate::epilogue::fragment::store_elements_f32,
    crate::params::{flags, GemmParams},
};

/// Padding of a k-contiguous row (floats).
const KPAD: u32 = 4;
/// Padding of an r-contiguous row (floats).
const RPAD: u32 = 4;

/// Bytes of one operand tile of `r` rows and depth `bk` (both layouts hold `r·bk` floats plus
/// padding; the larger).
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    let kc = r * (bk + KPAD);
    let rc = bk * (r + RPAD);
    (if kc > rc { kc } else { rc }) * 4
}

pub use super::mma_sync_threads as threads;

/// Dynamic shared memory of a `block` tile with `stages` stages.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::mma_sync_seed::smem_bytes};
/// // k-contiguous rows of 16 + 4 floats are the larger layout
/// assert_eq!(smem_bytes(GemmShape::new(128, 128, 16), 2), 2 * 2 * 128 * (16 + 4) * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k))
}

/// Shared byte offset of element `(r, k)` of an operand tile of `R` rows.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn at<const R: u32, const BK: u32>(k_contig: bool, r: u32, k: u32) -> u32 {
    if k_contig {
        (r * (BK + KPAD) + k) * 4
    } else {
        (k * (R + RPAD) + r) * 4
    }
}

/// Loads element `(r, k)` of a shared operand tile rounded to TF32.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn frag<const R: u32, const BK: u32>(tile: u32, k_contig: bool, r: u32, k: u32) -> u32 {
    f32_to_tf32_rna(ld_shared_f32(tile + at::<R, BK>(k_contig, r, k)))
}

/// Computes the block's output tile of batch item `z`.
///
/// One function of more than 80 lines on purpose: split into calls, its parts are optimized apart
/// before they are inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// Launched with `THREADS` threads (`WARPS_M × WARPS_N` warps of `MI×NI` m16n8 tiles),
/// [`smem_bytes`] of dynamic shared memory (2 stages), the host-derived grid, and validated
/// parameters.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm<
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const WARPS_M: u32,
    const WARPS_N: u32,
    const MI: usize,
    const NI: usize,
    const THREADS: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const {
        assert!(WARPS_M * WARPS_N * 32 == THREADS);
        assert!(BM == WARPS_M * MI as u32 * 16 && BN == WARPS_N * NI as u32 * 8);
    };
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let smem = base();
    let a_bytes = tile_bytes(BM, BK);
    let stage_bytes = a_bytes + tile_bytes(BN, BK);
    let warp = tid / 32;
    let lane = tid % 32;
    let g = lane / 4;
    let q = lane % 4;
    let wm0 = (warp / WARPS_N) * (MI as u32 * 16);
    let wn0 = (warp % WARPS_N) * (NI as u32 * 8);
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);

    {
        let (ga, gb, gc) = batch_bases(p, z, 4, 4);
        let ca = PerChunkCopy {
            base: ga,
            ld: p.lda,
            k_contig: a_kc,
            r0: tile.m0,
            rows: p.m,
            k: p.k,
            vec: p.flags & flags::VEC_A != 0,
        };
        let cb = PerChunkCopy {
            base: gb,
            ld: p.ldb,
            k_contig: b_kc,
            r0: tile.n0,
            rows: p.n,
            k: p.k,
            vec: p.flags & flags::VEC_B != 0,
        };
        let mut acc = [[[0.0f32; 4]; NI]; MI];

        if ktiles > 0 {
            ca.issue::<BM, BK, KPAD, RPAD, THREADS, false>(smem, 0, tid);
            cb.issue::<BN, BK, KPAD, RPAD, THREADS, false>(smem + a_bytes, 0, tid);
            commit_group();
            wait_all();
            sync_threads();
            let mut kt = 0;
            while kt < ktiles {
                let cur = smem + (kt & 1) * stage_bytes;
                let next = smem + ((kt + 1) & 1) * stage_bytes;
                if kt + 1 < ktiles {
                    ca.issue::<BM, BK, KPAD, RPAD, THREADS, false>(next, (kt + 1) * BK, tid);
                    cb.issue::<BN, BK, KPAD, RPAD, THREADS, false>(
                        next + a_bytes,
                        (kt + 1) * BK,
                        tid,
                    );
                }
                commit_group();
                let ta = cur;
                let tb = cur + a_bytes;
                let mut kk = 0;
                while kk < BK {
                    // A fragments hoisted out of the N loop
                    let mut a = [[0u32; 4]; MI];
                    for (i, ai) in a.iter_mut().enumerate() {
                        let r = wm0 + i as u32 * 16 + g;
                        *ai = [
                            frag::<BM, BK>(ta, a_kc, r, kk + q),
                            frag::<BM, BK>(ta, a_kc, r + 8, kk + q),
                            frag::<BM, BK>(ta, a_kc, r, kk + q + 4),
                            frag::<BM, BK>(ta, a_kc, r + 8, kk + q + 4),
                        ];
                    }
                    for j in 0..NI as u32 {
                        let c = wn0 + j * 8 + g;
                        let b = [
                            frag::<BN, BK>(tb, b_kc, c, kk + q),
                            frag::<BN, BK>(tb, b_kc, c, kk + q + 4),
                        ];
                        for i in 0..MI {
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
        store_elements_f32(p, &acc, gc, tile.m0 + wm0 + g, tile.n0 + wn0 + 2 * q);
    }
}
