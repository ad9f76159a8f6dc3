//! Kernel entry points: the only code that reads `%tid`/`%ctaid`. Each name is listed in
//! `config::KERNELS` with its launch shape; the host launches it with one `GemmParams` by value.

use crate::arch::index::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x};
#[cfg(not(target_feature = "sm_90a"))]
use crate::gemm::{sgemm::sgemm, tf32_seed::tf32_seed};
use crate::params::GemmParams;

/// Declares an `extern "ptx-kernel"` entry that forwards to a threadblock body.
macro_rules! entry {
    ($(#[$doc:meta])* $name:ident => $body:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Launched only by the host crate with the launch shape of its `config::KERNELS` record and
        /// validated parameters.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(p: GemmParams) {
            $body(&p, thread_idx_x(), block_idx_x(), block_idx_y(), grid_dim_y());
        }
    };
}

#[cfg(not(target_feature = "sm_90a"))]
mod sm80 {
    use super::*;
    entry!(/// FP32 SGEMM, A and B not transposed.
        sgemm_nn_128x128x8_t8x8_s2 => sgemm::<false, false>);
    entry!(/// FP32 SGEMM, B transposed.
        sgemm_nt_128x128x8_t8x8_s2 => sgemm::<false, true>);
    entry!(/// FP32 SGEMM, A transposed.
        sgemm_tn_128x128x8_t8x8_s2 => sgemm::<true, false>);
    entry!(/// FP32 SGEMM, A and B transposed.
        sgemm_tt_128x128x8_t8x8_s2 => sgemm::<true, true>);
    entry!(/// TF32 seed kernel (seed 000), A and B not transposed.
        tf32_nn_128x128x16_w32x64_s2_seed => tf32_seed::<false, false>);
    entry!(/// TF32 seed kernel, B transposed.
        tf32_nt_128x128x16_w32x64_s2_seed => tf32_seed::<false, true>);
    entry!(/// TF32 seed kernel, A transposed.
        tf32_tn_128x128x16_w32x64_s2_seed => tf32_seed::<true, false>);
    entry!(/// TF32 seed kernel, A and B transposed.
        tf32_tt_128x128x16_w32x64_s2_seed => tf32_seed::<true, true>);
}
