//! TF32 tensor-core threadblock for sm_80 beyond the seed: `mma.sync.aligned.m16n8k8` tf32 with f32
//! accumulators, a `STAGES`-deep `cp.async` pipeline (`PerChunkCopy`: with 64×64 warp tiles the
//! precomputed copy's extra registers spilled), 64×64 (or 64×32) warp tiles. Generic over the block
//! tile, warp grid and stages like [`super::mma_sync_multistage`]; fragments from
//! `crate::warp::mma_sync_tf32`, epilogue `store_pairs` (or, for an M-major A,
//! `store_pairs_permuted_rows`, storing C transposed in a kernel that swaps A and B:
//! `config::KernelSpec::swaps_ab`) with f32 output.
//!
//! With 64×64 warp tiles the pipeline is the 16-bit kernels': fragments double-buffered in
//! registers, the k-tiles whose refill lies inside K with every chunk interior first, through
//! `PerChunkCopy::issue_interior` (no test, one basic block), MMAs in serpentine order. The other
//! tiles load each k-step's fragments right before their MMAs.
//!
//! Shared rows: k-contiguous `BK` = 32 floats, unpadded, chunks XOR-swizzled by the row
//! (`global_to_shared::swizzled`, as in the 16-bit kernels: an `ldmatrix`'s eight rows hit eight
//! distinct bank groups, and each 128-byte line of the operand is copied into one line of shared
//! memory; docs/kernel-log.md, session 45); r-contiguous `R + 8` floats (≡ 8 mod 32 banks, so a
//! warp's scalar B loads, and a half-warp's 8-byte loads of A's permuted row pairs,
//! `warp::mma_sync_tf32::permuted_row`, hit 32 distinct banks); the epilogue writes A's permuted
//! rows where they came from (`store_pairs_permuted_rows`).

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::per_chunk::PerChunkCopy,
    super::{batch_bases, raster::tile_of_block},
    crate::arch::cp_async::{commit_group, wait_all, wait_group_n},
    crate::arch::mma::mma_m16n8k8_row_col_f32_tf32_tf32_f32,
    crate::arch::smem::base,
    crate::arch::sync::sync_threads,
    crate::epilogue::{
        fragment::{store_pairs, store_pairs_permuted_rows},
        F32,
    },
    crate::params::{flags, GemmParams},
    crate::warp::mma_sync_tf32::load_fragments,
};

/// Padding of a k-contiguous row (floats): none, its chunks are swizzled (`SWIZZLE_K`).
const KPAD: u32 = 0;
/// The k-contiguous tiles' chunks are XOR-swizzled (`PerChunkCopy`'s `SWIZZLE_K`).
#[cfg(target_arch = "nvptx64")]
const SWIZZLE_K: bool = true;
/// Padding of an r-contiguous row (floats).
const RPAD: u32 = 8;

/// Bytes of one operand tile with `r` rows and depth `bk` (the larger of the two layouts).
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    super::operand_tile_bytes(r, bk, KPAD, RPAD, 4)
}

pub use super::mma_sync_threads as threads;

/// Dynamic shared memory of a `block` tile with `stages` stages: per stage the larger operand layout
/// (`R×BK` or `BK×(R+8)` floats) for A and for B.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::mma_sync_multistage_tf32::smem_bytes};
/// // r-contiguous rows of 128 + 8 floats are the larger layout
/// assert_eq!(smem_bytes(GemmShape::new(128, 128, 32), 3), 3 * 2 * 32 * (128 + 8) * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k))
}

