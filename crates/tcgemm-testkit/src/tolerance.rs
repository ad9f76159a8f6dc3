//! Tolerances on the relative Frobenius error, one definition for every suite, with their
//! derivations. The TF32 per-entry bound that goes with [`TOL_TF32_FRO`] is
//! [`tf32_entry_errors`](crate::tf32_entry_errors).

use crate::elem::TestElem;

/// FP32 (FFMA): tolerance on the relative Frobenius error of results with inner dimension `k`.
///
/// Each entry is `alpha·Σ_p a_ip·b_pj (+ beta·c_ij)` evaluated with `k` fused multiply-adds in f32
/// plus at most two roundings for alpha and beta: `k + 2` roundings, each at most `u = 2⁻²⁴`
/// relative to the running value. For inputs uniform in `[-1, 1]` the rounding errors of the
/// running sum are independent, the partial sums have rms `√(p/9)`, so the error of an entry has
/// rms `≈ u·√(Σ_p p/27) ≈ u·k/√54` against an rms entry of `√k/3`: a relative error of
/// `≈ 0.41·u·√k ≈ 2.4e-8·√k`. The bound `1e-5·√(k/1024) ≈ 3.1e-7·√k` is ~13× that, leaving room
/// for a different summation order (split-k, per-thread partial sums) and the alpha/beta roundings,
/// and nothing more: an error of one ulp of a partial product missing per entry already exceeds
/// it. For `k ≲ 9` this drops below the level of the few roundings themselves, so it is floored
/// at `16·u ≈ 9.5e-7`: `k + 2 ≤ 11` roundings adding in quadrature give `√11·u·√k` relative to the
/// magnitude the verifier normalises by, i.e. at most ~10·u.
///
/// ```
/// assert!(tcgemm_testkit::tol_fp32(4096) > tcgemm_testkit::tol_fp32(1024));
/// ```
pub fn tol_fp32(k: usize) -> f64 {
    let u = f64::from(f32::EPSILON) / 2.0;
    (1e-5 * (k.max(1) as f64 / 1024.0).sqrt()).max(16.0 * u)
}

/// f16/bf16 inputs with f32 accumulation in the tensor core. Products of two 16-bit values are
/// exact in f32; the adder aligns and may truncate, so the random-walk estimate `2⁻²⁴·√k` gets a
/// 16× margin, floored like [`tol_fp32`].
///
/// ```
/// assert_eq!(tcgemm_testkit::tol_f32_acc(1), tcgemm_testkit::tol_f32_acc(0));
/// ```
pub fn tol_f32_acc(k: usize) -> f64 {
    let u = f64::from(f32::EPSILON) / 2.0;
    (16.0 * u * (k.max(1) as f64).sqrt()).max(16.0 * u)
}

/// 3xTF32 (`Precision::Tf32x3`): f32 inputs split into TF32 parts `x = hi + lo + e`, the three
/// significant products summed by the tensor core over `3·k` terms. Each residual `x − hi` is at
/// most `2⁻¹¹·|x|` and its TF32 rounding errs by at most `2⁻¹¹` of that, so a product loses at most
/// `|lo_a·lo_b| + |e_a·b| + |a·e_b| ≤ 3·2⁻²²·|a·b|` (plus terms of `2⁻³³`); for inputs uniform in
/// `[-1, 1]` the relative error this adds to an entry is at most `3·2⁻²² ≈ 7.2e-7`, bounded here
/// by `2⁻²⁰`. The sums are [`tol_f32_acc`]'s, over `3·k` terms.
///
/// ```
/// assert!(tcgemm_testkit::tol_tf32x3(1024) < tcgemm_testkit::TOL_TF32_FRO / 10.0);
/// ```
pub fn tol_tf32x3(k: usize) -> f64 {
    tol_f32_acc(3 * k) + 2f64.powi(-20)
}

/// The rounding of a 16-bit output (`2u`, about 3.5σ of a term that concentrates over all entries);
/// 0 for f32 output.
///
/// ```
/// assert_eq!(tcgemm_testkit::tol_out::<f32>(), 0.0);
/// assert_eq!(tcgemm_testkit::tol_out::<half::bf16>(), 2.0 / 256.0);
/// ```
pub fn tol_out<O: TestElem>() -> f64 {
    if O::NAME == "f32" {
        0.0
    } else {
        2.0 * O::UNIT_ROUNDOFF
    }
}

/// f16/bf16 inputs, f32 accumulation, output `O`: [`tol_f32_acc`] + [`tol_out`].
///
/// ```
/// use tcgemm_testkit::{tol_16, tol_f32_acc};
/// assert_eq!(tol_16::<f32>(512), tol_f32_acc(512));
/// ```
pub fn tol_16<O: TestElem>(k: usize) -> f64 {
    tol_f32_acc(k) + tol_out::<O>()
}

/// f16 accumulation (`Precision::F16Accumulate`), f16 output. The tensor core rounds the accumulator
/// to f16 (`u = 2⁻¹¹`) once per m16n8k16 instruction, i.e. after every 16 products: `k/16` roundings
/// of partial sums whose rms after `t` steps is `√(16t)/3`. Summing the independent rounding errors
/// (variance `u²/3` each, relative to the partial sum) gives a relative error of the final entry
/// `≈ 0.10·u·√k`; the bound takes 8× that plus `2u` for the final output rounding.
///
/// ```
/// assert!(tcgemm_testkit::tol_acc16(1024) < 0.02);
/// ```
pub fn tol_acc16(k: usize) -> f64 {
    let u = 1.0 / 2048.0;
    u * (0.8 * (k.max(1) as f64).sqrt() + 2.0)
}

/// TF32's unit roundoff (10 stored mantissa bits).
pub const U_TF32: f64 = 1.0 / 2048.0;

/// TF32 relative Frobenius bound (the issue's; 5× the expected `≈ 0.82·u`, see tests/tf32.rs).
pub const TOL_TF32_FRO: f64 = 2e-3;

/// The tolerance of GEMM kernel `spec` at inner dimension `k`: its instruction's ([`tol_fp32`]
/// for FFMA, [`TOL_TF32_FRO`] for TF32, [`tol_f32_acc`] for 16-bit inputs with f32 accumulation)
/// plus the rounding of its output element ([`tol_out`]).
///
/// ```
/// let k = tcgemm_kernels::config::find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma").unwrap();
/// assert!(tcgemm_testkit::tol_kernel(k, 4096) > tcgemm_testkit::tol_f32_acc(4096));
/// ```
pub fn tol_kernel(spec: &tcgemm::KernelSpec, k: usize) -> f64 {
    use tcgemm::{Elem, Math};
    let acc = match spec.math {
        Math::Ffma => tol_fp32(k),
        // a 3xTF32 kernel on plain f32 operands computes TF32 products
        Math::MmaTf32 | Math::MmaTf32x3 => TOL_TF32_FRO,
        _ => tol_f32_acc(k),
    };
    acc + match spec.output {
        Elem::F32 => tol_out::<f32>(),
        Elem::F16 => tol_out::<half::f16>(),
        Elem::Bf16 => tol_out::<half::bf16>(),
    }
}
