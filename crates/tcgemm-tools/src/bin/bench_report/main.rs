//! The side-by-side report: tcgemm against cuBLAS on every benchmark shape and path, in one process,
//! with this GPU's instruction ceilings; writes `BENCHMARKS.md` and `ratio.svg`.
//!
//! ```text
//! cargo run --release -p tcgemm-tools --bin bench_report -- [--out DIR] [--quick] [--kernels NAME,NAME,...]
//!     [--shapes LIST] [--paths fp32,tf32,f16,bf16] [--reps N] [--samples N] [--device N]
//!     [--no-stream-k] [--no-tma-store] [--no-programmatic-launch] [--no-staging] [--force-sm80]
//! cargo run --release -p tcgemm-tools --bin bench_report -- --shapes unaligned --paths f16,bf16
//! bundle/run.sh tool bench_report --out $OUT          # in the GPU bundle
//! ```
//!
//! 1. Instruction ceilings: tcgemm's microkernels (FFMA, `mma.sync` TF32/F16/BF16 from registers),
//!    loop trips chosen so that one launch takes about 6 ms, median of 5 launches.
//! 2. For every shape and path (fp32 = exact FP32, tf32, f16 → f16, bf16 → bf16, and f16 → f32 on
//!    the power-of-two squares and the `unaligned` suite): random non-zero inputs in `[-1, 1]`,
//!    `C = A·B` row-major, packed unless the shape says otherwise (`+ldP`, `+offO`, `+bsS`:
//!    `Shape::parse`), `alpha = 1`, `beta = 0`. The implementations are tcgemm's dispatch, every `--kernels` kernel
//!    that serves the path (forced through `Context::gemm_with_kernel`), and cuBLAS with the same
//!    input, output and compute types (`cublasGemmEx` / `cublasGemmStridedBatchedEx`, FP32
//!    compute; TF32 compute for tf32; row-major via `Cᵀ = Bᵀ·Aᵀ`).
//!    - Accuracy: C is NaN-poisoned, one run, then the relative error `‖C − R‖₂ / ‖R‖₂` over a
//!      sample of entries (corners, then random) against an f64 reference of the uploaded inputs.
//!    - Speed: two warm-up rounds, then rounds that launch each implementation once, interleaved
//!      (ours, cuBLAS, ours, ...), each launch between CUDA events (device time), each on the next
//!      of ≥ 3 rotating buffer sets spanning ≥ 2× L2 where memory allows, queued behind a GPU-side
//!      delay so that host enqueueing never idles the GPU between the events. Enough rounds for
//!      about 1 s of GPU time per case (5 to 100). TFLOPS = 2·m·n·k·batch / median time.
//!    - Accuracy also fails a run that writes C's buffer outside its entries (padding, gaps).
//!    - Aligned twin: a shape that is not aligned and packed (`Shape::is_aligned_packed`: a
//!      stored row length not a multiple of 8, or padding) is also timed, in the same rounds,
//!      against tcgemm's dispatch on `Shape::aligned_twin` (packed, row lengths rounded up to 8)
//!      on its own buffers; the report lists ours / twin in its own section.
//!
//! A progress line per case goes to stderr; the ceilings table and then the results table go to
//! stdout (the results table, then the per-suite summary (geomean and worst row), last). Without libcublas the report has tcgemm's figures alone and
//! says why. Exit status: 0 done, 1 a case failed (an error other than "unsupported" or a
//! `--kernels` kernel refusing the call, or non-finite entries in tcgemm's C) or the report could not be written, 2 no usable CUDA GPU,
//! 64 bad arguments.

mod measure;
mod report;
mod svg;

use std::cell::Cell;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use tcgemm::{Context, ContextOptions};
use tcgemm_testkit::{blas, ceiling, open_for_with, Path, Shape, Timer};
use tcgemm_tools::{gemm_kernels, parse_args};

use measure::{run_path, Env, Row};
use report::{Ceilings, Method};

