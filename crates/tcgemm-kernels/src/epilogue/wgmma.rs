//! Writer of a consumer warpgroup's `wgmma` accumulators (sm_90a): a `64×N` tile (`N` = 256 for
//! `m64n256`, 192 for `m64n192`, 144 for `m64n144`, 128 for `m64n128`, 64 for `m64n64`, 32 for
//! `m64n32`; `N / 2` f32 accumulators per thread), 16 bytes per store.
//!
//! Thread `(g, q)` (`g` = lane/4, `q` = lane%4) of the warpgroup's warp `w` holds, for each 8-column
//! block `j`, columns `8j + 2q, +1` of rows `row0` and `row0 + ROW_STEP` as `d[4j..4j+4]`: rows
//! `16w + g` and `+ 8` of the tile (`ROW_STEP` = 8), or the adjacent rows a register-sourced A
//! permutes them to (`ROW_STEP` = 1, `warp::wgmma_register_a`). f32 output: lanes `q` and `q ^ 1`
//! swap one pair (two `shfl`), so the even lane holds 4 consecutive columns of row `row0` and the
//! odd one 4 of row `row0 + ROW_STEP`. 16-bit output
//! (beta = 0): the quad transposes its packed words of two blocks (two butterfly rounds, four
//! `shfl`), so each lane holds 8 consecutive columns of one row and block; a 16-bit C to read goes
//! through [`super::fragment::store_pairs`] instead, which widens C exactly. Out-of-range
//! columns of a tail are stored element by element; rows beyond `m` not at all. C's base, `ldc` and
//! batch stride are 16-byte aligned (the TMA kernels' dispatch rule).
//!
//! A kernel that swaps A and B (`config::KernelSpec::swaps_ab`) holds a tile of `Cᵀ` (rows
//! permuted, `ROW_STEP` 1) and stores it transposed ([`store_rows_transposed`], f32 only): lanes
//! `l` and `l ^ 4` hold rows `r, r + 1` and `r + 2, r + 3` of the same columns and swap one pair
//! per block, so each holds 4 consecutive rows of one column, a 16-byte store into a row of C.
//! A swapped tile of the TMA-fed consumers (rows `16w + g`, `+ 8` as loaded, any output) goes
//! through [`store_pairs_transposed`]: lanes `l` and `l ^ 4` hold rows `r`, `r + 1` of the same
//! two columns and swap one element per row pair, so each holds two adjacent rows of one column,
//! one pair access into a row of C; a 16-bit C not read, 8 rows of one column per lane after
//! `movmatrix` and the quad transpose, 16 bytes per store.

use super::fragment::store_pair;
use super::OutputElem;
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    ld_global_f32, ld_global_v4_f32, st_global_f32, st_global_u16, st_global_v4_f32,
    st_global_v4_u32,
};
use crate::arch::movmatrix::transpose_b16;
use crate::arch::sync::shfl_xor;
use crate::params::{flags, GemmParams};

/// One round of the quad's 4×4 word transpose: lanes `q` and `q ^ MASK` exchange the words whose
/// segment bit `MASK` differs from their lane bit (afterwards word `s` of lane `q` is
/// `M[q ^ (d & MASK)][s ^ (d & MASK)]`, `d = q ^ s`; rounds with masks 2 and 1 give `M[s][q]`).
///
/// # Safety
/// Warp-convergent (a shuffle).
#[inline(always)]
unsafe fn quad_swap<const MASK: u32>(x: &mut [u32; 4], q: u32) {
    let hi = q & MASK != 0;
    let m = MASK as usize;
    unroll!(s in [0, 1, 2, 3] {
        let s = s as usize;
        if s & m == 0 {
            let y = shfl_xor::<MASK>(if hi { x[s] } else { x[s | m] });
            if hi {
                x[s] = y;
            } else {
                x[s | m] = y;
            }
        }
    });
}

