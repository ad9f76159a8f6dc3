//! Property tests: for every path (FP32/FFMA, TF32, f16→f16, f16→f32, bf16→bf16, bf16→f32 and f16
//! accumulation), [`DEFAULT_CASES`] random GEMMs through dispatch against the f64 reference of
//! `tcgemm-testkit`, with the tolerances of the path's own suite (fp32.rs, tf32.rs, half.rs), all
//! defined once in `tcgemm_testkit::tolerance`.
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`);
//! `generator::generator_self_check` needs none.
//!
//! - Cases: `generator::random_problem` (tests/property/generator.rs), one generator for every
//!   path. `m`, `n`, `k` in `1..=2048` from a mixture (35% small with 1 most likely, 25% tile edges ±1, 20% odd primes, 20% uniform), the
//!   largest redrawn (small or tile edge) while `m·n·k·batch` > `MAX_MACS` or A, B and C hold
//!   more than `MAX_ELEMS` elements; random transposes; leading dimensions packed, padded by
//!   1..=9 or padded to 16 bytes; 30% batches of 2..=5 with packed, padded or 16-byte-padded
//!   strides, sometimes 0 for A and/or B (broadcast); sometimes misaligned or 16-byte base
//!   offsets; alpha from {1, −1, 0, 0.5, [−2, 2]}, beta from {0, 1, −1, [−2, 2]}. With
//!   `alpha == 0` A and B are all NaN: they must not be read.
//! - Runs: case `i` goes through dispatch on the default context when `i` is even and on the
//!   `force_sm80` one when `i` is odd (1000 cases: 500 per context). Dispatch takes the Hopper TMA
//!   kernels only for calls big enough to fill most of the GPU with their 128×128 or 128×256
//!   tiles, which the caps exclude, so every TMA-legal case (16-byte-aligned bases, leading
//!   dimensions and strides, alpha ≠ 0) also runs one of the path's TMA kernels by name (the tile
//!   shapes in turn) on the default context when they are loaded (compute capability 9.0). FP32 cases use `Precision::Default` or `Exact` (both FFMA; `Exact`
//!   only when the context allows TF32); dispatch must plan the path's math.
//! - Reference: every entry up to [`FULL_REFERENCE_MACS`] multiply-adds, a sample of entries above
//!   (`tcgemm_testkit::SAMPLES` of them, corners included); C outside the `m×n` windows (ld padding, batch
//!   gaps, guards) is always checked whole, and with `beta == 0` no window entry may keep C's NaN.
//! - Replay: the seed is `TCGEMM_SEED` or the clock; case `i` depends only on the seed, the test's
//!   name and `i`. A failure prints the seed, the index and the case; `TCGEMM_SEED=<seed>
//!   TCGEMM_PROP_CASE=<i> cargo test --release --test property -- --exact <test>` runs that case
//!   alone (through dispatch on every context, and the TMA kernel where legal).
//!   `TCGEMM_PROP_CASES=<n>` runs `n` cases instead of 1000.
//! - Each test writes one summary line to stderr (uncaptured): runs per context, TMA runs,
//!   largest shape, largest relative error and its ratio to the tolerance, and the time.

use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use half::{bf16, f16};
use tcgemm::{Context, KernelSpec, Math, Precision};
use tcgemm_testkit::*;

#[path = "property/generator.rs"]
mod generator;
use generator::case_problem;

/// Cases per path and run (each on one context, alternating), unless `TCGEMM_PROP_CASES` says.
const DEFAULT_CASES: usize = 1000;
/// Full f64 reference (every entry) up to this many multiply-adds, sampled entries above: keeps the
/// CPU reference, which would dominate the run time, at ≤ 2²⁴ + `SAMPLES·k` multiply-adds a case.
const FULL_REFERENCE_MACS: u128 = 1 << 24;
/// A path's check of a downloaded C: the report and the Frobenius tolerance it was held to.
type Check<I, O> = fn(&Case<I, O>, &[<O as TestElem>::Bits]) -> Result<(Report, f64), String>;

fn check_fp32(case: &Case<f32, f32>, out: &[u32]) -> Result<(Report, f64), String> {
    let tol = tol_fp32(case.p.k);
    Ok((case.try_verify(out, tol)?, tol))
}

fn check_tf32(case: &Case<f32, f32>, out: &[u32]) -> Result<(Report, f64), String> {
    let report = case.try_verify(out, TOL_TF32_FRO)?;
    tf32_entry_errors(case, out)?;
    Ok((report, TOL_TF32_FRO))
}

