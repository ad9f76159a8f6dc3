//! tcgemm: a pure-Rust CUDA GEMM library.
#![deny(missing_docs)]
