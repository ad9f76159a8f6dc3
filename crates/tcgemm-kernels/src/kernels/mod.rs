//! Kernel entry points: the only code that reads the special registers (`%tid`, `%ctaid`,
//! `%nctaid`); every component below takes the thread, block and batch indices as arguments. (The
//! persistent TMA body takes the entry's `%nctaid.x` reader, `arch::index::grid_dim_x`, as an
//! argument and calls it where its work loop needs the grid size, as it did when it read the
//! register itself: the PTX is unchanged.)
//!
//! The entries are not written here one by one: each line of the [catalog](crate::catalog) expands
//! (on `nvptx64`) into `gemm_entry!`, `ceiling_entry!`, `convert_entry!` or `copy_entry!` with
//! the kernel's name and record. An entry is an `extern "ptx-kernel" fn` exported under the
//! kernel's name, in the module of its family (sm_90a for the TMA kernels, sm_80 for the rest, and
//! sm_90 too for those `config::KernelSpec::built_in` puts there), taking its family's parameter block
//! by value and calling the family's body with const generics derived from the record.

/// A GEMM entry: `gemm_entry!(FAMILY PRECISION, NAME, RECORD)`.
macro_rules! gemm_entry {
    (CudaCore $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::cuda_core::gemm::<
                    { S.trans_a },
                    { S.trans_b },
                    { S.block.m },
                    { S.block.n },
                    { S.block.k },
                    { S.warp.m },
                    { S.warp.n },
                    { S.stages },
                    { S.threads },
                >
            );
        };
    };
    (CudaCoreMultistage $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            use $crate::threadblock::cuda_core_multistage::a_copy_threads;
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::cuda_core_multistage::gemm::<
                    { S.trans_a },
                    { S.trans_b },
                    { S.block.m },
                    { S.block.n },
                    { S.block.k },
                    { S.warp.m as usize },
                    { S.warp.n as usize },
                    { S.stages },
                    { S.threads },
                    { a_copy_threads(S.block, S.threads) },
                >
            );
        };
    };
    (CudaCoreStream $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::cuda_core_stream::gemm::<
                    $crate::catalog::rules::precision!(out $prec),
                    { S.input.bytes() },
                    { matches!(S.input, $crate::config::Elem::Bf16) },
                    { S.trans_a },
                    { S.trans_b },
                    { S.block.m },
                    { S.block.n },
                    { S.stages },
                >
            );
        };
    };
    (MmaSyncSeed $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            use $crate::threadblock::{m16n8_tiles, warp_grid};
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::mma_sync_seed::gemm::<
                    { S.trans_a },
                    { S.trans_b },
                    { S.block.m },
                    { S.block.n },
                    { S.block.k },
                    { warp_grid(S.block, S.warp).0 },
                    { warp_grid(S.block, S.warp).1 },
                    { m16n8_tiles(S.warp).0 },
                    { m16n8_tiles(S.warp).1 },
                    { S.threads },
                >
            );
        };
    };
    (MmaSyncMultistage tf32, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            use $crate::threadblock::{m16n8_tiles, warp_grid};
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::mma_sync_multistage_tf32::gemm::<
                    { S.body_layout().0 },
                    { S.body_layout().1 },
                    { S.block.m },
                    { S.block.n },
                    { S.block.k },
                    { warp_grid(S.block, S.warp).0 },
                    { warp_grid(S.block, S.warp).1 },
                    { S.stages },
                    { m16n8_tiles(S.warp).0 },
                    { m16n8_tiles(S.warp).1 },
                    { S.threads },
                    { S.swaps_ab() },
                >
            );
        };
    };
    (MmaSyncMultistage $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            use $crate::threadblock::{m16n8_tiles, warp_grid};
            const S: $crate::config::KernelSpec = $spec;
            $crate::kernels::grid_entry!(
                $name,
                S,
                $crate::threadblock::mma_sync_multistage::gemm::<
            $crate::catalog::rules::precision!(mma $prec),
            $crate::catalog::rules::precision!(out $prec),
                    { S.trans_a },
                    { S.trans_b },
                    { S.block.m },
                    { S.block.n },
                    { S.block.k },
                    { warp_grid(S.block, S.warp).0 },
                    { warp_grid(S.block, S.warp).1 },
                    { S.stages },
                    { m16n8_tiles(S.warp).0 },
                    { m16n8_tiles(S.warp).1 },
                    { S.threads },
                >
            );
        };
    };
    (TmaWarpSpecialized $prec:ident, $name:expr, $spec:expr) => {
        $crate::kernels::gemm_entry!(@tma $prec, $name, $spec, false, false, false);
    };
    (TmaRegisterA $prec:ident, $name:expr, $spec:expr) => {
        $crate::kernels::gemm_entry!(@tma $prec, $name, $spec, true, false, false);
    };
    (TmaPingPong $prec:ident, $name:expr, $spec:expr) => {
        $crate::kernels::gemm_entry!(@tma $prec, $name, $spec, false, true, false);
    };
    (TmaPairs $prec:ident, $name:expr, $spec:expr) => {
        $crate::kernels::gemm_entry!(@tma $prec, $name, $spec, false, false, true);
    };
    // A TMA entry; `$reg_a`: the consumers read A into registers (`config::Family::TmaRegisterA`);
    // `$ping_pong`: they take whole tiles in turn (`config::Family::TmaPingPong`); `$pairs`: CTAs
    // in clusters of two share B's loads (`config::Family::TmaPairs`).
    (
        @tma $prec:ident, $name:expr, $spec:expr, $reg_a:literal, $ping_pong:literal,
        $pairs:literal
    ) => {
        #[cfg(target_feature = "sm_90a")]
        const _: () = {
            /// A TMA kernel (`config::Family::TmaWarpSpecialized`, `TmaRegisterA`, `TmaPingPong` or
            /// `TmaPairs`).
            ///
            /// # Safety
            /// Launched only by the host crate with the launch shape of its `config::KERNELS`
            /// record (a persistent grid), validated parameters and tensor maps encoded for them.
            #[export_name = $name]
            pub unsafe extern "ptx-kernel" fn entry(p: $crate::params::TmaParams) {
                // the generic address of this kernel's own parameter block (the tensor maps stay
                // in kernel-parameter memory, where TMA reads them), taken where it is used (not
                // `pure`: a value kept from the start would hold two registers through the loop)
                let maps = || {
                    let maps: u64;
                    // SAFETY: reads the address of the kernel's own parameter; no other effect.
                    unsafe {
                        core::arch::asm!(
                            concat!("mov.b64 {0}, ", $name, "_param_0;\n\tcvta.param.u64 {0}, {0};"),
                            out(reg64) maps,
                            options(nomem, nostack)
                        )
                    };
                    maps
                };
                $crate::kernels::gemm_entry!(
                    @warp_specialized $prec, $spec, false, $reg_a, $ping_pong, $pairs, &p.p, maps
                );
            }
        };
    };
    (LdgWarpSpecialized $prec:ident, $name:expr, $spec:expr) => {
        #[cfg(target_feature = "sm_90a")]
        const _: () = {
            /// A thread-copy warp-specialized kernel (`config::Family::LdgWarpSpecialized`).
            ///
            /// # Safety
            /// Launched only by the host crate with the launch shape of its `config::KERNELS`
            /// record (a persistent grid) and validated parameters.
            #[export_name = $name]
            pub unsafe extern "ptx-kernel" fn entry(p: $crate::params::GemmParams) {
                // the TMA body with its producer copying by threads (no tensor maps)
                $crate::kernels::gemm_entry!(@warp_specialized $prec, $spec, true, false, false, false, &p, || 0);
            }
        };
    };
    // The warp-specialized body, persistent (it derives tile and batch item from its work index),
    // for both producers (`$ldg`: thread copies), both sources of A (`$reg_a`: registers) and
    // both consumer schedules (`$ping_pong`: whole tiles in turn), alone or in pairs sharing B
    // (`$pairs`), with `$p` the `&GemmParams` and `$maps` the reader of the tensor maps' generic
    // address.
    (
        @warp_specialized $prec:ident, $spec:expr, $ldg:literal, $reg_a:literal,
        $ping_pong:literal, $pairs:literal, $p:expr, $maps:expr
    ) => {{
        use $crate::arch::index::{block_idx_x, grid_dim_x, thread_idx_x};
        const S: $crate::config::KernelSpec = $spec;
        // a persistent grid: every CTA runs from the start, so the reduction launched after a
        // split of this kernel may be scheduled now, to wait for it on the SMs
        // (`arch::grid_dependency`)
        $crate::arch::grid_dependency::launch_dependents();
        $crate::threadblock::tma_warp_specialized::gemm::<
            $crate::catalog::rules::precision!(wgmma $prec),
            $crate::catalog::rules::precision!(out $prec),
            { S.body_layout().0 },
            { S.body_layout().1 },
            { S.block.m },
            { S.block.n },
            { S.stages },
            $ldg,
            $reg_a,
            { S.swaps_ab() },
            $ping_pong,
            $pairs,
        >($p, $maps, thread_idx_x(), block_idx_x(), grid_dim_x)
    }};
}

