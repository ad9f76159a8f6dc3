//! The side-by-side report: tcgemm against cuBLAS on every benchmark shape and path, in one process,
//! with this GPU's instruction ceilings; writes `BENCHMARKS.md` and `ratio.svg`.
//!
//! ```text
//! cargo run --release --example bench_report -- [--out DIR] [--quick] [--kernels NAME,NAME,...]
//!     [--shapes LIST] [--paths fp32,tf32,f16,bf16] [--reps N] [--samples N] [--device N]
//! bundle/examples/bench_report --out $OUT          # in the GPU bundle
//! ```
//!
//! 1. Instruction ceilings: tcgemm's microkernels (FFMA, `mma.sync` TF32/F16/BF16 from registers),
//!    loop trips chosen so that one launch takes about 6 ms, median of 5 launches.
//! 2. For every shape and path (fp32 = exact FP32, tf32, f16 → f16, bf16 → bf16, and f16 → f32 on
//!    the power-of-two squares): random non-zero inputs in `[-1, 1]`, `C = A·B` row-major, packed,
//!    `alpha = 1`, `beta = 0`. The implementations are tcgemm's dispatch, every `--kernels` kernel
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
//!
//! A progress line per case goes to stderr; the ceilings table and then the results table go to
//! stdout (the results table last). Without libcublas the report has tcgemm's figures alone and
//! says why. Exit status: 0 done, 1 a case failed (an error other than "unsupported", or
//! non-finite entries in tcgemm's C) or the report could not be written, 2 no usable CUDA GPU,
//! 64 bad arguments.

#[path = "support/mod.rs"]
mod support;

use std::cell::Cell;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cudarc::cublas::CudaBlas;
use half::{bf16, f16};
use tcgemm::{Context, Error, KernelSpec, Math, Role};

use support::check::Reference;
use support::gpu::{self, Ceiling, Open, Sets, Timer};
use support::{blas, El, Path, Shape};

const USAGE: &str = "\
usage: bench_report [--out DIR] [--quick] [--kernels NAME,NAME,...] [--shapes LIST]
                    [--paths fp32,tf32,f16,bf16] [--reps N] [--samples N] [--device N]
  --out DIR      where BENCHMARKS.md and ratio.svg go (default: $OUT if set, else .)
  --quick        the squares 4096 and 8192 only
  --kernels L    also time these kernels by name (Context::gemm_with_kernel) on every shape and
                 path and layout whose element types they take; extra rows
  --shapes L     comma list of N, MxNxK, BATCH*MxNxK or presets: squares, transformer, skinny,
                 odd, batched, quick, all (default: all)
  --paths L      comma list of fp32, tf32, f16, f16f32, bf16 (default: fp32,tf32,f16,bf16;
                 f16 also runs f16->f32 on power-of-two squares)
  --reps N       timed rounds per case (default: about 1 s of GPU time, 5..100)
  --samples N    sampled entries of C checked against f64 (default 1024)
  --device N     CUDA device ordinal (default 0)";

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

struct Args {
    out: PathBuf,
    quick: bool,
    kernels: Vec<String>,
    shapes: Option<Vec<Shape>>,
    paths: Option<Vec<Path>>,
    reps: Option<usize>,
    samples: usize,
    device: usize,
    command: String,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        out: std::env::var_os("OUT")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from),
        quick: false,
        kernels: Vec::new(),
        shapes: None,
        paths: None,
        reps: None,
        samples: 1024,
        device: 0,
        command: std::iter::once("bench_report".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let mut flags = support::args::Flags::from_env();
    while let Some(flag) = flags.next_flag() {
        match flag.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--out" => a.out = PathBuf::from(flags.value("--out")?),
            "--quick" => a.quick = true,
            "--kernels" => a.kernels.extend(
                flags
                    .value("--kernels")?
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            ),
            "--shapes" => a.shapes = Some(Shape::parse_list(&flags.value("--shapes")?)?),
            "--paths" => {
                let mut v = Vec::new();
                for p in flags
                    .value("--paths")?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                {
                    v.push(Path::parse(p).ok_or_else(|| {
                        format!("unknown path '{p}' (fp32, tf32, f16, f16f32, bf16)")
                    })?);
                }
                a.paths = Some(v);
            }
            "--reps" => a.reps = Some(flags.number("--reps")?.max(1)),
            "--samples" => a.samples = flags.number("--samples")?.max(1),
            "--device" => a.device = flags.number("--device")?,
            s => return Err(format!("unknown argument '{s}'")),
        }
    }
    Ok(a)
}

