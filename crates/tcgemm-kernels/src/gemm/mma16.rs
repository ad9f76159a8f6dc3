//! FP16/BF16 tensor-core threadblock for sm_80: `mma.sync.aligned.m16n8k16` with f32 accumulators,
//! a `STAGES`-deep `cp.async` pipeline, and `ldmatrix` fragment loads (`.trans` for operands stored
//! r-contiguous). Generic over the block tile (`BM×BN×32`), the warp grid and the stage count.
//!
//! Warps form a `WARPS_M × WARPS_N` grid; a warp owns `WM×WN = (BM/WARPS_M)×(BN/WARPS_N)` of C as
//! `MI×NI = (WM/16)×(WN/8)` m16n8 accumulator tiles. Per 16-deep k step a warp loads MI A fragments
//! (`ldmatrix.x4` each) and NI B fragments (`ldmatrix.x4` per pair of n8 tiles) and issues MI·NI MMAs.
//!
//! Pipeline (prefetch distance `STAGES−1`): wait until k-tile `t` has landed and every warp has left
//! stage `(t−1) % STAGES` (one `bar.sync`), issue the copies of tile `t+STAGES−1` into that freed stage,
//! then multiply stage `t % STAGES`.

use super::tile_loader::TileLoader;
use super::{batch_bases, raster::tile_of_block};
use crate::arch::convert::{
    bf16_to_f32, f16_to_f32, f32x2_to_bf16x2_rn, f32x2_to_f16x2_rn, fma_rn_f32,
};
use crate::arch::cp_async::{commit_group, wait_all, wait_group_n};
use crate::arch::global::{
    ld_global_f32, ld_global_u16, st_global_f32, st_global_u16, st_global_u32, st_global_v2_f32,
};
use crate::arch::ldmatrix::{shared_to_reg_x4, shared_to_reg_x4_trans};
use crate::arch::mma::{
    mma_m16n8k16_row_col_f16_f16_f16_f16, mma_m16n8k16_row_col_f32_bf16_bf16_f32,
    mma_m16n8k16_row_col_f32_f16_f16_f32,
};
use crate::arch::smem::base;
use crate::arch::sync::sync_threads;
use crate::params::{flags, GemmParams};

/// Depth of a k-tile of the families built so far (the body takes any multiple of 16).
pub const BK32: u32 = 32;
/// Row padding, elements (16 bytes).
pub const PAD: u32 = 8;

/// Bytes of one operand tile with `R` rows (the larger of the two layouts).
pub const fn tile_bytes(r: u32, bk: u32) -> u32 {
    let kc = r * (bk + PAD) * 2;
    let rc = bk * (r + PAD) * 2;
    if kc > rc {
        kc
    } else {
        rc
    }
}

/// Dynamic shared memory of a `BM×BN` configuration with `stages` stages.
pub const fn smem_bytes(bm: u32, bn: u32, bk: u32, stages: u32) -> u32 {
    stages * (tile_bytes(bm, bk) + tile_bytes(bn, bk))
}

/// Shared byte offset of element `(r, k)` of a tile with `R` rows, depth `BK`, padding `PAD`.
#[inline(always)]
pub fn offset16<const R: u32, const BK: u32, const PAD: u32>(
    k_contig: bool,
    r: u32,
    k: u32,
) -> u32 {
    if k_contig {
        (r * (BK + PAD) + k) * 2
    } else {
        (k * (R + PAD) + r) * 2
    }
}

/// The 16-bit input type: selects the MMA instruction and conversions.
pub trait Input16 {
    /// One m16n8 accumulator tile in registers.
    type Acc: Copy;
    /// The zero accumulator.
    const ZERO: Self::Acc;
    /// `d += a·b` (m16n8k16).
    ///
    /// # Safety
    /// Warp-convergent.
    unsafe fn mma(d: &mut Self::Acc, a: [u32; 4], b: [u32; 2]);
    /// The accumulator tile as f32 `c[0..4]` (fragment order of the C map in `arch::mma`).
    fn acc_f32(d: &Self::Acc) -> [f32; 4];
    /// Packs two f32 (round to nearest even), `lo` in the low half.
    fn pack(lo: f32, hi: f32) -> u32;
    /// Widens one element.
    fn widen(h: u16) -> f32;
}

/// IEEE binary16 inputs, f32 accumulation.
pub struct F16;
/// IEEE binary16 inputs, f16 accumulation (`mma…f16.f16.f16.f16`): half the accumulator registers,
/// but every partial sum is rounded to 11 significant bits and overflows beyond 65504
/// (docs/precision.md).
pub struct F16Acc16;
/// bfloat16 inputs.
pub struct Bf16;

