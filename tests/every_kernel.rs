//! Every kernel of every loaded module, by name, on one tail shape (no dimension a tile multiple,
//! misaligned bases, padded leading dimensions, beta ≠ 0, two batch items), the same with beta = 0
//! (C not read; its odd N keeps the Hopper kernels on their register stores), one full-tile shape
//! and one aligned shape with edge tiles (beta = 0 and rows of whole 16-byte pieces: the Hopper
//! kernels store C by TMA there; `tests/tma_store.rs` covers that path's tails).
//! Small on purpose: the GPU bundle runs it under `compute-sanitizer` (memcheck, racecheck,
//! synccheck, initcheck) with the filter `every_kernel`; `TCGEMM_KERNEL_FILTER=SUB[,SUB...]` limits it to
//! the kernels whose names contain any SUB.
//!
//! Tolerances: the FP32 path's (see `tests/fp32.rs`) for FFMA; TF32 relative Frobenius 2e-3
//! (`tests/tf32.rs`); 16-bit inputs with f32 accumulation `16·2⁻²⁴·√k`, plus twice the unit
//! roundoff of a 16-bit output (`tests/half.rs`).

use tcgemm::{Context, Family, KernelSpec, Math, Role};
use tcgemm_testkit::*;

fn shapes(spec: &KernelSpec) -> [(String, Problem); 4] {
    let (bm, bn, bk) = (
        spec.block.m as usize,
        spec.block.n as usize,
        spec.block.k as usize,
    );
    let prec = kernel_precision(spec);
    let tail = Problem::new(bm + 3, 2 * bn - 5, 3 * bk + 1)
        .trans(spec.trans_a, spec.trans_b)
        .scale(1.5, -0.5)
        .precision(prec);
    let tail = if spec.family.needs_tma() {
        // TMA kernels need 16-byte-aligned views, leading dimensions and batch strides (dispatch
        // sends other calls to the sm_80 kernels): pad each leading dimension past a multiple of 8
        tail.pad_ld_for_tma().batched(2)
    } else {
        tail.pad_ld(1, 3, 1).offsets(1, 1, 1).batched(2)
    };
    // C not read (N odd: rows end inside a 16-byte piece, so the TMA kernels store from registers)
    let tail0 = Problem {
        beta: 0.0,
        ..tail.clone()
    };
    let full = Problem::new(2 * bm, 2 * bn, 4 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .precision(prec);
    // aligned and packed, so 16-byte copies are allowed, with edge tiles that hold half a tile and
    // 8 more rows and columns: some threads' copies lie inside the matrix and others' do not, and
    // K is long enough for a steady k-loop (the loop a block takes must not depend on the thread)
    let edge = Problem::new(bm + bm / 2 + 8, bn + bn / 2 + 8, 8 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .precision(prec);
    [
        ("tail".into(), tail),
        ("tail beta 0".into(), tail0),
        ("full".into(), full),
        ("edge".into(), edge),
    ]
}

fn run<I: TestElem, O: TestElem>(ctx: &Context, spec: &KernelSpec, rng: &mut Rng) {
    for (label, p) in shapes(spec) {
        check::<I, O>(ctx, spec, &label, p, rng);
    }
}

/// `p` on kernel `spec`, against the f64 reference with the kernel's tolerance.
fn check<I: TestElem, O: TestElem>(
    ctx: &Context,
    spec: &KernelSpec,
    label: &str,
    p: Problem,
    rng: &mut Rng,
) {
    let case = Case::<I, O>::new(format!("{} {label}", spec.name), p, rng);
    let out = case.run_with(ctx, Some(spec.name));
    case.verify_on(spec.name, &out, tol_kernel(spec, case.p.k));
}

#[test]
fn every_kernel_tail_and_full_shape() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("every_kernel_tail_and_full_shape");
    // TCGEMM_KERNEL_FILTER narrows the run (sanitizer runs of one family)
    let kernels: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| k.role() == Role::Gemm && kernel_filter_selects(k.name))
        .collect();
    assert!(!kernels.is_empty(), "a GPU context with no runnable kernel");
    for spec in kernels {
        with_kernel_elems!(spec, run(ctx, spec, &mut rng));
    }
}

/// The ping-pong kernels ([`Family::TmaPingPong`]) with three or four work items per CTA, each of
/// more k-tiles than the kernel has stages: every CTA's two consumers take turns twice,
/// and the ring of stages runs several fills ahead of one consumer's next item while the other
/// computes (dispatch sends them only short items or one per CTA; `gemm_with_kernel` may send
/// any). Odd sizes, beta ≠ 0. Before the consumers' k-loops were ordered (`PING_PONG_ORDER` in
/// `threadblock::tma_warp_specialized`), a consumer waited for its next item's k-tiles while the
/// ring was fills behind and, an `mbarrier` parity not telling fills apart, read another item's
/// stage or waited forever (H200: TF32 `nn` 64×128 at 2048³ never returned); and with one ordering
/// barrier for both directions, a CTA of three or more short items could wait forever.
#[test]
fn every_kernel_ping_pong_on_several_long_items_per_cta() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("every_kernel_ping_pong_on_several_long_items_per_cta");
    let sms = ctx.capabilities().sm_count as usize;
    for spec in ctx.kernels() {
        if spec.family != Family::TmaPingPong || !kernel_filter_selects(spec.name) {
            continue;
        }
        let (bm, bn, bk) = (
            spec.block.m as usize,
            spec.block.n as usize,
            spec.block.k as usize,
        );
        // 3·SMs + 5 items: each CTA runs three or four, the consumers taking turns twice; k spans
        // stages + 1 k-tiles and a tail (few rows: the consumer computes the whole tile all the
        // same, the reference less)
        let p = Problem::new(bm.min(5), bn - 7, (spec.stages as usize + 1) * bk + 5)
            .trans(spec.trans_a, spec.trans_b)
            .scale(0.75, 0.5)
            .precision(kernel_precision(spec));
        // TMA reads 16-byte-aligned rows: each leading dimension padded past a multiple of 8
        let p = p.pad_ld_for_tma().batched(3 * sms + 5);
        with_kernel_elems!(spec, check(ctx, spec, "several long items", p, &mut rng));
    }
}

/// The instruction-ceiling microkernels (benchmarks, never dispatched) run and write their one
/// f32 per thread, so the sanitizer sweep over this binary covers them too.
#[test]
fn every_ceiling_kernel_runs() {
    let Some(ctx) = gpu() else { return };
    let threads = 256 * ctx.capabilities().sm_count as usize;
    for math in [Math::Ffma, Math::MmaTf32, Math::MmaF16F32, Math::MmaBf16F32] {
        // a NaN with a payload the GPU never produces (its NaNs are canonical): the outputs are
        // arbitrary sums, NaN included, so only this exact pattern means "not written"
        let poison = f32::from_bits(<f32 as TestElem>::POISON);
        let mut out = ctx
            .stream()
            .clone_htod(&vec![poison; threads])
            .expect("upload");
        let flops = ctx
            .instruction_ceiling(math, 1, 4, &mut out)
            .unwrap_or_else(|e| panic!("ceiling {math:?}: {e}"));
        assert!(flops > 0, "ceiling {math:?} reports no work");
        let host = ctx.stream().clone_dtoh(&out).expect("download");
        let unwritten = host
            .iter()
            .filter(|x| x.to_bits() == poison.to_bits())
            .count();
        assert_eq!(
            unwritten, 0,
            "ceiling {math:?}: {unwritten} of {threads} outputs not written"
        );
    }
}
