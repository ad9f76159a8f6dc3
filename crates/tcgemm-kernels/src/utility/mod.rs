//! Kernels beside the GEMMs, never chosen by dispatch: instruction-ceiling microbenchmarks and
//! element-wise conversions. Their thread counts are compiled on the host too (the kernel table's
//! launch shapes); the bodies only for `nvptx64`.

pub mod ceiling;
pub mod convert;
