//! Shared helpers of tcgemm's integration tests.
//!
//! - [`gpu`] / [`gpu_sm80`]: one [`Context`] per test binary, or `None` (after printing
//!   `skipped: no CUDA GPU (<why>)`) when the machine has no usable CUDA device. With
//!   `TCGEMM_REQUIRE_GPU=1` a missing GPU panics instead, so a GPU run cannot pass by skipping.
//!   A device the library reports as unusable (`NoDevice`, `Unsupported`: older than sm_80) counts
//!   as no GPU; any other failure of `Context::new` on a present GPU always panics.
//! - [`Rng`]: PCG32, seeded from `TCGEMM_SEED` (decimal or `0x…`) or the clock; every failure
//!   message carries the seed, so `TCGEMM_SEED=<seed> cargo test <name>` replays the case.
//! - [`Problem`] + [`Case`]: host operands with padding, offsets, guards and poisoned C; an f64
//!   reference (full, or on a random sample of entries for big shapes); a device run; and
//!   [`Case::verify`], which checks the numbers (relative Frobenius error, NaN never passes) and
//!   that nothing outside the `m×n` windows of C was touched.
//!
//! Everything is generic over the element types (input `I`, output `O`) through [`TestElem`], and
//! the tolerance is passed in, so the TF32/FP16/BF16 suites can reuse it.
#![allow(dead_code)]

use std::fmt;
use std::panic::catch_unwind;
use std::sync::{Arc, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use tcgemm::{Context, ContextOptions, Element, Gemm, Precision};

// ---------------------------------------------------------------------------------------------
// GPU access
// ---------------------------------------------------------------------------------------------

/// `TCGEMM_REQUIRE_GPU=1`: a missing GPU fails the test instead of skipping it.
pub fn require_gpu() -> bool {
    std::env::var("TCGEMM_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1")
}

enum Init {
    Ready(Context),
    /// No usable CUDA device: skip (or fail under `TCGEMM_REQUIRE_GPU=1`).
    NoGpu(String),
    /// A device is present but the library failed on it: always a failure.
    Broken(String),
}

static GPU: OnceLock<Init> = OnceLock::new();
static GPU_SM80: OnceLock<Init> = OnceLock::new();

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_string()
    }
}

/// Whether a CUDA device is present, judged without tcgemm: `Err(why)` when not.
pub fn probe_device() -> Result<usize, String> {
    // SAFETY: only tries to dlopen libcuda.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("libcuda could not be loaded".into());
    }
    match catch_unwind(cudarc::driver::CudaContext::device_count) {
        Ok(Ok(n)) if n > 0 => Ok(n as usize),
        Ok(Ok(_)) => Err("the driver reports 0 devices".into()),
        Ok(Err(e)) => Err(format!("cuDeviceGetCount failed: {e}")),
        Err(p) => Err(format!("cuDeviceGetCount panicked: {}", panic_text(&*p))),
    }
}

fn init(opts: Option<ContextOptions>) -> Init {
    let n = match probe_device() {
        Ok(n) => n,
        Err(why) => return Init::NoGpu(why),
    };
    let sm80 = opts.as_ref().is_some_and(|o| o.force_sm80);
    let made = catch_unwind(|| match opts {
        None => Context::new(0),
        Some(o) => Context::with_options(0, o),
    });
    match made {
        Ok(Ok(ctx)) => {
            let caps = ctx.capabilities();
            println!(
                "tcgemm test context: {} (sm {:?}, {} SMs){}",
                caps.name,
                caps.compute_capability,
                caps.sm_count,
                if sm80 { ", force_sm80" } else { "" }
            );
            Init::Ready(ctx)
        }
        // No usable device after all (e.g. older than compute capability 8.0): skip like no GPU.
        Ok(Err(e @ (tcgemm::Error::NoDevice(_) | tcgemm::Error::Unsupported(_)))) => {
            Init::NoGpu(format!("device 0 is not usable: {e}"))
        }
        Ok(Err(e)) => Init::Broken(format!(
            "{n} CUDA device(s) present but creating the context failed: {e}"
        )),
        Err(p) => Init::Broken(format!(
            "{n} CUDA device(s) present but creating the context panicked: {}",
            panic_text(&*p)
        )),
    }
}

fn get(cell: &'static OnceLock<Init>, opts: Option<ContextOptions>) -> Option<&'static Context> {
    match cell.get_or_init(|| init(opts)) {
        Init::Ready(ctx) => Some(ctx),
        Init::Broken(why) => panic!("{why}"),
        Init::NoGpu(why) => {
            if require_gpu() {
                panic!("TCGEMM_REQUIRE_GPU=1 but no CUDA GPU is usable: {why}");
            }
            println!("skipped: no CUDA GPU ({why})");
            // libtest captures `println!` of passing tests; say it once per binary where a CI log
            // shows it (a direct write to the process's stderr is not captured).
            static TOLD: std::sync::Once = std::sync::Once::new();
            TOLD.call_once(|| {
                use std::io::Write as _;
                let exe = std::env::current_exe().ok();
                let name = exe
                    .as_deref()
                    .and_then(|p| p.file_stem())
                    .map_or_else(|| "tests".into(), |s| s.to_string_lossy().into_owned());
                // cargo names test binaries `<test>-<hash>`
                let name = name.rsplit_once('-').map_or(name.as_str(), |(t, _)| t).to_string();
                let _ = writeln!(
                    std::io::stderr(),
                    "{name}: GPU tests skipped: no CUDA GPU ({why}); TCGEMM_REQUIRE_GPU=1 makes this a failure"
                );
            });
            None
        }
    }
}

/// The default context on device 0 (shared by all tests of a binary), or `None` after printing a
/// skip line. Panics when `TCGEMM_REQUIRE_GPU=1` and there is no GPU.
pub fn gpu() -> Option<&'static Context> {
    get(&GPU, None)
}

/// A context on device 0 with `force_sm80`, so the Ampere code path runs on Hopper too.
pub fn gpu_sm80() -> Option<&'static Context> {
    get(
        &GPU_SM80,
        Some(ContextOptions {
            force_sm80: true,
            allow_tf32: None,
            ..Default::default()
        }),
    )
}

