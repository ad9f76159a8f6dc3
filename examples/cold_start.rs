//! Cold start, as a fresh process sees it: the time to a ready `Context`, which image each module
//! loaded, and the time from the first GEMM call of each precision to its completion.
//!
//! ```text
//! CUDA_CACHE_DISABLE=1 cargo run --release --example cold_start [-- --ptx] [--device N]
//! ```
//! `--ptx` loads every module from its PTX (the driver compiles it), as a device without machine
//! code would. Run it in a new process each time: the figures are the process's first calls.

use std::process::ExitCode;
use std::time::Instant;

use half::{bf16, f16};
use tcgemm::{Context, ContextOptions, Element, Gemm, Precision};

/// Times the first GEMM of `precision` with `T` elements (`n`³, values in [-1, 1), C poisoned with
/// NaN first), from the call to the end of the work; checks that every entry was written.
fn first_gemm<T: Element + cudarc::driver::DeviceRepr + Copy>(
    ctx: &Context,
    precision: Precision,
    from_f32: fn(f32) -> T,
    to_f64: fn(T) -> f64,
) -> Result<f64, Box<dyn std::error::Error>> {
    let n = 256;
    let s = ctx.stream();
    let vals: Vec<T> = (0..n * n)
        .map(|i| from_f32(((i * 7919 % 2003) as f32 / 1001.5) - 1.0))
        .collect();
    let a = s.clone_htod(&vals)?;
    let b = s.clone_htod(&vals)?;
    let mut c = s.clone_htod(&vec![from_f32(f32::NAN); n * n])?;
    s.synchronize()?;
    let t = Instant::now();
    ctx.gemm(&Gemm::new(n, n, n).precision(precision), &a, &b, &mut c)?;
    s.synchronize()?;
    let secs = t.elapsed().as_secs_f64();
    let out = s.clone_dtoh(&c)?;
    if out.iter().any(|&x| !to_f64(x).is_finite()) {
        return Err("C has unwritten (NaN) entries".into());
    }
    Ok(secs)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let load_ptx = args.iter().any(|a| a == "--ptx");
    let device = args
        .iter()
        .position(|a| a == "--device")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(0), |d| d.parse())?;
    let cache = std::env::var("CUDA_CACHE_DISABLE").unwrap_or_default();
    let t = Instant::now();
    let ctx = Context::with_options(
        device,
        ContextOptions {
            load_ptx,
            ..Default::default()
        },
    )?;
    let ready = t.elapsed().as_secs_f64();
    let caps = ctx.capabilities();
    println!(
        "{} (sm_{}{}), CUDA_CACHE_DISABLE={cache:?}",
        caps.name, caps.compute_capability.0, caps.compute_capability.1
    );
    for m in &caps.modules {
        println!("  {m}");
    }
    println!("Context::with_options: {:.3} s to a ready context", ready);
    let f32s = |x: f32| x;
    let f64s = |x: f32| f64::from(x);
    let rows = [
        (
            "fp32",
            first_gemm::<f32>(&ctx, Precision::Exact, f32s, f64s)?,
        ),
        (
            "tf32",
            first_gemm::<f32>(&ctx, Precision::Tf32, f32s, f64s)?,
        ),
        (
            "f16",
            first_gemm::<f16>(&ctx, Precision::Default, f16::from_f32, |x| {
                f64::from(x.to_f32())
            })?,
        ),
        (
            "bf16",
            first_gemm::<bf16>(&ctx, Precision::Default, bf16::from_f32, |x| {
                f64::from(x.to_f32())
            })?,
        ),
    ];
    for (name, secs) in rows {
        println!(
            "first {name} GEMM (256³): {:.3} ms from call to completion",
            secs * 1e3
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cold_start: {e}");
            ExitCode::FAILURE
        }
    }
}
