//! CPU-only tests, run everywhere: argument validation (`Gemm::validate`, `Gemm::required_lens`)
//! returns the right typed errors and never panics; `Context::new` without a GPU is an error, not a
//! panic (the test harness's own self-tests are in `crates/tcgemm-testkit/tests/harness.rs`).
//! At the end, one test per row of docs/errors.md not covered elsewhere: CPU ones, and GPU ones
//! (rejections that need a `Context`) that skip without a GPU like every GPU test.

use std::panic::catch_unwind;

use tcgemm::{Context, Error, Gemm, Precision};
use tcgemm_testkit::*;

/// The `what` of an `InvalidArgument`, or a panic naming the unexpected result.
fn what_of(r: tcgemm::Result<impl std::fmt::Debug>, ctx: &str) -> String {
    match r {
        Err(Error::InvalidArgument { what, why }) => {
            assert!(!why.is_empty(), "{ctx}: empty explanation");
            what.to_string()
        }
        other => panic!("{ctx}: expected Error::InvalidArgument, got {other:?}"),
    }
}

/// `validate` and `required_lens` in a panic guard: a panic is a failure of its own.
fn validate_np(g: &Gemm, a: usize, b: usize, c: usize) -> tcgemm::Result<()> {
    catch_unwind(|| g.validate(a, b, c))
        .unwrap_or_else(|_| panic!("validate({a}, {b}, {c}) panicked for {g:?}"))
}

fn lens_np(g: &Gemm) -> tcgemm::Result<(usize, usize, usize)> {
    catch_unwind(|| g.required_lens())
        .unwrap_or_else(|_| panic!("required_lens panicked for {g:?}"))
}

// ---------------------------------------------------------------------------------------------
// Gemm::validate / required_lens
// ---------------------------------------------------------------------------------------------

#[test]
fn leading_dimensions_below_the_row_length_are_rejected() {
    let (m, n, k) = (5, 7, 11);
    for (ta, tb) in TRANS {
        let p = Problem::new(m, n, k).trans(ta, tb);
        let base = p.gemm();
        let big = 1 << 20;
        // Exactly the row length is fine.
        validate_np(&base.lda(p.a_cols()).ldb(p.b_cols()).ldc(n), big, big, big)
            .unwrap_or_else(|e| panic!("op {ta},{tb}: packed ld rejected: {e}"));
        let ctx = format!("trans=({ta},{tb})");
        assert_eq!(
            what_of(validate_np(&base.lda(p.a_cols() - 1), big, big, big), &ctx),
            "lda"
        );
        assert_eq!(
            what_of(validate_np(&base.ldb(p.b_cols() - 1), big, big, big), &ctx),
            "ldb"
        );
        assert_eq!(
            what_of(validate_np(&base.ldc(n - 1), big, big, big), &ctx),
            "ldc"
        );
        assert_eq!(
            what_of(validate_np(&base.lda(0), big, big, big), &ctx),
            "lda"
        );
        // The message names the argument.
        let msg = validate_np(&base.ldc(1), big, big, big)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("ldc"), "{msg}");
    }
}

/// Problems covering transposes, padding, batches and strides, for the length checks.
fn layout_zoo() -> Vec<Problem> {
    let mut v = Vec::new();
    for (ta, tb) in TRANS {
        v.push(Problem::new(5, 7, 11).trans(ta, tb));
        v.push(Problem::new(5, 7, 11).trans(ta, tb).pad_ld(3, 1, 2));
        v.push(Problem::new(5, 7, 11).trans(ta, tb).batched(3));
        v.push(
            Problem::new(5, 7, 11)
                .trans(ta, tb)
                .pad_ld(1, 2, 3)
                .batched(4)
                .pad_strides(5, 0, 9),
        );
        let mut bc = Problem::new(5, 7, 11).trans(ta, tb).batched(3);
        bc.stride_a = Some(0);
        v.push(bc);
        let mut bb = Problem::new(5, 7, 11).trans(ta, tb).batched(2);
        bb.stride_b = Some(1);
        v.push(bb);
        v.push(Problem::new(1, 1, 1).trans(ta, tb));
        v.push(Problem::new(1, 9, 1).trans(ta, tb).pad_ld(4, 4, 4));
    }
    v
}

