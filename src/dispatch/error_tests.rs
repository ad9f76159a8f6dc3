//! The argument errors of dispatch (docs/errors.md rows): precisions the inputs do not have,
//! element types and precisions no kernel implements, and the no-kernel error.

use super::*;
use crate::test_support::{problem, table};
use tcgemm_kernels::config::KERNELS;

/// The error a precision the inputs do not have gives.
fn is_invalid_precision(err: &Error) -> bool {
    matches!(
        err,
        Error::InvalidArgument {
            what: "precision",
            ..
        }
    )
}

#[test]
fn f16_accumulation_with_other_inputs_is_an_invalid_precision() {
    for e in [Elem::F32, Elem::Bf16] {
        for tf32 in [false, true] {
            let err = maths_for(e, Precision::F16Accumulate, tf32).unwrap_err();
            assert!(is_invalid_precision(&err), "{err}");
            assert!(err.to_string().contains("F16Accumulate"), "{err}");
        }
    }
    // signature (the first step of Context::plan and Context::gemm) reports it, for either
    // precision an input type does not have.
    for (p, input) in [
        (Precision::F16Accumulate, Elem::F32),
        (Precision::Tf32, Elem::F16),
        (Precision::Tf32, Elem::Bf16),
        (Precision::Tf32x3, Elem::F16),
        (Precision::Tf32x3, Elem::Bf16),
    ] {
        let g = Gemm::new(8, 8, 8).precision(p);
        let err = signature(KERNELS, &g, input, Elem::F32, true).unwrap_err();
        assert!(is_invalid_precision(&err), "{p:?} with {input:?}: {err}");
    }
}

#[test]
fn element_types_without_a_kernel_are_invalid_and_name_those_that_exist() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    for (i, o) in [(Elem::Bf16, Elem::Bf16), (Elem::F32, Elem::F16)] {
        match signature(&t, &g, i, o, false) {
            Err(Error::InvalidArgument { what, why }) => {
                assert_eq!(what, "element types", "{why}");
                assert!(
                    why.contains(&format!("no kernel for {i:?} -> {o:?}")),
                    "{why}"
                );
                assert!(why.contains("no kernel for these element types"), "{why}");
                assert!(
                    why.contains("F32 -> F32 (Default, Exact, Tf32, Tf32x3)"),
                    "{why}"
                );
                assert!(
                    why.contains("F16 -> F16 (Default, Exact, F16Accumulate)"),
                    "{why}"
                );
            }
            other => panic!("{i:?} -> {o:?}: expected InvalidArgument, got {other:?}"),
        }
    }
}

#[test]
fn precision_without_a_kernel_for_the_types_is_invalid() {
    let t = table();
    let g = Gemm::new(8, 8, 8).precision(Precision::F16Accumulate);
    // f16 accumulation exists only with f16 output
    match signature(&t, &g, Elem::F16, Elem::F32, false) {
        Err(Error::InvalidArgument { what, why }) => {
            assert_eq!(what, "precision", "{why}");
            assert!(why.contains("choose another Precision"), "{why}");
            assert!(why.contains("F16 -> F32 (Default, Exact)"), "{why}");
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    assert!(signature(&t, &g, Elem::F16, Elem::F16, false).is_ok());
    // a table without TF32 kernels: Tf32 is invalid, Default without TF32 fine
    let ffma_only: Vec<KernelSpec> = t
        .iter()
        .copied()
        .filter(|s| s.math != Math::MmaTf32)
        .collect();
    let tf32 = Gemm::new(8, 8, 8).precision(Precision::Tf32);
    assert!(signature(&ffma_only, &tf32, Elem::F32, Elem::F32, false).is_err());
    let s = signature(&ffma_only, &Gemm::new(8, 8, 8), Elem::F32, Elem::F32, true).unwrap();
    assert_eq!(s.maths, Some(&[Math::MmaTf32, Math::Ffma][..]));
}

#[test]
fn real_table_combinations() {
    let c = combinations(KERNELS);
    assert!(
        c.starts_with("F32 -> F32 (Default, Exact, Tf32, Tf32x3)"),
        "{c}"
    );
    assert!(
        c.contains("F16 -> F16 (Default, Exact, F16Accumulate)"),
        "{c}"
    );
    assert!(!c.contains("Convert"), "{c}");
}

#[test]
fn no_kernel_for_the_query_is_unsupported() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    // element types without a kernel; another math only; candidates that cannot run
    let cases = [
        (problem(&g, Elem::Bf16, Elem::Bf16, false), t.clone()),
        (
            problem(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, false),
            t.iter().copied().filter(|s| s.math == Math::Ffma).collect(),
        ),
        (problem(&g, Elem::F32, Elem::F32, false), t.clone()),
    ];
    for (p, specs) in cases {
        let e = no_kernel_error(&specs, p.signature(), |s| format!("{} not loaded", s.name));
        assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
        assert!(
            e.to_string().starts_with("unsupported: no kernel for"),
            "{e}"
        );
    }
}
