//! Split-K (src/splitk.rs): decode-like calls (few rows or columns, long K) that `Context::gemm`
//! splits along K, on every path (fp32, tf32, f16 → f16/f32, bf16 → bf16/f32), against the f64
//! reference with each path's own tolerance; `beta ≠ 0` (C read by the reduction, or by the
//! cluster's first CTA), `alpha = 0`;
//! the plan shows the split, and `ContextOptions::split_k = false` turns it off; results are
//! bitwise identical across repeats. Also tail launches (src/tail.rs): calls whose last rows of
//! tiles run split along K after the others, exact FP32 and on the `mma.sync` tiles.
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use half::{bf16, f16};
use tcgemm::{Context, ContextOptions, Gemm, Plan, Precision};
use tcgemm_testkit::*;

/// The decode shapes of every path: `(m, n, k, trans_a, trans_b)`, odd sizes included.
const SHAPES: [(usize, usize, usize, bool, bool); 7] = [
    (1, 4096, 4096, false, false),
    (3, 1000, 4099, false, false),
    (16, 2048, 4096, false, true),
    (16, 1000, 11008, false, false),
    (1, 1000, 4099, false, true),
    // the transposed case: N small, M large
    (4096, 3, 4096, true, false),
    (1000, 16, 4099, true, true),
];

/// At most this many multiply-adds get a full reference; above it the reference samples entries.
const REFERENCE_MACS: u128 = 1 << 26;

fn no_split_context() -> Option<Context> {
    gpu_with_options(ContextOptions {
        split_k: false,
        ..Default::default()
    })
}

/// A Hopper context (the test kit's, split-K on) and one with split-K off; `None` without a
/// Hopper GPU.
fn hopper_contexts() -> Option<(&'static Context, Context)> {
    let ctx = gpu()?;
    if !ctx.capabilities().hopper {
        return None;
    }
    Some((ctx, no_split_context()?))
}

/// The 16-bit checks of one split call `p` (`check`): f16 → f16, again with `beta ≠ 0` (a 16-bit
/// C read back by the epilogue), and bf16 → f32 with `beta ≠ 0`.
fn check_sixteen_bit(ctx: &Context, off: &Context, rng: &mut Rng, p: &Problem) {
    let k = p.gemm().k;
    check::<f16, f16>(ctx, off, rng, p.clone(), tol_16::<f16>(k));
    let scaled = p.clone().scale(-1.25, 0.5);
    check::<f16, f16>(ctx, off, rng, scaled, tol_16::<f16>(k));
    let p = p.clone().scale(0.75, -1.5);
    check::<bf16, f32>(ctx, off, rng, p, tol_16::<f32>(k));
}

/// A context on the sm_80 kernels alone (`force_sm80`), with split-K on or off.
fn sm80_context(split_k: bool) -> Option<Context> {
    gpu_with_options(ContextOptions {
        force_sm80: true,
        split_k,
        ..Default::default()
    })
}

/// One split call: the plan shows S > 1 (and S = 1 without split-K), the result is within `tol`
/// of the reference with and without the split, and 20 repeats give the same bits.
fn check<I: TestElem, O: TestElem>(
    ctx: &Context,
    off: &Context,
    rng: &mut Rng,
    p: Problem,
    tol: f64,
) {
    let g = p.gemm();
    let plan = ctx.plan::<I, O>(&g).expect("plan");
    assert!(
        plan.split.slices > 1,
        "{g:?} should split: {plan:?} on {}",
        ctx.capabilities().name
    );
    // a split within clusters sums in shared memory; the others go through the workspace
    assert!(
        plan.split.cluster != (plan.split.workspace_bytes > 0),
        "{plan:?}"
    );
    let unsplit = off.plan::<I, O>(&g).expect("plan");
    assert_eq!(
        unsplit.split.slices, 1,
        "{g:?} with split_k off: {unsplit:?}"
    );
    let label = format!(
        "{}->{} {g:?} S={} kslice={} cluster={}",
        I::NAME,
        O::NAME,
        plan.split.slices,
        plan.split.kslice,
        plan.split.cluster
    );
    let case = Case::<I, O>::with_reference_limit(label, p, rng, REFERENCE_MACS);
    run_repeatably(ctx, off, &case, 20, tol);
}