/// Calls the writer of the `wgmma` width `ACC` has, `$n256` (`m64n256`, 128 accumulators),
/// `$n192` (96), `$n144` (72), `$n128` (64), `$n64` (32) or `$n32` (16), with `$p`,
/// `$d: &[f32; ACC]` seen as that width's array, then `$args`; `ACC` is the const generic of the
/// function the macro is expanded in (as `warp::wgmma`'s `by_width!` for the mainloop's
/// accumulators).
macro_rules! writer_by_width {
    (
        $p:expr, $d:ident, $n256:expr, $n192:expr, $n144:expr, $n128:expr, $n64:expr, $n32:expr,
        $($args:expr),+
    ) => {{
        const {
            assert!(
                ACC == 128 || ACC == 96 || ACC == 72 || ACC == 64 || ACC == 32 || ACC == 16,
                "wgmma widths: m64n256, m64n192, m64n144, m64n128, m64n64, m64n32"
            )
        };
        if ACC == 128 {
            // SAFETY: `[f32; ACC]` is `[f32; 128]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 128]>() };
            $n256($p, d, $($args),+)
        } else if ACC == 96 {
            // SAFETY: `[f32; ACC]` is `[f32; 96]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 96]>() };
            $n192($p, d, $($args),+)
        } else if ACC == 72 {
            // SAFETY: `[f32; ACC]` is `[f32; 72]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 72]>() };
            $n144($p, d, $($args),+)
        } else if ACC == 64 {
            // SAFETY: `[f32; ACC]` is `[f32; 64]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 64]>() };
            $n128($p, d, $($args),+)
        } else if ACC == 16 {
            // SAFETY: `[f32; ACC]` is `[f32; 16]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 16]>() };
            $n32($p, d, $($args),+)
        } else {
            // SAFETY: `[f32; ACC]` is `[f32; 32]` on this branch.
            let d = unsafe { &*($d as *const [f32; ACC]).cast::<[f32; 32]>() };
            $n64($p, d, $($args),+)
        }
    }};
}

/// Stores `C = alpha·d (+ beta·C)` of the thread's accumulators `d` (see the module docs): `ACC` =
/// 128 (`m64n256`), 96 (`m64n192`), 72 (`m64n144`), 64 (`m64n128`), 32 (`m64n64`) or 16
/// (`m64n32`); rows
/// `row0`, `row0 + ROW_STEP`, columns `col0..col0 + 2·ACC`, quad lane `q`; 16-byte stores, f32
/// output after one pair swap per quad (4 consecutive columns per lane), 16-bit output (beta = 0
/// only: a 16-bit C to read goes through [`store_pairs`](super::fragment::store_pairs)) after the
/// quad's word transpose (8 consecutive columns per lane).
///
/// # Safety
/// Warp-convergent (the shuffles); `gc` is the batch item's C, valid for the problem in `p`.
#[inline(always)]
pub unsafe fn store_rows<O: OutputElem, const ACC: usize, const ROW_STEP: u32>(
    p: &GemmParams,
    d: &[f32; ACC],
    gc: u64,
    row0: u32,
    col0: u32,
    q: u32,
) {
    writer_by_width!(
        p,
        d,
        store_rows_n256::<O, ROW_STEP>,
        store_rows_n192::<O, ROW_STEP>,
        store_rows_n144::<O, ROW_STEP>,
        store_rows_n128::<O, ROW_STEP>,
        store_rows_n64::<O, ROW_STEP>,
        store_rows_n32::<O, ROW_STEP>,
        gc,
        row0,
        col0,
        q
    );
}

