//! Dynamic shared memory: one module-level `.extern .shared` array, sized at launch.
//!
//! Addresses are 32-bit byte offsets in the `.shared` window. Every kernel of a module shares the one
//! declaration; each launch gets its own `smem_bytes` (see `config::KernelSpec::smem_bytes`).

use core::arch::asm;

core::arch::global_asm!(".extern .shared .align 128 .b8 TCGEMM_SMEM[];");

/// Shared-window address of the dynamic shared memory (`mov.u32 %r, TCGEMM_SMEM;`).
#[inline(always)]
pub fn base() -> u32 {
    let r: u32;
    // SAFETY: taking the address of the module's shared array has no preconditions.
    unsafe { asm!("mov.u32 {0}, TCGEMM_SMEM;", out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// `ld.shared.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 4-byte-aligned address inside the launch's shared memory.
#[inline(always)]
pub unsafe fn ld_shared_f32(addr: u32) -> f32 {
    let v: f32;
    asm!("ld.shared.f32 {0}, [{1}];", out(reg32) v, in(reg32) addr, options(readonly, nostack));
    v
}

/// `ld.shared.v4.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 16-byte-aligned address of 16 bytes inside shared memory.
#[inline(always)]
pub unsafe fn ld_shared_v4_f32(addr: u32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("ld.shared.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg32) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ld.shared.u32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 4-byte-aligned address inside shared memory.
#[inline(always)]
pub unsafe fn ld_shared_u32(addr: u32) -> u32 {
    let v: u32;
    asm!("ld.shared.u32 {0}, [{1}];", out(reg32) v, in(reg32) addr, options(readonly, nostack));
    v
}

/// `ld.shared.v2.u32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not an 8-byte-aligned address of 8 bytes inside shared memory.
#[inline(always)]
pub unsafe fn ld_shared_v2_u32(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    asm!("ld.shared.v2.u32 {{{0}, {1}}}, [{2}];",
        out(reg32) a, out(reg32) b, in(reg32) addr, options(readonly, nostack));
    [a, b]
}

/// `st.shared.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 4-byte-aligned address inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_f32(addr: u32, v: f32) {
    asm!("st.shared.f32 [{0}], {1};", in(reg32) addr, in(reg32) v, options(nostack));
}

/// `st.shared.u32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 4-byte-aligned address inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_u32(addr: u32, v: u32) {
    asm!("st.shared.u32 [{0}], {1};", in(reg32) addr, in(reg32) v, options(nostack));
}

/// `st.shared.v2.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not an 8-byte-aligned address of 8 bytes inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_v2_f32(addr: u32, v: [f32; 2]) {
    asm!("st.shared.v2.f32 [{0}], {{{1}, {2}}};",
        in(reg32) addr, in(reg32) v[0], in(reg32) v[1], options(nostack));
}

/// `st.shared.v4.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 16-byte-aligned address of 16 bytes inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_v4_f32(addr: u32, v: [f32; 4]) {
    asm!("st.shared.v4.f32 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg32) addr, in(reg32) v[0], in(reg32) v[1], in(reg32) v[2], in(reg32) v[3],
        options(nostack));
}

/// `st.shared.v4.u32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 16-byte-aligned address of 16 bytes inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_v4_u32(addr: u32, v: [u32; 4]) {
    asm!("st.shared.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg32) addr, in(reg32) v[0], in(reg32) v[1], in(reg32) v[2], in(reg32) v[3],
        options(nostack));
}

/// `st.shared.u16`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a 2-byte-aligned address inside shared memory.
#[inline(always)]
pub unsafe fn st_shared_u16(addr: u32, v: u16) {
    asm!("st.shared.u16 [{0}], {1};", in(reg32) addr, in(reg16) v, options(nostack));
}