/// Runs `case` on `ctx` `repeats` times: the first result within `tol` of the reference, every
/// repeat the same bits, and the result on `off` (split-K off) within `tol`; returns the plan run.
fn run_repeatably<I: TestElem, O: TestElem>(
    ctx: &Context,
    off: &Context,
    case: &Case<I, O>,
    repeats: usize,
    tol: f64,
) -> Plan {
    let mut dev = case.upload(ctx.stream());
    let launch = |dev: &mut _| {
        case.launch(ctx, dev, None)
            .unwrap_or_else(|e| panic!("{e}; {}", case.describe()))
            .expect("a call with output launches")
    };
    let plan = launch(&mut dev);
    let first = case.download(ctx.stream(), &dev);
    case.verify_on(plan.kernel.name, &first, tol);
    for i in 1..repeats {
        case.reset_c(ctx.stream(), &mut dev);
        launch(&mut dev);
        let again = case.download(ctx.stream(), &dev);
        assert!(
            again == first,
            "repeat {i} differs bitwise: {}",
            case.describe()
        );
    }
    case.verify_on("no split", &case.run(off), tol);
    plan
}

/// Every shape of `SHAPES` on one path, then `beta ≠ 0` and `alpha = 0` on the first shape.
fn path<I: TestElem, O: TestElem>(precision: Precision, tol: impl Fn(usize) -> f64) {
    let Some(ctx) = gpu() else { return };
    let Some(off) = no_split_context() else {
        return;
    };
    let mut rng = Rng::for_test(&format!("splitk {}->{} {precision:?}", I::NAME, O::NAME));
    for (m, n, k, ta, tb) in SHAPES {
        let p = Problem::new(m, n, k).trans(ta, tb).precision(precision);
        check::<I, O>(ctx, &off, &mut rng, p.clone(), tol(k));
        let p = p.scale(0.75, -1.5);
        check::<I, O>(ctx, &off, &mut rng, p, tol(k));
    }
    // alpha = 0: A and B are not read, nothing to split, C = beta·C
    let p = Problem::new(16, 4096, 4096)
        .scale(0.0, 2.0)
        .precision(precision);
    let plan = ctx.plan::<I, O>(&p.gemm()).expect("plan");
    assert_eq!(plan.split.slices, 1, "{plan:?}");
    let mut case = Case::<I, O>::with_reference_limit("alpha = 0", p, &mut rng, REFERENCE_MACS);
    case.poison_inputs();
    case.verify_on("split", &case.run(ctx), tol(4096));
}

/// TF32 `nn` on the `mma.sync` tiles that swap A and B (`KernelSpec::swaps_ab`: their CTAs compute
/// tiles of C as tiles of Cᵀ), split along K on the sm_80 path: the reduction kernel (large
/// tails) and the fused tail (a call of one column: the last CTA of each tile sums its slices)
/// sum C's tiles, not Cᵀ's. Odd sizes, `beta ≠ 0`.
#[test]
fn tf32_splits_on_the_swapped_tile() {
    let (Some(ctx), Some(off)) = (sm80_context(true), sm80_context(false)) else {
        return;
    };
    let mut rng = Rng::for_test("splitk tf32 swapped tile");
    // (m, n, k, whether the last CTA of each tile sums its slices)
    for (m, n, k, fused) in [
        (512, 512, 16384, false),
        (1000, 300, 16389, false),
        (768, 760, 16384, false),
        (1000, 1, 16389, true),
    ] {
        for p in [
            Problem::new(m, n, k),
            Problem::new(m, n, k).scale(0.75, -1.5),
        ] {
            let p = p.precision(Precision::Tf32);
            let plan = ctx.plan::<f32, f32>(&p.gemm()).expect("plan");
            assert!(plan.kernel.swaps_ab(), "{m}×{n}×{k}: {plan:?}");
            assert_eq!(plan.split.reduce.is_none(), fused, "{m}×{n}×{k}: {plan:?}");
            check::<f32, f32>(&ctx, &off, &mut rng, p, TOL_TF32_FRO);
        }
    }
}

