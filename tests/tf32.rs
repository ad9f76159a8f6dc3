//! TF32 tensor-core GEMM (`mma.sync.m16n8k8` with inputs rounded by `cvt.rna.tf32.f32`; `wgmma`
//! with inputs rounded by TMA), f32 in/out, against an f64 CPU reference of the unrounded f32
//! inputs.
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).
//!
//! Tolerances, derived from TF32's unit roundoff `u = 2⁻¹¹` (10 stored mantissa bits, round to
//! nearest): each product `a·b` carries the two input roundings, a relative error of at most `2u`;
//! for independent uniform roundings an entry's error has standard deviation
//! `σ ≈ u·√(2k/27)·|alpha|` for inputs uniform in [−1, 1] (E[(ab)²] = 1/9, var(δ) = u²/3 per input),
//! against an entry of rms `√k/3`: relative `≈ 0.82·u ≈ 4e-4`, independent of k.
//! - relative Frobenius error ≤ 2e-3 (the bound; 5× the expected value);
//! - every entry: `|out − ref| ≤ |alpha|·(3·u·√k) + 2⁻²⁰·(|ref| + |beta·c|)` — about 11σ of the TF32
//!   term (a false alarm over 10⁸ entries is below 1e-20), plus the f32 accumulation and alpha/beta
//!   roundings. It grows with √k, as rounding errors of independent terms do.

use tcgemm::{Context, Elem, Family, Math, Precision, Role};
use tcgemm_testkit::*;

/// Every TF32 kernel in the table with these transposes (the seed baseline and later variants).
fn tf32_kernels(ta: bool, tb: bool) -> Vec<&'static str> {
    let v: Vec<_> = tcgemm_kernels::config::KERNELS
        .iter()
        .filter(|k| {
            k.role() == Role::Gemm
                && k.math == Math::MmaTf32
                && k.trans_a == ta
                && k.trans_b == tb
                && k.input == Elem::F32
        })
        .map(|k| k.name)
        .collect();
    let seed = format!("tf32_{}_128x128x16_w32x64_s2_seed", lay(ta, tb));
    assert!(
        v.iter().any(|n| *n == seed),
        "the seed kernel {seed} must stay in the table"
    );
    v
}

fn p(m: usize, n: usize, k: usize) -> Problem {
    Problem::new(m, n, k).precision(Precision::Tf32)
}

/// Per-entry check on top of the Frobenius one ([`tf32_entry_errors`]).
fn check_entries(case: &Case<f32, f32>, out: &[u32], ctx_name: &str) {
    if let Err(e) = tf32_entry_errors(case, out) {
        panic!("[{ctx_name}] {e}; {}", case.describe());
    }
}

/// Runs a case through the named kernel (or dispatch when `None`) on a context and checks it.
fn run_check(case: &Case<f32, f32>, ctx_name: &str, ctx: &Context, kernel: Option<&str>) {
    let out = case.run_with(ctx, kernel);
    let name = format!("{ctx_name}/{}", kernel.unwrap_or("dispatch"));
    case.verify_on(&name, &out, TOL_TF32_FRO);
    check_entries(case, &out, &name);
}

/// Checks one problem through dispatch (on every context) and through every TF32 kernel by name.
fn check(rng: &mut Rng, label: impl Into<String>, pr: Problem) -> bool {
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return false;
    }
    let (ta, tb) = (pr.trans_a, pr.trans_b);
    let case = Case::<f32, f32>::new(label, pr, rng);
    for (name, ctx) in &ctxs {
        run_check(&case, name, ctx, None);
    }
    for k in tf32_kernels(ta, tb) {
        if runs_by_name(ctxs[0].1, k, &case.p) {
            run_check(&case, ctxs[0].0, ctxs[0].1, Some(k));
        }
    }
    true
}

#[test]
fn seed_sizes_all_layouts() {
    let mut rng = Rng::for_test("seed_sizes_all_layouts");
    for n in [128usize, 256, 512, 1024] {
        for (ta, tb) in TRANS {
            if !check(
                &mut rng,
                format!("{n}^3 {}", lay(ta, tb)),
                p(n, n, n).trans(ta, tb),
            ) {
                return;
            }
        }
    }
}

