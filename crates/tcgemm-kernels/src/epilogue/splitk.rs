//! The split-K sums ([`SplitTail`]): fused into the kernel of the slices ([`reduce_tile`]), or
//! the reduction kernel's body ([`reduce`]) for tiles whose slices are too large for one CTA.
//!
//! A call split along K launches its kernel of f32 output once over all its k-slices (batch item
//! `s` is slice `s`); each CTA writes its partial tile into slice `s` of the workspace with the
//! kernel's own f32 epilogue, then [`reduce_tile`] counts it on the tile's counter. The CTA that
//! arrives last sums the tile's slices in slice order, `((W[0] + W[1]) + W[2]) + …`, applies
//! `C = alpha·sum + beta·C` as the GEMM epilogues do (`fma(beta, C, alpha·sum)`), converts to C's
//! element (round to nearest even) and sets the counter back to zero for the next call. Whichever
//! CTA arrives last, the additions are the same: the result is bitwise reproducible, and the
//! counters are integers (no floating-point atomics).
//!
//! Memory order: every thread's partial stores precede the CTA barrier; thread 0's counter add is
//! an acquire-release at GPU scope (cumulative over the barrier, as in CUTLASS's split-K
//! semaphore), so the last CTA's thread 0 sees every slice; a second barrier hands that on to its
//! threads, which read the slices through L2 (`ld.global.cg`), after a GPU-scope fence of their
//! own.
//!
//! The tile's groups of 4 consecutive elements of a row are spread over the CTA's threads; each
//! slice is read as one 16-byte load (the workspace's base, `ldw` and slice stride are multiples
//! of 16 bytes); C is written as one vector store when `VEC_C` allows it and the group lies inside
//! the row, element by element otherwise.

use super::{Bf16, OutputElem, F16, F32};
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    atom_add_acq_rel_gpu_u32, ld_global_cg_v4_f32, ld_global_f32, ld_global_u16, st_global_f32,
    st_global_u16, st_global_v2_u32, st_global_v4_f32, st_relaxed_gpu_u32, to_global,
};
use crate::arch::sync::{fence_acq_rel_gpu, sync_threads, sync_threads_or};
use crate::params::{flags, GemmParams, SplitTail};
use crate::threadblock::{raster::tile_of_block, BlockTile};

pub use crate::utility::REDUCE_THREADS;

use crate::utility::REDUCE_LOADS_IN_FLIGHT as LOADS_IN_FLIGHT;

/// The parameters batch item `z` of a launch runs with: a split launch's last slice is
/// `split.last_k` deep, every other item as launched.
#[inline(always)]
pub fn slice_params(p: &GemmParams, z: u32) -> GemmParams {
    let mut q = *p;
    if p.split.c != 0 && z + 1 == p.batch {
        q.k = p.split.last_k;
    }
    q
}

/// After the CTA stored slice `z` of output tile `bid` (a `BM×BN` tile, `THREADS` threads; with
/// `SWAP_AB` a tile of `Cᵀ`, tiled as the swapped parameters tile it, in a kernel that swaps A and
/// B): count it, and if it is the tile's last, sum the tile's slices into C. Nothing when the
/// launch has no counters (not split, or reduced by [`reduce`] after it). Every thread of the CTA
/// calls it with the launch's parameters `p`.
///
/// # Safety
/// `p` was built by the host for a split launch (or has `split.c == 0`): the workspace holds
/// `batch` slices of `m×ldc` f32 at `c` (16-byte aligned, `ldc` and `stride_c` multiples of 4),
/// the counters one zeroed `u32` per tile, C `m` rows of `split.ldc ≥ n` elements, and
/// `split.flags` tells the truth.
#[inline(always)]
pub unsafe fn reduce_tile<const BM: u32, const BN: u32, const THREADS: u32, const SWAP_AB: bool>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    // C's tile holds whole groups of 4 along its rows
    const {
        assert!(if SWAP_AB {
            BM.is_multiple_of(4)
        } else {
            BN.is_multiple_of(4)
        })
    };
    let (tiles_m, tiles_n) = if SWAP_AB {
        p.swapped().tiles(BM, BN)
    } else {
        p.tiles(BM, BN)
    };
    if p.split.counters == 0 || bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let counter = to_global(p.split.counters) + 4 * bid as u64;
    sync_threads();
    let last = tid == 0 && atom_add_acq_rel_gpu_u32(counter, 1) == p.batch - 1;
    if !sync_threads_or(last) {
        return;
    }
    if tid == 0 {
        // every slice of this tile has arrived: no more adds on it in this launch
        st_relaxed_gpu_u32(counter, 0);
    }
    fence_acq_rel_gpu();
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    if SWAP_AB {
        // the tile of Cᵀ at (m0, n0) is C's BN×BM tile at (n0, m0)
        let c_tile = BlockTile {
            m0: tile.n0,
            n0: tile.m0,
        };
        sum_tile_of::<THREADS>(p, c_tile, BN, BM, tid);
    } else {
        sum_tile_of::<THREADS>(p, tile, BM, BN, tid);
    }
}

