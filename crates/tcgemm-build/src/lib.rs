//! Builds tcgemm-kernels to PTX.