/// Computes the block's output tile of batch item `z`; with `SWAP_AB` (a kernel that swaps A and
/// B, `config::KernelSpec::swaps_ab`: `TRANS_A`, `TRANS_B` are its body's layout) the tile of
/// `Cᵀ = op(B)ᵀ·op(A)ᵀ` for the swapped parameters, stored transposed.
///
/// One function of more than 80 lines on purpose: split into calls, its parts are optimized apart
/// before they are inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// Launched with `WARPS_M·WARPS_N·32` threads, [`smem_bytes`] of dynamic shared memory, the
/// host-derived grid and validated parameters.
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
    const STAGES: u32,
    const MI: usize,
    const NI: usize,
    const THREADS: u32,
    const SWAP_AB: bool,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const { assert!(NI.is_multiple_of(2)) };
    const { assert!(WARPS_M * WARPS_N * 32 == THREADS) };
    const { assert!(BM == WARPS_M * MI as u32 * 16 && BN == WARPS_N * NI as u32 * 8) };
    const { assert!(BK.is_multiple_of(8)) };
    // the transposed store pairs up A's permuted rows
    const { assert!(!SWAP_AB || TRANS_A) };
    let swapped;
    let p = if SWAP_AB {
        swapped = p.swapped();
        &swapped
    } else {
        p
    };
    // the double-buffered loop alternates fragment buffers by k-step parity across k-tiles
    const { assert!(MI * NI < 32 || (BK / 8).is_multiple_of(2)) };
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    // every stage and operand tile starts on a 128-byte line (the shared base is 128-byte
    // aligned): the k-contiguous fragment loads XOR the chunk bits of absolute addresses
    const { assert!(tile_bytes(BM, BK).is_multiple_of(128) && tile_bytes(BN, BK).is_multiple_of(128)) };
    let smem = base();
    let a_bytes = tile_bytes(BM, BK);
    let stage_bytes = a_bytes + tile_bytes(BN, BK);
    let warp = tid / 32;
    let lane = tid % 32;
    let wm0 = (warp / WARPS_N) * (MI as u32 * 16);
    let wn0 = (warp % WARPS_N) * (NI as u32 * 8);
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);

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

    let mut s = 0;
    while s < STAGES - 1 {
        if s < ktiles {
            let st = smem + s * stage_bytes;
            ca.issue::<BM, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(st, s * BK, tid);
            cb.issue::<BN, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(st + a_bytes, s * BK, tid);
        }
        commit_group();
        s += 1;
    }
    if MI * NI >= 32 {
        // 64×64 warp tiles: fragments double-buffered in registers, as in the 16-bit
        // `mma_sync_multistage` (its module docs tell the pipeline)
        wait_group_n(STAGES - 2);
        sync_threads();
        let mut af = [[[0u32; 4]; MI]; 2];
        let mut bf = [[[0u32; 2]; NI]; 2];
        if ktiles > 0 {
            load_fragments::<BM, BN, BK, RPAD, MI, NI>(
                &mut af[0], &mut bf[0], smem, a_bytes, a_kc, b_kc, wm0, wn0, 0, lane,
            );
        }
        let ksteps = BK / 8;
        let mut kt = 0;
        // k-tiles whose refill lies inside K with every chunk interior run without a bound test
        // or edge path (kernel-log.md, sessions 20 and 21)
        let steady = if ca.interior::<BM, BK, THREADS>() && cb.interior::<BN, BK, THREADS>() {
            (p.k / BK).saturating_sub(STAGES - 1)
        } else {
            0
        };
        macro_rules! k_tile {
            ($interior:expr) => {{
                let ta = smem + (kt % STAGES) * stage_bytes;
                for ks in 0..ksteps {
                    let cur = (ks % 2) as usize;
                    let nxt = 1 - cur;
                    if ks + 1 < ksteps {
                        load_fragments::<BM, BN, BK, RPAD, MI, NI>(
                            &mut af[nxt],
                            &mut bf[nxt],
                            ta,
                            a_bytes,
                            a_kc,
                            b_kc,
                            wm0,
                            wn0,
                            (ks + 1) * 8,
                            lane,
                        );
                    }
                    if ks == 0 {
                        // refill the stage every warp finished reading before the last barrier
                        let nt = kt + STAGES - 1;
                        let st = smem + (nt % STAGES) * stage_bytes;
                        if $interior {
                            ca.issue_interior::<BM, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(
                                st,
                                nt * BK,
                                tid,
                            );
                            cb.issue_interior::<BN, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(
                                st + a_bytes,
                                nt * BK,
                                tid,
                            );
                        } else if nt < ktiles {
                            ca.issue::<BM, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(st, nt * BK, tid);
                            cb.issue::<BN, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(
                                st + a_bytes,
                                nt * BK,
                                tid,
                            );
                        }
                        commit_group();
                    }
                    if ks + 1 == ksteps && ($interior || kt + 1 < ktiles) {
                        // tile kt+1 has landed and every warp is past the stage refilled next
                        wait_group_n(STAGES - 2);
                        sync_threads();
                        load_fragments::<BM, BN, BK, RPAD, MI, NI>(
                            &mut af[nxt],
                            &mut bf[nxt],
                            smem + ((kt + 1) % STAGES) * stage_bytes,
                            a_bytes,
                            a_kc,
                            b_kc,
                            wm0,
                            wn0,
                            0,
                            lane,
                        );
                    }
                    // serpentine order: each row change keeps the last B fragment
                    for i in 0..MI {
                        for jj in 0..NI {
                            let j = if i % 2 == 0 { jj } else { NI - 1 - jj };
                            mma_m16n8k8_row_col_f32_tf32_tf32_f32(
                                &mut acc[i][j],
                                af[cur][i],
                                bf[cur][j],
                            );
                        }
                    }
                }
            }};
        }
        while kt < steady {
            k_tile!(true);
            kt += 1;
        }
        while kt < ktiles {
            k_tile!(false);
            kt += 1;
        }
    } else {
        // fragments loaded right before their MMAs
        let mut kt = 0;
        while kt < ktiles {
            wait_group_n(STAGES - 2);
            sync_threads();
            let nt = kt + STAGES - 1;
            if nt < ktiles {
                let st = smem + (nt % STAGES) * stage_bytes;
                ca.issue::<BM, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(st, nt * BK, tid);
                cb.issue::<BN, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(st + a_bytes, nt * BK, tid);
            }
            commit_group();
            let ta = smem + (kt % STAGES) * stage_bytes;
            let mut kk = 0;
            while kk < BK {
                let mut af = [[0u32; 4]; MI];
                let mut bf = [[0u32; 2]; NI];
                load_fragments::<BM, BN, BK, RPAD, MI, NI>(
                    &mut af, &mut bf, ta, a_bytes, a_kc, b_kc, wm0, wn0, kk, lane,
                );
                for i in 0..MI {
                    for j in 0..NI {
                        mma_m16n8k8_row_col_f32_tf32_tf32_f32(&mut acc[i][j], af[i], bf[j]);
                    }
                }
                kk += 8;
            }
            kt += 1;
        }
    }
    wait_all();
    if a_kc {
        store_pairs::<F32, MI, NI>(
            p,
            &acc,
            gc,
            tile.m0 + wm0 + lane / 4,
            tile.n0 + wn0 + 2 * (lane % 4),
        );
    } else {
        // an r-contiguous A's fragment rows were permuted (a tile of Cᵀ where A and B swapped)
        store_pairs_permuted_rows::<F32, MI, NI, SWAP_AB>(
            p,
            &acc,
            gc,
            tile.m0 + wm0,
            tile.n0 + wn0 + 2 * (lane % 4),
            lane,
        );
    }
}
