//! CPU-only tests, run everywhere: argument validation (`Gemm::validate`, `Gemm::required_lens`)
//! returns the right typed errors and never panics; `Context::new` without a GPU is an error, not a
//! panic (the test harness's own self-tests are in `crates/tcgemm-testkit/tests/harness.rs`).
//! The rows of docs/errors.md not covered here are in `tests/errors.rs`.

use std::panic::catch_unwind;

use tcgemm::{Context, Error, Gemm, Precision};
use tcgemm_testkit::*;

/// The `what` of an `InvalidArgument`, or a panic naming the unexpected result.
fn what_of(r: tcgemm::Result<impl std::fmt::Debug>, ctx: &str) -> &'static str {
    invalid_parts(r, ctx).0
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
        validate_no_panic(&base.lda(p.a_cols()).ldb(p.b_cols()).ldc(n), big, big, big)
            .unwrap_or_else(|e| panic!("op {ta},{tb}: packed ld rejected: {e}"));
        let ctx = format!("trans=({ta},{tb})");
        assert_eq!(
            what_of(
                validate_no_panic(&base.lda(p.a_cols() - 1), big, big, big),
                &ctx
            ),
            "lda"
        );
        assert_eq!(
            what_of(
                validate_no_panic(&base.ldb(p.b_cols() - 1), big, big, big),
                &ctx
            ),
            "ldb"
        );
        assert_eq!(
            what_of(validate_no_panic(&base.ldc(n - 1), big, big, big), &ctx),
            "ldc"
        );
        assert_eq!(
            what_of(validate_no_panic(&base.lda(0), big, big, big), &ctx),
            "lda"
        );
        // The message names the argument.
        let msg = validate_no_panic(&base.ldc(1), big, big, big)
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
        let got = required_lens_no_panic(&g).unwrap_or_else(|e| panic!("{p}: {e}"));
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
        let (a, b, c) = required_lens_no_panic(&g).unwrap();
        validate_no_panic(&g, a, b, c)
            .unwrap_or_else(|e| panic!("{p}: exact lengths rejected: {e}"));
        validate_no_panic(&g, a + 100, b + 100, c + 100)
            .unwrap_or_else(|e| panic!("{p}: longer buffers rejected: {e}"));
        let ctx = p.to_string();
        assert_eq!(what_of(validate_no_panic(&g, a - 1, b, c), &ctx), "a");
        assert_eq!(what_of(validate_no_panic(&g, a, b - 1, c), &ctx), "b");
        assert_eq!(what_of(validate_no_panic(&g, a, b, c - 1), &ctx), "c");
        assert_eq!(what_of(validate_no_panic(&g, 0, b, c), &ctx), "a");
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
                validate_no_panic(&g, big, big, big),
                &format!("stride_c={stride}")
            ),
            "stride_c"
        );
    }
    validate_no_panic(&p.gemm().stride_c(item), big, big, big)
        .expect("non-overlapping tight stride_c rejected");
    // Inputs may overlap (read only): broadcast A, overlapping B.
    validate_no_panic(&p.gemm().stride_a(0).stride_b(1), big, big, big)
        .expect("overlapping input batches rejected");
    // One item cannot overlap itself.
    validate_no_panic(&Problem::new(5, 7, 11).gemm().stride_c(0), big, big, big)
        .expect("batch 1 with stride_c 0 rejected");
}

#[test]
fn sizes_beyond_32_bit_indexing_are_rejected() {
    let too_big = i32::MAX as usize + 1;
    assert_eq!(
        what_of(validate_no_panic(&Gemm::new(too_big, 1, 1), 0, 0, 0), "m"),
        "m"
    );
    assert_eq!(
        what_of(validate_no_panic(&Gemm::new(1, too_big, 1), 0, 0, 0), "n"),
        "n"
    );
    assert_eq!(
        what_of(validate_no_panic(&Gemm::new(1, 1, too_big), 0, 0, 0), "k"),
        "k"
    );
    if usize::BITS > 32 {
        let g = Gemm::new(1, 1, 1).batch(u32::MAX as usize + 1);
        assert_eq!(
            what_of(validate_no_panic(&g, 1 << 40, 1 << 40, 1 << 40), "batch"),
            "batch"
        );
    }
    assert_eq!(
        what_of(
            validate_no_panic(&Gemm::new(usize::MAX, usize::MAX, usize::MAX), 0, 0, 0),
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
        let w = what_of(required_lens_no_panic(&g), &format!("required_lens {g:?}"));
        assert!(
            allowed.contains(&w),
            "required_lens {g:?}: what = {w}, expected one of {allowed:?}"
        );
        let w = what_of(
            validate_no_panic(&g, usize::MAX, usize::MAX, usize::MAX),
            &format!("validate {g:?}"),
        );
        assert!(
            allowed.contains(&w),
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
            required_lens_no_panic(&g).unwrap_or_else(|e| panic!("{g:?}: {e}")),
            (0, 0, 0),
            "{g:?}"
        );
        validate_no_panic(&g, 0, 0, 0)
            .unwrap_or_else(|e| panic!("{g:?} rejected with empty buffers: {e}"));
    }
    // k == 0 and alpha == 0: A and B are not referenced, C is.
    for g in [
        Gemm::new(5, 7, 0),
        Gemm::new(5, 7, 11).alpha(0.0),
        Gemm::new(5, 7, 0).trans_a(true).trans_b(true),
    ] {
        assert_eq!(required_lens_no_panic(&g).unwrap(), (0, 0, 35), "{g:?}");
        validate_no_panic(&g, 0, 0, 35).unwrap_or_else(|e| panic!("{g:?}: {e}"));
        assert_eq!(
            what_of(validate_no_panic(&g, 0, 0, 34), &format!("{g:?}")),
            "c"
        );
    }
}

#[test]
fn precision_is_not_a_validation_concern() {
    // Precision is checked where the element types are known (plan/gemm), not by validate.
    for p in [Precision::Default, Precision::Exact, Precision::Tf32] {
        validate_no_panic(&Gemm::new(2, 3, 4).precision(p), 8, 12, 6).unwrap();
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
