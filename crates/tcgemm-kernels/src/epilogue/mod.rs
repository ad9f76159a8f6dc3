//! The epilogue: `C = alpha·acc + beta·C` for every kernel family, with the output element's
//! conversion below it.
//!
//! The mainloops hand over f32 accumulators in the register layout of their instruction; the
//! epilogue scales them, adds `beta·C` (C is never read when the host sets `BETA_ZERO`, so NaN in
//! an unread C does not leak, as BLAS specifies), converts to the output element ([`OutputElem`]:
//! [`F32`], [`F16`], [`Bf16`], rounding to nearest even) and stores only in-range elements. The
//! writers differ only in how the accumulator layout maps to rows and columns of C:
//! - [`thread_tile`]: per-thread `8×8` tiles of the CUDA-core family (16-byte row segments);
//! - [`fragment`]: `m16n8` `mma.sync` accumulator fragments (column pairs, of rows as loaded or
//!   permuted; per element for the seed);
//! - [`segment`]: 4-column row segments (the CUDA-core multistage family, after its k-slices are
//!   summed);
//! - [`splitk`]: after an f32 kernel of a launch split along K stored its slice, the last CTA of a
//!   tile sums the tile's slices into C;
//! - `wgmma` (sm_90a): a warpgroup's `64×256` `wgmma` accumulators (16-byte stores after a
//!   shuffle inside each quad of lanes);
//! - `tma_store` (sm_90a): the same accumulators through shared memory and TMA bulk copies
//!   (`beta == 0`).

pub mod fragment;
pub mod segment;
pub mod splitk;
pub mod thread_tile;
#[cfg(target_feature = "sm_90a")]
pub mod tma_store;
#[cfg(target_feature = "sm_90a")]
pub mod wgmma;

use crate::arch::convert::{bf16_to_f32, f16_to_f32, f32x2_to_bf16x2_rn, f32x2_to_f16x2_rn};

/// The element type of C: its size and, for 16-bit elements, the conversions. The writers branch
/// on [`IS_F32`](Self::IS_F32) (a constant: the other path is not compiled), so f32 output is read
/// and written as is and never widened or packed.
pub trait OutputElem {
    /// Bytes per element.
    const BYTES: u64;
    /// C is f32.
    const IS_F32: bool = Self::BYTES == 4;
    /// Widens one 16-bit element (exactly). Not called for f32 output.
    fn widen(bits: u16) -> f32;
    /// Rounds `lo` and `hi` to nearest even and packs them into one 32-bit word, `lo` in the low
    /// half. Not called for f32 output.
    fn pack(lo: f32, hi: f32) -> u32;
}

/// IEEE binary32 output.
pub struct F32;
/// IEEE binary16 output.
pub struct F16;
/// bfloat16 output.
pub struct Bf16;

impl OutputElem for F32 {
    const BYTES: u64 = 4;
    #[inline(always)]
    fn widen(_: u16) -> f32 {
        unreachable!("f32 output is never widened")
    }
    #[inline(always)]
    fn pack(_: f32, _: f32) -> u32 {
        unreachable!("f32 output is never packed")
    }
}

impl OutputElem for F16 {
    const BYTES: u64 = 2;
    #[inline(always)]
    fn widen(bits: u16) -> f32 {
        f16_to_f32(bits)
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        f32x2_to_f16x2_rn(lo, hi)
    }
}

impl OutputElem for Bf16 {
    const BYTES: u64 = 2;
    #[inline(always)]
    fn widen(bits: u16) -> f32 {
        bf16_to_f32(bits)
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        f32x2_to_bf16x2_rn(lo, hi)
    }
}
