//! 3xTF32 (`Precision::Tf32x3`, src/tf32x3.rs): f32 operands split into TF32 parts in the staging
//! buffer, one TF32 GEMM over a K three times as long. In every layout, with odd sizes, padded
//! leading dimensions, offset views, batches (a broadcast B included) and beta ≠ 0: the plan runs a
//! TF32 kernel on the parts, the result is within the bound of what ran (on Hopper's 3xTF32
//! kernels FFMA's over `3k` terms plus the split's `2⁻²⁰`; [`tol_tf32x3`] on TF32 kernels; FFMA's
//! for calls with fewer than 256 rows or columns of C, which run exact FP32) of the f64 reference
//! and bitwise equal over repeats. A small staging limit cuts the
//! call along K into chunks, with the same bound; the raw API refuses the precision, a context
//! whose limit holds no chunk reports it, and calls that read neither A nor B run as they are.
//!
//! Needs a GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use tcgemm::{Context, ContextOptions, Error, Math, Precision, RawBuffer};
use tcgemm_testkit::*;

/// At most this many multiply-adds get a full reference; above it the reference samples entries.
const REFERENCE_MACS: u128 = 1 << 26;

/// One 3xTF32 call through dispatch: a TF32 kernel on the parts, within the bound, the same bits
/// when repeated. Returns the report.
fn check(ctx: &Context, rng: &mut Rng, label: &str, p: Problem) -> Report {
    let k = p.k;
    let case = Case::<f32, f32>::with_reference_limit(
        label,
        p.precision(Precision::Tf32x3),
        rng,
        REFERENCE_MACS,
    );
    let s = ctx.stream();
    let mut dev = case.upload(s);
    let plan = case
        .launch(ctx, &mut dev, None)
        .unwrap_or_else(|e| panic!("{e}; {}", case.describe()))
        .expect("a call with output launches");
    // the kernels that add spans of k-tiles where the sm_90a module is loaded; FFMA below 256
    // rows or columns of C
    let small = case.p.m < 256 || case.p.n < 256;
    let math = match (small, ctx.capabilities().hopper) {
        (true, _) => Math::Ffma,
        (false, true) => Math::MmaTf32x3,
        (false, false) => Math::MmaTf32,
    };
    assert!(
        plan.tf32x3 == !small && plan.kernel.math == math,
        "{label}: {plan:?}"
    );
    let first = case.download(s, &dev);
    // the bound of what ran: FFMA's; on the kernels that add spans of k-tiles, whose sums round
    // to nearest as FFMA's do, FFMA's over 3k terms plus the split's 2⁻²⁰ (`tol_tf32x3`'s
    // derivation); on TF32 kernels summing all of 3k, `tol_tf32x3`
    let tol = match math {
        Math::Ffma => tol_fp32(k),
        Math::MmaTf32x3 => tol_fp32(3 * k) + 2f64.powi(-20),
        _ => tol_tf32x3(k),
    };
    let report = case.verify_on(&format!("3xTF32 on {}", plan.kernel.name), &first, tol);
    case.reset_c(s, &mut dev);
    case.launch(ctx, &mut dev, None).expect("repeat");
    assert!(
        case.download(s, &dev) == first,
        "repeat differs bitwise: {}",
        case.describe()
    );
    report
}

/// Odd sizes, padded leading dimensions with beta, offset views, aligned rows of odd extents, an
/// odd batch stride and a B broadcast over the batch, in layout `(ta, tb)`; and two calls with
/// few rows or columns of C, which run exact FP32.
fn problems(ta: bool, tb: bool) -> Vec<(&'static str, Problem)> {
    let p = |m: usize, n: usize, k: usize| Problem::new(m, n, k).trans(ta, tb);
    vec![
        ("odd sizes", p(301, 259, 517)),
        ("square, deep k", p(512, 512, 4096)),
        (
            "ld pads, beta",
            p(256, 384, 1000).pad_ld(3, 1, 5).scale(0.75, -1.5),
        ),
        ("offset views", p(300, 264, 301).offsets(1, 3, 2)),
        // rows 16-byte aligned but 2 elements short of a multiple of 4: the split's 16-byte
        // loads with a ragged last group
        (
            "aligned rows, ragged ends",
            p(258, 262, 266).pad_ld(2, 2, 2),
        ),
        (
            "odd batch strides",
            p(256, 272, 200).batched(5).pad_strides(1, 7, 3),
        ),
        ("broadcast B", {
            let mut q = p(264, 256, 130).batched(3);
            q.stride_b = Some(0);
            q
        }),
        // below 256 rows or columns of C: exact FP32
        ("one row", p(1, 4096, 4096)),
        ("few columns", p(1000, 100, 1000)),
    ]
}

