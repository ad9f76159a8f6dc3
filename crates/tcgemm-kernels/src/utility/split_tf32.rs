//! The TF32 split (`config::Family::SplitTf32`) behind `Precision::Tf32x3`: every f32 `x` of an
//! operand becomes a TF32 high part `hi = rna(x)` and the TF32-rounded residual
//! `lo = rna(x − hi)`, written K-major (`SplitParams`): as two parts `[hi | lo]` of each row,
//! which the 3xTF32 kernels read as three thirds of a K three times as long
//! (`flags::TF32X3_PARTS`), or as three parts, A `[hi | hi | lo]` and B `[hi | lo | hi]`, which
//! any TF32 GEMM over `3·k` (both operands K-major: `nt`) reads as they are. Either way the
//! product sums the three significant products `hi·hi + hi·lo + lo·hi` (3xTF32; `lo·lo` is
//! dropped).
//!
//! Blocks of [`THREADS`] take [`TILE_W`]×[`TILE_K`] tiles of (width, k), grid-stride along x
//! over the tiles and along y over the batch items: each thread reads four elements of each half
//! of the tile along the source's contiguous dimension (coalesced), into a padded shared-memory
//! tile, then writes four along k of each half, each part (coalesced). `x − hi` is exact in f32
//! (`hi` is `x` rounded at bit 13), so `lo` carries the next 11 significant bits. An `x` that
//! rounds up to infinity keeps its truncation as `hi`; an infinite or NaN `x` is its own `hi` with
//! `lo = 0`.

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

/// Rows (of the operand's width) of a block's tile of (width, k).
pub const TILE_W: u32 = 32;

/// Elements along k of a block's tile: two halves of [`TILE_W`].
pub const TILE_K: u32 = 64;

/// Shared memory of a block: one tile of f32, rows (w) of [`TILE_K`] padded by one element (no
/// bank conflicts when written down a column).
pub const SMEM_BYTES: u32 = TILE_W * (TILE_K + 1) * 4;

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