/// One call that runs its last rows of tiles as a tail launch split along K (src/tail.rs): the
/// plan shows the tail; the result is within `tol` of the f64 reference (every entry written with
/// `beta = 0`), the same bits over repeats, and within `tol` without split-K (no tail).
fn check_tail<I: TestElem, O: TestElem>(
    ctx: &Context,
    off: &Context,
    rng: &mut Rng,
    p: Problem,
    tol: f64,
) {
    let label = format!(
        "{}->{} {}x{}x{} {} beta={}",
        I::NAME,
        O::NAME,
        p.m,
        p.n,
        p.k,
        lay(p.trans_a, p.trans_b),
        p.beta
    );
    let m = p.m;
    let case = Case::<I, O>::with_reference_limit(&label, p, rng, REFERENCE_MACS);
    let plan = run_repeatably(ctx, off, &case, 5, tol);
    let tail = plan
        .tail
        .unwrap_or_else(|| panic!("{label} should run a tail launch: {plan:?}"));
    assert!(
        tail.split.slices > 1 && (tail.row as usize) < m && tail.row % plan.kernel.c_tile().m == 0,
        "{label}: {plan:?}"
    );
}

/// Exact FP32 calls that take a tail launch: 2560³ `nt`, and `m = 64·⌈6·SMs / 20⌉ − 10` (2550 on
/// 132 SMs: 40 rows × 20 columns of 64×128 tiles, just over two rounds of 3 blocks per SM) × 2547
/// × 2503 in every layout, tails in M, N and K, padded leading dimensions, views off 16 bytes,
/// `beta ≠ 0` in two layouts.
#[test]
fn fp32_tail_launches() {
    let Some(ctx) = gpu() else { return };
    let Some(off) = no_split_context() else {
        return;
    };
    let mut rng = Rng::for_test("splitk fp32 tail");
    let m = 64 * (6 * ctx.capabilities().sm_count as usize).div_ceil(20) - 10;
    for (m, n, k, ta, tb, beta) in [
        (2560, 2560, 2560, false, true, 0.0),
        (m, 2547, 2503, false, false, 0.0),
        (m, 2547, 2503, false, true, -0.5),
        (m, 2547, 2503, true, false, 0.0),
        (m, 2547, 2503, true, true, -0.5),
    ] {
        let p = Problem::new(m, n, k)
            .trans(ta, tb)
            .pad_ld(3, 5, 7)
            .offsets(1, 2, 3)
            .scale(1.5, beta)
            .precision(Precision::Exact);
        check_tail::<f32, f32>(ctx, &off, &mut rng, p, tol_fp32(k));
    }
}

/// The `mma.sync` tiles on the sm_80 path (`force_sm80`) take a tail launch where their 128×256
/// tiles are just over whole waves: 2990×3000×3001 (12 × 24 tiles of 128×256 on 132 SMs) in
/// TF32 `nn` (the swapped tile: tiles of C 256 rows tall), f16 → f16 `nt` (the 64-deep tile, its
/// tail on the 32-deep f32-output twin, summed by the reduction kernel), bf16 → f32 `tt`, and TF32
/// `tn` with `beta ≠ 0`; padded leading dimensions.
#[test]
fn mma_sync_tail_launches() {
    let (Some(ctx), Some(off)) = (sm80_context(true), sm80_context(false)) else {
        return;
    };
    let mut rng = Rng::for_test("splitk mma.sync tail");
    let shape = |ta, tb, beta| {
        Problem::new(2990, 3000, 3001)
            .trans(ta, tb)
            .pad_ld(8, 16, 8)
            .scale(0.75, beta)
    };
    let k = 3001;
    let tf32 = |p: Problem| p.precision(Precision::Tf32);
    check_tail::<f32, f32>(
        &ctx,
        &off,
        &mut rng,
        tf32(shape(false, false, 0.0)),
        TOL_TF32_FRO,
    );
    check_tail::<f32, f32>(
        &ctx,
        &off,
        &mut rng,
        tf32(shape(true, false, -1.5)),
        TOL_TF32_FRO,
    );
    check_tail::<f16, f16>(
        &ctx,
        &off,
        &mut rng,
        shape(false, true, 0.0),
        tol_16::<f16>(k),
    );
    check_tail::<bf16, f32>(
        &ctx,
        &off,
        &mut rng,
        shape(true, true, 0.0),
        tol_16::<f32>(k),
    );
}

#[test]
fn fp32_exact_splits() {
    path::<f32, f32>(Precision::Exact, tol_fp32);
}

#[test]
fn tf32_splits() {
    path::<f32, f32>(Precision::Tf32, |_| TOL_TF32_FRO);
}

