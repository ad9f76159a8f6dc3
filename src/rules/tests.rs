use super::*;
use crate::gemm::Gemm;
use crate::problem::Addresses;
use crate::test_support::{any_math, problem, spec, table};
use crate::Precision;

const ALIGNED: Addresses = Addresses {
    a: 256,
    b: 512,
    c: 1024,
};

fn sm80() -> KernelSpec {
    spec("a", Elem::F16, Elem::F32, Math::MmaF16F32, 1)
}

fn tma() -> KernelSpec {
    KernelSpec {
        family: Family::TmaWarpSpecialized,
        ..sm80()
    }
}

/// `g` as an f16 -> f32 problem, planned (`None`) or on buffers at `at`.
fn half(g: &Gemm, at: Option<Addresses>) -> Problem {
    let p = any_math(g, Elem::F16, Elem::F32);
    at.map_or(p, |x| p.at(x))
}

fn accepts(k: &KernelSpec, g: &Gemm, at: Option<Addresses>) -> bool {
    can_implement(k, &half(g, at)).is_ok()
}

#[test]
fn tma_rules() {
    let (sm80, sm90) = (sm80(), tma());
    let g = Gemm::new(64, 64, 64);
    assert!(accepts(&sm90, &g, Some(ALIGNED)));
    assert!(accepts(&sm90, &g, None));
    // Misaligned base.
    let b514 = Some(Addresses { b: 514, ..ALIGNED });
    assert!(!accepts(&sm90, &g, b514));
    assert!(accepts(&sm80, &g, b514));
    // lda 12 halves = 24 bytes; ldc 12 f32 = 48 bytes.
    assert!(!accepts(&sm90, &g.lda(68), None));
    assert!(accepts(&sm90, &g.lda(72), None));
    assert!(!accepts(&sm90, &g.ldc(66), None));
    assert!(accepts(&sm90, &g.ldc(68), None));
    // Strides matter only with several batch items.
    assert!(accepts(&sm90, &g.stride_a(4), None));
    assert!(!accepts(&sm90, &g.batch(2).stride_a(4), None));
    assert!(accepts(&sm90, &g.batch(2).stride_a(8), None));
    assert!(accepts(&sm90, &g.batch(2).stride_b(0), None));
    assert!(!accepts(&sm90, &g.batch(2).stride_c(64 * 64 + 2), None));
    // A tensor map's strides stay below 2^40 bytes: 2^39 halves is 2^40 bytes.
    let one_row = Gemm::new(1, 64, 64);
    assert!(accepts(&sm90, &one_row.lda((1 << 39) - 8), None));
    assert!(!accepts(&sm90, &one_row.lda(1 << 39), None));
    assert!(!accepts(&sm90, &one_row.trans_b(true).ldb(1 << 39), None));
    // The persistent kernels need a call that reads A and B, and < 2^32 work items;
    // the sm_80 kernels take everything.
    assert!(!accepts(&sm90, &Gemm::new(64, 64, 0), None));
    assert!(!accepts(&sm90, &g.alpha(0.0), None));
    assert!(accepts(&sm80, &g.alpha(0.0), None));
    let many = Gemm::new(1 << 20, 1 << 20, 8).batch(1 << 20);
    assert!(!accepts(&sm90, &many, None));
    assert!(accepts(&sm80, &many, None));
}

#[test]
fn reason_not_gemm() {
    let g = Gemm::new(8, 8, 8);
    for (family, see) in [
        (Family::Ceiling, "Context::instruction_ceiling"),
        (Family::Convert, "Context::convert"),
    ] {
        let k = KernelSpec {
            family,
            ..table()[0]
        };
        let r = can_implement(&k, &any_math(&g, Elem::F32, Elem::F32)).unwrap_err();
        assert_eq!(r, Reason::NotGemm { role: k.role() });
        let s = r.to_string();
        assert!(s.contains("not a GEMM kernel") && s.contains(see), "{s}");
    }
}

#[test]
fn reason_element_types() {
    let g = Gemm::new(8, 8, 8);
    let k = table()[0]; // f32 -> f32
    for (i, o) in [(Elem::Bf16, Elem::F32), (Elem::F32, Elem::F16)] {
        let r = can_implement(&k, &any_math(&g, i, o)).unwrap_err();
        assert_eq!(
            r,
            Reason::ElementTypes {
                kernel: (Elem::F32, Elem::F32),
                problem: (i, o)
            }
        );
        assert!(r.to_string().contains("matching element types"), "{r}");
    }
}

#[test]
fn reason_layout() {
    let k = table()[0]; // nn
    for g in [
        Gemm::new(8, 8, 8).trans_a(true),
        Gemm::new(8, 8, 8).trans_b(true),
    ] {
        let r = can_implement(&k, &any_math(&g, Elem::F32, Elem::F32)).unwrap_err();
        assert!(
            matches!(
                r,
                Reason::Layout {
                    kernel: (false, false),
                    ..
                }
            ),
            "{r:?}"
        );
        assert!(r.to_string().contains("for this layout"), "{r}");
    }
    let r = check_signature(
        &k,
        &Signature::any_math(&Gemm::new(8, 8, 8).trans_a(true), Elem::F32, Elem::F32),
    );
    assert!(r.unwrap_err().to_string().contains("trans_a=true"));
}

