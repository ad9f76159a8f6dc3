//! A first GEMM: `C = A·B` for two f32 matrices on GPU 0, checked against the same product on the
//! CPU.
//!
//! ```text
//! cargo run --release --example 01_first_gemm
//! ```
//!
//! Matrices are row-major and stored flat: A is `m×k` (element `(i, q)` at `i·k + q`), B is `k×n`,
//! C is `m×n`. [`Context::gemm`] checks the call against the buffers, enqueues the kernel on the
//! context's stream and returns at once; downloading C waits for it. Needs a CUDA GPU of compute
//! capability 8.0 or newer: without one, `Context::new` returns an error that says why.

use tcgemm::{Context, Gemm, Precision};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(0)?;
    println!("GPU 0: {}", ctx.capabilities().name);

    // Small integers times 1/4: every product and sum below is exact in f32.
    let (m, n, k) = (300, 200, 100);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.25).collect();

    // Upload A and B, allocate C, multiply, download C.
    let s = ctx.stream();
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let mut dc = s.alloc_zeros::<f32>(m * n)?;
    // Exact FP32 arithmetic (`Precision::Default` may use TF32 tensor cores where allowed).
    let g = Gemm::new(m, n, k).precision(Precision::Exact);
    let plan = ctx.plan::<f32, f32>(&g)?;
    ctx.gemm(&g, &da, &db, &mut dc)?;
    let c = s.clone_dtoh(&dc)?;

    // The same product on the CPU.
    let mut worst = 0.0f32;
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
            worst = worst.max((c[i * n + j] - want).abs());
        }
    }
    println!(
        "C = A·B ({m}×{k} · {k}×{n}) on kernel {}: largest difference from the CPU {worst}",
        plan.kernel.name
    );
    Ok(())
}
