//! Calls TMA cannot map (odd leading dimensions, offset views, odd batch strides, k and M/N tails):
//! through dispatch on every context (16-bit and TF32), by name on every thread-copy
//! warp-specialized kernel (`Family::LdgWarpSpecialized`, Hopper only) and on every stream kernel
//! (`Family::CudaCoreStream`, decode shapes); a product large enough to fill the GPU with the
//! thread-copy tiles asserts that Hopper dispatch takes them. Every call is checked against the
//! f64 reference of its inputs with `tests/half.rs`'s tolerance (`tol_16`: f32 accumulation of
//! exact products, one rounding of a 16-bit output), f32-input calls with that of the kernel that
//! ran (`tol_kernel`: TF32's, or exact FP32's), and repeated twice, bitwise equal.

use half::{bf16, f16};
use tcgemm::{Elem, Family, Precision, Target};
use tcgemm_testkit::*;

/// The calls: sizes that are no multiple of 8 (odd leading dimensions), views one element into
/// their allocations, odd batch strides, a broadcast operand, beta ≠ 0, and k below one k-tile.
fn problems(ta: bool, tb: bool) -> Vec<(&'static str, Problem)> {
    let p = |m, n, k| Problem::new(m, n, k).trans(ta, tb);
    vec![
        ("odd sizes", p(301, 263, 517)),
        ("odd ld, aligned sizes", p(256, 256, 192).pad_ld(1, 3, 5)),
        (
            "offset views, beta",
            p(256, 384, 128).offsets(1, 1, 1).scale(1.5, -0.5),
        ),
        ("k below a k-tile", p(200, 136, 7).offsets(3, 0, 1)),
        ("one k", p(129, 257, 1).pad_ld(1, 1, 1)),
        (
            "odd batch strides",
            p(130, 140, 96).batched(3).pad_strides(1, 5, 3),
        ),
        ("broadcast B, odd ld", {
            let mut q = p(136, 128, 72).batched(2).pad_ld(1, 1, 0);
            q.stride_b = Some(0);
            q
        }),
    ]
}

/// The thread-copy kernels of `I -> O` in layout `(ta, tb)` that `ctx` runs (none off Hopper).
fn thread_copy_kernels<I: TestElem, O: TestElem>(
    ctx: &tcgemm::Context,
    ta: bool,
    tb: bool,
) -> Vec<&'static str> {
    ctx.kernels()
        .into_iter()
        .filter(|k| {
            k.family == Family::LdgWarpSpecialized
                && (k.input, k.output) == (I::ELEM, O::ELEM)
                && (k.trans_a, k.trans_b) == (ta, tb)
        })
        .map(|k| k.name)
        .collect()
}

/// Runs `case` (dispatch when `kernel` is `None`) three times: checked against the reference the
/// first time, bitwise equal to it the next two; returns the plan that ran.
fn run_checked<I: TestElem, O: TestElem>(
    ctx: &tcgemm::Context,
    case: &Case<I, O>,
    kernel: Option<&str>,
) -> tcgemm::Plan {
    let stream = ctx.stream();
    let mut dev = case.upload(stream);
    let plan = case
        .launch(ctx, &mut dev, kernel)
        .unwrap_or_else(|e| panic!("{e}; {}", case.describe()))
        .expect("a call with a product has a plan");
    let first = case.download(stream, &dev);
    // f32 inputs: the tolerance of the kernel that ran (TF32's, or exact FP32's where dispatch ran
    // the call exact)
    let tol = if I::ELEM == Elem::F32 {
        tol_kernel(plan.kernel, case.p.k)
    } else {
        tol_16::<O>(case.p.k)
    };
    case.verify_on(plan.kernel.name, &first, tol);
    for i in 1..3 {
        case.reset_c(stream, &mut dev);
        case.launch(ctx, &mut dev, kernel).expect("repeat");
        assert!(
            case.download(stream, &dev) == first,
            "{}: repeat {i} differs bitwise: {}",
            plan.kernel.name,
            case.describe()
        );
    }
    plan
}

/// Every problem in every layout: through dispatch on every context, and by name on every
/// thread-copy kernel the default context runs.
fn check<I: TestElem, O: TestElem>(rng: &mut Rng) {
    let ctxs = gpu_all();
    let Some(&(_, ctx)) = ctxs.first() else {
        return;
    };
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let kernels = thread_copy_kernels::<I, O>(ctx, ta, tb);
        // (16-bit inputs only: TF32 has no thread-copy kernel, docs/unaligned-log.md attempt 12)
        let hopper = ctx.kernels().iter().any(|k| k.target() == Target::Sm90a);
        assert!(
            !hopper || !kernels.is_empty() || I::ELEM == Elem::F32,
            "no thread-copy kernel on Hopper"
        );
        for (label, p) in problems(ta, tb) {
            // f32 inputs: TF32 (exact FP32 runs on the CUDA-core kernels, which read any alignment)
            let p = if I::ELEM == Elem::F32 {
                p.precision(Precision::Tf32)
            } else {
                p
            };
            let case = Case::<I, O>::new(format!("{label} {}", lay(ta, tb)), p, rng);
            for (_, c) in &ctxs {
                run_checked(c, &case, None);
            }
            for &k in &kernels {
                run_checked(ctx, &case, Some(k));
            }
        }
    }
}

