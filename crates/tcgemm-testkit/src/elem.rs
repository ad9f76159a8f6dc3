//! The element types tcgemm multiplies (`f32`, `f16`, `bf16`), as the tests, examples and tools
//! see them: f64 conversions, bit patterns with NaN markers, unit roundoff and cuBLAS's name.

use std::fmt;

use cudarc::cublas::sys::cudaDataType;
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};
use tcgemm::Element;

/// What the tests and tools need of an element type: a tcgemm [`Element`] that cuBLAS names too.
///
/// Test cases keep operands as raw bits (`Bits`), so that a comparison is bitwise and NaN
/// markers survive; they are reinterpreted as `Self` only for the call into tcgemm.
///
/// ```
/// use tcgemm_testkit::TestElem;
/// assert_eq!(<half::f16 as TestElem>::from_f64(0.5).to_f64(), 0.5);
/// assert!(f32::from_bits(<f32 as TestElem>::POISON).is_nan());
/// ```
pub trait TestElem: Element + ValidAsZeroBits + Default + PartialEq + fmt::Debug {
    /// The bit pattern of one element.
    type Bits: DeviceRepr
        + ValidAsZeroBits
        + Copy
        + Eq
        + fmt::Debug
        + fmt::LowerHex
        + Send
        + Sync
        + 'static;
    /// `f32`, `f16` or `bf16`.
    const NAME: &'static str;
    /// cuBLAS's name of the type.
    const CUDA: cudaDataType;
    /// Written into C's `m×n` windows before a `beta == 0` run: a quiet NaN with a payload.
    const POISON: Self::Bits;
    /// Written everywhere outside the windows (ld padding, batch gaps, guards): another NaN.
    const SENTINEL: Self::Bits;
    /// Unit roundoff `u` (half the machine epsilon).
    const UNIT_ROUNDOFF: f64;
    /// The spacing of the subnormals (the smallest positive value): below the smallest normal a
    /// rounding errs by up to half of it, an absolute error no relative bound covers.
    const SUBNORMAL_STEP: f64;
    /// Widens to f64 (exact).
    fn to_f64(self) -> f64;
    /// Rounds an f64 to the type (to nearest even).
    fn from_f64(v: f64) -> Self;
    /// The bit pattern.
    fn to_bits(self) -> Self::Bits;
    /// The value of a bit pattern.
    fn from_bits(b: Self::Bits) -> Self;
}

impl TestElem for f32 {
    type Bits = u32;
    const NAME: &'static str = "f32";
    const CUDA: cudaDataType = cudaDataType::CUDA_R_32F;
    const POISON: u32 = 0x7fc0_dead;
    const SENTINEL: u32 = 0xffc5_a5a5;
    const UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;
    const SUBNORMAL_STEP: f64 = pow2(-149);
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    fn from_bits(b: u32) -> f32 {
        f32::from_bits(b)
    }
}

impl TestElem for f16 {
    type Bits = u16;
    const NAME: &'static str = "f16";
    const CUDA: cudaDataType = cudaDataType::CUDA_R_16F;
    const POISON: u16 = 0x7e57;
    const SENTINEL: u16 = 0xfe5a;
    const UNIT_ROUNDOFF: f64 = 1.0 / 2048.0;
    const SUBNORMAL_STEP: f64 = pow2(-24);
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_bits(self) -> u16 {
        f16::to_bits(self)
    }
    fn from_bits(b: u16) -> Self {
        f16::from_bits(b)
    }
}

impl TestElem for bf16 {
    type Bits = u16;
    const NAME: &'static str = "bf16";
    const CUDA: cudaDataType = cudaDataType::CUDA_R_16BF;
    const POISON: u16 = 0x7fd5;
    const SENTINEL: u16 = 0xffe5;
    const UNIT_ROUNDOFF: f64 = 1.0 / 256.0;
    const SUBNORMAL_STEP: f64 = pow2(-133);
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn to_bits(self) -> u16 {
        bf16::to_bits(self)
    }
    fn from_bits(b: u16) -> Self {
        bf16::from_bits(b)
    }
}

/// The value of the bit pattern `b` of a `T`, widened to f64.
///
/// ```
/// assert_eq!(tcgemm_testkit::bits_to_f64::<f32>(1.5f32.to_bits()), 1.5);
/// ```
pub fn bits_to_f64<T: TestElem>(b: T::Bits) -> f64 {
    T::from_bits(b).to_f64()
}

/// `2^e` for a normal f64 exponent (`-1022 ≤ e ≤ 1023`).
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}
