//! Kernels beside the GEMMs: instruction-ceiling microbenchmarks, element-wise conversions,
//! strided copies and the TF32 split of `Precision::Tf32x3` (never chosen by dispatch), and the thread count of the split-K reduction kernel
//! (whose body is the fused reduction's, `epilogue::splitk`).
//! Their thread counts are compiled on the host too (the kernel table's launch shapes); the bodies
//! only for `nvptx64`.

pub mod ceiling;
pub mod convert;
pub mod copy_rows;
pub mod split_tf32;

/// Threads per block of the split-K reduction kernel (`Family::SplitkReduce`).
pub const REDUCE_THREADS: u32 = 256;

/// Slices whose loads one thread of a split-K sum (the fused tail or the reduction kernel,
/// `epilogue::splitk`) has in flight at once; the host's time model prices the slices past one
/// such round (`dispatch::cost::reduced_slices_ktiles`).
pub const REDUCE_LOADS_IN_FLIGHT: u32 = 8;
