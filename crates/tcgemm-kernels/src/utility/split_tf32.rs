//! The TF32 split (`config::Family::SplitTf32`) behind `Precision::Tf32x3`: every f32 `x` of an
//! operand becomes a TF32 high part `hi = rna(x)` and the TF32-rounded residual
//! `lo = rna(x − hi)`, written K-major as three parts of a longer K (`SplitParams`). The host lays
//! A out as `[hi | hi | lo]` and B as `[hi | lo | hi]` along K, so one TF32 GEMM over `3·k` (both
//! operands K-major: `nt`) sums the three significant products `hi·hi + hi·lo + lo·hi` (3xTF32;
//! `lo·lo` is dropped).
//!
//! Blocks of [`THREADS`] take [`TILE`]×[`TILE`] tiles of (width, k), grid-stride along x over
//! the tiles and along y over the batch items: each thread reads four elements along the
//! source's contiguous dimension (coalesced), into a padded shared-memory tile, then writes four
//! along k, three parts each (coalesced). `x − hi` is exact in f32 (`hi` is `x` rounded at bit
//! 13), so `lo` carries the next 11 significant bits. An `x` that rounds up to infinity keeps its
//! truncation as `hi`; an infinite or NaN `x` is its own `hi` with `lo = 0`.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::f32_to_tf32_rna,
    crate::arch::global::{
        ld_global_nc_u32, ld_global_nc_v4_f32, st_global_u32, st_global_v4_u32, to_global,
    },
    crate::arch::smem::{base, ld_shared_u32, st_shared_u32},
    crate::arch::sync::sync_threads,
    crate::params::SplitParams,
};

/// Threads per block of the split kernel.
pub const THREADS: u32 = 256;

/// Side of a block's tile of (width, k).
pub const TILE: u32 = 32;

/// Shared memory of a block: one tile of f32, rows padded by one element (no bank conflicts when
/// read down a column).
pub const SMEM_BYTES: u32 = TILE * (TILE + 1) * 4;

/// Mask of an f32's sign, exponent and the 10 mantissa bits TF32 keeps.
pub const TF32_BITS: u32 = 0xffff_e000;

/// `(hi, lo)` of f32 bits `x`: `hi` its TF32 rounding by `rna` (to nearest, ties away from zero;
/// the truncation where that overflows), `lo` the TF32 rounding of `x − hi`; `lo = 0` for
/// infinities and NaN.
///
/// ```
/// use tcgemm_kernels::utility::split_tf32::split;
/// let x = 1.0f32 + 2f32.powi(-12) + 2f32.powi(-20);
/// let (hi, lo) = split(x.to_bits(), |v| (v + 0x1000) & 0xffff_e000);
/// assert_eq!(f32::from_bits(hi), 1.0);
/// assert_eq!(f32::from_bits(lo), 2f32.powi(-12) + 2f32.powi(-20));
/// ```
#[inline(always)]
pub fn split(x: u32, rna: impl Fn(u32) -> u32) -> (u32, u32) {
    let finite = |v: u32| v & 0x7f80_0000 != 0x7f80_0000;
    if !finite(x) {
        return (x, 0);
    }
    let mut hi = rna(x);
    if !finite(hi) {
        hi = x & TF32_BITS;
    }
    let lo = f32::from_bits(x) - f32::from_bits(hi);
    (hi, rna(lo.to_bits()))
}

