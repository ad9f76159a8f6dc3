//! CUDA-core SGEMM threadblock: `fma.rn.f32` into 8×8 f32 accumulators per thread, fed by a
//! `STAGES`-deep `cp.async` pipeline, with the shared-memory fragments of step `k + 1` loaded while
//! step `k` multiplies.
//!
//! Written for `BM×BN×BK` block tiles of `8×8` thread tiles (`BM` a multiple of 32, `BN` 64 or
//! 128): `BM/32 × BN/64` warps of `32×64` warp tiles (256 threads at 128×128, 128 at 64×128 and
//! 128×64, 64 at 32×128 and 64×64). In a warp, lane `l = 8·lrow + lcol` owns rows
//! `{16·s + 4·lrow + i}` and columns `{32·s + 4·lcol + j}` (s ∈ {0,1}, i, j ∈ 0..4) of the warp
//! tile: each `ld.shared.v4` of A touches 4 distinct 16-byte words and each one of B 8 — one
//! shared-memory wavefront each, no bank conflicts. Per k: four such loads, 64 FMAs (in
//! serpentine order, see `multiply`).
//!
//! Shared layout per stage: A as `BK × (BM+4)` floats, then B as `BK × (BN+4)` (both r-contiguous,
//! so a thread's 4 rows or columns of one k are one 16-byte load). An operand contiguous along M/N
//! is copied in 16-byte chunks ([`PrecomputedCopy`]); a k-contiguous one element by element into its
//! transposed place ([`TransposingCopy`]). Neither holds registers while its copies are in flight.
//!
//! Pipeline (all `STAGES` stages in flight): the copies of k-tiles `0..STAGES` are issued up front;
//! before the last k-step of tile `t` every thread waits for tile `t + 1`
//! (`cp.async.wait_group STAGES−2`) and the block passes one barrier, after which the fragments of
//! tile `t + 1`'s first step are loaded and tile `t + STAGES` is issued into the stage `t` left.
//!
//! [`PrecomputedCopy`]: super::global_to_shared::precomputed::PrecomputedCopy
//! [`TransposingCopy`]: super::global_to_shared::transposing::TransposingCopy

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::{precomputed::PrecomputedCopy, transposing::TransposingCopy},
    super::{batch_bases, raster::tile_of_block},
    crate::arch::convert::fma_rn_f32,
    crate::arch::cp_async::{commit_group, wait_all, wait_group_n},
    crate::arch::smem::{base, ld_shared_v4_f32},
    crate::arch::sync::sync_threads,
    crate::epilogue::thread_tile::store_thread_tile,
    crate::params::{flags, GemmParams},
};

/// Padding of a shared row, floats (rows stay 16-byte aligned; see [`TransposingCopy`]'s banks).
///
/// [`TransposingCopy`]: super::global_to_shared::transposing::TransposingCopy
const PAD: u32 = 4;

/// Bytes of one operand tile in shared memory: `bk` rows of `r + PAD` floats.
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    bk * (r + PAD) * 4
}

/// Dynamic shared memory of a `block` tile with `stages` stages (A tile, then B tile, per stage).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core::smem_bytes};
/// assert_eq!(smem_bytes(GemmShape::new(128, 128, 16), 3), 3 * 2 * 16 * (128 + 4) * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k))
}

/// Threads of a `block` tile computed as `thread`-sized register tiles (`m×n` per thread).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core::threads};
/// assert_eq!(threads(GemmShape::new(128, 128, 16), GemmShape::new(8, 8, 1)), 256);
/// ```
pub const fn threads(block: GemmShape, thread: GemmShape) -> u32 {
    (block.m / thread.m) * (block.n / thread.n)
}

/// One operand's tile copy: 16-byte chunks where its M/N index is contiguous, elements put in
/// their transposed place where its k index is.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
enum OperandCopy {
    Chunks(PrecomputedCopy),
    Elements(TransposingCopy),
}

#[cfg(target_arch = "nvptx64")]
impl OperandCopy {
    /// The copy of an `R × BK` tile at row `r0` of an operand of `rows` rows (see the two policies).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn new<const R: u32, const BK: u32, const THREADS: u32>(
        base: u64,
        ld: u64,
        k_contig: bool,
        r0: u32,
        rows: u32,
        k: u32,
        vec: bool,
        tid: u32,
    ) -> Self {
        if k_contig {
            OperandCopy::Elements(TransposingCopy::new::<R, BK, PAD, THREADS>(
                base, ld, r0, rows, k, tid,
            ))
        } else {
            OperandCopy::Chunks(PrecomputedCopy::new::<R, BK, PAD, PAD, THREADS, 4, false>(
                base, ld, false, r0, rows, k, vec, tid,
            ))
        }
    }

    /// Issues this thread's copies of k-tile `kt` into the operand tile at `tile`.
    ///
    /// # Safety
    /// As the policies' `issue`.
    #[inline(always)]
    unsafe fn issue<const R: u32, const BK: u32, const THREADS: u32>(&self, tile: u32, kt: u32) {
        match self {
            OperandCopy::Chunks(c) => c.issue::<R, BK, THREADS, 4>(tile, kt),
            OperandCopy::Elements(c) => c.issue::<R, BK, PAD, THREADS>(tile, kt),
        }
    }
}

