//! What the benchmarks and measuring tools run: the GEMM [`Path`]s (element types and arithmetic)
//! and the [`Shape`]s, with the one shape list of the criterion bench and `bench_report`.

use cudarc::cublas::sys::cublasComputeType_t;
use tcgemm::{Elem, Gemm, KernelSpec, Math, Precision};
use tcgemm_kernels::config::Role;

use crate::problem::Problem;

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
///
/// ```
/// use tcgemm_testkit::Shape;
/// let s = Shape::parse("1000*64x64x64").unwrap();
/// assert_eq!((s.batch, s.label()), (1000, "1000*64x64x64".to_string()));
/// assert_eq!(Shape::parse_list("quick,4096").unwrap().len(), 2);
/// ```
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

/// Tokens (M) of the LLM-decode suite.
pub const DECODE_TOKENS: [usize; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// `(N, K)` of the LLM-decode suite's layers: an 8B-class model's attention (4096, 4096), MLP
/// up/gate (14336, 4096) and down (4096, 14336); a 70B-class model's MLP up/gate (28672, 8192);
/// the vocabulary projection (128256, 4096).
pub const DECODE_LAYERS: [(usize, usize); 5] = [
    (4096, 4096),
    (14336, 4096),
    (4096, 14336),
    (28672, 8192),
    (128256, 4096),
];

/// LLM decode: every [`DECODE_TOKENS`] × [`DECODE_LAYERS`], the weights (B) stored `k×n` (`nn`)
/// and `n×k` (`nt`). Not in [`all_shapes`]: ask for it (`--shapes decode`). The products also in
/// another suite (16×4096×4096, 128×4096×4096) report under that suite.
///
/// ```
/// assert_eq!(tcgemm_testkit::shapes::decode().len(), 90);
/// ```
pub fn decode() -> Vec<Shape> {
    let mut v = Vec::new();
    for &(n, k) in &DECODE_LAYERS {
        for &m in &DECODE_TOKENS {
            let s = sh(m, n, k);
            v.push(s);
            v.push(Shape { trans_b: true, ..s });
        }
    }
    v
}

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
///
/// ```
/// assert_eq!(tcgemm_testkit::all_shapes().len(), 18);
/// ```
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

    /// The suite of the report this shape belongs to (`squares`, `transformer`, `skinny`, `odd`,
    /// `batched`, `decode`; `other` for a shape named on the command line), whatever its layout.
    ///
    /// ```
    /// use tcgemm_testkit::Shape;
    /// assert_eq!(Shape::parse("4096:nt").unwrap().suite(), "squares");
    /// assert_eq!(Shape::new(1, 128256, 4096).suite(), "decode");
    /// assert_eq!(Shape::new(3, 5, 7).suite(), "other");
    /// ```
    pub fn suite(&self) -> &'static str {
        let plain = Shape {
            trans_a: false,
            trans_b: false,
            ..*self
        };
        let suites: [(&'static str, &[Shape]); 5] = [
            ("squares", &SQUARES),
            ("transformer", &TRANSFORMER),
            ("skinny", &SKINNY),
            ("odd", &ODD),
            ("batched", &BATCHED),
        ];
        let decode =
            || DECODE_LAYERS.contains(&(self.n, self.k)) && DECODE_TOKENS.contains(&self.m);
        suites
            .iter()
            .find(|(_, list)| list.contains(&plain))
            .map(|(name, _)| *name)
            .or_else(|| (self.batch == 1 && decode()).then_some("decode"))
            .unwrap_or("other")
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

    /// The call as a test [`Problem`]: packed, `alpha = 1`, `beta = 0`, default precision (for
    /// its layouts and the reference).
    ///
    /// ```
    /// let s = tcgemm_testkit::Shape::parse("3*64x32x16:nt").unwrap();
    /// assert_eq!(s.problem().layout_b().rows, 32);
    /// ```
    pub fn problem(&self) -> Problem {
        Problem::new(self.m, self.n, self.k)
            .trans(self.trans_a, self.trans_b)
            .batched(self.batch)
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
    /// `batched`, `decode`, `quick`, `all`), keeping the first of any duplicates.
    pub fn parse_list(list: &str) -> Result<Vec<Shape>, String> {
        let mut v: Vec<Shape> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let add: Vec<Shape> = match item.to_ascii_lowercase().as_str() {
                "squares" => SQUARES.to_vec(),
                "transformer" => TRANSFORMER.to_vec(),
                "skinny" => SKINNY.to_vec(),
                "odd" => ODD.to_vec(),
                "batched" => BATCHED.to_vec(),
                "decode" => decode(),
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