/// Stores `C = alpha·tᵀ (+ beta·C)` for a tile `t` of `Cᵀ` (f32 output) whose rows `row0`,
/// `row0 + 1` (the permuted rows of `warp::wgmma_register_a::fragment_row`: `row0 % 4` is 0 in
/// lane `l` and 2 in lane `l ^ 4`), columns `col0 + 8j + 2q, +1` (`q = lane % 4`) the thread
/// holds as `d[4j..4j + 4]`: element `(row, col)` of the tile goes to `C[col][row]`. `p` is the
/// swapped problem (`p.m` rows of `Cᵀ`, `p.n` columns; `ldc` C's own). 16-byte stores of 4 rows
/// of one column; the rows beyond `p.m` of a tail element by element; columns beyond `p.n` not at
/// all.
///
/// # Safety
/// Warp-convergent (the shuffles); `gc` is the batch item's C, valid for the problem in `p`,
/// 16-byte aligned with `ldc` a multiple of 4.
#[inline(always)]
pub unsafe fn store_rows_transposed<const ACC: usize>(
    p: &GemmParams,
    d: &[f32; ACC],
    gc: u64,
    row0: u32,
    col0: u32,
    lane: u32,
) {
    writer_by_width!(
        p,
        d,
        store_rows_transposed_n256,
        store_rows_transposed_n192,
        store_rows_transposed_n144,
        store_rows_transposed_n128,
        store_rows_transposed_n64,
        store_rows_transposed_n32,
        gc,
        row0,
        col0,
        lane
    );
}

/// Stores `C = alpha·tᵀ (+ beta·C)` for a tile `t` of `Cᵀ` whose rows `row0` (`16w + g` of the
/// consumer's share) and `row0 + 8`, columns `col0 + 8j + 2q, +1` (`q = lane % 4`) the thread holds
/// as `d[4j..4j + 4]` (the `wgmma` accumulator layout, rows as loaded): element `(row, col)` of the
/// tile goes to `C[col][row]`. `p` is the swapped problem (`p.m` rows of `Cᵀ`, `p.n` columns;
/// `ldc` C's own). Lanes `l` and `l ^ 4` (rows `r` and `r + 1`, `r` even) swap one element per
/// pair of rows, so each holds rows `r, r + 1` of one column: one access of two elements into a
/// row of C ([`store_pair`], which reads a C to add exactly); a row pair at the tail of `p.m`
/// stores its first row alone, columns beyond `p.n` nothing. Any `O`, any beta. A 16-bit C not
/// read (beta = 0) goes out 16 bytes per store instead: each 8×8 block of the packed
/// accumulators transposed across the warp ([`transpose_b16`], `movmatrix`: lane `(g, q)` then
/// holds rows `2q`, `2q + 1` of the block's column `g`), and the quad's words of four blocks
/// (two columns × both row halves) transposed as in [`store_rows`], so each lane holds 8 rows of
/// one column (a tail's rows element by element).
///
/// # Safety
/// Warp-convergent (the shuffles); `gc` is the batch item's C, valid for the problem in `p`,
/// 16-byte aligned with `ldc` a whole number of 16-byte pieces (the TMA kernels' dispatch rule:
/// a pair of adjacent rows of `Cᵀ` starts on an even element, aligned for one access).
#[inline(always)]
pub unsafe fn store_pairs_transposed<O: OutputElem, const ACC: usize>(
    p: &GemmParams,
    d: &[f32; ACC],
    gc: u64,
    row0: u32,
    col0: u32,
    lane: u32,
) {
    writer_by_width!(
        p,
        d,
        store_pairs_transposed_n256::<O>,
        store_pairs_transposed_n192::<O>,
        store_pairs_transposed_n144::<O>,
        store_pairs_transposed_n128::<O>,
        store_pairs_transposed_n64::<O>,
        store_pairs_transposed_n32::<O>,
        gc,
        row0,
        col0,
        lane
    );
}

