//! The GEMM [`Path`]s the benchmarks and measuring tools run: element types in and out, and the
//! arithmetic.

use cudarc::cublas::sys::cublasComputeType_t;
use tcgemm::{Elem, KernelSpec, Math, Precision};
use tcgemm_kernels::config::Role;

use crate::shapes::Shape;

/// A GEMM path: element types in and out, and how the products are computed.
///
/// ```
/// use tcgemm_testkit::Path;
/// assert_eq!(Path::parse("f16->f32"), Some(Path::F16F32));
/// assert_eq!(Path::Tf32.precision(), tcgemm::Precision::Tf32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// f32 → f32, exact FP32 FFMA ([`Precision::Exact`]).
    Fp32,
    /// f32 → f32 on TF32 tensor cores ([`Precision::Tf32`]).
    Tf32,
    /// f16 → f16, f32 accumulation.
    F16,
    /// f16 → f32, f32 accumulation.
    F16F32,
    /// bf16 → bf16, f32 accumulation.
    Bf16,
    /// f32 → f32, 3xTF32 on tensor cores ([`Precision::Tf32x3`]), against cuBLAS's exact SGEMM.
    Tf32x3,
}

impl Path {
    /// Every path, in report order.
    pub const ALL: [Path; 6] = [
        Path::Fp32,
        Path::Tf32,
        Path::F16,
        Path::F16F32,
        Path::Bf16,
        Path::Tf32x3,
    ];

    /// Display name (tables, progress lines).
    pub fn name(self) -> &'static str {
        match self {
            Path::Fp32 => "fp32",
            Path::Tf32 => "tf32",
            Path::F16 => "f16",
            Path::F16F32 => "f16→f32",
            Path::Bf16 => "bf16",
            Path::Tf32x3 => "3xtf32",
        }
    }

    /// Parses a command-line name: `fp32`/`f32`, `tf32`, `f16`, `f16f32`/`f16->f32`, `bf16`,
    /// `3xtf32`/`tf32x3`.
    pub fn parse(s: &str) -> Option<Path> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fp32" | "f32" => Some(Path::Fp32),
            "tf32" => Some(Path::Tf32),
            "f16" | "fp16" => Some(Path::F16),
            "f16f32" | "f16->f32" | "f16-f32" | "f16→f32" => Some(Path::F16F32),
            "bf16" => Some(Path::Bf16),
            "3xtf32" | "tf32x3" => Some(Path::Tf32x3),
            _ => None,
        }
    }

    /// The [`Precision`] tcgemm is asked for.
    pub fn precision(self) -> Precision {
        match self {
            Path::Fp32 => Precision::Exact,
            Path::Tf32 => Precision::Tf32,
            Path::Tf32x3 => Precision::Tf32x3,
            Path::F16 | Path::F16F32 | Path::Bf16 => Precision::Default,
        }
    }

    /// Element types of A/B and of C.
    pub fn elems(self) -> (Elem, Elem) {
        match self {
            Path::Fp32 | Path::Tf32 | Path::Tf32x3 => (Elem::F32, Elem::F32),
            Path::F16 => (Elem::F16, Elem::F16),
            Path::F16F32 => (Elem::F16, Elem::F32),
            Path::Bf16 => (Elem::Bf16, Elem::Bf16),
        }
    }

    /// The instruction whose ceiling bounds this path's kernels (3xTF32 computes three TF32
    /// products per multiply-add the report counts: a third of the TF32 ceiling bounds it).
    pub fn ceiling_math(self) -> Math {
        match self {
            Path::Fp32 => Math::Ffma,
            Path::Tf32 | Path::Tf32x3 => Math::MmaTf32,
            Path::F16 | Path::F16F32 => Math::MmaF16F32,
            Path::Bf16 => Math::MmaBf16F32,
        }
    }

    /// cuBLAS compute type with the same arithmetic: TF32 tensor cores for `tf32`, else FP32
    /// (`3xtf32` is compared with cuBLAS's exact SGEMM, whose accuracy it offers).
    pub fn cublas_compute(self) -> cublasComputeType_t {
        match self {
            Path::Tf32 => cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
            _ => cublasComputeType_t::CUBLAS_COMPUTE_32F,
        }
    }

    /// Whether the GEMM kernel `spec` serves this path on `shape`'s layout (element types, the
    /// shape's transposes, and for f32 inputs the math: FFMA for `fp32`, TF32 MMA for `tf32`).
    /// None serves `3xtf32` by itself: a kernel forced by name runs plain TF32.
    pub fn runs(self, spec: &KernelSpec, shape: &Shape) -> bool {
        let (i, o) = self.elems();
        let math = match self {
            Path::Fp32 => spec.math == Math::Ffma,
            Path::Tf32 => spec.math == Math::MmaTf32,
            Path::Tf32x3 => false,
            _ => true,
        };
        spec.role() == Role::Gemm
            && spec.input == i
            && spec.output == o
            && math
            && spec.trans_a == shape.trans_a
            && spec.trans_b == shape.trans_b
    }
}
