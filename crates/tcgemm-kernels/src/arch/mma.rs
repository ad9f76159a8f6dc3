//! Warp-wide matrix multiply-accumulate (`mma.sync`), named by shape, layouts and types
//! (`D`, `A`, `B`, `C`). Fragment maps (lane = 4·group + quad):
//! - m16n8k8 tf32: `a[0]=A[g][q] a[1]=A[g+8][q] a[2]=A[g][q+4] a[3]=A[g+8][q+4]`, `b[0]=B[q][g] b[1]=B[q+4][g]`;
//! - m16n8k16 f16/bf16 (pairs of 16-bit values per register): `a[0]=A[g][2q..2q+2] a[1]=A[g+8][2q..]
//!   a[2]=A[g][2q+8..] a[3]=A[g+8][2q+8..]`, `b[0]=B[2q..2q+2][g] b[1]=B[2q+8..][g]`;
//! - C/D (both shapes): `c[0]=C[g][2q] c[1]=C[g][2q+1] c[2]=C[g+8][2q] c[3]=C[g+8][2q+1]`.

use core::arch::asm;

/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` — `d = a·b + d`.
///
/// # Safety
/// Behavior is undefined unless all 32 lanes execute it convergently.
#[inline(always)]
pub unsafe fn mma_m16n8k8_row_col_f32_tf32_tf32_f32(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    asm!("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};",
        inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3],
        in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3],
        in(reg32) b[0], in(reg32) b[1],
        options(pure, nomem, nostack));
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` — `d = a·b + d`.
///
/// # Safety
/// As [`mma_m16n8k8_row_col_f32_tf32_tf32_f32`].
#[inline(always)]
pub unsafe fn mma_m16n8k16_row_col_f32_f16_f16_f32(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    asm!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};",
        inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3],
        in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3],
        in(reg32) b[0], in(reg32) b[1],
        options(pure, nomem, nostack));
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` — `d = a·b + d`.
///
/// # Safety
/// As [`mma_m16n8k8_row_col_f32_tf32_tf32_f32`].
#[inline(always)]
pub unsafe fn mma_m16n8k16_row_col_f32_bf16_bf16_f32(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    asm!("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};",
        inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3],
        in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3],
        in(reg32) b[0], in(reg32) b[1],
        options(pure, nomem, nostack));
}

/// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16` — `d = a·b + d`, f16 accumulators packed in
/// pairs: `d[0] = {C[g][2q], C[g][2q+1]}`, `d[1] = {C[g+8][2q], C[g+8][2q+1]}`.
///
/// # Safety
/// As [`mma_m16n8k8_row_col_f32_tf32_tf32_f32`].
#[inline(always)]
pub unsafe fn mma_m16n8k16_row_col_f16_f16_f16_f16(d: &mut [u32; 2], a: [u32; 4], b: [u32; 2]) {
    asm!("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{{0}, {1}}}, {{{2}, {3}, {4}, {5}}}, {{{6}, {7}}}, {{{0}, {1}}};",
        inout(reg32) d[0], inout(reg32) d[1],
        in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3],
        in(reg32) b[0], in(reg32) b[1],
        options(pure, nomem, nostack));
}
