//! Half precision from f32 data: convert A and B to f16 on the GPU ([`Context::convert`]), multiply
//! on the f16 tensor cores (f32 accumulation) into an f32 C and into an f16 C, and compare both
//! with the exact FP32 product of the same f32 data.
//!
//! ```text
//! cargo run --release --example 03_half_precision
//! ```
//!
//! The element types of the buffers choose the path: f16 (or bf16) inputs run on tensor cores with
//! f32 accumulation; the output may be f32 or the input type. Rounding the inputs to f16 (11
//! significant bits) costs a relative error of about 3·10⁻⁴ here; the f16 output adds its own
//! rounding. `Context::convert` also widens f16/bf16 back to f32 exactly. Needs a CUDA GPU.

use half::f16;
use tcgemm::{Context, Gemm, Precision};

/// `‖x − y‖₂ / ‖y‖₂`.
fn rel_error(x: &[f32], y: &[f32]) -> f64 {
    let (mut e2, mut r2) = (0.0f64, 0.0f64);
    for (&a, &b) in x.iter().zip(y) {
        e2 += (f64::from(a) - f64::from(b)).powi(2);
        r2 += f64::from(b).powi(2);
    }
    (e2 / r2).sqrt()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(0)?;
    let s = ctx.stream();
    let (m, n, k) = (1024, 512, 768);
    // f32 data in [-1, 1] that f16 cannot hold exactly.
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 7919) % 2003) as f32 / 1001.5 - 1.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 104_729) % 2011) as f32 / 1005.5 - 1.0)
        .collect();
    let (a32, b32) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let g = Gemm::new(m, n, k);

    // The reference: exact FP32 on the f32 data.
    let mut c_exact = s.alloc_zeros::<f32>(m * n)?;
    ctx.gemm(&g.precision(Precision::Exact), &a32, &b32, &mut c_exact)?;

    // f32 -> f16 on the GPU (round to nearest even), then the f16 tensor-core GEMM.
    let mut a16 = s.alloc_zeros::<f16>(m * k)?;
    let mut b16 = s.alloc_zeros::<f16>(k * n)?;
    ctx.convert(&a32, &mut a16)?;
    ctx.convert(&b32, &mut b16)?;
    let mut c32 = s.alloc_zeros::<f32>(m * n)?;
    ctx.gemm(&g, &a16, &b16, &mut c32)?;
    let mut c16 = s.alloc_zeros::<f16>(m * n)?;
    ctx.gemm(&g, &a16, &b16, &mut c16)?;
    // f16 -> f32 (exact), to compare on the host in f32.
    let mut c16_wide = s.alloc_zeros::<f32>(m * n)?;
    ctx.convert(&c16, &mut c16_wide)?;

    let exact = s.clone_dtoh(&c_exact)?;
    let (via_f32, via_f16) = (s.clone_dtoh(&c32)?, s.clone_dtoh(&c16_wide)?);
    println!("{m}×{n}×{k}, f32 data converted to f16 on the GPU, error relative to exact FP32:");
    println!(
        "  f16 inputs, f32 output: {:.2e}",
        rel_error(&via_f32, &exact)
    );
    println!(
        "  f16 inputs, f16 output: {:.2e}",
        rel_error(&via_f16, &exact)
    );
    Ok(())
}