/// Single products of one wave of 64-row tiles, where dispatch takes the TF32 ping-pong tiles
/// (64×64 at 640³ in every layout, and from a quarter of a wave at most 512 deep: 448³ with 49
/// tiles; 64×128 at 320×2048×2048 `nt`), and every TF32 kernel by name.
#[test]
fn one_wave_of_ping_pong_tiles() {
    let mut rng = Rng::for_test("one_wave_of_ping_pong_tiles");
    if let Some(ctx) = gpu() {
        let g = tcgemm::Gemm::new(448, 448, 448).precision(Precision::Tf32);
        let kernel = ctx.plan::<f32, f32>(&g).unwrap().kernel;
        assert!(
            !ctx.capabilities().hopper || kernel.family == Family::TmaPingPong,
            "{}",
            kernel.name
        );
    }
    for n in [640, 448] {
        for (ta, tb) in TRANS {
            let pr = p(n, n, n).trans(ta, tb);
            if !check(&mut rng, format!("{n}^3 {}", lay(ta, tb)), pr) {
                return;
            }
        }
    }
    check(
        &mut rng,
        "320x2048x2048 nt",
        p(320, 2048, 2048).trans(false, true),
    );
}

/// 1536³ `nt`: 132 tiles of 128×144, one wave (96 of 128×192 leave 36 SMs idle): on a Hopper GPU
/// dispatch takes the TF32 128×144 tile; checked by dispatch and every TF32 `nt` kernel by name.
#[test]
fn one_wave_of_128x144_tiles() {
    let mut rng = Rng::for_test("one_wave_of_128x144_tiles");
    if let Some(ctx) = gpu() {
        let g = tcgemm::Gemm::new(1536, 1536, 1536)
            .trans_b(true)
            .precision(Precision::Tf32);
        let kernel = ctx.plan::<f32, f32>(&g).unwrap().kernel;
        assert!(
            !ctx.capabilities().hopper || kernel.block.n == 144,
            "{}",
            kernel.name
        );
    }
    check(
        &mut rng,
        "1536^3 nt",
        p(1536, 1536, 1536).trans(false, true),
    );
}

/// Checks `pr` through dispatch on every context against the f64 reference, after asserting that
/// a Hopper context plans it as `hopper_plan` says (the kernel and cut a dispatch rule promises).
fn check_dispatch(rng: &mut Rng, pr: Problem, hopper_plan: impl Fn(&tcgemm::Plan) -> bool) {
    let ctxs = gpu_all();
    let label = format!("{}x{}x{} {}", pr.m, pr.n, pr.k, lay(pr.trans_a, pr.trans_b));
    if let Some((_, ctx)) = ctxs.first().filter(|(_, c)| c.capabilities().hopper) {
        let plan = ctx.plan::<f32, f32>(&pr.gemm()).unwrap();
        let (kernel, slices) = (plan.kernel.name, plan.split.slices);
        assert!(hopper_plan(&plan), "{label}: {kernel} in {slices} slices");
    }
    let case = Case::<f32, f32>::new(label, pr, rng);
    for (name, ctx) in &ctxs {
        run_check(&case, name, ctx, None);
    }
}

/// `nt` decode calls of 1 to 32 rows (the weights stored n×k): on a Hopper GPU dispatch takes the
/// TF32 swapped 32-wide ping-pong tile unsplit (`admission::streams_few_rows`), 8 to 32 rows on
/// half a wave of its tiles (4096 columns), fewer 1024 to 2048 deep, and any of them on a wave or
/// more (8192, 14336 columns); its 32 rows × 64 columns of C are stored transposed from
/// registers. Checked through dispatch on every context against the f64 reference, with row tails
/// (25, 17, 3 rows) and k tails (4100, 1028: not whole 32-deep k-tiles).
#[test]
fn few_rows_nt_on_the_swapped_32_wide_tile() {
    let mut rng = Rng::for_test("few_rows_nt_on_the_swapped_32_wide_tile");
    for (m, n, k) in [
        (24, 4096, 4096),
        (17, 4096, 4100),
        (8, 4096, 4096),
        (3, 4096, 1028),
        (1, 8192, 2048),
        (32, 8192, 4096),
        (2, 14336, 4100),
        (25, 14336, 1024),
    ] {
        check_dispatch(&mut rng, p(m, n, k).trans(false, true), |plan| {
            (
                plan.kernel.block.n,
                plan.split.slices,
                plan.kernel.swaps_ab(),
            ) == (32, 1, true)
        });
    }
}