#[test]
fn required_lens_are_the_tight_spans() {
    for p in layout_zoo() {
        let g = p.gemm();
        let got = lens_np(&g).unwrap_or_else(|e| panic!("{p}: {e}"));
        let want = (
            p.layout_a().span(),
            p.layout_b().span(),
            p.layout_c().span(),
        );
        assert_eq!(got, want, "{p}");
    }
}

#[test]
fn short_buffers_are_rejected_by_name() {
    for p in layout_zoo() {
        let g = p.gemm();
        let (a, b, c) = lens_np(&g).unwrap();
        validate_np(&g, a, b, c).unwrap_or_else(|e| panic!("{p}: exact lengths rejected: {e}"));
        validate_np(&g, a + 100, b + 100, c + 100)
            .unwrap_or_else(|e| panic!("{p}: longer buffers rejected: {e}"));
        let ctx = p.to_string();
        assert_eq!(what_of(validate_np(&g, a - 1, b, c), &ctx), "a");
        assert_eq!(what_of(validate_np(&g, a, b - 1, c), &ctx), "b");
        assert_eq!(what_of(validate_np(&g, a, b, c - 1), &ctx), "c");
        assert_eq!(what_of(validate_np(&g, 0, b, c), &ctx), "a");
    }
}

#[test]
fn overlapping_output_batches_are_rejected() {
    let p = Problem::new(5, 7, 11).batched(2).pad_ld(0, 0, 3);
    let item = (p.m - 1) * (p.n + 3) + p.n; // one C item, ld padding of its last row excluded
    let big = 1 << 20;
    for stride in [0, 1, p.n, item - 1] {
        let g = p.gemm().stride_c(stride);
        assert_eq!(
            what_of(
                validate_np(&g, big, big, big),
                &format!("stride_c={stride}")
            ),
            "stride_c"
        );
    }
    validate_np(&p.gemm().stride_c(item), big, big, big)
        .expect("non-overlapping tight stride_c rejected");
    // Inputs may overlap (read only): broadcast A, overlapping B.
    validate_np(&p.gemm().stride_a(0).stride_b(1), big, big, big)
        .expect("overlapping input batches rejected");
    // One item cannot overlap itself.
    validate_np(&Problem::new(5, 7, 11).gemm().stride_c(0), big, big, big)
        .expect("batch 1 with stride_c 0 rejected");
}

#[test]
fn sizes_beyond_32_bit_indexing_are_rejected() {
    let too_big = i32::MAX as usize + 1;
    assert_eq!(
        what_of(validate_np(&Gemm::new(too_big, 1, 1), 0, 0, 0), "m"),
        "m"
    );
    assert_eq!(
        what_of(validate_np(&Gemm::new(1, too_big, 1), 0, 0, 0), "n"),
        "n"
    );
    assert_eq!(
        what_of(validate_np(&Gemm::new(1, 1, too_big), 0, 0, 0), "k"),
        "k"
    );
    if usize::BITS > 32 {
        let g = Gemm::new(1, 1, 1).batch(u32::MAX as usize + 1);
        assert_eq!(
            what_of(validate_np(&g, 1 << 40, 1 << 40, 1 << 40), "batch"),
            "batch"
        );
    }
    assert_eq!(
        what_of(
            validate_np(&Gemm::new(usize::MAX, usize::MAX, usize::MAX), 0, 0, 0),
            "max"
        ),
        "m"
    );
}