fn check_half<I: TestElem, O: TestElem>(
    case: &Case<I, O>,
    out: &[O::Bits],
) -> Result<(Report, f64), String> {
    let tol = tol_16::<O>(case.p.k);
    Ok((case.try_verify(out, tol)?, tol))
}

fn check_acc16(case: &Case<f16, f16>, out: &[u16]) -> Result<(Report, f64), String> {
    let tol = tol_acc16(case.p.k);
    Ok((case.try_verify(out, tol)?, tol))
}

// ---------------------------------------------------------------------------------------------
// Running a path
// ---------------------------------------------------------------------------------------------

fn env_usize(name: &str) -> Option<usize> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|e| panic!("{name}={v:?} is not a case count/index: {e}")),
    )
}

/// What a path's cases are: the test's name (the stream of its cases, and what a replay runs),
/// the element sizes, the precisions its cases use and the maths dispatch may choose for them (the
/// tensor-core math first; 16-bit inputs also FFMA: the stream kernels of unaligned decode calls).
#[derive(Clone, Copy, Debug)]
struct Spec {
    name: &'static str,
    in_bytes: usize,
    out_bytes: usize,
    precisions: &'static [Precision],
    maths: &'static [Math],
}

const FP32: Spec = Spec {
    name: "property_fp32",
    in_bytes: 4,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    maths: &[Math::Ffma],
};
const TF32: Spec = Spec {
    name: "property_tf32",
    in_bytes: 4,
    out_bytes: 4,
    precisions: &[Precision::Tf32],
    maths: &[Math::MmaTf32],
};
const F16_F16: Spec = Spec {
    name: "property_f16_to_f16",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::Default, Precision::Exact],
    maths: &[Math::MmaF16F32, Math::Ffma],
};
const F16_F32: Spec = Spec {
    name: "property_f16_to_f32",
    in_bytes: 2,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    maths: &[Math::MmaF16F32, Math::Ffma],
};
const BF16_BF16: Spec = Spec {
    name: "property_bf16_to_bf16",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::Default, Precision::Exact],
    maths: &[Math::MmaBf16F32, Math::Ffma],
};
const BF16_F32: Spec = Spec {
    name: "property_bf16_to_f32",
    in_bytes: 2,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    maths: &[Math::MmaBf16F32, Math::Ffma],
};
const F16_ACC16: Spec = Spec {
    name: "property_f16_accumulate",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::F16Accumulate],
    maths: &[Math::MmaF16F16],
};
const SPECS: [Spec; 7] = [FP32, TF32, F16_F16, F16_F32, BF16_BF16, BF16_F32, F16_ACC16];

/// A path: its cases and the check of its results.
struct Path<I: TestElem, O: TestElem> {
    spec: Spec,
    check: Check<I, O>,
}

/// One run of a case: on which context, through dispatch (`kernel: None`) or a kernel by name.
#[derive(Clone, Copy)]
struct Target<'a> {
    ctx_name: &'static str,
    ctx: &'a Context,
    kernel: Option<&'static str>,
}

impl Target<'_> {
    fn label(&self) -> String {
        format!("{}/{}", self.ctx_name, self.kernel.unwrap_or("dispatch"))
    }
}

/// What one run of a case reports to the summary.
struct Ran {
    rel_fro: f64,
    tol: f64,
    sampled: bool,
    /// Through dispatch, and dispatch planned a TMA kernel (and the bases allow it).
    tma_planned: bool,
}

/// Whether dispatch runs `g` (its bases aligned, as `Context::plan` assumes) as exact FP32
/// although it asks for TF32 (`Precision::Tf32`'s documented rule): at most 4 rows of C (the f32
/// stream kernels' tallest tile), B stored k×n (their layouts), a product, and A or B not 16-byte
/// aligned (a leading dimension, or a batch stride, not a whole number of 4 f32).
fn runs_exact(g: &tcgemm::Gemm) -> bool {
    let odd = |elems: usize| elems % 4 != 0;
    let strides = g.batch > 1 && (odd(g.stride_a_or_packed()) || odd(g.stride_b_or_packed()));
    g.precision == Precision::Tf32
        && g.m <= 4
        && !g.trans_b
        && g.k > 0
        && g.alpha != 0.0
        && (odd(g.lda_or_packed()) || odd(g.ldb_or_packed()) || strides)
}

