//! FP16/BF16 tensor-core threadblock for sm_80: `mma.sync.aligned.m16n8k16` (f32 or f16
//! accumulators, `MmaM16n8k16`), a `STAGES`-deep `cp.async` pipeline (`PrecomputedCopy`), and
//! `ldmatrix` fragment loads (`load_fragments`; `.trans` for operands stored r-contiguous).
//! Generic over the block tile (`BM×BN×BK`, BK a multiple of 16), the warp grid, the stage count and
//! the output element.
//!
//! Warps form a `WARPS_M × WARPS_N` grid; a warp owns `WM×WN = (BM/WARPS_M)×(BN/WARPS_N)` of C as
//! `MI×NI = (WM/16)×(WN/8)` m16n8 accumulator tiles.
//!
//! Pipeline (prefetch distance `STAGES−1`): wait until k-tile `t` has landed and every warp has left
//! stage `(t−1) % STAGES` (one `bar.sync`), issue the copies of tile `t+STAGES−1` into that freed stage,
//! then multiply stage `t % STAGES`. With 64×64 warp tiles the k-tiles whose refill lies inside K
//! with every chunk interior run first, as iterations without a bound test or edge path
//! (`PrecomputedCopy::issue_interior`), in serpentine MMA order; the last `STAGES − 1`, with
//! nothing to copy, run without the copy code. The epilogue is `store_pairs`.

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::global_to_shared::precomputed::PrecomputedCopy,
    super::{batch_bases, raster::tile_of_block},
    crate::arch::cp_async::{commit_group, wait_all, wait_group_n},
    crate::arch::smem::base,
    crate::arch::sync::sync_threads,
    crate::epilogue::{fragment::store_pairs, OutputElem},
    crate::params::{flags, GemmParams},
    crate::warp::mma_sync::{
        lane_offsets, load_a_fragments, load_b_fragments, load_fragments, MmaM16n8k16, OperandTile,
    },
};

/// Bytes of one operand tile with `r` rows and depth `bk` (unpadded, swizzled: `OperandTile`).
const fn tile_bytes(r: u32, bk: u32) -> u32 {
    r * bk * 2
}

pub use super::mma_sync_threads as threads;

/// Dynamic shared memory of a `block` tile with `stages` stages: per stage, an unpadded `R×BK`
/// tile of 16-bit elements for A and for B.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::mma_sync_multistage::smem_bytes};
/// // 4 stages of a 128×256×32 tile
/// assert_eq!(smem_bytes(GemmShape::new(128, 256, 32), 4), 4 * (128 + 256) * 32 * 2);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    stages * (tile_bytes(block.m, block.k) + tile_bytes(block.n, block.k))
}

