//! f32 precision study (issue 16): the same f32 inputs multiplied three ways, exact FP32 (CUDA
//! cores), 3xTF32 (`Precision::Tf32x3`) and TF32, against an f64 reference of every entry, for
//! growing K and two kinds of data. Prints a markdown table of the largest absolute error (scaled
//! by the entry's magnitude `Σ|a·b|`, so rows of different K and data compare) and the relative
//! Frobenius error of each.
//!
//! ```text
//! f32_precision_study [M] [N] [--ks 256,1024,4096,16384] [--device N]     (default 256×256)
//! ```
//!
//! Data: `uniform`, f32 values uniform in `[-1, 1]` (never zero); `wide`, those times `2^e` with
//! `e` uniform in `[-16, 16]` (33 binades: magnitudes that cancel and entries of very different
//! size). Exits 2 without a GPU, 64 on bad arguments.

use std::process::ExitCode;

use clap::Parser;
use tcgemm::{Context, Gemm, Precision};
use tcgemm_testkit::{open_for, random_vec, Problem, Reference, Rng};
use tcgemm_tools::{err_text, errors, parse_args, print_table};

/// Error of exact FP32, 3xTF32 and TF32 GEMMs of the same f32 inputs against f64, by K and data.
#[derive(Parser, Debug)]
#[command(name = "f32_precision_study")]
struct Args {
    /// Rows of C.
    #[arg(default_value_t = 256)]
    m: usize,
    /// Columns of C.
    #[arg(default_value_t = 256)]
    n: usize,
    /// Inner dimensions, one table row each per kind of data.
    #[arg(long, value_delimiter = ',', default_values_t = [256, 1024, 4096, 16384])]
    ks: Vec<usize>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// `len` inputs of kind `wide` (or uniform) from `seed`.
fn data(len: usize, seed: u64, wide: bool) -> Vec<f32> {
    let mut v = random_vec::<f32>(len, seed);
    if wide {
        let mut rng = Rng::new(seed, 1 << 40);
        for x in &mut v {
            *x *= 2f32.powi(rng.range(0, 33) as i32 - 16);
        }
    }
    v
}

/// One table row's cells: the three GEMMs of `m×n×k` on the same inputs, and their errors.
fn row(ctx: &Context, (m, n, k): (usize, usize, usize), wide: bool) -> Result<Vec<String>, String> {
    let s = ctx.stream();
    let e = |x: cudarc::driver::DriverError| format!("{x:?}");
    let a = data(m * k, 2 * k as u64, wide);
    let b = data(k * n, 2 * k as u64 + 1, wide);
    let p = Problem::new(m, n, k);
    let reference = Reference::full_of_values(&p, &a, &b).vals;
    let abs = |v: &[f32]| v.iter().map(|x| x.abs()).collect::<Vec<f32>>();
    let magnitude = Reference::full_of_values(&p, &abs(&a), &abs(&b)).vals;
    let (da, db) = (s.clone_htod(&a).map_err(e)?, s.clone_htod(&b).map_err(e)?);
    let mut c = s.alloc_zeros::<f32>(m * n).map_err(e)?;
    let mut cells = Vec::new();
    for precision in [Precision::Exact, Precision::Tf32x3, Precision::Tf32] {
        ctx.gemm(&Gemm::new(m, n, k).precision(precision), &da, &db, &mut c)
            .map_err(err_text)?;
        let out: Vec<f64> = s
            .clone_dtoh(&c)
            .map_err(e)?
            .into_iter()
            .map(f64::from)
            .collect();
        let (max, rel) = errors(&out, &reference, Some(&magnitude));
        cells.extend([format!("{max:.2e}"), format!("{rel:.2e}")]);
    }
    Ok(cells)
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let ctx = match open_for("f32_precision_study", args.device) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let columns = [
        "data",
        "K",
        "FP32 max",
        "FP32 rel",
        "3xTF32 max",
        "3xTF32 rel",
        "TF32 max",
        "TF32 rel",
    ];
    let rows = [false, true].into_iter().flat_map(|wide| {
        let kind = if wide { "wide" } else { "uniform" };
        let ctx = &ctx;
        let args = &args;
        args.ks.iter().map(move |&k| {
            let labels = vec![kind.to_string(), k.to_string()];
            (labels, row(ctx, (args.m, args.n, k), wide))
        })
    });
    print_table(&columns, rows)
}
