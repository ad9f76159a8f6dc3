//! Times every GEMM kernel of the table that serves a type pair, by name, on square shapes (and the
//! instruction ceilings), so kernel variants are compared in one process. A tool for kernel work;
//! the comparison with cuBLAS is `bench_report`.
//!
//! `kernel_sweep [f32|tf32|f16|bf16|f16f32|bf16f32] [SIZE ...]` (default: every pair, 2048 4096 8192).
//! Prints `kernel, size, median ms, TFLOPS` per row; median of 10 timed runs after 3 warm-ups,
//! CUDA events around each run, 3 rotating input sets, random inputs.

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream};
use half::{bf16, f16};
use std::process::ExitCode;
use std::sync::Arc;
use tcgemm::{Context, Elem, Element, Gemm, Math, Role};

fn random<T: Copy>(len: usize, seed: u64, conv: impl Fn(f32) -> T) -> Vec<T> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            conv(((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0 + 1e-3)
        })
        .collect()
}

fn time_kernel<I: Element, O: Element>(
    ctx: &Context,
    name: &str,
    n: usize,
    ta: bool,
    tb: bool,
    sets: &[(CudaSlice<I>, CudaSlice<I>)],
    c: &mut CudaSlice<O>,
) -> Result<f64, String> {
    let s: &Arc<CudaStream> = ctx.stream();
    let g = Gemm::new(n, n, n).trans_a(ta).trans_b(tb);
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    for i in 0..3 {
        let (a, b) = &sets[i % sets.len()];
        ctx.gemm_with_kernel(name, &g, a, b, c)
            .map_err(|e| e.to_string())?;
    }
    let mut ms = Vec::new();
    for i in 0..10 {
        let (a, b) = &sets[i % sets.len()];
        let e0 = ctx.cuda().new_event(flags).map_err(|e| format!("{e:?}"))?;
        let e1 = ctx.cuda().new_event(flags).map_err(|e| format!("{e:?}"))?;
        e0.record(s).map_err(|e| format!("{e:?}"))?;
        ctx.gemm_with_kernel(name, &g, a, b, c)
            .map_err(|e| e.to_string())?;
        e1.record(s).map_err(|e| format!("{e:?}"))?;
        e1.synchronize().map_err(|e| format!("{e:?}"))?;
        ms.push(e0.elapsed_ms(&e1).map_err(|e| format!("{e:?}"))? as f64);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}

fn sweep<I: Element, O: Element + cudarc::driver::ValidAsZeroBits>(
    ctx: &Context,
    label: &str,
    sizes: &[usize],
    conv: impl Fn(f32) -> I + Copy,
) {
    let names: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| k.role() == Role::Gemm && k.input == I::ELEM && k.output == O::ELEM)
        .filter(|k| std::env::var_os("SWEEP_ALL_LAYOUTS").is_some() || (!k.trans_a && !k.trans_b))
        .filter(|k| label != "tf32" || k.math == Math::MmaTf32)
        .filter(|k| label != "f32" || k.math == Math::Ffma)
        .map(|k| (k.name, k.trans_a, k.trans_b))
        .collect();
    let s = ctx.stream();
    for &n in sizes {
        let sets: Vec<_> = (0..3u64)
            .map(|i| {
                (
                    s.clone_htod(&random(n * n, 2 * i + 1, conv)).unwrap(),
                    s.clone_htod(&random(n * n, 2 * i + 2, conv)).unwrap(),
                )
            })
            .collect();
        let mut c = s.alloc_zeros::<O>(n * n).unwrap();
        for &(name, ta, tb) in &names {
            match time_kernel::<I, O>(ctx, name, n, ta, tb, &sets, &mut c) {
                Ok(ms) => println!(
                    "| {label} | {name} | {n} | {ms:.3} | {:.1} |",
                    2.0 * (n as f64).powi(3) / ms / 1e9
                ),
                Err(e) => println!("| {label} | {name} | {n} | error: {e} | |"),
            }
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| a.parse::<usize>().is_err())
        .collect();
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![2048, 4096, 8192];
    }
    let ctx = match Context::new(0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("no CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    let all = pairs.is_empty();
    let want = |p: &str| all || pairs.contains(&p);
    println!("| path | kernel | n | ms | TFLOPS |\n|---|---|---:|---:|---:|");
    let sms = ctx.capabilities().sm_count as usize;
    let mut out = ctx.stream().alloc_zeros::<f32>(256 * 4 * sms).unwrap();
    for (math, label) in [
        (Math::Ffma, "ceiling ffma"),
        (Math::MmaTf32, "ceiling tf32"),
        (Math::MmaF16F32, "ceiling f16"),
        (Math::MmaBf16F32, "ceiling bf16"),
    ] {
        let s = ctx.stream();
        let e0 = ctx
            .cuda()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        let e1 = ctx
            .cuda()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap();
        // 1, 2 and 4 blocks of 8 warps per SM: how many warps an SM needs to reach the ceiling
        for bps in [1u32, 2, 4] {
            let _ = ctx.instruction_ceiling(math, bps, 2000, &mut out);
            e0.record(s).unwrap();
            let flops = ctx.instruction_ceiling(math, bps, 20000, &mut out).unwrap();
            e1.record(s).unwrap();
            e1.synchronize().unwrap();
            let ms = e0.elapsed_ms(&e1).unwrap() as f64;
            println!(
                "| {label}, {} warps/SM | - | - | {ms:.3} | {:.1} |",
                bps * 8,
                flops as f64 / ms / 1e9
            );
        }
    }
    if want("f32") {
        sweep::<f32, f32>(&ctx, "f32", &sizes, |x| x);
    }
    if want("tf32") {
        sweep::<f32, f32>(&ctx, "tf32", &sizes, |x| x);
    }
    if want("f16") {
        sweep::<f16, f16>(&ctx, "f16", &sizes, f16::from_f32);
    }
    if want("f16f32") {
        sweep::<f16, f32>(&ctx, "f16f32", &sizes, f16::from_f32);
    }
    if want("bf16") {
        sweep::<bf16, bf16>(&ctx, "bf16", &sizes, bf16::from_f32);
    }
    if want("bf16f32") {
        sweep::<bf16, f32>(&ctx, "bf16f32", &sizes, bf16::from_f32);
    }
    let _ = Elem::F32;
    ExitCode::SUCCESS
}