/// Defines `$name`, [`store_rows`] of `[f32; $acc]` accumulators, `$name_t`,
/// [`store_rows_transposed`] of them, and `$name_p`, [`store_pairs_transposed`] of them: the
/// bodies unrolled over the `$acc / 4` blocks of 8 columns `$j` (f32 output) and the `$acc / 8`
/// pairs of blocks `$j2` (16-bit output). One body for every width, each with literal loop
/// bounds: one body generic over `ACC` with a guard per unrolled block (`4·j < ACC`) changed the
/// code of the `m64n256` writer, and so did choosing the width through a trait method instead of
/// the branch in [`store_rows`].
///
/// The body is one function of more than 80 lines on purpose: split into calls, its parts are
/// optimized apart before they are inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX
/// identity").
macro_rules! store_rows_fn {
    (
        $name:ident, $name_t:ident, $name_p:ident, $acc:literal, [$($j:literal),*],
        [$($j2:literal),*]
    ) => {
        /// [`store_pairs_transposed`] of `[f32; $acc]` accumulators.
        ///
        /// # Safety
        /// As [`store_pairs_transposed`].
        #[inline(always)]
        unsafe fn $name_p<O: OutputElem>(
            p: &GemmParams,
            d: &[f32; $acc],
            gc: u64,
            row0: u32,
            col0: u32,
            lane: u32,
        ) {
            let beta_zero = p.flags & flags::BETA_ZERO != 0;
            let q = lane % 4;
            if !O::IS_F32 && beta_zero {
                // the warp's 16 rows start `g` = lane / 4 rows above the thread's first
                let (g, rows) = (lane / 4, row0 - lane / 4);
                unroll!(j2 in [$($j2),*] {
                    // word b: block (j, h) = (2·j2 + b / 2, b % 2) transposed, rows 8h + 2q, +1
                    // of column 8j + g
                    let mut x: [u32; 4] = core::array::from_fn(|b| {
                        let i = 4 * (2 * j2 as usize + (b >> 1)) + 2 * (b & 1);
                        transpose_b16(O::pack(d[i] * p.alpha, d[i + 1] * p.alpha))
                    });
                    // M[lane][block] → M[block][lane], as in the row writer
                    quad_swap::<2>(&mut x, q);
                    quad_swap::<1>(&mut x, q);
                    // now x[w] is rows 2w, 2w + 1 of block q: 8 rows of one column
                    let (row, col) = (rows + 8 * (q & 1), col0 + 8 * (2 * j2 + (q >> 1)) + g);
                    // tile rows row..row + 8 of column col are C's row col, columns row..row + 8
                    let addr = gc.wrapping_add((col as u64 * p.ldc + row as u64) * 2);
                    if row >= p.m || col >= p.n {
                        // nothing of this piece in range
                    } else if row + 8 <= p.m {
                        st_global_v4_u32(addr, x);
                    } else {
                        unroll!(e in [0, 1, 2, 3, 4, 5, 6, 7] {
                            if row + e < p.m {
                                let w = x[(e / 2) as usize] >> (16 * (e % 2));
                                st_global_u16(addr + u64::from(e) * 2, w as u16);
                            }
                        });
                    }
                });
                return;
            }
            // this lane holds the odd row of its pair (lane ^ 4 the even one)
            let odd = lane & 4 != 0;
            // unrolled: `d` must stay in registers
            unroll!(j in [$($j),*] {
                unroll!(h in [0, 1] {
                    let i = 4 * j as usize + 2 * h as usize;
                    // (row, c), (row, c + 1) of this lane's row, c = col0 + 8j + 2q
                    let (y0, y1) = (d[i] * p.alpha, d[i + 1] * p.alpha);
                    // the even row's lane keeps column c and sends c + 1; the odd row's the reverse
                    let sent = if odd { y0 } else { y1 };
                    let got = f32::from_bits(shfl_xor::<4>(sent.to_bits()));
                    let row = row0 + 8 * h - u32::from(odd);
                    let (col, lo, hi) = if odd {
                        (col0 + 8 * j + 2 * q + 1, got, y1)
                    } else {
                        (col0 + 8 * j + 2 * q, y0, got)
                    };
                    // tile elements (row, col), (row + 1, col) are C's (col, row), (col, row + 1)
                    if row < p.m && col < p.n {
                        let addr = gc.wrapping_add((col as u64 * p.ldc + row as u64) * O::BYTES);
                        store_pair::<O>(p, addr, lo, hi, row + 2 <= p.m, beta_zero, true);
                    }
                });
            });
        }

        /// [`store_rows_transposed`] of `[f32; $acc]` accumulators.
        ///
        /// # Safety
        /// As [`store_rows_transposed`].
        #[inline(always)]
        unsafe fn $name_t(
            p: &GemmParams,
            d: &[f32; $acc],
            gc: u64,
            row0: u32,
            col0: u32,
            lane: u32,
        ) {
            let beta_zero = p.flags & flags::BETA_ZERO != 0;
            let q = lane % 4;
            let upper = lane & 4 != 0;
            // the four rows of the lane pair start at the lower lane's `row0`
            let row = if upper { row0 - 2 } else { row0 };
            // unrolled: `d` must stay in registers
            unroll!(j in [$($j),*] {
                let i = 4 * j as usize;
                // (row0, c), (row0, c + 1), (row0 + 1, c), (row0 + 1, c + 1)
                let y = [
                    d[i] * p.alpha,
                    d[i + 1] * p.alpha,
                    d[i + 2] * p.alpha,
                    d[i + 3] * p.alpha,
                ];
                // the lower lane sends column c + 1's pair, the upper lane column c's
                let (s0, s1) = if upper { (y[0], y[2]) } else { (y[1], y[3]) };
                let r0 = f32::from_bits(shfl_xor::<4>(s0.to_bits()));
                let r1 = f32::from_bits(shfl_xor::<4>(s1.to_bits()));
                let (col, mut v) = if upper {
                    (col0 + 8 * j + 2 * q + 1, [r0, r1, y[1], y[3]])
                } else {
                    (col0 + 8 * j + 2 * q, [y[0], y[2], r0, r1])
                };
                // tile element (row + e, col) is C's (col, row + e)
                let addr = gc.wrapping_add((col as u64 * p.ldc + row as u64) * 4);
                if col >= p.n || row >= p.m {
                    // nothing of this column in range
                } else if row + 4 <= p.m {
                    if !beta_zero {
                        let c = ld_global_v4_f32(addr);
                        unroll!(e in [0, 1, 2, 3] {
                            let e = e as usize;
                            v[e] = fma_rn_f32(p.beta, c[e], v[e]);
                        });
                    }
                    st_global_v4_f32(addr, v);
                } else {
                    unroll!(e in [0, 1, 2, 3] {
                        if row + e < p.m {
                            let a = addr + u64::from(e) * 4;
                            let mut x = v[e as usize];
                            if !beta_zero {
                                x = fma_rn_f32(p.beta, ld_global_f32(a), x);
                            }
                            st_global_f32(a, x);
                        }
                    });
                }
            });
        }

        /// [`store_rows`] of `[f32; $acc]` accumulators.
        ///
        /// # Safety
        /// As [`store_rows`].
        #[inline(always)]
        unsafe fn $name<O: OutputElem, const ROW_STEP: u32>(
            p: &GemmParams,
            d: &[f32; $acc],
            gc: u64,
            row0: u32,
            col0: u32,
            q: u32,
        ) {
            let beta_zero = p.flags & flags::BETA_ZERO != 0;
            let es: u64 = O::BYTES;
            let at = |row: u32, col: u32| gc.wrapping_add((row as u64 * p.ldc + col as u64) * es);
            if O::IS_F32 {
                let odd = q & 1 != 0;
                // unrolled: `d` must stay in registers
                unroll!(j in [$($j),*] {
                    let i = 4 * j as usize;
                    let y = [
                        d[i] * p.alpha,
                        d[i + 1] * p.alpha,
                        d[i + 2] * p.alpha,
                        d[i + 3] * p.alpha,
                    ];
                    // even lanes send row0 + ROW_STEP's pair, odd lanes row0's
                    let (s0, s1) = if odd { (y[0], y[1]) } else { (y[2], y[3]) };
                    let r0 = f32::from_bits(shfl_xor::<1>(s0.to_bits()));
                    let r1 = f32::from_bits(shfl_xor::<1>(s1.to_bits()));
                    let (row, col, mut v) = if odd {
                        (row0 + ROW_STEP, col0 + 8 * j + 2 * q - 2, [r0, r1, y[2], y[3]])
                    } else {
                        (row0, col0 + 8 * j + 2 * q, [y[0], y[1], r0, r1])
                    };
                    let addr = at(row, col);
                    if row >= p.m || col >= p.n {
                        // nothing of this block in range
                    } else if col + 4 <= p.n {
                        if !beta_zero {
                            let c = ld_global_v4_f32(addr);
                            unroll!(e in [0, 1, 2, 3] {
                                let e = e as usize;
                                v[e] = fma_rn_f32(p.beta, c[e], v[e]);
                            });
                        }
                        st_global_v4_f32(addr, v);
                    } else {
                        unroll!(e in [0, 1, 2, 3] {
                            if col + e < p.n {
                                let a = addr + u64::from(e) * 4;
                                let mut x = v[e as usize];
                                if !beta_zero {
                                    x = fma_rn_f32(p.beta, ld_global_f32(a), x);
                                }
                                st_global_f32(a, x);
                            }
                        });
                    }
                });
            } else {
                unroll!(j2 in [$($j2),*] {
                    // segment s: row row0 + ROW_STEP·(s & 1) of block 2·j2 + (s >> 1); this lane's word of it
                    let mut x: [u32; 4] = core::array::from_fn(|s| {
                        let i = 4 * (2 * j2 as usize + (s >> 1)) + 2 * (s & 1);
                        O::pack(d[i] * p.alpha, d[i + 1] * p.alpha)
                    });
                    // M[lane][seg] → M[seg][lane]: swap where lane and segment bits differ, bit 1 then 0
                    quad_swap::<2>(&mut x, q);
                    quad_swap::<1>(&mut x, q);
                    // now x[w] is word w (columns 2w, 2w + 1) of segment q
                    let (row, col) = (row0 + ROW_STEP * (q & 1), col0 + 8 * (2 * j2 + (q >> 1)));
                    let addr = at(row, col);
                    if row >= p.m || col >= p.n {
                        // nothing of this block in range
                    } else if col + 8 <= p.n {
                        st_global_v4_u32(addr, x);
                    } else {
                        unroll!(e in [0, 1, 2, 3, 4, 5, 6, 7] {
                            if col + e < p.n {
                                let w = x[(e / 2) as usize] >> (16 * (e % 2));
                                st_global_u16(addr + u64::from(e) * 2, w as u16);
                            }
                        });
                    }
                });
            }
        }
    };
}

store_rows_fn!(
    store_rows_n256,
    store_rows_transposed_n256,
    store_pairs_transposed_n256,
    128,
    [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31
    ],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
);
store_rows_fn!(
    store_rows_n192,
    store_rows_transposed_n192,
    store_pairs_transposed_n192,
    96,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
);
store_rows_fn!(
    store_rows_n144,
    store_rows_transposed_n144,
    store_pairs_transposed_n144,
    72,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
    [0, 1, 2, 3, 4, 5, 6, 7, 8]
);
store_rows_fn!(
    store_rows_n128,
    store_rows_transposed_n128,
    store_pairs_transposed_n128,
    64,
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [0, 1, 2, 3, 4, 5, 6, 7]
);
store_rows_fn!(
    store_rows_n64,
    store_rows_transposed_n64,
    store_pairs_transposed_n64,
    32,
    [0, 1, 2, 3, 4, 5, 6, 7],
    [0, 1, 2, 3]
);
store_rows_fn!(
    store_rows_n32,
    store_rows_transposed_n32,
    store_pairs_transposed_n32,
    16,
    [0, 1, 2, 3],
    [0, 1]
);
