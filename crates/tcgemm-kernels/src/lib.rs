//! tcgemm's device kernels, written in `#![no_std]` Rust and compiled to PTX by `tcgemm-build`.
//!
//! The crate has two faces:
//! - on `nvptx64-nvidia-cuda` it holds the device code, by level: `arch` (one wrapper per PTX
//!   instruction) → `warp` (MMA kinds and fragment loads) → [`threadblock`] (rasterization,
//!   global → shared copies, the mainloop of each kernel family) → `epilogue` (`alpha·acc + beta·C`
//!   and the output element's conversion) → `kernels` (the `extern "ptx-kernel"` entry points, the
//!   only readers of special registers), plus the [`utility`] kernels (ceilings, conversions);
//! - on the host it is an ordinary `no_std` library holding what both sides must agree on: the
//!   parameter blocks ([`params`]), the vocabulary of kernels ([`config`]) and the [`catalog`] that
//!   declares every kernel once and from which the kernel table ([`config::KERNELS`]) and the entry
//!   points are both produced, with the shared-memory and thread rules of each family's body
//!   ([`threadblock`]). The host crate and the PTX builder read that table.
//!
//! ```
//! use tcgemm_kernels::config::{find_kernel, KERNELS};
//! let k = find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
//! assert_eq!(k.threads, 256);
//! assert!(KERNELS.len() >= 4);
//! ```
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features, unused_features))]

/// Repeats `$body` with `$j: u32` bound to each listed value (a loop LLVM does not fully unroll
/// would index a register array in local memory).
#[cfg(target_arch = "nvptx64")]
#[allow(unused_macros)] // used by the sm_90a module only
macro_rules! unroll {
    ($j:ident in [$($n:literal),*] $body:block) => {
        $({
            let $j: u32 = $n;
            $body
        })*
    };
}

pub mod catalog;
pub mod config;
pub mod machine_code;
pub mod params;
pub mod threadblock;
pub mod utility;

#[cfg(target_arch = "nvptx64")]
pub mod arch;
#[cfg(target_arch = "nvptx64")]
pub mod epilogue;
#[cfg(target_arch = "nvptx64")]
mod kernels;
/// On the host only the fragment arithmetic that host tests check ([`warp::wgmma_register_a`],
/// [`warp::mma_sync_tf32::permuted_row`]).
pub mod warp;

/// Traps the thread: device code has no unwinding and no output channel.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}