/// Builds case `i` and runs it on every target, checking each result. `Err` carries the failure
/// with the target and [`Case::describe`] (once the case exists).
fn run_case<I: TestElem, O: TestElem>(
    path: &Path<I, O>,
    i: usize,
    p: Problem,
    rng: &mut Rng,
    targets: &[Target],
) -> Result<Vec<Ran>, String> {
    let spec = path.spec;
    let mut case = Case::<I, O>::with_reference_limit(
        format!("{} #{i}", spec.name),
        p,
        rng,
        FULL_REFERENCE_MACS,
    );
    if case.p.alpha == 0.0 {
        // BLAS: A and B are not read when alpha == 0; NaN in them would show if they were.
        case.poison_inputs();
    }
    let mut ran = Vec::with_capacity(targets.len());
    for t in targets {
        let fail = |msg: String| format!("[{}] {msg}\n  {}", t.label(), case.describe());
        let mut tma_planned = false;
        if t.kernel.is_none() {
            let plan = t
                .ctx
                .plan::<I, O>(&case.p.gemm())
                .map_err(|e| fail(format!("plan failed: {e}")))?;
            let exact = plan.kernel.math == Math::Ffma && runs_exact(&case.p.gemm());
            if !spec.maths.contains(&plan.kernel.math) && !exact {
                return Err(fail(format!(
                    "dispatch planned {} ({:?}), expected one of {:?}",
                    plan.kernel.name, plan.kernel.math, spec.maths
                )));
            }
            tma_planned = plan.kernel.family.needs_tma() && kernel_can_run(plan.kernel, &case.p);
        }
        let out = case.run_with(t.ctx, t.kernel);
        let (report, tol) = (path.check)(&case, &out).map_err(fail)?;
        ran.push(Ran {
            rel_fro: report.rel_fro,
            tol,
            sampled: case.reference.points.is_some(),
            tma_planned,
        });
    }
    Ok(ran)
}

/// The Hopper TMA kernels (one per tile shape) of `spec`'s types and math for transposes
/// `(ta, tb)` on `ctx`; none unless loaded (compute capability 9.0 without `force_sm80`).
fn tma_kernels(ctx: &Context, spec: &Spec, ta: bool, tb: bool) -> Vec<&'static str> {
    ctx.kernels()
        .into_iter()
        .filter(|k| tma_of_sizes(k, spec, ta, tb) && k.math == spec.maths[0])
        .map(|k| k.name)
        .collect()
}

/// Whether `k` is a TMA kernel with `spec`'s element sizes, for transposes `(ta, tb)`.
fn tma_of_sizes(k: &KernelSpec, spec: &Spec, ta: bool, tb: bool) -> bool {
    k.family.needs_tma()
        && k.input.bytes() as usize == spec.in_bytes
        && k.output.bytes() as usize == spec.out_bytes
        && k.trans_a == ta
        && k.trans_b == tb
}