#[test]
fn f16_to_f16_splits() {
    path::<f16, f16>(Precision::Default, tol_16::<f16>);
}

#[test]
fn f16_to_f32_splits() {
    path::<f16, f32>(Precision::Default, tol_16::<f32>);
}

#[test]
fn bf16_to_bf16_splits() {
    path::<bf16, bf16>(Precision::Default, tol_16::<bf16>);
}

#[test]
fn bf16_to_f32_splits() {
    path::<bf16, f32>(Precision::Default, tol_16::<f32>);
}

/// Split calls on the persistent TMA kernels (slices as work items), on a Hopper context: for each
/// shape, the f16 plan passes `takes` (which kernel) and splits, within thread-block clusters (the
/// first slice's CTA adds the others' partials from their shared memory; `splitk::cluster_split`
/// says when) or through the workspace and the reduction kernel; f16 → f16, bf16 → f32
/// (`beta ≠ 0`) and TF32 within their tolerance, bitwise repeatable, and the same with split-K
/// off. Every caller's shapes take both ways.
fn tma_split_shapes(
    name: &str,
    shapes: &[(usize, usize, usize, bool, bool)],
    takes: impl Fn(&tcgemm::KernelSpec) -> bool,
) {
    let Some((ctx, off)) = hopper_contexts() else {
        return;
    };
    let mut rng = Rng::for_test(name);
    let mut ways = [0; 2];
    for &(m, n, k, ta, tb) in shapes {
        let p = Problem::new(m, n, k).trans(ta, tb);
        let g = p.gemm();
        let plan = ctx.plan::<f16, f16>(&g).expect("plan");
        let (cluster, reduced) = (plan.split.cluster, plan.split.reduce.is_some());
        assert!(
            plan.kernel.family.needs_tma() && takes(plan.kernel) && (cluster != reduced),
            "{g:?}: {plan:?}"
        );
        ways[usize::from(cluster)] += 1;
        check_sixteen_bit(ctx, &off, &mut rng, &p);
        let p = p.precision(Precision::Tf32);
        check::<f32, f32>(ctx, &off, &mut rng, p, TOL_TF32_FRO);
    }
    assert!(
        ways.iter().all(|&w| w > 0),
        "{name}: reduced, clustered {ways:?}"
    );
}

/// On Hopper, 96-, 128- and 256-row decode calls split on the 128-row TMA tiles, every layout.
/// (Slices of at least 20 k-tiles: shorter ones give way to an unsplit persistent tile where one
/// fills the SMs, e.g. 128×4096×4096 runs the 64×128 tile with stream-K, `tests/streamk.rs`; and
/// 16-bit `nn`/`nt` calls of 97–128 rows on one wave of 64×64 tiles take the 64×64 ping-pong tile
/// unsplit, `admission::ping_pong_streams_one_wave`.)
#[test]
fn tma_splits() {
    tma_split_shapes(
        "splitk tma",
        &[
            (96, 4096, 14336, false, false),
            (96, 4096, 14336, false, true),
            (128, 4096, 14336, true, true),
            (256, 4096, 14336, true, false),
            (96, 1536, 8192, false, false),
        ],
        |k| k.block.m == 128,
    );
}

/// On Hopper, calls of 33 to 64 rows split on the 64-row TMA tile (two `wgmma.m64n64` consumers
/// splitting the tile's columns), every layout, odd N and K tails. (64×4096×4096 `nn` runs the
/// swapped 32-wide ping-pong tile unsplit, one wave of 128 tiles: its half, 64×2048×4096, splits.)
/// And 128×1024×4160 `tt`, which the time model gives that tile in clusters of 5 since it prices
/// each partial the 128×128 tile's first CTA would add (`cost::CLUSTER_PARTIAL_KTILES`).
#[test]
fn tma_64_row_tiles_split() {
    tma_split_shapes(
        "splitk tma 64 rows",
        &[
            (64, 2048, 4096, false, false),
            (48, 2048, 4096, false, true),
            (56, 1000, 4160, true, false),
            (33, 4104, 8192, true, true),
            (128, 1024, 4160, true, true),
        ],
        |k| k.block.m == 64,
    );
}