/// tcgemm against cuBLAS on every benchmark shape and path, with this GPU's instruction
/// ceilings; writes BENCHMARKS.md and ratio.svg.
#[derive(Parser, Debug)]
#[command(name = "bench_report")]
struct Args {
    /// Where BENCHMARKS.md and ratio.svg go [default: $OUT if set, else .].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The squares 4096 and 8192 only.
    #[arg(long)]
    quick: bool,
    /// Also time these kernels by name (Context::gemm_with_kernel) on every shape and path and
    /// layout whose element types they take; extra rows.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    kernels: Vec<String>,
    /// Comma list of N, MxNxK, BATCH*MxNxK (optionally :nt, :tn, :tt, then padding +ldP longer
    /// leading dimensions, +offO offset views, +bsS batch-stride gaps, e.g. 4096:nt+ld1) or
    /// presets: squares, transformer, skinny, odd, batched, decode, unaligned, sizes, prefill,
    /// smallk, quick, all [default: all; decode, unaligned, sizes, prefill and smallk are not in
    /// all].
    #[arg(long, value_parser = Shape::parse_list, value_name = "LIST")]
    shapes: Option<::std::vec::Vec<Shape>>,
    /// Comma list of fp32, tf32, f16, f16f32, bf16, 3xtf32 (Precision::Tf32x3, against cuBLAS's
    /// SGEMM) [default: fp32,tf32,f16,bf16; f16 also runs f16->f32 on power-of-two squares and the
    /// unaligned suite].
    #[arg(long, value_delimiter = ',', value_parser = parse_path, value_name = "PATH,...")]
    paths: Option<Vec<Path>>,
    /// Timed rounds per case [default: about 1 s of GPU time, 5..100].
    #[arg(long)]
    reps: Option<usize>,
    /// Sampled entries of C checked against f64.
    #[arg(long, default_value_t = 1024)]
    samples: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Run tcgemm with stream-K off (`ContextOptions::stream_k = false`), to compare.
    #[arg(long)]
    no_stream_k: bool,
    /// Run tcgemm with the Hopper kernels storing C from their registers
    /// (`ContextOptions::tma_store = false`), to compare.
    #[arg(long)]
    no_tma_store: bool,
    /// Launch the reduction after a split launch plainly, not as its programmatic dependent
    /// (`ContextOptions::programmatic_launch = false`), to compare.
    #[arg(long)]
    no_programmatic_launch: bool,
    /// Run tcgemm without staging unaligned operands (`ContextOptions::staging_limit = 0`), to
    /// compare.
    #[arg(long)]
    no_staging: bool,
    /// Run tcgemm on its sm_80 kernels alone (`ContextOptions::force_sm80`): the Ampere path as
    /// an A100 or RTX GPU runs it, measured on this GPU.
    #[arg(long)]
    force_sm80: bool,
}

fn parse_path(s: &str) -> Result<Path, String> {
    Path::parse(s)
        .ok_or_else(|| format!("unknown path '{s}' (fp32, tf32, f16, f16f32, bf16, 3xtf32)"))
}

impl Args {
    /// The report's directory: `--out`, else `$OUT`, else the current directory.
    fn out_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| {
            std::env::var_os("OUT")
                .filter(|v| !v.is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from)
        })
    }

    /// The (shape, path) cases in report order: shape by shape, paths in [`Path::ALL`] order.
    fn cases(&self) -> Vec<(Shape, Path)> {
        let shapes = match &self.shapes {
            Some(s) => s.clone(),
            None if self.quick => tcgemm_testkit::shapes::QUICK.to_vec(),
            None => tcgemm_testkit::all_shapes(),
        };
        let mut v = Vec::new();
        for s in shapes {
            for p in Path::ALL {
                let on = match &self.paths {
                    None => (p != Path::F16F32 || s.reports_f16_f32()) && p != Path::Tf32x3,
                    Some(list) => {
                        list.contains(&p)
                            || (p == Path::F16F32
                                && list.contains(&Path::F16)
                                && s.reports_f16_f32())
                    }
                };
                if on {
                    v.push((s, p));
                }
            }
        }
        v
    }
}