#[test]
fn every_layout_is_within_the_3xtf32_bound() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("tf32x3 every layout");
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        for (label, p) in problems(ta, tb) {
            check(ctx, &mut rng, &format!("{label} {}", lay(ta, tb)), p);
        }
    }
}

/// The same inputs under TF32 and 3xTF32: the residual products take the error from TF32's
/// (inputs rounded to 11 bits, ~3e-4) to below the 3xTF32 bound (~1e-5 at this k), so a split that
/// dropped or misplaced the residuals fails here even where the bound alone might pass.
#[test]
fn residuals_take_the_error_far_below_tf32s() {
    let Some(ctx) = gpu() else { return };
    for (ta, tb) in [(false, false), (true, true)] {
        let p = Problem::new(384, 320, 2048).trans(ta, tb);
        // the same seed: the same A, B and sampled entries for both precisions
        let tf32 = Case::<f32, f32>::with_reference_limit(
            "tf32",
            p.clone().precision(Precision::Tf32),
            &mut Rng::for_test("tf32x3 against tf32"),
            REFERENCE_MACS,
        );
        let tf32_err = tf32.verify(&tf32.run(ctx), TOL_TF32_FRO).rel_fro;
        let x3 = Case::<f32, f32>::with_reference_limit(
            "3xtf32",
            p.precision(Precision::Tf32x3),
            &mut Rng::for_test("tf32x3 against tf32"),
            REFERENCE_MACS,
        );
        let x3_err = x3.verify(&x3.run(ctx), tol_tf32x3(2048)).rel_fro;
        assert!(
            x3_err * 50.0 < tf32_err,
            "{}: 3xTF32 error {x3_err:.3e} is not far below TF32's {tf32_err:.3e}",
            lay(ta, tb)
        );
    }
}

/// On Hopper (k-tiles added in f32 registers) 3xTF32 is as accurate as exact FP32: the same
/// inputs, deep k, every layout, its error at most 3× the FFMA kernels' plus `2⁻²¹` (the split's
/// residual roundings; the truncating accumulation inside a k-tile spans 4 steps, the k-tiles'
/// sum rounds to nearest, so the sums err about as FFMA's do: docs/precision.md).
#[test]
fn on_hopper_the_error_is_exact_fp32s() {
    let Some(ctx) = gpu() else { return };
    if !ctx.capabilities().hopper {
        return;
    }
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let p = Problem::new(1024, 768, 8192).trans(ta, tb);
        let err = |precision| {
            let case = Case::<f32, f32>::with_reference_limit(
                "tf32x3 against exact",
                p.clone().precision(precision),
                &mut Rng::for_test("tf32x3 against exact"),
                REFERENCE_MACS,
            );
            case.verify(&case.run(ctx), tol_tf32x3(p.k)).rel_fro
        };
        let (exact, x3) = (err(Precision::Exact), err(Precision::Tf32x3));
        println!("{}: exact {exact:.3e}, 3xTF32 {x3:.3e}", lay(ta, tb));
        assert!(
            x3 <= 3.0 * exact + 2f64.powi(-21),
            "{}: 3xTF32 error {x3:.3e} against exact FP32's {exact:.3e}",
            lay(ta, tb)
        );
    }
}

/// A staging limit below the parts' size cuts the call along K: chunks run in k order, the first
/// with the call's beta; the result stays within the bound and repeats bit for bit.
#[test]
fn a_small_staging_limit_cuts_k_into_chunks() {
    let Some(small) = gpu_with_options(ContextOptions {
        staging_limit: 1 << 20,
        ..Default::default()
    }) else {
        return;
    };
    let mut rng = Rng::for_test("tf32x3 chunks");
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        // parts of 3·(m + n)·k·4 bytes ≈ 10.4 MB: about 11 chunks of 1 MiB
        let p = Problem::new(256, 320, 1500).trans(ta, tb).scale(1.0, 0.5);
        check(&small, &mut rng, &format!("chunks {}", lay(ta, tb)), p);
    }
    assert!(small.staging_bytes() <= 1 << 20);
}

