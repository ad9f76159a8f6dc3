//! Fits dispatch's time model to this GPU: times every kernel the model ranks
//! ([`tcgemm::tune::modelled`]) on a grid of shapes, run as named (stream-K where dispatch would
//! share out k-tiles, never split into k-slices), fits each kernel's steady rate
//! ([`tcgemm::tune::fit`]) and writes the table dispatch reads. `cargo xtask tune` runs it on a
//! GPU machine with Rust and writes `src/dispatch/rates.rs`; on one without (the GPU bundle),
//! `run.sh tool tune --table $OUT/rates.rs --log $OUT/tune.md`, then copy both in.
//!
//! ```text
//! tune [--table FILE] [--log FILE] [--filter TEXT]... [--from-log FILE] [--device N]
//! ```
//!
//! Each kernel runs on each shape of [`SHAPES`] it can implement in its own layout: median of 7
//! timed runs after 3 warm-ups (CUDA events behind a GPU-side delay), launches rotating through
//! buffer sets of random inputs spanning at least twice the L2 (`tcgemm_testkit::sets`). Prints,
//! last, one row per kernel: its rate in the table now and the fitted one. `--log` writes every
//! measurement as markdown; `--from-log` fits an earlier run's log again (after a change to the
//! fit or the model) without a GPU. Exits 2 without a GPU, 64 on bad arguments, 1 when a kernel
//! could not be measured on any shape (the table would lack it).

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Parser;
use half::{bf16, f16};
use tcgemm::tune::{
    busiest_work, fit, misses, modelled, prior, table_rate, table_source, Measurement, Rate,
};
use tcgemm::{ContextOptions, Elem, Gemm, KernelSpec, Problem};
use tcgemm_kernels::config::{find_kernel, KERNELS};
use tcgemm_testkit::{median, open_for_with, Sets, Shape, TestElem, Timer};
use tcgemm_tools::{err_text, nvidia_driver_version, parse_args, utc_now};

/// The shapes `(m, n, k)` each kernel is timed on: squares of 0.24 to 15.5 waves of the 128×256
/// tile on 132 SMs (1024³ 0.24, 2048³ 0.97, 3072³ 2.2, 4096³ 3.9, 8192³ 15.5), a prefill layer, a
/// product of 1024 rows and long K, layers of 128 tokens (where the 128-row tiles under stream-K
/// and the 64-row tiles compete) and thin products (the 64-row and 64-column tiles).
const SHAPES: [(usize, usize, usize); 11] = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (3072, 3072, 3072),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 11008, 4096),
    (1024, 4096, 8192),
    (128, 4096, 4096),
    (128, 11008, 4096),
    (64, 8192, 8192),
    (8192, 64, 8192),
];

/// Fits dispatch's time model to this GPU and writes the table dispatch reads.
#[derive(Parser, Debug)]
#[command(name = "tune")]
struct Args {
    /// Write the fitted table here (Rust source: `src/dispatch/rates.rs`).
    #[arg(long, value_name = "FILE")]
    table: Option<std::path::PathBuf>,
    /// Write every measurement here (markdown).
    #[arg(long, value_name = "FILE")]
    log: Option<std::path::PathBuf>,
    /// Only the kernels whose name contains one of these texts (repeatable; a table written from
    /// part of the kernels lacks the others).
    #[arg(long, value_name = "TEXT")]
    filter: Vec<String>,
    /// Fit the measurements of an earlier run's `--log` instead of measuring (no GPU needed).
    #[arg(long, value_name = "FILE")]
    from_log: Option<std::path::PathBuf>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
}

/// The kernels' measurements and the markdown log of them.
struct Run<'a> {
    timer: Timer<'a>,
    start: std::time::Instant,
    sms: u32,
    measured: Vec<Measurement>,
    /// The calls so far: shape, transposes, element types and math.
    calls: Vec<Call>,
    log: String,
}

/// A call kernels compete for: `(m, n, k, trans_a, trans_b, input, output, math)`.
type Call = (usize, usize, usize, bool, bool, Elem, Elem, tcgemm::Math);

