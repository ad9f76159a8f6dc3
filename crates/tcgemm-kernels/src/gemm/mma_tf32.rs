//! TF32 tensor-core threadblock for sm_80 beyond the seed: `mma.sync.aligned.m16n8k8` tf32 with f32
//! accumulators, a `STAGES`-deep `cp.async` pipeline with `BK = 32`, 64×64 (or 64×32) warp tiles.
//! Generic over the block tile, warp grid and stages like [`super::mma16`].
//!
//! Fragments: an operand kept k-contiguous in shared memory (A not transposed, B transposed) is read
//! with `ldmatrix.x4`: an 8×8 tile of 16-bit elements is an 8×4 tile of fp32, so the four tiles
//! `(rows 0–7, k 0–3), (rows 8–15, k 0–3), (rows 0–7, k 4–7), (rows 8–15, k 4–7)` are exactly the
//! m16n8k8 A fragment `a0..a3` (and two B fragments per `x4`). `ldmatrix.trans` moves 16-bit halves,
//! so an operand kept r-contiguous is read with scalar `ld.shared` instead, whose rows of
//! `R + 8` floats (≡ 8 mod 32 banks) put the 32 lanes' words in 32 distinct banks.
//! Every fragment register is rounded with `cvt.rna.tf32.f32` before the MMA, as in the seed.
//!
//! Shared rows: k-contiguous `BK + 4` floats (144 B: 9 16-byte chunks, odd, so an `ldmatrix`'s eight
//! rows hit eight distinct bank groups); r-contiguous `R + 8` floats.

use super::mma16::{epilogue, F16};
use super::tile_io::TileCopy32;
use super::{batch_bases, raster::tile_of_block};
use crate::arch::convert::f32_to_tf32_rna;
use crate::arch::cp_async::{commit_group, wait_all, wait_group_n};
use crate::arch::ldmatrix::shared_to_reg_x4;
use crate::arch::mma::mma_m16n8k8_row_col_f32_tf32_tf32_f32;
use crate::arch::smem::{base, ld_shared_u32};
use crate::arch::sync::sync_threads;
use crate::params::{flags, GemmParams};

/// Depth of a k-tile (floats).
pub const BK: u32 = 32;
/// Padding of a k-contiguous row (floats).
pub const KPAD: u32 = 4;
/// Padding of an r-contiguous row (floats).
pub const RPAD: u32 = 8;

/// Bytes of one operand tile with `R` rows (the larger of the two layouts).
pub const fn tile_bytes(r: u32) -> u32 {
    let kc = r * (BK + KPAD) * 4;
    let rc = BK * (r + RPAD) * 4;
    if kc > rc {
        kc
    } else {
        rc
    }
}

/// Dynamic shared memory of a `BM×BN` configuration with `stages` stages.
pub const fn smem_bytes(bm: u32, bn: u32, stages: u32) -> u32 {
    stages * (tile_bytes(bm) + tile_bytes(bn))
}

#[inline(always)]
fn tf32(bits: u32) -> u32 {
    f32_to_tf32_rna(f32::from_bits(bits))
}

/// Byte offset of element `(r, k)` in a tile of `R` rows.
#[inline(always)]
fn at<const R: u32>(k_contig: bool, r: u32, k: u32) -> u32 {
    if k_contig {
        (r * (BK + KPAD) + k) * 4
    } else {
        (k * (R + RPAD) + r) * 4
    }
}

/// The m16n8k8 A fragment of rows `m..m+16`, k `kk..kk+8`.
#[inline(always)]
unsafe fn a_frag<const R: u32>(t: u32, k_contig: bool, m: u32, kk: u32, lane: u32) -> [u32; 4] {
    let r = if k_contig {
        let (li, lr) = (lane / 8, lane % 8);
        shared_to_reg_x4(t + at::<R>(true, m + lr + (li % 2) * 8, kk + (li / 2) * 4))
    } else {
        let (g, q) = (lane / 4, lane % 4);
        [
            ld_shared_u32(t + at::<R>(false, m + g, kk + q)),
            ld_shared_u32(t + at::<R>(false, m + g + 8, kk + q)),
            ld_shared_u32(t + at::<R>(false, m + g, kk + q + 4)),
            ld_shared_u32(t + at::<R>(false, m + g + 8, kk + q + 4)),
        ]
    };
    [tf32(r[0]), tf32(r[1]), tf32(r[2]), tf32(r[3])]
}

