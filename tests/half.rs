//! FP16 and BF16 tensor-core GEMM (`mma.sync.m16n8k16`, f32 accumulation), output f32 or the input
//! type, against an f64 CPU reference of the same 16-bit inputs (so input rounding is not error).
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).
//!
//! Tolerances (relative Frobenius error), derived from the precisions involved:
//! - products of two 16-bit values are exact in f32 (11 + 11 or 8 + 8 significant bits ≤ 24);
//! - accumulation is f32 inside the tensor core, whose adder aligns and may truncate rather than
//!   round; a truncation error is biased, so it is bounded by `k·2⁻²³` relative to `Σ|a·b|`, which
//!   for uniform inputs is `≈ (3/4)·√k` times the rms entry (E|ab| = 1/4, rms entry √k/3):
//!   `acc_tol(k) = 2⁻²³·k·(3/4)·…` is far too pessimistic for random errors, so we use the
//!   random-walk estimate with a 16× margin, `16·2⁻²⁴·√k`, floored like the FP32 path;
//! - a 16-bit output is rounded once at the end: relative rms `u/√3` with `u = 2⁻¹¹` (f16) or `2⁻⁸`
//!   (bf16); the bound adds `2u` (3.5σ of that term, which is a sum over every entry and so
//!   concentrates tightly).

use half::{bf16, f16};
use tcgemm::{Context, Family, Math, Role};
use tcgemm_testkit::*;

/// Every 16-bit kernel with these types and transposes.
fn kernels<I: TestElem, O: TestElem>(ta: bool, tb: bool) -> Vec<&'static str> {
    let v: Vec<_> = tcgemm_kernels::config::KERNELS
        .iter()
        .filter(|k| {
            // f16-accumulation kernels have their own test and tolerance (tol_acc16)
            k.role() == Role::Gemm
                && k.math != Math::MmaF16F16
                && k.input == I::ELEM
                && k.output == O::ELEM
                && k.trans_a == ta
                && k.trans_b == tb
        })
        .map(|k| k.name)
        .collect();
    assert!(
        !v.is_empty(),
        "no {}->{} kernel for {}",
        I::NAME,
        O::NAME,
        lay(ta, tb)
    );
    v
}

fn run_check<I: TestElem, O: TestElem>(
    case: &Case<I, O>,
    ctx_name: &str,
    ctx: &Context,
    kernel: Option<&str>,
) {
    let out = case.run_with(ctx, kernel);
    case.verify_on(
        &format!("{ctx_name}/{}", kernel.unwrap_or("dispatch")),
        &out,
        tol_16::<O>(case.p.k),
    );
}

/// Dispatch on every context, then every kernel of the type pair by name.
fn check<I: TestElem, O: TestElem>(rng: &mut Rng, label: impl Into<String>, pr: Problem) -> bool {
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return false;
    }
    let (ta, tb) = (pr.trans_a, pr.trans_b);
    let case = Case::<I, O>::new(label, pr, rng);
    for (name, ctx) in &ctxs {
        run_check(&case, name, ctx, None);
    }
    for k in kernels::<I, O>(ta, tb) {
        if !runs_by_name(ctxs[0].1, k, &case.p) {
            continue;
        }
        run_check(&case, ctxs[0].0, ctxs[0].1, Some(k));
    }
    true
}

/// Runs `f::<I, O>` for the four type pairs.
macro_rules! all_types {
    ($f:ident, $rng:expr) => {
        let _ = $f::<f16, f32>($rng)
            && $f::<f16, f16>($rng)
            && $f::<bf16, f32>($rng)
            && $f::<bf16, bf16>($rng);
    };
}

fn squares<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    for n in [128usize, 256, 1024] {
        for (ta, tb) in TRANS {
            if !check::<I, O>(
                rng,
                format!("{n}^3 {}", lay(ta, tb)),
                Problem::new(n, n, n).trans(ta, tb),
            ) {
                return false;
            }
        }
    }
    for n in [4096usize, 8192] {
        if !check::<I, O>(rng, format!("{n}^3"), Problem::new(n, n, n)) {
            return false;
        }
    }
    true
}

#[test]
fn squares_all_layouts() {
    let mut rng = Rng::for_test("squares_all_layouts");
    all_types!(squares, &mut rng);
}

