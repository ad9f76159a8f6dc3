//! The split-K reduction: a GEMM split along K writes one f32 partial product per k-slice into a
//! workspace (`W[s]`, packed `m×ldw`); this kernel sums the slices in their order and applies the
//! epilogue, `C = alpha·Σ_s W[s] + beta·C` (`SplitkReduceParams`). A fixed order and no atomics:
//! the result is bitwise reproducible. The output element's conversion is the epilogue's
//! ([`OutputElem`](crate::epilogue::OutputElem): round to nearest even), and `beta·C` is added as
//! the GEMM epilogues add it (`fma(beta, C, alpha·sum)`).
//!
//! Grid-stride loop over groups of 4 consecutive elements of a row: each slice is read as one
//! 16-byte load (coalesced along the row); C is written as one vector store when `VEC_C` allows it
//! and the group lies inside the row, element by element otherwise.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::fma_rn_f32,
    crate::arch::global::{
        ld_global_f32, ld_global_nc_v4_f32, ld_global_u16, st_global_f32, st_global_u16,
        st_global_v2_u32, st_global_v4_f32, to_global,
    },
    crate::epilogue::OutputElem,
    crate::params::{flags, SplitkReduceParams},
};

/// Threads per block of the reduction kernels.
pub const THREADS: u32 = 256;

/// Slices whose loads one thread has in flight at once.
#[cfg(target_arch = "nvptx64")]
const LOADS_IN_FLIGHT: u32 = 8;

/// Sums the slices of the group of 4 at `wa` (the group's address in slice 0), in slice order:
/// `((W[0] + W[1]) + W[2]) + …`. The loads go out [`LOADS_IN_FLIGHT`] slices at a time before
/// their sums (one memory latency per batch, not per slice: a 1×4096 reduction of 8 slices
/// took 3.7 µs with one load in flight, docs/decode-log.md); the order of the additions, and so
/// every bit of the result, is the same.
///
/// # Safety
/// `wa + s·stride_bytes` is a valid, 16-byte-aligned workspace address for every `s < slices`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn sum_slices(wa: u64, slices: u32, stride_bytes: u64) -> [f32; 4] {
    let mut acc = [0.0f32; 4];
    let mut s0 = 0;
    while s0 < slices {
        let mut v = [[0.0f32; 4]; LOADS_IN_FLIGHT as usize];
        for (i, vi) in v.iter_mut().enumerate() {
            if s0 + (i as u32) < slices {
                *vi = ld_global_nc_v4_f32(wa + (s0 as u64 + i as u64) * stride_bytes);
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

/// `C = alpha·Σ_s W[s] + beta·C` into C of element `O`.
///
/// # Safety
/// `p` was built by the host for a live workspace holding `slices` slices of `m×ldw` f32 (16-byte
/// aligned, `ldw` and `slice_stride` multiples of 4) and a C of `m` rows of `ldc ≥ n` elements;
/// `VEC_C` tells the truth.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn reduce<O: OutputElem>(p: &SplitkReduceParams, tid: u32, bid: u32, grid: u32) {
    // ≥ 1, so the division below has no zero-divisor branch (n ≥ 1 whenever the host launches)
    let per_row = p.n.div_ceil(4).max(1) as u64;
    let groups = p.m as u64 * per_row;
    let (w, c) = (to_global(p.workspace), to_global(p.c));
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    let es = O::BYTES;
    let mut g = bid as u64 * THREADS as u64 + tid as u64;
    let step = grid as u64 * THREADS as u64;
    while g < groups {
        let row = g / per_row;
        let col = (g - row * per_row) as u32 * 4;
        let acc = sum_slices(
            w + (row * p.ldw + col as u64) * 4,
            p.slices,
            p.slice_stride * 4,
        );
        let ca = c + (row * p.ldc + col as u64) * es;
        let inside = p.n - col; // ≥ 1
        let full = inside >= 4;
        let mut y = [
            p.alpha * acc[0],
            p.alpha * acc[1],
            p.alpha * acc[2],
            p.alpha * acc[3],
        ];
        if !beta_zero {
            for (e, v) in y.iter_mut().enumerate() {
                if (e as u32) < inside {
                    let at = ca + e as u64 * es;
                    let old = if O::IS_F32 {
                        ld_global_f32(at)
                    } else {
                        O::widen(ld_global_u16(at))
                    };
                    *v = fma_rn_f32(p.beta, old, *v);
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
        g += step;
    }
}