/// An entry taking one `GemmParams` and launched on a grid of one block per output tile (x) and
/// batch item (y, then z beyond the 65535 limit of y): `grid_entry!(NAME, RECORD, BODY)`. A kernel
/// of f32 output also runs the launches split along K: batch item `z` is slice `z` (the last one
/// `split.last_k` deep), and after its tile the CTA takes part in the fused reduction
/// (`epilogue::splitk`; tiled as the body tiles `Cᵀ` in a kernel that swaps A and B). Kernels of
/// 16-bit output have neither (the record's output is a constant).
#[cfg_attr(target_feature = "sm_90a", allow(unused_macros))] // the sm_90a module has TMA entries only
macro_rules! grid_entry {
    ($name:expr, $spec:expr, $body:expr) => {
        /// A GEMM kernel launched one block per tile and batch item.
        ///
        /// # Safety
        /// Launched only by the host crate with the launch shape of its `config::KERNELS` record and
        /// validated parameters.
        #[export_name = $name]
        pub unsafe extern "ptx-kernel" fn entry(p: $crate::params::GemmParams) {
            use $crate::arch::index::{
                block_idx_x, block_idx_y, block_idx_z, grid_dim_y, thread_idx_x,
            };
            use $crate::epilogue::splitk::{reduce_tile, slice_params};
            // batch item: grid y, then z for batches beyond the 65535 limit of y
            let z = block_idx_y() + block_idx_z() * grid_dim_y();
            let (tid, bid) = (thread_idx_x(), block_idx_x());
            if matches!($spec.output, $crate::config::Elem::F32) {
                $body(&slice_params(&p, z), tid, bid, z);
                reduce_tile::<
                    { $spec.block.m },
                    { $spec.block.n },
                    { $spec.threads },
                    { $spec.swaps_ab() },
                >(&p, tid, bid, z);
            } else {
                $body(&p, tid, bid, z);
            }
        }
    };
}