/// One line about the device for the log and the document.
fn device_line(ctx: &Context) -> String {
    let caps = ctx.capabilities();
    let total_mem = ctx.cuda().total_mem().unwrap_or(0);
    format!(
        "{} (sm_{}{}, {} SMs, L2 {} MiB, {:.0} GiB), modules {:?}",
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        caps.l2_bytes >> 20,
        total_mem as f64 / (1u64 << 30) as f64,
        caps.targets
    )
}

/// Measures the instruction ceilings (about 6 ms per launch, median of 5), logging each.
fn measure_ceilings(timer: &mut Timer<'_>) -> Ceilings {
    let mut ceilings = Vec::new();
    for math in ceiling::CEILINGS {
        let c = ceiling::measure_ceiling(timer, math, 6.0, 5);
        match &c {
            Ok(c) => eprintln!(
                "ceiling {:<20} {:>8} TFLOPS  ({:.2} ms, {} trips, {})",
                ceiling::math_name(math),
                report::tflops(c.tflops),
                c.ms,
                c.trips,
                c.kernel
            ),
            Err(e) => eprintln!("ceiling {:<20} error: {e}", ceiling::math_name(math)),
        }
        ceilings.push((math, c));
    }
    ceilings
}

/// A figure of the progress line: `TFLOPS ms err` or the message.
fn progress_figures(m: &Result<measure::Meas, String>, who: &str) -> String {
    match m {
        Ok(m) => format!(
            "{who}{:>8} TFLOPS {:.3} ms err {:<8}",
            report::tflops(m.tflops),
            m.ms,
            report::rel_err(m.err)
        ),
        Err(e) => e.clone(),
    }
}

/// Whether a tcgemm result is a failure: an error other than "unsupported" or a named kernel's
/// refusal ([`report::is_refusal`]), or non-finite entries in C.
fn ours_failed(m: &Result<measure::Meas, String>) -> bool {
    match m {
        Err(e) => !(e.starts_with("unsupported") || report::is_refusal(e)),
        Ok(m) => !m.err.is_finite(),
    }
}

/// The aligned twin's part of a progress line: ` | twin SHAPE TFLOPS ms err ratio`, or nothing.
fn twin_progress(r: &Row) -> String {
    let Some(twin) = &r.twin else {
        return String::new();
    };
    let ratio = report::twin_ratio(r).map_or(String::new(), |x| format!(" {:.0}%", 100.0 * x));
    let who = format!("twin {} ", twin.shape.label());
    format!(" | {}{ratio}", progress_figures(&twin.meas, &who))
}

/// Runs every case, logging a progress line per row; returns the rows and whether a row failed
/// (an error other than "unsupported", or non-finite entries in tcgemm's C).
fn run_cases(env: &Env<'_>, timer: &mut Timer<'_>, cases: &[(Shape, Path)]) -> (Vec<Row>, bool) {
    let (mut rows, mut failed) = (Vec::new(), false);
    for (i, &(shape, path)) in cases.iter().enumerate() {
        let t0 = Instant::now();
        let case_rows = run_path(env, timer, shape, path);
        for r in &case_rows {
            let ours = progress_figures(&r.ours, "");
            let theirs = progress_figures(&r.blas, "cuBLAS ");
            let ratio = report::ratio(r).map_or(String::new(), |x| format!(" {:.0}%", 100.0 * x));
            let twin = twin_progress(r);
            let reps = r.ours.as_ref().or(r.blas.as_ref()).map_or(0, |m| m.reps);
            let kernel = if r.kernel == "–" {
                ours
            } else {
                format!("{} {ours}", r.kernel)
            };
            eprintln!(
                "[{}/{}] {} {}: {}{kernel} | {theirs}{ratio}{twin} | {reps} reps, {:.1} s",
                i + 1,
                cases.len(),
                shape.label(),
                path.name(),
                if r.forced { "forced " } else { "" },
                t0.elapsed().as_secs_f64()
            );
            failed |= ours_failed(&r.ours) || r.twin.as_ref().is_some_and(|t| ours_failed(&t.meas));
        }
        rows.extend(case_rows);
    }
    (rows, failed)
}