impl Input16 for F16 {
    type Acc = [f32; 4];
    const ZERO: [f32; 4] = [0.0; 4];
    #[inline(always)]
    unsafe fn mma(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f32_f16_f16_f32(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[f32; 4]) -> [f32; 4] {
        *d
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        f32x2_to_f16x2_rn(lo, hi)
    }
    #[inline(always)]
    fn widen(h: u16) -> f32 {
        f16_to_f32(h)
    }
}

impl Input16 for F16Acc16 {
    type Acc = [u32; 2];
    const ZERO: [u32; 2] = [0; 2];
    #[inline(always)]
    unsafe fn mma(d: &mut [u32; 2], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f16_f16_f16_f16(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[u32; 2]) -> [f32; 4] {
        [
            f16_to_f32(d[0] as u16),
            f16_to_f32((d[0] >> 16) as u16),
            f16_to_f32(d[1] as u16),
            f16_to_f32((d[1] >> 16) as u16),
        ]
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        f32x2_to_f16x2_rn(lo, hi)
    }
    #[inline(always)]
    fn widen(h: u16) -> f32 {
        f16_to_f32(h)
    }
}

impl Input16 for Bf16 {
    type Acc = [f32; 4];
    const ZERO: [f32; 4] = [0.0; 4];
    #[inline(always)]
    unsafe fn mma(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f32_bf16_bf16_f32(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[f32; 4]) -> [f32; 4] {
        *d
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        f32x2_to_bf16x2_rn(lo, hi)
    }
    #[inline(always)]
    fn widen(h: u16) -> f32 {
        bf16_to_f32(h)
    }
}

/// Loads the A fragments (`MI` m16 tiles) and B fragments (`NI` n8 tiles) of k-step `kk` of the
/// stage at `stage` (A tile, then B tile at `a_bytes`) with `ldmatrix.x4` (`.trans` for operands
/// kept r-contiguous).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn load_frags<
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const MI: usize,
    const NI: usize,
>(
    af: &mut [[u32; 4]; MI],
    bf: &mut [[u32; 2]; NI],
    stage: u32,
    a_bytes: u32,
    a_kc: bool,
    b_kc: bool,
    wm0: u32,
    wn0: u32,
    kk: u32,
    lane: u32,
) {
    let (li, lr) = (lane / 8, lane % 8);
    let ta = stage;
    let tb = stage + a_bytes;
    for (i, f) in af.iter_mut().enumerate() {
        let m = wm0 + i as u32 * 16;
        // M0: rows 0-7 k 0-7, M1: rows 8-15 k 0-7, M2: rows 0-7 k 8-15, M3: rows 8-15 k 8-15
        *f = if a_kc {
            shared_to_reg_x4(
                ta + offset16::<BM, BK, PAD>(true, m + lr + (li % 2) * 8, kk + (li / 2) * 8),
            )
        } else {
            shared_to_reg_x4_trans(
                ta + offset16::<BM, BK, PAD>(false, m + (li % 2) * 8, kk + lr + (li / 2) * 8),
            )
        };
    }
    let mut j = 0;
    while j < NI {
        let n = wn0 + j as u32 * 8;
        // regs: b0, b1 of n-tile j, then b0, b1 of n-tile j+1
        let r = if b_kc {
            shared_to_reg_x4(
                tb + offset16::<BN, BK, PAD>(true, n + lr + (li / 2) * 8, kk + (li % 2) * 8),
            )
        } else {
            shared_to_reg_x4_trans(
                tb + offset16::<BN, BK, PAD>(false, n + (li / 2) * 8, kk + lr + (li % 2) * 8),
            )
        };
        bf[j] = [r[0], r[1]];
        bf[j + 1] = [r[2], r[3]];
        j += 2;
    }
}

/// Computes the block's output tile of batch item `z`.
///
/// `OUT_F32`: C is f32; otherwise C has the input type (rounded once, at the end).
///
/// # Safety
/// Launched with `WARPS_M·WARPS_N·32` threads, `smem_bytes(BM, BN, STAGES)` of dynamic shared memory,
/// the host-derived grid and validated parameters.
#[inline(always)]
pub unsafe fn mma16<
    T: Input16,
    const OUT_F32: bool,
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
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const { assert!(NI.is_multiple_of(2)) };
    const { assert!(smem_bytes(BM, BN, BK, STAGES) == crate::config::mma16_smem(BM, BN, BK, STAGES)) };
    const { assert!(WARPS_M * WARPS_N * 32 == THREADS) };
    // the double-buffered loop alternates fragment buffers by k-step parity across k-tiles
    const { assert!(MI * NI < 32 || (BK / 16).is_multiple_of(2)) };
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
    let wm0 = (warp / WARPS_N) * (MI as u32 * 16);
    let wn0 = (warp % WARPS_N) * (NI as u32 * 8);
    let a_kc = !TRANS_A;
    let b_kc = TRANS_B;
    let ktiles = p.k.div_ceil(BK);
    // ldmatrix lane roles: matrix i = lane/8, row r = lane%8
    let li = lane / 8;
    let lr = lane % 8;