/// The (shape, path) cases in report order: shape by shape, paths in [`Path::ALL`] order.
fn cases(args: &Args) -> Vec<(Shape, Path)> {
    let shapes = match &args.shapes {
        Some(s) => s.clone(),
        None if args.quick => support::QUICK.to_vec(),
        None => support::all_shapes(),
    };
    let mut v = Vec::new();
    for s in shapes {
        for p in Path::ALL {
            let on = match &args.paths {
                None => p != Path::F16F32 || s.is_pow2_square(),
                Some(list) => {
                    list.contains(&p)
                        || (p == Path::F16F32 && list.contains(&Path::F16) && s.is_pow2_square())
                }
            };
            if on {
                v.push((s, p));
            }
        }
    }
    v
}

// ---------------------------------------------------------------------------------------------
// One case
// ---------------------------------------------------------------------------------------------

/// Timed rounds per case: at least, at most, and the GPU time aimed at (ms).
const MIN_REPS: usize = 5;
const MAX_REPS: usize = 100;
const CASE_BUDGET_MS: f64 = 1000.0;
/// After this long (s), every further case runs `MIN_REPS` rounds (keeps a slow run bounded).
const SLOW_AFTER_S: f64 = 360.0;

#[derive(Clone, Debug)]
struct Meas {
    ms: f64,
    tflops: f64,
    err: f64,
    reps: usize,
}