#[test]
fn overflowing_lengths_are_errors_not_panics() {
    let huge = usize::MAX / 2;
    let cases: Vec<(Gemm, &[&str])> = vec![
        // m·lda overflows
        (Gemm::new(1 << 30, 4, 4).lda(huge), &["a", "lda"]),
        (
            Gemm::new(1 << 30, 4, 4).trans_a(true).lda(huge),
            &["a", "lda"],
        ),
        (Gemm::new(4, 4, 1 << 30).ldb(huge), &["b", "ldb"]),
        (Gemm::new(1 << 30, 4, 4).ldc(huge), &["c", "ldc"]),
        // stride·(batch−1) overflows
        (
            Gemm::new(4, 4, 4).batch(1 << 20).stride_a(huge),
            &["a", "stride_a"],
        ),
        (
            Gemm::new(4, 4, 4).batch(1 << 20).stride_b(huge),
            &["b", "stride_b"],
        ),
        (
            Gemm::new(4, 4, 4).batch(1 << 20).stride_c(huge),
            &["c", "stride_c"],
        ),
        // packed stride (rows·ld) saturates
        (
            Gemm::new(1 << 30, 4, 4).ldc(huge).batch(2),
            &["c", "stride_c"],
        ),
        // everything at the limits
        (
            Gemm::new(i32::MAX as usize, i32::MAX as usize, i32::MAX as usize)
                .batch(u32::MAX as usize),
            &["a", "b", "c", "stride_c"],
        ),
    ];
    for (g, allowed) in cases {
        let w = what_of(lens_np(&g), &format!("required_lens {g:?}"));
        assert!(
            allowed.contains(&w.as_str()),
            "required_lens {g:?}: what = {w}, expected one of {allowed:?}"
        );
        let w = what_of(
            validate_np(&g, usize::MAX, usize::MAX, usize::MAX),
            &format!("validate {g:?}"),
        );
        assert!(
            allowed.contains(&w.as_str()),
            "validate {g:?}: what = {w}, expected one of {allowed:?}"
        );
    }
}

#[test]
fn empty_calls_are_accepted_with_zero_lengths() {
    let empties = [
        Gemm::new(0, 7, 11),
        Gemm::new(5, 0, 11),
        Gemm::new(0, 0, 0),
        Gemm::new(5, 7, 11).batch(0),
        Gemm::new(0, 7, 11).trans_a(true).trans_b(true).beta(1.0),
        Gemm::new(0, 7, 11).batch(3),
    ];
    for g in empties {
        assert_eq!(
            lens_np(&g).unwrap_or_else(|e| panic!("{g:?}: {e}")),
            (0, 0, 0),
            "{g:?}"
        );
        validate_np(&g, 0, 0, 0)
            .unwrap_or_else(|e| panic!("{g:?} rejected with empty buffers: {e}"));
    }
    // k == 0 and alpha == 0: A and B are not referenced, C is.
    for g in [
        Gemm::new(5, 7, 0),
        Gemm::new(5, 7, 11).alpha(0.0),
        Gemm::new(5, 7, 0).trans_a(true).trans_b(true),
    ] {
        assert_eq!(lens_np(&g).unwrap(), (0, 0, 35), "{g:?}");
        validate_np(&g, 0, 0, 35).unwrap_or_else(|e| panic!("{g:?}: {e}"));
        assert_eq!(what_of(validate_np(&g, 0, 0, 34), &format!("{g:?}")), "c");
    }
}

