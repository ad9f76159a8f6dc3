//! tcgemm's main job, end to end: multiply on a GPU, time it, check it, and compare with cuBLAS.
//!
//! ```text
//! cargo run --release --example gemm_demo                       # f32: 1024³, 4096³, 8192³, 1921×1023×517
//! cargo run --release --example gemm_demo -- --precision tf32 2048 1000x3000x500
//! cargo run --release --example gemm_demo -- --sizes 4096,8192 --precision f16 --out f32
//! cargo run --release --example gemm_demo -- --help
//! ```
//!
//! For every shape (`N` = `N×N×N`, `MxNxK`, `BATCH*MxNxK`, optionally `:nt`, `:tn`, `:tt`, then
//! padding `+ldP`, `+offO`, `+bsS`: `tcgemm_testkit::Shape::parse`): C = A·B (row-major,
//! `alpha = 1`, `beta = 0`) with inputs uniform in `[-1, 1]`. Timing: warm-up runs,
//! then the median of `--iters` runs, each bracketed by CUDA events on the context's stream (queued
//! behind a short GPU-side delay, so host enqueueing is not timed: `tcgemm_testkit::timer`); the
//! runs rotate through enough input/output buffer sets (at least 3, and at least twice the L2 size
//! where memory allows) that L2 does not hold the operands from one run to the next. TFLOPS =
//! 2·m·n·k·batch / time. The error is the relative Frobenius error of C against an f64 CPU
//! reference on a sample of entries, each a full-length dot product. When libcublas loads, cuBLAS
//! runs the same product on the same buffers in the same process (row-major via the column-major
//! identity Cᵀ = Bᵀ·Aᵀ). A precision or shape tcgemm does not support prints `unsupported: ...` for
//! that row. With f16 or bf16 output, a last table times converting f32 data first
//! (`Context::convert`). Exits 2 without a GPU, 1 when a row failed, 64 on bad arguments.

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use cudarc::cublas::CudaBlas;
use half::{bf16, f16};
use tcgemm::{Context, Error, Precision};
use tcgemm_testkit::{
    blas, median, open_for, random_vec, Path, Reference, Rng, Sets, Shape, TestElem, Timer,
};