/// On Hopper, 16-bit calls of 17 to 128 rows, at least 4096 deep, on few weight columns split on
/// the swapped 128×32 tile (`admission::few_weight_columns_deep`: a tile of Cᵀ, 128 weight
/// columns × 32 rows, stored transposed; two to four of them along the rows past 32), `nn` and
/// `nt`, row tails: f16 → f16, with `beta ≠ 0`, and bf16 → f32 within their tolerance, bitwise
/// repeatable, and the same with split-K off.
#[test]
fn sixteen_bit_splits_on_the_swapped_128x32_tile() {
    let Some((ctx, off)) = hopper_contexts() else {
        return;
    };
    let mut rng = Rng::for_test("splitk swapped 128x32");
    for (m, n, k, tb) in [
        (32, 1536, 4096, false),
        (64, 1536, 8192, true),
        (17, 1536, 4096, true),
        (40, 1536, 8192, false),
        (24, 1280, 4096, true),
        (72, 512, 4096, false),
        (88, 1024, 4096, true),
        (112, 512, 4096, false),
    ] {
        let p = Problem::new(m, n, k).trans(false, tb);
        let plans = [
            ctx.plan::<f16, f16>(&p.gemm()).expect("plan"),
            ctx.plan::<bf16, f32>(&p.gemm()).expect("plan"),
        ];
        for plan in plans {
            assert!(
                plan.kernel.name.contains("_swap_128x32x64_") && plan.split.slices > 1,
                "{m}x{n}x{k} trans_b {tb}: {plan:?}"
            );
        }
        check_sixteen_bit(ctx, &off, &mut rng, &p);
    }
}

/// On Hopper, splits within clusters of 3 to 8 CTAs, odd widths included, whose first CTA adds
/// the others' partials (`cluster_split::gather`): f16 → f16, with `beta ≠ 0`, and bf16 → f32,
/// within their tolerance, bitwise repeatable, and the same with split-K off. The shapes take 3,
/// 4, 5, 6, 7 and 8 slices on an H200 (the split-K model's, within the clusters it holds at once);
/// a device that holds fewer clusters of some width runs fewer slices, so each shape must split
/// within clusters of at least 3 CTAs, and the shapes together take at least three widths, one
/// of them odd.
#[test]
fn cluster_widths() {
    let Some((ctx, off)) = hopper_contexts() else {
        return;
    };
    let mut rng = Rng::for_test("splitk cluster widths");
    let mut widths = std::collections::BTreeSet::new();
    for (m, n, k, tb) in [
        (24, 3072, 1344, false),
        (24, 2048, 4096, true),
        (24, 3072, 1920, false),
        (16, 768, 1920, false),
        (16, 256, 5376, false),
        (16, 512, 3072, false),
    ] {
        let p = Problem::new(m, n, k).trans(false, tb);
        let plan = ctx.plan::<f16, f16>(&p.gemm()).expect("plan");
        assert!(
            plan.split.cluster && plan.split.slices >= 3,
            "{m}x{n}x{k} trans_b {tb}: {plan:?}"
        );
        widths.insert(plan.split.slices);
        check_sixteen_bit(ctx, &off, &mut rng, &p);
    }
    assert!(
        widths.len() >= 3 && widths.iter().any(|w| w % 2 == 1),
        "cluster widths {widths:?}"
    );
}

/// `Context::gemm` returns the plan it ran, split; exact inputs give the exact sum.
#[test]
fn gemm_returns_the_split_plan() {
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let g = Gemm::new(16, 4096, 4096).precision(Precision::Exact);
    let (la, lb, lc) = g.required_lens().unwrap();
    let a = s.clone_htod(&vec![1.0f32; la]).unwrap();
    let b = s.clone_htod(&vec![0.5f32; lb]).unwrap();
    let mut c = s.alloc_zeros::<f32>(lc).unwrap();
    let plan = ctx.gemm(&g, &a, &b, &mut c).unwrap().unwrap();
    assert!(plan.split.slices > 1, "{plan:?}");
    assert_eq!(plan.kernel.output, tcgemm::Elem::F32);
    let out = s.clone_dtoh(&c).unwrap();
    assert!(out.iter().all(|&x| x == 2048.0), "{:?}", &out[..8]);
    // gemm_with_kernel runs the named kernel as named: never split
    let named = ctx
        .gemm_with_kernel(plan.kernel.name, &g, &a, &b, &mut c)
        .unwrap()
        .unwrap();
    assert_eq!(named.split.slices, 1);
}