/// A utility entry (sm_80 module): exported as `NAME`, taking one `PARAMS` block by value and
/// calling `BODY(&p, tid, ctaid.x[, nctaid.x[, ctaid.y]])` (the grid size for the grid-stride
/// bodies, the block's y index for those that split their work along y).
macro_rules! utility_entry {
    ($name:expr, $params:ident, $what:literal, ($($body:tt)+) $(, $grid:ident)* ) => {
        #[cfg(not(target_feature = "sm_90a"))]
        const _: () = {
            #[doc = $what]
            ///
            /// # Safety
            /// Launched only by the host crate with its `config::KERNELS` record's block size and
            /// parameters it validated (buffers that hold every element the body touches).
            #[export_name = $name]
            pub unsafe extern "ptx-kernel" fn entry(p: $crate::params::$params) {
                #[allow(unused_imports)]
                use $crate::arch::index::{
                    block_idx_x, block_idx_y, grid_dim_x, grid_dim_y, thread_idx_x,
                };
                $($body)+(&p, thread_idx_x(), block_idx_x() $(, $grid())*);
            }
        };
    };
}

/// An instruction-ceiling entry: `ceiling_entry!(MATH, NAME)` runs the ceiling body of that
/// instruction with one `CeilingParams`.
macro_rules! ceiling_entry {
    (Ffma, $name:expr) => {
        $crate::kernels::ceiling_entry!(@ $name, ffma);
    };
    (MmaTf32, $name:expr) => {
        $crate::kernels::ceiling_entry!(@ $name, mma_tf32);
    };
    (MmaF16F32, $name:expr) => {
        $crate::kernels::ceiling_entry!(@ $name, mma_f16);
    };
    (MmaBf16F32, $name:expr) => {
        $crate::kernels::ceiling_entry!(@ $name, mma_bf16);
    };
    (@ $name:expr, $body:ident) => {
        $crate::kernels::utility_entry!(
            $name,
            CeilingParams,
            "An instruction-ceiling kernel (`config::Family::Ceiling`): one f32 out per thread.",
            ($crate::utility::ceiling::$body)
        );
    };
}

