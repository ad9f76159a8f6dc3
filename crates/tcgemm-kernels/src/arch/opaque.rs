//! A value the compiler may not move: `mov.u32` in an `asm!` that is not `pure`, so LLVM neither
//! merges it with another nor hoists it out of a loop. Values computed from its result are then
//! computed where it stands: after a loop, code that depends only on values live through the loop
//! anyway (a thread index, a base address) would otherwise be hoisted before it and hold registers
//! all through it.

use core::arch::asm;

/// `x`, copied where this call stands (`mov.u32`).
#[inline(always)]
pub fn unhoisted(x: u32) -> u32 {
    let r: u32;
    // SAFETY: a register copy has no preconditions.
    unsafe { asm!("mov.u32 {0}, {1};", out(reg32) r, in(reg32) x, options(nomem, nostack)) };
    r
}
