//! Kernel entry points: the only code that reads `%tid`/`%ctaid`. Each name is listed in
//! `config::KERNELS` with its launch shape; the host launches it with one `GemmParams` by value.

/// Declares an `extern "ptx-kernel"` entry that forwards to a threadblock body.
#[allow(unused_macros)] // the sm_90a module has no sm_80 entries
macro_rules! entry {
    ($(#[$doc:meta])* $name:ident => $body:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Launched only by the host crate with the launch shape of its `config::KERNELS` record and
        /// validated parameters.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(p: $crate::params::GemmParams) {
            use $crate::arch::index::{block_idx_x, block_idx_y, block_idx_z, grid_dim_y, thread_idx_x};
            // batch item: grid y, then z for batches beyond the 65535 limit of y
            let z = block_idx_y() + block_idx_z() * grid_dim_y();
            $body(&p, thread_idx_x(), block_idx_x(), z);
        }
    };
}

#[cfg(not(target_feature = "sm_90a"))]
mod sm80 {
    use crate::gemm::{
        ceiling,
        mma16::{mma16, Bf16, F16Acc16, F16},
        mma_tf32::mma_tf32,
        sgemm::sgemm,
        tf32_seed::tf32_seed,
    };
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
    entry!(/// F16 inputs, F32 output, layout nn: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f32_nn_128x128x32_w64x32_s4 => mma16::<F16, true, false, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout nt: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f32_nt_128x128x32_w64x32_s4 => mma16::<F16, true, false, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout tn: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f32_tn_128x128x32_w64x32_s4 => mma16::<F16, true, true, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout tt: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f32_tt_128x128x32_w64x32_s4 => mma16::<F16, true, true, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout nn: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f16_nn_128x128x32_w64x32_s4 => mma16::<F16, false, false, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout nt: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f16_nt_128x128x32_w64x32_s4 => mma16::<F16, false, false, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout tn: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f16_tn_128x128x32_w64x32_s4 => mma16::<F16, false, true, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout tt: 128×128×32 block, 64×32 warps, 4 stages.
        f16_f16_tt_128x128x32_w64x32_s4 => mma16::<F16, false, true, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout nn: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_f32_nn_128x128x32_w64x32_s4 => mma16::<Bf16, true, false, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout nt: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_f32_nt_128x128x32_w64x32_s4 => mma16::<Bf16, true, false, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout tn: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_f32_tn_128x128x32_w64x32_s4 => mma16::<Bf16, true, true, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout tt: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_f32_tt_128x128x32_w64x32_s4 => mma16::<Bf16, true, true, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nn: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_bf16_nn_128x128x32_w64x32_s4 => mma16::<Bf16, false, false, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nt: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_bf16_nt_128x128x32_w64x32_s4 => mma16::<Bf16, false, false, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tn: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_bf16_tn_128x128x32_w64x32_s4 => mma16::<Bf16, false, true, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tt: 128×128×32 block, 64×32 warps, 4 stages.
        bf16_bf16_tt_128x128x32_w64x32_s4 => mma16::<Bf16, false, true, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout nn: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f32_nn_128x256x32_w64x64_s4 => mma16::<F16, true, false, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F32 output, layout nt: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f32_nt_128x256x32_w64x64_s4 => mma16::<F16, true, false, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F32 output, layout tn: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f32_tn_128x256x32_w64x64_s4 => mma16::<F16, true, true, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F32 output, layout tt: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f32_tt_128x256x32_w64x64_s4 => mma16::<F16, true, true, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F16 output, layout nn: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f16_nn_128x256x32_w64x64_s4 => mma16::<F16, false, false, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F16 output, layout nt: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f16_nt_128x256x32_w64x64_s4 => mma16::<F16, false, false, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F16 output, layout tn: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f16_tn_128x256x32_w64x64_s4 => mma16::<F16, false, true, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// F16 inputs, F16 output, layout tt: 128×256×32 block, 64×64 warps, 4 stages.
        f16_f16_tt_128x256x32_w64x64_s4 => mma16::<F16, false, true, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, F32 output, layout nn: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_f32_nn_128x256x32_w64x64_s4 => mma16::<Bf16, true, false, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, F32 output, layout nt: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_f32_nt_128x256x32_w64x64_s4 => mma16::<Bf16, true, false, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, F32 output, layout tn: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_f32_tn_128x256x32_w64x64_s4 => mma16::<Bf16, true, true, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, F32 output, layout tt: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_f32_tt_128x256x32_w64x64_s4 => mma16::<Bf16, true, true, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nn: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_bf16_nn_128x256x32_w64x64_s4 => mma16::<Bf16, false, false, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nt: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_bf16_nt_128x256x32_w64x64_s4 => mma16::<Bf16, false, false, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tn: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_bf16_tn_128x256x32_w64x64_s4 => mma16::<Bf16, false, true, false, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tt: 128×256×32 block, 64×64 warps, 4 stages.
        bf16_bf16_tt_128x256x32_w64x64_s4 => mma16::<Bf16, false, true, true, 128, 256, 32, 2, 4, 4, 4, 8, 256>);
    entry!(/// Instruction ceiling: FFMA only.
        ceiling_ffma_f32 => ceiling::ffma);
    entry!(/// Instruction ceiling: `mma.sync.m16n8k8` tf32 only.
        ceiling_mma_m16n8k8_tf32 => ceiling::mma_tf32);
    entry!(/// Instruction ceiling: `mma.sync.m16n8k16` f16 only.
        ceiling_mma_m16n8k16_f16 => ceiling::mma_f16);
    entry!(/// Instruction ceiling: `mma.sync.m16n8k16` bf16 only.
        ceiling_mma_m16n8k16_bf16 => ceiling::mma_bf16);
    entry!(/// TF32 nn: 128x256x32_w64x64_s3.
        tf32_nn_128x256x32_w64x64_s3 => mma_tf32::<false, false, 128, 256, 2, 4, 3, 4, 8, 256>);
    entry!(/// TF32 nt: 128x256x32_w64x64_s3.
        tf32_nt_128x256x32_w64x64_s3 => mma_tf32::<false, true, 128, 256, 2, 4, 3, 4, 8, 256>);
    entry!(/// TF32 tn: 128x256x32_w64x64_s3.
        tf32_tn_128x256x32_w64x64_s3 => mma_tf32::<true, false, 128, 256, 2, 4, 3, 4, 8, 256>);
    entry!(/// TF32 tt: 128x256x32_w64x64_s3.
        tf32_tt_128x256x32_w64x64_s3 => mma_tf32::<true, true, 128, 256, 2, 4, 3, 4, 8, 256>);
    entry!(/// TF32 nn: 128x128x32_w64x32_s3.
        tf32_nn_128x128x32_w64x32_s3 => mma_tf32::<false, false, 128, 128, 2, 4, 3, 4, 4, 256>);
    entry!(/// TF32 nt: 128x128x32_w64x32_s3.
        tf32_nt_128x128x32_w64x32_s3 => mma_tf32::<false, true, 128, 128, 2, 4, 3, 4, 4, 256>);
    entry!(/// TF32 tn: 128x128x32_w64x32_s3.
        tf32_tn_128x128x32_w64x32_s3 => mma_tf32::<true, false, 128, 128, 2, 4, 3, 4, 4, 256>);
    entry!(/// TF32 tt: 128x128x32_w64x32_s3.
        tf32_tt_128x128x32_w64x32_s3 => mma_tf32::<true, true, 128, 128, 2, 4, 3, 4, 4, 256>);