#[derive(Clone, Debug)]
struct Row {
    shape: Shape,
    path: Path,
    kernel: String,
    forced: bool,
    ours: Result<Meas, String>,
    blas: Result<Meas, String>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Imp {
    Dispatch,
    Forced(&'static str),
    Cublas,
}

struct Env<'a> {
    ctx: &'a Context,
    blas: Result<CudaBlas, String>,
    extras: Vec<&'static KernelSpec>,
    samples: usize,
    reps: Option<usize>,
    started: Instant,
    /// Buffer sets per case, for the method notes (fewest, most).
    sets_seen: Cell<(usize, usize)>,
    /// Timed rounds per case, for the method notes (fewest, most).
    reps_seen: Cell<(usize, usize)>,
}

fn err_text(e: Error) -> String {
    match e {
        Error::Unsupported(why) => format!("unsupported: {why}"),
        other => other.to_string(),
    }
}

fn launch<I: El, O: El>(
    env: &Env<'_>,
    imp: Imp,
    path: Path,
    shape: Shape,
    sets: &mut Sets<I, O>,
    s: usize,
) -> Result<(), String> {
    let g = shape.gemm(path.precision());
    let Sets { a, b, c, .. } = sets;
    match imp {
        Imp::Dispatch => env
            .ctx
            .gemm(&g, &a[s], &b[s], &mut c[s])
            .map(drop)
            .map_err(err_text),
        Imp::Forced(name) => env
            .ctx
            .gemm_with_kernel(name, &g, &a[s], &b[s], &mut c[s])
            .map(drop)
            .map_err(err_text),
        Imp::Cublas => match &env.blas {
            Ok(h) => blas::gemm::<I, O>(
                h,
                env.ctx.stream(),
                path.cublas_compute(),
                shape,
                &a[s],
                &b[s],
                &mut c[s],
            ),
            Err(why) => Err(why.clone()),
        },
    }
}

/// Poisons C of set 0, runs `imp` once there and returns its sampled relative error.
fn check<I: El, O: El>(
    env: &Env<'_>,
    imp: Imp,
    path: Path,
    shape: Shape,
    sets: &mut Sets<I, O>,
    reference: &Reference,
) -> Result<f64, String> {
    let stream = env.ctx.stream();
    gpu::poison(stream, &mut sets.c[0])?;
    launch(env, imp, path, shape, sets, 0)?;
    let c = stream
        .clone_dtoh(&sets.c[0])
        .map_err(|e| format!("download C: {e}"))?;
    stream
        .synchronize()
        .map_err(|e| format!("synchronize: {e}"))?;
    Ok(reference.rel_error(&c))
}

/// Measures one (shape, path): the dispatch row first, then one row per forced kernel.
fn run_case<I: El, O: El>(
    env: &Env<'_>,
    timer: &mut Timer<'_>,
    shape: Shape,
    path: Path,
) -> Vec<Row> {
    let g = shape.gemm(path.precision());
    let plan = env
        .ctx
        .plan::<I, O>(&g)
        .map(|p| p.kernel.name)
        .map_err(err_text);
    let mut imps: Vec<Imp> = Vec::new();
    let mut rows = vec![Row {
        shape,
        path,
        kernel: plan.as_ref().map_or("–".to_string(), |k| k.to_string()),
        forced: false,
        ours: Err(plan.as_ref().err().cloned().unwrap_or_default()),
        blas: Err(match &env.blas {
            Ok(_) => "not run".into(),
            Err(why) => format!("cuBLAS unavailable: {why}"),
        }),
    }];
    if plan.is_ok() {
        imps.push(Imp::Dispatch);
    }
    for spec in env.extras.iter().filter(|s| path.runs(s, &shape)) {
        imps.push(Imp::Forced(spec.name));
        rows.push(Row {
            kernel: spec.name.to_string(),
            forced: true,
            ours: Err("not run".into()),
            ..rows[0].clone()
        });
    }
    if env.blas.is_ok() {
        imps.push(Imp::Cublas);
    }
    if imps.is_empty() {
        return rows;
    }
    let row_of = |imp: Imp, rows: &[Row]| -> Option<usize> {
        match imp {
            Imp::Dispatch => Some(0),
            Imp::Forced(name) => rows.iter().position(|r| r.forced && r.kernel == name),
            Imp::Cublas => None,
        }
    };
    let set_result =
        |rows: &mut Vec<Row>, imp: Imp, r: Result<Meas, String>| match row_of(imp, rows) {
            Some(i) => rows[i].ours = r,
            None => rows.iter_mut().for_each(|row| row.blas = r.clone()),
        };

    let mut sets = match Sets::<I, O>::new(env.ctx, shape, 0x7c3a_0001) {
        Ok(s) => s,
        Err(e) => {
            for &imp in &imps {
                set_result(&mut rows, imp, Err(format!("setup: {e}")));
            }
            return rows;
        }
    };
    let (lo, hi) = env.sets_seen.get();
    env.sets_seen.set((lo.min(sets.len()), hi.max(sets.len())));
    let reference = Reference::new(&sets.ha, &sets.hb, shape, env.samples);

    // Accuracy, one implementation at a time; failures drop out of the timing.
    let mut active: Vec<(Imp, f64)> = Vec::new();
    for &imp in &imps {
        match check(env, imp, path, shape, &mut sets, &reference) {
            Ok(err) => active.push((imp, err)),
            Err(e) => set_result(&mut rows, imp, Err(e)),
        }
    }
    if active.is_empty() {
        return rows;
    }

    // Speed: interleaved rounds, each launch on the next buffer set.
    let n = active.len();
    let nsets = sets.len();
    let order: Vec<Imp> = active.iter().map(|a| a.0).collect();
    let mut next = 0usize;
    let mut timed = |timer: &mut Timer<'_>, rounds: usize| {
        timer.each(rounds * n, &mut |j| {
            let s = next % nsets;
            next += 1;
            launch(env, order[j % n], path, shape, &mut sets, s)
        })
    };
    let result = timed(timer, 2).and_then(|warm| {
        let round_ms: f64 = warm[n..].iter().sum();
        let reps = match env.reps {
            Some(r) => r,
            None if env.started.elapsed().as_secs_f64() > SLOW_AFTER_S => MIN_REPS,
            None => ((CASE_BUDGET_MS / round_ms.max(1e-3)) as usize).clamp(MIN_REPS, MAX_REPS),
        };
        timed(timer, reps).map(|t| (t, reps))
    });
    match result {
        Ok((times, reps)) => {
            let (lo, hi) = env.reps_seen.get();
            env.reps_seen.set((lo.min(reps), hi.max(reps)));
            for (i, &(imp, err)) in active.iter().enumerate() {
                let mine: Vec<f64> = times.iter().skip(i).step_by(n).copied().collect();
                let ms = gpu::median(&mine);
                let m = Meas {
                    ms,
                    tflops: shape.flops() as f64 / (ms * 1e-3) / 1e12,
                    err,
                    reps,
                };
                set_result(&mut rows, imp, Ok(m));
            }
        }
        Err(e) => {
            for &(imp, _) in &active {
                set_result(&mut rows, imp, Err(format!("timing: {e}")));
            }
        }
    }
    rows
}

