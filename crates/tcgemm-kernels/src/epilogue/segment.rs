//! Writer of 4-column row segments of C (f32 output): the CUDA-core multistage family, whose
//! threads write the block tile's sums segment by segment after the k-slices are added up.
//!
//! A segment is columns `col..col+4` of one row: one 16-byte access where `VEC_C` allows and all 4
//! columns are in range, element by element otherwise; nothing outside `m × n`.

use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{ld_global_f32, ld_global_v4_f32, st_global_f32, st_global_v4_f32};
use crate::params::{flags, GemmParams};

/// `C[row][col..col+4] = alpha·acc + beta·C` (the in-range part); C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is the batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer. `col` is a multiple of 4 (with `VEC_C`, C's base and `ldc`
/// then keep the segment 16-byte aligned).
#[inline(always)]
pub unsafe fn store_segment(p: &GemmParams, acc: [f32; 4], gc: u64, row: u32, col: u32) {
    if row >= p.m || col >= p.n {
        return;
    }
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let addr = gc.wrapping_add((row as u64 * p.ldc + col as u64) * 4);
    let mut v = [0.0f32; 4];
    for q in 0..4 {
        v[q] = p.alpha * acc[q];
    }
    if p.flags & flags::VEC_C != 0 && col + 4 <= p.n {
        if !beta_zero {
            let c = ld_global_v4_f32(addr);
            for q in 0..4 {
                v[q] = fma_rn_f32(p.beta, c[q], v[q]);
            }
        }
        st_global_v4_f32(addr, v);
    } else {
        for (q, x) in v.iter().enumerate() {
            if col + (q as u32) < p.n {
                let at = addr + 4 * q as u64;
                let mut y = *x;
                if !beta_zero {
                    y = fma_rn_f32(p.beta, ld_global_f32(at), y);
                }
                st_global_f32(at, y);
            }
        }
    }
}
