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
//! `--iters` runs, each bracketed by CUDA events on the context's stream (queued behind a short
//! GPU-side delay, so host enqueueing is not timed: `examples/support/gpu.rs`); the runs rotate
//! through enough input/output buffer sets (at least 3, and at least twice the L2 size where memory
//! allows) that L2 does not hold the operands from one run to the next. TFLOPS = 2·m·n·k / time. The error is the relative
//! Frobenius error of C against an f64 CPU reference on a sample of entries, each a full-length dot
//! product. When libcublas loads, cuBLAS runs the same product on the same buffers in the same
//! process (row-major via the column-major identity Cᵀ = Bᵀ·Aᵀ). A precision or shape tcgemm does not
//! support yet prints `unsupported: ...` for that row. Exits 2 without a GPU, 1 when a row failed.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use cudarc::cublas::CudaBlas;
use half::{bf16, f16};
use support::check::Reference;
use support::gpu::{self, Open, Sets, Timer};
use support::{blas, El, Path, Shape};
use tcgemm::{Context, Error, Precision};

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
    let mut flags = support::args::Flags::from_env();
    while let Some(flag) = flags.next_flag() {
        match flag.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--precision" | "-p" => {
                a.prec = match flags.value("--precision")?.to_ascii_lowercase().as_str() {
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
                a.out_f32 = match flags.value("--out")?.as_str() {
                    "f32" => true,
                    "same" => false,
                    other => return Err(format!("--out {other}: use same or f32")),
                }
            }
            "--sizes" => {
                for s in flags
                    .value("--sizes")?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                {
                    a.sizes.push(parse_size(s.trim())?);
                }
            }
            "--iters" => a.iters = flags.number("--iters")?.max(1),
            "--warmup" => a.warmup = flags.number("--warmup")?,
            "--samples" => a.samples = flags.number("--samples")?.max(1),
            "--device" => a.device = flags.number("--device")?,
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

/// Precision of the tcgemm call and cuBLAS compute type for `prec`.
fn precision_of(prec: Prec) -> (Precision, Path) {
    match prec {
        Prec::F32 => (Precision::Exact, Path::Fp32),
        Prec::Tf32 => (Precision::Tf32, Path::Tf32),
        // f16/bf16 (either output): FP32 compute, as Path::F16 uses.
        Prec::F16 | Prec::Bf16 => (Precision::Default, Path::F16),
    }
}

fn err_text(e: Error) -> String {
    match e {
        Error::Unsupported(why) => format!("unsupported: {why}"),
        other => format!("error: {other}"),
    }
}

/// Accuracy (NaN-poisoned C of set 0, one run, sampled error), then the median of `args.iters`
/// event-timed runs after `args.warmup` warm-up runs, rotating through the buffer sets.
fn measure<I: El, O: El, F>(
    timer: &mut Timer<'_>,
    args: &Args,
    shape: Shape,
    bufs: &mut Sets<I, O>,
    reference: &Reference,
    run: F,
) -> Result<Measured, String>
where
    F: Fn(&mut Sets<I, O>, usize) -> Result<(), String>,
{
    let stream = timer.ctx().stream().clone();
    gpu::poison(&stream, &mut bufs.c[0])?;
    run(bufs, 0)?;
    let c = stream
        .clone_dtoh(&bufs.c[0])
        .map_err(|e| format!("download: {e}"))?;
    stream
        .synchronize()
        .map_err(|e| format!("synchronize: {e}"))?;
    let rel_err = reference.rel_error(&c);
    let sets = bufs.len();
    timer.each(args.warmup, &mut |j| run(bufs, j % sets))?;
    let times = timer.each(args.iters, &mut |j| run(bufs, (args.warmup + j) % sets))?;
    let ms = gpu::median(&times);
    Ok(Measured {
        ms,
        tflops: shape.flops() as f64 / (ms * 1e-3) / 1e12,
        rel_err,
    })
}

fn bench<I: El, O: El>(
    ctx: &Context,
    timer: &mut Timer<'_>,
    blas: Option<&CudaBlas>,
    args: &Args,
    shape: (usize, usize, usize),
) -> Row {
    let (m, n, k) = shape;
    let (precision, path) = precision_of(args.prec);
    let sh = Shape::new(m, n, k);
    let g = sh.gemm(precision);
    let mut row = Row {
        shape,
        kernel: String::new(),
        ours: Err(String::new()),
        blas: Err(String::new()),
    };
    match ctx.plan::<I, O>(&g) {
        Ok(p) => row.kernel = p.kernel.name.to_string(),
        Err(e) => {
            row.ours = Err(err_text(e));
            row.blas = Err("skipped".into());
            return row;
        }
    }
    if m == 0 || n == 0 || k == 0 {
        row.ours = Err("empty shape: nothing to time".into());
        row.blas = Err("skipped".into());
        return row;
    }
    let mut bufs = match Sets::<I, O>::new(ctx, sh, 1) {
        Ok(v) => v,
        Err(e) => {
            row.ours = Err(format!("error: {e}"));
            row.blas = Err("skipped".into());
            return row;
        }
    };
    let reference = Reference::new(&bufs.ha, &bufs.hb, sh, args.samples);

    // Ours, then cuBLAS on the same buffers.
    let ours = |b: &mut Sets<I, O>, s: usize| {
        let Sets { a, b, c, .. } = b;
        ctx.gemm(&g, &a[s], &b[s], &mut c[s])
            .map(drop)
            .map_err(err_text)
    };
    row.ours = measure(timer, args, sh, &mut bufs, &reference, ours);
    row.blas = match blas {
        None => Err("unavailable".into()),
        Some(h) => {
            let theirs = |b: &mut Sets<I, O>, s: usize| {
                let Sets { a, b, c, .. } = b;
                blas::gemm::<I, O>(
                    h,
                    ctx.stream(),
                    path.cublas_compute(),
                    sh,
                    &a[s],
                    &b[s],
                    &mut c[s],
                )
            };
            measure(timer, args, sh, &mut bufs, &reference, theirs)
        }
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
    let ctx = match gpu::open(args.device) {
        Ok(ctx) => ctx,
        Err(Open::NoGpu(why) | Open::Broken(why)) => {
            eprintln!("gemm_demo: no usable CUDA GPU {}: {why}", args.device);
            return ExitCode::from(2);
        }
    };
    let mut timer = match Timer::new(&ctx) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("gemm_demo: timer: {e}");
            return ExitCode::FAILURE;
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
    let blas = blas::load(ctx.stream());
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
            (Prec::F32 | Prec::Tf32, _) => {
                bench::<f32, f32>(&ctx, &mut timer, blas.as_ref(), &args, shape)
            }
            (Prec::F16, false) => bench::<f16, f16>(&ctx, &mut timer, blas.as_ref(), &args, shape),
            (Prec::F16, true) => bench::<f16, f32>(&ctx, &mut timer, blas.as_ref(), &args, shape),
            (Prec::Bf16, false) => {
                bench::<bf16, bf16>(&ctx, &mut timer, blas.as_ref(), &args, shape)
            }
            (Prec::Bf16, true) => bench::<bf16, f32>(&ctx, &mut timer, blas.as_ref(), &args, shape),
        };
        print_row(&row);
        rows.push(row);
    }
    print_table(&label, &rows);
    match args.prec {
        Prec::F16 if !args.out_f32 => conversion_table::<f16>(&ctx, &args),
        Prec::Bf16 if !args.out_f32 => conversion_table::<bf16>(&ctx, &args),
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

/// For callers holding f32 data: the 16-bit GEMM alone next to converting A and B from f32 on the
/// GPU (`Context::convert`) and then multiplying. Median of `args.iters` CUDA-event-timed runs.
fn conversion_table<H: El>(ctx: &Context, args: &Args) {
    use cudarc::driver::sys::CUevent_flags;
    let s = ctx.stream();
    println!(
        "\n| shape | path | GEMM only ms | convert A, B from f32 + GEMM ms | conversion share |"
    );
    println!("|---|---|---:|---:|---:|");
    for &(m, n, k) in &args.sizes {
        let run = || -> Result<(f64, f64), String> {
            let e = |x: cudarc::driver::DriverError| format!("{x:?}");
            let fa: Vec<f32> = (0..m * k)
                .map(|i| ((i * 7919 % 2003) as f32 / 1001.0) - 1.0 + 1e-3)
                .collect();
            let fb: Vec<f32> = (0..k * n)
                .map(|i| ((i * 104_729 % 2011) as f32 / 1005.0) - 1.0 + 1e-3)
                .collect();
            let (da, db) = (s.clone_htod(&fa).map_err(e)?, s.clone_htod(&fb).map_err(e)?);
            let mut ha = s.alloc_zeros::<H>(m * k).map_err(e)?;
            let mut hb = s.alloc_zeros::<H>(k * n).map_err(e)?;
            let mut hc = s.alloc_zeros::<H>(m * n).map_err(e)?;
            let g = tcgemm::Gemm::new(m, n, k);
            let mut time = |with_convert: bool| -> Result<f64, String> {
                let mut v = Vec::new();
                for i in 0..args.warmup + args.iters {
                    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
                    let (e0, e1) = (
                        ctx.cuda().new_event(flags).map_err(e)?,
                        ctx.cuda().new_event(flags).map_err(e)?,
                    );
                    e0.record(s).map_err(e)?;
                    if with_convert {
                        ctx.convert(&da, &mut ha).map_err(|x| x.to_string())?;
                        ctx.convert(&db, &mut hb).map_err(|x| x.to_string())?;
                    }
                    ctx.gemm(&g, &ha, &hb, &mut hc).map_err(|x| x.to_string())?;
                    e1.record(s).map_err(e)?;
                    e1.synchronize().map_err(e)?;
                    if i >= args.warmup {
                        v.push(e0.elapsed_ms(&e1).map_err(e)? as f64);
                    }
                }
                v.sort_by(f64::total_cmp);
                Ok(v[v.len() / 2])
            };
            // converted inputs first, so the GEMM-only runs see real data
            let with = time(true)?;
            Ok((time(false)?, with))
        };
        match run() {
            Ok((only, with)) => println!(
                "| {} | f32 -> {} -> {} | {only:.3} | {with:.3} | {:.0}% |",
                shape_str((m, n, k)),
                format!("{:?}", H::ELEM).to_lowercase(),
                format!("{:?}", H::ELEM).to_lowercase(),
                100.0 * (with - only) / with
            ),
            Err(e) => println!("| {} | {:?} | {e} | | |", shape_str((m, n, k)), H::ELEM),
        }
    }
}