fn run_path(env: &Env<'_>, timer: &mut Timer<'_>, shape: Shape, path: Path) -> Vec<Row> {
    match path {
        Path::Fp32 | Path::Tf32 => run_case::<f32, f32>(env, timer, shape, path),
        Path::F16 => run_case::<f16, f16>(env, timer, shape, path),
        Path::F16F32 => run_case::<f16, f32>(env, timer, shape, path),
        Path::Bf16 => run_case::<bf16, bf16>(env, timer, shape, path),
    }
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

fn tflops(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn rel_err(e: f64) -> String {
    if e.is_finite() {
        format!("{e:.1e}")
    } else {
        "NaN/inf".into()
    }
}

/// A short table cell for an error message; the full text goes to the notes.
fn short(msg: &str) -> String {
    if msg.starts_with("unsupported") {
        "unsupported".into()
    } else if msg.starts_with("cuBLAS unavailable") {
        "n/a".into()
    } else {
        "error".into()
    }
}

fn ceiling_of(ceilings: &[(Math, Result<Ceiling, String>)], math: Math) -> Option<&Ceiling> {
    ceilings
        .iter()
        .find(|(m, _)| *m == math)
        .and_then(|(_, c)| c.as_ref().ok())
}

fn ratio(r: &Row) -> Option<f64> {
    match (&r.ours, &r.blas) {
        (Ok(o), Ok(b)) if b.tflops > 0.0 => Some(o.tflops / b.tflops),
        _ => None,
    }
}

fn ceilings_table(ceilings: &[(Math, Result<Ceiling, String>)]) -> String {
    let mut s = String::from(
        "| instruction | kernel | TFLOPS | ms per launch | loop trips |\n|---|---|---:|---:|---:|\n",
    );
    for (math, c) in ceilings {
        match c {
            Ok(c) => {
                let _ = writeln!(
                    s,
                    "| {} | `{}` | {} | {:.3} | {} |",
                    gpu::math_name(*math),
                    c.kernel,
                    tflops(c.tflops),
                    c.ms,
                    c.trips
                );
            }
            Err(e) => {
                let _ = writeln!(
                    s,
                    "| {} | `{}` | error: {} | – | – |",
                    gpu::math_name(*math),
                    gpu::ceiling_kernel(*math).unwrap_or("–"),
                    e.replace('|', "/")
                );
            }
        }
    }
    s
}

/// The results table and the notes (full error messages, numbered).
fn results_table(
    rows: &[Row],
    ceilings: &[(Math, Result<Ceiling, String>)],
) -> (String, Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    let mut note = |msg: &str| -> String {
        let i = match notes.iter().position(|n| n == msg) {
            Some(i) => i,
            None => {
                notes.push(msg.to_string());
                notes.len() - 1
            }
        };
        format!("{} [{}]", short(msg), i + 1)
    };
    let mut s = String::from(
        "| shape | path | kernel | ours TFLOPS | cuBLAS TFLOPS | ours / cuBLAS | % of ceiling | ours rel err | cuBLAS rel err |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let kernel = if r.forced {
            format!("`{}` (forced)", r.kernel)
        } else if r.kernel == "–" {
            r.kernel.clone()
        } else {
            format!("`{}`", r.kernel)
        };
        let (ours, ours_err, of_ceiling) = match &r.ours {
            Ok(m) => (
                tflops(m.tflops),
                rel_err(m.err),
                ceiling_of(ceilings, r.path.ceiling_math()).map_or("–".into(), |c| {
                    format!("{:.0}%", 100.0 * m.tflops / c.tflops)
                }),
            ),
            Err(e) => (note(e), "–".into(), "–".into()),
        };
        let (theirs, theirs_err) = match &r.blas {
            Ok(m) => (tflops(m.tflops), rel_err(m.err)),
            Err(e) => (note(e), "–".into()),
        };
        let ratio = ratio(r).map_or("–".into(), |x| format!("{:.0}%", 100.0 * x));
        let _ = writeln!(
            s,
            "| {} | {} | {kernel} | {ours} | {theirs} | {ratio} | {of_ceiling} | {ours_err} | {theirs_err} |",
            r.shape.label(),
            r.path.name()
        );
    }
    (s, notes)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal bar per dispatch row: ours / cuBLAS, with a line at 100%.
fn ratio_svg(rows: &[Row], device: &str) -> String {
    let rows: Vec<&Row> = rows.iter().filter(|r| !r.forced).collect();
    let (label_w, bar_w, row_h, top, bottom) = (250.0, 560.0, 16.0, 56.0, 40.0);
    let width = label_w + bar_w + 70.0;
    let height = top + row_h * rows.len() as f64 + bottom;
    let max = rows
        .iter()
        .filter_map(|r| ratio(r))
        .fold(1.25f64, f64::max)
        .min(4.0);
    let max = (max * 4.0).ceil() / 4.0;
    let x = |v: f64| label_w + bar_w * v.min(max) / max;
    let color = |p: Path| match p {
        Path::Fp32 => "#4e79a7",
        Path::Tf32 => "#f28e2b",
        Path::F16 => "#59a14f",
        Path::F16F32 => "#76b7b2",
        Path::Bf16 => "#e15759",
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" font-weight="bold">tcgemm / cuBLAS throughput ({})</text>"#,
        label_w,
        escape(device)
    );
    // Legend.
    let mut lx = label_w;
    for p in [Path::Fp32, Path::Tf32, Path::F16, Path::F16F32, Path::Bf16] {
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="30" width="10" height="10" fill="{}"/><text x="{}" y="39">{}</text>"#,
            color(p),
            lx + 14.0,
            escape(p.name())
        );
        lx += 80.0;
    }
    // Grid every 25%.
    let mut t = 0.0;
    while t <= max + 1e-9 {
        let gx = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{gx}" y1="{}" x2="{gx}" y2="{}" stroke="#ddd"/><text x="{gx}" y="{}" text-anchor="middle">{:.0}%</text>"##,
            top - 4.0,
            height - bottom + 4.0,
            height - bottom + 18.0,
            t * 100.0
        );
        t += 0.25;
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{} {}</text>"#,
            label_w - 6.0,
            y + row_h * 0.75,
            escape(&r.shape.label()),
            escape(r.path.name())
        );
        match ratio(r) {
            Some(v) => {
                let _ = writeln!(
                    s,
                    r#"<rect x="{label_w}" y="{}" width="{:.1}" height="{}" fill="{}"/><text x="{}" y="{}">{:.0}%{}</text>"#,
                    y + 2.0,
                    x(v) - label_w,
                    row_h - 4.0,
                    color(r.path),
                    x(v) + 4.0,
                    y + row_h * 0.75,
                    v * 100.0,
                    if v > max { " ▸" } else { "" }
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    r##"<text x="{}" y="{}" fill="#888">n/a</text>"##,
                    label_w + 4.0,
                    y + row_h * 0.75
                );
            }
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#c00" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
        x(1.0),
        top - 8.0,
        height - bottom + 4.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">tcgemm TFLOPS / cuBLAS TFLOPS (dispatch; 100% = parity)</text>"#,
        label_w + bar_w / 2.0,
        height - 6.0
    );
    s.push_str("</svg>\n");
    s
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// The NVIDIA kernel-module version (the first `N.N...` word of `/proc/driver/nvidia/version`,
/// Linux), else that file's first line.
fn kernel_module_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    let version = line.split_whitespace().find(|w| {
        w.contains('.')
            && w.chars().all(|c| c.is_ascii_digit() || c == '.')
            && w.starts_with(|c: char| c.is_ascii_digit())
    });
    Some(version.map_or_else(|| line.trim().to_string(), str::to_string))
}

