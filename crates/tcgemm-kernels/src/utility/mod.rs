//! Kernels beside the GEMMs: instruction-ceiling microbenchmarks, element-wise conversions (never
//! chosen by dispatch) and the split-K reduction (run by the host after a GEMM split along K).
//! Their thread counts are compiled on the host too (the kernel table's launch shapes); the bodies
//! only for `nvptx64`.

pub mod ceiling;
pub mod convert;
pub mod splitk;