/// [`sum_tile`] into C of the element the split tail names.
///
/// # Safety
/// As [`sum_tile`].
#[inline(always)]
unsafe fn sum_tile_of<const THREADS: u32>(
    p: &GemmParams,
    tile: BlockTile,
    rows: u32,
    cols: u32,
    tid: u32,
) {
    match p.split.flags & (flags::OUT_F16 | flags::OUT_BF16) {
        flags::OUT_F16 => sum_tile::<F16, THREADS>(p, tile, rows, cols, tid),
        flags::OUT_BF16 => sum_tile::<Bf16, THREADS>(p, tile, rows, cols, tid),
        _ => sum_tile::<F32, THREADS>(p, tile, rows, cols, tid),
    }
}

/// The split-K reduction kernel's body (`Family::SplitkReduce`), run after a split launch without
/// counters: the same sums as the fused tail over all of C's `m×n`, as a grid-stride loop over
/// groups of 4 (every SM takes part, where the fused tail has one CTA per tile: measured faster
/// for tiles whose slices hold more than [`FUSED_TAIL_BYTES`](crate::params::FUSED_TAIL_BYTES)).
/// Takes the split launch's own parameters. Built for sm_90 too, where the host launches it as a
/// programmatic dependent of the split launch (its CTAs scheduled while the slices finish): it
/// first waits for that launch's slices (`griddepcontrol.wait`, which returns at once in a plain
/// launch).
///
/// # Safety
/// As [`reduce_tile`], launched after the split launch on the same stream.
#[inline(always)]
pub unsafe fn reduce(p: &GemmParams, tid: u32, bid: u32, grid: u32) {
    #[cfg(target_feature = "sm_90")]
    crate::arch::grid_dependency::wait_prerequisite_grids();
    match p.split.flags & (flags::OUT_F16 | flags::OUT_BF16) {
        flags::OUT_F16 => reduce_all::<F16>(p, tid, bid, grid),
        flags::OUT_BF16 => reduce_all::<Bf16>(p, tid, bid, grid),
        _ => reduce_all::<F32>(p, tid, bid, grid),
    }
}

/// [`reduce`] into C of element `O`.
///
/// # Safety
/// As [`reduce`].
#[inline(always)]
unsafe fn reduce_all<O: OutputElem>(p: &GemmParams, tid: u32, bid: u32, grid: u32) {
    const THREADS: u64 = REDUCE_THREADS as u64;
    // ≥ 1, so the division below has no zero-divisor branch (n ≥ 1 whenever the host launches)
    let per_row = p.n.div_ceil(4).max(1) as u64;
    let (w, c) = (to_global(p.c), to_global(p.split.c));
    let mut g = bid as u64 * THREADS + tid as u64;
    while g < p.m as u64 * per_row {
        let row = g / per_row;
        let col = (g - row * per_row) as u32 * 4;
        let acc = sum_slices(w + (row * p.ldc + col as u64) * 4, p.batch, p.stride_c * 4);
        let ca = c + (row * p.split.ldc + col as u64) * O::BYTES;
        store_group::<O>(&p.split, acc, ca, p.n - col);
        g += grid as u64 * THREADS;
    }
}

