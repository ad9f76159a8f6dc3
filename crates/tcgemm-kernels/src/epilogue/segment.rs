//! Writer of 4-column row segments of C: the CUDA-core multistage and stream families, whose
//! threads write the block tile's sums segment by segment after the partial sums are added up.
//!
//! A segment is columns `col..col+4` of one row: one vector access (16 bytes of f32, 8 of 16-bit
//! elements) where `VEC_C` allows and all 4 columns are in range, element by element otherwise;
//! nothing outside `m × n`.

use super::OutputElem;
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    ld_global_f32, ld_global_u16, ld_global_v4_f32, st_global_f32, st_global_u16, st_global_v2_u32,
    st_global_v4_f32,
};
use crate::params::{flags, GemmParams};

/// `C[row][col..col+4] = alpha·acc + beta·C` (the in-range part), converted to `O` (round to
/// nearest even); C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is the batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer. `col` is a multiple of 4 (with `VEC_C`, C's base and `ldc`
/// then keep the segment 16-byte aligned for f32, 8-byte aligned for 16-bit elements).
#[inline(always)]
pub unsafe fn store_segment<O: OutputElem>(
    p: &GemmParams,
    acc: [f32; 4],
    gc: u64,
    row: u32,
    col: u32,
) {
    if row >= p.m || col >= p.n {
        return;
    }
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let addr = gc.wrapping_add((row as u64 * p.ldc + col as u64) * O::BYTES);
    let mut v = [0.0f32; 4];
    for q in 0..4 {
        v[q] = p.alpha * acc[q];
    }
    let vector = p.flags & flags::VEC_C != 0 && col + 4 <= p.n;
    if O::IS_F32 {
        if vector {
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
        return;
    }
    // 16-bit C: the old C widened exactly, then the 4 elements packed, stored as one 8-byte
    // vector or element by element
    if !beta_zero {
        for (q, x) in v.iter_mut().enumerate() {
            if col + (q as u32) < p.n {
                *x = fma_rn_f32(p.beta, O::widen(ld_global_u16(addr + 2 * q as u64)), *x);
            }
        }
    }
    let packed = [O::pack(v[0], v[1]), O::pack(v[2], v[3])];
    if vector {
        st_global_v2_u32(addr, packed);
    } else {
        for q in 0..4u32 {
            if col + q < p.n {
                let half = (packed[(q / 2) as usize] >> (16 * (q % 2))) as u16;
                st_global_u16(addr + 2 * q as u64, half);
            }
        }
    }
}
