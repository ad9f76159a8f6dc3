//! `ldmatrix`: shared memory → registers, 8×8 tiles of 16-bit elements, one row address per lane.

use core::arch::asm;

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` — four 8×8 tiles; lanes 8i..8i+7 give tile i's rows.
///
/// # Safety
/// Behavior is undefined unless all 32 lanes execute it convergently and each lane's `addr` is a
/// 16-byte-aligned shared address of an 8-element row.
#[inline(always)]
pub unsafe fn shared_to_reg_x4(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg32) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` — as [`shared_to_reg_x4`], each tile transposed.
///
/// # Safety
/// As [`shared_to_reg_x4`].
#[inline(always)]
pub unsafe fn shared_to_reg_x4_trans(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg32) addr,
        options(readonly, nostack));
    [a, b, c, d]
}

/// `ldmatrix.sync.aligned.m8n8.x2.shared.b16` — two 8×8 tiles (lanes 0..15 give the addresses).
///
/// # Safety
/// As [`shared_to_reg_x4`].
#[inline(always)]
pub unsafe fn shared_to_reg_x2(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    asm!("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{0}, {1}}}, [{2}];",
        out(reg32) a, out(reg32) b, in(reg32) addr, options(readonly, nostack));
    [a, b]
}

/// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`.
///
/// # Safety
/// As [`shared_to_reg_x4`].
#[inline(always)]
pub unsafe fn shared_to_reg_x2_trans(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    asm!("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{0}, {1}}}, [{2}];",
        out(reg32) a, out(reg32) b, in(reg32) addr, options(readonly, nostack));
    [a, b]
}

/// `ldmatrix.sync.aligned.m8n8.x1.shared.b16` — one 8×8 tile (lanes 0..7 give the addresses).
///
/// # Safety
/// As [`shared_to_reg_x4`].
#[inline(always)]
pub unsafe fn shared_to_reg_x1(addr: u32) -> u32 {
    let a: u32;
    asm!("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{0}}}, [{1}];",
        out(reg32) a, in(reg32) addr, options(readonly, nostack));
    a
}

/// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16`.
///
/// # Safety
/// As [`shared_to_reg_x4`].
#[inline(always)]
pub unsafe fn shared_to_reg_x1_trans(addr: u32) -> u32 {
    let a: u32;
    asm!("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{{0}}}, [{1}];",
        out(reg32) a, in(reg32) addr, options(readonly, nostack));
    a
}