#[test]
fn precision_is_not_a_validation_concern() {
    // Precision is checked where the element types are known (plan/gemm), not by validate.
    for p in [Precision::Default, Precision::Exact, Precision::Tf32] {
        validate_np(&Gemm::new(2, 3, 4).precision(p), 8, 12, 6).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Context without a GPU
// ---------------------------------------------------------------------------------------------

#[test]
fn context_without_gpu_is_an_error_not_a_panic() {
    let count = catch_unwind(Context::device_count).expect("Context::device_count panicked");
    let made = catch_unwind(|| Context::new(0).map(|_| ())).expect("Context::new(0) panicked");
    match probe_device() {
        Ok(n) => println!(
            "{n} CUDA device(s) present: Context::new(0) -> {made:?}, device_count -> {count:?}"
        ),
        Err(why) => {
            println!("no GPU ({why}): Context::new(0) -> {made:?}, device_count -> {count:?}");
            assert!(
                matches!(made, Err(Error::NoDevice(_) | Error::Driver(_))),
                "Context::new(0) without a GPU must be Err(NoDevice | Driver), got {made:?}"
            );
            assert!(
                matches!(count, Ok(0) | Err(_)),
                "device_count without a GPU: {count:?}"
            );
            let sm80 = catch_unwind(|| {
                Context::with_options(
                    0,
                    tcgemm::ContextOptions {
                        force_sm80: true,
                        allow_tf32: Some(true),
                        ..Default::default()
                    },
                )
                .map(|_| ())
            })
            .expect("Context::with_options panicked");
            assert!(
                sm80.is_err(),
                "Context::with_options without a GPU: {sm80:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// docs/errors.md: the rows not covered above (GPU rows skip without a GPU)
// ---------------------------------------------------------------------------------------------

/// `what` and `why` of an `InvalidArgument`, or a panic naming the unexpected result.
fn invalid_parts<T: std::fmt::Debug>(r: tcgemm::Result<T>, ctx: &str) -> (&'static str, String) {
    match r {
        Err(Error::InvalidArgument { what, why }) => {
            assert!(!why.is_empty(), "{ctx}: empty explanation");
            (what, why)
        }
        other => panic!("{ctx}: expected Error::InvalidArgument, got {other:?}"),
    }
}

/// Asserts an `InvalidArgument` naming `what` whose explanation contains `needle`.
#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(r: tcgemm::Result<T>, what: &str, needle: &str) {
    let (w, why) = invalid_parts(r, &format!("expected `{what}`"));
    assert_eq!(w, what, "{why}");
    assert!(why.contains(needle), "expected '{needle}' in: {why}");
}

/// Asserts an `Unsupported` error whose message contains `needle`.
#[track_caller]
fn assert_unsupported<T: std::fmt::Debug>(r: tcgemm::Result<T>, needle: &str) {
    match r {
        Err(Error::Unsupported(why)) => {
            assert!(why.contains(needle), "expected '{needle}' in: {why}")
        }
        other => panic!("expected Error::Unsupported, got {other:?}"),
    }
}

#[test]
fn overflowing_c_item_of_a_batched_call_is_argument_c() {
    // batch > 1: one C item, (m−1)·ldc + n, overflows before the batch stride is even looked at.
    let g = Gemm::new(2, 1, 1).ldc(usize::MAX).batch(2);
    assert_invalid(
        validate_np(&g, usize::MAX, usize::MAX, usize::MAX),
        "c",
        "one C item",
    );
    // batch 1: the same C fails in required_lens instead.
    let g = g.batch(1);
    assert_invalid(
        validate_np(&g, usize::MAX, usize::MAX, usize::MAX),
        "c",
        "C spans",
    );
    assert_invalid(lens_np(&g), "c", "overflows usize");
}

#[test]
fn overflowing_spans_name_the_operand() {
    let max = usize::MAX;
    for (g, what, needle) in [
        // (rows−1)·ld + cols overflows
        (Gemm::new(2, 1, 1).lda(max), "a", "A spans"),
        (Gemm::new(1, 1, 2).trans_a(true).lda(max), "a", "A spans"),
        (Gemm::new(1, 1, 2).ldb(max), "b", "B spans"),
        (Gemm::new(1, 2, 1).trans_b(true).ldb(max), "b", "B spans"),
        // stride·(batch−1) overflows
        (
            Gemm::new(1, 1, 1).batch(3).stride_a(max / 2 + 1),
            "a",
            "A spans",
        ),
        (
            Gemm::new(1, 1, 1).batch(3).stride_b(max / 2 + 1),
            "b",
            "B spans",
        ),
        (
            Gemm::new(1, 1, 1).batch(3).stride_c(max / 2 + 1),
            "c",
            "C spans",
        ),
        // C is checked first, then A, then B
        (Gemm::new(2, 1, 1).lda(max).ldc(max), "c", "C spans"),
        (Gemm::new(2, 1, 2).lda(max).ldb(max), "a", "A spans"),
    ] {
        assert_invalid(lens_np(&g), what, needle);
        assert_invalid(validate_np(&g, max, max, max), what, needle);
    }
    // A and B unreferenced (alpha == 0): their spans cannot overflow the call.
    let g = Gemm::new(2, 1, 1).lda(max).alpha(0.0);
    assert_eq!(lens_np(&g).unwrap(), (0, 0, 2));
}

#[test]
fn missing_driver_library_is_no_device() {
    // SAFETY: only tries to dlopen the CUDA driver library by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        println!(
            "skipped: a CUDA driver library is present (this row needs a machine without one)"
        );
        return;
    }
    for r in [
        catch_unwind(|| Context::new(0).map(|_| ())).expect("Context::new panicked"),
        catch_unwind(|| Context::new(usize::MAX).map(|_| ())).expect("Context::new panicked"),
        catch_unwind(|| Context::device_count().map(|_| ())).expect("device_count panicked"),
    ] {
        match r {
            Err(Error::NoDevice(why)) => {
                assert!(why.contains("CUDA driver library"), "{why}")
            }
            other => panic!("expected Error::NoDevice, got {other:?}"),
        }
    }
}

#[test]
fn missing_ordinal_is_no_device() {
    let Some(_ctx) = gpu() else { return };
    let count = Context::device_count().expect("device_count with a GPU");
    for ordinal in [count, usize::MAX] {
        match Context::new(ordinal) {
            Err(Error::NoDevice(why)) => assert!(why.contains("does not exist"), "{why}"),
            other => panic!("Context::new({ordinal}): expected Error::NoDevice, got {other:?}"),
        }
    }
}

#[test]
fn precisions_the_inputs_do_not_have_are_invalid() {
    use half::{bf16, f16};
    let Some(ctx) = gpu() else { return };
    let g = Gemm::new(64, 64, 64);
    let tf32 = g.precision(Precision::Tf32);
    let f16acc = g.precision(Precision::F16Accumulate);
    assert_invalid(ctx.plan::<f16, f32>(&tf32), "precision", "f32 inputs only");
    assert_invalid(
        ctx.plan::<bf16, bf16>(&tf32),
        "precision",
        "f32 inputs only",
    );
    assert_invalid(
        ctx.plan::<f32, f32>(&f16acc),
        "precision",
        "f16 inputs only",
    );
    assert_invalid(
        ctx.plan::<bf16, f32>(&f16acc),
        "precision",
        "f16 inputs only",
    );
    // gemm checks it first, before the (here far too short) buffers.
    let s = ctx.stream();
    let a = s.alloc_zeros::<f16>(1).unwrap();
    let b = s.alloc_zeros::<f16>(1).unwrap();
    let mut c = s.alloc_zeros::<f32>(1).unwrap();
    assert_invalid(
        ctx.gemm::<f16, f32, _, _, _>(&tf32, &a, &b, &mut c),
        "precision",
        "f32 inputs only",
    );
}

#[test]
fn type_and_precision_combinations_without_a_kernel_are_invalid() {
    use half::{bf16, f16};
    let Some(ctx) = gpu() else { return };
    let g = Gemm::new(64, 64, 64);
    // no kernel for these element types at all (the message lists those that exist)
    let types = "element types";
    assert_invalid(
        ctx.plan::<bf16, f16>(&g),
        types,
        "no kernel for these element types",
    );
    assert_invalid(
        ctx.plan::<f16, bf16>(&g),
        types,
        "no kernel for these element types",
    );
    assert_invalid(ctx.plan::<f32, f16>(&g), types, "no kernel for F32 -> F16");
    // f16 accumulation exists only with f16 output
    assert_invalid(
        ctx.plan::<f16, f32>(&g.precision(Precision::F16Accumulate)),
        "precision",
        "choose another Precision",
    );
    // gemm: the same, with buffers that fit
    let s = ctx.stream();
    let a = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let b = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let mut c = s.alloc_zeros::<f16>(64 * 64).unwrap();
    assert_invalid(
        ctx.gemm::<f32, f16, _, _, _>(&g, &a, &b, &mut c),
        types,
        "no kernel for F32 -> F16",
    );
}

#[test]
fn plans_beyond_the_launch_grid_are_invalid() {
    let Some(ctx) = gpu() else { return };
    // Exact FP32 runs on the sm_80 kernels (one CTA per 128×128 tile): validate accepts both calls.
    let max = i32::MAX as usize;
    let tiles = Gemm::new(max, max, 1).precision(Precision::Exact);
    assert_invalid(ctx.plan::<f32, f32>(&tiles), "m, n", "output tiles");
    let batch = Gemm::new(1, 1, 1)
        .batch(65535 * 65535 + 1)
        .precision(Precision::Exact);
    assert_invalid(ctx.plan::<f32, f32>(&batch), "batch", "grid");
}

#[test]
fn buffers_of_another_device_are_rejected() {
    let Some(ctx) = gpu() else { return };
    let count = Context::device_count().expect("device_count with a GPU");
    if count < 2 {
        println!("skipped: needs 2 CUDA devices, {count} visible");
        return;
    }
    let other = match Context::new(1) {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: device 1 is not usable: {e}");
            return;
        }
    };
    let g = Gemm::new(8, 8, 8);
    let (s, o) = (ctx.stream(), other.stream());
    let a = s.alloc_zeros::<f32>(64).unwrap();
    let b = s.alloc_zeros::<f32>(64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64).unwrap();
    let fa = o.alloc_zeros::<f32>(64).unwrap();
    let fb = o.alloc_zeros::<f32>(64).unwrap();
    let mut fc = o.alloc_zeros::<f32>(64).unwrap();
    assert_invalid(
        ctx.gemm(&g, &fa, &b, &mut c),
        "a",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm(&g, &a, &fb, &mut c),
        "b",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm(&g, &a, &b, &mut fc),
        "c",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm_with_kernel("sgemm_nn_128x128x8_t8x8_s2", &g, &fa, &b, &mut c),
        "a",
        "allocated in the context of device 1",
    );
    // An empty call references no buffer, so where they live does not matter.
    ctx.gemm(&Gemm::new(0, 8, 8), &fa, &fb, &mut fc).unwrap();
    // Conversions and instruction ceilings check their buffers too.
    let mut h = s.alloc_zeros::<half::f16>(64).unwrap();
    let mut fh = o.alloc_zeros::<half::f16>(64).unwrap();
    assert_invalid(
        ctx.convert(&fa, &mut h),
        "src",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.convert(&a, &mut fh),
        "dst",
        "allocated in the context of device 1",
    );
    let threads = 256 * ctx.capabilities().sm_count as usize;
    let mut fout = o.alloc_zeros::<f32>(threads).unwrap();
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::Ffma, 1, 1, &mut fout),
        "out",
        "allocated in the context of device 1",
    );
}