/// `nn` decode calls of 17 to 32 rows (`Precision::Tf32`): on a Hopper GPU dispatch takes the
/// 32-row `mma.sync` tile split along K (`place::FREE_WGMMA_ROWS_TF32_NN`), the slices summed in
/// its own tail. Checked through dispatch on every context against the f64 reference, with row
/// tails (17, 29 rows) and k tails (4100, 1028).
#[test]
fn few_rows_nn_on_the_32_row_tile_split_along_k() {
    let mut rng = Rng::for_test("few_rows_nn_on_the_32_row_tile_split_along_k");
    for (m, n, k) in [
        (17, 4096, 4100),
        (24, 4096, 4096),
        (32, 4096, 1028),
        (29, 14336, 1024),
    ] {
        check_dispatch(&mut rng, p(m, n, k), |plan| {
            let kernel = plan.kernel;
            (kernel.family, kernel.block.m, plan.split.slices > 1)
                == (Family::MmaSyncMultistage, 32, true)
        });
    }
}

/// Calls of 65 to 90 rows, whose rows pad a 128-row tile (or two 64-row ones) more than √2-fold:
/// on a Hopper GPU dispatch counts them as free on the `wgmma` tiles
/// (`place::FREE_WGMMA_ROWS_PAST_64`) and takes one, where the 16- and 32-row `mma.sync` tiles
/// that pad less took them. Checked through dispatch on every context against the f64 reference,
/// with k tails (4104, 1032) in `nn` and `nt`.
#[test]
fn rows_past_64_on_wgmma_tiles() {
    let mut rng = Rng::for_test("rows_past_64_on_wgmma_tiles");
    for (m, n, k, tb) in [
        (65, 4096, 4104, true),
        (72, 14336, 1032, false),
        (88, 4096, 4096, false),
    ] {
        check_dispatch(&mut rng, p(m, n, k).trans(false, tb), |plan| {
            plan.kernel.family.persistent()
        });
    }
}

#[test]
fn seed_large_sampled() {
    let mut rng = Rng::for_test("seed_large_sampled");
    for n in [2048usize, 4096] {
        if !check(&mut rng, format!("{n}^3"), p(n, n, n)) {
            return;
        }
    }
}

#[test]
fn odd_n_of_the_seed_tests() {
    let mut rng = Rng::for_test("odd_n_of_the_seed_tests");
    for n in [129usize, 131, 133, 135, 257, 513, 1921] {
        for (ta, tb) in [(false, false), (true, true)] {
            if !check(
                &mut rng,
                format!("256x{n}x256 {}", lay(ta, tb)),
                p(256, n, 256).trans(ta, tb),
            ) {
                return;
            }
        }
    }
}

#[test]
fn odd_m_k_tails_and_unit_dims() {
    let mut rng = Rng::for_test("odd_m_k_tails_and_unit_dims");
    let shapes = [
        (1, 1, 1),
        (1, 129, 7),
        (129, 1, 33),
        (33, 65, 1),
        (127, 129, 17),
        (255, 257, 513),
        (1921, 1023, 517),
    ];
    for (m, n, k) in shapes {
        for (ta, tb) in TRANS {
            if !check(
                &mut rng,
                format!("{m}x{n}x{k} {}", lay(ta, tb)),
                p(m, n, k).trans(ta, tb),
            ) {
                return;
            }
        }
    }
}

#[test]
fn alpha_beta_ld_padding_batches_offsets() {
    let mut rng = Rng::for_test("alpha_beta_ld_padding_batches_offsets");
    let cases = [
        ("beta", p(200, 136, 72).scale(-0.75, 0.5)),
        ("padded ld", p(131, 67, 45).pad_ld(3, 5, 7)),
        (
            "padded ld tt",
            p(131, 67, 45).trans(true, true).pad_ld(1, 9, 2),
        ),
        ("batch 3", p(130, 66, 40).batched(3)),
        (
            "batch 3 padded strides beta",
            p(64, 72, 40)
                .batched(3)
                .pad_strides(5, 3, 11)
                .scale(2.0, -1.0),
        ),
        ("misaligned bases", p(129, 130, 67).offsets(1, 3, 1)),
        (
            "misaligned tn",
            p(129, 130, 67)
                .trans(true, false)
                .offsets(1, 1, 2)
                .pad_ld(1, 1, 1),
        ),
    ];
    for (label, pr) in cases {
        if !check(&mut rng, label, pr) {
            return;
        }
    }
}