/// cuDriverGetVersion as `major.minor`.
fn driver_api_version() -> Option<String> {
    gpu::guarded("cuDriverGetVersion", || {
        let mut v = 0;
        // SAFETY: writes one int; the driver library is loaded (a context exists).
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }
            .result()
            .map_err(|e| e.to_string())?;
        Ok(blas::cuda_version(v as usize))
    })
    .ok()
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("bench_report: {e}\n{USAGE}");
            return ExitCode::from(64);
        }
    };
    let ctx = match gpu::open(args.device) {
        Ok(c) => c,
        Err(Open::NoGpu(why)) => {
            eprintln!(
                "bench_report: no usable CUDA GPU (device {}): {why}",
                args.device
            );
            return ExitCode::from(2);
        }
        Err(Open::Broken(why)) => {
            eprintln!("bench_report: {why}");
            return ExitCode::from(2);
        }
    };

    // Kernels forced by name.
    let mut extras: Vec<&'static KernelSpec> = Vec::new();
    for name in &args.kernels {
        match tcgemm_kernels::config::find_kernel(name) {
            Some(spec) if spec.role() == Role::Gemm => {
                if !extras.contains(&spec) {
                    extras.push(spec);
                }
            }
            Some(_) => {
                eprintln!(
                    "bench_report: `{name}` is an instruction-ceiling kernel, not a GEMM kernel"
                );
                return ExitCode::from(64);
            }
            None => {
                let names: Vec<&str> = ctx
                    .kernels()
                    .iter()
                    .filter(|k| k.role() == Role::Gemm)
                    .map(|k| k.name)
                    .collect();
                eprintln!(
                    "bench_report: no kernel named `{name}`; runnable kernels: {}",
                    names.join(", ")
                );
                return ExitCode::from(64);
            }
        }
    }
    let cases = cases(&args);
    for spec in &extras {
        if !cases.iter().any(|(sh, p)| p.runs(spec, sh)) {
            eprintln!(
                "bench_report: warning: `{}` ({:?} -> {:?}, {:?}, trans_a={}, trans_b={}) serves none of the selected (path, layout) cases; it gets no rows",
                spec.name, spec.input, spec.output, spec.math, spec.trans_a, spec.trans_b
            );
        }
    }

    let caps = ctx.capabilities().clone();
    let total_mem = ctx.cuda().total_mem().unwrap_or(0);
    let device_line = format!(
        "{} (sm_{}{}, {} SMs, L2 {} MiB, {:.0} GiB), modules {:?}",
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        caps.l2_bytes >> 20,
        total_mem as f64 / (1u64 << 30) as f64,
        caps.targets
    );
    eprintln!("bench_report: device {}: {device_line}", caps.ordinal);
    let blas_handle = blas::load(ctx.stream());
    let (cublas_version, cudart_version) = if blas_handle.is_ok() {
        blas::versions()
    } else {
        (None, None)
    };
    match &blas_handle {
        Ok(_) => eprintln!(
            "bench_report: cuBLAS {} loaded",
            cublas_version.as_deref().unwrap_or("(version unknown)")
        ),
        Err(why) => eprintln!("bench_report: cuBLAS unavailable, reporting tcgemm alone: {why}"),
    }
    let mut timer = match Timer::new(&ctx) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bench_report: timer: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(why) = &timer.no_delay {
        eprintln!("bench_report: warning: no GPU-side delay ({why}); short launches may include host gaps");
    }
    let env = Env {
        ctx: &ctx,
        blas: blas_handle,
        extras,
        samples: args.samples,
        reps: args.reps,
        started: Instant::now(),
        sets_seen: Cell::new((usize::MAX, 0)),
        reps_seen: Cell::new((usize::MAX, 0)),
    };

    // 1. Instruction ceilings.
    let mut ceilings: Vec<(Math, Result<Ceiling, String>)> = Vec::new();
    for math in gpu::CEILINGS {
        let c = gpu::measure_ceiling(&mut timer, math, 6.0, 5);
        match &c {
            Ok(c) => eprintln!(
                "ceiling {:<20} {:>8} TFLOPS  ({:.2} ms, {} trips, {})",
                gpu::math_name(math),
                tflops(c.tflops),
                c.ms,
                c.trips,
                c.kernel
            ),
            Err(e) => eprintln!("ceiling {:<20} error: {e}", gpu::math_name(math)),
        }
        ceilings.push((math, c));
    }

    // 2. Cases.
    let mut rows: Vec<Row> = Vec::new();
    let mut failed = false;
    for (i, &(shape, path)) in cases.iter().enumerate() {
        let t0 = Instant::now();
        let case_rows = run_path(&env, &mut timer, shape, path);
        for r in &case_rows {
            let ours = match &r.ours {
                Ok(m) => format!(
                    "{:>8} TFLOPS {:.3} ms err {:<8}",
                    tflops(m.tflops),
                    m.ms,
                    rel_err(m.err)
                ),
                Err(e) => e.clone(),
            };
            let theirs = match &r.blas {
                Ok(m) => format!(
                    "cuBLAS {:>8} TFLOPS {:.3} ms err {:<8}",
                    tflops(m.tflops),
                    m.ms,
                    rel_err(m.err)
                ),
                Err(e) => e.clone(),
            };
            let ratio = ratio(r).map_or(String::new(), |x| format!(" {:.0}%", 100.0 * x));
            let reps = r.ours.as_ref().or(r.blas.as_ref()).map_or(0, |m| m.reps);
            eprintln!(
                "[{}/{}] {} {}: {}{} | {theirs}{ratio} | {} reps, {:.1} s",
                i + 1,
                cases.len(),
                shape.label(),
                path.name(),
                if r.forced { "forced " } else { "" },
                if r.kernel == "–" {
                    ours
                } else {
                    format!("{} {ours}", r.kernel)
                },
                reps,
                t0.elapsed().as_secs_f64()
            );
            match &r.ours {
                Err(e) if !e.starts_with("unsupported") => failed = true,
                Ok(m) if !m.err.is_finite() => failed = true,
                _ => {}
            }
        }
        rows.extend(case_rows);
    }

    // 3. Report.
    let (table, notes) = results_table(&rows, &ceilings);
    let ceil_table = ceilings_table(&ceilings);
    let mut md = String::from("# tcgemm benchmarks\n\n");
    let _ = writeln!(md, "- Device: {device_line}");
    let _ = writeln!(
        md,
        "- NVIDIA driver: {}; CUDA driver API {}",
        kernel_module_version().unwrap_or_else(|| "unknown".into()),
        driver_api_version().unwrap_or_else(|| "unknown".into())
    );
    match &env.blas {
        Ok(_) => {
            let _ = writeln!(
                md,
                "- cuBLAS: {} (built for CUDA runtime {})",
                cublas_version.as_deref().unwrap_or("version unknown"),
                cudart_version.as_deref().unwrap_or("unknown")
            );
        }
        Err(why) => {
            let _ = writeln!(md, "- cuBLAS: unavailable ({why}); tcgemm's figures alone");
        }
    }
    let _ = writeln!(md, "- Date: {}", utc_now());
    let _ = writeln!(md, "- Command: `{}`", args.command);
    let range = |(lo, hi): (usize, usize)| match (lo, hi) {
        (usize::MAX, _) => "–".to_string(),
        (lo, hi) if lo == hi => lo.to_string(),
        (lo, hi) => format!("{lo} to {hi}"),
    };
    let _ = writeln!(
        md,
        "- Method: device time from CUDA events around each launch; median of {} interleaved rounds per case \
         (tcgemm, forced kernels, cuBLAS; one launch each) after 2 warm-up rounds; {} rotating buffer sets per case \
         (≥ 2× L2 where memory allows); launches queued behind a GPU-side delay (host enqueue ≈ {:.1} µs per launch){}; \
         TFLOPS = 2·m·n·k·batch / time. Error: relative 2-norm error over {} sampled entries of C (NaN-poisoned \
         before the run) against an f64 reference. Inputs uniform in [-1, 1], never zero; alpha = 1, beta = 0, \
         row-major, no transposes except where the shape ends in `:nt` (B stored n×k), `:tn` (A stored k×m) or `:tt` (both). % of ceiling: ours / \
         the measured ceiling of the path's instruction (fp32: FFMA, tf32: MMA tf32, f16: MMA f16, bf16: MMA \
         bf16; tcgemm's `mma.sync` microkernels, which `wgmma` kernels, tcgemm's `_tma` ones and cuBLAS's on \
         Hopper, exceed).",
        range(env.reps_seen.get()),
        range(env.sets_seen.get()),
        timer.host_us,
        timer
            .no_delay
            .as_ref()
            .map_or(String::new(), |w| format!(" (delay unavailable: {w})")),
        args.samples
    );
    let _ = writeln!(md, "\n## Instruction ceilings\n\n{ceil_table}");
    let _ = writeln!(md, "## tcgemm vs cuBLAS\n\n{table}");
    if !notes.is_empty() {
        md.push_str("Notes:\n\n");
        for (i, n) in notes.iter().enumerate() {
            let _ = writeln!(md, "{}. {}", i + 1, n.replace('\n', " "));
        }
        md.push('\n');
    }
    let svg_ok = env.blas.is_ok();
    if svg_ok {
        md.push_str("![tcgemm / cuBLAS throughput per shape and path](ratio.svg)\n");
    } else {
        md.push_str("(No ratio chart: cuBLAS was unavailable.)\n");
    }
    let written = std::fs::create_dir_all(&args.out)
        .and_then(|()| std::fs::write(args.out.join("BENCHMARKS.md"), &md))
        .and_then(|()| {
            if svg_ok {
                std::fs::write(args.out.join("ratio.svg"), ratio_svg(&rows, &caps.name))
            } else {
                Ok(())
            }
        });
    match &written {
        Ok(()) => eprintln!(
            "bench_report: wrote {}{} ({:.0} s)",
            args.out.join("BENCHMARKS.md").display(),
            if svg_ok { " and ratio.svg" } else { "" },
            env.started.elapsed().as_secs_f64()
        ),
        Err(e) => eprintln!(
            "bench_report: could not write the report to {}: {e}",
            args.out.display()
        ),
    }
    println!("## Instruction ceilings ({})\n\n{ceil_table}", caps.name);
    if !notes.is_empty() {
        println!("Notes:");
        for (i, n) in notes.iter().enumerate() {
            println!("{}. {}", i + 1, n.replace('\n', " "));
        }
        println!();
    }
    print!("{table}");
    if failed || written.is_err() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
