//! Stream-K (src/streamk.rs): calls whose work items leave the last wave of a persistent kernel
//! short, where the CTAs share out the k-tiles of the last items and add partial tiles in a fixed
//! order. Every kernel that streams k, by name, on a one-wave shape (odd tails in M, N and K,
//! padded leading dimensions, beta ≠ 0) and a multi-wave one (whole items dealt first, then the
//! shared ones), and dispatch on short-wave shapes of every path and layout, on 1.5 to 2 waves and
//! on long items (the last partial wave shared): the plan shows stream-K, the result is within
//! the path's tolerance of the f64 reference, bitwise identical over repeats, and within tolerance
//! with stream-K off (`ContextOptions::stream_k = false`).
//! `TCGEMM_KERNEL_FILTER=SUB[,SUB...]` (`kernel_filter_selects`) narrows the by-name test (sanitizer runs).
//!
//! Needs a Hopper GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use half::{bf16, f16};
use tcgemm::{Context, ContextOptions, KernelSpec, Plan, Precision, Role};
use tcgemm_testkit::*;

/// At most this many multiply-adds get a full reference; above it the reference samples entries.
const REFERENCE_MACS: u128 = 1 << 26;
/// Launches of each case compared bit for bit.
const REPEATS: usize = 10;

fn no_stream_k_context() -> Option<Context> {
    gpu_with_options(ContextOptions {
        stream_k: false,
        ..Default::default()
    })
}

/// The Hopper context, or `None` (nothing to test) on other GPUs.
fn hopper() -> Option<&'static Context> {
    gpu().filter(|c| c.capabilities().hopper)
}

/// One call, dispatched or through `kernel`: stream-K in the plan, within `tol` of the reference,
/// the same bits over [`REPEATS`] launches, within `tol` with stream-K off; returns the plan.
fn check<I: TestElem, O: TestElem>(
    ctx: &Context,
    off: &Context,
    rng: &mut Rng,
    label: &str,
    p: Problem,
    kernel: Option<&str>,
    tol: f64,
) -> Plan {
    let case = Case::<I, O>::with_reference_limit(label, p, rng, REFERENCE_MACS);
    let mut dev = case.upload(ctx.stream());
    let launch = |dev: &mut _| {
        case.launch(ctx, dev, kernel)
            .unwrap_or_else(|e| panic!("{e}; {}", case.describe()))
            .expect("a call with output launches")
    };
    let plan = launch(&mut dev);
    assert!(
        plan.stream_k > 0 && plan.grid.0 == ctx.capabilities().sm_count,
        "{label} should stream k: {plan:?}"
    );
    let first = case.download(ctx.stream(), &dev);
    case.verify_on(&format!("stream-K {}", plan.kernel.name), &first, tol);
    for i in 1..REPEATS {
        case.reset_c(ctx.stream(), &mut dev);
        launch(&mut dev);
        let again = case.download(ctx.stream(), &dev);
        assert!(
            again == first,
            "repeat {i} differs bitwise: {}",
            case.describe()
        );
    }
    case.verify_on("stream-K off", &case.run_with(off, kernel), tol);
    plan
}