/// The number of `spec`'s call on `(m, n, k)` among `calls` (one per shape, layout, element types
/// and math: the kernels that compete for it), added if new.
fn call_index(calls: &mut Vec<Call>, spec: &KernelSpec, (m, n, k): (usize, usize, usize)) -> usize {
    let key = (
        m,
        n,
        k,
        spec.trans_a,
        spec.trans_b,
        spec.input,
        spec.output,
        spec.math,
    );
    calls.iter().position(|c| *c == key).unwrap_or_else(|| {
        calls.push(key);
        calls.len() - 1
    })
}

impl Run<'_> {
    /// Times every kernel of `kernels` (all of them `I -> O`) on every shape.
    fn kernels<I: TestElem, O: TestElem>(&mut self, kernels: &[&'static KernelSpec]) {
        if kernels.is_empty() {
            return;
        }
        for (m, n, k) in SHAPES {
            // one buffer set serves every layout: packed operands have the same lengths
            let mut sets = match Sets::<I, O>::new(self.timer.ctx(), Shape::new(m, n, k), 1) {
                Ok(s) => s,
                Err(e) => {
                    let _ = writeln!(self.log, "| {m}×{n}×{k} | - | error: {e} | | |");
                    continue;
                }
            };
            for &spec in kernels {
                let g = Gemm::new(m, n, k)
                    .trans_a(spec.trans_a)
                    .trans_b(spec.trans_b);
                let call = call_index(&mut self.calls, spec, (m, n, k));
                let timed = self.time((spec, call), &g, &mut sets);
                // progress, on stderr: a long sweep shows where it is
                eprintln!(
                    "{:7.1} s  {} {m}×{n}×{k}: {:?}",
                    self.start.elapsed().as_secs_f64(),
                    spec.name,
                    timed.as_ref().map(|t| t.0)
                );
                match timed {
                    Ok((ms, measured)) => {
                        let _ = writeln!(
                            self.log,
                            "| {} | {m}×{n}×{k}{} | {ms:.4} | {:.1} | {:.1} |",
                            spec.name,
                            if measured.stream_k { " sk" } else { "" },
                            2.0 * (m * n * k) as f64 / ms / 1e9,
                            2.0 * measured.work as f64 * f64::from(self.sms) / ms / 1e9
                        );
                        self.measured.push(measured);
                    }
                    Err(e) => {
                        let _ = writeln!(self.log, "| {} | {m}×{n}×{k} | {e} | | |", spec.name);
                    }
                }
            }
        }
    }

    /// `spec` on `g` (call number `call`) as dispatch would run it: its median device time (ms)
    /// and what the model knows of the call.
    fn time<I: TestElem, O: TestElem>(
        &mut self,
        (spec, call): (&'static KernelSpec, usize),
        g: &Gemm,
        sets: &mut Sets<I, O>,
    ) -> Result<(f64, Measurement), String> {
        let p = Problem::assume_aligned::<I, O>(g).map_err(err_text)?;
        let ctx = self.timer.ctx();
        let count = sets.len();
        let mut stream_k = false;
        let mut run = |j: usize| {
            let (a, b, mut c) = sets.views(j % count);
            let plan = ctx
                .gemm_with_kernel(spec.name, g, &a, &b, &mut c)
                .map_err(err_text)?
                .ok_or("no output")?;
            stream_k = plan.stream_k > 0;
            Ok(())
        };
        self.timer.each(3, &mut run)?;
        let ms = median(&self.timer.each(7, &mut run)?);
        let work = busiest_work(spec, &p, self.sms, stream_k).ok_or("not ranked by the model")?;
        let m = Measurement {
            kernel: spec,
            call,
            prior: prior(spec, &p, self.sms, stream_k),
            stream_k,
            work,
            seconds: ms * 1e-3,
        };
        Ok((ms, m))
    }
}

/// The measurements, the kernels they cover, the provenance line and the measurement log, from a
/// GPU run or from an earlier run's log (`--from-log`).
struct Measured {
    provenance: String,
    kernels: Vec<&'static KernelSpec>,
    measured: Vec<Measurement>,
    /// The calls, by their number in `measured`.
    calls: Vec<Call>,
    log: String,
}

/// Times every kernel the model ranks (and `filter` admits) on this GPU.
fn measure(args: &Args) -> Result<Measured, ExitCode> {
    // as dispatch runs a kernel: stream-K where the context shares out k-tiles (a named kernel is
    // never split into k-slices)
    let ctx = open_for_with("tune", args.device, Some(ContextOptions::default()))?;
    let caps = ctx.capabilities();
    let provenance = format!(
        "Fitted on {} ({} SMs), NVIDIA driver {}, {}, shapes (m, n, k) {:?}.",
        caps.name,
        caps.sm_count,
        nvidia_driver_version().unwrap_or_else(|| "unknown".into()),
        utc_now(),
        SHAPES
    );
    let kernels: Vec<&'static KernelSpec> = ctx
        .kernels()
        .into_iter()
        .filter(|k| modelled(k) && admitted(args, k))
        .collect();
    let mut run = Run {
        sms: caps.sm_count,
        timer: Timer::new(&ctx),
        start: std::time::Instant::now(),
        measured: Vec::new(),
        calls: Vec::new(),
        log: format!(
            "# Tuning measurements\n\n{provenance}\n\nEach kernel as named (stream-K where dispatch would): median of 7 runs.\n\n\
             | kernel | shape (sk: stream-K) | ms | TFLOPS | busiest SM × SMs, TFLOPS |\n|---|---|---:|---:|---:|\n"
        ),
    };
    let of = |input: Elem, output: Elem| -> Vec<&'static KernelSpec> {
        kernels
            .iter()
            .copied()
            .filter(|k| (k.input, k.output) == (input, output))
            .collect()
    };
    run.kernels::<f32, f32>(&of(Elem::F32, Elem::F32));
    run.kernels::<f16, f16>(&of(Elem::F16, Elem::F16));
    run.kernels::<f16, f32>(&of(Elem::F16, Elem::F32));
    run.kernels::<bf16, bf16>(&of(Elem::Bf16, Elem::Bf16));
    run.kernels::<bf16, f32>(&of(Elem::Bf16, Elem::F32));
    Ok(Measured {
        provenance,
        kernels,
        measured: run.measured,
        calls: run.calls,
        log: run.log,
    })
}

