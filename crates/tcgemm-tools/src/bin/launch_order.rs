//! Times 16-bit GEMM kernels by the launch before them: for every ordered pair (X, Y) of the named
//! kernels, rounds of "X, then Y", each launch on the next of the shape's rotating buffer sets
//! (`tcgemm_testkit::sets`, spanning at least twice the L2, as `bench_report` rotates them), and
//! the median device time of Y after X. `ffma` names the FFMA ceiling kernel (no memory traffic),
//! as a launch before. A tool for kernel work: short calls run measurably slower after some other
//! kernels than after themselves (docs/hopper-log.md, session 53).
//!
//! ```text
//! launch_order [--shape MxNxK[:nt|:tn|:tt]] [--kernels NAME,NAME,...] [--rounds R] [--device N]
//! ```
//!
//! Prints a markdown table: a row per launch before, a column per timed kernel, µs (median of
//! `R` rounds after two warm-up rounds, device time from CUDA events behind a GPU-side delay).
//! Exits 2 without a GPU, 64 on bad arguments (a name that is no kernel of this build among them),
//! 1 when a launch fails (its cell says why).

use std::process::ExitCode;

use clap::Parser;
use half::f16;
use tcgemm::{Context, Math, Precision};
use tcgemm_testkit::{median, open_for, Sets, Shape, Timer};
use tcgemm_tools::{err_text, gemm_kernels, parse_args, EX_USAGE};

/// The name that stands for the FFMA ceiling kernel.
const FFMA: &str = "ffma";
/// The kernels timed without `--kernels` (session 53's measurement).
const DEFAULT_KERNELS: &str = "f16_f16_nn_128x256x64_w64x256_s4_tma,\
f16_f16_nn_128x256x64_w64x256_s4_tma_x2,f16_f16_nn_128x128x64_w64x128_s6_tma,ffma";

/// Times 16-bit GEMM kernels by the launch before them.
#[derive(Parser, Debug)]
#[command(name = "launch_order")]
struct Args {
    /// The product (f16 inputs and output), `MxNxK` with an optional layout `:nt`, `:tn`, `:tt`.
    #[arg(long, default_value = "4096x4096x128", value_parser = Shape::parse)]
    shape: Shape,
    /// Kernels by name (`Context::kernels`), and `ffma` for the FFMA ceiling kernel (default: the
    /// `nn` 128×256 tile alone and in pairs, the 128×128 tile, ffma).
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_KERNELS)]
    kernels: Vec<String>,
    /// Timed rounds per pair.
    #[arg(long, default_value_t = 41)]
    rounds: usize,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// Launches `kernel` on set `s` of `sets` (or the FFMA ceiling kernel into `out`).
fn launch(
    ctx: &Context,
    kernel: &str,
    sets: &mut Sets<f16, f16>,
    s: usize,
    out: &mut cudarc::driver::CudaSlice<f32>,
) -> Result<(), String> {
    if kernel == FFMA {
        return ctx
            .instruction_ceiling(Math::Ffma, 1, 2000, out)
            .map(|_| ())
            .map_err(err_text);
    }
    let g = sets.shape.gemm(Precision::Default);
    let (a, b, mut c) = sets.views(s);
    ctx.gemm_with_kernel(kernel, &g, &a, &b, &mut c)
        .map(|_| ())
        .map_err(err_text)
}

/// Median µs of `timed` launched right after `before`, each launch on the next buffer set.
fn time_after(
    timer: &mut Timer<'_>,
    sets: &mut Sets<f16, f16>,
    out: &mut cudarc::driver::CudaSlice<f32>,
    (before, timed): (&str, &str),
    rounds: usize,
) -> Result<f64, String> {
    let ctx = timer.ctx();
    let order = [before, timed];
    let n = sets.len();
    let mut run = |j: usize| launch(ctx, order[j % 2], sets, j % n, out);
    timer.each(4, &mut run)?;
    let ms = timer.each(2 * rounds, &mut run)?;
    let timed: Vec<f64> = ms.iter().skip(1).step_by(2).copied().collect();
    Ok(1e3 * median(&timed))
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let ctx = match open_for("launch_order", args.device) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // every name but `ffma` is a GEMM kernel of this build: a typo is a usage error, not a
    // table of errors
    let gemms: Vec<String> = args
        .kernels
        .iter()
        .filter(|k| *k != FFMA)
        .cloned()
        .collect();
    let timed: Vec<&str> = match gemm_kernels(&ctx, &gemms) {
        Ok(specs) => specs.iter().map(|s| s.name).collect(),
        Err(why) => {
            eprintln!("launch_order: {why}");
            return ExitCode::from(EX_USAGE);
        }
    };
    let setup = Sets::<f16, f16>::new(&ctx, args.shape, 1).and_then(|sets| {
        let out = ctx.stream().alloc_zeros::<f32>(1 << 20);
        Ok((sets, out.map_err(|e| e.to_string())?))
    });
    let (mut sets, mut out) = match setup {
        Ok(s) => s,
        Err(e) => {
            eprintln!("launch_order: setup: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut timer = Timer::new(&ctx);
    let mut failed = false;
    println!(
        "{} f16, {} buffer sets; µs of the column's kernel right after the row's",
        args.shape.label(),
        sets.len()
    );
    println!("\n| launch before | {} |", timed.join(" | "));
    println!("|---|{}", "---:|".repeat(timed.len()));
    for before in &args.kernels {
        let cells: Vec<String> = timed
            .iter()
            .map(|&k| {
                let pair = (before.as_str(), k);
                match time_after(&mut timer, &mut sets, &mut out, pair, args.rounds) {
                    Ok(us) => format!("{us:.2}"),
                    Err(e) => {
                        failed = true;
                        format!("error: {e}")
                    }
                }
            })
            .collect();
        println!("| {before} | {} |", cells.join(" | "));
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