/// Computes the block's output tile of batch item `z`.
///
/// `M`: the MMA kind; `O`: the element of C (accumulators are rounded to it once, at the end).
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
    M: MmaM16n8k16,
    O: OutputElem,
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
    const { assert!(WARPS_M * WARPS_N * 32 == THREADS) };
    const { assert!(BM == WARPS_M * MI as u32 * 16 && BN == WARPS_N * NI as u32 * 8) };
    const { assert!(BK.is_multiple_of(16)) };
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
    let block = GemmShape::new(BM, BN, BK);
    let lanes = lane_offsets(block, a_kc, b_kc, wm0, wn0, lane);
    let operands = (OperandTile::a(block, a_kc), OperandTile::b(block, b_kc));

    {
        let (ga, gb, gc) = batch_bases(p, z, 2, O::BYTES);
        let ca = PrecomputedCopy::new::<BM, BK, 0, 0, THREADS, 2, true>(
            ga,
            p.lda,
            a_kc,
            tile.m0,
            p.m,
            p.k,
            p.flags & flags::VEC_A != 0,
            tid,
        );
        let cb = PrecomputedCopy::new::<BN, BK, 0, 0, THREADS, 2, true>(
            gb,
            p.ldb,
            b_kc,
            tile.n0,
            p.n,
            p.k,
            p.flags & flags::VEC_B != 0,
            tid,
        );
        let mut acc = [[M::ZERO; NI]; MI];

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
                load_fragments::<MI, NI>(&mut af[0], &mut bf[0], smem, a_bytes, operands, lanes, 0);
            }
            let ksteps = BK / 16;
            let mut kt = 0;
            // k-tiles whose refill (tile kt + STAGES − 1) lies inside K with every chunk interior
            // (`steady`) run an iteration without a bound test or edge path: one basic block that
            // ptxas interleaves with the MMAs (kernel-log.md, session 20). The rest follow.
            let steady = if ca.interior() && cb.interior() {
                (p.k / BK).saturating_sub(STAGES - 1)
            } else {
                0
            };
            // k-tiles from `refills` on have no tile left to copy (the last `STAGES − 1`): they
            // run without the copy code, whose edge path would otherwise hold its registers
            // through them.
            let refills = ktiles.saturating_sub(STAGES - 1);
            // One k-tile: fragments of the next k-step load while this one multiplies; the
            // refill copies (none where `$refill` is false) go out after the first k-step's
            // fragment loads.
            macro_rules! k_tile {
                ($interior:expr, $refill:expr) => {{
                    let ta = smem + (kt % STAGES) * stage_bytes;
                    for ks in 0..ksteps {
                        let cur = (ks % 2) as usize;
                        let nxt = 1 - cur;
                        if ks + 1 < ksteps {
                            load_fragments::<MI, NI>(
                                &mut af[nxt],
                                &mut bf[nxt],
                                ta,
                                a_bytes,
                                operands,
                                lanes,
                                (ks + 1) * 16,
                            );
                        }
                        if ks == 0 {
                            // Refill the stage every warp finished reading before the last
                            // barrier. Issued after the fragment loads and before the MMAs:
                            // ptxas reuses the copies' address registers soon after, and a
                            // register a `cp.async` has not read yet stalls its next writer
                            // (long scoreboard); the MMAs give the copies time to drain.
                            let nt = kt + STAGES - 1;
                            let st = smem + (nt % STAGES) * stage_bytes;
                            if $interior {
                                ca.issue_interior::<BM, BK, THREADS, 2>(st, nt);
                                cb.issue_interior::<BN, BK, THREADS, 2>(st + a_bytes, nt);
                            } else if $refill {
                                ca.issue::<BM, BK, THREADS, 2>(st, nt);
                                cb.issue::<BN, BK, THREADS, 2>(st + a_bytes, nt);
                            }
                            commit_group();
                        }
                        if ks + 1 == ksteps && ($interior || kt + 1 < ktiles) {
                            // Tile kt+1 must have landed and every warp must be past its reads
                            // of the stage the next iteration refills (the one read now).
                            wait_group_n(STAGES - 2);
                            sync_threads();
                            load_fragments::<MI, NI>(
                                &mut af[nxt],
                                &mut bf[nxt],
                                smem + ((kt + 1) % STAGES) * stage_bytes,
                                a_bytes,
                                operands,
                                lanes,
                                0,
                            );
                        }
                        // Serpentine order: each row change keeps the last B fragment.
                        for i in 0..MI {
                            for jj in 0..NI {
                                let j = if i % 2 == 0 { jj } else { NI - 1 - jj };
                                M::mma(&mut acc[i][j], af[cur][i], bf[cur][j]);
                            }
                        }
                    }
                }};
            }
            while kt < steady {
                k_tile!(true, true);
                kt += 1;
            }
            while kt < refills {
                k_tile!(false, true);
                kt += 1;
            }
            while kt < ktiles {
                k_tile!(false, false);
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
                    load_a_fragments!(af, ta, operands.0, lanes.0, kk);
                    let mut bf = [[0u32; 2]; NI];
                    load_b_fragments!(bf, tb, operands.1, lanes.1, kk; NI);
                    for i in 0..MI {
                        for j in 0..NI {
                            M::mma(&mut acc[i][j], af[i], bf[j]);
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
            core::array::from_fn(|i| core::array::from_fn(|j| M::acc_f32(&acc[i][j])));
        store_pairs::<O, MI, NI>(
            p,
            &acc,
            gc,
            tile.m0 + wm0 + lane / 4,
            tile.n0 + wn0 + 2 * (lane % 4),
        );
    }
}