#[test]
fn random_shapes() {
    let mut rng = Rng::for_test("random_shapes");
    for i in 0..200 {
        let (m, n, k) = (rng.range(1, 1100), rng.range(1, 1100), rng.range(1, 1100));
        let (ta, tb) = (rng.chance(0.5), rng.chance(0.5));
        let mut pr = p(m, n, k).trans(ta, tb);
        if rng.chance(0.3) {
            pr = pr.pad_ld(rng.below(9), rng.below(9), rng.below(9));
        }
        if rng.chance(0.3) {
            pr = pr.scale(rng.pm1() as f32 * 2.0, rng.pm1() as f32);
        }
        if !check(&mut rng, format!("random #{i}"), pr) {
            return;
        }
    }
}

#[test]
fn deterministic_100_runs() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("deterministic_100_runs");
    // nn on an odd shape (sm_80 kernels), nt on an aligned one (the Hopper TMA kernel too)
    for pr in [p(513, 257, 1025), p(520, 264, 1032).trans(false, true)] {
        let (ta, tb) = (pr.trans_a, pr.trans_b);
        let case = Case::<f32, f32>::new(
            format!("{}x{}x{} {}", pr.m, pr.n, pr.k, lay(ta, tb)),
            pr,
            &mut rng,
        );
        for kname in tf32_kernels(ta, tb) {
            if !runs_by_name(ctx, kname, &case.p) {
                continue;
            }
            let first = case.run_with(ctx, Some(kname));
            case.verify_on(kname, &first, TOL_TF32_FRO);
            for r in 1..100 {
                let again = case.run_with(ctx, Some(kname));
                assert!(
                    again == first,
                    "{kname}: run {r} differs bitwise from run 0; {}",
                    case.describe()
                );
            }
        }
    }
}

/// The TF32 patterns of `x` rounded to nearest with ties away from zero (`cvt.rna.tf32.f32`), to
/// nearest with ties to even, and truncated: an f32 keeps the top 10 of its 23 mantissa bits.
fn tf32_roundings(x: u32) -> [u32; 3] {
    const LOW: u32 = (1 << 13) - 1;
    let away = (x + (1 << 12)) & !LOW;
    let even = (x + (1 << 12) - 1 + ((x >> 13) & 1)) & !LOW;
    [away, even, x & !LOW]
}

/// Finite f32 patterns that tell the roundings apart: random sign, exponent (2⁻²⁷…2²⁷) and
/// mantissa, the low 13 bits forced to an exact tie, just below or above one, or the whole
/// mantissa to ones (rounding up carries into the exponent) on half of them.
fn rounding_probe(rng: &mut Rng) -> u32 {
    let sign = rng.next_u32() & 0x8000_0000;
    let exp = rng.range(100, 154) as u32;
    let mut mant = rng.next_u32() & 0x7F_FFFF;
    mant = match rng.below(8) {
        0 => (mant & !0x1FFF) | 0x1000,
        1 => (mant & !0x1FFF) | 0x0FFF,
        2 => (mant & !0x1FFF) | 0x1001,
        3 => 0x7F_FFFF,
        _ => mant,
    };
    sign | (exp << 23) | mant
}

