//! Synthetic kernel tables and problems for the unit tests of dispatch, rules and plans.

use crate::calls::Cuts;
use crate::dispatch::{maths_for, KSplit};
use crate::gemm::Gemm;
use crate::problem::{Problem, Signature};
use tcgemm_kernels::config::{Elem, Family, GemmShape, KernelSpec, Math};

/// A 128×128 `mma.sync` kernel record with these types, math and rank.
pub(crate) fn spec(
    name: &'static str,
    input: Elem,
    output: Elem,
    math: Math,
    rank: u32,
) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::MmaSyncMultistage,
        input,
        output,
        math,
        trans_a: false,
        trans_b: false,
        block: GemmShape::new(128, 128, 32),
        warp: GemmShape::new(64, 64, 32),
        stages: 3,
        threads: 128,
        min_blocks_per_sm: 1,
        smem_bytes: 0,
        rank,
        swap_ab: false,
    }
}

/// A small table: several FP32 kernels of both maths, 16-bit kernels, one `nt` kernel.
pub(crate) fn table() -> Vec<KernelSpec> {
    vec![
        spec("ffma_low", Elem::F32, Elem::F32, Math::Ffma, 5),
        spec("ffma_high", Elem::F32, Elem::F32, Math::Ffma, 10),
        spec("ffma_high_too", Elem::F32, Elem::F32, Math::Ffma, 10),
        spec("tf32_seed", Elem::F32, Elem::F32, Math::MmaTf32, 1),
        spec("tf32_main", Elem::F32, Elem::F32, Math::MmaTf32, 20),
        spec("h_f32acc", Elem::F16, Elem::F16, Math::MmaF16F32, 10),
        spec("h_f16acc", Elem::F16, Elem::F16, Math::MmaF16F16, 99),
        spec("h_to_f32", Elem::F16, Elem::F32, Math::MmaF16F32, 10),
        spec("bf_to_f32", Elem::Bf16, Elem::F32, Math::MmaBf16F32, 10),
        KernelSpec {
            trans_b: true,
            ..spec("ffma_nt", Elem::F32, Elem::F32, Math::Ffma, 10)
        },
    ]
}

/// `g` with `input -> output` elements, planned without buffers, restricted to the instructions
/// its precision allows (whether or not a table implements them).
pub(crate) fn problem(g: &Gemm, input: Elem, output: Elem, allow_tf32: bool) -> Problem {
    let sig = Signature {
        maths: Some(maths_for(input, g.precision, allow_tf32).unwrap()),
        ..Signature::any_math(g, input, output)
    };
    Problem::resolve(g, sig, g.required_lens().unwrap()).unwrap()
}

/// `g` with `input -> output` elements, planned without buffers, accepting any math.
pub(crate) fn any_math(g: &Gemm, input: Elem, output: Elem) -> Problem {
    let sig = Signature::any_math(g, input, output);
    Problem::resolve(g, sig, g.required_lens().unwrap()).unwrap()
}

/// A `'static` copy of a synthetic kernel record.
pub(crate) fn leak(s: KernelSpec) -> &'static KernelSpec {
    Box::leak(Box::new(s))
}

/// Clusters an H200 holds at once by cluster size (one CTA per SM; sizes 3, 5–7 assumed): what
/// `Context::resident_clusters` gives there, for the models' tests.
pub(crate) fn h200_clusters(s: u32) -> u32 {
    [0, 0, 66, 44, 30, 24, 22, 18, 15]
        .get(s as usize)
        .copied()
        .unwrap_or(0)
}

/// How a context on 132 SMs of an H200 ([`h200_clusters`]) with every kernel loaded cuts `p` on
/// `spec` where `cuts` allows (`calls::cut`).
pub(crate) fn h200_cut(spec: &KernelSpec, p: &Problem, cuts: Cuts) -> KSplit {
    crate::calls::cut(spec, p, 132, cuts, |_| true, h200_clusters)
}
