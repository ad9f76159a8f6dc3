//! Several streams: four threads, each with its own [`Context`] on its own stream of one CUDA
//! context ([`Context::from_stream`]), multiply at the same time; then one stream reads another
//! stream's result.
//!
//! ```text
//! cargo run --release --example 04_streams
//! ```
//!
//! A `Context` only enqueues on its stream, so contexts on different streams run concurrently on
//! the GPU. A buffer carries events of its last use (cudarc), so a kernel on stream 2 that reads a
//! buffer stream 1 wrote waits for that write; no explicit synchronization is needed. Contexts are
//! `Send + Sync`. Needs a CUDA GPU.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use tcgemm::{Context, ContextOptions, Gemm, Precision};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// `n×n` matrix filled with `value`, on `stream`.
fn filled(stream: &Arc<CudaStream>, n: usize, value: f32) -> Result<CudaSlice<f32>> {
    Ok(stream.clone_htod(&vec![value; n * n])?)
}

/// `C = A·B` for `n×n` matrices on `ctx`'s stream (exact FP32), returned without waiting.
fn product(
    ctx: &Context,
    n: usize,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
) -> Result<CudaSlice<f32>> {
    let mut c = ctx.stream().alloc_zeros::<f32>(n * n)?;
    let g = Gemm::new(n, n, n).precision(Precision::Exact);
    ctx.gemm(&g, a, b, &mut c)?;
    Ok(c)
}

fn main() -> Result<()> {
    let base = Context::new(0)?;
    let n = 1024;
    let contexts = (0..4)
        .map(|_| {
            Ok(Context::from_stream(
                base.cuda().new_stream()?,
                ContextOptions::default(),
            )?)
        })
        .collect::<Result<Vec<Context>>>()?;

    // Four threads, four streams, at the same time: thread t multiplies constant matrices.
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = contexts
            .iter()
            .enumerate()
            .map(|(t, ctx)| {
                scope.spawn(move || -> Result<f32> {
                    let s = ctx.stream();
                    let (a, b) = (filled(s, n, 1.0 + t as f32)?, filled(s, n, 0.5)?);
                    let c = product(ctx, n, &a, &b)?;
                    Ok(s.clone_dtoh(&c)?[0])
                })
            })
            .collect();
        for (t, h) in handles.into_iter().enumerate() {
            let first = h.join().map_err(|_| "a thread panicked")??;
            println!(
                "stream {t}: C[0] = {first} (want {})",
                (1.0 + t as f32) * 0.5 * n as f32
            );
        }
        Ok(())
    })?;

    // Stream 1 writes C; stream 2 multiplies that C again, after the write (cudarc's events).
    let (c1, c2) = (&contexts[1], &contexts[2]);
    let (a, b) = (
        filled(c1.stream(), n, 0.25)?,
        filled(c1.stream(), n, 1.0 / n as f32)?,
    );
    let first = product(c1, n, &a, &b)?;
    let second = product(c2, n, &first, &b)?;
    println!(
        "chained across streams: C[0] = {} (want 0.25)",
        c2.stream().clone_dtoh(&second)?[0]
    );
    Ok(())
}
