//! CUDA-core SGEMM threadblock for few rows of C (LLM decode, `m` ≤ 32): `fma.rn.f32` from a
//! `STAGES`-deep `cp.async` pipeline (`PrecomputedCopy`, 4-byte elements, 16-byte chunks).
//!
//! Such a product streams B (the weights) once, `n·k·4` bytes, for `2·m·n·k` FLOPs: it is bound by
//! memory, so the block tile is a few rows (`BM` = 8…32) by `BN` columns, and one element of B read
//! from shared memory feeds `TM` FMAs of one thread.
//!
//! Thread mapping. Warps form a `WARPS_M × WARPS_N × WARPS_K` grid (`BM/TM`, `BN/(32·TN)`,
//! `BK/KSLICE`): warp `(wm, wn, wk)` owns rows `wm·TM..` (all `TM` of them in every lane) and
//! `32·TN` columns from `wn·32·TN`, and multiplies only the k-slice `wk·KSLICE..+KSLICE` of every
//! k-tile. Each lane holds `TM×TN` accumulators; its columns are
//! - B k-contiguous (`smem[n][BK+4]`): `l + 32·j`, read as one `ld.shared.v4` of 4 k per column;
//! - B r-contiguous (`smem[k][BN+4]`): `128·(j/4) + 4·l + j%4`, read as `ld.shared.v4` of 4
//!   columns per k.
//!
//! Per 4 k, a lane loads its `4×TN` B values once, then per group of 4 rows a `4×4` block of A (4
//! `ld.shared.v4`: along k for a k-contiguous A, along M for an r-contiguous one) and does
//! `4·4·TN` FMAs.
//!
//! Bank conflicts: every A load has one address for the whole warp (a broadcast: one wavefront).
//! B r-contiguous: the warp's 32 16-byte words are contiguous (4 wavefronts for 512 bytes, the
//! least). B k-contiguous: lane `l` reads row `c + l`, rows 144 bytes apart, so the 16-byte word
//! index `9·(c+l) + k/4` takes 8 distinct values mod 8 in every 8 lanes (4 wavefronts). Each B
//! element in shared memory is read by exactly one lane of one warp.
//!
//! Pipeline (prefetch distance `STAGES−1`), as the smaller-warp-tile path of
//! [`super::mma_sync_multistage`]: wait until k-tile `t` has landed and every warp has left the
//! stage of `t−1` (`cp.async.wait_group STAGES−2` + one `bar.sync`), issue the copies of tile
//! `t+STAGES−1` into that stage, multiply stage `t % STAGES`.
//!
//! End: each warp stores its partial `TM×(32·TN)` tile into shared memory (`WARPS_K` partial
//! `BM×BN` tiles, over the drained stages), then the block adds the `WARPS_K` partials of each
//! 4-column segment in slice order (deterministic) and writes `alpha·sum + beta·C`
//! (`epilogue::segment`). Rows past `m`, columns past `n` and k past `k` are zero-filled by the
//! copies and never stored.

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::precomputed::PrecomputedCopy,
    super::{batch_bases, raster::tile_of_block},
    crate::arch::convert::fma_rn_f32,
    crate::arch::cp_async::{commit_group, wait_all, wait_group_n},
    crate::arch::smem::{base, ld_shared_v4_f32, st_shared_f32, st_shared_v4_f32},
    crate::arch::sync::sync_threads,
    crate::epilogue::{segment::store_segment, F32},
    crate::params::{flags, GemmParams},
};

/// Depth of one warp's k-slice of a k-tile, floats (two steps of 4 k).
pub const KSLICE: u32 = 8;
/// Padding of a k-contiguous shared row, floats (rows 16 bytes apart mod 128: conflict-free).
const KPAD: u32 = 4;
/// Padding of an r-contiguous shared row, floats (keeps rows 16-byte aligned).
const RPAD: u32 = 4;

/// Bytes of one operand tile with `r` rows and depth `bk` (the larger of the two layouts).
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    super::operand_tile_bytes(r, bk, KPAD, RPAD, 4)
}

/// Warps of a `block` tile of `thread`-sized register tiles: (along M, along N, along K).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_multistage::warp_grid};
/// assert_eq!(warp_grid(GemmShape::new(32, 128, 32), GemmShape::new(16, 4, 1)), (2, 1, 4));
/// ```
pub const fn warp_grid(block: GemmShape, thread: GemmShape) -> (u32, u32, u32) {
    (
        block.m / thread.m,
        block.n / (32 * thread.n),
        block.k / KSLICE,
    )
}

