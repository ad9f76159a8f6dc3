//! Which kernel can run which call: the one place the tests ask it.

use tcgemm::{can_implement, Context, KernelSpec, Math, Precision, RawBuffer};

use crate::problem::{Layout, Problem};

/// The precision a call forced onto kernel `spec` by name asks for: [`Precision::Tf32`] for the
/// TF32 kernels (f32 inputs on `MmaTf32`), else [`Precision::Default`].
///
/// ```
/// use tcgemm_kernels::config::find_kernel;
/// let tf32 = find_kernel("tf32_nt_128x256x32_w64x256_s4_tma").unwrap();
/// assert_eq!(tcgemm_testkit::kernel_precision(tf32), tcgemm::Precision::Tf32);
/// ```
pub fn kernel_precision(spec: &KernelSpec) -> Precision {
    if spec.math == Math::MmaTf32 {
        Precision::Tf32
    } else {
        Precision::Default
    }
}

/// The kernels loaded on `ctx` that `keep` takes and `TCGEMM_KERNEL_FILTER` selects
/// ([`kernel_filter_selects`]), for a test that runs each by name; fails, naming `what`, when
/// none is and no filter is set (a test that ran no kernel would pass without testing).
///
/// ```no_run
/// let ctx = tcgemm_testkit::gpu().unwrap();
/// let pairs = tcgemm_testkit::selected_kernels(ctx, |k| k.family == tcgemm::Family::TmaPairs, "pairs");
/// ```
pub fn selected_kernels(
    ctx: &Context,
    keep: impl Fn(&KernelSpec) -> bool,
    what: &str,
) -> Vec<&'static KernelSpec> {
    let kernels: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| keep(k) && kernel_filter_selects(k.name))
        .collect();
    let filtered = std::env::var("TCGEMM_KERNEL_FILTER").is_ok_and(|f| !f.is_empty());
    assert!(
        !kernels.is_empty() || filtered,
        "a context with no {what} kernel loaded"
    );
    kernels
}

/// Whether `TCGEMM_KERNEL_FILTER` selects the kernel called `name`: the variable is a
/// comma-separated list of substrings and a name containing any of them is selected; unset or
/// empty, every kernel is. The by-name tests read it, so that a sanitizer run can take one family
/// (e.g. `tf32_nn_128x256,tf32_nt_16x128`).
///
/// ```
/// // unset, the filter selects every kernel
/// if std::env::var_os("TCGEMM_KERNEL_FILTER").is_none() {
///     assert!(tcgemm_testkit::kernel_filter_selects("tf32_nn_16x128x32_w16x32_s4"));
/// }
/// ```
pub fn kernel_filter_selects(name: &str) -> bool {
    selects(
        &std::env::var("TCGEMM_KERNEL_FILTER").unwrap_or_default(),
        name,
    )
}

/// [`kernel_filter_selects`] with the filter given.
fn selects(filter: &str, name: &str) -> bool {
    filter.is_empty() || filter.split(',').any(|s| !s.is_empty() && name.contains(s))
}

/// Whether kernel `spec` accepts the call `p`: the library's own rule,
/// [`tcgemm::can_implement`], asked about `p`'s views at their offsets from 256-byte-aligned
/// allocations (as the tests allocate them). A kernel of other element types or another layout
/// than `p`'s does not.
///
/// ```
/// use tcgemm_kernels::config::find_kernel;
/// use tcgemm_testkit::{kernel_can_run, Problem};
/// let tma = find_kernel("f16_f16_nn_128x256x64_w64x256_s4_tma").unwrap();
/// assert!(kernel_can_run(tma, &Problem::new(64, 64, 64)));
/// assert!(!kernel_can_run(tma, &Problem::new(64, 64, 63)));
/// assert!(!kernel_can_run(tma, &Problem::new(64, 64, 64).scale(0.0, 1.0)));
/// ```
pub fn kernel_can_run(spec: &KernelSpec, p: &Problem) -> bool {
    use half::{bf16, f16};
    use tcgemm::Elem::{Bf16, F16, F32};
    let g = p.gemm();
    // Views at their offsets from 256-byte-aligned allocations, as the tests allocate them.
    let view = |l: Layout, eb: usize, base: u64| RawBuffer {
        ptr: base + (l.offset * eb) as u64,
        len: l.full_span(),
    };
    let problem = |ein: usize, eout: usize| {
        (
            view(p.layout_a(), ein, 1 << 20),
            view(p.layout_b(), ein, 2 << 20),
            view(p.layout_c(), eout, 3 << 20),
        )
    };
    let (ei, eo) = (spec.input.bytes() as usize, spec.output.bytes() as usize);
    let (a, b, c) = problem(ei, eo);
    let resolved = match (spec.input, spec.output) {
        (F32, F32) => tcgemm::Problem::from_raw::<f32, f32>(&g, a, b, c),
        (F16, F16) => tcgemm::Problem::from_raw::<f16, f16>(&g, a, b, c),
        (F16, F32) => tcgemm::Problem::from_raw::<f16, f32>(&g, a, b, c),
        (Bf16, Bf16) => tcgemm::Problem::from_raw::<bf16, bf16>(&g, a, b, c),
        (Bf16, F32) => tcgemm::Problem::from_raw::<bf16, f32>(&g, a, b, c),
        _ => return false,
    };
    resolved.is_ok_and(|problem| can_implement(spec, &problem).is_ok())
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

/// Calls the generic test function `f::<I, O>(args…)` with the element types of kernel `spec`'s
/// `(input, output)` pair; panics for a pair the tests do not know. The one place a test turns a
/// kernel record into types.
///
/// ```
/// use tcgemm_testkit::{with_kernel_elems, TestElem};
/// fn bytes<I: TestElem, O: TestElem>(extra: usize) -> usize {
///     I::ELEM.bytes() as usize + O::ELEM.bytes() as usize + extra
/// }
/// let spec = tcgemm_kernels::config::find_kernel("f16_f16_nn_128x256x64_w64x256_s4_tma").unwrap();
/// assert_eq!(with_kernel_elems!(spec, bytes(1)), 5);
/// ```
#[macro_export]
macro_rules! with_kernel_elems {
    ($spec:expr, $f:ident($($arg:expr),* $(,)?)) => {{
        let spec: &::tcgemm::KernelSpec = $spec;
        use $crate::__half::{bf16, f16};
        use ::tcgemm::Elem;
        match (spec.input, spec.output) {
            (Elem::F32, Elem::F32) => $f::<f32, f32>($($arg),*),
            (Elem::F16, Elem::F32) => $f::<f16, f32>($($arg),*),
            (Elem::F16, Elem::F16) => $f::<f16, f16>($($arg),*),
            (Elem::Bf16, Elem::F32) => $f::<bf16, f32>($($arg),*),
            (Elem::Bf16, Elem::Bf16) => $f::<bf16, bf16>($($arg),*),
            (i, o) => panic!(
                "kernel {} has a type pair ({i:?} -> {o:?}) the tests do not know",
                spec.name
            ),
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::selects;

    #[test]
    fn a_filter_selects_names_with_any_of_its_substrings() {
        assert!(selects("", "tf32_nn_128x256x32_w64x64_s3"));
        assert!(selects("tf32_nn", "tf32_nn_128x256x32_w64x64_s3"));
        assert!(selects("_seed,x64_s3", "tf32_nn_128x256x32_w64x64_s3"));
        assert!(!selects("_seed,_tma", "tf32_nn_128x256x32_w64x64_s3"));
        assert!(!selects(",", "tf32_nn_128x256x32_w64x64_s3"));
    }
}
