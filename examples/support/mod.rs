//! Code shared by the examples (`gemm_demo`, `bench_report`) and the criterion bench
//! (`benches/gemm.rs`), each of which includes it with `#[path = ".../support/mod.rs"] mod support;`
//! (cargo does not treat `examples/support/` as an example: it has no `main.rs`).
//!
//! - this file: element types ([`El`]), random inputs ([`Pcg`], [`random_vec`]), the benchmarked
//!   [`Path`]s and [`Shape`]s (the one shape list of the bench and the report);
//! - [`gpu`]: opening the device, rotating buffer sets, NaN-poisoning C, CUDA-event timing behind a
//!   GPU-side delay, instruction ceilings;
//! - [`check`]: the f64 reference on a sample of entries;
//! - [`blas`]: loading cuBLAS and the row-major GEMM through it, library versions.
#![allow(dead_code)]

pub mod args;
pub mod blas;
pub mod check;
pub mod gpu;

use cudarc::cublas::sys::{cublasComputeType_t, cudaDataType};
use half::{bf16, f16};
use tcgemm::{Elem, Element, Gemm, KernelSpec, Math, Precision, Role};

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------

/// An element type the examples and benches use: a tcgemm [`Element`] that cuBLAS names too.
pub trait El: Element + cudarc::driver::ValidAsZeroBits + Default {
    /// cuBLAS's name of the type.
    const CUDA: cudaDataType;
    /// Rounds an f64 to the type.
    fn from_f64(v: f64) -> Self;
    /// Widens the type to f64.
    fn to_f64(self) -> f64;
}

impl El for f32 {
    const CUDA: cudaDataType = cudaDataType::CUDA_R_32F;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl El for f16 {
    const CUDA: cudaDataType = cudaDataType::CUDA_R_16F;
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

impl El for bf16 {
    const CUDA: cudaDataType = cudaDataType::CUDA_R_16BF;
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}

// ---------------------------------------------------------------------------------------------
// Random inputs (PCG32; no zeros)
// ---------------------------------------------------------------------------------------------

/// PCG32 (O'Neill): state and stream increment.
pub struct Pcg(u64, u64);

impl Pcg {
    /// A generator for `seed` on stream `stream`.
    pub fn new(seed: u64, stream: u64) -> Pcg {
        let mut r = Pcg(0, (stream << 1) | 1);
        r.next();
        r.0 = r.0.wrapping_add(seed);
        r.next();
        r
    }

    /// The next 32 random bits.
    pub fn next(&mut self) -> u32 {
        let old = self.0;
        self.0 = old
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(self.1);
        ((((old >> 18) ^ old) >> 27) as u32).rotate_right((old >> 59) as u32)
    }

    /// Uniform in `0..n` (n > 0), from 64 random bits.
    pub fn below(&mut self, n: usize) -> usize {
        let x = (u64::from(self.next()) << 32) | u64::from(self.next());
        (x % n as u64) as usize
    }

    /// Uniform in `[-1, 1]`, magnitude at least 2⁻¹² (never zero in any of the element types).
    pub fn pm1(&mut self) -> f64 {
        let mag = (f64::from(self.next() >> 8) + 1.0) / f64::from(1u32 << 24);
        let mag = mag.max(1.0 / 4096.0);
        if self.next() & 1 == 0 {
            mag
        } else {
            -mag
        }
    }
}

/// `len` random non-zero elements in `[-1, 1]`, filled in parallel (one PCG stream per chunk).
pub fn random_vec<T: El>(len: usize, seed: u64) -> Vec<T> {
    let mut v = vec![T::default(); len];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = len.div_ceil(threads).max(1 << 16);
    std::thread::scope(|s| {
        for (i, part) in v.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let mut r = Pcg::new(seed, i as u64);
                part.iter_mut().for_each(|x| *x = T::from_f64(r.pm1()));
            });
        }
    });
    v
}

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

/// A GEMM path: element types in and out, and how the products are computed.
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
}

impl Path {
    /// Every path, in report order.
    pub const ALL: [Path; 5] = [Path::Fp32, Path::Tf32, Path::F16, Path::F16F32, Path::Bf16];

