//! Numeric conversions.

use core::arch::asm;

/// `cvt.rna.tf32.f32` — rounds an f32 to TF32 (10-bit mantissa), to nearest, ties away from zero.
/// The result is an f32 bit pattern with the low 13 mantissa bits zero.
#[inline(always)]
pub fn f32_to_tf32_rna(x: f32) -> u32 {
    let r: u32;
    // SAFETY: a register conversion has no preconditions.
    unsafe {
        asm!("cvt.rna.tf32.f32 {0}, {1};", out(reg32) r, in(reg32) x, options(pure, nomem, nostack))
    };
    r
}

/// Rounds an f32 `mma` operand to TF32, to nearest. On sm_90 and later one instruction,
/// `cvt.rn.tf32.f32` (ties to even, as TMA rounds on the Hopper path). Before sm_90, where
/// `cvt.rna.tf32.f32` is three instructions, two: half a TF32 ulp is added to the bits of a
/// finite value and the tensor core, which reads only the top 19 bits of a TF32 operand,
/// truncates the rest (ties away from zero; CUTLASS's `round_half_ulp_truncate`). `tests/tf32.rs`
/// checks the kernels' results bit for bit against the rule of the device's machine code.
/// Infinities and NaNs pass unchanged. The low 13 bits of the result may not be zero: use it only
/// as an `mma` operand.
#[inline(always)]
pub fn f32_to_tf32_mma_operand(x: f32) -> u32 {
    let r: u32;
    // SAFETY: a register conversion has no preconditions.
    #[cfg(target_feature = "sm_90")]
    unsafe {
        asm!("cvt.rn.tf32.f32 {0}, {1};", out(reg32) r, in(reg32) x, options(pure, nomem, nostack))
    };
    // SAFETY: register arithmetic has no preconditions.
    #[cfg(not(target_feature = "sm_90"))]
    unsafe {
        asm!(
            "{{ .reg .pred p; .reg .f32 m; .reg .b32 t;",
            "abs.f32 m, {1};",
            "setp.lt.f32 p, m, 0f7F800000;",
            "add.u32 t, {1}, 4096;",
            "selp.b32 {0}, t, {1}, p; }}",
            out(reg32) r, in(reg32) x, options(pure, nomem, nostack)
        )
    };
    r
}

/// `cvt.rn.f16x2.f32` — packs two f32 into f16x2, round to nearest even: `lo` in bits 0..16.
#[inline(always)]
pub fn f32x2_to_f16x2_rn(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: a register conversion has no preconditions.
    unsafe {
        asm!("cvt.rn.f16x2.f32 {0}, {1}, {2};", out(reg32) r, in(reg32) hi, in(reg32) lo, options(pure, nomem, nostack))
    };
    r
}

/// `cvt.rn.bf16x2.f32` — packs two f32 into bf16x2, round to nearest even: `lo` in bits 0..16.
#[inline(always)]
pub fn f32x2_to_bf16x2_rn(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: a register conversion has no preconditions.
    unsafe {
        asm!("cvt.rn.bf16x2.f32 {0}, {1}, {2};", out(reg32) r, in(reg32) hi, in(reg32) lo, options(pure, nomem, nostack))
    };
    r
}

/// `cvt.f32.f16` — widens an f16 (bit pattern) to f32 exactly.
#[inline(always)]
pub fn f16_to_f32(h: u16) -> f32 {
    let r: f32;
    // SAFETY: a register conversion has no preconditions.
    unsafe {
        asm!("cvt.f32.f16 {0}, {1};", out(reg32) r, in(reg16) h, options(pure, nomem, nostack))
    };
    r
}

/// Widens a bf16 (bit pattern) to f32 exactly (a shift: bf16 is the top half of an f32).
#[inline(always)]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// `fma.rn.f32` — `a·b + c` with a single rounding.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    let r: f32;
    // SAFETY: register arithmetic has no preconditions.
    unsafe {
        asm!("fma.rn.f32 {0}, {1}, {2}, {3};", out(reg32) r, in(reg32) a, in(reg32) b, in(reg32) c, options(pure, nomem, nostack))
    };
    r
}

/// `shf.r.wrap.b32` — the low 32 bits of the 64-bit `hi:lo` shifted right by `bits % 32`.
#[inline(always)]
pub fn funnel_shift_right(lo: u32, hi: u32, bits: u32) -> u32 {
    let r: u32;
    // SAFETY: arithmetic on registers only.
    unsafe {
        asm!("shf.r.wrap.b32 {0}, {1}, {2}, {3};", out(reg32) r, in(reg32) lo, in(reg32) hi,
            in(reg32) bits, options(pure, nomem, nostack))
    };
    r
}
