//! Precision study (seed 004, challenge 2): the same f16-representable inputs multiplied three ways —
//! FP32 (CUDA cores, f32 copies of the inputs), mixed (f16 inputs, f32 accumulation, f32 output)
//! and f16 accumulation (f16 inputs, f16 accumulation and output) — against an f64 reference, for
//! growing K. Prints a markdown table of max abs error and relative Frobenius error.
//!
//! `precision_study [M] [N]` (default 256×256); inputs uniform in [−1, 1], rounded to f16 first.

use half::f16;
use std::process::ExitCode;
use tcgemm::{Context, Gemm, Precision};

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n) = (
        args.first().copied().unwrap_or(256),
        args.get(1).copied().unwrap_or(256),
    );
    let ctx = match Context::new(0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("no CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    let s = ctx.stream();
    println!("| K | FP32 max abs | FP32 rel | mixed f16→f32 max abs | mixed rel | f16-acc max abs | f16-acc rel |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f16::from_f64(((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0)
    };
    for k in [16usize, 64, 256, 1024, 4096, 16384] {
        let a: Vec<f16> = (0..m * k).map(|_| rnd()).collect();
        let b: Vec<f16> = (0..k * n).map(|_| rnd()).collect();
        let mut reference = vec![0f64; m * n];
        for i in 0..m {
            for p in 0..k {
                let av = a[i * k + p].to_f64();
                for j in 0..n {
                    reference[i * n + j] += av * b[p * n + j].to_f64();
                }
            }
        }
        let g = Gemm::new(m, n, k);
        let a32: Vec<f32> = a.iter().map(|v| v.to_f32()).collect();
        let b32: Vec<f32> = b.iter().map(|v| v.to_f32()).collect();
        let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
        let (da32, db32) = (s.clone_htod(&a32).unwrap(), s.clone_htod(&b32).unwrap());
        let mut c32 = s.alloc_zeros::<f32>(m * n).unwrap();
        let mut c16 = s.alloc_zeros::<f16>(m * n).unwrap();
        let stats = |out: &[f64]| {
            let (mut max, mut num, mut den) = (0f64, 0f64, 0f64);
            for (o, r) in out.iter().zip(&reference) {
                let e = (o - r).abs();
                max = if e.is_nan() || e > max { e } else { max };
                num += e * e;
                den += r * r;
            }
            (max, (num / den).sqrt())
        };
        ctx.gemm(&g.precision(Precision::Exact), &da32, &db32, &mut c32)
            .unwrap();
        let fp32: Vec<f64> = s
            .clone_dtoh(&c32)
            .unwrap()
            .iter()
            .map(|v| *v as f64)
            .collect();
        ctx.gemm(&g, &da, &db, &mut c32).unwrap();
        let mixed: Vec<f64> = s
            .clone_dtoh(&c32)
            .unwrap()
            .iter()
            .map(|v| *v as f64)
            .collect();
        ctx.gemm(&g.precision(Precision::F16Accumulate), &da, &db, &mut c16)
            .unwrap();
        let acc16: Vec<f64> = s
            .clone_dtoh(&c16)
            .unwrap()
            .iter()
            .map(|v| v.to_f64())
            .collect();
        s.synchronize().unwrap();
        let (f, mx, h) = (stats(&fp32), stats(&mixed), stats(&acc16));
        println!(
            "| {k} | {:.2e} | {:.2e} | {:.2e} | {:.2e} | {:.2e} | {:.2e} |",
            f.0, f.1, mx.0, mx.1, h.0, h.1
        );
    }
    ExitCode::SUCCESS
}
