//! tcgemm's device kernels, written in `#![no_std]` Rust and compiled to PTX by `tcgemm-build`.
//!
//! The crate has two faces:
//! - on `nvptx64-nvidia-cuda` it holds the device layer ([`arch`]: one wrapper per PTX instruction),
//!   the GEMM building blocks and the `extern "ptx-kernel"` entry points;
//! - on the host it is an ordinary `no_std` library holding what both sides must agree on: the kernel
//!   parameter block ([`params::GemmParams`]) and the table of kernels with their tile shapes and launch
//!   shapes ([`config::KERNELS`]). The host crate and the PTX builder read that table, so a tile size is
//!   defined exactly once.
//!
//! ```
//! use tcgemm_kernels::config::{find_kernel, KERNELS};
//! let k = find_kernel("sgemm_nn_128x128x8_t8x8_s2").unwrap();
//! assert_eq!(k.threads, 256);
//! assert!(KERNELS.len() >= 4);
//! ```
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features, unused_features))]

pub mod config;
pub mod machine_code;
pub mod params;

#[cfg(target_arch = "nvptx64")]
pub mod arch;
#[cfg(target_arch = "nvptx64")]
pub mod elementwise;
#[cfg(target_arch = "nvptx64")]
pub mod gemm;
#[cfg(target_arch = "nvptx64")]
mod kernels;

/// Traps the thread: device code has no unwinding and no output channel.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}
