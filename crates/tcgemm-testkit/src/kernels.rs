//! Which kernel can run which call: the one place the tests ask it.

use tcgemm::{Context, KernelSpec};

use crate::problem::{Layout, Problem};

/// Whether kernel `spec` accepts the call `p` (its element types, layout and math aside).
///
/// Today the only kernels with rules of their own are the Hopper TMA kernels
/// (`Family::needs_tma`): they need `k ≥ 1`, `alpha ≠ 0` (a call that reads A and B), and
/// 16-byte-aligned views, leading dimensions and, with several batch items, batch strides, for
/// inputs and an output of the spec's element sizes. Dispatch sends other calls to the sm_80
/// kernels, which every test also runs.
///
/// ```
/// use tcgemm_kernels::config::find_kernel;
/// use tcgemm_testkit::{kernel_can_run, Problem};
/// let tma = find_kernel("f16_f16_nn_128x256x64_w64x256_s4_tma").unwrap();
/// assert!(kernel_can_run(tma, &Problem::new(64, 64, 64)));
/// assert!(!kernel_can_run(tma, &Problem::new(64, 64, 63)));
/// assert!(!kernel_can_run(tma, &Problem::new(64, 64, 64).scale(0.0, 1.0)));
/// ```
// MERGE: replace with tcgemm::can_implement(spec, &tcgemm::Problem::…(p's Gemm and buffer
// addresses: offset_x · element bytes from a 256-byte-aligned base)).is_ok(), and drop
// `tma_rules_hold` below.
pub fn kernel_can_run(spec: &KernelSpec, p: &Problem) -> bool {
    !spec.family.needs_tma()
        || tma_rules_hold(p, spec.input.bytes() as usize, spec.output.bytes() as usize)
}

/// The TMA kernels' rules for inputs of `in_bytes` and an output of `out_bytes` per element.
fn tma_rules_hold(p: &Problem, in_bytes: usize, out_bytes: usize) -> bool {
    let aligned = |l: Layout, eb: usize| {
        (l.offset * eb).is_multiple_of(16)
            && (l.ld * eb).is_multiple_of(16)
            && (l.batch <= 1 || (l.stride * eb).is_multiple_of(16))
    };
    // the persistent TMA kernels also need a call that reads A and B
    p.k > 0
        && p.alpha != 0.0
        && aligned(p.layout_a(), in_bytes)
        && aligned(p.layout_b(), in_bytes)
        && aligned(p.layout_c(), out_bytes)
}

/// Whether kernel `name` can run `p` by name on `ctx`: it is loaded (the sm_90a kernels only on
/// compute capability 9.0 without `force_sm80`) and [`kernel_can_run`] says so.
///
/// ```no_run
/// let Some(ctx) = tcgemm_testkit::gpu() else { return };
/// let p = tcgemm_testkit::Problem::new(256, 256, 64);
/// println!("{}", tcgemm_testkit::runs_by_name(ctx, "f16_f16_nn_128x256x64_w64x256_s4_tma", &p));
/// ```
pub fn runs_by_name(ctx: &Context, name: &str, p: &Problem) -> bool {
    ctx.kernels()
        .into_iter()
        .find(|s| s.name == name)
        .is_some_and(|spec| kernel_can_run(spec, p))
}