/// A fresh (uncached) context on device 0 with `opts`; `None` (after the skip line) without a GPU.
pub fn gpu_with_options(opts: ContextOptions) -> Option<Context> {
    gpu()?;
    let shown = format!("{opts:?}");
    match catch_unwind(|| Context::with_options(0, opts)) {
        Ok(Ok(ctx)) => Some(ctx),
        Ok(Err(e)) => panic!("Context::with_options(0, {shown}) failed: {e}"),
        Err(p) => panic!(
            "Context::with_options(0, {shown}) panicked: {}",
            panic_text(&*p)
        ),
    }
}

/// The default context and the `force_sm80` one (the same code path below Hopper; cheap either way
/// since the reference is shared). Empty (after the skip line) without a GPU.
pub fn gpu_all() -> Vec<(&'static str, &'static Context)> {
    let Some(ctx) = gpu() else { return Vec::new() };
    let mut v = vec![("default", ctx)];
    if let Some(c80) = gpu_sm80() {
        v.push(("force_sm80", c80));
    }
    v
}

// ---------------------------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------------------------

/// Whether kernel `name` can run `p` by name on `ctx`: it is loaded (the sm_90a kernels only on
/// compute capability 9.0), and a TMA kernel only where TMA's alignment rules hold
/// ([`Problem::tma_legal`]; dispatch sends other calls to the sm_80 kernels).
pub fn runs_by_name(
    ctx: &Context,
    name: &str,
    p: &Problem,
    in_bytes: usize,
    out_bytes: usize,
) -> bool {
    let Some(spec) = ctx.kernels().into_iter().find(|s| s.name == name) else {
        return false;
    };
    !tcgemm_kernels::config::uses_tma_params(spec) || p.tma_legal(in_bytes, out_bytes)
}

/// The base seed of this test binary: `TCGEMM_SEED` or the clock. Printed on every failure.
pub fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        if let Ok(s) = std::env::var("TCGEMM_SEED") {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|e| panic!("TCGEMM_SEED={s:?} is not a u64: {e}"))
        } else {
            let d = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            d.as_secs().wrapping_mul(1_000_000_007) ^ u64::from(d.subsec_nanos())
        }
    })
}

/// PCG32 (XSH-RR, 64-bit state), O'Neill 2014.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    inc: u64,
}

const PCG_MUL: u64 = 6_364_136_223_846_793_005;