fn odd<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    let shapes = [
        (1, 1, 1),
        (1, 129, 7),
        (129, 1, 33),
        (33, 65, 1),
        (127, 129, 17),
        (255, 1921, 513),
        (1921, 1023, 517),
        (131, 129, 9),
    ];
    for (m, n, k) in shapes {
        for (ta, tb) in TRANS {
            if !check::<I, O>(
                rng,
                format!("{m}x{n}x{k} {}", lay(ta, tb)),
                Problem::new(m, n, k).trans(ta, tb),
            ) {
                return false;
            }
        }
    }
    true
}

#[test]
fn odd_shapes_all_layouts() {
    let mut rng = Rng::for_test("odd_shapes_all_layouts");
    all_types!(odd, &mut rng);
}

fn layouts<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    let cases = [
        ("beta", Problem::new(200, 136, 72).scale(-0.75, 0.5)),
        ("padded ld", Problem::new(131, 67, 45).pad_ld(3, 5, 7)),
        (
            "padded ld tt",
            Problem::new(131, 67, 45).trans(true, true).pad_ld(1, 9, 2),
        ),
        ("batch 3", Problem::new(130, 66, 40).batched(3)),
        (
            "batch 3 padded strides beta",
            Problem::new(64, 72, 40)
                .batched(3)
                .pad_strides(5, 3, 11)
                .scale(2.0, -1.0),
        ),
        ("broadcast B", {
            let mut p = Problem::new(64, 72, 40).batched(3);
            p.stride_b = Some(0);
            p
        }),
        (
            "misaligned bases",
            Problem::new(129, 130, 67).offsets(1, 3, 1),
        ),
        (
            "misaligned nt",
            Problem::new(129, 130, 67)
                .trans(false, true)
                .offsets(1, 1, 2)
                .pad_ld(1, 1, 1),
        ),
    ];
    for (label, pr) in cases {
        if !check::<I, O>(rng, label, pr) {
            return false;
        }
    }
    true
}

#[test]
fn alpha_beta_ld_batches_misaligned() {
    let mut rng = Rng::for_test("alpha_beta_ld_batches_misaligned");
    all_types!(layouts, &mut rng);
}

fn random<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    for i in 0..200 {
        let (m, n, k) = (rng.range(1, 1100), rng.range(1, 1100), rng.range(1, 1100));
        let (ta, tb) = (rng.chance(0.5), rng.chance(0.5));
        let mut pr = Problem::new(m, n, k).trans(ta, tb);
        if rng.chance(0.3) {
            pr = pr.pad_ld(rng.below(9), rng.below(9), rng.below(9));
        }
        if rng.chance(0.3) {
            pr = pr.scale(rng.pm1() as f32 * 2.0, rng.pm1() as f32);
        }
        if !check::<I, O>(rng, format!("random #{i}"), pr) {
            return false;
        }
    }
    true
}

#[test]
fn random_shapes() {
    let mut rng = Rng::for_test("random_shapes");
    all_types!(random, &mut rng);
}

#[test]
fn batched_1000_of_64_cubed() {
    let mut rng = Rng::for_test("batched_1000_of_64_cubed");
    if !check::<f16, f32>(
        &mut rng,
        "1000x64^3",
        Problem::new(64, 64, 64).batched(1000),
    ) {
        return;
    }
    check::<bf16, bf16>(
        &mut rng,
        "1000x64^3",
        Problem::new(64, 64, 64).batched(1000),
    );
}

#[test]
fn f16_range_limits_overflow_to_inf() {
    use cudarc::driver::CudaSlice;
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    // 65504 (f16 max) · 2 summed twice overflows f16 output to +inf; the f32 output holds the value.
    let (m, n, k) = (16usize, 16usize, 32usize);
    let a = vec![f16::from_f32(65504.0); m * k];
    let b = vec![f16::from_f32(1.0); k * n];
    let da: CudaSlice<f16> = s.clone_htod(&a).unwrap();
    let db: CudaSlice<f16> = s.clone_htod(&b).unwrap();
    let mut c16: CudaSlice<f16> = s.clone_htod(&vec![f16::from_f32(7.0); m * n]).unwrap();
    let mut c32: CudaSlice<f32> = s.clone_htod(&vec![7.0f32; m * n]).unwrap();
    let g = tcgemm::Gemm::new(m, n, k);
    ctx.gemm(&g, &da, &db, &mut c16).unwrap();
    ctx.gemm(&g, &da, &db, &mut c32).unwrap();
    let h16 = s.clone_dtoh(&c16).unwrap();
    let h32 = s.clone_dtoh(&c32).unwrap();
    s.synchronize().unwrap();
    assert!(
        h16.iter().all(|x| x.to_f32() == f32::INFINITY),
        "f16 output must overflow to +inf: {:?}",
        &h16[..4]
    );
    assert!(
        h32.iter().all(|x| *x == 65504.0 * 32.0),
        "f32 output holds 65504·32: {:?}",
        &h32[..4]
    );
    // subnormal inputs: 2⁻²⁴ (smallest f16 subnormal) · 1, k times, is exact in f32
    let a = vec![f16::from_bits(1); m * k];
    let da: CudaSlice<f16> = s.clone_htod(&a).unwrap();
    ctx.gemm(&g, &da, &db, &mut c32).unwrap();
    let h32 = s.clone_dtoh(&c32).unwrap();
    s.synchronize().unwrap();
    let want = k as f32 * 2f32.powi(-24);
    assert!(
        h32.iter().all(|x| *x == want),
        "subnormal f16 inputs: got {:?}, want {want:e}",
        &h32[..4]
    );
}