/// Splits `p`'s elements into their three parts.
///
/// Each thread moves 4 consecutive elements per tile: it reads them along the source's contiguous
/// dimension (row `tid / 8` of the tile's 32, elements `4·(tid % 8)..+4`) with one 16-byte load
/// where the source is 16-byte aligned and the 4 lie in range (else one load each), and writes 4
/// consecutive k of one row of each part with one 16-byte store where the parts are aligned
/// (else one store each). Measured on the H200 (docs/f32-log.md attempt 6): 73% of its DRAM
/// bandwidth, where one 4-byte access per element was bound by instruction issue at 55%.
///
/// # Safety
/// Launched with [`THREADS`] threads and [`SMEM_BYTES`] of dynamic shared memory; every element
/// of the source layout lies in a readable buffer that no thread writes during the kernel, every
/// part of the destination layout in a writable one, the two apart.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn tf32x3(p: &SplitParams, tid: u32, bid: u32, grid: u32, item: u32, items: u32) {
    let (src, dst) = (to_global(p.src), to_global(p.dst));
    let tile = u64::from(TILE);
    let (k_tiles, w_tiles) = (p.k.div_ceil(tile), p.width.div_ceil(tile));
    // this thread's row of the tile and first of its 4 elements along it
    let (r, c) = (u64::from(tid / 8), u64::from(tid % 8) * 4);
    // the tile: element (w, k) at row w, column k, rows TILE + 1 apart
    let at = |w: u64, k: u64| base() + ((w * (tile + 1) + k) * 4) as u32;
    let rna = |v: u32| f32_to_tf32_rna(f32::from_bits(v));
    let part = p.part_stride * 4;
    // 16-byte accesses: every row and item start aligned (`& 15` as measured: `%` adds a
    // zero-divisor test)
    let vector_src = (p.src | (p.src_ld * 4) | (p.src_stride * 4)) & 15 == 0;
    let vector_dst = (p.dst | (p.dst_ld * 4) | (p.dst_stride * 4) | part) & 15 == 0;
    let mut z = u64::from(item);
    while z < p.batch {
        let (s_item, d_item) = (src + z * p.src_stride * 4, dst + z * p.dst_stride * 4);
        let mut t = u64::from(bid);
        while t < k_tiles * w_tiles {
            let (k0, w0) = ((t % k_tiles) * tile, (t / k_tiles) * tile);
            // read along the source's contiguous dimension: row r of the tile along k (K-major)
            // or along w; (w, k) of element e = 0..4
            let k_major = p.src_k_major != 0;
            let (w, k, along, extent) = if k_major {
                (w0 + r, k0 + c, k0 + c, p.k)
            } else {
                (w0 + c, k0 + r, w0 + c, p.width)
            };
            let (row_ok, row_ld) = if k_major {
                (w < p.width, w * p.src_ld + k)
            } else {
                (k < p.k, k * p.src_ld + w)
            };
            if row_ok {
                let addr = s_item + row_ld * 4;
                let put = |e: u64, v: u32| {
                    if k_major {
                        st_shared_u32(at(r, c + e), v);
                    } else {
                        st_shared_u32(at(c + e, r), v);
                    }
                };
                if vector_src && along + 4 <= extent {
                    let v = ld_global_nc_v4_f32(addr);
                    unroll!(e in [0, 1, 2, 3] {
                        put(e as u64, v[e as usize].to_bits());
                    });
                } else {
                    unroll!(e in [0, 1, 2, 3] {
                        let e = e as u64;
                        if along + e < extent {
                            put(e, ld_global_nc_u32(addr + 4 * e));
                        }
                    });
                }
            }
            sync_threads();
            // write along k: row r of the tile, k0 + c..+4
            let (w, k) = (w0 + r, k0 + c);
            if w < p.width && k < p.k {
                let d = d_item + (w * p.dst_ld + k) * 4;
                let mut hi = [0u32; 4];
                let mut lo = [0u32; 4];
                unroll!(e in [0, 1, 2, 3] {
                    let e = e as usize;
                    (hi[e], lo[e]) = split(ld_shared_u32(at(r, c + e as u64)), rna);
                });
                let part1 = if p.low_part == 1 { lo } else { hi };
                let part2 = if p.low_part == 2 { lo } else { hi };
                if vector_dst && k + 4 <= p.k {
                    st_global_v4_u32(d, hi);
                    st_global_v4_u32(d + part, part1);
                    st_global_v4_u32(d + 2 * part, part2);
                } else {
                    unroll!(e in [0, 1, 2, 3] {
                        let (e, i) = (e as u64, e as usize);
                        if k + e < p.k {
                            st_global_u32(d + 4 * e, hi[i]);
                            st_global_u32(d + part + 4 * e, part1[i]);
                            st_global_u32(d + 2 * part + 4 * e, part2[i]);
                        }
                    });
                }
            }
            // the tile is read before the next one is written
            sync_threads();
            t += u64::from(grid);
        }
        z += u64::from(items);
    }
}
