//! The rules that turn a line of the catalog into a kernel record and an entry point: the grammar
//! ([`catalog!`]), the name rule of each family ([`kernel_name!`]), what a precision token means
//! ([`precision!`]), and which body module answers for a family ([`body_rule!`]).

/// Parses the catalog (see the parent module) into `KERNELS` and, on `nvptx64`, one
/// `crate::kernels` entry point per record.
macro_rules! catalog {
    (
        gemm {
            $(
                $family:ident $prec:ident
                $bm:literal x $bn:literal x $bk:literal
                $wm:literal x $wn:literal
                $stages:literal $blocks:literal $rank:literal
                [$($ly:ident $(: $ly_blocks:literal)?)+],
            )*
        }
        ceiling { $($instr:ident $cin:ident $cmath:ident $cblocks:literal,)* }
        convert { $($from:ident $to:ident $vblocks:literal,)* }
        copy { $($celem:ident $cpblocks:literal,)* }
        split { $($spname:ident $spblocks:literal,)* }
        splitk { $sname:ident $sblocks:literal, }
    ) => {
        /// Every kernel entry point tcgemm builds: the catalog's GEMM lines in order, each expanded
        /// over its layouts, then the ceiling, conversion, copy and split kernels and the split-K
        /// reduction.
        ///
        /// ```
        /// use tcgemm_kernels::config::{Role, KERNELS};
        /// let gemm = KERNELS.iter().filter(|k| k.role() == Role::Gemm).count();
        /// assert_eq!(gemm + 12, KERNELS.len());
        /// ```
        pub const KERNELS: &[KernelSpec] = &[
            $($(
                $crate::catalog::rules::gemm_spec!(
                    $family $prec $ly, $bm $bn $bk, $wm $wn, $stages,
                    $crate::catalog::rules::first!($($ly_blocks)? $blocks), $rank
                ),
            )+)*
            $($crate::catalog::rules::ceiling_spec!($instr $cin $cmath $cblocks),)*
            $($crate::catalog::rules::convert_spec!($from $to $vblocks),)*
            $($crate::catalog::rules::copy_spec!($celem $cpblocks),)*
            $($crate::catalog::rules::split_spec!($spname $spblocks),)*
            $crate::catalog::rules::splitk_spec!($sname $sblocks),
        ];

        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            $($(
                $crate::kernels::gemm_entry!(
                    $family $prec,
                    $crate::catalog::rules::kernel_name!($family $prec $ly, $bm $bn $bk, $wm $wn, $stages),
                    $crate::catalog::rules::gemm_spec!(
                        $family $prec $ly, $bm $bn $bk, $wm $wn, $stages,
                        $crate::catalog::rules::first!($($ly_blocks)? $blocks), $rank
                    )
                );
            )+)*
            $($crate::kernels::ceiling_entry!($cmath, concat!("ceiling_", stringify!($instr)));)*
            $($crate::kernels::convert_entry!(
                $from $to, concat!("convert_", stringify!($from), "_to_", stringify!($to))
            );)*
            $($crate::kernels::copy_entry!($celem, concat!("copy_rows_", stringify!($celem)));)*
            $($crate::kernels::split_entry!($spname, concat!("split_", stringify!($spname)));)*
            $crate::kernels::utility_entry!(
                concat!("splitk_", stringify!($sname)),
                GemmParams,
                "The split-K reduction kernel (`config::Family::SplitkReduce`), after a split launch without counters.",
                ($crate::epilogue::splitk::reduce),
                grid_dim_x
            );
        };
    };
}

