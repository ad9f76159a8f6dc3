//! Times every GEMM kernel of the table that serves a type pair, by name, on square shapes (and the
//! instruction ceilings at 1, 2 and 4 blocks of 8 warps per SM), so kernel variants are compared in
//! one process. A tool for kernel work; the comparison with cuBLAS is `bench_report`.
//!
//! ```text
//! kernel_sweep [f32|tf32|f16|bf16|f16f32|bf16f32 ...] [SIZE ...] [--all-layouts] [--filter TEXT]...
//!              [--device N]
//! ```
//!
//! Default: every pair, sizes 2048 4096 8192, the `nn` kernels only (`--all-layouts`, or the
//! environment variable `SWEEP_ALL_LAYOUTS`, adds `nt`, `tn` and `tt`). Prints a markdown row
//! `path, kernel, n, median ms, TFLOPS` per kernel and size: median of 10 timed runs after 3
//! warm-ups, device time from CUDA events behind a GPU-side delay, launches rotating through
//! buffer sets of random inputs spanning at least twice the L2 (`tcgemm_testkit::sets`). Exits 2
//! without a GPU, 64 on bad arguments.

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use half::{bf16, f16};
use tcgemm::{Gemm, Math, Role};
use tcgemm_testkit::{ceiling, median, open_for, Sets, Shape, TestElem, Timer};
use tcgemm_tools::{err_text, parse_args};

/// Times every GEMM kernel of a type pair by name on square shapes, and the instruction ceilings.
#[derive(Parser, Debug)]
#[command(name = "kernel_sweep")]
struct Args {
    /// Type pairs (f32, tf32, f16, bf16, f16f32, bf16f32) and sizes N (N×N×N), in any order
    /// [default: every pair; 2048 4096 8192].
    #[arg(value_parser = parse_item, value_name = "PAIR|SIZE")]
    items: Vec<Item>,
    /// Also the nt, tn and tt kernels (default: nn only).
    #[arg(long)]
    all_layouts: bool,
    /// Only the kernels whose name contains one of these texts (repeatable; default: every
    /// kernel of the pair).
    #[arg(long, value_name = "TEXT")]
    filter: Vec<String>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// A type pair and its arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Pair {
    F32,
    Tf32,
    F16,
    F16f32,
    Bf16,
    Bf16f32,
}

#[derive(Clone, Copy, Debug)]
enum Item {
    Pair(Pair),
    Size(usize),
}

fn parse_item(s: &str) -> Result<Item, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(Item::Size(n)),
        Ok(_) => Err("sizes must be positive".into()),
        Err(_) => Pair::from_str(s, true).map(Item::Pair),
    }
}

/// Device time of kernel `name` on `n×n×n` with transposes `(ta, tb)`: median of 10 runs after
/// 3 warm-ups, rotating through `sets`.
fn time_kernel<I: TestElem, O: TestElem>(
    timer: &mut Timer<'_>,
    name: &str,
    (n, ta, tb): (usize, bool, bool),
    sets: &mut Sets<I, O>,
) -> Result<f64, String> {
    let ctx = timer.ctx();
    let g = Gemm::new(n, n, n).trans_a(ta).trans_b(tb);
    let count = sets.len();
    let mut run = |j: usize| {
        let Sets { a, b, c, .. } = &mut *sets;
        let s = j % count;
        ctx.gemm_with_kernel(name, &g, &a[s], &b[s], &mut c[s])
            .map(|_| ())
            .map_err(err_text)
    };
    timer.each(3, &mut run)?;
    Ok(median(&timer.each(10, &mut run)?))
}

/// One row per kernel serving `I -> O` (and `math`, for f32 inputs) and size.
fn sweep<I: TestElem, O: TestElem>(
    timer: &mut Timer<'_>,
    (label, math): (&str, Option<Math>),
    sizes: &[usize],
    (all_layouts, filter): (bool, &[String]),
) {
    let ctx = timer.ctx();
    let kernels: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| k.role() == Role::Gemm && k.input == I::ELEM && k.output == O::ELEM)
        .filter(|k| all_layouts || (!k.trans_a && !k.trans_b))
        .filter(|k| math.is_none_or(|m| k.math == m))
        .filter(|k| filter.is_empty() || filter.iter().any(|f| k.name.contains(f.as_str())))
        .collect();
    for &n in sizes {
        let mut sets = match Sets::<I, O>::new(ctx, Shape::new(n, n, n), 1) {
            Ok(s) => s,
            Err(e) => {
                println!("| {label} | - | {n} | error: {e} | |");
                continue;
            }
        };
        for k in &kernels {
            match time_kernel(timer, k.name, (n, k.trans_a, k.trans_b), &mut sets) {
                Ok(ms) => println!(
                    "| {label} | {} | {n} | {ms:.3} | {:.1} |",
                    k.name,
                    2.0 * (n as f64).powi(3) / ms / 1e9
                ),
                Err(e) => println!("| {label} | {} | {n} | error: {e} | |", k.name),
            }
        }
    }
}

/// The instruction ceilings at 1, 2 and 4 blocks of 8 warps per SM: how many warps an SM needs
/// to reach them.
fn ceilings(timer: &mut Timer<'_>) -> Result<(), String> {
    let ctx = timer.ctx();
    let mut out = ceiling::ceiling_out(ctx)?;
    for math in ceiling::CEILINGS {
        for bps in [1u32, 2, 4] {
            ctx.instruction_ceiling(math, bps, 2000, &mut out)
                .map_err(err_text)?;
            let mut flops = 0;
            let ms = timer.each(1, &mut |_| {
                flops = ctx
                    .instruction_ceiling(math, bps, 20_000, &mut out)
                    .map_err(err_text)?;
                Ok(())
            })?[0];
            println!(
                "| ceiling {}, {} warps/SM | - | - | {ms:.3} | {:.1} |",
                ceiling::math_name(math),
                bps * 8,
                flops as f64 / ms / 1e9
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let (mut pairs, mut sizes) = (Vec::new(), Vec::new());
    for item in &args.items {
        match *item {
            Item::Pair(p) => pairs.push(p),
            Item::Size(n) => sizes.push(n),
        }
    }
    if sizes.is_empty() {
        sizes = vec![2048, 4096, 8192];
    }
    let ctx = match open_for("kernel_sweep", args.device) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut timer = Timer::new(&ctx);
    let all_layouts = args.all_layouts || std::env::var_os("SWEEP_ALL_LAYOUTS").is_some();
    let want = |p: Pair| pairs.is_empty() || pairs.contains(&p);
    println!("| path | kernel | n | ms | TFLOPS |\n|---|---|---:|---:|---:|");
    if let Err(e) = ceilings(&mut timer) {
        println!("| ceilings | - | - | error: {e} | |");
    }
    let t = &mut timer;
    let which = (all_layouts, args.filter.as_slice());
    for pair in Pair::value_variants().iter().copied().filter(|&p| want(p)) {
        match pair {
            Pair::F32 => sweep::<f32, f32>(t, ("f32", Some(Math::Ffma)), &sizes, which),
            Pair::Tf32 => sweep::<f32, f32>(t, ("tf32", Some(Math::MmaTf32)), &sizes, which),
            Pair::F16 => sweep::<f16, f16>(t, ("f16", None), &sizes, which),
            Pair::F16f32 => sweep::<f16, f32>(t, ("f16f32", None), &sizes, which),
            Pair::Bf16 => sweep::<bf16, bf16>(t, ("bf16", None), &sizes, which),
            Pair::Bf16f32 => sweep::<bf16, f32>(t, ("bf16f32", None), &sizes, which),
        }
    }
    ExitCode::SUCCESS
}