/// Everything the document says.
struct Document<'a> {
    device_line: &'a str,
    blas_line: String,
    command: String,
    method: Method,
    ceilings: &'a Ceilings,
    /// The copy bandwidth, bytes/s (the floor of the "% of floor" column).
    bandwidth: Result<f64, String>,
    rows: &'a [Row],
    with_chart: bool,
}

impl Document<'_> {
    /// `BENCHMARKS.md`.
    fn markdown(&self) -> String {
        let (table, notes) =
            report::results_table(self.rows, self.ceilings, self.bandwidth.clone());
        let mut md = report::header(self.device_line, &self.blas_line, &self.command);
        let _ = writeln!(md, "{}", report::method_line(&self.method));
        let _ = writeln!(
            md,
            "\n## Instruction ceilings\n\n{}\n{}\n",
            report::ceilings_table(self.ceilings),
            report::bandwidth_line(&self.bandwidth)
        );
        let _ = writeln!(md, "## tcgemm vs cuBLAS\n\n{table}");
        if !notes.is_empty() {
            let _ = writeln!(md, "Notes:\n\n{}", report::numbered(&notes));
        }
        let twins = report::twin_section(self.rows);
        if !twins.is_empty() {
            let _ = writeln!(md, "{twins}");
        }
        let _ = writeln!(md, "## Summary\n\n{}", report::summary_table(self.rows));
        md.push_str(if self.with_chart {
            "![tcgemm / cuBLAS throughput per shape and path](ratio.svg)\n"
        } else {
            "(No ratio chart: cuBLAS was unavailable.)\n"
        });
        md
    }

    /// Writes `BENCHMARKS.md` (and `ratio.svg` with cuBLAS figures) into `dir`.
    fn write(&self, dir: &std::path::Path, device: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("BENCHMARKS.md"), self.markdown())?;
        if self.with_chart {
            std::fs::write(dir.join("ratio.svg"), svg::ratio_svg(self.rows, device))?;
        }
        Ok(())
    }

    /// The ceilings, the notes and the results table, on stdout (the results table, the aligned
    /// twins, then the summary, last).
    fn print(&self, device: &str) {
        let (table, notes) =
            report::results_table(self.rows, self.ceilings, self.bandwidth.clone());
        println!(
            "## Instruction ceilings ({device})\n\n{}\n{}\n",
            report::ceilings_table(self.ceilings),
            report::bandwidth_line(&self.bandwidth)
        );
        if !notes.is_empty() {
            println!("Notes:\n{}", report::numbered(&notes));
        }
        print!("{table}");
        let twins = report::twin_section(self.rows);
        if !twins.is_empty() {
            print!("\n{twins}");
        }
        print!("\n{}", report::summary_table(self.rows));
    }
}