#[test]
fn reason_math() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    // Exact accepts FFMA only; a named kernel (any math) takes the TF32 one
    let tf32 = t.iter().find(|s| s.math == Math::MmaTf32).unwrap();
    let exact = problem(&g.precision(Precision::Exact), Elem::F32, Elem::F32, true);
    let r = can_implement(tf32, &exact).unwrap_err();
    assert_eq!(
        r,
        Reason::Math {
            kernel: Math::MmaTf32,
            accepted: &[Math::Ffma]
        }
    );
    assert!(r.to_string().contains("choose another Precision"), "{r}");
    assert!(can_implement(tf32, &any_math(&g, Elem::F32, Elem::F32)).is_ok());
    // f16 accumulation is reachable by name only
    let f16acc = t.iter().find(|s| s.math == Math::MmaF16F16).unwrap();
    assert!(can_implement(f16acc, &problem(&g, Elem::F16, Elem::F16, false)).is_err());
    assert!(can_implement(f16acc, &any_math(&g, Elem::F16, Elem::F16)).is_ok());
}

#[test]
fn reason_misaligned_names_operand_and_part() {
    let k = tma();
    let g = Gemm::new(64, 64, 64);
    let cases = [
        (
            g,
            Some(Addresses { b: 514, ..ALIGNED }),
            Operand::B,
            OperandPart::Base,
            514,
        ),
        (
            g.lda(68),
            None,
            Operand::A,
            OperandPart::LeadingDimension,
            68,
        ),
        (
            g.ldc(66),
            None,
            Operand::C,
            OperandPart::LeadingDimension,
            66,
        ),
        (
            g.batch(2).stride_a(4),
            None,
            Operand::A,
            OperandPart::BatchStride,
            4,
        ),
    ];
    for (g, at, operand, part, value) in cases {
        let r = can_implement(&k, &half(&g, at)).unwrap_err();
        assert_eq!(
            r,
            Reason::Misaligned {
                operand,
                part,
                value,
                elem_bytes: if operand == Operand::C { 4 } else { 2 }
            }
        );
        let s = r.to_string();
        assert!(s.starts_with("TMA kernels need"), "{s}");
        assert!(s.contains(&format!("{operand}'s {part}")), "{s}");
    }
    let r = can_implement(&k, &half(&g.lda(68), None)).unwrap_err();
    assert!(r.to_string().contains("68 elements (136 bytes)"), "{r}");
}

#[test]
fn reason_tensor_map_stride() {
    let k = tma();
    let one_row = Gemm::new(1, 64, 64);
    let r = can_implement(&k, &half(&one_row.lda(1 << 39), None)).unwrap_err();
    assert_eq!(
        r,
        Reason::TensorMapStride {
            operand: Operand::A,
            part: OperandPart::LeadingDimension,
            bytes: 1 << 40
        }
    );
    assert!(r.to_string().contains("2^40"), "{r}");
    let batched = Gemm::new(64, 64, 64).batch(2).stride_b(1 << 39);
    let r = can_implement(&k, &half(&batched, None)).unwrap_err();
    assert!(
        matches!(
            r,
            Reason::TensorMapStride {
                operand: Operand::B,
                part: OperandPart::BatchStride,
                ..
            }
        ),
        "{r:?}"
    );
}

#[test]
fn reason_no_product() {
    let k = tma();
    for (g, kk, alpha) in [
        (Gemm::new(64, 64, 0), 0, 1.0),
        (Gemm::new(64, 64, 64).alpha(0.0), 64, 0.0),
    ] {
        let r = can_implement(&k, &half(&g, None)).unwrap_err();
        assert_eq!(
            r,
            Reason::NoProduct {
                family: Family::TmaWarpSpecialized,
                k: kk,
                alpha
            }
        );
        assert!(r.to_string().starts_with("TMA kernels need k ≥ 1"), "{r}");
    }
}

#[test]
fn reason_too_many_work_items() {
    let k = tma();
    let many = Gemm::new(1 << 20, 1 << 20, 8).batch(1 << 20);
    let r = can_implement(&k, &half(&many, None)).unwrap_err();
    let work = (1u64 << 13) * (1 << 13) * (1 << 20); // 128×128 tiles
    assert_eq!(
        r,
        Reason::TooManyWorkItems {
            family: Family::TmaWarpSpecialized,
            work
        }
    );
    assert!(r.to_string().contains("2^32"), "{r}");
}

#[test]
fn reason_not_loaded_is_its_text() {
    let r = Reason::NotLoaded {
        why: "the sm_90a module is not loaded".into(),
    };
    assert_eq!(r.to_string(), "the sm_90a module is not loaded");
}

#[test]
fn signature_rules_come_first() {
    // a utility with the wrong types reports its role, a TMA kernel of the wrong layout its layout
    let conv = KernelSpec {
        family: Family::Convert,
        ..table()[5]
    };
    let p = half(&Gemm::new(8, 8, 8).lda(9), None);
    assert!(matches!(
        can_implement(&conv, &p),
        Err(Reason::NotGemm { .. })
    ));
    let k = KernelSpec {
        trans_a: true,
        ..tma()
    };
    assert!(matches!(can_implement(&k, &p), Err(Reason::Layout { .. })));
}