/// On Hopper an unsplit product reads each part written once (`[hi | lo]` rows, in thirds of K),
/// a product split along K into slices the parts in thirds: both within the bound. A chunk of K
/// that is not a whole number of k-tiles is read with zeros after it, whatever the staging buffer
/// held: here the NaN parts of an earlier call of the same layout, which would reach every entry.
#[test]
fn parts_written_once_and_in_thirds() {
    let Some(ctx) = gpu_with_options(ContextOptions::default()) else {
        return;
    };
    if !ctx.capabilities().hopper {
        return;
    }
    let mut rng = Rng::for_test("tf32x3 parts once and in thirds");
    let x3 = |p: &Problem| ctx.plan::<f32, f32>(&p.clone().precision(Precision::Tf32x3).gemm());
    // NaN parts of k 1024 (a whole number of k-tiles) left in the staging buffer
    let (m, n, k) = (2048, 2048, 1024);
    let g = tcgemm::Gemm::new(m, n, k).precision(Precision::Tf32x3);
    let s = ctx.stream();
    let nan = s.clone_htod(&vec![f32::NAN; m * k]).expect("upload");
    let mut c = s.alloc_zeros::<f32>(m * n).expect("alloc");
    ctx.gemm(&g, &nan, &nan, &mut c).expect("NaN call");
    // then k 1000 (parts of 1024 elements, zeros from 1000 on) in the same rows
    let once = Problem::new(m, n, 1000);
    let plan = x3(&once).expect("plan");
    assert!(plan.tf32x3 && !plan.split.is_split(), "{plan:?}");
    check(&ctx, &mut rng, "parts once, k 1000 after NaN parts", once);
    // split along K into slices: the parts in thirds (at least one of these is split)
    let mut split = 0;
    for (m, n, k) in [(256, 256, 8192), (256, 384, 6000), (320, 256, 12000)] {
        let p = Problem::new(m, n, k);
        if x3(&p).expect("plan").split.is_split() {
            split += 1;
            check(&ctx, &mut rng, "parts in thirds, split along K", p);
        }
    }
    assert!(split > 0, "no product split along K");
}

/// A limit that holds no k of the parts is an error naming the limit, not a panic or a wrong
/// result; the raw API, which runs on the caller's stream without the staging buffer, refuses
/// the precision; calls that read neither A nor B compute `beta·C` without a split.
#[test]
fn refusals_and_calls_without_products() {
    let Some(ctx) = gpu() else { return };
    let Some(none) = gpu_with_options(ContextOptions {
        staging_limit: 0,
        ..Default::default()
    }) else {
        return;
    };
    let g = tcgemm::Gemm::new(256, 256, 64).precision(Precision::Tf32x3);
    let len = 256 * 256;
    let s = none.stream();
    let a = s.alloc_zeros::<f32>(len).expect("alloc");
    let mut c = s.alloc_zeros::<f32>(len).expect("alloc");
    match none.gemm(&g, &a, &a, &mut c) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("staging_limit"), "{msg}"),
        other => panic!("a zero staging limit gave {other:?}"),
    }
    let raw = |buf: &cudarc::driver::CudaSlice<f32>| {
        use cudarc::driver::DevicePtr;
        RawBuffer {
            ptr: buf.device_ptr(ctx.stream()).0,
            len,
        }
    };
    let s = ctx.stream();
    let a = s.alloc_zeros::<f32>(len).expect("alloc");
    let c = s.alloc_zeros::<f32>(len).expect("alloc");
    // SAFETY: the buffers live on this context's device until the end of the test, and the call
    // is refused before anything is launched.
    let r = unsafe { ctx.gemm_raw::<f32, f32>(&g, raw(&a), raw(&a), raw(&c), s.cu_stream()) };
    assert!(matches!(r, Err(Error::Unsupported(_))), "raw 3xTF32: {r:?}");
    let mut rng = Rng::for_test("tf32x3 without products");
    for p in [
        Problem::new(100, 70, 0).scale(1.0, 0.5),
        Problem::new(100, 70, 50).scale(0.0, 2.0),
    ] {
        let mut case =
            Case::<f32, f32>::new("beta·C only", p.precision(Precision::Tf32x3), &mut rng);
        case.poison_inputs();
        let plan = ctx.plan::<f32, f32>(&case.p.gemm()).expect("plan");
        assert!(!plan.tf32x3, "{plan:?}");
        case.run_and_verify("3xTF32 without products", ctx, tol_fp32(1));
    }
}
