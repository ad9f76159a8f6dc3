//! Element-wise conversion kernels f32 ↔ f16/bf16, so a caller holding f32 data can take the
//! 16-bit tensor-core path. Narrowing rounds to nearest even (`cvt.rn.f16x2.f32`,
//! `cvt.rn.bf16x2.f32`): values beyond the format's range become ±inf, NaN stays NaN, subnormals are
//! kept. Widening is exact.
//!
//! Parameters (`ConvertParams`): `src`, `dst`, `len` elements; `vector = 1` when the source is
//! 16-byte and the destination 8-byte aligned (narrowing), or the source 8-byte and the destination
//! 16-byte aligned (widening). Grid-stride loop over groups of 4 elements: a group fully inside with
//! vector access allowed moves as one vector load and one vector store, others element by element.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::{bf16_to_f32, f16_to_f32, f32x2_to_bf16x2_rn, f32x2_to_f16x2_rn},
    crate::arch::global::{
        ld_global_nc_f32, ld_global_nc_u16, ld_global_nc_v2_u32, ld_global_nc_v4_f32,
        st_global_f32, st_global_u16, st_global_v2_u32, st_global_v4_f32, to_global,
    },
    crate::params::ConvertParams,
};

/// Threads per block of the conversion kernels.
pub const THREADS: u32 = 256;

/// f32 → 16-bit. `BF16` selects bfloat16, else IEEE binary16.
///
/// # Safety
/// `p.src` holds `p.len` f32, `p.dst` as many 16-bit elements; `p.vector` tells the truth.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn narrow<const BF16: bool>(p: &ConvertParams, tid: u32, bid: u32, grid: u32) {
    let pack = |lo: f32, hi: f32| {
        if BF16 {
            f32x2_to_bf16x2_rn(lo, hi)
        } else {
            f32x2_to_f16x2_rn(lo, hi)
        }
    };
    let n = p.len;
    let (src, dst) = (to_global(p.src), to_global(p.dst));
    let vec = p.vector != 0;
    let mut g = (bid as u64 * THREADS as u64 + tid as u64) * 4;
    let step = grid as u64 * THREADS as u64 * 4;
    while g < n {
        if vec && g + 4 <= n {
            let v = ld_global_nc_v4_f32(src + g * 4);
            st_global_v2_u32(dst + g * 2, [pack(v[0], v[1]), pack(v[2], v[3])]);
        } else {
            let mut e = g;
            while e < g + 4 && e < n {
                let h = pack(ld_global_nc_f32(src + e * 4), 0.0) as u16;
                st_global_u16(dst + e * 2, h);
                e += 1;
            }
        }
        g += step;
    }
}

/// 16-bit → f32 (exact).
///
/// # Safety
/// `p.src` holds `p.len` 16-bit elements, `p.dst` as many f32; `p.vector` tells the truth.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn widen<const BF16: bool>(p: &ConvertParams, tid: u32, bid: u32, grid: u32) {
    let one = |h: u16| if BF16 { bf16_to_f32(h) } else { f16_to_f32(h) };
    let n = p.len;
    let (src, dst) = (to_global(p.src), to_global(p.dst));
    let vec = p.vector != 0;
    let mut g = (bid as u64 * THREADS as u64 + tid as u64) * 4;
    let step = grid as u64 * THREADS as u64 * 4;
    while g < n {
        if vec && g + 4 <= n {
            let v = ld_global_nc_v2_u32(src + g * 2);
            let w = [
                one(v[0] as u16),
                one((v[0] >> 16) as u16),
                one(v[1] as u16),
                one((v[1] >> 16) as u16),
            ];
            st_global_v4_f32(dst + g * 4, w);
        } else {
            let mut e = g;
            while e < g + 4 && e < n {
                st_global_f32(dst + e * 4, one(ld_global_nc_u16(src + e * 2)));
                e += 1;
            }
        }
        g += step;
    }
}