/// Every TF32 path rounds its inputs to nearest, with one tie rule per kernel: `X·I` and `I·X` (I
/// the identity, so every product is one rounded input times 1 and the sum is exact) must return
/// X's entries rounded to nearest, bit for bit, on dispatch (every context) and on every TF32
/// kernel by name, in every layout. The tie rule is the kernel's mechanism ([`tie_rule`]).
/// Dispatch may take either; each run must keep one rule. A 200-sized square leaves row, column
/// and k tails on every tile.
#[test]
fn every_kernel_rounds_inputs_to_nearest() {
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return;
    }
    let mut rng = Rng::for_test("every_kernel_rounds_inputs_to_nearest");
    const N: usize = 200;
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        for x_is_a in [true, false] {
            let pr = p(N, N, N).trans(ta, tb);
            let label = format!("{} {}", lay(ta, tb), if x_is_a { "X·I" } else { "I·X" });
            let mut case = Case::<f32, f32>::new(label.clone(), pr, &mut rng);
            // (row, col) of the logical operand to its index in the allocation
            let (la, lb) = (case.p.layout_a(), case.p.layout_b());
            let at_a =
                |r: usize, c: usize| la.offset + if ta { la.at(0, c, r) } else { la.at(0, r, c) };
            let at_b =
                |r: usize, c: usize| lb.offset + if tb { lb.at(0, c, r) } else { lb.at(0, r, c) };
            let mut x = vec![0u32; N * N];
            for r in 0..N {
                for c in 0..N {
                    x[r * N + c] = rounding_probe(&mut rng);
                    let one = if r == c { 1f32.to_bits() } else { 0 };
                    let (va, vb) = if x_is_a {
                        (x[r * N + c], one)
                    } else {
                        (one, x[r * N + c])
                    };
                    case.a[at_a(r, c)] = va;
                    case.b[at_b(r, c)] = vb;
                }
            }
            let lc = case.p.layout_c();
            let mut runs: Vec<(String, &Context, Option<&str>)> = ctxs
                .iter()
                .map(|(n, c)| (format!("{n}/dispatch"), *c, None))
                .collect();
            for k in tf32_kernels(ta, tb) {
                if runs_by_name(ctxs[0].1, k, &case.p) {
                    runs.push((format!("{}/{k}", ctxs[0].0), ctxs[0].1, Some(k)));
                }
            }
            for (name, ctx, kernel) in runs {
                let out = case.run_with(ctx, kernel);
                // per entry: which of (ties away, ties to even, truncation) it equals
                let mut hits = [0usize; 3];
                let mut first_off = None;
                for r in 0..N {
                    for c in 0..N {
                        let got = out[lc.offset + lc.at(0, r, c)];
                        let modes = tf32_roundings(x[r * N + c]);
                        for (h, m) in hits.iter_mut().zip(modes) {
                            *h += usize::from(got == m);
                        }
                        if got != modes[0] && got != modes[1] {
                            first_off.get_or_insert((r, c, x[r * N + c], got, modes));
                        }
                    }
                }
                let [away, even, trunc] = hits;
                let rule = match (away == N * N, even == N * N) {
                    (true, _) => TieRule::Away,
                    (false, true) => TieRule::Even,
                    (false, false) => TieRule::Neither,
                };
                let want = kernel.map(|k| {
                    let spec = tcgemm_kernels::config::find_kernel(k).expect("a table kernel");
                    tie_rule(spec, ctx.capabilities().compute_capability)
                });
                println!(
                    "{name} ({label}): {rule:?}; of {} entries {away} match ties-away, {even} \
                     ties-to-even, {trunc} truncation",
                    N * N
                );
                let wrong = rule == TieRule::Neither || want.is_some_and(|w| w != rule);
                assert!(
                    !wrong,
                    "{name}: inputs not rounded to nearest by the kernel's rule ({want:?}): {away} \
                     of {} entries match ties-away, {even} ties-to-even, {trunc} truncation; \
                     first entry off both nearest roundings (row, col, x, got, [away, even, \
                     trunc]): {first_off:x?}; {}",
                    N * N,
                    case.describe()
                );
            }
        }
    }
}

/// The tie rule of a TF32 kernel's operand rounding on a device of compute capability `cc`
/// (docs/precision.md): TMA rounds to even; the `mma.sync` kernels' `cvt.rn.tf32.f32` rounds to
/// even on sm_90 and later, their two-instruction rounding before that ties away from zero, as
/// the seed's `cvt.rna.tf32.f32` does everywhere.
fn tie_rule(spec: &tcgemm_kernels::config::KernelSpec, cc: (u32, u32)) -> TieRule {
    // a device from 9.0 runs the `sm_90` module's builds where there are any (`built_in`)
    let sm90_build = cc >= (9, 0) && spec.built_in(tcgemm_kernels::config::Target::Sm90);
    if spec.family.needs_tma() || sm90_build {
        TieRule::Even
    } else {
        TieRule::Away
    }
}

/// How a run rounded X to TF32: every entry to nearest with ties away from zero (an entry that is
/// not a tie matches both nearest rules), every entry to nearest with ties to even, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TieRule {
    Away,
    Even,
    Neither,
}
