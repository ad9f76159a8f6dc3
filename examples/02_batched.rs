//! Many small products in one call: a strided batch of 1000 `64×48×32` GEMMs, then the same with
//! one B shared by every batch item (batch stride 0), each item checked on the CPU.
//!
//! ```text
//! cargo run --release --example 02_batched
//! ```
//!
//! Batch item `z` of an operand starts `z · stride` elements into its buffer. Packed strides
//! (`rows · ld`, the default) put the items one after another; [`Gemm::required_lens`] says how
//! many elements each buffer must hold. One batched call launches one kernel for all items, which
//! is much faster than one call per item when the items are small. Needs a CUDA GPU.

use tcgemm::{Context, Gemm};

/// `C[z] = A[z]·B[z]` on the CPU, for the buffers and batch strides of `g` (packed rows).
fn cpu_batched(g: &Gemm, a: &[f32], b: &[f32], (sa, sb): (usize, usize)) -> Vec<f32> {
    let (m, n, k) = (g.m, g.n, g.k);
    let mut c = vec![0.0; g.batch * m * n];
    for z in 0..g.batch {
        for i in 0..m {
            for j in 0..n {
                c[z * m * n + i * n + j] = (0..k)
                    .map(|q| a[z * sa + i * k + q] * b[z * sb + q * n + j])
                    .sum();
            }
        }
    }
    c
}

/// Runs `g` on GPU buffers holding `a` and `b`, returns C and its largest difference from the CPU.
fn run(
    ctx: &Context,
    g: &Gemm,
    a: &[f32],
    b: &[f32],
    strides: (usize, usize),
) -> tcgemm::Result<f32> {
    let s = ctx.stream();
    let (da, db) = (s.clone_htod(a)?, s.clone_htod(b)?);
    let (_, _, len_c) = g.required_lens()?;
    let mut dc = s.alloc_zeros::<f32>(len_c)?;
    ctx.gemm(g, &da, &db, &mut dc)?;
    let c = s.clone_dtoh(&dc)?;
    let want = cpu_batched(g, a, b, strides);
    Ok(c.iter()
        .zip(&want)
        .fold(0.0, |w, (x, y)| w.max((x - y).abs())))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::new(0)?;
    let (m, n, k, batch) = (64, 48, 32, 1000);
    // Small integers times 1/8: exact in f32, so GPU and CPU agree to the bit.
    let value = |i: usize| (i % 9) as f32 * 0.125 - 0.5;

    // Every item has its own A and B, packed one after another.
    let g = Gemm::new(m, n, k).batch(batch);
    let (len_a, len_b, _) = g.required_lens()?;
    let a: Vec<f32> = (0..len_a).map(value).collect();
    let b: Vec<f32> = (0..len_b).map(|i| value(i + 4)).collect();
    let worst = run(&ctx, &g, &a, &b, (m * k, k * n))?;
    println!("{batch} × ({m}×{k} · {k}×{n}): largest difference from the CPU {worst}");

    // One B for every item: batch stride 0 (B holds k·n elements, not batch·k·n).
    let shared = g.stride_b(0);
    let (_, len_b, _) = shared.required_lens()?;
    let worst = run(&ctx, &shared, &a, &b[..len_b], (m * k, 0))?;
    println!("the same with one shared B (stride_b = 0): largest difference {worst}");
    Ok(())
}