/// Multiply on a GPU with tcgemm, time it, check it against f64, and compare with cuBLAS.
#[derive(Parser, Debug)]
#[command(name = "gemm_demo")]
struct Args {
    /// Element types and arithmetic of the inputs.
    #[arg(short, long, value_enum, default_value_t = Prec::F32)]
    precision: Prec,
    /// The output type: the input type, or f32 (f16 and bf16 inputs only).
    #[arg(long, value_enum, default_value_t = Out::Same)]
    out: Out,
    /// Comma list of sizes, added to the SIZE arguments.
    #[arg(long, value_delimiter = ',', value_parser = Shape::parse, value_name = "SIZE,...")]
    sizes: Vec<Shape>,
    /// Sizes: N (an N×N×N product), MxNxK or BATCH*MxNxK, optionally with :nt, :tn or :tt, then
    /// padding +ldP (longer leading dimensions), +offO (offset views), +bsS (batch-stride gaps)
    /// [default: 1024 4096 8192 1921x1023x517].
    #[arg(value_parser = Shape::parse, value_name = "SIZE")]
    more_sizes: Vec<Shape>,
    /// Timed runs per row (their median is reported).
    #[arg(long, default_value_t = 10)]
    iters: usize,
    /// Untimed runs first.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Entries of C checked against the f64 reference.
    #[arg(long, default_value_t = 1024)]
    samples: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Prec {
    /// f32, exact FP32 (FFMA).
    #[value(alias = "fp32")]
    F32,
    /// f32 on TF32 tensor cores.
    Tf32,
    /// f16, tensor cores, f32 accumulation.
    #[value(alias = "fp16", alias = "half")]
    F16,
    /// bf16, tensor cores, f32 accumulation.
    Bf16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Out {
    /// The input type.
    Same,
    /// f32.
    F32,
}

impl Args {
    /// The shapes to run, in order.
    fn shapes(&self) -> Vec<Shape> {
        let v: Vec<Shape> = self.sizes.iter().chain(&self.more_sizes).copied().collect();
        if v.is_empty() {
            vec![
                Shape::new(1024, 1024, 1024),
                Shape::new(4096, 4096, 4096),
                Shape::new(8192, 8192, 8192),
                Shape::new(1921, 1023, 517),
            ]
        } else {
            v
        }
    }

    /// f16/bf16 inputs with an f32 output.
    fn out_f32(&self) -> bool {
        self.out == Out::F32 && matches!(self.precision, Prec::F16 | Prec::Bf16)
    }

    /// `f32`, `tf32`, `f16 -> f32`, ...
    fn label(&self) -> String {
        let name = format!("{:?}", self.precision).to_lowercase();
        match (self.precision, self.out_f32()) {
            (Prec::F32 | Prec::Tf32, _) => name,
            (_, true) => format!("{name} -> f32"),
            (_, false) => format!("{name} -> {name}"),
        }
    }

    /// The tcgemm precision and the path whose cuBLAS compute type matches.
    fn path(&self) -> (Precision, Path) {
        match self.precision {
            Prec::F32 => (Precision::Exact, Path::Fp32),
            Prec::Tf32 => (Precision::Tf32, Path::Tf32),
            // f16/bf16 (either output): FP32 compute, as Path::F16 uses.
            Prec::F16 | Prec::Bf16 => (Precision::Default, Path::F16),
        }
    }
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
    shape: Shape,
    kernel: String,
    ours: Result<Measured, String>,
    blas: Result<Measured, String>,
}

fn err_text(e: Error) -> String {
    match e {
        Error::Unsupported(why) => format!("unsupported: {why}"),
        other => format!("error: {other}"),
    }
}

/// One launch on buffer set `s`.
type Launch<'a, I, O> = &'a dyn Fn(&mut Sets<I, O>, usize) -> Result<(), String>;

/// Accuracy (NaN-poisoned C of set 0, one run, sampled error), then the median of `args.iters`
/// event-timed runs after `args.warmup` warm-up runs, rotating through the buffer sets.
fn measure<I: TestElem, O: TestElem>(
    timer: &mut Timer<'_>,
    args: &Args,
    shape: Shape,
    (bufs, reference): (&mut Sets<I, O>, &Reference),
    run: Launch<'_, I, O>,
) -> Result<Measured, String> {
    let stream = timer.ctx().stream().clone();
    let rel_err = bufs.checked_run(&stream, reference, &mut |b, s| run(b, s))?;
    let sets = bufs.len();
    timer.each(args.warmup, &mut |j| run(bufs, j % sets))?;
    let times = timer.each(args.iters.max(1), &mut |j| {
        run(bufs, (args.warmup + j) % sets)
    })?;
    let ms = median(&times);
    Ok(Measured {
        ms,
        tflops: shape.flops() as f64 / (ms * 1e-3) / 1e12,
        rel_err,
    })
}

/// tcgemm, then cuBLAS on the same buffers, on `shape`.
fn bench<I: TestElem, O: TestElem>(
    timer: &mut Timer<'_>,
    blas: Option<&CudaBlas>,
    args: &Args,
    shape: Shape,
) -> Row {
    let ctx = timer.ctx();
    let (precision, path) = args.path();
    let g = shape.gemm(precision);
    let skipped = |ours: String| Row {
        shape,
        kernel: String::new(),
        ours: Err(ours),
        blas: Err("skipped".into()),
    };
    if let Err(e) = ctx.plan::<I, O>(&g) {
        return skipped(err_text(e));
    }
    let mut bufs = match Sets::<I, O>::new(ctx, shape, 1) {
        Ok(v) => v,
        Err(e) => return skipped(format!("error: {e}")),
    };
    // the kernel for these buffers: a view at an unaligned offset can steer dispatch
    let (a, b, c) = bufs.views(0);
    let kernel = match ctx.plan_for::<I, O>(&g, &a, &b, &c) {
        Ok(p) => p.kernel.name.to_string(),
        Err(e) => return skipped(err_text(e)),
    };
    let mut rng = Rng::new(0x5eed, 99);
    let reference =
        Reference::sampled_of_values(&shape.problem(), &bufs.ha, &bufs.hb, args.samples, &mut rng);
    let data = (&mut bufs, &reference);
    let ours = |sets: &mut Sets<I, O>, s: usize| {
        let (a, b, mut c) = sets.views(s);
        ctx.gemm(&g, &a, &b, &mut c).map(drop).map_err(err_text)
    };
    let ours = measure(timer, args, shape, data, &ours);
    let blas = match blas {
        None => Err("unavailable".into()),
        Some(h) => {
            let theirs = |b: &mut Sets<I, O>, s: usize| {
                let Sets { a, b, c, .. } = b;
                let compute = path.cublas_compute();
                blas::gemm::<I, O>(h, ctx.stream(), compute, shape, &a[s], &b[s], &mut c[s])
            };
            measure(timer, args, shape, (&mut bufs, &reference), &theirs)
        }
    };
    Row {
        shape,
        kernel,
        ours,
        blas,
    }
}

/// The row of `shape` for the element types `args` asks for.
fn bench_row(timer: &mut Timer<'_>, blas: Option<&CudaBlas>, args: &Args, shape: Shape) -> Row {
    match (args.precision, args.out_f32()) {
        (Prec::F32 | Prec::Tf32, _) => bench::<f32, f32>(timer, blas, args, shape),
        (Prec::F16, false) => bench::<f16, f16>(timer, blas, args, shape),
        (Prec::F16, true) => bench::<f16, f32>(timer, blas, args, shape),
        (Prec::Bf16, false) => bench::<bf16, bf16>(timer, blas, args, shape),
        (Prec::Bf16, true) => bench::<bf16, f32>(timer, blas, args, shape),
    }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // help and version on stdout, exit 0; usage errors on stderr, exit 64
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(64)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let ctx = match open_for("gemm_demo", args.device) {
        Ok(ctx) => ctx,
        Err(code) => return code,
    };
    let mut timer = Timer::new(&ctx);
    let caps = ctx.capabilities();
    println!(
        "device {}: {} (sm_{}{}, {} SMs, L2 {} MiB)",
        caps.ordinal,
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        caps.l2_bytes >> 20,
    );
    // which image each module came from: machine code for which architecture, or PTX
    for m in &caps.modules {
        println!("  {m}");
    }
    let blas = blas::load(ctx.stream());
    match &blas {
        Ok(_) => println!("cuBLAS: loaded"),
        Err(why) => println!("cuBLAS unavailable: {why}"),
    }
    println!(
        "precision {}; median of {} runs after {} warm-up; error on {} sampled entries vs f64\n",
        args.label(),
        args.iters.max(1),
        args.warmup,
        args.samples
    );
    let blas = blas.ok();
    let mut rows = Vec::new();
    for shape in args.shapes() {
        let row = bench_row(&mut timer, blas.as_ref(), &args, shape);
        print_row(&row);
        rows.push(row);
    }
    print_table(&args.label(), &rows);
    match args.precision {
        Prec::F16 if !args.out_f32() => conversion_table::<f16>(&mut timer, &args),
        Prec::Bf16 if !args.out_f32() => conversion_table::<bf16>(&mut timer, &args),
        _ => {}
    }
    let failed = rows
        .iter()
        .any(|r| matches!(&r.ours, Err(e) if !e.starts_with("unsupported")));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

fn print_row(r: &Row) {
    let s = r.shape.label();
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

/// `ms | TFLOPS | rel err` cells of a measurement, or the message and two dashes.
fn cells(m: &Result<Measured, String>) -> String {
    match m {
        Ok(x) => format!("{:.3} | {:.2} | {:.1e}", x.ms, x.tflops, x.rel_err),
        Err(e) => format!("{} | – | –", cell(e)),
    }
}

fn print_table(label: &str, rows: &[Row]) {
    println!("\n| shape | precision | tcgemm ms | tcgemm TFLOPS | rel err | cuBLAS ms | cuBLAS TFLOPS | cuBLAS rel err | tcgemm / cuBLAS |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let ratio = match (&r.ours, &r.blas) {
            (Ok(o), Ok(b)) => format!("{:.0}%", 100.0 * o.tflops / b.tflops),
            _ => "–".into(),
        };
        println!(
            "| {} | {label} | {} | {} | {ratio} |",
            r.shape.label(),
            cells(&r.ours),
            cells(&r.blas)
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

/// For callers holding f32 data: the 16-bit GEMM alone next to converting A and B from f32 on the
/// GPU (`Context::convert`) and then multiplying. Median of `args.iters` CUDA-event-timed runs.
fn conversion_table<H: TestElem>(timer: &mut Timer<'_>, args: &Args) {
    println!(
        "\n| shape | path | GEMM only ms | convert A, B from f32 + GEMM ms | conversion share |"
    );
    println!("|---|---|---:|---:|---:|");
    let name = H::NAME;
    for shape in args.shapes() {
        match convert_then_gemm::<H>(timer, args, shape) {
            Ok((only, with)) => println!(
                "| {} | f32 -> {name} -> {name} | {only:.3} | {with:.3} | {:.0}% |",
                shape.label(),
                100.0 * (with - only) / with
            ),
            Err(e) => println!("| {} | {name} | {e} | | |", shape.label()),
        }
    }
}

/// Median device time (ms) of the 16-bit GEMM alone and of converting A and B from f32 first.
fn convert_then_gemm<H: TestElem>(
    timer: &mut Timer<'_>,
    args: &Args,
    shape: Shape,
) -> Result<(f64, f64), String> {
    let ctx: &Context = timer.ctx();
    let s = ctx.stream();
    let e = |x: cudarc::driver::DriverError| format!("{x:?}");
    let (la, lb, lc) = shape.lens();
    let da = s.clone_htod(&random_vec::<f32>(la, 11)).map_err(e)?;
    let db = s.clone_htod(&random_vec::<f32>(lb, 12)).map_err(e)?;
    let mut ha = s.alloc_zeros::<H>(la).map_err(e)?;
    let mut hb = s.alloc_zeros::<H>(lb).map_err(e)?;
    let mut hc = s.alloc_zeros::<H>(lc).map_err(e)?;
    let g = shape.gemm(Precision::Default);
    let offset = shape.padding.offset;
    let mut time = |with_convert: bool| -> Result<f64, String> {
        let mut run = |_| -> Result<(), String> {
            if with_convert {
                ctx.convert(&da, &mut ha).map_err(|x| x.to_string())?;
                ctx.convert(&db, &mut hb).map_err(|x| x.to_string())?;
            }
            let (a, b) = (ha.slice(offset..), hb.slice(offset..));
            ctx.gemm(&g, &a, &b, &mut hc.slice_mut(offset..))
                .map(|_| ())
                .map_err(|x| x.to_string())
        };
        timer.each(args.warmup, &mut run)?;
        Ok(median(&timer.each(args.iters.max(1), &mut run)?))
    };
    // converted inputs first, so the GEMM-only runs see real data
    let with = time(true)?;
    Ok((time(false)?, with))
}
