use super::*;
use crate::gemm::Gemm;
use crate::problem::{Addresses, Signature};
use crate::test_support::{any_math, leak, spec};
use tcgemm_kernels::config::{Elem, Family, KernelSpec, Math};

const P: Addresses = Addresses {
    a: 0x1000,
    b: 0x2000,
    c: 0x3000,
};

fn params_at(g: &Gemm, input: Elem, output: Elem, at: Addresses) -> Result<GemmParams> {
    params(&any_math(g, input, output).at(at))
}

fn params_of(g: &Gemm, input: Elem, output: Elem) -> Result<GemmParams> {
    params_at(g, input, output, P)
}

#[test]
fn params_packed_f32() {
    let g = Gemm::new(3, 5, 8).alpha(2.0).beta(0.5);
    let p = params_of(&g, Elem::F32, Elem::F32).unwrap();
    assert_eq!((p.a, p.b, p.c), (0x1000, 0x2000, 0x3000));
    assert_eq!((p.m, p.n, p.k, p.batch), (3, 5, 8, 1));
    assert_eq!((p.lda, p.ldb, p.ldc), (8, 5, 5));
    assert_eq!((p.stride_a, p.stride_b, p.stride_c), (24, 40, 15));
    assert_eq!((p.alpha, p.beta), (2.0, 0.5));
    assert_eq!(p.group_m, DEFAULT_GROUP_M);
    // lda 8 f32 = 32 bytes: vector loads; ldb/ldc 5 f32 = 20 bytes: scalar.
    assert_eq!(p.flags, flags::VEC_A);
}

#[test]
fn params_flags() {
    // the transposes are the kernel's (one entry point per layout), not flags
    let g = Gemm::new(4, 4, 4).trans_a(true).trans_b(true);
    let p = params_of(&g, Elem::F32, Elem::F32).unwrap();
    assert_eq!(
        p.flags,
        flags::VEC_A | flags::VEC_B | flags::VEC_C | flags::BETA_ZERO
    );
    // Misaligned base address of B.
    let p = params_at(&g, Elem::F32, Elem::F32, Addresses { b: 0x2004, ..P }).unwrap();
    assert_eq!(p.flags & flags::VEC_B, 0);
    assert_ne!(p.flags & flags::VEC_A, 0);
    // f16: ld 8 halves = 16 bytes is enough, ld 12 halves is not.
    let g = Gemm::new(8, 8, 8);
    let p = params_of(&g, Elem::F16, Elem::F32).unwrap();
    let vec = flags::VEC_A | flags::VEC_B | flags::VEC_C;
    assert_eq!(p.flags & vec, vec);
    let p = params_of(&g.lda(12), Elem::F16, Elem::F16).unwrap();
    assert_eq!(p.flags & flags::VEC_A, 0);
    // -0.0 == 0.0: C not read; NaN beta: C read.
    let beta_zero = |beta: f32| {
        params_of(&g.beta(beta), Elem::F32, Elem::F32)
            .unwrap()
            .flags
            & flags::BETA_ZERO
    };
    assert_ne!(beta_zero(-0.0), 0);
    assert_eq!(beta_zero(f32::NAN), 0);
}

#[test]
fn params_batch_strides_gate_vectors() {
    let g = Gemm::new(8, 8, 8).batch(3).stride_a(8 * 8 + 1).stride_b(0);
    let p = params_of(&g, Elem::F32, Elem::F32).unwrap();
    assert_eq!(p.batch, 3);
    assert_eq!((p.stride_a, p.stride_b, p.stride_c), (65, 0, 64));
    assert_eq!(p.flags & flags::VEC_A, 0);
    assert_ne!(p.flags & flags::VEC_B, 0);
    assert_ne!(p.flags & flags::VEC_C, 0);
    // One item: its stride is irrelevant.
    let p = params_of(&g.batch(1), Elem::F32, Elem::F32).unwrap();
    assert_ne!(p.flags & flags::VEC_A, 0);
}

#[test]
fn params_unreferenced_ab_pass_k_zero() {
    let g = Gemm::new(4, 4, 4).alpha(0.0).beta(1.0);
    let p = params_of(&g, Elem::F32, Elem::F32).unwrap();
    assert_eq!((p.k, p.alpha, p.beta), (0, 0.0, 1.0));
    let p = params_of(&Gemm::new(4, 4, 0), Elem::F32, Elem::F32).unwrap();
    assert_eq!(p.k, 0);
}

#[test]
fn params_need_addresses() {
    let planned = any_math(&Gemm::new(4, 4, 4), Elem::F32, Elem::F32);
    assert!(matches!(params(&planned), Err(Error::Unsupported(_))));
}

#[test]
fn params_name_the_size_that_does_not_fit_32_bits() {
    // docs/errors.md: unreachable after Gemm::validate (m, n, k ≤ i32::MAX, batch ≤ u32::MAX),
    // but params itself refuses rather than truncate.
    if usize::BITS <= 32 {
        return;
    }
    let unvalidated = |g: &Gemm| {
        let sig = Signature::any_math(g, Elem::F32, Elem::F32);
        params(&Problem::build(g, sig, (0, 0, 0)).at(P))
    };
    let big = u32::MAX as usize + 1;
    for (g, want) in [
        (Gemm::new(1, 1, 1).batch(big), "batch"),
        (Gemm::new(big, 1, 1), "m"),
        (Gemm::new(1, big, 1), "n"),
        (Gemm::new(1, 1, big), "k"),
    ] {
        match unvalidated(&g) {
            Err(Error::InvalidArgument { what, why }) => {
                assert_eq!(what, want, "{why}");
                assert!(why.contains("32-bit"), "{why}");
            }
            Err(other) => panic!("{want}: expected InvalidArgument, got {other:?}"),
            Ok(_) => panic!("{want}: {g:?} accepted"),
        }
    }
    // k is passed as 0 when A and B are not referenced, so a huge k then fits.
    let p = unvalidated(&Gemm::new(1, 1, big).alpha(0.0)).unwrap();
    assert_eq!(p.k, 0);
}

#[test]
fn parameter_blocks_name_their_kind() {
    assert_eq!(GemmParams::KIND, ParamsKind::Gemm);
    assert_eq!(TmaParams::KIND, ParamsKind::Tma);
    assert_eq!(ConvertParams::KIND, ParamsKind::Convert);
    assert_eq!(CeilingParams::KIND, ParamsKind::Ceiling);
}

#[test]
fn a_block_of_another_kind_is_refused() {
    let conv = leak(KernelSpec {
        family: Family::Convert,
        ..spec("c", Elem::F32, Elem::F16, Math::Ffma, 0)
    });
    let plan = Plan::with_grid(conv, (1, 1, 1), 0);
    assert!(check_block::<ConvertParams>(&plan).is_ok());
    let e = check_block::<GemmParams>(&plan).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
    assert!(
        e.to_string().contains("takes Convert parameters, not Gemm"),
        "{e}"
    );
    let tma = leak(KernelSpec {
        family: Family::TmaWarpSpecialized,
        ..spec("t", Elem::F16, Elem::F32, Math::MmaF16F32, 0)
    });
    let plan = Plan::with_grid(tma, (1, 1, 1), 0);
    assert!(check_block::<TmaParams>(&plan).is_ok());
    assert!(check_block::<GemmParams>(&plan).is_err());
}
