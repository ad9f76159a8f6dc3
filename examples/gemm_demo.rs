//! tcgemm's main job, end to end: multiply on GPU 0, time it, check it, and compare with cuBLAS.
//!
//! ```text
//! cargo run --release --example gemm_demo                       # f32: 1024³, 4096³, 8192³, 1921×1023×517
//! cargo run --release --example gemm_demo -- --precision tf32 2048 1000x3000x500
//! cargo run --release --example gemm_demo -- --sizes 4096,8192 --precision f16 --out f32
//! ```
//!
//! For every shape (`N` = `N×N×N`, or `MxNxK`): C = A·B (row-major, no transposes, `alpha = 1`,
//! `beta = 0`) with inputs uniform in `[-1, 1]`. Timing: warm-up runs, then the median of
//! `--iters` runs, each bracketed by CUDA events on the context's stream; the runs rotate through
//! enough input/output buffer sets (at least 3, and at least twice the L2 size) that L2 does not
//! hold the operands from one run to the next. TFLOPS = 2·m·n·k / time. The error is the relative
//! Frobenius error of C against an f64 CPU reference on a sample of entries, each a full-length dot
//! product. When libcublas loads, cuBLAS runs the same product on the same buffers in the same
//! process (row-major via the column-major identity Cᵀ = Bᵀ·Aᵀ). A precision or shape tcgemm does not
//! support yet prints `unsupported: ...` for that row. Exits 2 without a GPU, 1 when a row failed.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Arc;

use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::cublas::{CudaBlas, Gemm as _, GemmConfig};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use half::{bf16, f16};
use tcgemm::{Context, Element, Error, Gemm, Precision};

const USAGE: &str = "\
usage: gemm_demo [--precision f32|tf32|f16|bf16] [--out same|f32] [--sizes S,S,...] [--iters N]
                 [--warmup N] [--samples N] [--device N] [S ...]
  S: N (an N×N×N product) or MxNxK.   default sizes: 1024 4096 8192 1921x1023x517
  --out f32: f16/bf16 inputs with an f32 output (default: output type = input type)";

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prec {
    F32,
    Tf32,
    F16,
    Bf16,
}

impl Prec {
    fn name(self) -> &'static str {
        match self {
            Prec::F32 => "f32",
            Prec::Tf32 => "tf32",
            Prec::F16 => "f16",
            Prec::Bf16 => "bf16",
        }
    }
}

struct Args {
    sizes: Vec<(usize, usize, usize)>,
    prec: Prec,
    out_f32: bool,
    iters: usize,
    warmup: usize,
    samples: usize,
    device: usize,
}

fn parse_size(s: &str) -> Result<(usize, usize, usize), String> {
    let dims: Result<Vec<usize>, _> = s
        .split(['x', 'X', '×'])
        .map(|d| d.trim().parse::<usize>())
        .collect();
    match *dims.map_err(|e| format!("bad size '{s}': {e}"))?.as_slice() {
        [n] => Ok((n, n, n)),
        [m, n, k] => Ok((m, n, k)),
        _ => Err(format!("bad size '{s}': use N or MxNxK")),
    }
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        sizes: Vec::new(),
        prec: Prec::F32,
        out_f32: false,
        iters: 10,
        warmup: 3,
        samples: 1024,
        device: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        let number =
            |v: String, name: &str| v.parse::<usize>().map_err(|e| format!("{name} {v}: {e}"));
        match flag.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--precision" | "-p" => {
                a.prec = match value("--precision")?.to_ascii_lowercase().as_str() {
                    "f32" | "fp32" => Prec::F32,
                    "tf32" => Prec::Tf32,
                    "f16" | "fp16" | "half" => Prec::F16,
                    "bf16" => Prec::Bf16,
                    other => {
                        return Err(format!(
                            "unknown precision '{other}' (f32, tf32, f16, bf16)"
                        ))
                    }
                }
            }
            "--out" => {
                a.out_f32 = match value("--out")?.as_str() {
                    "f32" => true,
                    "same" => false,
                    other => return Err(format!("--out {other}: use same or f32")),
                }
            }
            "--sizes" => {
                for s in value("--sizes")?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                {
                    a.sizes.push(parse_size(s.trim())?);
                }
            }
            "--iters" => a.iters = number(value("--iters")?, "--iters")?.max(1),
            "--warmup" => a.warmup = number(value("--warmup")?, "--warmup")?,
            "--samples" => a.samples = number(value("--samples")?, "--samples")?.max(1),
            "--device" => a.device = number(value("--device")?, "--device")?,
            s if s.starts_with('-') => return Err(format!("unknown option '{s}'")),
            s => a.sizes.push(parse_size(s)?),
        }
    }
    if a.sizes.is_empty() {
        a.sizes = vec![
            (1024, 1024, 1024),
            (4096, 4096, 4096),
            (8192, 8192, 8192),
            (1921, 1023, 517),
        ];
    }
    if a.out_f32 && matches!(a.prec, Prec::F32 | Prec::Tf32) {
        a.out_f32 = false;
    }
    Ok(a)
}

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------