    /// Display name (tables, progress lines).
    pub fn name(self) -> &'static str {
        match self {
            Path::Fp32 => "fp32",
            Path::Tf32 => "tf32",
            Path::F16 => "f16",
            Path::F16F32 => "f16→f32",
            Path::Bf16 => "bf16",
        }
    }

    /// Parses a command-line name: `fp32`/`f32`, `tf32`, `f16`, `f16f32`/`f16->f32`, `bf16`.
    pub fn parse(s: &str) -> Option<Path> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fp32" | "f32" => Some(Path::Fp32),
            "tf32" => Some(Path::Tf32),
            "f16" | "fp16" => Some(Path::F16),
            "f16f32" | "f16->f32" | "f16-f32" | "f16→f32" => Some(Path::F16F32),
            "bf16" => Some(Path::Bf16),
            _ => None,
        }
    }

    /// The [`Precision`] tcgemm is asked for.
    pub fn precision(self) -> Precision {
        match self {
            Path::Fp32 => Precision::Exact,
            Path::Tf32 => Precision::Tf32,
            Path::F16 | Path::F16F32 | Path::Bf16 => Precision::Default,
        }
    }

    /// Element types of A/B and of C.
    pub fn elems(self) -> (Elem, Elem) {
        match self {
            Path::Fp32 | Path::Tf32 => (Elem::F32, Elem::F32),
            Path::F16 => (Elem::F16, Elem::F16),
            Path::F16F32 => (Elem::F16, Elem::F32),
            Path::Bf16 => (Elem::Bf16, Elem::Bf16),
        }
    }

    /// The instruction whose ceiling bounds this path's kernels.
    pub fn ceiling_math(self) -> Math {
        match self {
            Path::Fp32 => Math::Ffma,
            Path::Tf32 => Math::MmaTf32,
            Path::F16 | Path::F16F32 => Math::MmaF16F32,
            Path::Bf16 => Math::MmaBf16F32,
        }
    }

    /// cuBLAS compute type with the same arithmetic: TF32 tensor cores for `tf32`, else FP32.
    pub fn cublas_compute(self) -> cublasComputeType_t {
        match self {
            Path::Tf32 => cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
            _ => cublasComputeType_t::CUBLAS_COMPUTE_32F,
        }
    }

    /// Whether the GEMM kernel `spec` serves this path on `shape`'s layout (element types, the
    /// shape's transposes, and for f32 inputs the math: FFMA for `fp32`, TF32 MMA for `tf32`).
    pub fn runs(self, spec: &KernelSpec, shape: &Shape) -> bool {
        let (i, o) = self.elems();
        let math = match self {
            Path::Fp32 => spec.math == Math::Ffma,
            Path::Tf32 => spec.math == Math::MmaTf32,
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

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

/// A (strided-batched) row-major `m×n×k` product, packed: A stored `m×k` or, with `trans_a`,
/// `k×m`; B stored `k×n` or, with `trans_b`, `n×k` (`nt`: both operands K-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Batch items.
    pub batch: usize,
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// A stored transposed (`k×m`).
    pub trans_a: bool,
    /// B stored transposed (`n×k`).
    pub trans_b: bool,
}

const fn sh(m: usize, n: usize, k: usize) -> Shape {
    Shape {
        batch: 1,
        m,
        n,
        k,
        trans_a: false,
        trans_b: false,
    }
}

/// Squares.
pub const SQUARES: [Shape; 4] = [
    sh(1024, 1024, 1024),
    sh(2048, 2048, 2048),
    sh(4096, 4096, 4096),
    sh(8192, 8192, 8192),
];

/// Transformer-like: M (tokens) ∈ {16, 128, 4096} × (N, K) ∈ {(4096, 4096), (11008, 4096), (4096, 11008)}.
pub const TRANSFORMER: [Shape; 9] = [
    sh(16, 4096, 4096),
    sh(16, 11008, 4096),
    sh(16, 4096, 11008),
    sh(128, 4096, 4096),
    sh(128, 11008, 4096),
    sh(128, 4096, 11008),
    sh(4096, 4096, 4096),
    sh(4096, 11008, 4096),
    sh(4096, 4096, 11008),
];

/// One small dimension.
pub const SKINNY: [Shape; 3] = [sh(64, 8192, 8192), sh(8192, 64, 8192), sh(8192, 8192, 64)];

/// Sizes that are not multiples of any tile.
pub const ODD: [Shape; 2] = [sh(1921, 1023, 517), sh(4095, 4095, 4095)];

/// Many small products in one strided-batched call.
pub const BATCHED: [Shape; 1] = [Shape {
    batch: 1000,
    m: 64,
    n: 64,
    k: 64,
    trans_a: false,
    trans_b: false,
}];

/// The `--quick` shapes of the report.
pub const QUICK: [Shape; 2] = [sh(4096, 4096, 4096), sh(8192, 8192, 8192)];

/// The full shape list of the bench and the report, in order (4096³ appears once, with the squares).
pub fn all_shapes() -> Vec<Shape> {
    let mut v: Vec<Shape> = Vec::new();
    for s in SQUARES
        .iter()
        .chain(&TRANSFORMER)
        .chain(&SKINNY)
        .chain(&ODD)
        .chain(&BATCHED)
    {
        if !v.contains(s) {
            v.push(*s);
        }
    }
    v
}

impl Shape {
    /// A single `m×n×k` product.
    pub const fn new(m: usize, n: usize, k: usize) -> Shape {
        sh(m, n, k)
    }

    /// FLOPs of one call: `2·m·n·k·batch`.
    pub fn flops(&self) -> u64 {
        2 * (self.m as u64) * (self.n as u64) * (self.k as u64) * (self.batch as u64)
    }

    /// The layout suffix: empty for `nn`, else `:nt`, `:tn` or `:tt`.
    pub fn layout_suffix(&self) -> &'static str {
        match (self.trans_a, self.trans_b) {
            (false, false) => "",
            (false, true) => ":nt",
            (true, false) => ":tn",
            (true, true) => ":tt",
        }
    }

    /// `MxNxK`, or `BATCH*MxNxK` when batched (also the criterion benchmark parameter), with the
    /// layout suffix (`:nt`, `:tn`, `:tt`) when an operand is transposed.
    pub fn label(&self) -> String {
        let t = self.layout_suffix();
        if self.batch == 1 {
            format!("{}x{}x{}{t}", self.m, self.n, self.k)
        } else {
            format!("{}*{}x{}x{}{t}", self.batch, self.m, self.n, self.k)
        }
    }

    /// A power-of-two square (the report adds f16 → f32 rows for these).
    pub fn is_pow2_square(&self) -> bool {
        self.batch == 1
            && !self.trans_a
            && !self.trans_b
            && self.m == self.n
            && self.n == self.k
            && self.m.is_power_of_two()
    }

    /// The tcgemm call: `alpha = 1`, `beta = 0`, packed, B transposed when `trans_b`.
    pub fn gemm(&self, precision: Precision) -> Gemm {
        Gemm::new(self.m, self.n, self.k)
            .batch(self.batch)
            .trans_a(self.trans_a)
            .trans_b(self.trans_b)
            .precision(precision)
    }

    /// Elements of A, B and C (all batch items).
    pub fn lens(&self) -> (usize, usize, usize) {
        (
            self.batch * self.m * self.k,
            self.batch * self.k * self.n,
            self.batch * self.m * self.n,
        )
    }

    /// Bytes of one (A, B, C) set.
    pub fn set_bytes(&self, input: Elem, output: Elem) -> usize {
        let (a, b, c) = self.lens();
        (a + b) * input.bytes() as usize + c * output.bytes() as usize
    }

    /// Parses `N` (N×N×N), `MxNxK` or `BATCH*MxNxK` (`x`, `X` or `×` between the sizes), with a
    /// layout suffix `:nn`, `:nt`, `:tn` or `:tt` (`t`: that operand stored transposed).
    pub fn parse(s: &str) -> Result<Shape, String> {
        let s = s.trim();
        let (s, trans_a, trans_b) = match s.rsplit_once(':') {
            Some((rest, "nn")) => (rest, false, false),
            Some((rest, "nt")) => (rest, false, true),
            Some((rest, "tn")) => (rest, true, false),
            Some((rest, "tt")) => (rest, true, true),
            Some((_, l)) => {
                return Err(format!("bad layout ':{l}' in '{s}': use nn, nt, tn or tt"))
            }
            None => (s, false, false),
        };
        let (batch, dims) = match s.split_once('*') {
            Some((b, rest)) => (
                b.trim()
                    .parse::<usize>()
                    .map_err(|e| format!("bad batch in '{s}': {e}"))?,
                rest,
            ),
            None => (1, s),
        };
        let d: Vec<usize> = dims
            .split(['x', 'X', '×'])
            .map(|d| d.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("bad size '{s}': {e}"))?;
        let shape = match *d.as_slice() {
            [n] => Shape {
                batch,
                m: n,
                n,
                k: n,
                trans_a,
                trans_b,
            },
            [m, n, k] => Shape {
                batch,
                m,
                n,
                k,
                trans_a,
                trans_b,
            },
            _ => return Err(format!("bad size '{s}': use N, MxNxK or BATCH*MxNxK")),
        };
        if shape.batch == 0 || shape.m == 0 || shape.n == 0 || shape.k == 0 {
            return Err(format!("bad size '{s}': every extent must be positive"));
        }
        Ok(shape)
    }

    /// Parses a comma list of shapes and presets (`squares`, `transformer`, `skinny`, `odd`,
    /// `batched`, `quick`, `all`), keeping the first of any duplicates.
    pub fn parse_list(list: &str) -> Result<Vec<Shape>, String> {
        let mut v: Vec<Shape> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let add: Vec<Shape> = match item.to_ascii_lowercase().as_str() {
                "squares" => SQUARES.to_vec(),
                "transformer" => TRANSFORMER.to_vec(),
                "skinny" => SKINNY.to_vec(),
                "odd" => ODD.to_vec(),
                "batched" => BATCHED.to_vec(),
                "quick" => QUICK.to_vec(),
                "all" => all_shapes(),
                _ => vec![Shape::parse(item)?],
            };
            for s in add {
                if !v.contains(&s) {
                    v.push(s);
                }
            }
        }
        Ok(v)
    }
}
