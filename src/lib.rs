//! tcgemm: a pure-Rust CUDA GEMM library.
//!
//! `C = alpha·op(A)·op(B) + beta·C` on row-major matrices, optionally strided-batched, for `f32`
//! (exact FFMA or TF32 tensor cores), `f16` and `bf16` (tensor cores, f32 accumulation) inputs. The
//! kernels are `#![no_std]` Rust compiled to PTX (crate `tcgemm-kernels`), embedded in this crate
//! ([`images`]: PTX and machine code) and driven through [cudarc](https://docs.rs/cudarc).
//!
//! - [`Gemm`] describes a call (shapes, transposes, leading dimensions, batch strides, scalars,
//!   [`Precision`]); [`Gemm::validate`] checks it against buffer lengths on the CPU.
//! - [`Context`] owns a device, a stream and the loaded kernels; [`Context::gemm`] resolves the
//!   call into a [`Problem`], picks a kernel that [`can_implement`] it, enqueues it without
//!   waiting and returns the [`Plan`] it ran. [`Context::plan`] and [`Context::plan_for`] say the
//!   same without launching; [`Context::gemm_raw`] takes raw device pointers.
//! - Every failure is an [`Error`] whose message says what to change; a machine without CUDA
//!   gets [`Error::NoDevice`], never a panic.
//!
//! ```no_run
//! use tcgemm::{Context, Gemm};
//! let ctx = Context::new(0)?;
//! let s = ctx.stream();
//! let (m, n, k) = (512, 256, 128);
//! let a = s.clone_htod(&vec![0.5f32; m * k])?;
//! let b = s.clone_htod(&vec![2.0f32; k * n])?;
//! let mut c = s.alloc_zeros::<f32>(m * n)?;
//! ctx.gemm(&Gemm::new(m, n, k), &a, &b, &mut c)?;
//! let c = s.clone_dtoh(&c)?; // waits for the GEMM
//! assert!(c.iter().all(|&x| x == 128.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod calls;
mod ceiling;
pub mod context;
mod convert;
mod dispatch;
mod driver;
pub mod element;
pub mod error;
pub mod gemm;
pub mod images;
mod launch;
mod modules;
mod plan;
mod problem;
mod raw;
mod rules;
mod splitk;
mod staging;
mod streamk;
mod tail;
#[cfg(test)]
mod test_support;
mod tf32x3;
mod tma;
pub mod tune;
mod workspace;

pub use context::{Capabilities, Context, ContextOptions};
pub use element::Element;
pub use error::{Error, Result};
pub use gemm::{Gemm, Precision};
pub use plan::Plan;
pub use problem::{Alignment, Operand, OperandLayout, Problem};
pub use raw::RawBuffer;
pub use rules::{can_implement, OperandPart, Reason};
pub use splitk::Split;
pub use staging::Staged;
pub use tail::Tail;
pub use tcgemm_kernels::config::{Elem, Family, GemmShape, KernelSpec, Math, Role, Target};