/// The log's section on the calls where the model picks a slower kernel than the fastest it
/// compares there ([`misses`]), with the fitted `rates` and, for comparison, with the table this
/// build dispatches with.
fn lost_calls(run: &Measured, rates: &[Rate]) -> String {
    let now: Vec<Rate> = rates
        .iter()
        .map(|r| Rate {
            rate: find_kernel(r.kernel).and_then(table_rate).unwrap_or(0),
            ..r.clone()
        })
        .collect();
    let calls = run.calls.len();
    let summary = |lost: &[tcgemm::tune::Miss]| {
        let log: f64 = lost.iter().map(|l| l.slower.ln()).sum();
        format!(
            "picks the fastest kernel it compares on {} of {calls} calls, its pick's time {:.3}× \
             the fastest's (geometric mean over all calls)",
            calls - lost.len(),
            (log / calls.max(1) as f64).exp()
        )
    };
    let lost = misses(&run.measured, rates);
    let mut s = format!(
        "\n## Calls the model loses\n\nWith the fitted rates the model {}; with the rates this \
         build read when it wrote this log, it {}.\n\n| call | picked | fastest | time / fastest |\n\
         |---|---|---|---:|\n",
        summary(&lost),
        summary(&misses(&run.measured, &now)),
    );
    for l in &lost {
        let call = run.calls.get(l.call).map_or("?".into(), |c| {
            let layout = |t: bool| if t { 't' } else { 'n' };
            let (ta, tb) = (layout(c.3), layout(c.4));
            format!(
                "{}×{}×{} {ta}{tb} {:?}→{:?} {:?}",
                c.0, c.1, c.2, c.5, c.6, c.7
            )
        });
        let _ = writeln!(
            s,
            "| {call} | {} | {} | {:.3} |",
            l.picked, l.fastest, l.slower
        );
    }
    s
}

/// Whether `--filter` admits kernel `k`.
fn admitted(args: &Args, k: &KernelSpec) -> bool {
    args.filter.is_empty() || args.filter.iter().any(|f| k.name.contains(f.as_str()))
}

