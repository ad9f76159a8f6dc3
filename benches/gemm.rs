//! Criterion benchmarks of tcgemm's GEMM paths and of this GPU's instruction ceilings.
//!
//! ```text
//! cargo bench                    # every group; a few minutes on an H200
//! cargo bench -- f16/            # one group (any criterion filter or option works)
//! ./run.sh bench [FILTER]        # in the GPU bundle
//! ```
//!
//! - Groups: `fp32` ([`Precision::Exact`](tcgemm::Precision::Exact)), `tf32`
//!   ([`Precision::Tf32`](tcgemm::Precision::Tf32)), `f16` (f16 → f16 and f16 → f32), `bf16`
//!   (bf16 → bf16), and `ceilings` (`Context::instruction_ceiling` for FFMA and `mma.sync`
//!   TF32/F16/BF16).
//! - Ids are `<group>/<kernel>/<shape>`: the kernel `Context::plan` dispatches for the call, and
//!   `MxNxK` (or `BATCH*MxNxK`). Shapes: the list shared with `bench_report`
//!   (`tcgemm_testkit::all_shapes`): squares 1024–8192; M ∈ {16, 128, 4096} × (N, K) ∈ {(4096, 4096),
//!   (11008, 4096), (4096, 11008)}; 64×8192×8192, 8192×64×8192, 8192×8192×64; 1921×1023×517,
//!   4095×4095×4095; 1000 × 64×64×64 batched. Row-major, packed, no transposes, `alpha = 1`,
//!   `beta = 0`.
//! - Throughput: `Throughput::Elements(2·m·n·k·batch)` per call (for a ceiling, the FLOPs of one
//!   launch), so criterion's **elements are FLOPs**: `Gelem/s` reads as GFLOP/s, `Telem/s` as
//!   TFLOP/s.
//! - Device time only: `iter_custom` records a CUDA event, enqueues the launches, records an event
//!   after the last one, synchronizes and returns the elapsed device time (per chunk of at most 128
//!   launches, each chunk queued behind a short GPU-side delay so that host enqueueing never idles
//!   the GPU between the events; see `tcgemm_testkit::timer`). Host clocks never time the
//!   asynchronous calls.
//! - Inputs: random non-zero values in `[-1, 1]`; the launches rotate through at least 3 (A, B, C)
//!   buffer sets spanning at least twice the L2 where device memory allows (at most half the free
//!   memory). Buffers are made, and one launch run, before criterion's own warm-up, so neither
//!   module loading nor a first launch is timed; a benchmark a filter leaves out allocates nothing.
//! - Budget: 10 samples, 0.25 s warm-up and 1 s of measurement per benchmark, flat sampling (large
//!   shapes get few iterations per sample); command-line options (`--measurement-time`,
//!   `--sample-size`, ...) override these.
//! - Without a usable CUDA GPU the binary prints `no CUDA GPU: skipped (<why>)` and exits 0, or 1
//!   when `TCGEMM_REQUIRE_GPU=1` (as the bundle's `run.sh` sets), so a GPU run cannot pass by
//!   skipping.

use std::process::ExitCode;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use half::{bf16, f16};
use tcgemm::Context;
use tcgemm_testkit::{ceiling, open, require_gpu, Open, Path, Sets, Shape, TestElem, Timer};