/// A conversion entry: `convert_entry!(FROM TO, NAME)`, a grid-stride loop over one
/// `ConvertParams`.
macro_rules! convert_entry {
    (f32 f16, $name:expr) => {
        $crate::kernels::convert_entry!(@ $name, narrow::<false>);
    };
    (f32 bf16, $name:expr) => {
        $crate::kernels::convert_entry!(@ $name, narrow::<true>);
    };
    (f16 f32, $name:expr) => {
        $crate::kernels::convert_entry!(@ $name, widen::<false>);
    };
    (bf16 f32, $name:expr) => {
        $crate::kernels::convert_entry!(@ $name, widen::<true>);
    };
    (@ $name:expr, $($body:tt)+) => {
        $crate::kernels::utility_entry!(
            $name,
            ConvertParams,
            "An element-wise conversion kernel (`config::Family::Convert`).",
            ($crate::utility::convert::$($body)+),
            grid_dim_x
        );
    };
}

/// A strided copy entry: `copy_entry!(ELEM, NAME)`, a grid-stride loop over the rows of one
/// `CopyParams` (one row segment per block y index), moving elements of `ELEM`'s size.
macro_rules! copy_entry {
    (f16, $name:expr) => {
        $crate::kernels::copy_entry!(@ $name, 2);
    };
    (f32, $name:expr) => {
        $crate::kernels::copy_entry!(@ $name, 4);
    };
    (@ $name:expr, $bytes:literal) => {
        $crate::kernels::utility_entry!(
            $name,
            CopyParams,
            "A strided copy kernel (`config::Family::CopyRows`).",
            ($crate::utility::copy_rows::copy::<$bytes>),
            grid_dim_x,
            block_idx_y
        );
    };
}

/// An operand split entry: `split_entry!(tf32x3, NAME)`, tiles of one `SplitParams` along x,
/// batch items along y, writing each element's TF32 parts.
macro_rules! split_entry {
    (tf32x3, $name:expr) => {
        $crate::kernels::utility_entry!(
            $name,
            SplitParams,
            "The TF32 split of `Precision::Tf32x3` (`config::Family::SplitTf32`).",
            ($crate::utility::split_tf32::tf32x3),
            grid_dim_x,
            block_idx_y,
            grid_dim_y
        );
    };
}

#[cfg(not(target_feature = "sm_90a"))]
pub(crate) use grid_entry;
pub(crate) use {ceiling_entry, convert_entry, copy_entry, gemm_entry, split_entry, utility_entry};