/// `C = alpha·Σ_s W[s] + beta·C` over the in-range groups of 4 of `tile` (`rows × cols`, `cols` a
/// multiple of 4), into C of element `O`.
///
/// # Safety
/// As [`reduce_tile`], after every slice of the tile arrived.
#[inline(always)]
unsafe fn sum_tile<O: OutputElem, const THREADS: u32>(
    p: &GemmParams,
    tile: BlockTile,
    rows: u32,
    cols: u32,
    tid: u32,
) {
    let per_row = cols / 4;
    let (w, c) = (to_global(p.c), to_global(p.split.c));
    let mut g = tid;
    while g < rows * per_row {
        let row = tile.m0 + g / per_row;
        let col = tile.n0 + (g % per_row) * 4;
        if row < p.m && col < p.n {
            let acc = sum_slices(
                w + (row as u64 * p.ldc + col as u64) * 4,
                p.batch,
                p.stride_c * 4,
            );
            let ca = c + (row as u64 * p.split.ldc + col as u64) * O::BYTES;
            store_group::<O>(&p.split, acc, ca, p.n - col);
        }
        g += THREADS;
    }
}

/// Sums the slices of the group of 4 at `wa` (the group's address in slice 0), in slice order.
/// The loads go out [`LOADS_IN_FLIGHT`] slices at a time before their sums (one memory latency
/// per batch of slices, not per slice); the order of the additions is the same.
///
/// # Safety
/// `wa + s·stride_bytes` is a valid, 16-byte-aligned workspace address for every `s < slices`.
#[inline(always)]
unsafe fn sum_slices(wa: u64, slices: u32, stride_bytes: u64) -> [f32; 4] {
    let mut acc = [0.0f32; 4];
    let mut s0 = 0;
    while s0 < slices {
        let mut v = [[0.0f32; 4]; LOADS_IN_FLIGHT as usize];
        for (i, vi) in v.iter_mut().enumerate() {
            if s0 + (i as u32) < slices {
                *vi = ld_global_cg_v4_f32(wa + (s0 as u64 + i as u64) * stride_bytes);
            }
        }
        for (i, vi) in v.iter().enumerate() {
            let s = s0 + i as u32;
            if s == 0 {
                acc = *vi;
            } else if s < slices {
                for e in 0..4 {
                    acc[e] += vi[e];
                }
            }
        }
        s0 += LOADS_IN_FLIGHT;
    }
    acc
}

/// `C[ca..] = alpha·acc + beta·C` for the `inside ≥ 1` in-range elements of a group of 4 at `ca`.
///
/// # Safety
/// `ca` is the group's address in C's global window; its `min(inside, 4)` elements lie in C.
#[inline(always)]
unsafe fn store_group<O: OutputElem>(t: &SplitTail, acc: [f32; 4], ca: u64, inside: u32) {
    let es = O::BYTES;
    let full = inside >= 4;
    let vec = t.flags & flags::VEC_C != 0;
    let mut y = [
        t.alpha * acc[0],
        t.alpha * acc[1],
        t.alpha * acc[2],
        t.alpha * acc[3],
    ];
    if t.flags & flags::BETA_ZERO == 0 {
        for (e, v) in y.iter_mut().enumerate() {
            if (e as u32) < inside {
                let at = ca + e as u64 * es;
                let old = if O::IS_F32 {
                    ld_global_f32(at)
                } else {
                    O::widen(ld_global_u16(at))
                };
                *v = fma_rn_f32(t.beta, old, *v);
            }
        }
    }
    if O::IS_F32 {
        if vec && full {
            st_global_v4_f32(ca, y);
        } else {
            for (e, v) in y.iter().enumerate() {
                if (e as u32) < inside {
                    st_global_f32(ca + e as u64 * 4, *v);
                }
            }
        }
    } else {
        let packed = [O::pack(y[0], y[1]), O::pack(y[2], y[3])];
        if vec && full {
            st_global_v2_u32(ca, packed);
        } else {
            for e in 0..4u32 {
                if e < inside {
                    let half = (packed[(e / 2) as usize] >> (16 * (e % 2))) as u16;
                    st_global_u16(ca + e as u64 * 2, half);
                }
            }
        }
    }
}
