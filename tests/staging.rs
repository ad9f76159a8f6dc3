//! Staging (src/staging.rs): calls with operands that are not 16-byte aligned (odd sizes, offset
//! views, odd batch strides, a broadcast operand, only C misaligned) large enough that dispatch
//! copies them into the context's staging buffer and runs the aligned kernels. In every layout of
//! f16 → f16, bf16 → f32 and TF32 (the last two at twice the sizes): the plan shows the staging,
//! the result is within the path's tolerance of the f64 reference (and nothing outside C's windows
//! is written), bitwise equal over repeats, and bitwise equal to the aligned twin: the same data
//! packed into aligned buffers, which dispatch runs on the same kernel unstaged. FFMA calls and a
//! context with `staging_limit = 0` do not stage.
//!
//! Needs a GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use half::{bf16, f16};
use tcgemm::{Context, ContextOptions, Precision};
use tcgemm_testkit::*;

/// At most this many multiply-adds get a full reference; above it the reference samples entries.
const REFERENCE_MACS: u128 = 1 << 26;

/// `layout`'s packed, aligned twin: rows of `cols` rounded up to 128 bytes (as staging packs
/// them), items packed (or one item for a broadcast operand), at offset 0.
fn aligned_twin(l: &Layout, elem_bytes: usize) -> Layout {
    let per_line = 128 / elem_bytes;
    let ld = l.cols.div_ceil(per_line) * per_line;
    let broadcast = l.batch > 1 && l.stride == 0;
    Layout {
        ld,
        stride: if broadcast { 0 } else { l.rows * ld },
        offset: 0,
        ..*l
    }
}

/// The windows of `src` (laid out as `from`) copied into an allocation laid out as `to` (its
/// padding holds copies of the first element).
fn repack<T: Copy>(src: &[T], from: &Layout, to: &Layout) -> Vec<T> {
    let mut out = vec![src[from.offset]; to.full_span().max(1)];
    for z in 0..from.batch {
        for r in 0..from.rows {
            for c in 0..from.cols {
                out[to.at(z, r, c)] = src[from.offset + from.at(z, r, c)];
            }
        }
    }
    out
}

/// The case's product on its aligned twin (same data, packed, aligned), unstaged: its plan and
/// C's windows in the twin's layout.
fn twin_run<I: TestElem, O: TestElem>(
    ctx: &Context,
    case: &Case<I, O>,
) -> (tcgemm::Plan, Vec<O::Bits>, Layout) {
    let p = &case.p;
    let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
    let (ib, ob) = (I::ELEM.bytes() as usize, O::ELEM.bytes() as usize);
    let (ta, tb, tc) = (
        aligned_twin(&la, ib),
        aligned_twin(&lb, ib),
        aligned_twin(&lc, ob),
    );
    let s = ctx.stream();
    let a = s.clone_htod(&repack(&case.a, &la, &ta)).expect("upload A");
    let b = s.clone_htod(&repack(&case.b, &lb, &tb)).expect("upload B");
    let mut c = s.clone_htod(&repack(&case.c, &lc, &tc)).expect("upload C");
    let g = p
        .gemm()
        .lda(ta.ld)
        .ldb(tb.ld)
        .ldc(tc.ld)
        .stride_a(ta.stride)
        .stride_b(tb.stride)
        .stride_c(tc.stride);
    let plan = gemm_on_bits::<I, O>(
        ctx,
        &g,
        &a.slice(..),
        &b.slice(..),
        &mut c.slice_mut(..),
        None,
    )
    .unwrap_or_else(|e| panic!("twin: {e}; {}", case.describe()))
    .expect("a call with output launches");
    (plan, s.clone_dtoh(&c).expect("download C"), tc)
}

/// One call through dispatch: staged, within `tol`, the same bits over repeats and as its aligned
/// twin.
fn check<I: TestElem, O: TestElem>(
    ctx: &Context,
    rng: &mut Rng,
    label: &str,
    p: Problem,
    tol: f64,
) {
    let case = Case::<I, O>::with_reference_limit(label, p, rng, REFERENCE_MACS);
    let s = ctx.stream();
    let mut dev = case.upload(s);
    let plan = case
        .launch(ctx, &mut dev, None)
        .unwrap_or_else(|e| panic!("{e}; {}", case.describe()))
        .expect("a call with output launches");
    assert!(plan.staged.any(), "{label}: not staged: {plan:?}");
    let first = case.download(s, &dev);
    case.verify_on(
        &format!("staged {:?} {}", plan.staged, plan.kernel.name),
        &first,
        tol,
    );
    case.reset_c(s, &mut dev);
    case.launch(ctx, &mut dev, None).expect("repeat");
    assert!(
        case.download(s, &dev) == first,
        "repeat differs bitwise: {}",
        case.describe()
    );
    let (twin_plan, twin, tc) = twin_run(ctx, &case);
    assert!(
        !twin_plan.staged.any() && twin_plan.kernel.name == plan.kernel.name,
        "{label}: the twin ran {} (staged {:?}), the call {}",
        twin_plan.kernel.name,
        twin_plan.staged,
        plan.kernel.name
    );
    let lc = case.p.layout_c();
    for z in 0..lc.batch {
        for r in 0..lc.rows {
            for c in 0..lc.cols {
                let (ours, theirs) = (first[lc.offset + lc.at(z, r, c)], twin[tc.at(z, r, c)]);
                assert!(
                    ours == theirs,
                    "{label}: C[{z}][{r}][{c}] {ours:?} differs from the aligned twin's {theirs:?}; {}",
                    case.describe()
                );
            }
        }
    }
}