#[test]
fn kernels_forced_by_name_are_checked_against_the_call() {
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let g = Gemm::new(8, 8, 8);
    let a = s.alloc_zeros::<f32>(64).unwrap();
    let b = s.alloc_zeros::<f32>(64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64).unwrap();
    let mut run = |name: &str, g: &Gemm| ctx.gemm_with_kernel(name, g, &a, &b, &mut c);
    assert_invalid(run("no_such_kernel", &g), "kernel", "no kernel named");
    assert_invalid(
        run("f16_f32_nn_128x128x32_w64x32_s4", &g),
        "kernel",
        "matching element types",
    );
    assert_invalid(
        run("sgemm_nt_128x128x8_t8x8_s2", &g),
        "kernel",
        "for this layout",
    );
    assert_invalid(run("ceiling_ffma_f32", &g), "kernel", "not a GEMM kernel");
    assert_invalid(run("convert_f32_to_f16", &g), "kernel", "not a GEMM kernel");
    // The name is checked before the buffers: a valid name with short buffers fails on them.
    assert_invalid(
        run("sgemm_nn_128x128x8_t8x8_s2", &Gemm::new(9, 8, 8)),
        "a",
        "buffer A holds 64",
    );
}

/// A TMA (sm_90a) kernel of the table taking f32 inputs and output.
fn tma_f32_kernel() -> &'static tcgemm::KernelSpec {
    tcgemm_kernels::config::KERNELS
        .iter()
        .find(|k| {
            k.family.needs_tma() && k.input == tcgemm::Elem::F32 && k.output == tcgemm::Elem::F32
        })
        .expect("the table has f32 TMA kernels")
}

