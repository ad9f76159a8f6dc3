//! `cp.async`: asynchronous global → shared copies (sm_80+), grouped and awaited.

use core::arch::asm;

/// `cp.async.ca.shared.global [dst], [src], 4;` — 4 bytes, cached in L1.
///
/// # Safety
/// Behavior is undefined if `dst` is not a 4-byte-aligned shared address of the launch or `src` is not
/// a valid 4-byte-aligned global address.
#[inline(always)]
pub unsafe fn global_to_shared_ca_4(dst: u32, src: u64) {
    asm!("cp.async.ca.shared.global [{0}], [{1}], 4;", in(reg32) dst, in(reg64) src, options(nostack));
}

/// `cp.async.ca.shared.global [dst], [src], 8;` — 8 bytes, cached in L1.
///
/// # Safety
/// As [`global_to_shared_ca_4`], 8-byte aligned.
#[inline(always)]
pub unsafe fn global_to_shared_ca_8(dst: u32, src: u64) {
    asm!("cp.async.ca.shared.global [{0}], [{1}], 8;", in(reg32) dst, in(reg64) src, options(nostack));
}

/// `cp.async.cg.shared.global [dst], [src], 16;` — 16 bytes, bypassing L1.
///
/// # Safety
/// As [`global_to_shared_ca_4`], 16-byte aligned.
#[inline(always)]
pub unsafe fn global_to_shared_cg_16(dst: u32, src: u64) {
    asm!("cp.async.cg.shared.global [{0}], [{1}], 16;", in(reg32) dst, in(reg64) src, options(nostack));
}

/// `cp.async.cg.shared.global [dst], [src], 16, src_bytes;` — copies `src_bytes` (0..=16) and
/// zero-fills the rest of the 16 destination bytes (the tail form). With `src_bytes == 0` nothing is
/// read, but `src` should still be a valid address (pass the operand's base).
///
/// # Safety
/// As [`global_to_shared_cg_16`]; `src_bytes ≤ 16` and the first `src_bytes` at `src` readable.
#[inline(always)]
pub unsafe fn global_to_shared_cg_16_zfill(dst: u32, src: u64, src_bytes: u32) {
    asm!("cp.async.cg.shared.global [{0}], [{1}], 16, {2};",
        in(reg32) dst, in(reg64) src, in(reg32) src_bytes, options(nostack));
}

/// `cp.async.ca.shared.global [dst], [src], 4, src_bytes;` — 4-byte tail form (0 or 4 bytes read).
///
/// # Safety
/// As [`global_to_shared_ca_4`]; `src_bytes ≤ 4`.
#[inline(always)]
pub unsafe fn global_to_shared_ca_4_zfill(dst: u32, src: u64, src_bytes: u32) {
    asm!("cp.async.ca.shared.global [{0}], [{1}], 4, {2};",
        in(reg32) dst, in(reg64) src, in(reg32) src_bytes, options(nostack));
}

/// `cp.async.commit_group;` — closes the group of copies issued since the last commit.
///
/// # Safety
/// No preconditions beyond running on sm_80+.
#[inline(always)]
pub unsafe fn commit_group() {
    asm!("cp.async.commit_group;", options(nostack));
}

/// `cp.async.wait_group N;` — waits until at most `N` of this thread's groups are pending.
///
/// # Safety
/// No preconditions beyond running on sm_80+. A barrier is still needed before other threads read.
#[inline(always)]
pub unsafe fn wait_group<const N: u32>() {
    asm!("cp.async.wait_group {n};", n = const N, options(nostack));
}

/// `cp.async.wait_all;` — waits for every copy this thread issued.
///
/// # Safety
/// No preconditions beyond running on sm_80+.
#[inline(always)]
pub unsafe fn wait_all() {
    asm!("cp.async.wait_all;", options(nostack));
}

/// `cp.async.wait_group n;` for an `n` known after inlining (PTX needs an immediate): `n` in 0..=7.
///
/// # Safety
/// As [`wait_group`].
#[inline(always)]
pub unsafe fn wait_group_n(n: u32) {
    match n {
        0 => wait_group::<0>(),
        1 => wait_group::<1>(),
        2 => wait_group::<2>(),
        3 => wait_group::<3>(),
        4 => wait_group::<4>(),
        5 => wait_group::<5>(),
        6 => wait_group::<6>(),
        _ => wait_group::<7>(),
    }
}