#[test]
fn deterministic_100_runs() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("deterministic_100_runs");
    // an odd shape (sm_80 kernels only: TMA needs 16-byte leading dimensions) and an aligned one
    // that every kernel, the Hopper TMA kernels included, accepts
    for p in [Problem::new(513, 257, 1025), Problem::new(520, 264, 1032)] {
        let label = format!("{}x{}x{}", p.m, p.n, p.k);
        let case = Case::<bf16, f32>::new(label, p, &mut rng);
        let mut ran = 0;
        for kname in kernels::<bf16, f32>(false, false) {
            if !runs_by_name(ctx, kname, &case.p) {
                continue;
            }
            ran += 1;
            let first = case.run_with(ctx, Some(kname));
            case.verify_on(kname, &first, tol_16::<f32>(case.p.k));
            for r in 1..100 {
                let again = case.run_with(ctx, Some(kname));
                assert!(
                    again == first,
                    "{kname}: run {r} differs bitwise from run 0; {}",
                    case.describe()
                );
            }
        }
        assert!(ran > 0, "no kernel ran {}", case.describe());
    }
}

#[test]
fn f16_accumulation_all_layouts_and_random() {
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return;
    }
    let mut rng = Rng::for_test("f16_accumulation_all_layouts_and_random");
    let mut shapes = vec![
        (1, 1, 1),
        (127, 129, 17),
        (255, 257, 513),
        (1024, 1024, 1024),
    ];
    for _ in 0..50 {
        shapes.push((rng.range(1, 700), rng.range(1, 700), rng.range(1, 700)));
    }
    for (idx, &(m, n, k)) in shapes.iter().enumerate() {
        let (ta, tb) = TRANS[idx % 4];
        let p = Problem::new(m, n, k)
            .trans(ta, tb)
            .precision(tcgemm::Precision::F16Accumulate);
        let case = Case::<f16, f16>::new(format!("acc16 {m}x{n}x{k} {}", lay(ta, tb)), p, &mut rng);
        for (name, ctx) in &ctxs {
            let plan = ctx.plan::<f16, f16>(&case.p.gemm()).unwrap();
            assert_eq!(
                plan.kernel.math,
                tcgemm::Math::MmaF16F16,
                "F16Accumulate must dispatch to f16 accumulation"
            );
            let out = case.run(ctx);
            case.verify_on(name, &out, tol_acc16(k));
        }
    }
}

/// Calls whose 128×144 tiles fill a wave that wider tiles leave short (1536³: 132 tiles; 2112³:
/// 255, nearly two waves): on a Hopper GPU dispatch takes the 128×144 tile, B K-major (`nt`,
/// `tt`) or in `nn` swapped (`nn_swap`: the call's B as its MN-major A, a 144×128 tile of C stored
/// transposed); its consumers store C from registers (144 columns are not whole 128-byte chunks
/// of C's tensor map). Checked against the f64 reference on every GPU.
fn wave_of_128x144_tiles<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    let Some(ctx) = gpu() else { return false };
    for (n, (ta, tb)) in [
        (1536, (false, true)),
        (1536, (true, true)),
        (1536, (false, false)),
        (2112, (false, true)),
        (2112, (false, false)),
    ] {
        let g = tcgemm::Gemm::new(n, n, n).trans_a(ta).trans_b(tb);
        let kernel = ctx.plan::<I, O>(&g).unwrap().kernel;
        if ctx.capabilities().hopper {
            assert_eq!(
                kernel.block.n,
                144,
                "{n}^3 {}: {}",
                lay(ta, tb),
                kernel.name
            );
        }
        let label = format!("{n}^3 {}", lay(ta, tb));
        let case = Case::<I, O>::new(label, Problem::new(n, n, n).trans(ta, tb), rng);
        run_check(&case, "default", ctx, None);
    }
    true
}