#[test]
fn kernel_not_runnable_on_the_context_is_unsupported() {
    // force_sm80: the sm_90a module is not loaded, whatever the device.
    let Some(ctx) = gpu_sm80() else { return };
    let k = tma_f32_kernel();
    let g = Gemm::new(64, 64, 64).trans_a(k.trans_a).trans_b(k.trans_b);
    let s = ctx.stream();
    let a = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let b = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64 * 64).unwrap();
    assert_unsupported(
        ctx.gemm_with_kernel(k.name, &g, &a, &b, &mut c),
        "cannot run on this context",
    );
}

#[test]
fn named_tma_kernel_refuses_calls_outside_its_rules() {
    let Some(ctx) = gpu() else { return };
    let k = tma_f32_kernel();
    if !ctx.kernels().iter().any(|r| r.name == k.name) {
        println!(
            "skipped: {} is not runnable here (needs a Hopper GPU)",
            k.name
        );
        return;
    }
    let g = Gemm::new(256, 256, 64)
        .trans_a(k.trans_a)
        .trans_b(k.trans_b);
    // alpha == 0 (A and B unreferenced) and a leading dimension of A that is not 16 bytes.
    for call in [g.alpha(0.0), g.lda(g.lda_or_packed() + 1)] {
        let s = ctx.stream();
        let (la, lb, lc) = call.required_lens().unwrap();
        let a = s.alloc_zeros::<f32>(la.max(1)).unwrap();
        let b = s.alloc_zeros::<f32>(lb.max(1)).unwrap();
        let mut c = s.alloc_zeros::<f32>(lc).unwrap();
        assert_invalid(
            ctx.gemm_with_kernel(k.name, &call, &a, &b, &mut c),
            "kernel",
            "TMA kernels need",
        );
        // dispatch itself takes an sm_80 kernel for the same call
        ctx.gemm(&call, &a, &b, &mut c).unwrap();
    }
    ctx.stream().synchronize().unwrap();
}

