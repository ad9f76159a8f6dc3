//! Global memory: window conversion, read-only (non-coherent) loads and stores.

use core::arch::asm;

/// `cvta.to.global.u64` — generic address → `.global` window address.
#[inline(always)]
pub fn to_global(generic: u64) -> u64 {
    let g: u64;
    // SAFETY: an address conversion has no preconditions; using the result is what needs care.
    unsafe {
        asm!("cvta.to.global.u64 {0}, {1};", out(reg64) g, in(reg64) generic, options(pure, nomem, nostack))
    };
    g
}

/// `ld.global.nc.f32` — read-only load through the non-coherent path.
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address of memory that no
/// thread writes during the kernel.
#[inline(always)]
pub unsafe fn ld_global_nc_f32(addr: u64) -> f32 {
    let v: f32;
    asm!("ld.global.nc.f32 {0}, [{1}];", out(reg32) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.nc.u16` — read-only 16-bit load (f16/bf16 bits).
///
/// # Safety
/// As [`ld_global_nc_f32`], 2-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_u16(addr: u64) -> u16 {
    let v: u16;
    asm!("ld.global.nc.u16 {0}, [{1}];", out(reg16) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.nc.u32` — read-only 32-bit load of raw bits.
///
/// # Safety
/// As [`ld_global_nc_f32`].
#[inline(always)]
pub unsafe fn ld_global_nc_u32(addr: u64) -> u32 {
    let v: u32;
    asm!("ld.global.nc.u32 {0}, [{1}];", out(reg32) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.nc.v4.f32` — read-only 16-byte load.
///
/// # Safety
/// As [`ld_global_nc_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_v4_f32(addr: u64) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("ld.global.nc.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ld.global.nc.v4.u32` — read-only 16-byte load of raw bits.
///
/// # Safety
/// As [`ld_global_nc_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_v4_u32(addr: u64) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("ld.global.nc.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ld.global.f32` — coherent load (C, which the kernel also writes).
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn ld_global_f32(addr: u64) -> f32 {
    let v: f32;
    asm!("ld.global.f32 {0}, [{1}];", out(reg32) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.v4.f32` — coherent 16-byte load.
///
/// # Safety
/// As [`ld_global_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v4_f32(addr: u64) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("ld.global.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ld.global.u16` — coherent 16-bit load.
///
/// # Safety
/// As [`ld_global_f32`], 2-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_u16(addr: u64) -> u16 {
    let v: u16;
    asm!("ld.global.u16 {0}, [{1}];", out(reg16) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.u32` — coherent 4-byte load of raw bits.
///
/// # Safety
/// As [`ld_global_f32`].
#[inline(always)]
pub unsafe fn ld_global_u32(addr: u64) -> u32 {
    let v: u32;
    asm!("ld.global.u32 {0}, [{1}];", out(reg32) v, in(reg64) addr, options(readonly, nostack));
    v
}

/// `ld.global.v4.u32` — coherent 16-byte load of raw bits.
///
/// # Safety
/// As [`ld_global_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v4_u32(addr: u64) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("ld.global.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `st.global.f32`.
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn st_global_f32(addr: u64, v: f32) {
    asm!("st.global.f32 [{0}], {1};", in(reg64) addr, in(reg32) v, options(nostack));
}

/// `st.global.v4.f32`.
///
/// # Safety
/// As [`st_global_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v4_f32(addr: u64, v: [f32; 4]) {
    asm!("st.global.v4.f32 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg64) addr, in(reg32) v[0], in(reg32) v[1], in(reg32) v[2], in(reg32) v[3],
        options(nostack));
}

/// `st.global.v2.f32`.
///
/// # Safety
/// As [`st_global_f32`], 8-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v2_f32(addr: u64, v: [f32; 2]) {
    asm!("st.global.v2.f32 [{0}], {{{1}, {2}}};",
        in(reg64) addr, in(reg32) v[0], in(reg32) v[1], options(nostack));
}

/// `st.global.u16`.
///
/// # Safety
/// As [`st_global_f32`], 2-byte aligned.
#[inline(always)]
pub unsafe fn st_global_u16(addr: u64, v: u16) {
    asm!("st.global.u16 [{0}], {1};", in(reg64) addr, in(reg16) v, options(nostack));
}

/// `st.global.u32`.
///
/// # Safety
/// As [`st_global_f32`].
#[inline(always)]
pub unsafe fn st_global_u32(addr: u64, v: u32) {
    asm!("st.global.u32 [{0}], {1};", in(reg64) addr, in(reg32) v, options(nostack));
}

/// `st.global.v4.u32`.
///
/// # Safety
/// As [`st_global_f32`], 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v4_u32(addr: u64, v: [u32; 4]) {
    asm!("st.global.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg64) addr, in(reg32) v[0], in(reg32) v[1], in(reg32) v[2], in(reg32) v[3],
        options(nostack));
}

/// `ld.global.nc.v2.u32` — read-only 8-byte load of raw bits.
///
/// # Safety
/// As [`ld_global_nc_f32`], 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_nc_v2_u32(addr: u64) -> [u32; 2] {
    let (a, b): (u32, u32);
    asm!("ld.global.nc.v2.u32 {{{0}, {1}}}, [{2}];",
        out(reg32) a, out(reg32) b, in(reg64) addr, options(readonly, nostack));
    [a, b]
}

/// `st.global.v2.u32`.
///
/// # Safety
/// As [`st_global_f32`], 8-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v2_u32(addr: u64, v: [u32; 2]) {
    asm!("st.global.v2.u32 [{0}], {{{1}, {2}}};",
        in(reg64) addr, in(reg32) v[0], in(reg32) v[1], options(nostack));
}

/// `ld.global.cg.v4.f32` — 16-byte load cached in L2 only (the point of coherence), for data
/// other CTAs of the same kernel wrote (the split-K slices, read after their counter's acquire).
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 16-byte-aligned global address.
#[inline(always)]
pub unsafe fn ld_global_cg_v4_f32(addr: u64) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("ld.global.cg.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `atom.acq_rel.gpu.global.add.u32` — adds `v` at `addr` and returns the old value; releases this
/// thread's prior writes (and those ordered before it by a CTA barrier) and acquires the writes
/// released by earlier adds, at GPU scope.
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn atom_add_acq_rel_gpu_u32(addr: u64, v: u32) -> u32 {
    let old: u32;
    asm!("atom.acq_rel.gpu.global.add.u32 {0}, [{1}], {2};", out(reg32) old, in(reg64) addr,
        in(reg32) v, options(nostack));
    old
}

/// `st.relaxed.gpu.global.u32` — a store other CTAs' atomics see (a counter set back to zero).
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn st_relaxed_gpu_u32(addr: u64, v: u32) {
    asm!("st.relaxed.gpu.global.u32 [{0}], {1};", in(reg64) addr, in(reg32) v, options(nostack));
}

/// `st.release.gpu.global.u32` — stores `v` at `addr` after this thread's prior writes (and those
/// ordered before it by a barrier) at GPU scope: a flag that hands data to other CTAs.
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn st_release_gpu_u32(addr: u64, v: u32) {
    asm!("st.release.gpu.global.u32 [{0}], {1};", in(reg64) addr, in(reg32) v, options(nostack));
}

/// `ld.acquire.gpu.global.u32` — loads the value at `addr`; this thread's later accesses see the
/// writes released before the store it reads, at GPU scope (a flag's reader).
///
/// # Safety
/// Behavior is undefined if `addr` is not a valid, 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn ld_acquire_gpu_u32(addr: u64) -> u32 {
    let v: u32;
    asm!("ld.acquire.gpu.global.u32 {0}, [{1}];", out(reg32) v, in(reg64) addr, options(nostack));
    v
}