#[test]
fn one_wave_of_128x144_tiles() {
    let mut rng = Rng::for_test("one_wave_of_128x144_tiles");
    all_types!(wave_of_128x144_tiles, &mut rng);
}

/// Calls of 97 to 128 rows whose 64×64 tiles fill one wave (4096 columns), at least 4096 deep,
/// `nn` and `nt`: on a Hopper GPU dispatch takes the 64×64 ping-pong tile unsplit
/// (`admission::ping_pong_streams_one_wave`), each CTA one tile over all of k; and calls of 65 to
/// 90 rows take a `wgmma` tile (their rows free on it, `place::FREE_WGMMA_ROWS_PAST_64`). Checked
/// against the f64 reference on every GPU, with row tails (100, 65, 72 rows) and k tails.
fn rows_of_one_wave_of_64x64_tiles<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    let Some(ctx) = gpu() else { return false };
    for (m, n, k, tb) in [
        (128, 4096, 8192, false),
        (100, 4096, 4112, true),
        (65, 14336, 4096, true),
        (72, 4096, 1040, false),
    ] {
        let g = tcgemm::Gemm::new(m, n, k).trans_b(tb);
        let plan = ctx.plan::<I, O>(&g).unwrap();
        if ctx.capabilities().hopper {
            let kernel = plan.kernel;
            let pp = (
                kernel.family,
                kernel.block.m,
                kernel.block.n,
                plan.split.slices,
            ) == (Family::TmaPingPong, 64, 64, 1);
            assert!(
                if m > 96 {
                    pp
                } else {
                    kernel.family.persistent()
                },
                "{m}x{n}x{k} {}: {}",
                lay(false, tb),
                kernel.name
            );
        }
        let label = format!("{m}x{n}x{k} {}", lay(false, tb));
        let case = Case::<I, O>::new(label, Problem::new(m, n, k).trans(false, tb), rng);
        for (name, ctx) in gpu_all() {
            run_check(&case, name, ctx, None);
        }
    }
    true
}

#[test]
fn one_wave_of_64x64_ping_pong_tiles() {
    let mut rng = Rng::for_test("one_wave_of_64x64_ping_pong_tiles");
    all_types!(rows_of_one_wave_of_64x64_tiles, &mut rng);
}

/// Decode rows whose 32-wide tiles fill one wave (at most 64 rows, 4096 columns; `nn` on the
/// swapped tile, 32 rows × 64 columns of C), `nn` and `nt` calls of 8 to 32 rows (fewer up to 2048
/// deep) on half a wave of swapped tiles, `nt` calls of 1 to 32 rows on a wave or more of them,
/// and `nn` and `nt` calls of 33 to 128 rows on a share of a wave of them (33–64 rows: under 4096
/// columns; `admission::rows_over_32_on_swapped_tiles`): on a Hopper GPU dispatch takes the 64×32
/// ping-pong tile unsplit (`admission::decode_rows`, `admission::streams_few_rows`), each CTA one
/// tile over all of k; its consumers store C from registers where 32 columns are not whole
/// 128-byte chunks (16-bit C) or the tile is swapped (stored transposed), by TMA where they are
/// (f32 C). Checked against the f64 reference on every GPU, 48, 25, 17, 12, 5, 3, 65, 72, 100, 40
/// and 33 rows leaving row tails, and k tails.
fn decode_rows_of_32_wide_tiles<I: TestElem, O: TestElem>(rng: &mut Rng) -> bool {
    let Some(ctx) = gpu() else { return false };
    // (`nn`, and `nt` of at most 32 rows: the swapped tile, 32 rows × 64 columns of C, stored
    // transposed; from 8 to 32 rows on half a wave too, fewer up to 2048 deep, and `nt` of at
    // most 32 rows on 128 or 224 tiles, `admission::streams_few_rows`)
    for (m, n, k, ta, tb) in [
        (48, 4096, 4096, false, true),
        (64, 4096, 4128, true, true),
        (48, 4096, 4128, false, false),
        (64, 4096, 4096, false, false),
        (17, 4096, 4128, false, false),
        (12, 4096, 4096, false, false),
        (5, 4096, 1056, false, false),
        (24, 4096, 4096, false, true),
        (17, 4096, 4128, false, true),
        (3, 8192, 2080, false, true),
        (2, 14336, 1024, false, true),
        (25, 14336, 1056, false, true),
        (65, 2048, 2048, false, false),
        (72, 2048, 4080, false, true),
        (96, 2560, 1056, false, false),
        (100, 1536, 2016, false, false),
        (128, 2048, 4096, false, true),
        (48, 2048, 2048, false, true),
        (40, 3072, 1056, false, false),
        (33, 1536, 2016, false, true),
    ] {
        let g = tcgemm::Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
        let plan = ctx.plan::<I, O>(&g).unwrap();
        if ctx.capabilities().hopper {
            let kernel = plan.kernel;
            assert_eq!(
                (kernel.block.n, plan.split.slices, kernel.swaps_ab()),
                (32, 1, !ta && (!tb || m <= 32 || m > 64 || n < 4096)),
                "{m}x{n}x{k} {}: {}",
                lay(ta, tb),
                kernel.name
            );
        }
        let label = format!("{m}x{n}x{k} {}", lay(ta, tb));
        let case = Case::<I, O>::new(label, Problem::new(m, n, k).trans(ta, tb), rng);
        run_check(&case, "default", ctx, None);
    }
    true
}