    entry!(/// F16 inputs, F16 accumulation and output, layout nn: 128×128×32, 64×32 warps, 4 stages.
        f16_f16_nn_128x128x32_w64x32_s4_acc16 => mma16::<F16Acc16, false, false, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 accumulation and output, layout nt: 128×128×32, 64×32 warps, 4 stages.
        f16_f16_nt_128x128x32_w64x32_s4_acc16 => mma16::<F16Acc16, false, false, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 accumulation and output, layout tn: 128×128×32, 64×32 warps, 4 stages.
        f16_f16_tn_128x128x32_w64x32_s4_acc16 => mma16::<F16Acc16, false, true, false, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F16 accumulation and output, layout tt: 128×128×32, 64×32 warps, 4 stages.
        f16_f16_tt_128x128x32_w64x32_s4_acc16 => mma16::<F16Acc16, false, true, true, 128, 128, 32, 2, 4, 4, 4, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout nn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f32_nn_64x64x32_w16x32_s4 => mma16::<F16, true, false, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout nt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f32_nt_64x64x32_w16x32_s4 => mma16::<F16, true, false, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout tn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f32_tn_64x64x32_w16x32_s4 => mma16::<F16, true, true, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F32 output, layout tt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f32_tt_64x64x32_w16x32_s4 => mma16::<F16, true, true, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout nn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f16_nn_64x64x32_w16x32_s4 => mma16::<F16, false, false, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout nt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f16_nt_64x64x32_w16x32_s4 => mma16::<F16, false, false, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout tn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f16_tn_64x64x32_w16x32_s4 => mma16::<F16, false, true, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// F16 inputs, F16 output, layout tt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        f16_f16_tt_64x64x32_w16x32_s4 => mma16::<F16, false, true, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout nn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_f32_nn_64x64x32_w16x32_s4 => mma16::<Bf16, true, false, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout nt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_f32_nt_64x64x32_w16x32_s4 => mma16::<Bf16, true, false, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout tn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_f32_tn_64x64x32_w16x32_s4 => mma16::<Bf16, true, true, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, F32 output, layout tt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_f32_tt_64x64x32_w16x32_s4 => mma16::<Bf16, true, true, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_bf16_nn_64x64x32_w16x32_s4 => mma16::<Bf16, false, false, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout nt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_bf16_nt_64x64x32_w16x32_s4 => mma16::<Bf16, false, false, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tn: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_bf16_tn_64x64x32_w16x32_s4 => mma16::<Bf16, false, true, false, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    entry!(/// BF16 inputs, BF16 output, layout tt: 64×64×32 block (small and batched problems), 16×32 warps, 4 stages.
        bf16_bf16_tt_64x64x32_w16x32_s4 => mma16::<Bf16, false, true, true, 64, 64, 32, 4, 2, 4, 1, 4, 256>);
    /// Declares a conversion entry point (grid-stride, 1-D grid).
    macro_rules! convert_entry {
        ($(#[$doc:meta])* $name:ident => $body:path) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// Launched only by `Context::convert` with validated buffers.
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $name(p: crate::params::GemmParams) {
                use crate::arch::index::{block_idx_x, grid_dim_x, thread_idx_x};
                $body(&p, thread_idx_x(), block_idx_x(), grid_dim_x());
            }
        };
    }
    convert_entry!(/// f32 → f16, round to nearest even.
        convert_f32_to_f16 => crate::elementwise::narrow::<false>);
    convert_entry!(/// f32 → bf16, round to nearest even.
        convert_f32_to_bf16 => crate::elementwise::narrow::<true>);
    convert_entry!(/// f16 → f32, exact.
        convert_f16_to_f32 => crate::elementwise::widen::<false>);
    convert_entry!(/// bf16 → f32, exact.
        convert_bf16_to_f32 => crate::elementwise::widen::<true>);
}

/// Declares an `extern "ptx-kernel"` entry taking one [`TmaParams`](crate::params::TmaParams) and
/// forwarding its `GemmParams` plus the generic address of the parameter block (the tensor maps
/// stay in kernel-parameter memory, where TMA reads them) to a threadblock body.
#[cfg(target_feature = "sm_90a")]
macro_rules! entry_tma {
    ($(#[$doc:meta])* $name:ident => $body:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Launched only by the host crate with the launch shape of its `config::KERNELS` record,
        /// validated parameters and tensor maps encoded for them.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(p: $crate::params::TmaParams) {
            use $crate::arch::index::{block_idx_x, thread_idx_x};
            let maps: u64;
            // SAFETY: taking the generic address of this kernel's own parameter block.
            core::arch::asm!(
                concat!("mov.b64 {0}, ", stringify!($name), "_param_0;\n\tcvta.param.u64 {0}, {0};"),
                out(reg64) maps,
                options(pure, nomem, nostack)
            );
            // persistent: the body derives tile and batch item from its work index
            $body(&p.p, maps, thread_idx_x(), block_idx_x());
        }
    };
}

#[cfg(target_feature = "sm_90a")]
mod sm90 {
    use crate::gemm::hopper::{hopper_gemm, Tf32};
    use crate::gemm::mma16::{Bf16, F16};
    entry_tma!(/// F16 inputs, F32 output, layout nn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f32_nn_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, true, false, false, 4>);
    entry_tma!(/// F16 inputs, F32 output, layout nt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f32_nt_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, true, false, true, 4>);
    entry_tma!(/// F16 inputs, F32 output, layout tn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f32_tn_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, true, true, false, 4>);
    entry_tma!(/// F16 inputs, F32 output, layout tt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f32_tt_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, true, true, true, 4>);
    entry_tma!(/// F16 inputs, F16 output, layout nn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f16_nn_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, false, false, false, 4>);
    entry_tma!(/// F16 inputs, F16 output, layout nt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f16_nt_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, false, false, true, 4>);
    entry_tma!(/// F16 inputs, F16 output, layout tn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f16_tn_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, false, true, false, 4>);
    entry_tma!(/// F16 inputs, F16 output, layout tt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        f16_f16_tt_128x256x64_w64x256_s4_tma => hopper_gemm::<F16, false, true, true, 4>);
    entry_tma!(/// BF16 inputs, F32 output, layout nn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_f32_nn_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, true, false, false, 4>);
    entry_tma!(/// BF16 inputs, F32 output, layout nt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_f32_nt_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, true, false, true, 4>);
    entry_tma!(/// BF16 inputs, F32 output, layout tn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_f32_tn_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, true, true, false, 4>);
    entry_tma!(/// BF16 inputs, F32 output, layout tt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_f32_tt_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, true, true, true, 4>);
    entry_tma!(/// BF16 inputs, BF16 output, layout nn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_bf16_nn_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, false, false, false, 4>);
    entry_tma!(/// BF16 inputs, BF16 output, layout nt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_bf16_nt_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, false, false, true, 4>);
    entry_tma!(/// BF16 inputs, BF16 output, layout tn: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_bf16_tn_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, false, true, false, 4>);
    entry_tma!(/// BF16 inputs, BF16 output, layout tt: TMA + wgmma, 128×256×64, 4 stages, warp-specialized.
        bf16_bf16_tt_128x256x64_w64x256_s4_tma => hopper_gemm::<Bf16, false, true, true, 4>);
    entry_tma!(/// TF32 (f32 inputs and output), layout nn: TMA + wgmma, 128×256×32, 4 stages, warp-specialized;
        /// B's k-tiles transposed in shared memory.
        tf32_nn_128x256x32_w64x256_s4_tma => hopper_gemm::<Tf32, true, false, false, 4>);
    entry_tma!(/// TF32 (f32 inputs and output), layout nt: TMA + wgmma, 128×256×32, 4 stages, warp-specialized.
        tf32_nt_128x256x32_w64x256_s4_tma => hopper_gemm::<Tf32, true, false, true, 4>);
    entry_tma!(/// TF32 (f32 inputs and output), layout tn: TMA + wgmma, 128×256×32, 4 stages, warp-specialized;
        /// A's and B's k-tiles transposed in shared memory.
        tf32_tn_128x256x32_w64x256_s4_tma => hopper_gemm::<Tf32, true, true, false, 4>);
    entry_tma!(/// TF32 (f32 inputs and output), layout tt: TMA + wgmma, 128×256×32, 4 stages, warp-specialized;
        /// A's k-tiles transposed in shared memory.
        tf32_tt_128x256x32_w64x256_s4_tma => hopper_gemm::<Tf32, true, true, true, 4>);
}