/// A product large enough for 128×128 tiles to fill the first wave (121 tiles), with odd leading
/// dimensions: on Hopper dispatch takes a thread-copy kernel.
#[test]
fn hopper_dispatch_takes_thread_copy_kernels_for_odd_leading_dimensions() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("hopper_dispatch_takes_thread_copy_kernels");
    let hopper = ctx.kernels().iter().any(|k| k.target() == Target::Sm90a);
    for (ta, tb) in [(false, false), (true, true)] {
        let p = Problem::new(1287, 1283, 72).trans(ta, tb);
        let case = Case::<f16, f16>::new(format!("1287x1283x72 {}", lay(ta, tb)), p, &mut rng);
        let plan = run_checked(ctx, &case, None);
        if hopper {
            assert_eq!(
                plan.kernel.family,
                Family::LdgWarpSpecialized,
                "{}",
                plan.kernel.name
            );
        }
    }
}

#[test]
fn unaligned_calls_every_layout_f16_to_f16() {
    check::<f16, f16>(&mut Rng::for_test("unaligned_f16_f16"));
}

#[test]
fn unaligned_calls_every_layout_f16_to_f32() {
    check::<f16, f32>(&mut Rng::for_test("unaligned_f16_f32"));
}

#[test]
fn unaligned_calls_every_layout_bf16_to_bf16() {
    check::<bf16, bf16>(&mut Rng::for_test("unaligned_bf16_bf16"));
}

#[test]
fn unaligned_calls_every_layout_bf16_to_f32() {
    check::<bf16, f32>(&mut Rng::for_test("unaligned_bf16_f32"));
}

/// TF32 (f32 inputs, `Precision::Tf32`) through dispatch: staged, or the TF32 `mma.sync` kernels'
/// 4-byte copies, or exact FP32 for few rows.
#[test]
fn unaligned_calls_every_layout_tf32() {
    check::<f32, f32>(&mut Rng::for_test("unaligned_tf32"));
}

/// The stream kernels (`Family::CudaCoreStream`: decode calls of at most their rows whose A or B
/// is not 16-byte aligned) by name, on rows that start anywhere within 16 bytes (an N-major B is
/// read in aligned windows wider than the tile, the rest realigned): odd leading dimensions,
/// offset views and odd batch strides shift the rows of A and B by different amounts; k spans
/// several warp steps (and two chunks of A) with a tail; columns run past the last whole tile; the
/// last chunks of B end at the operand's end, where they are read element by element.
#[test]
fn stream_kernels_on_shifted_rows() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("stream_kernels_on_shifted_rows");
    let streams: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| k.family == Family::CudaCoreStream)
        .collect();
    assert!(!streams.is_empty(), "no stream kernel loaded");
    for spec in streams {
        with_kernel_elems!(spec, stream_cases(ctx, spec, &mut rng));
    }
}

fn stream_cases<I: TestElem, O: TestElem>(
    ctx: &tcgemm::Context,
    spec: &tcgemm::KernelSpec,
    rng: &mut Rng,
) {
    let (bm, bn) = (spec.block.m as usize, spec.block.n as usize);
    let p = |m, n, k| Problem::new(m, n, k).trans(spec.trans_a, spec.trans_b);
    for (label, q) in [
        ("odd ld", p(bm, 2 * bn + 37, 1300).pad_ld(1, 3, 1)),
        (
            "offset views, beta",
            p(bm.max(2) - 1, bn + 9, 9000)
                .offsets(1, 3, 1)
                .scale(1.5, -0.5),
        ),
        // B's rows at several offsets within 16 bytes (its leading dimension one longer), over
        // three tiles and a tail
        ("odd ld of B", p(bm, 3 * bn + 5, 2100).pad_ld(0, 1, 0)),
        (
            "odd batch strides",
            p(bm, bn + 3, 700).batched(3).pad_strides(1, 1, 1),
        ),
    ] {
        let case = Case::<I, O>::new(format!("{} {label}", spec.name), q, rng);
        run_checked(ctx, &case, Some(spec.name));
    }
}

/// A TF32 call whose A or B is not 16-byte aligned and which the f32 stream kernels take (at most
/// 4 rows, `nn` or `tn`) runs as exact FP32 (FFMA, nothing staged; `staging::exact_instead`):
/// exact FP32's tolerance, repeated bitwise; one row more, or an n×k weight, runs TF32.
#[test]
fn tf32_calls_the_stream_kernels_take_run_exact() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("few-row tf32, unaligned weights");
    let tf32 = |m, n, k| Problem::new(m, n, k).precision(tcgemm::Precision::Tf32);
    let cases = [
        ("odd width", tf32(1, 3001, 1500)),
        (
            "odd ld, k×m activations",
            tf32(4, 1001, 777).trans(true, false).pad_ld(0, 1, 0),
        ),
        (
            "offset weight, beta",
            tf32(3, 515, 2000).offsets(0, 1, 0).scale(1.5, -0.5),
        ),
    ];
    for (label, p) in cases {
        let k = p.k;
        let case = Case::<f32, f32>::new(label, p, &mut rng);
        let stream = ctx.stream();
        let mut dev = case.upload(stream);
        let plan = case
            .launch(ctx, &mut dev, None)
            .expect("gemm")
            .expect("plan");
        assert_eq!(plan.kernel.math, tcgemm::Math::Ffma, "{label}: {plan:?}");
        assert!(!plan.staged.any(), "{label}: {plan:?}");
        let first = case.download(stream, &dev);
        case.verify_on(plan.kernel.name, &first, tol_fp32(k));
        case.reset_c(stream, &mut dev);
        case.launch(ctx, &mut dev, None).expect("repeat");
        assert!(
            case.download(stream, &dev) == first,
            "{label}: repeat differs"
        );
    }
    for tf32_call in [
        tf32(5, 3001, 1500),
        tf32(1, 1001, 777).trans(false, true).pad_ld(0, 1, 0),
    ] {
        let plan = ctx.plan::<f32, f32>(&tf32_call.gemm()).expect("plan");
        assert_eq!(plan.kernel.math, tcgemm::Math::MmaTf32, "{plan:?}");
    }
}