/// Threads of a `block` tile of `thread`-sized register tiles: 32 per warp of [`warp_grid`].
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_multistage::threads};
/// assert_eq!(threads(GemmShape::new(16, 128, 32), GemmShape::new(16, 4, 1)), 128);
/// ```
pub const fn threads(block: GemmShape, thread: GemmShape) -> u32 {
    let (m, n, k) = warp_grid(block, thread);
    32 * m * n * k
}

/// Threads that copy A: all `threads`, or fewer when A's tile has fewer 16-byte chunks than the
/// block has threads (the first `BM·BK/4`; the others copy only B).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_multistage::a_copy_threads};
/// assert_eq!(a_copy_threads(GemmShape::new(8, 128, 32), 128), 64);
/// assert_eq!(a_copy_threads(GemmShape::new(32, 128, 32), 256), 256);
/// ```
pub const fn a_copy_threads(block: GemmShape, threads: u32) -> u32 {
    let chunks = block.m * block.k / 4;
    if chunks < threads {
        chunks
    } else {
        threads
    }
}

/// Dynamic shared memory of a `block` tile with `stages` stages: the larger of the pipeline (per
/// stage the larger operand layout, `R×(BK+4)` or `BK×(R+4)` floats, for A and for B) and the
/// `BK/KSLICE` partial `BM×BN` tiles summed at the end (they reuse the drained stages).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_multistage::smem_bytes};
/// // k-contiguous rows of 32 + 4 floats are the larger layout of B; A's is 32 × (16 + 4)
/// assert_eq!(smem_bytes(GemmShape::new(16, 128, 32), 4), 4 * (32 * 20 + 128 * 36) * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    let pipeline = stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k));
    let partials = (block.k / KSLICE) * block.m * block.n * 4;
    if pipeline > partials {
        pipeline
    } else {
        partials
    }
}