/// Shapes that stream k on `spec` (132 SMs or so): 72 items of its C tile with tails in M, N and
/// K (65 k-tiles), leading dimensions padded (16-byte multiples), `beta ≠ 0`; and 300 items over
/// two batch items (two whole waves dealt first on 132 SMs).
fn shapes(spec: &KernelSpec) -> [(&'static str, Problem); 2] {
    let tile = spec.c_tile();
    let (tm, tn, bk) = (tile.m as usize, tile.n as usize, spec.block.k as usize);
    let prec = kernel_precision(spec);
    let one_wave = Problem::new(12 * tm - 5, 6 * tn - 3, 64 * bk + 7)
        .trans(spec.trans_a, spec.trans_b)
        .scale(1.5, -0.5)
        .precision(prec);
    let one_wave = one_wave.pad_ld_for_tma();
    let waves = Problem::new(10 * tm, 15 * tn, 64 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .batched(2)
        .precision(prec);
    [("one wave, tails", one_wave), ("two waves + 36", waves)]
}

fn by_name<I: TestElem, O: TestElem>(
    ctx: &Context,
    off: &Context,
    spec: &KernelSpec,
    rng: &mut Rng,
) {
    for (label, p) in shapes(spec) {
        let k = p.k;
        let label = format!("{} {label}", spec.name);
        check::<I, O>(
            ctx,
            off,
            rng,
            &label,
            p,
            Some(spec.name),
            tol_kernel(spec, k),
        );
    }
}

#[test]
fn every_stream_k_kernel() {
    let Some(ctx) = hopper() else { return };
    let Some(off) = no_stream_k_context() else {
        return;
    };
    let mut rng = Rng::for_test("every_stream_k_kernel");
    let filter = std::env::var("TCGEMM_KERNEL_FILTER").unwrap_or_default();
    let kernels: Vec<_> = ctx
        .kernels()
        .into_iter()
        .filter(|k| k.role() == Role::Gemm && k.streams_k() && kernel_filter_selects(k.name))
        .collect();
    assert!(
        !kernels.is_empty(),
        "no kernel that streams k matches '{filter}'"
    );
    for spec in kernels {
        with_kernel_elems!(spec, by_name(ctx, &off, spec, &mut rng));
    }
}

/// Dispatch takes stream-K on short waves: 1152²×4096 and 1144²×4104 (81 tiles of 128×128 or 54
/// of 128×192 on 132 SMs, all shared; the second with tails in M, N and K), every layout, f16 →
/// f16 and bf16 → f32; TF32 at half the depth (2048 and 2052: fewer items than SMs are shared
/// only up to 80 k-tiles, `streamk::LONG_ITEM_KTILES`). (1536²×4096, this test's shape before, now
/// takes 96 whole tiles of 128×192 for 16-bit inputs, 73% of a wave:
/// `dispatch::full_fill_percent`. 3000³, which streamed k here before the 128×192 tiles, now takes
/// their 2.9 whole waves, `dispatch::cost`.)
#[test]
fn dispatch_streams_k_on_short_waves() {
    let Some(ctx) = hopper() else { return };
    let Some(off) = no_stream_k_context() else {
        return;
    };
    let mut rng = Rng::for_test("dispatch_streams_k_on_short_waves");
    for (m, n, k, k_tf32) in [(1152, 1152, 4096, 2048), (1144, 1144, 4104, 2052)] {
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            let p = Problem::new(m, n, k).trans(ta, tb);
            let label = format!("{m}x{n}x{k} {}", lay(ta, tb));
            check::<f16, f16>(
                ctx,
                &off,
                &mut rng,
                &label,
                p.clone(),
                None,
                tol_16::<f16>(k),
            );
            let beta = p.clone().scale(0.75, -1.5);
            check::<bf16, f32>(ctx, &off, &mut rng, &label, beta, None, tol_16::<f32>(k));
            let tf32 = Problem::new(m, n, k_tf32)
                .trans(ta, tb)
                .precision(Precision::Tf32);
            let label = format!("{m}x{n}x{k_tf32} {}", lay(ta, tb));
            check::<f32, f32>(ctx, &off, &mut rng, &label, tf32, None, TOL_TF32_FRO);
        }
    }
}

/// Dispatch shares only the last partial wave on 1.5 to 2 waves of a 128-row tile and on long
/// items (`streamk::choose`): TF32 `nt` 2552²×2536 (200 tiles of 128×256, 80 k-tiles, 68 shared on
/// 132 SMs), `tn` 2300×2296×2300 (216 of 128×192, 72 k-tiles, 84 shared), `nt` 5112³ (800 of
/// 128×256, 160 k-tiles, 8 shared, each by 16 or 17 CTAs) and `tt` 5112³ (the same on the
/// register-A 128×256 tile), tails in M, N and K.
#[test]
fn dispatch_shares_the_last_partial_wave() {
    let Some(ctx) = hopper() else { return };
    let Some(off) = no_stream_k_context() else {
        return;
    };
    let mut rng = Rng::for_test("dispatch_shares_the_last_partial_wave");
    for (m, n, k, ta, tb) in [
        (2552, 2552, 2536, false, true),
        (2300, 2296, 2300, true, false),
        (5112, 5112, 5112, false, true),
        (5112, 5112, 5112, true, true),
    ] {
        let p = Problem::new(m, n, k)
            .trans(ta, tb)
            .precision(Precision::Tf32);
        let label = format!("{m}x{n}x{k} {}", lay(ta, tb));
        let plan = check::<f32, f32>(ctx, &off, &mut rng, &label, p, None, TOL_TF32_FRO);
        let sms = ctx.capabilities().sm_count;
        assert!(
            plan.stream_k < sms,
            "{label}: {} items shared on {sms} SMs, expected the last partial wave only: {plan:?}",
            plan.stream_k
        );
    }
}
