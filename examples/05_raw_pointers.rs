//! A GEMM on memory tcgemm did not allocate: device pointers and a raw `CUstream`, as they come
//! from cust, a C library or another framework, passed to `Context::gemm_raw`.
//!
//! ```text
//! cargo run --example 05_raw_pointers
//! ```
//!
//! Here cudarc stands in for "elsewhere": it allocates the buffers, and only their addresses,
//! lengths and the stream handle cross into tcgemm. Exits 2 without a GPU, 1 on a wrong result.

use std::process::ExitCode;

use cudarc::driver::{DevicePtr, DevicePtrMut};
use tcgemm::{Context, Gemm, RawBuffer};

fn main() -> ExitCode {
    let ctx = match Context::new(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("no GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(ctx: &Context) -> Result<(), Box<dyn std::error::Error>> {
    let (m, n, k) = (300, 200, 100);
    let s = ctx.stream();
    // "Foreign" memory: A is all 1, B all 2, so every entry of C is 2·k.
    let a = s.clone_htod(&vec![1.0f32; m * k])?;
    let b = s.clone_htod(&vec![2.0f32; k * n])?;
    let mut c = s.alloc_zeros::<f32>(m * n)?;
    let plan = {
        // The raw addresses; the guards order cudarc's own uses of the buffers around this scope.
        let (pa, _read_a) = a.device_ptr(s);
        let (pb, _read_b) = b.device_ptr(s);
        let (pc, _write_c) = c.device_ptr_mut(s);
        let a = RawBuffer {
            ptr: pa,
            len: m * k,
        };
        let b = RawBuffer {
            ptr: pb,
            len: k * n,
        };
        let c = RawBuffer {
            ptr: pc,
            len: m * n,
        };
        // SAFETY: the three allocations belong to this context's device and outlive the GEMM
        // (the download below synchronizes the stream before they drop); C is its own allocation;
        // `s` is this context's stream, and nothing else touches the buffers meanwhile.
        unsafe { ctx.gemm_raw::<f32, f32>(&Gemm::new(m, n, k), a, b, c, s.cu_stream()) }?
    };
    let out = s.clone_dtoh(&c)?; // waits for the GEMM
    let want = 2.0 * k as f32;
    if let Some((i, x)) = out.iter().enumerate().find(|&(_, &x)| x != want) {
        return Err(format!("C[{i}] = {x}, expected {want}").into());
    }
    let name = plan.map_or("none", |p| p.kernel.name);
    println!("{m}×{n}×{k} through raw pointers: ok (kernel {name})");
    Ok(())
}