/// Computes the block's output tile of batch item `z`.
///
/// `TM×TN`: a lane's register tile; `A_THREADS`: [`a_copy_threads`].
///
/// One function on purpose: split into calls, its parts are optimized apart before they are
/// inlined (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// Launched with [`threads`] threads (`THREADS`), [`smem_bytes`] of dynamic shared memory, the
/// host-derived grid and validated parameters.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm<
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const TM: usize,
    const TN: usize,
    const STAGES: u32,
    const THREADS: u32,
    const A_THREADS: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    let warps_n = BN / (32 * TN as u32);
    let warps_k = BK / KSLICE;
    const { assert!(TM.is_multiple_of(4) && TN.is_multiple_of(4)) };
    const { assert!(BM.is_multiple_of(TM as u32) && BN.is_multiple_of(32 * TN as u32)) };
    const { assert!(BK.is_multiple_of(KSLICE) && STAGES >= 2) };
    const { assert!(THREADS == 32 * (BM / TM as u32) * (BN / (32 * TN as u32)) * (BK / KSLICE)) };
    const { assert!(A_THREADS <= THREADS && A_THREADS.is_multiple_of(32)) };
    // the partial sums are added up as 4-column segments, every thread the same number
    const { assert!((BM * BN / 4).is_multiple_of(THREADS)) };
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
    let wk = warp % warps_k;
    let wn0 = (warp / warps_k) % warps_n * (32 * TN as u32);
    let wm0 = warp / (warps_k * warps_n) * TM as u32;
    let kw0 = wk * KSLICE;
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);
    let copies_a = tid < A_THREADS;

    let (ga, gb, gc) = batch_bases(p, z, 4, 4);
    let ca = PrecomputedCopy::new::<BM, BK, KPAD, RPAD, A_THREADS, 4, false>(
        ga,
        p.lda,
        a_kc,
        tile.m0,
        p.m,
        p.k,
        p.flags & flags::VEC_A != 0,
        tid,
    );
    let cb = PrecomputedCopy::new::<BN, BK, KPAD, RPAD, THREADS, 4, false>(
        gb,
        p.ldb,
        b_kc,
        tile.n0,
        p.n,
        p.k,
        p.flags & flags::VEC_B != 0,
        tid,
    );
    let mut acc = [[0.0f32; TN]; TM];

    // Prologue: STAGES-1 tiles in flight.
    let mut s = 0;
    while s < STAGES - 1 {
        if s < ktiles {
            let st = smem + s * stage_bytes;
            if copies_a {
                ca.issue::<BM, BK, A_THREADS, 4>(st, s);
            }
            cb.issue::<BN, BK, THREADS, 4>(st + a_bytes, s);
        }
        commit_group();
        s += 1;
    }
    let mut kt = 0;
    while kt < ktiles {
        // tile kt has landed and every warp has left the stage refilled below (that of kt-1)
        wait_group_n(STAGES - 2);
        sync_threads();
        let nt = kt + STAGES - 1;
        if nt < ktiles {
            let st = smem + (nt % STAGES) * stage_bytes;
            if copies_a {
                ca.issue::<BM, BK, A_THREADS, 4>(st, nt);
            }
            cb.issue::<BN, BK, THREADS, 4>(st + a_bytes, nt);
        }
        commit_group();
        let ta = smem + (kt % STAGES) * stage_bytes;
        let tb = ta + a_bytes;
        let mut kq = 0;
        while kq < KSLICE {
            let kk = kw0 + kq;
            // bf[q][j] = B(kk + q, column j of the lane)
            let mut bf = [[0.0f32; TN]; 4];
            if b_kc {
                for j in 0..TN {
                    let row = wn0 + lane + 32 * j as u32;
                    let v = ld_shared_v4_f32(tb + (row * (BK + KPAD) + kk) * 4);
                    for (q, bq) in bf.iter_mut().enumerate() {
                        bq[j] = v[q];
                    }
                }
            } else {
                for (q, bq) in bf.iter_mut().enumerate() {
                    for g in 0..TN / 4 {
                        let col = wn0 + 128 * g as u32 + 4 * lane;
                        let v = ld_shared_v4_f32(tb + ((kk + q as u32) * (BN + RPAD) + col) * 4);
                        bq[4 * g..4 * g + 4].copy_from_slice(&v);
                    }
                }
            }
            for rg in 0..TM / 4 {
                let r0 = wm0 + 4 * rg as u32;
                // af[i][q] = A(r0 + i, kk + q): the same address in every lane
                let mut af = [[0.0f32; 4]; 4];
                if a_kc {
                    for (i, ai) in af.iter_mut().enumerate() {
                        *ai = ld_shared_v4_f32(ta + ((r0 + i as u32) * (BK + KPAD) + kk) * 4);
                    }
                } else {
                    for q in 0..4 {
                        let v = ld_shared_v4_f32(ta + ((kk + q as u32) * (BM + RPAD) + r0) * 4);
                        for (i, ai) in af.iter_mut().enumerate() {
                            ai[q] = v[i];
                        }
                    }
                }
                for q in 0..4 {
                    for i in 0..4 {
                        for j in 0..TN {
                            let c = &mut acc[4 * rg + i][j];
                            *c = fma_rn_f32(af[i][q], bf[q][j], *c);
                        }
                    }
                }
            }
            kq += 4;
        }
        kt += 1;
    }
    wait_all();
    // every warp has left the stages before the partial tiles overwrite them
    sync_threads();
    let part = smem + wk * (BM * BN * 4);
    for (i, acc_i) in acc.iter().enumerate() {
        let row = (wm0 + i as u32) * BN;
        if b_kc {
            for (j, x) in acc_i.iter().enumerate() {
                st_shared_f32(part + (row + wn0 + lane + 32 * j as u32) * 4, *x);
            }
        } else {
            for g in 0..TN / 4 {
                let col = wn0 + 128 * g as u32 + 4 * lane;
                let v = [
                    acc_i[4 * g],
                    acc_i[4 * g + 1],
                    acc_i[4 * g + 2],
                    acc_i[4 * g + 3],
                ];
                st_shared_v4_f32(part + (row + col) * 4, v);
            }
        }
    }
    sync_threads();
    // segment e: row e / (BN/4), columns 4·(e % (BN/4)) + 0..4; consecutive threads, consecutive
    // 16-byte words (conflict-free reads, coalesced stores)
    let mut e = tid;
    while e < BM * BN / 4 {
        let (r, c) = (e / (BN / 4), 4 * (e % (BN / 4)));
        let at = smem + (r * BN + c) * 4;
        let mut v = ld_shared_v4_f32(at);
        let mut w = 1;
        while w < warps_k {
            let x = ld_shared_v4_f32(at + w * (BM * BN * 4));
            for q in 0..4 {
                v[q] += x[q];
            }
            w += 1;
        }
        store_segment::<F32>(p, v, gc, tile.m0 + r, tile.n0 + c);
        e += THREADS;
    }
}