/// The measurements of an earlier run's log (its rows `| kernel | M×N×K[ sk] | ms | …`), each
/// call's model figures recomputed by this build; the SM count from its provenance line.
fn from_log(args: &Args, path: &std::path::Path) -> Result<Measured, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let first = text
        .lines()
        .find(|l| l.starts_with("Fitted on"))
        .ok_or("no provenance line")?;
    let sms: u32 = first
        .split(" SMs)")
        .next()
        .and_then(|h| h.rsplit('(').next())
        .and_then(|n| n.parse().ok())
        .ok_or("no SM count in the provenance line")?;
    let log = text
        .split("\n| kernel | calls |")
        .next()
        .unwrap_or(&text)
        .to_string();
    let mut calls: Vec<Call> = Vec::new();
    let mut measured = Vec::new();
    for line in log.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(spec), Some(shape), Some(Ok(ms))) = (
            cells.get(1).and_then(|n| find_kernel(n)),
            cells.get(2),
            cells.get(3).map(|c| c.parse::<f64>()),
        ) else {
            continue;
        };
        if !admitted(args, spec) {
            continue;
        }
        let (dims, stream_k) = shape
            .strip_suffix(" sk")
            .map_or((*shape, false), |d| (d, true));
        let dims: Vec<usize> = dims.split('×').filter_map(|d| d.parse().ok()).collect();
        let &[m, n, k] = dims.as_slice() else {
            return Err(format!("bad shape `{shape}`"));
        };
        let g = Gemm::new(m, n, k)
            .trans_a(spec.trans_a)
            .trans_b(spec.trans_b);
        let call = call_index(&mut calls, spec, (m, n, k));
        let p = match (spec.input, spec.output) {
            (Elem::F32, Elem::F32) => Problem::assume_aligned::<f32, f32>(&g),
            (Elem::F16, Elem::F16) => Problem::assume_aligned::<f16, f16>(&g),
            (Elem::F16, Elem::F32) => Problem::assume_aligned::<f16, f32>(&g),
            (Elem::Bf16, Elem::Bf16) => Problem::assume_aligned::<bf16, bf16>(&g),
            _ => Problem::assume_aligned::<bf16, f32>(&g),
        }
        .map_err(err_text)?;
        measured.push(Measurement {
            kernel: spec,
            call,
            prior: prior(spec, &p, sms, stream_k),
            stream_k,
            work: busiest_work(spec, &p, sms, stream_k).ok_or("not ranked by the model")?,
            seconds: ms * 1e-3,
        });
    }
    let kernels = KERNELS
        .iter()
        .filter(|k| modelled(k) && admitted(args, k))
        .collect();
    Ok(Measured {
        provenance: format!(
            "{} Refitted from that run's log on {}.",
            first.trim(),
            utc_now()
        ),
        kernels,
        measured,
        calls,
        log,
    })
}

fn main() -> ExitCode {
    let args: Args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let run = match &args.from_log {
        Some(path) => match from_log(&args, path) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("tune: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => match measure(&args) {
            Ok(m) => m,
            Err(code) => return code,
        },
    };
    let (provenance, kernels) = (&run.provenance, &run.kernels);
    let rates = fit(&run.measured);
    let mut log = run.log.clone();
    let mut status = ExitCode::SUCCESS;
    let mut summary =
        String::from("\n| kernel | calls | rate now | fitted |\n|---|---:|---:|---:|\n");
    for k in kernels {
        let now = table_rate(k).map_or("-".into(), |r| r.to_string());
        match rates.iter().find(|r| r.kernel == k.name) {
            Some(r) => {
                let _ = writeln!(summary, "| {} | {} | {now} | {} |", k.name, r.calls, r.rate);
            }
            None => {
                let _ = writeln!(summary, "| {} | 0 | {now} | not measured |", k.name);
                status = ExitCode::FAILURE;
            }
        }
    }
    log.push_str(&summary);
    log.push_str(&lost_calls(&run, &rates));
    if let Some(path) = &args.log {
        if let Err(e) = std::fs::write(path, &log) {
            eprintln!("tune: writing {}: {e}", path.display());
            status = ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.table {
        if let Err(e) = std::fs::write(path, table_source(&rates, provenance)) {
            eprintln!("tune: writing {}: {e}", path.display());
            status = ExitCode::FAILURE;
        }
    }
    print!("{summary}");
    status
}
