//! CUDA-core SGEMM threadblock: `fma.rn.f32` into 8×8 f32 accumulators per thread, two
//! shared-memory stages with register-staged prefetch (the global loads of k-tile `t+1` are in
//! flight while tile `t` is multiplied; `RegisterStagedCopy`).
//!
//! Written for one shape: `128×128×8` block tiles of `8×8` thread tiles, 256 threads. Warps form a
//! 4 (M) × 2 (N) grid of `32×64` warp tiles. In a warp, lane `l = 8·lrow + lcol` owns rows
//! `{16·s + 4·lrow + i}` and columns `{32·s + 4·lcol + j}` (s ∈ {0,1}, i, j ∈ 0..4) of the warp
//! tile: each `ld.shared.v4` of A touches 4 distinct 16-byte words and each one of B 8 — one
//! shared-memory wavefront each, no bank conflicts.
//!
//! Shared layout per stage: A as `BK × (BM+4)` (k-major, so an A row fragment is contiguous), then
//! B as `BK × (BN+4)`.

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::register_staged::RegisterStagedCopy,
    super::{batch_bases, raster::tile_of_block},
    crate::arch::convert::fma_rn_f32,
    crate::arch::smem::{base, ld_shared_v4_f32},
    crate::arch::sync::sync_threads,
    crate::epilogue::thread_tile::store_thread_tile,
    crate::params::{flags, GemmParams},
};

/// Padding of a shared row, floats (breaks the 2-way bank conflict of the transposing stores).
const PAD: u32 = 4;

/// Bytes of one operand tile in shared memory: `bk` rows of `r + PAD` floats.
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    bk * (r + PAD) * 4
}

/// Dynamic shared memory of a `block` tile with `stages` stages (A tile, then B tile, per stage).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core::smem_bytes};
/// assert_eq!(smem_bytes(GemmShape::new(128, 128, 8), 2), 2 * 2 * 8 * (128 + 4) * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k))
}

/// Threads of a `block` tile computed as `thread`-sized register tiles (`m×n` per thread).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core::threads};
/// assert_eq!(threads(GemmShape::new(128, 128, 8), GemmShape::new(8, 8, 1)), 256);
/// ```
pub const fn threads(block: GemmShape, thread: GemmShape) -> u32 {
    (block.m / thread.m) * (block.n / thread.n)
}

/// Computes the block's output tile of batch item `z`.
///
/// One function of more than 80 lines on purpose: split into calls, its parts are optimized apart
/// before they are inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// Must be launched with [`threads`] threads, [`smem_bytes`] of dynamic shared memory (2 stages),
/// the grid the host derives from the kernel's `config::KERNELS` record, and `p` validated by the
/// host (buffers cover every element).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm<
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const TM: u32,
    const TN: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const {
        assert!(
            BM == 128 && BN == 128 && BK == 8 && TM == 8 && TN == 8,
            "the thread mapping is written for 128×128×8 blocks of 8×8 thread tiles"
        )
    };
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let smem = base();
    let stage_bytes = tile_bytes(BM, BK) + tile_bytes(BN, BK);
    let warp = tid / 32;
    let lane = tid % 32;
    let a_row0 = (warp / 2) * 32 + (lane / 8) * 4;
    let b_col0 = (warp % 2) * 64 + (lane % 8) * 4;
    let ktiles = p.k.div_ceil(BK);

    {
        let (ga, gb, gc) = batch_bases(p, z, 4, 4);
        let mut la = RegisterStagedCopy::<BM, BK, PAD>::new(
            ga,
            p.lda,
            !TRANS_A,
            tile.m0,
            p.m,
            tid,
            p.flags & flags::VEC_A != 0,
        );
        let mut lb = RegisterStagedCopy::<BN, BK, PAD>::new(
            gb,
            p.ldb,
            TRANS_B,
            tile.n0,
            p.n,
            tid,
            p.flags & flags::VEC_B != 0,
        );

        let mut acc = [[0.0f32; 8]; 8];
        if ktiles > 0 {
            let va = la.load(0, p.k);
            let vb = lb.load(0, p.k);
            la.store(smem, va);
            lb.store(smem + tile_bytes(BM, BK), vb);
            sync_threads();
            let mut kt = 0;
            while kt < ktiles {
                let cur = smem + (kt & 1) * stage_bytes;
                let next = smem + ((kt + 1) & 1) * stage_bytes;
                let has_next = kt + 1 < ktiles;
                let (mut na, mut nb) = ([0.0f32; 4], [0.0f32; 4]);
                if has_next {
                    na = la.load(kt + 1, p.k);
                    nb = lb.load(kt + 1, p.k);
                }
                multiply_tile::<BM, BN, BK>(&mut acc, cur, a_row0, b_col0);
                if has_next {
                    la.store(next, na);
                    lb.store(next + tile_bytes(BM, BK), nb);
                }
                sync_threads();
                kt += 1;
            }
        }
        store_thread_tile(p, &acc, gc, tile.m0 + a_row0, tile.n0 + b_col0);
    }
}

/// `acc += A_tile · B_tile` for one shared stage: per k, two 4-float A fragments and two 4-float B
/// fragments, 64 FMAs.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn multiply_tile<const BM: u32, const BN: u32, const BK: u32>(
    acc: &mut [[f32; 8]; 8],
    stage: u32,
    a_row0: u32,
    b_col0: u32,
) {
    for kk in 0..BK {
        let a_at = stage + kk * (BM + PAD) * 4 + a_row0 * 4;
        let b_at = stage + tile_bytes(BM, BK) + kk * (BN + PAD) * 4 + b_col0 * 4;
        let a0 = ld_shared_v4_f32(a_at);
        let a1 = ld_shared_v4_f32(a_at + 16 * 4);
        let b0 = ld_shared_v4_f32(b_at);
        let b1 = ld_shared_v4_f32(b_at + 32 * 4);
        let a = [a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3]];
        let b = [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]];
        for i in 0..8 {
            for j in 0..8 {
                acc[i][j] = fma_rn_f32(a[i], b[j], acc[i][j]);
            }
        }
    }
}