/// Calls the model stages on Hopper and on sm_80 alike (the copies are a fraction of the
/// product's time), `scale` times larger along every dimension: odd sizes (A, B and C), offset
/// views with beta ≠ 0 (C copied in and out), odd batch strides, B broadcast over the batch with
/// odd leading dimensions.
fn problems(ta: bool, tb: bool, scale: usize) -> Vec<(&'static str, Problem)> {
    let p =
        |m: usize, n: usize, k: usize| Problem::new(m * scale, n * scale, k * scale).trans(ta, tb);
    vec![
        ("odd sizes", p(1031, 1029, 1027)),
        (
            "offset views, beta",
            p(1536, 1536, 1536).offsets(1, 1, 1).scale(1.5, -0.5),
        ),
        (
            "odd batch strides",
            p(768, 768, 768).batched(8).pad_strides(1, 5, 3),
        ),
        ("broadcast B, odd ld", {
            let mut q = p(1000, 1000, 1000).batched(4).pad_ld(1, 1, 0);
            q.stride_b = Some(0);
            q
        }),
    ]
}

/// Runs `f` on [`problems`] in every layout.
fn every_layout(
    ctx: &Context,
    rng: &mut Rng,
    scale: usize,
    f: fn(&Context, &mut Rng, &str, Problem),
) {
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        for (label, p) in problems(ta, tb, scale) {
            f(ctx, rng, &format!("{label} {}", lay(ta, tb)), p);
        }
    }
}

#[test]
fn staged_f16_to_f16_matches_aligned_twin() {
    let Some(ctx) = gpu() else { return };
    every_layout(
        ctx,
        &mut Rng::for_test("staged_f16"),
        1,
        |ctx, rng, label, p| {
            let k = p.k;
            check::<f16, f16>(ctx, rng, label, p, tol_16::<f16>(k));
        },
    );
}

/// bf16 → f32 at twice the sizes: its C is twice the bytes of f16's, and at 1031³ the model finds
/// the copies cost about what they save and runs the call unstaged.
#[test]
fn staged_bf16_to_f32_matches_aligned_twin() {
    let Some(ctx) = gpu() else { return };
    every_layout(
        ctx,
        &mut Rng::for_test("staged_bf16"),
        2,
        |ctx, rng, label, p| {
            let k = p.k;
            check::<bf16, f32>(ctx, rng, label, p, tol_16::<f32>(k));
        },
    );
}

/// TF32 at twice the sizes: its operands are twice the bytes, and the copies pay only on larger
/// products.
#[test]
fn staged_tf32_matches_aligned_twin() {
    let Some(ctx) = gpu() else { return };
    every_layout(
        ctx,
        &mut Rng::for_test("staged_tf32"),
        2,
        |ctx, rng, label, p| {
            check::<f32, f32>(ctx, rng, label, p.precision(Precision::Tf32), TOL_TF32_FRO);
        },
    );
}

/// Only C misaligned (`nt`: A and B rows are k long), deep k: C is staged out alone.
#[test]
fn only_c_misaligned_stages_c() {
    let Some(ctx) = gpu() else { return };
    if !ctx.capabilities().hopper {
        return; // on sm_80 the unaligned C costs nothing the copy would save
    }
    let mut rng = Rng::for_test("only_c_misaligned_stages_c");
    let p = Problem::new(2048, 1001, 4096).trans(false, true);
    check::<f16, f16>(
        ctx,
        &mut rng,
        "2048x1001x4096 nt",
        p.clone(),
        tol_16::<f16>(4096),
    );
    let plan = ctx.plan::<f16, f16>(&p.gemm()).expect("plan");
    assert!(
        plan.staged.c && !plan.staged.a && !plan.staged.b,
        "{plan:?}"
    );
}

/// Exact FP32 (the CUDA-core kernels run any alignment at their aligned speed) and a context
/// without a staging buffer run unaligned calls unstaged, within tolerance.
#[test]
fn ffma_and_a_zero_limit_do_not_stage() {
    let Some(ctx) = gpu() else { return };
    let Some(off) = gpu_with_options(ContextOptions {
        staging_limit: 0,
        ..Default::default()
    }) else {
        return;
    };
    let mut rng = Rng::for_test("ffma_and_a_zero_limit_do_not_stage");
    let p = Problem::new(1031, 1029, 1027);
    let exact = Case::<f32, f32>::with_reference_limit(
        "fp32 odd sizes",
        p.clone().precision(Precision::Exact),
        &mut rng,
        REFERENCE_MACS,
    );
    let case = Case::<f16, f16>::with_reference_limit("odd sizes", p, &mut rng, REFERENCE_MACS);
    for (c, what) in [(ctx, "default context"), (&off, "staging_limit 0")] {
        let mut dev = exact.upload(c.stream());
        let plan = exact
            .launch(c, &mut dev, None)
            .expect("fp32")
            .expect("plan");
        assert!(!plan.staged.any(), "{what}: fp32 staged: {plan:?}");
        exact.verify_on(what, &exact.download(c.stream(), &dev), tol_fp32(1027));
    }
    let mut dev = case.upload(off.stream());
    let plan = case
        .launch(&off, &mut dev, None)
        .expect("f16")
        .expect("plan");
    assert!(!plan.staged.any(), "staging_limit 0 staged: {plan:?}");
    case.verify_on(
        "staging_limit 0",
        &case.download(off.stream(), &dev),
        tol_16::<f16>(1027),
    );
    assert_eq!(off.staging_bytes(), 0);
}
