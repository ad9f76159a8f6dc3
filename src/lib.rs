//! tcgemm: a pure-Rust CUDA GEMM library.
#![deny(missing_docs)]

pub mod context;
mod dispatch;
pub mod element;
pub mod error;
pub mod gemm;
mod launch;
pub mod ptx;

pub use context::{Capabilities, Context, ContextOptions, Plan};
pub use element::Element;
pub use error::{Error, Result};
pub use gemm::{Gemm, Precision};
pub use tcgemm_kernels::config::{Elem, KernelSpec, Math, Target};