/// The name of a GEMM kernel, one rule per family (the PTX symbol, dispatch key, bench id and
/// test name): `{precision}_{layout}_{BM}x{BN}x{BK}_w{WM}x{WN}_s{stages}`, with `sgemm` and a
/// per-thread tile `t{TM}x{TN}` for the two CUDA-core families (told apart by their shapes: the
/// multistage one has few rows and more stages), and the suffixes `_acc16` (f16 accumulation),
/// `_seed`, `_tma`, `_tma_areg`, `_tma_pp` and `_ldg`; the stream family is
/// `{precision}_{layout}_{BM}x{BN}x{BK}_w{BM}x{columns per warp}_s{loads in flight}_stream`.
macro_rules! kernel_name {
    (CudaCore $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            "sgemm_", stringify!($ly), "_", $bm, "x", $bn, "x", $bk, "_t", $wm, "x", $wn, "_s", $s
        )
    };
    (CudaCoreMultistage $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            "sgemm_", stringify!($ly), "_", $bm, "x", $bn, "x", $bk, "_t", $wm, "x", $wn, "_s", $s
        )
    };
    (CudaCoreStream $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s, "_stream"
        )
    };
    (MmaSyncSeed $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s, "_seed"
        )
    };
    (MmaSyncMultistage $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec)
        )
    };
    (TmaWarpSpecialized $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec), "_tma"
        )
    };
    (TmaRegisterA $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec), "_tma_areg"
        )
    };
    (TmaPingPong $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec), "_tma_pp"
        )
    };
    (TmaPairs $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec), "_tma_x2"
        )
    };
    (LdgWarpSpecialized $prec:ident $ly:ident, $bm:tt $bn:tt $bk:tt, $wm:tt $wn:tt, $s:tt) => {
        concat!(
            $crate::catalog::rules::precision!(prefix $prec), "_", stringify!($ly), "_",
            $bm, "x", $bn, "x", $bk, "_w", $wm, "x", $wn, "_s", $s,
            $crate::catalog::rules::precision!(suffix $prec), "_ldg"
        )
    };
}

/// What a precision token of the catalog means: element types, instruction, name parts and the
/// device types its bodies are instantiated with. `precision!(WHAT TOKEN)`, WHAT one of `input`,
/// `output`, `math` (config values), `prefix`, `suffix` (name parts), `mma` (the
/// `warp::mma_sync` kind), `wgmma` (the `warp::wgmma` kind), `out` (the `epilogue` element).
macro_rules! precision {
    // row:                                     in   out  math       prefix      suffix   wgmma kind
    ($w:ident f32) => {
        $crate::catalog::rules::precision!(@ $w F32  F32  Ffma       "f32"       ""       NoWgmma)
    };
    ($w:ident tf32) => {
        $crate::catalog::rules::precision!(@ $w F32  F32  MmaTf32    "tf32"      ""       WgmmaTf32)
    };
    ($w:ident tf32x3) => {
        $crate::catalog::rules::precision!(@ $w F32  F32  MmaTf32x3  "tf32x3"    ""       WgmmaTf32x3)
    };
    ($w:ident f16_f32) => {
        $crate::catalog::rules::precision!(@ $w F16  F32  MmaF16F32  "f16_f32"   ""       WgmmaF16)
    };
    ($w:ident f16_f16) => {
        $crate::catalog::rules::precision!(@ $w F16  F16  MmaF16F32  "f16_f16"   ""       WgmmaF16)
    };
    ($w:ident bf16_f32) => {
        $crate::catalog::rules::precision!(@ $w Bf16 F32  MmaBf16F32 "bf16_f32"  ""       WgmmaBf16)
    };
    ($w:ident bf16_bf16) => {
        $crate::catalog::rules::precision!(@ $w Bf16 Bf16 MmaBf16F32 "bf16_bf16" ""       WgmmaBf16)
    };
    ($w:ident f16_f32_ffma) => {
        $crate::catalog::rules::precision!(@ $w F16  F32  Ffma       "f16_f32"   ""       NoWgmma)
    };
    ($w:ident f16_f16_ffma) => {
        $crate::catalog::rules::precision!(@ $w F16  F16  Ffma       "f16_f16"   ""       NoWgmma)
    };
    ($w:ident bf16_f32_ffma) => {
        $crate::catalog::rules::precision!(@ $w Bf16 F32  Ffma       "bf16_f32"  ""       NoWgmma)
    };
    ($w:ident bf16_bf16_ffma) => {
        $crate::catalog::rules::precision!(@ $w Bf16 Bf16 Ffma       "bf16_bf16" ""       NoWgmma)
    };
    ($w:ident f16_f16_acc16) => {
        $crate::catalog::rules::precision!(@ $w F16  F16  MmaF16F16  "f16_f16"   "_acc16" NoWgmma)
    };
    (@ input $i:ident $($rest:tt)*) => { $crate::config::Elem::$i };
    (@ output $i:tt $o:ident $($rest:tt)*) => { $crate::config::Elem::$o };
    (@ math $i:tt $o:tt $m:ident $($rest:tt)*) => { $crate::config::Math::$m };
    (@ prefix $i:tt $o:tt $m:tt $p:literal $($rest:tt)*) => { $p };
    (@ suffix $i:tt $o:tt $m:tt $p:tt $s:literal $($rest:tt)*) => { $s };
    (@ mma $i:tt $o:tt $m:ident $($rest:tt)*) => { $crate::warp::mma_sync::$m };
    (@ wgmma $i:tt $o:tt $m:tt $p:tt $s:tt $g:ident) => { $crate::warp::wgmma::$g };
    (@ out $i:tt $o:ident $($rest:tt)*) => { $crate::epilogue::$o };
}

