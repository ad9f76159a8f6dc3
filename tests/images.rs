//! The embedded kernel images on the GPU: the default context loads machine code wherever this
//! build has some for the device, and the PTX fallback (what a newer architecture gets, compiled by
//! the driver) computes bit for bit the same results on every path and kernel family.

use cudarc::driver::CudaSlice;
use half::{bf16, f16};
use tcgemm::{images, Context, ContextOptions, Gemm, Precision, Target};
use tcgemm_kernels::machine_code::best_for;
use tcgemm_testkit::{gpu, gpu_with_options, random_elem, test_load_ptx, Rng, TestElem};

/// (Under `TCGEMM_TEST_LOAD_PTX=1` the test contexts load PTX: then every module must be PTX.)
#[test]
fn default_context_loads_machine_code_where_shipped() {
    let Some(ctx) = gpu() else { return };
    let caps = ctx.capabilities();
    assert!(!caps.modules.is_empty(), "no module loaded");
    for m in &caps.modules {
        let shipped = best_for(m.target, caps.compute_capability)
            .filter(|sm| images::machine_code(m.target).contains(sm))
            .filter(|_| !test_load_ptx());
        assert_eq!(m.machine_code, shipped, "{m}");
    }
}

/// C of `g` with `T` inputs and outputs, as bits, from `ctx`.
fn run<T: TestElem>(ctx: &Context, g: &Gemm, a: &[T], b: &[T]) -> (String, Vec<T::Bits>) {
    let s = ctx.stream();
    let (a, b): (CudaSlice<T>, CudaSlice<T>) = (s.clone_htod(a).unwrap(), s.clone_htod(b).unwrap());
    let poison = vec![T::from_bits(T::POISON); g.m * g.n];
    let mut c = s.clone_htod(&poison).unwrap();
    let plan = ctx.plan::<T, T>(g).unwrap();
    ctx.gemm(g, &a, &b, &mut c).unwrap();
    let out = s.clone_dtoh(&c).unwrap();
    (
        plan.kernel.name.to_string(),
        out.into_iter().map(T::to_bits).collect(),
    )
}

fn same_bits<T: TestElem>(jit: &Context, shipped: &Context, precision: Precision, rng: &mut Rng) {
    // an aligned shape (the Hopper TMA kernels on sm_90) and an odd one (the sm_80 kernels)
    for (m, n, k) in [(512, 768, 320), (257, 131, 77)] {
        let g = Gemm::new(m, n, k).precision(precision);
        let a: Vec<T> = (0..m * k).map(|_| random_elem(rng)).collect();
        let b: Vec<T> = (0..k * n).map(|_| random_elem(rng)).collect();
        let (kernel, from_ptx) = run(jit, &g, &a, &b);
        let (kernel2, from_machine_code) = run(shipped, &g, &a, &b);
        assert_eq!(kernel, kernel2, "both contexts dispatch alike");
        let differ = from_ptx
            .iter()
            .zip(&from_machine_code)
            .filter(|(x, y)| x != y)
            .count();
        assert_eq!(
            differ,
            0,
            "{} {m}x{n}x{k} `{kernel}`: {differ} entries differ between PTX and machine code",
            T::NAME
        );
        assert!(
            from_ptx.iter().all(|&x| x != T::POISON),
            "`{kernel}` left entries unwritten"
        );
    }
}

#[test]
fn ptx_fallback_computes_the_same_bits_as_machine_code() {
    let Some(shipped) = gpu() else { return };
    let Some(jit) = gpu_with_options(ContextOptions {
        load_ptx: true,
        ..Default::default()
    }) else {
        return;
    };
    for m in &jit.capabilities().modules {
        assert_eq!(m.machine_code, None, "load_ptx: {m}");
    }
    assert_eq!(
        jit.capabilities().targets,
        shipped.capabilities().targets,
        "the same modules load either way"
    );
    let mut rng = Rng::for_test("ptx_fallback_computes_the_same_bits_as_machine_code");
    same_bits::<f32>(&jit, shipped, Precision::Exact, &mut rng);
    same_bits::<f32>(&jit, shipped, Precision::Tf32, &mut rng);
    same_bits::<f16>(&jit, shipped, Precision::Default, &mut rng);
    same_bits::<bf16>(&jit, shipped, Precision::Default, &mut rng);
}

#[test]
fn embedded_ptx_unpacks_for_every_module() {
    for t in Target::ALL {
        let text = images::ptx(t).unwrap();
        assert!(text.contains(".entry"), "{t:?}");
    }
}