/// Computes the block's output tile of batch item `z`; `THREADS`: [`threads`] of the tile.
///
/// One function on purpose: split into calls, its parts are optimized apart before they are
/// inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// Must be launched with [`threads`] threads, [`smem_bytes`] of dynamic shared memory, the grid
/// the host derives from the kernel's `config::KERNELS` record, and `p` validated by the host
/// (buffers cover every element).
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
    const STAGES: u32,
    const THREADS: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const {
        assert!(
            BM.is_multiple_of(32) && (BN == 64 || BN == 128) && TM == 8 && TN == 8,
            "the thread mapping is written for BM×64 and BM×128 blocks of 8×8 thread tiles"
        )
    };
    const { assert!(BK.is_multiple_of(8) && STAGES >= 2) };
    const { assert!(threads(GemmShape::new(BM, BN, BK), GemmShape::new(TM, TN, 1)) == THREADS) };
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
    // warps side by side along N, each 64 columns wide
    let warps_n = BN / 64;
    let a_row0 = (warp / warps_n) * 32 + (lane / 8) * 4;
    let b_col0 = (warp % warps_n) * 64 + (lane % 8) * 4;
    let ktiles = p.k.div_ceil(BK);

    let (ga, gb, gc) = batch_bases(p, z, 4, 4);
    let ca = OperandCopy::new::<BM, BK, THREADS>(
        ga,
        p.lda,
        !TRANS_A,
        tile.m0,
        p.m,
        p.k,
        p.flags & flags::VEC_A != 0,
        tid,
    );
    let cb = OperandCopy::new::<BN, BK, THREADS>(
        gb,
        p.ldb,
        TRANS_B,
        tile.n0,
        p.n,
        p.k,
        p.flags & flags::VEC_B != 0,
        tid,
    );
    // this thread's 8 rows of A and 8 columns of B at step `kk` of the stage at `stage`
    let fragments = |stage: u32, kk: u32| {
        let a_at = stage + (kk * (BM + PAD) + a_row0) * 4;
        let b_at = stage + a_bytes + (kk * (BN + PAD) + b_col0) * 4;
        let (a0, a1) = (ld_shared_v4_f32(a_at), ld_shared_v4_f32(a_at + 16 * 4));
        let (b0, b1) = (ld_shared_v4_f32(b_at), ld_shared_v4_f32(b_at + 32 * 4));
        (
            [a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3]],
            [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]],
        )
    };

    let mut acc = [[0.0f32; 8]; 8];
    if ktiles > 0 {
        // Prologue: every stage in flight.
        let mut s = 0;
        while s < STAGES {
            if s < ktiles {
                let st = smem + s * stage_bytes;
                ca.issue::<BM, BK, THREADS>(st, s);
                cb.issue::<BN, BK, THREADS>(st + a_bytes, s);
            }
            commit_group();
            s += 1;
        }
        wait_group_n(STAGES - 1);
        sync_threads();
        let mut f0 = fragments(smem, 0);
        // shared address of tile kt's stage
        let mut st = smem;
        let mut kt = 0;
        while kt < ktiles {
            let next = if st + stage_bytes == smem + STAGES * stage_bytes {
                smem
            } else {
                st + stage_bytes
            };
            let mut kk = 0;
            while kk < BK - 2 {
                let f1 = fragments(st, kk + 1);
                multiply(&mut acc, &f0);
                f0 = fragments(st, kk + 2);
                multiply(&mut acc, &f1);
                kk += 2;
            }
            let f1 = fragments(st, BK - 1);
            multiply(&mut acc, &f0);
            // tile kt + 1 has landed (this thread's copies, then everyone's), and every warp has
            // issued its last read of stage kt
            wait_group_n(STAGES - 2);
            sync_threads();
            if kt + 1 < ktiles {
                f0 = fragments(next, 0);
            }
            let nt = kt + STAGES;
            if nt < ktiles {
                ca.issue::<BM, BK, THREADS>(st, nt);
                cb.issue::<BN, BK, THREADS>(st + a_bytes, nt);
            }
            commit_group();
            multiply(&mut acc, &f1);
            st = next;
            kt += 1;
        }
        wait_all();
    }
    store_thread_tile(p, &acc, gc, tile.m0 + a_row0, tile.n0 + b_col0);
}

/// `acc += a ⊗ b`: one k-step's 64 FMAs, in serpentine order (row `i` walks its columns forwards
/// for even `i`, backwards for odd), so consecutive FMAs share an `a` or a `b` register at every
/// turn: 4–9% faster than row by row on the H200 (fewer register-bank dispatch stalls;
/// docs/kernel-log.md).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn multiply(acc: &mut [[f32; 8]; 8], (a, b): &([f32; 8], [f32; 8])) {
    for i in 0..8 {
        for jj in 0..8 {
            let j = if i % 2 == 0 { jj } else { 7 - jj };
            acc[i][j] = fma_rn_f32(a[i], b[j], acc[i][j]);
        }
    }
}