#[test]
fn instruction_ceiling_arguments_are_checked() {
    let Some(ctx) = gpu() else { return };
    let mut out = ctx.stream().alloc_zeros::<f32>(16).unwrap();
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::MmaF16F16, 1, 1, &mut out),
        "math",
        "no instruction-ceiling kernel",
    );
    let ffma = tcgemm::Math::Ffma;
    assert_invalid(
        ctx.instruction_ceiling(ffma, 0, 1, &mut out),
        "blocks_per_sm, trips",
        "at least 1",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, 1, 0, &mut out),
        "blocks_per_sm, trips",
        "at least 1",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, u32::MAX, 1, &mut out),
        "blocks_per_sm",
        "too many blocks",
    );
    // 4096 · SMs blocks × 2^32 trips × 2^20 FLOPs per block and trip: more than u64 counts.
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::MmaF16F32, 4096, u32::MAX, &mut out),
        "trips",
        "u64::MAX FLOPs",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, 1, 1, &mut out),
        "out",
        "holds 16 f32",
    );
}

#[test]
fn alloc_zeros_of_an_overflowing_length_is_invalid() {
    let Some(ctx) = gpu() else { return };
    assert_invalid(ctx.alloc_zeros::<f32>(usize::MAX), "len", "overflow usize");
    assert_invalid(
        ctx.alloc_zeros::<f32>(usize::MAX / 4 + 1),
        "len",
        "overflow usize",
    );
}

#[test]
fn rejected_calls_launch_nothing() {
    // Validation happens before anything is enqueued: C keeps its contents after each refusal.
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let g = Gemm::new(8, 8, 8);
    let a = s.clone_htod(&[1.0f32; 64]).unwrap();
    let b = s.clone_htod(&[1.0f32; 64]).unwrap();
    let mut c = s.clone_htod(&[7.0f32; 63]).unwrap();
    assert_invalid(ctx.gemm(&g, &a, &b, &mut c), "c", "buffer C holds 63");
    assert_invalid(
        ctx.gemm(&g.stride_c(0).batch(2), &a, &b, &mut c),
        "stride_c",
        "overlap",
    );
    assert_invalid(
        ctx.gemm_with_kernel("sgemm_nt_128x128x8_t8x8_s2", &g, &a, &b, &mut c),
        "kernel",
        "for this layout",
    );
    assert_eq!(s.clone_dtoh(&c).unwrap(), vec![7.0f32; 63]);
}