fn run_path<I: TestElem, O: TestElem>(path: Path<I, O>) {
    let spec = path.spec;
    assert_eq!(
        (spec.in_bytes, spec.out_bytes),
        (size_of::<I>(), size_of::<O>()),
        "{}: element sizes of the spec and the types differ",
        spec.name
    );
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return;
    }
    let start = Instant::now();
    let only = env_usize("TCGEMM_PROP_CASE");
    let cases = env_usize("TCGEMM_PROP_CASES").unwrap_or(DEFAULT_CASES);
    let total = only.map_or(cases, |o| cases.max(o + 1));
    // An f32 call with Precision::Default may take TF32 where the context allows it
    // (TCGEMM_ALLOW_TF32=1); this suite's FP32 tolerance is for FFMA, so ask for Exact then.
    let tf32_allowed = ctxs.iter().any(|(_, c)| c.allow_tf32());
    // Dispatch takes the TMA kernels only for calls big enough to fill most of the GPU with
    // 128×128 or 128×256 tiles, which the caps above exclude; so every TMA-legal case also runs a
    // TMA kernel by name, the tile shapes taking turns from case to case.
    let (ctx0_name, ctx0) = ctxs[0];
    let tma_by_layout: Vec<Vec<&'static str>> = TRANS
        .iter()
        .map(|&(ta, tb)| tma_kernels(ctx0, &spec, ta, tb))
        .collect();
    let seed = seed();
    let mut gen = Rng::for_test(spec.name);
    let mut per_ctx = vec![0usize; ctxs.len()];
    let (mut largest, mut largest_macs) = (String::from("-"), 0u128);
    let (mut max_rel, mut max_rel_at) = (0.0f64, 0usize);
    let (mut max_ratio, mut max_ratio_at) = (0.0f64, 0usize);
    let (mut sampled, mut tma_planned, mut tma_by_name) = (0usize, 0usize, 0usize);
    for i in 0..total {
        let (mut p, rng) = case_problem(&mut gen, spec.in_bytes, spec.out_bytes, spec.precisions);
        if only.is_some_and(|o| o != i) {
            continue;
        }
        if tf32_allowed && spec.in_bytes == 4 && p.precision == Precision::Default {
            p.precision = Precision::Exact;
        }
        // Dispatch on the context of the case's parity (on every context when replaying one case),
        // then the TMA kernel by name where the case is TMA-legal.
        let mut targets: Vec<Target> = ctxs
            .iter()
            .enumerate()
            .filter(|(c, _)| only.is_some() || *c == i % ctxs.len())
            .map(|(_, &(ctx_name, ctx))| Target {
                ctx_name,
                ctx,
                kernel: None,
            })
            .collect();
        let layout = usize::from(p.trans_a) * 2 + usize::from(p.trans_b);
        let tma = &tma_by_layout[layout];
        if let Some(&k) = tma.get(i % tma.len().max(1)) {
            if runs_by_name(ctx0, k, &p) {
                targets.push(Target {
                    ctx_name: ctx0_name,
                    ctx: ctx0,
                    kernel: Some(k),
                });
            }
        }
        if only.is_some() {
            println!("{}: case #{i} alone: {p}", spec.name);
        }
        if p.macs() > largest_macs {
            largest_macs = p.macs();
            largest = format!("{}×{}×{} batch {} (case #{i})", p.m, p.n, p.k, p.batch);
        }
        let shown = format!("{p}");
        let mut case_rng = rng;
        let res = catch_unwind(AssertUnwindSafe(|| {
            run_case(&path, i, p, &mut case_rng, &targets)
        }))
        .unwrap_or_else(|e| Err(format!("panicked: {}\n  problem: {shown}", panic_text(&*e))));
        let ran = res.unwrap_or_else(|msg| {
            panic!(
                "{}: case #{i} (of {total}) failed: {msg}\n  base seed: TCGEMM_SEED={seed} \
                 ({seed:#x}); replay: TCGEMM_SEED={seed} TCGEMM_PROP_CASE={i} \
                 cargo test --release --test property -- --exact {}",
                spec.name, spec.name
            )
        });
        for (t, r) in targets.iter().zip(&ran) {
            match t.kernel {
                None => {
                    let c = ctxs
                        .iter()
                        .position(|(name, _)| *name == t.ctx_name)
                        .expect("a context of gpu_all");
                    per_ctx[c] += 1;
                    tma_planned += usize::from(r.tma_planned);
                }
                Some(_) => tma_by_name += 1,
            }
            if r.rel_fro > max_rel {
                (max_rel, max_rel_at) = (r.rel_fro, i);
            }
            if r.rel_fro / r.tol > max_ratio {
                (max_ratio, max_ratio_at) = (r.rel_fro / r.tol, i);
            }
        }
        sampled += usize::from(ran.first().is_some_and(|r| r.sampled));
    }
    let runs: Vec<String> = ctxs
        .iter()
        .zip(&per_ctx)
        .map(|((name, _), n)| format!("{name} {n}"))
        .collect();
    let line = format!(
        "{}: {} case(s) through dispatch ({}), {tma_by_name} also through the TMA kernel by name \
         (dispatch planned TMA for {tma_planned}); seed {seed} ({seed:#x}); largest {largest}; \
         max rel_fro {max_rel:.3e} (case #{max_rel_at}); max rel_fro/tol {max_ratio:.3} \
         (case #{max_ratio_at}); {sampled} sampled reference(s); {:.1} s",
        spec.name,
        per_ctx.iter().sum::<usize>(),
        runs.join(", "),
        start.elapsed().as_secs_f64()
    );
    // libtest captures println! of passing tests; the summary goes where a CI log shows it.
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn property_fp32() {
    run_path::<f32, f32>(Path {
        spec: FP32,
        check: check_fp32,
    });
}

#[test]
fn property_tf32() {
    run_path::<f32, f32>(Path {
        spec: TF32,
        check: check_tf32,
    });
}

#[test]
fn property_f16_to_f16() {
    run_path::<f16, f16>(Path {
        spec: F16_F16,
        check: check_half::<f16, f16>,
    });
}

#[test]
fn property_f16_to_f32() {
    run_path::<f16, f32>(Path {
        spec: F16_F32,
        check: check_half::<f16, f32>,
    });
}

#[test]
fn property_bf16_to_bf16() {
    run_path::<bf16, bf16>(Path {
        spec: BF16_BF16,
        check: check_half::<bf16, bf16>,
    });
}

#[test]
fn property_bf16_to_f32() {
    run_path::<bf16, f32>(Path {
        spec: BF16_F32,
        check: check_half::<bf16, f32>,
    });
}

#[test]
fn property_f16_accumulate() {
    run_path::<f16, f16>(Path {
        spec: F16_ACC16,
        check: check_acc16,
    });
}