/// Random small-M shapes (and their transposed twins), each against the reference, f16 → f16.
#[test]
fn random_decode_shapes() {
    let Some(ctx) = gpu() else { return };
    let Some(off) = no_split_context() else {
        return;
    };
    let mut rng = Rng::for_test("splitk random");
    let mut split = 0;
    for _ in 0..24 {
        let m = 1 + rng.below(64);
        let n = 64 + rng.below(4096);
        let k = 512 + rng.below(8192);
        let (ta, tb) = (rng.below(2) == 1, rng.below(2) == 1);
        let (m, n) = if rng.below(2) == 1 { (n, m) } else { (m, n) };
        let p = Problem::new(m, n, k).trans(ta, tb);
        if ctx.plan::<f16, f16>(&p.gemm()).unwrap().split.slices == 1 {
            continue;
        }
        split += 1;
        let case = Case::<f16, f16>::with_reference_limit("random", p, &mut rng, REFERENCE_MACS);
        case.verify_on("split", &case.run(ctx), tol_16::<f16>(k));
        case.verify_on("no split", &case.run(&off), tol_16::<f16>(k));
    }
    assert!(split >= 12, "only {split} of 24 random decode shapes split");
}

/// On compute capability 9.0 and later the reduction kernel after a split launch is a programmatic
/// dependent launch (its sm_90 build waits for the slices on the SMs): the context says so, and on
/// every split it sums, after the TMA kernels' slices (which let it be scheduled from their start)
/// and after the sm_80 kernels' (which do not), f16 → f16 and bf16 → f32 with `beta ≠ 0` give the
/// plain launch's bits (`ContextOptions::programmatic_launch = false`), within their tolerance.
#[test]
fn reductions_launched_as_programmatic_dependents() {
    let Some(ctx) = gpu() else { return };
    if ctx.capabilities().compute_capability < (9, 0) {
        assert!(!ctx.programmatic_launch());
        return;
    }
    assert!(ctx.programmatic_launch(), "{ctx:?}");
    let plain = |force_sm80| {
        gpu_with_options(ContextOptions {
            programmatic_launch: false,
            force_sm80,
            ..Default::default()
        })
    };
    let (Some(plain), Some(plain80), Some(ctx80)) = (plain(false), plain(true), gpu_sm80()) else {
        return;
    };
    assert!(!plain.programmatic_launch() && ctx80.programmatic_launch());
    let mut rng = Rng::for_test("splitk programmatic reduction");
    let tma_shapes = [
        (96, 4096, 14336, false, false),
        (96, 4096, 14336, false, true),
        (128, 4096, 14336, true, true),
        (96, 1536, 8192, false, false),
    ];
    for (ctx, plain, shapes) in [
        (ctx, &plain, &tma_shapes[..]),
        (ctx80, &plain80, &SHAPES[..]),
    ] {
        let mut reduced = 0;
        for &(m, n, k, ta, tb) in shapes {
            let p = Problem::new(m, n, k).trans(ta, tb);
            if ctx
                .plan::<f16, f16>(&p.gemm())
                .unwrap()
                .split
                .reduce
                .is_none()
            {
                continue;
            }
            reduced += 1;
            same_bits::<f16, f16>(ctx, plain, &mut rng, p.clone(), tol_16::<f16>(k));
            same_bits::<bf16, f32>(ctx, plain, &mut rng, p.scale(0.75, -1.5), tol_16::<f32>(k));
        }
        let name = &ctx.capabilities().name;
        assert!(
            reduced > 0,
            "no shape summed by the reduction kernel on {name} ({ctx:?})"
        );
    }
}

/// `p` on `ctx` and on `plain` (the same context but for the reduction's launch): the same bits,
/// within `tol` of the reference.
fn same_bits<I: TestElem, O: TestElem>(
    ctx: &Context,
    plain: &Context,
    rng: &mut Rng,
    p: Problem,
    tol: f64,
) {
    let case = Case::<I, O>::with_reference_limit("programmatic reduction", p, rng, REFERENCE_MACS);
    let out = case.run(ctx);
    case.verify_on("programmatic launch", &out, tol);
    assert!(
        case.run(plain) == out,
        "plain launch differs bitwise: {}",
        case.describe()
    );
}