/// The m16n8k8 B fragments of columns `n..n+8` and `n+8..n+16`, k `kk..kk+8`.
#[inline(always)]
unsafe fn b_frags<const R: u32>(
    t: u32,
    k_contig: bool,
    n: u32,
    kk: u32,
    lane: u32,
) -> [[u32; 2]; 2] {
    let r = if k_contig {
        let (li, lr) = (lane / 8, lane % 8);
        shared_to_reg_x4(t + at::<R>(true, n + lr + (li / 2) * 8, kk + (li % 2) * 4))
    } else {
        let (g, q) = (lane / 4, lane % 4);
        [
            ld_shared_u32(t + at::<R>(false, n + g, kk + q)),
            ld_shared_u32(t + at::<R>(false, n + g, kk + q + 4)),
            ld_shared_u32(t + at::<R>(false, n + g + 8, kk + q)),
            ld_shared_u32(t + at::<R>(false, n + g + 8, kk + q + 4)),
        ]
    };
    [[tf32(r[0]), tf32(r[1])], [tf32(r[2]), tf32(r[3])]]
}

/// Computes the block's output tile of batch item `z`.
///
/// # Safety
/// Launched with `WARPS_M·WARPS_N·32` threads, `smem_bytes(BM, BN, STAGES)` of dynamic shared memory,
/// the host-derived grid and validated parameters.
#[inline(always)]
pub unsafe fn mma_tf32<
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const WARPS_M: u32,
    const WARPS_N: u32,
    const STAGES: u32,
    const MI: usize,
    const NI: usize,
    const THREADS: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const { assert!(NI.is_multiple_of(2)) };
    const { assert!(smem_bytes(BM, BN, STAGES) == crate::config::mma_tf32_smem(BM, BN, STAGES)) };
    const { assert!(WARPS_M * WARPS_N * 32 == THREADS) };
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let smem = base();
    let a_bytes = tile_bytes(BM);
    let stage_bytes = a_bytes + tile_bytes(BN);
    let warp = tid / 32;
    let lane = tid % 32;
    let wm0 = (warp / WARPS_N) * (MI as u32 * 16);
    let wn0 = (warp % WARPS_N) * (NI as u32 * 8);
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);

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
    let mut acc = [[[0.0f32; 4]; NI]; MI];

    let mut s = 0;
    while s < STAGES - 1 {
        if s < ktiles {
            let st = smem + s * stage_bytes;
            ca.issue::<BM, BK, KPAD, RPAD, THREADS>(st, s * BK, tid);
            cb.issue::<BN, BK, KPAD, RPAD, THREADS>(st + a_bytes, s * BK, tid);
        }
        commit_group();
        s += 1;
    }
    let mut kt = 0;
    while kt < ktiles {
        wait_group_n(STAGES - 2);
        sync_threads();
        let nt = kt + STAGES - 1;
        if nt < ktiles {
            let st = smem + (nt % STAGES) * stage_bytes;
            ca.issue::<BM, BK, KPAD, RPAD, THREADS>(st, nt * BK, tid);
            cb.issue::<BN, BK, KPAD, RPAD, THREADS>(st + a_bytes, nt * BK, tid);
        }
        commit_group();
        let ta = smem + (kt % STAGES) * stage_bytes;
        let tb = ta + a_bytes;
        let mut kk = 0;
        while kk < BK {
            let mut af = [[0u32; 4]; MI];
            for (i, f) in af.iter_mut().enumerate() {
                *f = a_frag::<BM>(ta, a_kc, wm0 + i as u32 * 16, kk, lane);
            }
            let mut bf = [[0u32; 2]; NI];
            let mut j = 0;
            while j < NI {
                let pair = b_frags::<BN>(tb, b_kc, wn0 + j as u32 * 8, kk, lane);
                bf[j] = pair[0];
                bf[j + 1] = pair[1];
                j += 2;
            }
            for i in 0..MI {
                for j in 0..NI {
                    mma_m16n8k8_row_col_f32_tf32_tf32_f32(&mut acc[i][j], af[i], bf[j]);
                }
            }
            kk += 8;
        }
        kt += 1;
    }
    wait_all();
    epilogue::<F16, true, MI, NI>(
        p,
        &acc,
        gc,
        tile.m0 + wm0 + lane / 4,
        tile.n0 + wn0 + 2 * (lane % 4),
    );
}