    {
        let (ga, gb, gc) = batch_bases(p, z, 2, if OUT_F32 { 4 } else { 2 });
        let ca = TileLoader::new::<BM, BK, PAD, PAD, THREADS, 2>(
            ga,
            p.lda,
            a_kc,
            tile.m0,
            p.m,
            p.k,
            p.flags & flags::VEC_A != 0,
            tid,
        );
        let cb = TileLoader::new::<BN, BK, PAD, PAD, THREADS, 2>(
            gb,
            p.ldb,
            b_kc,
            tile.n0,
            p.n,
            p.k,
            p.flags & flags::VEC_B != 0,
            tid,
        );
        let mut acc = [[T::ZERO; NI]; MI];

        // Prologue: STAGES-1 tiles in flight, wait for tile 0, load its first fragments.
        let mut s = 0;
        while s < STAGES - 1 {
            if s < ktiles {
                let st = smem + s * stage_bytes;
                ca.issue::<BM, BK, THREADS, 2>(st, s);
                cb.issue::<BN, BK, THREADS, 2>(st + a_bytes, s);
            }
            commit_group();
            s += 1;
        }
        if MI * NI >= 32 {
            // 64×64 warp tiles (~210 registers, 1 block/SM): fragments double-buffered in registers.
            wait_group_n(STAGES - 2);
            sync_threads();
            // Fragments are double-buffered in registers: while the MMAs of k-step `kk` run, the
            // fragments of the next k-step (of this tile, or the first of the next tile) are loading.
            let mut af = [[[0u32; 4]; MI]; 2];
            let mut bf = [[[0u32; 2]; NI]; 2];
            if ktiles > 0 {
                load_frags::<BM, BN, BK, MI, NI>(
                    &mut af[0], &mut bf[0], smem, a_bytes, a_kc, b_kc, wm0, wn0, 0, lane,
                );
            }
            let ksteps = BK / 16;
            let mut kt = 0;
            while kt < ktiles {
                let ta = smem + (kt % STAGES) * stage_bytes;
                for ks in 0..ksteps {
                    let cur = (ks % 2) as usize;
                    let nxt = 1 - cur;
                    if ks + 1 < ksteps {
                        load_frags::<BM, BN, BK, MI, NI>(
                            &mut af[nxt],
                            &mut bf[nxt],
                            ta,
                            a_bytes,
                            a_kc,
                            b_kc,
                            wm0,
                            wn0,
                            (ks + 1) * 16,
                            lane,
                        );
                    }
                    if ks == 0 {
                        // Refill the stage every warp finished reading before the last barrier.
                        // Issued after the fragment loads and before the MMAs: ptxas reuses the
                        // copies' address registers soon after, and a register a `cp.async` has not
                        // read yet stalls its next writer (long scoreboard); the MMAs give the
                        // copies time to drain (kernel-log.md).
                        let nt = kt + STAGES - 1;
                        if nt < ktiles {
                            let st = smem + (nt % STAGES) * stage_bytes;
                            ca.issue::<BM, BK, THREADS, 2>(st, nt);
                            cb.issue::<BN, BK, THREADS, 2>(st + a_bytes, nt);
                        }
                        commit_group();
                    }
                    if ks + 1 == ksteps && kt + 1 < ktiles {
                        // Tile kt+1 must have landed and every warp must be past its reads of the stage
                        // the next iteration refills (stage (kt+STAGES)%STAGES = the one read now).
                        wait_group_n(STAGES - 2);
                        sync_threads();
                        load_frags::<BM, BN, BK, MI, NI>(
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
                    for i in 0..MI {
                        for j in 0..NI {
                            T::mma(&mut acc[i][j], af[cur][i], bf[cur][j]);
                        }
                    }
                }
                kt += 1;
            }
        } else {
            // Smaller warp tiles run 2 blocks/SM under a 128-register cap, where the second
            // fragment buffer would spill: fragments are loaded right before their MMAs.
            let mut kt = 0;
            while kt < ktiles {
                wait_group_n(STAGES - 2);
                sync_threads();
                let nt = kt + STAGES - 1;
                if nt < ktiles {
                    let st = smem + (nt % STAGES) * stage_bytes;
                    ca.issue::<BM, BK, THREADS, 2>(st, nt);
                    cb.issue::<BN, BK, THREADS, 2>(st + a_bytes, nt);
                }
                commit_group();
                let ta = smem + (kt % STAGES) * stage_bytes;
                let tb = ta + a_bytes;
                let mut kk = 0;
                while kk < BK {
                    let mut af = [[0u32; 4]; MI];
                    for (i, f) in af.iter_mut().enumerate() {
                        let m = wm0 + i as u32 * 16;
                        *f = if a_kc {
                            // M0: rows 0-7 k 0-7, M1: rows 8-15 k 0-7, M2: rows 0-7 k 8-15, M3: rows 8-15 k 8-15
                            shared_to_reg_x4(
                                ta + offset16::<BM, BK, PAD>(
                                    true,
                                    m + lr + (li % 2) * 8,
                                    kk + (li / 2) * 8,
                                ),
                            )
                        } else {
                            shared_to_reg_x4_trans(
                                ta + offset16::<BM, BK, PAD>(
                                    false,
                                    m + (li % 2) * 8,
                                    kk + lr + (li / 2) * 8,
                                ),
                            )
                        };
                    }
                    let mut bf = [[0u32; 2]; NI];
                    let mut j = 0;
                    while j < NI {
                        let n = wn0 + j as u32 * 8;
                        // regs: b0,b1 of n-tile j, then b0,b1 of n-tile j+1
                        let r = if b_kc {
                            shared_to_reg_x4(
                                tb + offset16::<BN, BK, PAD>(
                                    true,
                                    n + lr + (li / 2) * 8,
                                    kk + (li % 2) * 8,
                                ),
                            )
                        } else {
                            shared_to_reg_x4_trans(
                                tb + offset16::<BN, BK, PAD>(
                                    false,
                                    n + (li / 2) * 8,
                                    kk + lr + (li % 2) * 8,
                                ),
                            )
                        };
                        bf[j] = [r[0], r[1]];
                        bf[j + 1] = [r[2], r[3]];
                        j += 2;
                    }
                    for i in 0..MI {
                        for j in 0..NI {
                            T::mma(&mut acc[i][j], af[i], bf[j]);
                        }
                    }
                    kk += 16;
                }
                kt += 1;
            }
        }
        wait_all();
        // all warps must leave the last stage before the next batch item's prologue overwrites it
        sync_threads();
        let acc: [[[f32; 4]; NI]; MI] =
            core::array::from_fn(|i| core::array::from_fn(|j| T::acc_f32(&acc[i][j])));
        epilogue::<T, OUT_F32, MI, NI>(
            p,
            &acc,
            gc,
            tile.m0 + wm0 + lane / 4,
            tile.n0 + wn0 + 2 * (lane % 4),
        );
    }
}

/// `C = alpha·acc + beta·C` from `MI×NI` m16n8 tiles: tile `(i, j)` element `c[2h + e]` is at row
/// `row0 + 16i + 8h`, column `col0 + 8j + e`. Column pairs are written together when `VEC_C`
/// (8 bytes for f32, 4 for 16-bit); C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer.
#[inline(always)]
pub unsafe fn epilogue<T: Input16, const OUT_F32: bool, const MI: usize, const NI: usize>(
    p: &GemmParams,
    acc: &[[[f32; 4]; NI]; MI],
    gc: u64,
    row0: u32,
    col0: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    let es: u64 = if OUT_F32 { 4 } else { 2 };
    for (i, acc_i) in acc.iter().enumerate() {
        for h in 0..2u32 {
            let row = row0 + i as u32 * 16 + h * 8;
            if row >= p.m {
                continue;
            }
            let row_addr = gc.wrapping_add(row as u64 * p.ldc * es);
            for (j, t) in acc_i.iter().enumerate() {
                let col = col0 + j as u32 * 8;
                if col >= p.n {
                    continue;
                }
                let addr = row_addr.wrapping_add(col as u64 * es);
                let two = col + 2 <= p.n;
                let mut y0 = p.alpha * t[(2 * h) as usize];
                let mut y1 = p.alpha * t[(2 * h + 1) as usize];
                if !beta_zero {
                    let c0 = if OUT_F32 {
                        ld_global_f32(addr)
                    } else {
                        T::widen(ld_global_u16(addr))
                    };
                    y0 = fma_rn_f32(p.beta, c0, y0);
                    if two {
                        let at = addr + es;
                        let c1 = if OUT_F32 {
                            ld_global_f32(at)
                        } else {
                            T::widen(ld_global_u16(at))
                        };
                        y1 = fma_rn_f32(p.beta, c1, y1);
                    }
                }
                if OUT_F32 {
                    if vec && two {
                        st_global_v2_f32(addr, [y0, y1]);
                    } else {
                        st_global_f32(addr, y0);
                        if two {
                            st_global_f32(addr + 4, y1);
                        }
                    }
                } else {
                    let packed = T::pack(y0, y1);
                    if vec && two {
                        st_global_u32(addr, packed);
                    } else {
                        st_global_u16(addr, packed as u16);
                        if two {
                            st_global_u16(addr + 2, (packed >> 16) as u16);
                        }
                    }
                }
            }
        }
    }
}
