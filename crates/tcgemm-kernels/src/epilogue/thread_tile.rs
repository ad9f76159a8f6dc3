//! Writer of the CUDA-core family's per-thread register tiles (f32 output).
//!
//! A thread holds `8×8` accumulators: row `i` of its tile is row `row0 + 16·(i/4) + i%4` of C, and
//! its columns are `col0 + 32·s + q` (`s ∈ {0, 1}`, `q ∈ 0..4`): two 4-column segments per row,
//! each written as one 16-byte access where `VEC_C` allows and all 4 columns are in range.

use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{ld_global_f32, ld_global_v4_f32, st_global_f32, st_global_v4_f32};
use crate::params::{flags, GemmParams};

/// `C = alpha·acc + beta·C` for this thread's 8×8 tile; C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is the batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer.
#[inline(always)]
pub unsafe fn store_thread_tile(
    p: &GemmParams,
    acc: &[[f32; 8]; 8],
    gc: u64,
    row0: u32,
    col0: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    for (i, acc_row) in acc.iter().enumerate() {
        let row = row0 + (i as u32 / 4) * 16 + i as u32 % 4;
        if row >= p.m {
            continue;
        }
        let row_addr = gc.wrapping_add(row as u64 * p.ldc * 4);
        for s in 0..2u32 {
            let col = col0 + s * 32;
            let addr = row_addr.wrapping_add(col as u64 * 4);
            let mut v = [0.0f32; 4];
            for (q, x) in v.iter_mut().enumerate() {
                *x = p.alpha * acc_row[s as usize * 4 + q];
            }
            if vec && col + 4 <= p.n {
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
    }
}