fn main() -> ExitCode {
    let ctx = match open(0) {
        Ok(ctx) => ctx,
        Err(Open::NoGpu(why)) => {
            println!("no CUDA GPU: skipped ({why})");
            return if require_gpu() {
                eprintln!("TCGEMM_REQUIRE_GPU=1 but no CUDA GPU is usable");
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
        Err(Open::Broken(why)) => {
            eprintln!("gemm bench: {why}");
            return ExitCode::FAILURE;
        }
    };
    let caps = ctx.capabilities();
    println!(
        "tcgemm bench on {} (sm_{}{}, {} SMs, L2 {} MiB), modules {:?}; elements = FLOPs",
        caps.name,
        caps.compute_capability.0,
        caps.compute_capability.1,
        caps.sm_count,
        caps.l2_bytes >> 20,
        caps.targets
    );
    let mut timer = Timer::new(&ctx);
    if let Some(why) = &timer.no_delay {
        eprintln!(
            "gemm bench: warning: no GPU-side delay ({why}); short launches may include host gaps"
        );
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(250))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    let shapes = tcgemm_testkit::all_shapes();
    for (group, paths) in [
        ("fp32", &[Path::Fp32][..]),
        ("tf32", &[Path::Tf32][..]),
        ("f16", &[Path::F16, Path::F16F32][..]),
        ("bf16", &[Path::Bf16][..]),
        ("3xtf32", &[Path::Tf32x3][..]),
    ] {
        let mut g = c.benchmark_group(group);
        g.sampling_mode(SamplingMode::Flat);
        for &path in paths {
            for &shape in &shapes {
                match path {
                    Path::Fp32 | Path::Tf32 | Path::Tf32x3 => {
                        bench_gemm::<f32, f32>(&mut g, &ctx, &mut timer, path, shape)
                    }
                    Path::F16 => bench_gemm::<f16, f16>(&mut g, &ctx, &mut timer, path, shape),
                    Path::F16F32 => bench_gemm::<f16, f32>(&mut g, &ctx, &mut timer, path, shape),
                    Path::Bf16 => bench_gemm::<bf16, bf16>(&mut g, &ctx, &mut timer, path, shape),
                }
            }
        }
        g.finish();
    }
    bench_ceilings(&mut c, &ctx, &mut timer);
    c.final_summary();
    ExitCode::SUCCESS
}

/// Buffer sets for `shape`, with one untimed launch on each (loads and warms the kernel).
fn prepare<I: TestElem, O: TestElem>(ctx: &Context, path: Path, shape: Shape) -> Sets<I, O> {
    let what = format!("{}/{}", path.name(), shape.label());
    let mut s = Sets::<I, O>::new(ctx, shape, 0x7c3a_0001)
        .unwrap_or_else(|e| panic!("{what}: buffers: {e}"));
    let g = shape.gemm(path.precision());
    for i in 0..s.len() {
        let (a, b, mut c) = s.views(i);
        ctx.gemm(&g, &a, &b, &mut c)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    ctx.stream()
        .synchronize()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    s
}

/// One benchmark: the dispatched kernel on `shape`, launches rotating through the buffer sets.
fn bench_gemm<I: TestElem, O: TestElem>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    ctx: &Context,
    timer: &mut Timer<'_>,
    path: Path,
    shape: Shape,
) {
    let g = shape.gemm(path.precision());
    let kernel = match ctx.plan::<I, O>(&g) {
        Ok(p) => p.kernel.name,
        Err(e) => {
            println!("{}/{}: skipped: {e}", path.name(), shape.label());
            return;
        }
    };
    group.throughput(Throughput::Elements(shape.flops()));
    // Made on the first call, so a benchmark the filter leaves out allocates nothing.
    let mut sets: Option<Sets<I, O>> = None;
    let mut next = 0usize;
    group.bench_function(BenchmarkId::new(kernel, shape.label()), |b| {
        let s = sets.get_or_insert_with(|| prepare::<I, O>(ctx, path, shape));
        let n = s.len();
        b.iter_custom(|iters| {
            timer
                .total(iters, &mut |_| {
                    let i = next % n;
                    next += 1;
                    let (a, b, mut c) = s.views(i);
                    ctx.gemm(&g, &a, &b, &mut c)
                        .map(drop)
                        .map_err(|e| e.to_string())
                })
                .unwrap_or_else(|e| panic!("{}/{}: {e}", path.name(), shape.label()))
        });
    });
}

/// The `ceilings` group: one launch of each instruction-ceiling microkernel (about 1 ms) per
/// iteration.
fn bench_ceilings(c: &mut Criterion, ctx: &Context, timer: &mut Timer<'_>) {
    let mut group = c.benchmark_group("ceilings");
    group.sampling_mode(SamplingMode::Flat);
    for math in ceiling::CEILINGS {
        let Some(name) = ceiling::ceiling_kernel(math) else {
            println!("ceilings/{math:?}: skipped: no ceiling kernel in this build");
            continue;
        };
        let prepared = ceiling::ceiling_out(ctx).and_then(|mut out| {
            let trips = ceiling::ceiling_trips(timer, math, &mut out, 1.0)?;
            Ok((out, trips))
        });
        let (mut out, trips) = match prepared {
            Ok(p) => p,
            Err(e) => {
                println!("ceilings/{name}: skipped: {e}");
                continue;
            }
        };
        group.throughput(Throughput::Elements(ceiling::ceiling_flops(
            ctx, math, trips,
        )));
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                timer
                    .total(iters, &mut |_| {
                        ctx.instruction_ceiling(
                            math,
                            ceiling::CEILING_BLOCKS_PER_SM,
                            trips,
                            &mut out,
                        )
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                    })
                    .unwrap_or_else(|e| panic!("ceilings/{name}: {e}"))
            });
        });
    }
    group.finish();
}