/// cuBLAS, its versions, and the document's line about it.
fn load_blas(ctx: &Context) -> (Result<cudarc::cublas::CudaBlas, String>, String) {
    let handle = blas::load(ctx.stream());
    let line = match &handle {
        Ok(_) => {
            let (cublas, cudart) = blas::versions();
            let cublas = cublas.unwrap_or_else(|| "version unknown".into());
            eprintln!("bench_report: cuBLAS {cublas} loaded");
            let cudart = cudart.unwrap_or_else(|| "unknown".into());
            format!("{cublas} (built for CUDA runtime {cudart})")
        }
        Err(why) => {
            eprintln!("bench_report: cuBLAS unavailable, reporting tcgemm alone: {why}");
            format!("unavailable ({why}); tcgemm's figures alone")
        }
    };
    (handle, line)
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let changed = args.no_stream_k
        || args.no_tma_store
        || args.no_programmatic_launch
        || args.no_staging
        || args.force_sm80;
    let opts = changed.then(|| ContextOptions {
        stream_k: !args.no_stream_k,
        tma_store: !args.no_tma_store,
        programmatic_launch: !args.no_programmatic_launch,
        force_sm80: args.force_sm80,
        staging_limit: if args.no_staging {
            0
        } else {
            ContextOptions::default().staging_limit
        },
        ..Default::default()
    });
    let ctx = match open_for_with("bench_report", args.device, opts) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let extras = match gemm_kernels(&ctx, &args.kernels) {
        Ok(e) => e,
        Err(why) => {
            eprintln!("bench_report: {why}");
            return ExitCode::from(tcgemm_tools::EX_USAGE);
        }
    };
    let cases = args.cases();
    for spec in extras
        .iter()
        .filter(|s| !cases.iter().any(|(sh, p)| p.runs(s, sh)))
    {
        eprintln!(
            "bench_report: warning: `{}` ({:?} -> {:?}, {:?}, trans_a={}, trans_b={}) serves none of the selected (path, layout) cases; it gets no rows",
            spec.name, spec.input, spec.output, spec.math, spec.trans_a, spec.trans_b
        );
    }
    let device = device_line(&ctx);
    eprintln!(
        "bench_report: device {}: {device}",
        ctx.capabilities().ordinal
    );
    let (blas_handle, blas_line) = load_blas(&ctx);
    let mut timer = Timer::new(&ctx);
    if let Some(why) = &timer.no_delay {
        eprintln!("bench_report: warning: no GPU-side delay ({why}); short launches may include host gaps");
    }
    let env = Env {
        ctx: &ctx,
        blas: blas_handle,
        extras,
        samples: args.samples.max(1),
        reps: args.reps.map(|r| r.max(1)),
        started: Instant::now(),
        sets_seen: Cell::new((usize::MAX, 0)),
        reps_seen: Cell::new((usize::MAX, 0)),
    };
    let ceilings = measure_ceilings(&mut timer);
    let bandwidth = ceiling::measure_copy_bandwidth(&mut timer, 10);
    match &bandwidth {
        Ok(bw) => eprintln!("copy bandwidth {:.0} GB/s", bw / 1e9),
        Err(e) => eprintln!("copy bandwidth: error: {e}"),
    }
    let (rows, failed) = run_cases(&env, &mut timer, &cases);
    finish(
        &args,
        &env,
        &timer,
        (&ceilings, bandwidth),
        &rows,
        (&device, blas_line),
        failed,
    )
}

/// Writes and prints the report; the exit status.
fn finish(
    args: &Args,
    env: &Env<'_>,
    timer: &Timer<'_>,
    (ceilings, bandwidth): (&Ceilings, Result<f64, String>),
    rows: &[Row],
    (device, blas_line): (&str, String),
    failed: bool,
) -> ExitCode {
    let doc = Document {
        device_line: device,
        blas_line,
        command: std::iter::once("bench_report".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        method: Method {
            reps: env.reps_seen.get(),
            sets: env.sets_seen.get(),
            host_us: timer.host_us,
            no_delay: timer.no_delay.clone(),
            samples: env.samples,
        },
        ceilings,
        bandwidth,
        rows,
        with_chart: env.blas.is_ok(),
    };
    let dir = args.out_dir();
    let name = &env.ctx.capabilities().name;
    let written = doc.write(&dir, name);
    match &written {
        Ok(()) => eprintln!(
            "bench_report: wrote {}{} ({:.0} s)",
            dir.join("BENCHMARKS.md").display(),
            if doc.with_chart { " and ratio.svg" } else { "" },
            env.started.elapsed().as_secs_f64()
        ),
        Err(e) => eprintln!(
            "bench_report: could not write the report to {}: {e}",
            dir.display()
        ),
    }
    doc.print(name);
    if failed || written.is_err() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests;
