//! Precision study (seed 004, challenge 2): the same f16-representable inputs multiplied three
//! ways, FP32 (CUDA cores, f32 copies of the inputs), mixed (f16 inputs, f32 accumulation, f32
//! output) and f16 accumulation (f16 inputs, f16 accumulation and output), against an f64
//! reference of every entry, for growing K. Prints a markdown table of the largest absolute error
//! and the relative Frobenius error.
//!
//! ```text
//! precision_study [M] [N] [--ks 16,64,256,1024,4096,16384] [--device N]     (default 256×256)
//! ```
//!
//! Inputs: random f16 values in `[-1, 1]`, never zero or subnormal (`tcgemm_testkit::random_vec`).
//! Exits 2 without a GPU, 64 on bad arguments.

use std::process::ExitCode;

use clap::Parser;
use half::f16;
use tcgemm::{Context, Gemm, Precision};
use tcgemm_testkit::{open_for, random_vec, Problem, Reference};
use tcgemm_tools::{err_text, errors, parse_args, print_table};

/// Error of FP32, mixed and f16-accumulation GEMMs of the same f16 inputs against f64, by K.
#[derive(Parser, Debug)]
#[command(name = "precision_study")]
struct Args {
    /// Rows of C.
    #[arg(default_value_t = 256)]
    m: usize,
    /// Columns of C.
    #[arg(default_value_t = 256)]
    n: usize,
    /// Inner dimensions, one table row each.
    #[arg(long, value_delimiter = ',', default_values_t = [16, 64, 256, 1024, 4096, 16384])]
    ks: Vec<usize>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// One table row's cells: the three GEMMs of `m×n×k` on the same inputs, and their errors.
fn row(ctx: &Context, (m, n, k): (usize, usize, usize)) -> Result<Vec<String>, String> {
    let s = ctx.stream();
    let e = |x: cudarc::driver::DriverError| format!("{x:?}");
    let a = random_vec::<f16>(m * k, 2 * k as u64);
    let b = random_vec::<f16>(k * n, 2 * k as u64 + 1);
    let reference = Reference::full_of_values(&Problem::new(m, n, k), &a, &b).vals;
    let wide = |v: &[f16]| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    let (da, db) = (s.clone_htod(&a).map_err(e)?, s.clone_htod(&b).map_err(e)?);
    let (da32, db32) = (
        s.clone_htod(&wide(&a)).map_err(e)?,
        s.clone_htod(&wide(&b)).map_err(e)?,
    );
    let mut c32 = s.alloc_zeros::<f32>(m * n).map_err(e)?;
    let mut c16 = s.alloc_zeros::<f16>(m * n).map_err(e)?;
    let g = Gemm::new(m, n, k);
    let widen = |c: Vec<f32>| c.into_iter().map(f64::from).collect::<Vec<f64>>();
    ctx.gemm(&g.precision(Precision::Exact), &da32, &db32, &mut c32)
        .map_err(err_text)?;
    let fp32 = widen(s.clone_dtoh(&c32).map_err(e)?);
    ctx.gemm(&g, &da, &db, &mut c32).map_err(err_text)?;
    let mixed = widen(s.clone_dtoh(&c32).map_err(e)?);
    ctx.gemm(&g.precision(Precision::F16Accumulate), &da, &db, &mut c16)
        .map_err(err_text)?;
    let acc16: Vec<f64> = s
        .clone_dtoh(&c16)
        .map_err(e)?
        .iter()
        .map(|v| v.to_f64())
        .collect();
    Ok([fp32, mixed, acc16]
        .iter()
        .flat_map(|out| {
            let (max, rel) = errors(out, &reference, None);
            [format!("{max:.2e}"), format!("{rel:.2e}")]
        })
        .collect())
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let ctx = match open_for("precision_study", args.device) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let columns = [
        "K",
        "FP32 max abs",
        "FP32 rel",
        "mixed f16→f32 max abs",
        "mixed rel",
        "f16-acc max abs",
        "f16-acc rel",
    ];
    let rows = args
        .ks
        .iter()
        .map(|&k| (vec![k.to_string()], row(&ctx, (args.m, args.n, k))));
    print_table(&columns, rows)
}