/// The body module of a family (and precision) applied to a rule: `body_rule!(FAMILY PRECISION =>
/// FUNCTION(ARGS))` calls `crate::threadblock::<module>::FUNCTION(ARGS)`.
macro_rules! body_rule {
    (CudaCore $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::cuda_core::$f($($a),*)
    };
    (CudaCoreMultistage $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::cuda_core_multistage::$f($($a),*)
    };
    (CudaCoreStream $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::cuda_core_stream::$f($($a),*)
    };
    (MmaSyncSeed $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::mma_sync_seed::$f($($a),*)
    };
    (MmaSyncMultistage tf32 => $f:ident($($a:expr),*)) => {
        $crate::threadblock::mma_sync_multistage_tf32::$f($($a),*)
    };
    (MmaSyncMultistage $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::mma_sync_multistage::$f($($a),*)
    };
    (TmaWarpSpecialized $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::$f($($a),*)
    };
    (TmaRegisterA $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::$f($($a),*)
    };
    (TmaPingPong $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::$f($($a),*)
    };
    (TmaPairs $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::$f($($a),*)
    };
    // (thread copies: the TMA body without buffers for storing C by TMA)
    (LdgWarpSpecialized $p:ident => smem_bytes($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::smem_bytes_thread_copies($($a),*)
    };
    (LdgWarpSpecialized $p:ident => $f:ident($($a:expr),*)) => {
        $crate::threadblock::tma_warp_specialized::$f($($a),*)
    };
}

/// The record of a GEMM kernel: the name by its family's rule, types from the precision, the warp
/// tile's k from the instruction, threads and shared memory from the family's body module.
macro_rules! gemm_spec {
    (
        $family:ident $prec:ident $ly:ident, $bm:literal $bn:literal $bk:literal,
        $wm:literal $wn:literal, $stages:literal, $blocks:expr, $rank:literal
    ) => {{
        let block = $crate::config::GemmShape::new($bm, $bn, $bk);
        let math = $crate::catalog::rules::precision!(math $prec);
        let warp = $crate::config::GemmShape::new($wm, $wn, math.instruction_k());
        let (trans_a, trans_b) = $crate::catalog::rules::layout!($ly);
        $crate::config::KernelSpec {
            name: $crate::catalog::rules::kernel_name!($family $prec $ly, $bm $bn $bk, $wm $wn, $stages),
            family: $crate::config::Family::$family,
            input: $crate::catalog::rules::precision!(input $prec),
            output: $crate::catalog::rules::precision!(output $prec),
            math,
            trans_a,
            trans_b,
            block,
            warp,
            stages: $stages,
            threads: $crate::catalog::rules::body_rule!($family $prec => threads(block, warp)),
            min_blocks_per_sm: $blocks,
            smem_bytes: $crate::catalog::rules::body_rule!($family $prec => smem_bytes(block, $stages)),
            rank: $rank,
            swap_ab: $crate::catalog::rules::swap_ab!($ly),
        }
    }};
}

/// The record of a utility kernel (never dispatched): no tile, one stage, no shared memory, rank
/// 0; its name, family, element types, math, threads per block and blocks per SM.
macro_rules! utility_spec {
    ($name:expr, $family:ident, $input:expr, $output:expr, $math:ident, $threads:expr, $blocks:literal) => {
        $crate::config::KernelSpec {
            name: $name,
            family: $crate::config::Family::$family,
            input: $input,
            output: $output,
            math: $crate::config::Math::$math,
            trans_a: false,
            trans_b: false,
            block: $crate::config::GemmShape::new(1, 1, 1),
            warp: $crate::config::GemmShape::new(1, 1, 1),
            stages: 1,
            threads: $threads,
            min_blocks_per_sm: $blocks,
            smem_bytes: 0,
            rank: 0,
            swap_ab: false,
        }
    };
}

/// The record of an instruction-ceiling kernel `ceiling_{instruction}`: one f32 out per thread.
macro_rules! ceiling_spec {
    ($instr:ident $input:ident $math:ident $blocks:literal) => {
        $crate::catalog::rules::utility_spec!(
            concat!("ceiling_", stringify!($instr)),
            Ceiling,
            $crate::catalog::rules::elem!($input),
            $crate::config::Elem::F32,
            $math,
            $crate::utility::ceiling::THREADS,
            $blocks
        )
    };
}

/// The record of a conversion kernel `convert_{from}_to_{to}`, with the element types of the
/// conversion.
macro_rules! convert_spec {
    ($from:ident $to:ident $blocks:literal) => {
        $crate::catalog::rules::utility_spec!(
            concat!("convert_", stringify!($from), "_to_", stringify!($to)),
            Convert,
            $crate::catalog::rules::elem!($from),
            $crate::catalog::rules::elem!($to),
            Ffma,
            $crate::utility::convert::THREADS,
            $blocks
        )
    };
}

/// The record of a strided copy kernel `copy_rows_{elem}`, with the element type whose size it
/// moves as input and output (the bits of any type of that size).
macro_rules! copy_spec {
    ($elem:ident $blocks:literal) => {
        $crate::catalog::rules::utility_spec!(
            concat!("copy_rows_", stringify!($elem)),
            CopyRows,
            $crate::catalog::rules::elem!($elem),
            $crate::catalog::rules::elem!($elem),
            Ffma,
            $crate::utility::copy_rows::THREADS,
            $blocks
        )
    };
}

/// The record of an operand split kernel `split_{name}` (`tf32x3`: f32 in, TF32 parts as f32 out).
macro_rules! split_spec {
    (tf32x3 $blocks:literal) => {
        $crate::catalog::rules::utility_spec!(
            concat!("split_", stringify!(tf32x3)),
            SplitTf32,
            $crate::config::Elem::F32,
            $crate::config::Elem::F32,
            MmaTf32,
            $crate::utility::split_tf32::THREADS,
            $blocks
        )
    };
}

/// The record of the split-K reduction kernel `splitk_{name}`: f32 slices in, C of the element its
/// parameters name (`SplitTail::flags`) out; the record says f32.
macro_rules! splitk_spec {
    ($name:ident $blocks:literal) => {
        $crate::catalog::rules::utility_spec!(
            concat!("splitk_", stringify!($name)),
            SplitkReduce,
            $crate::config::Elem::F32,
            $crate::config::Elem::F32,
            Ffma,
            $crate::utility::REDUCE_THREADS,
            $blocks
        )
    };
}

/// `(trans_a, trans_b)` of a layout token: `n` = stored as in the product, `t` = transposed;
/// `nn_swap`, `nt_swap`: `nn`, `nt` computed as `Cᵀ = op(B)ᵀ·op(A)ᵀ`
/// (`config::KernelSpec::swap_ab`).
macro_rules! layout {
    (nn) => {
        (false, false)
    };
    (nn_swap) => {
        (false, false)
    };
    (nt) => {
        (false, true)
    };
    (nt_swap) => {
        (false, true)
    };
    (tn) => {
        (true, false)
    };
    (tt) => {
        (true, true)
    };
}

/// Whether a layout token declares a kernel that swaps A and B (`nn_swap`, `nt_swap`).
macro_rules! swap_ab {
    (nn_swap) => {
        true
    };
    (nt_swap) => {
        true
    };
    ($ly:ident) => {
        false
    };
}

/// The `config::Elem` of an element token.
macro_rules! elem {
    (f32) => {
        $crate::config::Elem::F32
    };
    (f16) => {
        $crate::config::Elem::F16
    };
    (bf16) => {
        $crate::config::Elem::Bf16
    };
}

/// The first of one or two literals (a layout's override, else the line's value).
macro_rules! first {
    ($a:literal $b:literal) => {
        $a
    };
    ($b:literal) => {
        $b
    };
}

pub(crate) use {
    body_rule, catalog, ceiling_spec, convert_spec, copy_spec, elem, first, gemm_spec, kernel_name,
    layout, precision, split_spec, splitk_spec, swap_ab, utility_spec,
};
