//! Writers of `mma.sync` `m16n8` accumulator fragments.
//!
//! A warp's accumulators are `MI×NI` m16n8 tiles; in tile `(i, j)` the lane's element `c[2h + e]` is
//! at row `row0 + 16i + 8h`, column `col0 + 8j + e`, where `row0 = lane/4` and `col0 = 2·(lane%4)`
//! relative to the warp tile (the C map in `arch::mma`), so each lane holds column pairs; or, where
//! the A fragments' rows were permuted, at row `16i + 2·(lane/4) + h`, so that in a kernel that
//! swaps A and B (its tile one of `Cᵀ`) each lane holds pairs of C's columns too.

use super::OutputElem;
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    ld_global_f32, ld_global_u16, st_global_f32, st_global_u16, st_global_u32, st_global_v2_f32,
};
use crate::params::{flags, GemmParams};
use crate::warp::mma_sync_tf32::permuted_row;

/// `C = alpha·acc + beta·C`, one column pair per access: 8 bytes for f32, 4 for 16-bit output
/// when `VEC_C`, element by element otherwise; C is not read when `BETA_ZERO`.
///
/// # Safety
/// `gc` is the batch item's C in the global window and `p` validated by the host: every in-bounds
/// `(row, col)` lies inside C's buffer.
#[inline(always)]
pub unsafe fn store_pairs<O: OutputElem, const MI: usize, const NI: usize>(
    p: &GemmParams,
    acc: &[[[f32; 4]; NI]; MI],
    gc: u64,
    row0: u32,
    col0: u32,
) {
    store_pairs_at_rows::<O, MI, NI>(p, acc, gc, |i, h| row0 + i * 16 + h * 8, col0);
}

/// [`store_pairs`] for fragments whose rows `g`, `g + 8` were read from memory rows `2g`, `2g + 1`
/// (`warp::mma_sync_tf32::permuted_row`): `m0` is the warp tile's first row, `col0` the lane's
/// first column.
///
/// With `TRANSPOSED` (a kernel that swaps A and B, `config::KernelSpec::swaps_ab`) `p` are the
/// swapped parameters and the accumulators a tile of `Cᵀ`: a fragment column is a row of C, and
/// the permuted pair of fragment rows `2g`, `2g + 1` at one column (elements `e` and `e + 2`) two
/// adjacent columns of that row, still one pair per access.
///
/// # Safety
/// As [`store_pairs`]; with `TRANSPOSED`, for the swapped parameters: every in-bounds `(row, col)`
/// of `Cᵀ` lies inside C's buffer at `col·ldc + row`.
#[inline(always)]
pub unsafe fn store_pairs_permuted_rows<
    O: OutputElem,
    const MI: usize,
    const NI: usize,
    const TRANSPOSED: bool,
>(
    p: &GemmParams,
    acc: &[[[f32; 4]; NI]; MI],
    gc: u64,
    m0: u32,
    col0: u32,
    lane: u32,
) {
    let g = lane / 4;
    if !TRANSPOSED {
        store_pairs_at_rows::<O, MI, NI>(p, acc, gc, |i, h| m0 + i * 16 + permuted_row(h, g), col0);
        return;
    }
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    let es: u64 = O::BYTES;
    for (i, acc_i) in acc.iter().enumerate() {
        // C's columns c_col, c_col + 1: rows h = 0, 1 of the permuted pair
        let c_col = m0 + i as u32 * 16 + permuted_row(0, g);
        if c_col >= p.m {
            continue;
        }
        let two = c_col + 2 <= p.m;
        for (j, t) in acc_i.iter().enumerate() {
            for e in 0..2usize {
                let c_row = col0 + j as u32 * 8 + e as u32;
                if c_row < p.n {
                    let addr = gc.wrapping_add((c_row as u64 * p.ldc + c_col as u64) * es);
                    let (y0, y1) = (p.alpha * t[e], p.alpha * t[e + 2]);
                    store_pair::<O>(p, addr, y0, y1, two, beta_zero, vec);
                }
            }
        }
    }
}

/// [`store_pairs`] with the row of fragment half `h` of m16 tile `i` given by `row(i, h)`.
///
/// # Safety
/// As [`store_pairs`].
#[inline(always)]
unsafe fn store_pairs_at_rows<O: OutputElem, const MI: usize, const NI: usize>(
    p: &GemmParams,
    acc: &[[[f32; 4]; NI]; MI],
    gc: u64,
    row: impl Fn(u32, u32) -> u32,
    col0: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    let es: u64 = O::BYTES;
    for (i, acc_i) in acc.iter().enumerate() {
        for h in 0..2u32 {
            let row = row(i as u32, h);
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
                let y0 = p.alpha * t[(2 * h) as usize];
                let y1 = p.alpha * t[(2 * h + 1) as usize];
                store_pair::<O>(p, addr, y0, y1, two, beta_zero, vec);
            }
        }
    }
}

/// `C = (y0, y1) + beta·C` (`y` = alpha·accumulators) for the element at `addr` and, when `two`,
/// the next one: one access for the pair (8 bytes of f32, 4 of 16-bit output) when `vec`
/// (`VEC_C`), element by element otherwise; C is not read when `beta_zero` (`BETA_ZERO`).
///
/// # Safety
/// `addr` (and with `two` the next element) lies inside C's buffer in the global window.
#[inline(always)]
pub(super) unsafe fn store_pair<O: OutputElem>(
    p: &GemmParams,
    addr: u64,
    mut y0: f32,
    mut y1: f32,
    two: bool,
    beta_zero: bool,
    vec: bool,
) {
    let es: u64 = O::BYTES;
    if !beta_zero {
        let c0 = if O::IS_F32 {
            ld_global_f32(addr)
        } else {
            O::widen(ld_global_u16(addr))
        };
        y0 = fma_rn_f32(p.beta, c0, y0);
        if two {
            let at = addr + es;
            let c1 = if O::IS_F32 {
                ld_global_f32(at)
            } else {
                O::widen(ld_global_u16(at))
            };
            y1 = fma_rn_f32(p.beta, c1, y1);
        }
    }
    if O::IS_F32 {
        if vec && two {
            st_global_v2_f32(addr, [y0, y1]);
        } else {
            st_global_f32(addr, y0);
            if two {
                st_global_f32(addr + 4, y1);
            }
        }
    } else {
        let packed = O::pack(y0, y1);
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

/// `C = alpha·acc + beta·C` element by element with scalar f32 accesses (the seed kernel's
/// epilogue, kept with it); C is not read when `BETA_ZERO`.
///
/// # Safety
/// As [`store_pairs`].
#[inline(always)]
pub unsafe fn store_elements_f32<const MI: usize, const NI: usize>(
    p: &GemmParams,
    acc: &[[[f32; 4]; NI]; MI],
    gc: u64,
    row0: u32,
    col0: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    for (i, acc_i) in acc.iter().enumerate() {
        for h in 0..2u32 {
            let row = row0 + i as u32 * 16 + h * 8;
            if row >= p.m {
                continue;
            }
            let row_addr = gc.wrapping_add(row as u64 * p.ldc * 4);
            for (j, acc_ij) in acc_i.iter().enumerate() {
                for e in 0..2u32 {
                    let col = col0 + j as u32 * 8 + e;
                    if col < p.n {
                        let addr = row_addr.wrapping_add(col as u64 * 4);
                        let mut y = p.alpha * acc_ij[(h * 2 + e) as usize];
                        if !beta_zero {
                            y = fma_rn_f32(p.beta, ld_global_f32(addr), y);
                        }
                        st_global_f32(addr, y);
                    }
                }
            }
        }
    }
}