impl Rng {
    /// A generator for `(seed, stream)`; different streams are independent sequences.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng {
            state: 0,
            inc: (stream << 1) | 1,
        };
        r.next_u32();
        r.state = r.state.wrapping_add(seed);
        r.next_u32();
        r
    }

    /// The generator of one test: the binary's [`seed`] and a stream derived from the test's name,
    /// so a test's cases do not depend on which other tests ran.
    pub fn for_test(name: &str) -> Rng {
        // FNV-1a of the name.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng::new(seed(), h)
    }

    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(PCG_MUL).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for the sizes used here).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[-1, 1]`, never zero: magnitude in `(0, 1]`, random sign.
    pub fn pm1(&mut self) -> f64 {
        let mag = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        if self.next_u32() & 1 == 0 {
            mag
        } else {
            -mag
        }
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------

/// What the tests need of an element type. Device buffers hold the raw bits (`Bits`) and are
/// reinterpreted as `Self` only for the call into tcgemm, so no cudarc `f16` feature is needed.
pub trait TestElem: Element + Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    type Bits: DeviceRepr
        + ValidAsZeroBits
        + Copy
        + Eq
        + fmt::Debug
        + fmt::LowerHex
        + Send
        + Sync
        + 'static;
    const NAME: &'static str;
    /// Written into C's `m×n` windows before a `beta == 0` run: a quiet NaN with a payload.
    const POISON: Self::Bits;
    /// Written everywhere outside the windows (ld padding, batch gaps, guards): another NaN.
    const SENTINEL: Self::Bits;
    /// Unit roundoff `u` (half the machine epsilon).
    const UNIT_ROUNDOFF: f64;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn to_bits(self) -> Self::Bits;
    fn from_bits(b: Self::Bits) -> Self;
}

impl TestElem for f32 {
    type Bits = u32;
    const NAME: &'static str = "f32";
    const POISON: u32 = 0x7fc0_dead;
    const SENTINEL: u32 = 0xffc5_a5a5;
    const UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;
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

impl TestElem for half::f16 {
    type Bits = u16;
    const NAME: &'static str = "f16";
    const POISON: u16 = 0x7e57;
    const SENTINEL: u16 = 0xfe5a;
    const UNIT_ROUNDOFF: f64 = 1.0 / 2048.0;
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
    fn to_bits(self) -> u16 {
        half::f16::to_bits(self)
    }
    fn from_bits(b: u16) -> Self {
        half::f16::from_bits(b)
    }
}

impl TestElem for half::bf16 {
    type Bits = u16;
    const NAME: &'static str = "bf16";
    const POISON: u16 = 0x7fd5;
    const SENTINEL: u16 = 0xffe5;
    const UNIT_ROUNDOFF: f64 = 1.0 / 256.0;
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
    fn to_bits(self) -> u16 {
        half::bf16::to_bits(self)
    }
    fn from_bits(b: u16) -> Self {
        half::bf16::from_bits(b)
    }
}

fn val<T: TestElem>(b: T::Bits) -> f64 {
    T::from_bits(b).to_f64()
}

/// A random value of `T` in `[-1, 1]` that is neither zero nor subnormal after rounding to `T`.
pub fn random_elem<T: TestElem>(rng: &mut Rng) -> T {
    loop {
        let v = T::from_f64(rng.pm1());
        if v.to_f64().abs() >= 1.0 / 4096.0 {
            return v;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Problem description
// ---------------------------------------------------------------------------------------------

/// Elements after the last operand element that are allocated, filled with the sentinel and
/// checked for writes (C) — catches overruns past the end of a view.
pub const GUARD: usize = 64;

/// One GEMM call, in the library's row-major convention. `None` leading dimensions and strides are
/// left to the library's defaults (packed), which the helpers mirror.
#[derive(Clone, Debug)]
pub struct Problem {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub trans_a: bool,
    pub trans_b: bool,
    pub lda: Option<usize>,
    pub ldb: Option<usize>,
    pub ldc: Option<usize>,
    pub batch: usize,
    pub stride_a: Option<usize>,
    pub stride_b: Option<usize>,
    pub stride_c: Option<usize>,
    pub alpha: f32,
    pub beta: f32,
    /// Elements between the start of the allocation and the operand's view (1 = misaligned base).
    pub offset_a: usize,
    pub offset_b: usize,
    pub offset_c: usize,
    pub precision: Precision,
}

/// Storage layout of one operand.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    pub stride: usize,
    pub batch: usize,
    pub offset: usize,
}

impl Layout {
    /// Elements the view must hold: from the first element of item 0 to the last element of the
    /// last item (no trailing ld padding on the last row).
    pub fn span(&self) -> usize {
        if self.batch == 0 || self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.batch - 1) * self.stride + (self.rows - 1) * self.ld + self.cols
        }
    }

    /// Span including the ld padding of the last row: a length every sane validator accepts.
    pub fn full_span(&self) -> usize {
        if self.batch == 0 || self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.batch - 1) * self.stride + self.rows * self.ld
        }
    }

    /// Index into the view (not the allocation) of element `(z, r, c)`.
    #[inline]
    pub fn at(&self, z: usize, r: usize, c: usize) -> usize {
        z * self.stride + r * self.ld + c
    }
}

impl Problem {
    /// `m×n×k`, no transposes, packed, batch 1, `alpha = 1`, `beta = 0`, default precision.
    pub fn new(m: usize, n: usize, k: usize) -> Problem {
        Problem {
            m,
            n,
            k,
            trans_a: false,
            trans_b: false,
            lda: None,
            ldb: None,
            ldc: None,
            batch: 1,
            stride_a: None,
            stride_b: None,
            stride_c: None,
            alpha: 1.0,
            beta: 0.0,
            offset_a: 0,
            offset_b: 0,
            offset_c: 0,
            precision: Precision::Default,
        }
    }

    pub fn trans(mut self, a: bool, b: bool) -> Problem {
        self.trans_a = a;
        self.trans_b = b;
        self
    }

    /// Leading dimensions `extra` elements longer than the stored rows.
    pub fn pad_ld(mut self, extra_a: usize, extra_b: usize, extra_c: usize) -> Problem {
        self.lda = Some(self.a_cols() + extra_a);
        self.ldb = Some(self.b_cols() + extra_b);
        self.ldc = Some(self.n + extra_c);
        self
    }

    pub fn scale(mut self, alpha: f32, beta: f32) -> Problem {
        self.alpha = alpha;
        self.beta = beta;
        self
    }

    pub fn batched(mut self, batch: usize) -> Problem {
        self.batch = batch;
        self
    }

    /// Batch strides `extra` elements longer than packed (`rows·ld`).
    pub fn pad_strides(mut self, extra_a: usize, extra_b: usize, extra_c: usize) -> Problem {
        self.stride_a = Some(self.a_rows() * self.eff_lda() + extra_a);
        self.stride_b = Some(self.b_rows() * self.eff_ldb() + extra_b);
        self.stride_c = Some(self.m * self.eff_ldc() + extra_c);
        self
    }

    pub fn offsets(mut self, a: usize, b: usize, c: usize) -> Problem {
        self.offset_a = a;
        self.offset_b = b;
        self.offset_c = c;
        self
    }

    pub fn precision(mut self, p: Precision) -> Problem {
        self.precision = p;
        self
    }

    /// Rows of A as stored (`k` when transposed).
    pub fn a_rows(&self) -> usize {
        if self.trans_a {
            self.k
        } else {
            self.m
        }
    }
    pub fn a_cols(&self) -> usize {
        if self.trans_a {
            self.m
        } else {
            self.k
        }
    }
    pub fn b_rows(&self) -> usize {
        if self.trans_b {
            self.n
        } else {
            self.k
        }
    }
    pub fn b_cols(&self) -> usize {
        if self.trans_b {
            self.k
        } else {
            self.n
        }
    }
    pub fn eff_lda(&self) -> usize {
        self.lda.unwrap_or(self.a_cols())
    }
    pub fn eff_ldb(&self) -> usize {
        self.ldb.unwrap_or(self.b_cols())
    }
    pub fn eff_ldc(&self) -> usize {
        self.ldc.unwrap_or(self.n)
    }

    /// Whether the Hopper TMA kernels accept this problem (`dispatch::kernel_accepts`): `k ≥ 1`,
    /// `alpha ≠ 0`, 16-byte aligned views, leading dimensions and (with several batch items) batch strides, for inputs of
    /// `in_bytes` and an output of `out_bytes`. Tests run those kernels by name only on such problems;
    /// dispatch sends the others to the sm_80 kernels, which every test also runs.
    pub fn tma_legal(&self, in_bytes: usize, out_bytes: usize) -> bool {
        let ok = |l: Layout, eb: usize| {
            (l.offset * eb) % 16 == 0
                && (l.ld * eb) % 16 == 0
                && (l.batch <= 1 || (l.stride * eb) % 16 == 0)
        };
        // the persistent TMA kernels also need a call that reads A and B
        self.k > 0
            && self.alpha != 0.0
            && ok(self.layout_a(), in_bytes)
            && ok(self.layout_b(), in_bytes)
            && ok(self.layout_c(), out_bytes)
    }

    pub fn layout_a(&self) -> Layout {
        let ld = self.eff_lda();
        Layout {
            rows: self.a_rows(),
            cols: self.a_cols(),
            ld,
            stride: self.stride_a.unwrap_or(self.a_rows() * ld),
            batch: self.batch,
            offset: self.offset_a,
        }
    }
    pub fn layout_b(&self) -> Layout {
        let ld = self.eff_ldb();
        Layout {
            rows: self.b_rows(),
            cols: self.b_cols(),
            ld,
            stride: self.stride_b.unwrap_or(self.b_rows() * ld),
            batch: self.batch,
            offset: self.offset_b,
        }
    }
    pub fn layout_c(&self) -> Layout {
        let ld = self.eff_ldc();
        Layout {
            rows: self.m,
            cols: self.n,
            ld,
            stride: self.stride_c.unwrap_or(self.m * ld),
            batch: self.batch,
            offset: self.offset_c,
        }
    }

    /// The library's descriptor of this call.
    pub fn gemm(&self) -> Gemm {
        let mut g = Gemm::new(self.m, self.n, self.k)
            .trans_a(self.trans_a)
            .trans_b(self.trans_b)
            .alpha(self.alpha)
            .beta(self.beta)
            .batch(self.batch)
            .precision(self.precision);
        if let Some(v) = self.lda {
            g = g.lda(v);
        }
        if let Some(v) = self.ldb {
            g = g.ldb(v);
        }
        if let Some(v) = self.ldc {
            g = g.ldc(v);
        }
        if let Some(v) = self.stride_a {
            g = g.stride_a(v);
        }
        if let Some(v) = self.stride_b {
            g = g.stride_b(v);
        }
        if let Some(v) = self.stride_c {
            g = g.stride_c(v);
        }
        g
    }

    /// `batch·m·n·k`, saturating.
    pub fn macs(&self) -> u128 {
        self.batch as u128 * self.m as u128 * self.n as u128 * self.k as u128
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (la, lb, lc) = (self.layout_a(), self.layout_b(), self.layout_c());
        write!(
            f,
            "m×n×k={}×{}×{} op={}{} ld=({},{},{}) batch={} strides=({},{},{}) alpha={:e} beta={:e} \
             offsets=({},{},{}) precision={:?}",
            self.m,
            self.n,
            self.k,
            if self.trans_a { 'T' } else { 'N' },
            if self.trans_b { 'T' } else { 'N' },
            la.ld,
            lb.ld,
            lc.ld,
            self.batch,
            la.stride,
            lb.stride,
            lc.stride,
            self.alpha,
            self.beta,
            self.offset_a,
            self.offset_b,
            self.offset_c,
            self.precision
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------

/// Above this many multiply-adds the reference is computed on a sample of entries only.
pub const FULL_REFERENCE_MAX_MACS: u128 = 1 << 31;
/// Entries checked (each a full-length f64 dot product) when sampling.
pub const SAMPLES: usize = 2048;

/// f64 reference values of the checked entries of C.
///
/// `mag` is the magnitude the rounding errors scale with, `|alpha|·‖a_i‖₂·‖b_j‖₂ + |beta|·|c_ij|`
/// (Cauchy–Schwarz bounds `Σ|a_ip·b_pj|` by `‖a_i‖‖b_j‖`); [`Case::verify`] uses it so that a
/// single entry that happens to cancel to ~0 cannot make a correct result fail.
pub struct Reference {
    /// `None`: every entry, in `(z, i, j)` row-major order; `Some`: the sampled entries.
    pub points: Option<Vec<(usize, usize, usize)>>,
    pub vals: Vec<f64>,
    pub mags: Vec<f64>,
}

impl Reference {
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// `(z, i, j)` of checked entry `t`.
    pub fn point(&self, t: usize, m: usize, n: usize) -> (usize, usize, usize) {
        match &self.points {
            Some(p) => p[t],
            None => (t / (m * n), (t / n) % m, t % n),
        }
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Host copy of a `Case`'s operands, enough to evaluate `alpha·op(A)·op(B) + beta·C`.
struct Operands<'a, I: TestElem, O: TestElem> {
    p: &'a Problem,
    a: &'a [I::Bits],
    b: &'a [I::Bits],
    c: &'a [O::Bits],
    la: Layout,
    lb: Layout,
    lc: Layout,
}

impl<I: TestElem, O: TestElem> Operands<'_, I, O> {
    /// `op(A)[z][i][p]`.
    #[inline]
    fn a(&self, z: usize, i: usize, p: usize) -> f64 {
        let l = &self.la;
        let idx = if self.p.trans_a {
            l.at(z, p, i)
        } else {
            l.at(z, i, p)
        };
        val::<I>(self.a[l.offset + idx])
    }

    /// `op(B)[z][p][j]`.
    #[inline]
    fn b(&self, z: usize, p: usize, j: usize) -> f64 {
        let l = &self.lb;
        let idx = if self.p.trans_b {
            l.at(z, j, p)
        } else {
            l.at(z, p, j)
        };
        val::<I>(self.b[l.offset + idx])
    }

    #[inline]
    fn c(&self, z: usize, i: usize, j: usize) -> f64 {
        val::<O>(self.c[self.lc.offset + self.lc.at(z, i, j)])
    }

    /// Whether the product term is present (BLAS: `alpha == 0` or `k == 0` do not read A, B).
    fn has_product(&self) -> bool {
        self.p.alpha != 0.0 && self.p.k > 0
    }

    /// Combines `dot` and norms into `(value, magnitude)` for entry `(z, i, j)`.
    #[inline]
    fn finish(&self, z: usize, i: usize, j: usize, dot: f64, norm_ab: f64) -> (f64, f64) {
        let alpha = f64::from(self.p.alpha);
        let beta = f64::from(self.p.beta);
        let (mut v, mut mag) = if self.has_product() {
            (alpha * dot, alpha.abs() * norm_ab)
        } else {
            (0.0, 0.0)
        };
        if beta != 0.0 {
            // beta == 0: C is never read (it holds NaN poison).
            let c = self.c(z, i, j);
            v += beta * c;
            mag += (beta * c).abs();
        }
        (v, mag)
    }

    fn sampled(&self, rng: &mut Rng) -> Reference {
        let p = self.p;
        let (m, n, k, batch) = (p.m, p.n, p.k, p.batch);
        let mut points = Vec::with_capacity(SAMPLES + 8);
        // The corners of the first and last batch items (edge tiles), then random entries.
        for z in [0, batch - 1] {
            for (i, j) in [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)] {
                points.push((z, i, j));
            }
        }
        while points.len() < SAMPLES {
            points.push((rng.below(batch), rng.below(m), rng.below(n)));
        }
        let chunk = points.len().div_ceil(threads());
        let mut vals = vec![0.0; points.len()];
        let mut mags = vec![0.0; points.len()];
        std::thread::scope(|s| {
            for ((pts, vs), ms) in points
                .chunks(chunk)
                .zip(vals.chunks_mut(chunk))
                .zip(mags.chunks_mut(chunk))
            {
                s.spawn(move || {
                    for (t, &(z, i, j)) in pts.iter().enumerate() {
                        let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
                        if self.has_product() {
                            for q in 0..k {
                                let (x, y) = (self.a(z, i, q), self.b(z, q, j));
                                dot += x * y;
                                na += x * x;
                                nb += y * y;
                            }
                        }
                        (vs[t], ms[t]) = self.finish(z, i, j, dot, (na * nb).sqrt());
                    }
                });
            }
        });
        Reference {
            points: Some(points),
            vals,
            mags,
        }
    }

    fn full(&self) -> Reference {
        let p = self.p;
        let (m, n, k, batch) = (p.m, p.n, p.k, p.batch);
        let total = batch * m * n;
        let mut vals = vec![0.0; total];
        let mut mags = vec![0.0; total];
        if total == 0 {
            return Reference {
                points: None,
                vals,
                mags,
            };
        }
        let prod = self.has_product();
        // Dense op(B) per batch item (k×n, f64) and its column norms.
        let dense_b: Vec<(Vec<f64>, Vec<f64>)> = (0..batch)
            .map(|z| {
                if !prod {
                    return (Vec::new(), vec![0.0; n]);
                }
                let mut d = vec![0.0; k * n];
                let mut norms = vec![0.0; n];
                for q in 0..k {
                    for j in 0..n {
                        let y = self.b(z, q, j);
                        d[q * n + j] = y;
                        norms[j] += y * y;
                    }
                }
                norms.iter_mut().for_each(|x| *x = x.sqrt());
                (d, norms)
            })
            .collect();
        let rows = batch * m;
        let rows_per = rows.div_ceil(threads());
        let dense_b = &dense_b;
        std::thread::scope(|s| {
            for (t, (vch, mch)) in vals
                .chunks_mut(rows_per * n)
                .zip(mags.chunks_mut(rows_per * n))
                .enumerate()
            {
                s.spawn(move || {
                    let mut arow = vec![0.0; k];
                    let mut acc = vec![0.0; n];
                    for (rr, (vrow, mrow)) in vch.chunks_mut(n).zip(mch.chunks_mut(n)).enumerate() {
                        let r = t * rows_per + rr;
                        let (z, i) = (r / m, r % m);
                        acc.fill(0.0);
                        let mut na = 0.0;
                        if prod {
                            let (bd, _) = &dense_b[z];
                            for (q, x) in arow.iter_mut().enumerate() {
                                *x = self.a(z, i, q);
                                na += *x * *x;
                            }
                            for (q, &x) in arow.iter().enumerate() {
                                let brow = &bd[q * n..(q + 1) * n];
                                for (sum, &y) in acc.iter_mut().zip(brow) {
                                    *sum += x * y;
                                }
                            }
                        }
                        let na = na.sqrt();
                        let bn = &dense_b[z].1;
                        for j in 0..n {
                            (vrow[j], mrow[j]) = self.finish(z, i, j, acc[j], na * bn[j]);
                        }
                    }
                });
            }
        });
        Reference {
            points: None,
            vals,
            mags,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/// One test case: host operands (whole allocations, including offsets, padding and guards), the
/// initial C and the reference.
pub struct Case<I: TestElem, O: TestElem> {
    pub label: String,
    pub p: Problem,
    pub a: Vec<I::Bits>,
    pub b: Vec<I::Bits>,
    /// C as uploaded before every run.
    pub c: Vec<O::Bits>,
    pub reference: Reference,
    /// View lengths passed to tcgemm.
    pub lens: (usize, usize, usize),
}

/// The outcome of a successful [`Case::verify`].
#[derive(Clone, Debug)]
pub struct Report {
    pub rel_fro: f64,
    pub max_abs: f64,
    pub checked: usize,
}

/// Allocation length for a view of `span` elements at `offset`, plus the guard.
fn alloc_len(offset: usize, span: usize) -> usize {
    offset + span + GUARD
}

/// Fills the `rows×cols` windows of every batch item (in a sentinel-filled allocation).
fn fill_windows<T: TestElem>(buf: &mut [T::Bits], l: &Layout, mut f: impl FnMut() -> T::Bits) {
    for z in 0..l.batch {
        for r in 0..l.rows {
            let start = l.offset + l.at(z, r, 0);
            for x in &mut buf[start..start + l.cols] {
                *x = f();
            }
        }
    }
}

impl<I: TestElem, O: TestElem> Case<I, O> {
    /// Random A and B (uniform in `[-1, 1]`, never zero); C poisoned when `beta == 0`, random
    /// otherwise; everything outside the windows set to the sentinel. Computes the reference.
    pub fn new(label: impl Into<String>, p: Problem, rng: &mut Rng) -> Self {
        Self::with_reference_limit(label, p, rng, FULL_REFERENCE_MAX_MACS)
    }

    /// [`Case::new`] with the full reference computed up to `full_max_macs` multiply-adds (and
    /// sampled, [`SAMPLES`] entries, above that) instead of [`FULL_REFERENCE_MAX_MACS`]: for suites
    /// of many cases (tests/property.rs) whose run time the CPU reference would dominate.
    pub fn with_reference_limit(
        label: impl Into<String>,
        p: Problem,
        rng: &mut Rng,
        full_max_macs: u128,
    ) -> Self {
        let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
        // View lengths: the tight span, or more when the library asks for more.
        let (mut len_a, mut len_b, mut len_c) = (la.span(), lb.span(), lc.span());
        if let Ok((ra, rb, rc)) = p.gemm().required_lens() {
            len_a = len_a.max(ra);
            len_b = len_b.max(rb);
            len_c = len_c.max(rc);
        }
        let mut a = vec![I::SENTINEL; alloc_len(la.offset, len_a)];
        let mut b = vec![I::SENTINEL; alloc_len(lb.offset, len_b)];
        let mut c = vec![O::SENTINEL; alloc_len(lc.offset, len_c)];
        fill_windows::<I>(&mut a, &la, || random_elem::<I>(rng).to_bits());
        fill_windows::<I>(&mut b, &lb, || random_elem::<I>(rng).to_bits());
        if p.beta == 0.0 {
            fill_windows::<O>(&mut c, &lc, || O::POISON);
        } else {
            fill_windows::<O>(&mut c, &lc, || random_elem::<O>(rng).to_bits());
        }
        let mut case = Case {
            label: label.into(),
            p,
            a,
            b,
            c,
            reference: Reference {
                points: None,
                vals: Vec::new(),
                mags: Vec::new(),
            },
            lens: (len_a, len_b, len_c),
        };
        case.reference = case.compute_reference(rng, full_max_macs);
        case
    }

    /// Makes every element of A and B (windows included) the sentinel NaN — for calls that must
    /// not read A and B (`alpha == 0`, `k == 0`). The reference does not depend on them then.
    pub fn poison_inputs(&mut self) {
        assert!(
            self.p.alpha == 0.0 || self.p.k == 0,
            "poison_inputs on a case that reads A and B"
        );
        self.a.fill(I::SENTINEL);
        self.b.fill(I::SENTINEL);
    }

    fn compute_reference(&self, rng: &mut Rng, full_max_macs: u128) -> Reference {
        let ops = Operands::<I, O> {
            p: &self.p,
            a: &self.a,
            b: &self.b,
            c: &self.c,
            la: self.p.layout_a(),
            lb: self.p.layout_b(),
            lc: self.p.layout_c(),
        };
        let p = &self.p;
        let empty = p.batch == 0 || p.m == 0 || p.n == 0;
        let big_b = p.batch as u128 * p.k as u128 * p.n as u128 > 1 << 27;
        if !empty && (p.macs() > full_max_macs || big_b) {
            ops.sampled(rng)
        } else {
            ops.full()
        }
    }

    /// Identifies the case in failure messages: label, problem, types and seed.
    pub fn describe(&self) -> String {
        format!(
            "case '{}' [{}→{}] {} (reference: {}) — replay with TCGEMM_SEED={}",
            self.label,
            I::NAME,
            O::NAME,
            self.p,
            if self.reference.points.is_some() {
                "sampled"
            } else {
                "full"
            },
            seed()
        )
    }

    /// Uploads the operands (whole allocations).
    pub fn upload(&self, stream: &Arc<CudaStream>) -> DeviceCase<I, O> {
        fn up<T: DeviceRepr>(
            stream: &Arc<CudaStream>,
            what: &str,
            host: &[T],
            case: &str,
        ) -> CudaSlice<T> {
            stream
                .clone_htod(host)
                .unwrap_or_else(|e| panic!("upload of {what} failed: {e:?}; {case}"))
        }
        let d = self.describe();
        let a = up(stream, "A", &self.a, &d);
        let b = up(stream, "B", &self.b, &d);
        let c = up(stream, "C", &self.c, &d);
        stream
            .synchronize()
            .unwrap_or_else(|e| panic!("synchronize after upload: {e:?}; {}", self.describe()));
        DeviceCase { a, b, c }
    }

    /// Restores the initial C on the device.
    pub fn reset_c(&self, stream: &Arc<CudaStream>, dev: &mut DeviceCase<I, O>) {
        stream
            .memcpy_htod(&self.c, &mut dev.c)
            .unwrap_or_else(|e| panic!("reset of C failed: {e:?}; {}", self.describe()));
    }

    /// Calls tcgemm on the device operands (asynchronous), optionally forcing a kernel by name.
    pub fn launch(
        &self,
        ctx: &Context,
        dev: &mut DeviceCase<I, O>,
        kernel: Option<&str>,
    ) -> tcgemm::Result<()> {
        let (len_a, len_b, len_c) = self.lens;
        let (oa, ob, oc) = (self.p.offset_a, self.p.offset_b, self.p.offset_c);
        let g = self.p.gemm();
        let av = dev.a.slice(oa..oa + len_a);
        let bv = dev.b.slice(ob..ob + len_b);
        let mut cv = dev.c.slice_mut(oc..oc + len_c);
        // SAFETY: `I::Bits`/`O::Bits` are the bit patterns of `I`/`O` (same size, any bits valid).
        let a = unsafe { av.transmute::<I>(len_a) }.expect("A view");
        let b = unsafe { bv.transmute::<I>(len_b) }.expect("B view");
        let mut c = unsafe { cv.transmute_mut::<O>(len_c) }.expect("C view");
        match kernel {
            None => ctx.gemm::<I, O, _, _, _>(&g, &a, &b, &mut c),
            Some(name) => ctx.gemm_with_kernel::<I, O, _, _, _>(name, &g, &a, &b, &mut c),
        }
        .map(drop)
    }

    /// Downloads the whole C allocation (synchronizing the stream).
    pub fn download(&self, stream: &Arc<CudaStream>, dev: &DeviceCase<I, O>) -> Vec<O::Bits> {
        let out = stream
            .clone_dtoh(&dev.c)
            .unwrap_or_else(|e| panic!("download of C failed: {e:?}; {}", self.describe()));
        stream
            .synchronize()
            .unwrap_or_else(|e| panic!("synchronize after GEMM: {e:?}; {}", self.describe()));
        out
    }

    /// Upload, one GEMM, download; panics (with the case) when tcgemm returns an error.
    pub fn run(&self, ctx: &Context) -> Vec<O::Bits> {
        self.run_with(ctx, None)
    }

    /// [`Case::run`] through a kernel forced by name.
    pub fn run_with(&self, ctx: &Context, kernel: Option<&str>) -> Vec<O::Bits> {
        let stream = ctx.stream();
        let mut dev = self.upload(stream);
        self.launch(ctx, &mut dev, kernel)
            .unwrap_or_else(|e| panic!("tcgemm returned an error: {e}; {}", self.describe()));
        self.download(stream, &dev)
    }

    /// Runs on `ctx` and verifies; returns the report. `ctx_name` goes into failure messages.
    pub fn run_and_verify(&self, ctx_name: &str, ctx: &Context, tol_rel_fro: f64) -> Report {
        let out = self.run(ctx);
        self.verify_on(ctx_name, &out, tol_rel_fro)
    }

    /// [`Case::verify`] with the context's name in the messages.
    pub fn verify_on(&self, ctx_name: &str, out: &[O::Bits], tol_rel_fro: f64) -> Report {
        match self.try_verify(out, tol_rel_fro) {
            Ok(r) => {
                println!(
                    "ok [{ctx_name}] {}: rel_fro={:.3e} (tol {:.3e}) max_abs={:.3e} over {} entries",
                    self.label, r.rel_fro, tol_rel_fro, r.max_abs, r.checked
                );
                r
            }
            Err(msg) => panic!("[{ctx_name}] {msg}\n  {}", self.describe()),
        }
    }

    /// Checks a downloaded C allocation; panics with the case description on failure.
    pub fn verify(&self, out: &[O::Bits], tol_rel_fro: f64) -> Report {
        self.verify_on("-", out, tol_rel_fro)
    }

    /// The checks of [`Case::verify`], returning the failure text instead of panicking:
    /// 1. nothing outside the `m×n` windows changed (ld padding, batch gaps, guards), bitwise;
    /// 2. with `beta == 0`, no poison is left in any window (every element was written);
    /// 3. no NaN/Inf in the checked entries, and
    ///    `‖out − ref‖₂ / max(‖ref‖₂, ‖mag‖₂ / (2·√max(k,1))) ≤ tol_rel_fro` over the checked
    ///    entries. For random data `‖mag‖ ≈ √k·‖ref‖`, so the second term (≈ ‖ref‖/2) only matters
    ///    when the checked entries cancel to nearly zero.
    pub fn try_verify(&self, out: &[O::Bits], tol_rel_fro: f64) -> Result<Report, String> {
        let p = &self.p;
        let lc = p.layout_c();
        if out.len() != self.c.len() {
            return Err(format!(
                "downloaded {} elements, expected {}",
                out.len(),
                self.c.len()
            ));
        }
        // Windows mask.
        let mut in_window = vec![false; out.len()];
        for z in 0..lc.batch {
            for i in 0..lc.rows {
                let s = lc.offset + lc.at(z, i, 0);
                in_window[s..s + lc.cols].fill(true);
            }
        }
        // 1. Outside the windows: untouched.
        let mut bad = Vec::new();
        let mut n_bad = 0usize;
        for (idx, (&o, &c0)) in out.iter().zip(&self.c).enumerate() {
            if !in_window[idx] && o != c0 {
                n_bad += 1;
                if bad.len() < 5 {
                    bad.push(format!(
                        "{} = {:#x} (was {:#x})",
                        self.where_in_c(idx),
                        o,
                        c0
                    ));
                }
            }
        }
        if n_bad > 0 {
            return Err(format!(
                "{n_bad} element(s) of C outside the m×n windows were modified, e.g. {}",
                bad.join("; ")
            ));
        }
        // 2. Every window element written (beta == 0: the poison must be gone).
        if p.beta == 0.0 {
            let mut left = 0usize;
            let mut first = None;
            for z in 0..lc.batch {
                for i in 0..lc.rows {
                    for j in 0..lc.cols {
                        if out[lc.offset + lc.at(z, i, j)] == O::POISON {
                            left += 1;
                            first.get_or_insert((z, i, j));
                        }
                    }
                }
            }
            if let Some((z, i, j)) = first {
                return Err(format!(
                    "{left} element(s) of C were not written (poison left), first at batch {z} row {i} col {j}"
                ));
            }
        }
        // 3. Numbers.
        let r = &self.reference;
        let (mut err2, mut ref2, mut mag2, mut max_abs) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut worst: Option<(usize, f64, f64)> = None;
        for t in 0..r.len() {
            let (z, i, j) = r.point(t, p.m, p.n);
            let got = val::<O>(out[lc.offset + lc.at(z, i, j)]);
            let want = r.vals[t];
            if !got.is_finite() {
                return Err(format!(
                    "non-finite output {got} at batch {z} row {i} col {j} (reference {want:e}, bits {:#x})",
                    out[lc.offset + lc.at(z, i, j)]
                ));
            }
            let e = (got - want).abs();
            err2 += e * e;
            ref2 += want * want;
            mag2 += r.mags[t] * r.mags[t];
            if worst.is_none() || e > max_abs {
                max_abs = e;
                worst = Some((t, got, want));
            }
        }
        let denom = ref2
            .sqrt()
            .max(mag2.sqrt() / (2.0 * (p.k.max(1) as f64).sqrt()));
        let err = err2.sqrt();
        let rel_fro = if denom > 0.0 {
            err / denom
        } else if err == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        let report = Report {
            rel_fro,
            max_abs,
            checked: r.len(),
        };
        if rel_fro.is_nan() || rel_fro > tol_rel_fro {
            let w = match worst {
                Some((t, got, want)) => {
                    let (z, i, j) = r.point(t, p.m, p.n);
                    format!("worst at batch {z} row {i} col {j}: got {got:e}, want {want:e}, |err| {max_abs:e}")
                }
                None => "no entries".into(),
            };
            return Err(format!(
                "relative Frobenius error {rel_fro:.3e} > tolerance {tol_rel_fro:.3e} over {} entries; {w}",
                r.len()
            ));
        }
        Ok(report)
    }

    /// Describes an index into the C allocation for messages.
    pub fn where_in_c(&self, idx: usize) -> String {
        let lc = self.p.layout_c();
        if idx < lc.offset {
            return format!("C[{idx}] (before the view)");
        }
        let rel = idx - lc.offset;
        if rel >= self.lens.2 {
            return format!("C[{idx}] (guard after the view, +{})", rel - self.lens.2);
        }
        let (z, within) = match rel.checked_div(lc.stride) {
            Some(z) => (z, rel % lc.stride),
            None => (0, rel),
        };
        let (r, c) = (within / lc.ld.max(1), within % lc.ld.max(1));
        if z < lc.batch && r < lc.rows {
            format!("C[{idx}] (ld padding: batch {z} row {r} col {c})")
        } else {
            format!("C[{idx}] (gap after batch item {z})")
        }
    }
}

/// Device copies of a case's allocations.
pub struct DeviceCase<I: TestElem, O: TestElem> {
    pub a: CudaSlice<I::Bits>,
    pub b: CudaSlice<I::Bits>,
    pub c: CudaSlice<O::Bits>,
}

// ---------------------------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------------------------

/// The four transpose combinations `(trans_a, trans_b)`: nn, nt, tn, tt.
#[allow(dead_code)] // not every test binary uses every helper
pub const TRANS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

/// The layout's name as in kernel names: `nn`, `nt`, `tn`, `tt`.
#[allow(dead_code)]
pub fn lay(ta: bool, tb: bool) -> &'static str {
    match (ta, tb) {
        (false, false) => "nn",
        (false, true) => "nt",
        (true, false) => "tn",
        (true, true) => "tt",
    }
}

// ---------------------------------------------------------------------------------------------
// Tolerances (one definition for every suite; the derivations are here)
// ---------------------------------------------------------------------------------------------

/// FP32 (FFMA): tolerance on the relative Frobenius error of results with inner dimension `k`.
///
/// Each entry is `alpha·Σ_p a_ip·b_pj (+ beta·c_ij)` evaluated with `k` fused multiply-adds in f32
/// plus at most two roundings for alpha and beta: `k + 2` roundings, each at most `u = 2⁻²⁴`
/// relative to the running value. For inputs uniform in `[-1, 1]` the rounding errors of the
/// running sum are independent, the partial sums have rms `√(p/9)`, so the error of an entry has
/// rms `≈ u·√(Σ_p p/27) ≈ u·k/√54` against an rms entry of `√k/3`: a relative error of
/// `≈ 0.41·u·√k ≈ 2.4e-8·√k`. The bound `1e-5·√(k/1024) ≈ 3.1e-7·√k` is ~13× that, leaving room
/// for a different summation order (split-k, per-thread partial sums) and the alpha/beta roundings,
/// and nothing more: an error of one ulp of a partial product missing per entry already exceeds
/// it. For `k ≲ 9` this drops below the level of the few roundings themselves, so it is floored
/// at `16·u ≈ 9.5e-7`: `k + 2 ≤ 11` roundings adding in quadrature give `√11·u·√k` relative to the
/// magnitude the verifier normalises by, i.e. at most ~10·u.
pub fn tol_fp32(k: usize) -> f64 {
    let u = f64::from(f32::EPSILON) / 2.0;
    (1e-5 * (k.max(1) as f64 / 1024.0).sqrt()).max(16.0 * u)
}

/// f16/bf16 inputs with f32 accumulation in the tensor core. Products of two 16-bit values are
/// exact in f32; the adder aligns and may truncate, so the random-walk estimate `2⁻²⁴·√k` gets a
/// 16× margin, floored like [`tol_fp32`].
pub fn tol_f32_acc(k: usize) -> f64 {
    let u = f64::from(f32::EPSILON) / 2.0;
    (16.0 * u * (k.max(1) as f64).sqrt()).max(16.0 * u)
}

/// The rounding of a 16-bit output (`2u`, about 3.5σ of a term that concentrates over all entries);
/// 0 for f32 output.
pub fn tol_out<O: TestElem>() -> f64 {
    if O::NAME == "f32" {
        0.0
    } else {
        2.0 * O::UNIT_ROUNDOFF
    }
}

/// f16/bf16 inputs, f32 accumulation, output `O`: [`tol_f32_acc`] + [`tol_out`].
pub fn tol_16<O: TestElem>(k: usize) -> f64 {
    tol_f32_acc(k) + tol_out::<O>()
}

/// f16 accumulation (`Precision::F16Accumulate`), f16 output. The tensor core rounds the accumulator
/// to f16 (`u = 2⁻¹¹`) once per m16n8k16 instruction, i.e. after every 16 products: `k/16` roundings
/// of partial sums whose rms after `t` steps is `√(16t)/3`. Summing the independent rounding errors
/// (variance `u²/3` each, relative to the partial sum) gives a relative error of the final entry
/// `≈ 0.10·u·√k`; the bound takes 8× that plus `2u` for the final output rounding.
pub fn tol_acc16(k: usize) -> f64 {
    let u = 1.0 / 2048.0;
    u * (0.8 * (k.max(1) as f64).sqrt() + 2.0)
}

/// TF32's unit roundoff (10 stored mantissa bits).
pub const U_TF32: f64 = 1.0 / 2048.0;

/// TF32 relative Frobenius bound (the issue's; 5× the expected `≈ 0.82·u`, see tests/tf32.rs).
pub const TOL_TF32_FRO: f64 = 2e-3;

/// TF32 per-entry bound over the reference's entries:
/// `|out − ref| ≤ |alpha|·3·u·√k + 2⁻²⁰·(|ref| + |beta·c|)` (derivation in tests/tf32.rs). A NaN
/// is never within it. Returns the first entry outside.
pub fn tf32_entry_errors(case: &Case<f32, f32>, out: &[u32]) -> Result<(), String> {
    let p = &case.p;
    let lc = p.layout_c();
    let r = &case.reference;
    let sk = (p.k.max(1) as f64).sqrt();
    for t in 0..r.len() {
        let (z, i, j) = r.point(t, p.m, p.n);
        let idx = lc.offset + lc.at(z, i, j);
        let got = f32::from_bits(out[idx]) as f64;
        let want = r.vals[t];
        let c0 = if p.beta == 0.0 {
            0.0
        } else {
            (f32::from_bits(case.c[idx]) as f64 * p.beta as f64).abs()
        };
        let bound =
            (p.alpha as f64).abs() * 3.0 * U_TF32 * sk + (want.abs() + c0) * (2f64).powi(-20);
        if (got - want).abs() > bound || got.is_nan() {
            return Err(format!(
                "entry (z={z}, i={i}, j={j}): got {got:e}, want {want:e}, |err| {:e} > bound {bound:e}",
                (got - want).abs()
            ));
        }
    }
    Ok(())
}
