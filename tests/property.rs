//! Property tests: for every path (FP32/FFMA, TF32, f16→f16, f16→f32, bf16→bf16, bf16→f32 and f16
//! accumulation), [`DEFAULT_CASES`] random GEMMs through dispatch against the f64 reference of
//! `tcgemm-testkit`, with the tolerances of the path's own suite (fp32.rs, tf32.rs, half.rs), all
//! defined once in `tcgemm_testkit::tolerance`.
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`);
//! [`generator_self_check`] needs none.
//!
//! - Cases: [`random_problem`], one generator for every path. `m`, `n`, `k` in `1..=2048` from a
//!   mixture (35% small with 1 most likely, 25% tile edges ±1, 20% odd primes, 20% uniform), the
//!   largest redrawn (small or tile edge) while `m·n·k·batch` > [`MAX_MACS`] or A, B and C hold
//!   more than [`MAX_ELEMS`] elements; random transposes; leading dimensions packed, padded by
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
use tcgemm_kernels::config::KERNELS;
use tcgemm_testkit::*;

/// Cases per path and run (each on one context, alternating), unless `TCGEMM_PROP_CASES` says.
const DEFAULT_CASES: usize = 1000;
/// Largest `m`, `n` and `k` drawn.
const MAX_DIM: usize = 2048;
/// Cap on `m·n·k·batch`: above it the largest dimension is redrawn from the small/tile-edge classes.
const MAX_MACS: u128 = 1 << 28;
/// Cap on the elements of A, B and C together (`(m·k + k·n + m·n)·batch`), redrawn like
/// [`MAX_MACS`]: operand generation, transfers and the check of C cost per element.
const MAX_ELEMS: u128 = 1 << 20;
/// Full f64 reference (every entry) up to this many multiply-adds, sampled entries above: keeps the
/// CPU reference, which would dominate the run time, at ≤ 2²⁴ + `SAMPLES·k` multiply-adds a case.
const FULL_REFERENCE_MACS: u128 = 1 << 24;
/// Tile edges of the kernels (block, warp and k tiles): each is drawn as `t − 1`, `t` or `t + 1`.
const TILE_EDGES: [usize; 6] = [8, 16, 32, 64, 128, 256];
/// Odd primes: never a multiple of a tile or of a vector width.
const PRIMES: [usize; 12] = [3, 5, 7, 11, 13, 31, 61, 127, 257, 509, 1021, 2039];

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
// The case generator
// ---------------------------------------------------------------------------------------------

/// `1..=8`, 1 with probability ≈ 0.48.
fn small_dim(rng: &mut Rng) -> usize {
    if rng.chance(0.4) {
        1
    } else {
        rng.range(1, 8)
    }
}

/// `t − 1`, `t` or `t + 1` for a tile edge `t`.
fn tile_edge_dim(rng: &mut Rng) -> usize {
    rng.pick(&TILE_EDGES) - 1 + rng.below(3)
}

/// One of `m`, `n`, `k`: 35% small, 25% tile edge ±1, 20% odd prime, 20% uniform in `1..=2048`.
fn dim(rng: &mut Rng) -> usize {
    let u = rng.unit();
    if u < 0.35 {
        small_dim(rng)
    } else if u < 0.60 {
        tile_edge_dim(rng)
    } else if u < 0.80 {
        rng.pick(&PRIMES)
    } else {
        rng.range(1, MAX_DIM)
    }
}

/// Elements to add to `x` to reach a multiple of `align`.
fn up_to(x: usize, align: usize) -> usize {
    (align - x % align) % align
}

/// The problem of one case (without its precision), drawn from `rng`, for inputs of `in_bytes` and
/// an output of `out_bytes` per element (the 16-byte-aligned paddings and offsets depend on them).
fn random_problem(rng: &mut Rng, in_bytes: usize, out_bytes: usize) -> Problem {
    let (ai, ao) = (16 / in_bytes, 16 / out_bytes);
    let mut d = [dim(rng), dim(rng), dim(rng)];
    let batch = if rng.chance(0.7) { 1 } else { rng.range(2, 5) };
    // Cap the work: redraw the largest dimension (the last of equals) until under the caps.
    let over = |d: &[usize; 3]| {
        let (m, n, k) = (d[0] as u128, d[1] as u128, d[2] as u128);
        let b = batch as u128;
        m * n * k * b > MAX_MACS || (m * k + k * n + m * n) * b > MAX_ELEMS
    };
    while over(&d) {
        let i = (0..3).max_by_key(|&i| d[i]).expect("three dimensions");
        d[i] = if rng.chance(0.5) {
            small_dim(rng)
        } else {
            tile_edge_dim(rng)
        };
    }
    let (m, n, k) = (d[0], d[1], d[2]);
    let (ta, tb) = (rng.chance(0.5), rng.chance(0.5));
    let mut p = Problem::new(m, n, k).trans(ta, tb).batched(batch);
    // Leading dimensions: 50% packed, 35% padded by 1..=9 (odd and even: mostly not 16-byte
    // multiples), 15% padded to a 16-byte multiple (plus 16 bytes half of the time).
    match rng.below(20) {
        0..=9 => {}
        10..=16 => {
            let (ea, eb, ec) = (rng.range(1, 9), rng.range(1, 9), rng.range(1, 9));
            p = p.pad_ld(ea, eb, ec);
        }
        _ => {
            let ea = up_to(p.a_cols(), ai) + ai * rng.below(2);
            let eb = up_to(p.b_cols(), ai) + ai * rng.below(2);
            let ec = up_to(p.n, ao) + ao * rng.below(2);
            p = p.pad_ld(ea, eb, ec);
        }
    }
    if batch > 1 {
        // Batch strides: 50% packed, 25% padded by 0..=9, 25% padded to a 16-byte multiple.
        match rng.below(4) {
            0 | 1 => {}
            2 => {
                let (ea, eb, ec) = (rng.range(0, 9), rng.range(0, 9), rng.range(0, 9));
                p = p.pad_strides(ea, eb, ec);
            }
            _ => {
                let ea = up_to(p.a_rows() * p.eff_lda(), ai) + ai * rng.below(2);
                let eb = up_to(p.b_rows() * p.eff_ldb(), ai) + ai * rng.below(2);
                let ec = up_to(p.m * p.eff_ldc(), ao) + ao * rng.below(2);
                p = p.pad_strides(ea, eb, ec);
            }
        }
        // 20%: A, B or both shared by every batch item (stride 0).
        if rng.chance(0.2) {
            match rng.below(5) {
                0 | 1 => p.stride_a = Some(0),
                2 | 3 => p.stride_b = Some(0),
                _ => {
                    p.stride_a = Some(0);
                    p.stride_b = Some(0);
                }
            }
        }
    }
    // 15%: views that start 1 or 3 elements (misaligned) or 16 bytes into their allocation.
    if rng.chance(0.15) {
        let (oa, ob, oc) = (
            rng.pick(&[0, 1, 3, ai]),
            rng.pick(&[0, 1, 3, ai]),
            rng.pick(&[0, 1, 3, ao]),
        );
        p = p.offsets(oa, ob, oc);
    }
    let alpha = match rng.below(20) {
        0..=5 => 1.0,
        6..=8 => -1.0,
        9 | 10 => 0.0,
        11..=13 => 0.5,
        _ => (2.0 * rng.pm1()) as f32,
    };
    let beta = match rng.below(20) {
        0..=7 => 0.0,
        8..=11 => 1.0,
        12..=14 => -1.0,
        _ => (2.0 * rng.pm1()) as f32,
    };
    p.scale(alpha, beta)
}

/// Case `i` of a path: its problem (precision drawn from `precisions`) and the generator that then
/// fills its operands. `gen` is the path's stream, `Rng::for_test(<test name>)`; each case takes two
/// words from it whether or not it runs, so case `i` depends only on the seed, the name and `i`.
fn case_problem(
    gen: &mut Rng,
    in_bytes: usize,
    out_bytes: usize,
    precisions: &[Precision],
) -> (Problem, Rng) {
    let (seed, stream) = (gen.next_u64(), gen.next_u64());
    let mut rng = Rng::new(seed, stream);
    let p = random_problem(&mut rng, in_bytes, out_bytes);
    let precision = rng.pick(precisions);
    (p.precision(precision), rng)
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
/// the element sizes, the precisions its cases use and the math dispatch must choose for them.
#[derive(Clone, Copy, Debug)]
struct Spec {
    name: &'static str,
    in_bytes: usize,
    out_bytes: usize,
    precisions: &'static [Precision],
    math: Math,
}

const FP32: Spec = Spec {
    name: "property_fp32",
    in_bytes: 4,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    math: Math::Ffma,
};
const TF32: Spec = Spec {
    name: "property_tf32",
    in_bytes: 4,
    out_bytes: 4,
    precisions: &[Precision::Tf32],
    math: Math::MmaTf32,
};
const F16_F16: Spec = Spec {
    name: "property_f16_to_f16",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::Default, Precision::Exact],
    math: Math::MmaF16F32,
};
const F16_F32: Spec = Spec {
    name: "property_f16_to_f32",
    in_bytes: 2,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    math: Math::MmaF16F32,
};
const BF16_BF16: Spec = Spec {
    name: "property_bf16_to_bf16",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::Default, Precision::Exact],
    math: Math::MmaBf16F32,
};
const BF16_F32: Spec = Spec {
    name: "property_bf16_to_f32",
    in_bytes: 2,
    out_bytes: 4,
    precisions: &[Precision::Default, Precision::Exact],
    math: Math::MmaBf16F32,
};
const F16_ACC16: Spec = Spec {
    name: "property_f16_accumulate",
    in_bytes: 2,
    out_bytes: 2,
    precisions: &[Precision::F16Accumulate],
    math: Math::MmaF16F16,
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
            if plan.kernel.math != spec.math {
                return Err(fail(format!(
                    "dispatch planned {} ({:?}), expected {:?} math",
                    plan.kernel.name, plan.kernel.math, spec.math
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
        .filter(|k| tma_of_sizes(k, spec, ta, tb) && k.math == spec.math)
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

/// The generator alone (no GPU needed, so it runs everywhere): for every path's stream, cases in
/// range and under the cap, valid for the library's argument checks, reproducible from the seed,
/// and every class of the mixture present. Prints the host work the cases make (the GPU run's cost
/// is mostly this: operand generation, transfers and the CPU reference).
#[test]
fn generator_self_check() {
    for spec in SPECS {
        let (mut g1, mut g2) = (Rng::for_test(spec.name), Rng::for_test(spec.name));
        let mut seen_dims = std::collections::BTreeSet::new();
        let (mut unit, mut uniform_big, mut batched, mut bcast_a, mut bcast_b) = (0, 0, 0, 0, 0);
        let (mut legal, mut legal_batched, mut offsets, mut ld_odd) = (0, 0, 0, 0);
        let (mut trans, mut alphas, mut betas) = ([0usize; 4], [0usize; 5], [0usize; 4]);
        let (mut elems, mut full_macs, mut sampled_macs, mut sampled) = (0u128, 0u128, 0u128, 0);
        for i in 0..DEFAULT_CASES {
            let (p, mut r1) = case_problem(&mut g1, spec.in_bytes, spec.out_bytes, spec.precisions);
            let (q, mut r2) = case_problem(&mut g2, spec.in_bytes, spec.out_bytes, spec.precisions);
            assert_eq!(
                format!("{p}"),
                format!("{q}"),
                "{}: case #{i} differs",
                spec.name
            );
            assert_eq!(
                r1.next_u64(),
                r2.next_u64(),
                "{}: case #{i} data",
                spec.name
            );
            let what = format!("{}: case #{i}: {p}", spec.name);
            for d in [p.m, p.n, p.k] {
                assert!((1..=MAX_DIM).contains(&d), "{what}: dimension {d}");
                seen_dims.insert(d);
                unit += usize::from(d == 1);
                uniform_big += usize::from(d > 1024 && !PRIMES.contains(&d));
            }
            assert!((1..=5).contains(&p.batch), "{what}: batch");
            assert!(p.macs() <= MAX_MACS, "{what}: over the cap");
            assert!(spec.precisions.contains(&p.precision), "{what}: precision");
            let g = p.gemm();
            let lens = g
                .required_lens()
                .unwrap_or_else(|e| panic!("{what}: required_lens: {e}"));
            let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
            g.validate(
                la.span().max(lens.0),
                lb.span().max(lens.1),
                lc.span().max(lens.2),
            )
            .unwrap_or_else(|e| panic!("{what}: the library rejects it: {e}"));
            batched += usize::from(p.batch > 1);
            bcast_a += usize::from(p.batch > 1 && p.stride_a == Some(0));
            bcast_b += usize::from(p.batch > 1 && p.stride_b == Some(0));
            // a TMA kernel of the table (no GPU here) with the case's element sizes and layout
            let tma_spec = KERNELS
                .iter()
                .find(|k| tma_of_sizes(k, &spec, p.trans_a, p.trans_b))
                .expect("a TMA kernel for every element size pair and layout");
            let tma = kernel_can_run(tma_spec, &p);
            legal += usize::from(tma);
            legal_batched += usize::from(tma && p.batch > 1 && p.stride_b != Some(0));
            offsets += usize::from(p.offset_a + p.offset_b + p.offset_c > 0);
            ld_odd += usize::from(la.ld % 2 == 1 || lb.ld % 2 == 1 || lc.ld % 2 == 1);
            trans[usize::from(p.trans_a) * 2 + usize::from(p.trans_b)] += 1;
            alphas[match p.alpha {
                0.0 => 0,
                1.0 => 1,
                -1.0 => 2,
                0.5 => 3,
                _ => 4,
            }] += 1;
            betas[match p.beta {
                0.0 => 0,
                1.0 => 1,
                -1.0 => 2,
                _ => 3,
            }] += 1;
            elems +=
                (la.offset + la.span() + lb.offset + lb.span() + lc.offset + lc.span()) as u128;
            let reads_ab = p.alpha != 0.0;
            if p.macs() > FULL_REFERENCE_MACS
                || p.batch as u128 * p.k as u128 * p.n as u128 > 1 << 27
            {
                sampled += 1;
                sampled_macs += if reads_ab { (SAMPLES * p.k) as u128 } else { 0 };
            } else if reads_ab {
                full_macs += p.macs();
            }
        }
        let missing: Vec<usize> = TILE_EDGES
            .iter()
            .flat_map(|&t| [t - 1, t, t + 1])
            .chain(PRIMES)
            .chain(1..=8)
            .filter(|d| !seen_dims.contains(d))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: never drawn: {missing:?}",
            spec.name
        );
        assert!(uniform_big > 0, "{}: no large uniform dimension", spec.name);
        assert!(
            batched > 0 && bcast_a > 0 && bcast_b > 0,
            "{}: batches",
            spec.name
        );
        assert!(
            legal > 0 && legal < DEFAULT_CASES,
            "{}: TMA-legal mix",
            spec.name
        );
        assert!(legal_batched > 0, "{}: TMA-legal batches", spec.name);
        assert!(offsets > 0 && ld_odd > 0, "{}: offsets/odd ld", spec.name);
        assert!(
            trans.iter().all(|&c| c > 0),
            "{}: transposes {trans:?}",
            spec.name
        );
        assert!(
            alphas.iter().all(|&c| c > 0),
            "{}: alphas {alphas:?}",
            spec.name
        );
        assert!(
            betas.iter().all(|&c| c > 0),
            "{}: betas {betas:?}",
            spec.name
        );
        println!(
            "{}: {DEFAULT_CASES} cases: {unit} unit dims, {batched} batched ({bcast_a} broadcast A, \
             {bcast_b} broadcast B), {legal} TMA-legal, {offsets} with offsets; alpha 0/1/-1/0.5/other \
             {alphas:?}, beta 0/1/-1/other {betas:?}; host work: {:.1} M operand elements, \
             {:.2} G full-reference MACs, {sampled} sampled references ({:.2} G MACs)",
            spec.name,
            elems as f64 / 1e6,
            full_macs as f64 / 1e9,
            sampled_macs as f64 / 1e9
        );
    }
}