#[test]
fn decode_rows_of_32_wide_tiles_all_types() {
    let mut rng = Rng::for_test("decode_rows_of_32_wide_tiles");
    all_types!(decode_rows_of_32_wide_tiles, &mut rng);
}

/// On a Hopper GPU, dispatch takes the TMA kernels exactly where TMA's rules hold (16-byte-aligned
/// leading dimensions, k ≥ 1, alpha ≠ 0), in every layout, for f16 and tf32, or on staged packed
/// copies of the operands that break them, and the sm_80 kernels elsewhere; with `force_sm80`
/// never.
#[test]
fn hopper_dispatch_takes_tma_kernels_only_where_tma_rules_hold() {
    use tcgemm::Gemm;
    let Some(ctx) = gpu() else { return };
    if !ctx.capabilities().hopper {
        eprintln!("not a Hopper GPU (no sm_90a module): no TMA dispatch to check");
        return;
    }
    let tma = |g: &Gemm| ctx.plan::<f16, f16>(g).unwrap().kernel.family.needs_tma();
    let g = Gemm::new(4096, 4096, 4096);
    assert!(tma(&g), "aligned 4096^3 f16 should take a TMA kernel");
    // 4096x2048: 256 tiles of 128x256, enough to fill the GPU (dispatch takes smaller tiles, TMA
    // 128x128 or sm_80 ones, where these would leave SMs idle)
    let t = Gemm::new(4096, 2048, 512);
    for (a, b) in TRANS {
        let g = t.trans_a(a).trans_b(b);
        assert!(tma(&g), "f16 layout {}", lay(a, b));
        let tf32 = ctx
            .plan::<f32, f32>(&g.precision(tcgemm::Precision::Tf32))
            .unwrap();
        assert!(tf32.kernel.family.needs_tma(), "tf32 layout {}", lay(a, b));
    }
    // 2048x1024: 64 tiles of 128x256 (48% of 132 SMs), 128 of 128x128 (97%): the 128x128 TMA tile
    let mid = ctx
        .plan::<f16, f16>(&Gemm::new(2048, 1024, 512))
        .unwrap()
        .kernel;
    assert!(mid.family.needs_tma() && mid.block.n == 128, "{}", mid.name);
    // lda of 4100 halves = 8200 bytes, not a multiple of 16: TMA reads A only from a staged,
    // packed copy, and without staging no TMA kernel runs the call
    let odd = ctx.plan::<f16, f16>(&g.lda(4100)).unwrap();
    assert!(
        odd.staged.a && !odd.staged.b && odd.kernel.family.needs_tma(),
        "{odd:?}"
    );
    let unstaged = gpu_with_options(tcgemm::ContextOptions {
        staging_limit: 0,
        ..Default::default()
    });
    if let Some(u) = unstaged {
        assert!(!u
            .plan::<f16, f16>(&g.lda(4100))
            .unwrap()
            .kernel
            .family
            .needs_tma());
    }
    assert!(tma(&g.lda(4104)));
    assert!(!tma(&g.alpha(0.0)));
    if let Some(c80) = gpu_sm80() {
        assert!(!c80.plan::<f16, f16>(&g).unwrap().kernel.family.needs_tma());
    }
}