/// Splits `p`'s elements into their parts.
///
/// Each thread moves 4 consecutive elements of each half of the tile: it reads them along the
/// source's contiguous dimension (row `tid / 8` of the half's 32, elements `4·(tid % 8)..+4`),
/// both halves' loads before either is stored into shared memory, with one 16-byte load where
/// the source is 16-byte aligned and the 4 lie in range (else one load each), and writes 4
/// consecutive k of one row of each part per half with one 16-byte store where the parts are
/// aligned (else one store each); k from `p.k` up to `p.written_k` is written as zeros. Measured
/// (docs/f32-log.md): one 32×32 tile a block (one load in flight per thread), 73% of the H200's
/// DRAM bandwidth, where one 4-byte access per element was bound by instruction issue at 55%;
/// these two halves, 72–77% of the H100's, as were K-major sources written from registers
/// without the shared tile (attempt 8): the limit is not the tile.
///
/// # Safety
/// Launched with [`THREADS`] threads and [`SMEM_BYTES`] of dynamic shared memory; every element
/// of the source layout lies in a readable buffer that no thread writes during the kernel, every
/// part of the destination layout in a writable one, the two apart.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn tf32x3(p: &SplitParams, tid: u32, bid: u32, grid: u32, item: u32, items: u32) {
    let (src, dst) = (to_global(p.src), to_global(p.dst));
    let (tile_w, tile_k, half) = (u64::from(TILE_W), u64::from(TILE_K), u64::from(TILE_K / 2));
    let (k_tiles, w_tiles) = (p.written_k.div_ceil(tile_k), p.width.div_ceil(tile_w));
    // this thread's row of a half and first of its 4 elements along it
    let (r, c) = (u64::from(tid / 8), u64::from(tid % 8) * 4);
    // the tile: element (w, k) at row w, column k, rows TILE_K + 1 apart
    let at = |w: u64, k: u64| base() + ((w * (tile_k + 1) + k) * 4) as u32;
    let rna = |v: u32| f32_to_tf32_rna(f32::from_bits(v));
    let part = p.part_stride * 4;
    let k_major = p.src_k_major != 0;
    // 16-byte accesses: every row and item start aligned (`& 15` as measured: `%` adds a
    // zero-divisor test)
    let vector_src = (p.src | (p.src_ld * 4) | (p.src_stride * 4)) & 15 == 0;
    let vector_dst = (p.dst | (p.dst_ld * 4) | (p.dst_stride * 4) | part) & 15 == 0;
    let mut z = u64::from(item);
    while z < p.batch {
        let (s_item, d_item) = (src + z * p.src_stride * 4, dst + z * p.dst_stride * 4);
        let mut t = u64::from(bid);
        while t < k_tiles * w_tiles {
            let (k0, w0) = ((t % k_tiles) * tile_k, (t / k_tiles) * tile_w);
            // read along the source's contiguous dimension: row r of each half along k
            // (K-major) or along w; (w, k) of element e = 0..4 of half h
            let mut v = [[0u32; 4]; 2];
            let mut ok = [false; 2];
            unroll!(h in [0, 1] {
                let hk = k0 + h as u64 * half;
                let (w, k, along, extent) = if k_major {
                    (w0 + r, hk + c, hk + c, p.k)
                } else {
                    (w0 + c, hk + r, w0 + c, p.width)
                };
                let (row_ok, row_ld) = if k_major {
                    (w < p.width && hk < p.k, w * p.src_ld + k)
                } else {
                    (k < p.k, k * p.src_ld + w)
                };
                ok[h as usize] = row_ok;
                if row_ok {
                    let addr = s_item + row_ld * 4;
                    if vector_src && along + 4 <= extent {
                        let x = ld_global_nc_v4_f32(addr);
                        unroll!(e in [0, 1, 2, 3] {
                            v[h as usize][e as usize] = x[e as usize].to_bits();
                        });
                    } else {
                        unroll!(e in [0, 1, 2, 3] {
                            if along + (e as u64) < extent {
                                v[h as usize][e as usize] = ld_global_nc_u32(addr + 4 * e as u64);
                            }
                        });
                    }
                }
            });
            unroll!(h in [0, 1] {
                if ok[h as usize] {
                    let hk = h as u64 * half;
                    unroll!(e in [0, 1, 2, 3] {
                        let (e, x) = (e as u64, v[h as usize][e as usize]);
                        if k_major {
                            st_shared_u32(at(r, hk + c + e), x);
                        } else {
                            st_shared_u32(at(c + e, hk + r), x);
                        }
                    });
                }
            });
            sync_threads();
            // write along k: row r of the tile, k0 + h·32 + c..+4 (zeros from `p.k` on)
            let w = w0 + r;
            unroll!(h in [0, 1] {
                let hk = h as u64 * half;
                let k = k0 + hk + c;
                if w < p.width && k < p.written_k {
                    let d = d_item + (w * p.dst_ld + k) * 4;
                    let mut hi = [0u32; 4];
                    let mut lo = [0u32; 4];
                    unroll!(e in [0, 1, 2, 3] {
                        let e = e as usize;
                        if k + (e as u64) < p.k {
                            (hi[e], lo[e]) = split(ld_shared_u32(at(r, hk + c + e as u64)), rna);
                        }
                    });
                    let part1 = if p.low_part == 1 { lo } else { hi };
                    let part2 = if p.low_part == 2 { lo } else { hi };
                    let three = p.parts == 3;
                    if vector_dst && k + 4 <= p.written_k {
                        st_global_v4_u32(d, hi);
                        st_global_v4_u32(d + part, part1);
                        if three {
                            st_global_v4_u32(d + 2 * part, part2);
                        }
                    } else {
                        unroll!(e in [0, 1, 2, 3] {
                            let (e, i) = (e as u64, e as usize);
                            if k + e < p.written_k {
                                st_global_u32(d + 4 * e, hi[i]);
                                st_global_u32(d + part + 4 * e, part1[i]);
                                if three {
                                    st_global_u32(d + 2 * part + 4 * e, part2[i]);
                                }
                            }
                        });
                    }
                }
            });
            // the tile is read before the next one is written
            sync_threads();
            t += u64::from(grid);
        }
        z += u64::from(items);
    }
}