trait El: Element + cudarc::driver::ValidAsZeroBits + Default {
    const CUDA: cudaDataType;
    fn from_f64(v: f64) -> Self;
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

struct Pcg(u64, u64);

impl Pcg {
    fn new(seed: u64, stream: u64) -> Pcg {
        let mut r = Pcg(0, (stream << 1) | 1);
        r.next();
        r.0 = r.0.wrapping_add(seed);
        r.next();
        r
    }
    fn next(&mut self) -> u32 {
        let old = self.0;
        self.0 = old
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(self.1);
        ((((old >> 18) ^ old) >> 27) as u32).rotate_right((old >> 59) as u32)
    }
    /// Uniform in `[-1, 1]`, magnitude at least 2⁻¹² (never zero in any of the element types).
    fn pm1(&mut self) -> f64 {
        let mag = (f64::from(self.next() >> 8) + 1.0) / f64::from(1u32 << 24);
        let mag = mag.max(1.0 / 4096.0);
        if self.next() & 1 == 0 {
            mag
        } else {
            -mag
        }
    }
}

/// `len` random elements, filled in parallel (one PCG stream per chunk).
fn random_vec<T: El>(len: usize, seed: u64) -> Vec<T> {
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
// cuBLAS
// ---------------------------------------------------------------------------------------------

/// Loads cuBLAS on `stream`, or says why it cannot.
fn load_cublas(stream: &Arc<CudaStream>) -> Result<CudaBlas, String> {
    // SAFETY: only tries to dlopen libcublas.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err("libcublas could not be loaded".into());
    }
    match catch_unwind(AssertUnwindSafe(|| CudaBlas::new(stream.clone()))) {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(e)) => Err(format!("cublasCreate failed: {e:?}")),
        Err(p) => Err(format!(
            "loading cuBLAS panicked: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        )),
    }
}

/// Row-major `C[m×n] = A[m×k]·B[k×n]` through cuBLAS (column-major): `Cᵀ = Bᵀ·Aᵀ`, i.e. a
/// column-major `n×m×k` product of B (ld n) and A (ld k) into C (ld n).
fn cublas_gemm<I: El, O: El>(
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    prec: Prec,
    (m, n, k): (usize, usize, usize),
    a: &CudaSlice<I>,
    b: &CudaSlice<I>,
    c: &mut CudaSlice<O>,
) -> Result<(), String> {
    let (mi, ni, ki) = (to_i32(m)?, to_i32(n)?, to_i32(k)?);
    if prec == Prec::F32 {
        // f32 with the default math mode: no TF32.
        let cfg = GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_N,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: ni,
            n: mi,
            k: ki,
            alpha: 1.0f32,
            lda: ni,
            ldb: ki,
            beta: 0.0f32,
            ldc: ni,
        };
        // SAFETY: the buffers are f32 (checked by the caller through `prec`), of m·k, k·n and m·n
        // elements, matching the dimensions and leading dimensions above.
        let (a, b) = unsafe { (a.transmute::<f32>(m * k), b.transmute::<f32>(k * n)) };
        let mut c = unsafe { c.transmute_mut::<f32>(m * n) }.ok_or("C is not f32")?;
        let (a, b) = (a.ok_or("A is not f32")?, b.ok_or("B is not f32")?);
        return unsafe { blas.gemm(cfg, &b, &a, &mut c) }
            .map_err(|e| format!("cublasSgemm: {e:?}"));
    }
    let compute = if prec == Prec::Tf32 {
        cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
    } else {
        cublasComputeType_t::CUBLAS_COMPUTE_32F
    };
    let (alpha, beta) = (1.0f32, 0.0f32);
    let (pa, _ga) = a.device_ptr(stream);
    let (pb, _gb) = b.device_ptr(stream);
    let (pc, _gc) = c.device_ptr_mut(stream);
    // SAFETY: device pointers of live buffers of m·k (A), k·n (B) and m·n (C) elements of the
    // declared types; scalars are host f32, as CUBLAS_COMPUTE_32F* requires.
    unsafe {
        cudarc::cublas::result::gemm_ex(
            *blas.handle(),
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            ni,
            mi,
            ki,
            (&alpha as *const f32).cast::<c_void>(),
            pb as *const c_void,
            I::CUDA,
            ni,
            pa as *const c_void,
            I::CUDA,
            ki,
            (&beta as *const f32).cast::<c_void>(),
            pc as *mut c_void,
            O::CUDA,
            ni,
            compute,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    }
    .map_err(|e| format!("cublasGemmEx: {e:?}"))
}

fn to_i32(v: usize) -> Result<i32, String> {
    i32::try_from(v).map_err(|_| format!("{v} does not fit cuBLAS's int"))
}

// ---------------------------------------------------------------------------------------------
// One shape
// ---------------------------------------------------------------------------------------------

/// Timing and accuracy of one implementation on one shape.
#[derive(Default, Clone)]
struct Measured {
    ms: f64,
    tflops: f64,
    rel_err: f64,
}

struct Row {
    shape: (usize, usize, usize),
    kernel: String,
    ours: Result<Measured, String>,
    blas: Result<Measured, String>,
}

/// The device buffers of one run: `sets` rotating (A, B, C) triples.
/// Host inputs of set 0 (for the reference) and the device sets.
struct Buffers<I: El, O: El> {
    ha: Vec<I>,
    hb: Vec<I>,
    a: Vec<CudaSlice<I>>,
    b: Vec<CudaSlice<I>>,
    c: Vec<CudaSlice<O>>,
}

/// Random inputs (uploaded once, copied on the device to the other sets) and zeroed outputs,
/// enough sets that together they span at least twice the L2 (and at least 3).
fn setup<I: El, O: El>(
    ctx: &Context,
    (m, n, k): (usize, usize, usize),
) -> Result<Buffers<I, O>, String> {
    let stream = ctx.stream();
    let bytes = (m * k + k * n) * std::mem::size_of::<I>() + m * n * std::mem::size_of::<O>();
    let l2 = ctx.capabilities().l2_bytes as usize;
    let sets = (2 * l2).div_ceil(bytes).clamp(3, 64);
    let ha = random_vec::<I>(m * k, 1);
    let hb = random_vec::<I>(k * n, 2);
    let da = stream
        .clone_htod(&ha)
        .map_err(|e| format!("upload A: {e}"))?;
    let db = stream
        .clone_htod(&hb)
        .map_err(|e| format!("upload B: {e}"))?;
    let mut bufs = Buffers {
        ha,
        hb,
        a: vec![da],
        b: vec![db],
        c: Vec::new(),
    };
    for s in 0..sets {
        if s > 0 {
            let mut a = stream
                .alloc_zeros::<I>(m * k)
                .map_err(|e| format!("alloc A: {e}"))?;
            let mut b = stream
                .alloc_zeros::<I>(k * n)
                .map_err(|e| format!("alloc B: {e}"))?;
            stream
                .memcpy_dtod(&bufs.a[0], &mut a)
                .map_err(|e| format!("copy A: {e}"))?;
            stream
                .memcpy_dtod(&bufs.b[0], &mut b)
                .map_err(|e| format!("copy B: {e}"))?;
            bufs.a.push(a);
            bufs.b.push(b);
        }
        bufs.c.push(
            stream
                .alloc_zeros::<O>(m * n)
                .map_err(|e| format!("alloc C: {e}"))?,
        );
    }
    stream
        .synchronize()
        .map_err(|e| format!("synchronize: {e}"))?;
    Ok(bufs)
}

/// Sampled reference check of a downloaded C: relative Frobenius error over `samples` entries.
fn sampled_error<I: El, O: El>(
    ha: &[I],
    hb: &[I],
    c: &[O],
    (m, n, k): (usize, usize, usize),
    samples: usize,
) -> f64 {
    let mut r = Pcg::new(0x5eed, 99);
    let (mut e2, mut r2) = (0.0f64, 0.0f64);
    for s in 0..samples {
        // Corners first (edge tiles), then random entries.
        let (i, j) = match s {
            0 => (0, 0),
            1 => (m - 1, n - 1),
            2 => (0, n - 1),
            3 => (m - 1, 0),
            _ => (
                (r.next() as usize * 65_536 + r.next() as usize % 65_536) % m,
                r.next() as usize % n,
            ),
        };
        let want: f64 = (0..k)
            .map(|q| ha[i * k + q].to_f64() * hb[q * n + j].to_f64())
            .sum();
        let got = c[i * n + j].to_f64();
        if !got.is_finite() {
            return f64::INFINITY;
        }
        e2 += (got - want).powi(2);
        r2 += want * want;
    }
    if r2 > 0.0 {
        (e2 / r2).sqrt()
    } else {
        e2.sqrt()
    }
}

/// Fills C with NaN before a checked run, so an entry the implementation did not write fails the
/// error check instead of showing the previous run's result.
fn poison<O: El>(stream: &Arc<CudaStream>, c: &mut CudaSlice<O>) -> Result<(), String> {
    let nan = vec![O::from_f64(f64::NAN); c.len()];
    stream
        .memcpy_htod(&nan, c)
        .and_then(|()| stream.synchronize())
        .map_err(|e| format!("poisoning C: {e}"))
}

/// Median of the times (ms) of `iters` launches of `launch(set)`, after `warmup` launches.
fn time_runs(
    ctx: &Context,
    sets: usize,
    warmup: usize,
    iters: usize,
    mut launch: impl FnMut(usize) -> Result<(), String>,
) -> Result<f64, String> {
    let stream = ctx.stream();
    for w in 0..warmup {
        launch(w % sets)?;
    }
    let cuda = ctx.cuda();
    // Timing-enabled events: `new_event(None)` would create them with timing disabled.
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let mut events = Vec::with_capacity(iters);
    for r in 0..iters {
        let start = cuda.new_event(flags).map_err(|e| format!("event: {e}"))?;
        let end = cuda.new_event(flags).map_err(|e| format!("event: {e}"))?;
        start.record(stream).map_err(|e| format!("record: {e}"))?;
        launch((warmup + r) % sets)?;
        end.record(stream).map_err(|e| format!("record: {e}"))?;
        events.push((start, end));
    }
    stream
        .synchronize()
        .map_err(|e| format!("synchronize: {e}"))?;
    let mut ms: Vec<f64> = events
        .iter()
        .map(|(s, e)| {
            s.elapsed_ms(e)
                .map(f64::from)
                .map_err(|e| format!("elapsed: {e}"))
        })
        .collect::<Result<_, _>>()?;
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}

fn bench<I: El, O: El>(
    ctx: &Context,
    blas: Option<&CudaBlas>,
    args: &Args,
    shape: (usize, usize, usize),
) -> Row {
    let (m, n, k) = shape;
    let precision = match args.prec {
        Prec::F32 => Precision::Exact,
        Prec::Tf32 => Precision::Tf32,
        Prec::F16 | Prec::Bf16 => Precision::Default,
    };
    let g = Gemm::new(m, n, k).precision(precision);
    let mut row = Row {
        shape,
        kernel: String::new(),
        ours: Err(String::new()),
        blas: Err(String::new()),
    };
    match ctx.plan::<I, O>(&g) {
        Ok(p) => row.kernel = p.kernel.name.to_string(),
        Err(e) => {
            let msg = match e {
                Error::Unsupported(why) => format!("unsupported: {why}"),
                other => format!("error: {other}"),
            };
            row.ours = Err(msg);
            row.blas = Err("skipped".into());
            return row;
        }
    }
    if m == 0 || n == 0 || k == 0 {
        row.ours = Err("empty shape: nothing to time".into());
        row.blas = Err("skipped".into());
        return row;
    }
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let result = setup::<I, O>(ctx, shape);
    let mut bufs = match result {
        Ok(v) => v,
        Err(e) => {
            row.ours = Err(format!("error: {e}"));
            row.blas = Err("skipped".into());
            return row;
        }
    };
    let sets = bufs.c.len();
    let stream = ctx.stream().clone();

    // Ours: correctness on set 0, then timing.
    row.ours = (|| -> Result<Measured, String> {
        let run = |bufs: &mut Buffers<I, O>, s: usize| {
            ctx.gemm(&g, &bufs.a[s], &bufs.b[s], &mut bufs.c[s])
                .map_err(|e| match e {
                    Error::Unsupported(why) => format!("unsupported: {why}"),
                    other => format!("error: {other}"),
                })
        };
        poison(&stream, &mut bufs.c[0])?;
        run(&mut bufs, 0)?;
        let c = stream
            .clone_dtoh(&bufs.c[0])
            .map_err(|e| format!("download: {e}"))?;
        stream
            .synchronize()
            .map_err(|e| format!("synchronize: {e}"))?;
        let rel_err = sampled_error(&bufs.ha, &bufs.hb, &c, shape, args.samples);
        let ms = time_runs(ctx, sets, args.warmup, args.iters, |s| run(&mut bufs, s))?;
        Ok(Measured {
            ms,
            tflops: flops / (ms * 1e-3) / 1e12,
            rel_err,
        })
    })();

    // cuBLAS on the same buffers.
    row.blas = match blas {
        None => Err("unavailable".into()),
        Some(blas) => (|| -> Result<Measured, String> {
            let run = |bufs: &mut Buffers<I, O>, s: usize| {
                let Buffers { a, b, c, .. } = bufs;
                cublas_gemm::<I, O>(blas, &stream, args.prec, shape, &a[s], &b[s], &mut c[s])
            };
            poison(&stream, &mut bufs.c[0])?;
            run(&mut bufs, 0)?;
            let c = stream
                .clone_dtoh(&bufs.c[0])
                .map_err(|e| format!("download: {e}"))?;
            stream
                .synchronize()
                .map_err(|e| format!("synchronize: {e}"))?;
            let rel_err = sampled_error(&bufs.ha, &bufs.hb, &c, shape, args.samples);
            let ms = time_runs(ctx, sets, args.warmup, args.iters, |s| run(&mut bufs, s))?;
            Ok(Measured {
                ms,
                tflops: flops / (ms * 1e-3) / 1e12,
                rel_err,
            })
        })(),
    };
    row
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if e.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("gemm_demo: {e}\n{USAGE}");
            return ExitCode::from(64);
        }
    };
    let ctx = match catch_unwind(|| Context::new(args.device)) {
        Ok(Ok(ctx)) => ctx,
        Ok(Err(e)) => {
            eprintln!("gemm_demo: no usable CUDA GPU {}: {e}", args.device);
            return ExitCode::from(2);
        }
        Err(_) => {
            eprintln!("gemm_demo: creating the CUDA context panicked (see above)");
            return ExitCode::from(2);
        }
    };
    let caps = ctx.capabilities();
    println!(
        "device {}: {} (sm_{}{}, {} SMs, L2 {} MiB), modules {:?}",
        caps.ordinal,
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        caps.l2_bytes >> 20,
        caps.targets
    );
    let blas = load_cublas(ctx.stream());
    match &blas {
        Ok(_) => println!("cuBLAS: loaded"),
        Err(why) => println!("cuBLAS unavailable: {why}"),
    }
    let out_name = if args.out_f32 {
        "f32"
    } else {
        args.prec.name()
    };
    let label = match args.prec {
        Prec::F32 | Prec::Tf32 => args.prec.name().to_string(),
        _ => format!("{} -> {out_name}", args.prec.name()),
    };
    println!(
        "precision {label}; median of {} runs after {} warm-up; error on {} sampled entries vs f64\n",
        args.iters, args.warmup, args.samples
    );
    let blas = blas.ok();
    let mut rows = Vec::new();
    for &shape in &args.sizes {
        let row = match (args.prec, args.out_f32) {
            (Prec::F32 | Prec::Tf32, _) => bench::<f32, f32>(&ctx, blas.as_ref(), &args, shape),
            (Prec::F16, false) => bench::<f16, f16>(&ctx, blas.as_ref(), &args, shape),
            (Prec::F16, true) => bench::<f16, f32>(&ctx, blas.as_ref(), &args, shape),
            (Prec::Bf16, false) => bench::<bf16, bf16>(&ctx, blas.as_ref(), &args, shape),
            (Prec::Bf16, true) => bench::<bf16, f32>(&ctx, blas.as_ref(), &args, shape),
        };
        print_row(&row);
        rows.push(row);
    }
    print_table(&label, &rows);
    let failed = rows
        .iter()
        .any(|r| matches!(&r.ours, Err(e) if !e.starts_with("unsupported")));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn shape_str((m, n, k): (usize, usize, usize)) -> String {
    format!("{m}×{n}×{k}")
}

fn print_row(r: &Row) {
    let s = shape_str(r.shape);
    match &r.ours {
        Ok(x) => println!(
            "{s:>16}  tcgemm {:>9.3} ms {:>7.2} TFLOPS  rel err {:.2e}  ({})",
            x.ms, x.tflops, x.rel_err, r.kernel
        ),
        Err(e) => println!("{s:>16}  tcgemm {e}"),
    }
    match &r.blas {
        Ok(x) => println!(
            "{:>16}  cuBLAS {:>9.3} ms {:>7.2} TFLOPS  rel err {:.2e}",
            "", x.ms, x.tflops, x.rel_err
        ),
        Err(e) => println!("{:>16}  cuBLAS {e}", ""),
    }
}

fn print_table(label: &str, rows: &[Row]) {
    println!("\n| shape | precision | tcgemm ms | tcgemm TFLOPS | rel err | cuBLAS ms | cuBLAS TFLOPS | cuBLAS rel err | tcgemm / cuBLAS |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let (ours_ms, ours_tf, ours_err) = match &r.ours {
            Ok(x) => (
                format!("{:.3}", x.ms),
                format!("{:.2}", x.tflops),
                format!("{:.1e}", x.rel_err),
            ),
            Err(e) => (cell(e), "–".into(), "–".into()),
        };
        let (b_ms, b_tf, b_err) = match &r.blas {
            Ok(x) => (
                format!("{:.3}", x.ms),
                format!("{:.2}", x.tflops),
                format!("{:.1e}", x.rel_err),
            ),
            Err(e) => (cell(e), "–".into(), "–".into()),
        };
        let ratio = match (&r.ours, &r.blas) {
            (Ok(o), Ok(b)) => format!("{:.0}%", 100.0 * o.tflops / b.tflops),
            _ => "–".into(),
        };
        println!(
            "| {} | {label} | {ours_ms} | {ours_tf} | {ours_err} | {b_ms} | {b_tf} | {b_err} | {ratio} |",
            shape_str(r.shape)
        );
    }
}

/// A table cell: first clause of a message, without pipes.
fn cell(msg: &str) -> String {
    let short: String = msg
        .split(';')
        .next()
        .unwrap_or(msg)
        .chars()
        .take(60)
        .collect();
    short.replace('|', "/")
}
