//! FP32 (exact, FFMA) GEMM against an f64 CPU reference.
//!
//! Needs a CUDA GPU: without one every test prints `skipped: no CUDA GPU (...)` and passes, unless
//! `TCGEMM_REQUIRE_GPU=1`, which turns the missing GPU into a failure. Cases are random
//! (`TCGEMM_SEED` replays a run; the seed is printed with every failure). Each case runs through
//! the default context and through one with `force_sm80`, sharing the reference.

use tcgemm::{ContextOptions, Elem, Math, Precision, Role, Target};
use tcgemm_testkit::*;

/// An FP32 problem with exact (non-TF32) arithmetic requested.
fn p32(m: usize, n: usize, k: usize) -> Problem {
    Problem::new(m, n, k).precision(Precision::Exact)
}

/// Builds the case once and checks it on every context.
fn check(rng: &mut Rng, label: impl Into<String>, p: Problem) -> Option<Case<f32, f32>> {
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return None;
    }
    let case = Case::<f32, f32>::new(label, p, rng);
    let t = tol_fp32(case.p.k);
    for (name, ctx) in ctxs {
        case.run_and_verify(name, ctx, t);
    }
    Some(case)
}

#[test]
fn tiny_and_unit_dims() {
    let mut rng = Rng::for_test("tiny_and_unit_dims");
    let shapes = [
        (1, 1, 1),
        (1, 1, 7),
        (1, 1, 1000),
        (1, 513, 257),
        (257, 1, 513),
        (129, 257, 1),
        (1, 1, 4097),
        (2, 3, 5),
        (7, 9, 3),
    ];
    for (m, n, k) in shapes {
        for (ta, tb) in TRANS {
            let label = format!("{m}x{n}x{k} {}", lay(ta, tb));
            if check(&mut rng, label, p32(m, n, k).trans(ta, tb)).is_none() {
                return;
            }
        }
    }
}

#[test]
fn odd_sizes() {
    let mut rng = Rng::for_test("odd_sizes");
    let shapes = [
        (129, 257, 513),
        (257, 513, 129),
        (513, 129, 257),
        (1921, 129, 257),
        (129, 1921, 257),
        (257, 129, 1921),
        (1921, 1023, 517),
        (127, 255, 511),
        (130, 66, 34),
    ];
    for (m, n, k) in shapes {
        if check(&mut rng, format!("{m}x{n}x{k}"), p32(m, n, k)).is_none() {
            return;
        }
    }
}

#[test]
fn squares() {
    let mut rng = Rng::for_test("squares");
    // 4096³ is checked on a sample of entries (see tcgemm_testkit::FULL_REFERENCE_MAX_MACS).
    for s in [128, 1024, 4096] {
        if check(&mut rng, format!("{s}^3"), p32(s, s, s)).is_none() {
            return;
        }
    }
}

#[test]
fn all_transposes() {
    let mut rng = Rng::for_test("all_transposes");
    for (m, n, k) in [(513, 257, 129), (1921, 1023, 517), (67, 131, 259)] {
        for (ta, tb) in TRANS {
            let label = format!("{m}x{n}x{k} {}", lay(ta, tb));
            if check(&mut rng, label, p32(m, n, k).trans(ta, tb)).is_none() {
                return;
            }
        }
    }
}

#[test]
fn padded_leading_dimensions() {
    let mut rng = Rng::for_test("padded_leading_dimensions");
    // Each operand alone, then all; vector-friendly (+4, +8) and odd (+1, +3, +7) paddings.
    let pads = [
        (5, 0, 0),
        (0, 3, 0),
        (0, 0, 7),
        (4, 4, 4),
        (8, 0, 8),
        (1, 1, 1),
        (0, 0, 1),
    ];
    for (pa, pb, pc) in pads {
        for (ta, tb) in TRANS {
            let p = p32(257, 129, 191).trans(ta, tb).pad_ld(pa, pb, pc);
            let label = format!("257x129x191 {} ld+({pa},{pb},{pc})", lay(ta, tb));
            if check(&mut rng, label, p).is_none() {
                return;
            }
        }
    }
    // A tile-multiple shape, so only the padding differs from the packed fast path.
    for (ta, tb) in TRANS {
        let p = p32(256, 256, 128).trans(ta, tb).pad_ld(4, 12, 4);
        if check(
            &mut rng,
            format!("256x256x128 {} ld+(4,12,4)", lay(ta, tb)),
            p,
        )
        .is_none()
        {
            return;
        }
    }
}

#[test]
fn alpha_and_beta() {
    let mut rng = Rng::for_test("alpha_and_beta");
    let scales = [
        (1.0, 1.0),
        (-1.5, 0.0),
        (0.25, -0.75),
        (2.0, 2.5),
        (-0.5, 1.0),
        (1.0, -1.0),
    ];
    for (alpha, beta) in scales {
        for (ta, tb) in [(false, false), (true, true)] {
            let p = p32(257, 129, 200).trans(ta, tb).scale(alpha, beta);
            let label = format!("257x129x200 {} alpha={alpha} beta={beta}", lay(ta, tb));
            if check(&mut rng, label, p).is_none() {
                return;
            }
        }
    }
    let p = p32(300, 200, 100)
        .trans(false, true)
        .pad_ld(3, 1, 5)
        .scale(0.75, 0.5);
    check(&mut rng, "300x200x100 NT padded alpha=0.75 beta=0.5", p);
}

#[test]
fn batched() {
    let mut rng = Rng::for_test("batched");
    let (m, n, k) = (129, 67, 100);
    let cases: Vec<(&str, Problem)> = vec![
        ("batch 3 packed", p32(m, n, k).batched(3)),
        (
            "batch 3 packed beta",
            p32(m, n, k).batched(3).scale(1.5, -0.5),
        ),
        (
            "batch 3 padded strides",
            p32(m, n, k).batched(3).pad_strides(7, 13, 5),
        ),
        (
            "batch 3 aligned padded strides",
            p32(m, n, k).batched(3).pad_strides(64, 32, 128),
        ),
        (
            "batch 3 padded ld+strides TN",
            p32(m, n, k)
                .trans(true, false)
                .batched(3)
                .pad_ld(1, 2, 3)
                .pad_strides(9, 0, 11),
        ),
        ("batch 4 broadcast A", {
            let mut p = p32(m, n, k).batched(4).trans(false, true);
            p.stride_a = Some(0);
            p
        }),
        ("batch 4 broadcast B", {
            let mut p = p32(m, n, k).batched(4).trans(true, false).scale(1.0, 1.0);
            p.stride_b = Some(0);
            p
        }),
        ("batch 2 big", p32(1021, 515, 263).batched(2)),
        (
            "batch 16 small",
            p32(17, 33, 9).batched(16).trans(true, true),
        ),
    ];
    for (label, p) in cases {
        if check(&mut rng, label, p).is_none() {
            return;
        }
    }
}

#[test]
fn degenerate_dimensions() {
    let mut rng = Rng::for_test("degenerate_dimensions");
    let ctxs = gpu_all();
    if ctxs.is_empty() {
        return;
    }
    // k == 0 and alpha == 0: C = beta·C, and A and B must not be read (they are all NaN here).
    let poisoned: Vec<(&str, Problem)> = vec![
        ("k=0 beta=0.5", p32(129, 65, 0).scale(1.0, 0.5)),
        ("k=0 beta=0 (C := 0)", p32(129, 65, 0)),
        (
            "k=0 beta=1 padded",
            p32(33, 17, 0).pad_ld(0, 0, 3).scale(1.0, 1.0),
        ),
        ("alpha=0 beta=1.25", p32(129, 65, 77).scale(0.0, 1.25)),
        ("alpha=0 beta=0 (C := 0)", p32(129, 65, 77).scale(0.0, 0.0)),
        (
            "alpha=0 beta=-1 TT batch 2",
            p32(40, 50, 60)
                .trans(true, true)
                .batched(2)
                .scale(0.0, -1.0),
        ),
    ];
    for (label, p) in poisoned {
        let mut case = Case::<f32, f32>::new(label, p, &mut rng);
        case.poison_inputs();
        for (name, ctx) in &ctxs {
            case.run_and_verify(name, ctx, tol_fp32(case.p.k));
        }
    }
    // m, n or batch == 0: Ok, nothing written (the whole C allocation is sentinel and must stay so).
    let empty = [
        ("m=0", p32(0, 64, 64)),
        ("n=0", p32(64, 0, 64)),
        ("m=n=k=0", p32(0, 0, 0)),
        ("batch=0", p32(64, 64, 64).batched(0)),
        ("m=0 beta=1", p32(0, 64, 64).scale(1.0, 1.0)),
    ];
    for (label, p) in empty {
        let case = Case::<f32, f32>::new(label, p, &mut rng);
        for (name, ctx) in &ctxs {
            case.run_and_verify(name, ctx, tol_fp32(case.p.k));
        }
    }
}

#[test]
fn beta_zero_never_reads_c() {
    // Every window of C starts as NaN (poison); with beta == 0 none of it may leak (checked by
    // verify: no NaN in the output, no poison left).
    let mut rng = Rng::for_test("beta_zero_never_reads_c");
    for (m, n, k) in [(128, 128, 64), (257, 129, 65), (1, 1, 1), (1024, 512, 33)] {
        for (ta, tb) in TRANS {
            let p = p32(m, n, k).trans(ta, tb).scale(-2.0, 0.0);
            if check(
                &mut rng,
                format!("{m}x{n}x{k} {} beta=0 NaN C", lay(ta, tb)),
                p,
            )
            .is_none()
            {
                return;
            }
        }
    }
}

#[test]
fn misaligned_and_odd_leading_dimensions() {
    let mut rng = Rng::for_test("misaligned_and_odd_leading_dimensions");
    // Tile multiples first, so the only difference from the fast path is alignment.
    for (m, n, k) in [(256, 256, 256), (129, 257, 65)] {
        for (ta, tb) in TRANS {
            let base = || p32(m, n, k).trans(ta, tb);
            let variants = [
                ("base+1 all", base().offsets(1, 1, 1)),
                ("base+1 A", base().offsets(1, 0, 0)),
                ("base+1 B", base().offsets(0, 1, 0)),
                ("base+1 C", base().offsets(0, 0, 1)),
                ("base+2 all (8-byte aligned)", base().offsets(2, 2, 2)),
                ("ld+1 all", base().pad_ld(1, 1, 1)),
                ("ld+2 all", base().pad_ld(2, 2, 2)),
                ("base+1 ld+1", base().offsets(1, 3, 1).pad_ld(1, 1, 1)),
                (
                    "batch 2 odd strides",
                    base().batched(2).pad_strides(1, 3, 1),
                ),
            ];
            for (what, p) in variants {
                let label = format!("{m}x{n}x{k} {} {what}", lay(ta, tb));
                if check(&mut rng, label, p).is_none() {
                    return;
                }
            }
        }
    }
}

#[test]
fn deterministic_bitwise() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("deterministic_bitwise");
    let case = Case::<f32, f32>::new("513x257x1025 x100", p32(513, 257, 1025), &mut rng);
    let stream = ctx.stream();
    let mut dev = case.upload(stream);
    let mut first: Option<Vec<u32>> = None;
    for run in 0..100 {
        case.reset_c(stream, &mut dev);
        case.launch(ctx, &mut dev, None)
            .unwrap_or_else(|e| panic!("run {run}: {e}; {}", case.describe()));
        let out = case.download(stream, &dev);
        match &first {
            None => {
                case.verify_on("default", &out, tol_fp32(case.p.k));
                first = Some(out);
            }
            Some(f) => {
                if let Some(idx) = f.iter().zip(&out).position(|(x, y)| x != y) {
                    panic!(
                        "run {run} differs from run 0 at {}: {:#x} vs {:#x}; {}",
                        case.where_in_c(idx),
                        out[idx],
                        f[idx],
                        case.describe()
                    );
                }
            }
        }
    }
}

#[test]
fn every_fp32_kernel_by_name() {
    let mut rng = Rng::for_test("every_fp32_kernel_by_name");
    for (name, ctx) in gpu_all() {
        let kernels: Vec<_> = ctx
            .kernels()
            .into_iter()
            .filter(|k| {
                k.role() == Role::Gemm
                    && k.input == Elem::F32
                    && k.output == Elem::F32
                    && k.math == Math::Ffma
            })
            .collect();
        assert!(!kernels.is_empty(), "[{name}] no FFMA f32 kernel available");
        for k in kernels {
            // odd ld (element loads), k inside one k-tile, one element; 16-byte rows with a partial
            // last tile of rows (the vector loads); the same with A one element off alignment
            for (m, n, kk, off) in [
                (259, 131, 67, 0),
                (128, 128, 8, 0),
                (1, 1, 1, 0),
                (200, 136, 96, 0),
                (200, 136, 96, 1),
            ] {
                let p = p32(m, n, kk)
                    .trans(k.trans_a, k.trans_b)
                    .offsets(off, 0, 0)
                    .scale(1.25, 0.5);
                let label = format!("{} {m}x{n}x{kk} A+{off}", k.name);
                let case = Case::<f32, f32>::new(label, p, &mut rng);
                let out = case.run_with(ctx, Some(k.name));
                case.verify_on(name, &out, tol_fp32(case.p.k));
            }
        }
    }
}

#[test]
fn plans_for_exact_fp32() {
    for (name, ctx) in gpu_all() {
        for (ta, tb) in TRANS {
            let g = p32(1000, 1000, 1000).trans(ta, tb).gemm();
            let plan = ctx
                .plan::<f32, f32>(&g)
                .unwrap_or_else(|e| panic!("[{name}] plan for {} failed: {e}", lay(ta, tb)));
            let k = plan.kernel;
            println!("[{name}] {}: {}", lay(ta, tb), k.name);
            assert!(
                k.input == Elem::F32 && k.output == Elem::F32 && k.math == Math::Ffma,
                "[{name}] Precision::Exact f32 planned {} ({:?})",
                k.name,
                k.math
            );
            if name == "force_sm80" {
                assert_eq!(
                    k.target(),
                    Target::Sm80,
                    "[{name}] force_sm80 planned {}",
                    k.name
                );
            }
        }
    }
}

#[test]
fn default_precision_is_fp32_when_tf32_disallowed() {
    let Some(ctx) = gpu_with_options(ContextOptions {
        force_sm80: false,
        allow_tf32: Some(false),
        ..Default::default()
    }) else {
        return;
    };
    let mut rng = Rng::for_test("default_precision_is_fp32_when_tf32_disallowed");
    for (m, n, k) in [(257, 129, 1025), (64, 64, 4096)] {
        let p = Problem::new(m, n, k).precision(Precision::Default);
        let case = Case::<f32, f32>::new(format!("{m}x{n}x{k} Precision::Default"), p, &mut rng);
        case.run_and_verify("allow_tf32=false", &ctx, tol_fp32(k));
    }
}

#[test]
fn random_shapes() {
    let mut rng = Rng::for_test("random_shapes");
    if gpu_all().is_empty() {
        return;
    }
    const CASES: usize = 160;
    for t in 0..CASES {
        let dim = |rng: &mut Rng| {
            if rng.chance(0.15) {
                rng.range(1, 8)
            } else {
                rng.range(1, 600)
            }
        };
        let (m, n, k) = (dim(&mut rng), dim(&mut rng), dim(&mut rng));
        let mut p = p32(m, n, k).trans(rng.chance(0.5), rng.chance(0.5));
        if rng.chance(0.4) {
            let pad = |rng: &mut Rng| if rng.chance(0.5) { rng.range(1, 9) } else { 0 };
            let (pa, pb, pc) = (pad(&mut rng), pad(&mut rng), pad(&mut rng));
            p = p.pad_ld(pa, pb, pc);
        }
        if rng.chance(0.15) {
            p = p.batched(rng.range(2, 3));
            if rng.chance(0.5) {
                let (sa, sb, sc) = (rng.range(0, 5), rng.range(0, 5), rng.range(0, 5));
                p = p.pad_strides(sa, sb, sc);
            }
        }
        let alpha = match rng.below(4) {
            0 | 1 => 1.0,
            2 => -0.5,
            _ => (2.0 * rng.pm1()) as f32,
        };
        let beta = match rng.below(4) {
            0 | 1 => 0.0,
            2 => 1.0,
            _ => (2.0 * rng.pm1()) as f32,
        };
        p = p.scale(alpha, beta);
        if rng.chance(0.2) {
            let (oa, ob, oc) = (rng.range(0, 3), rng.range(0, 3), rng.range(0, 3));
            p = p.offsets(oa, ob, oc);
        }
        check(&mut rng, format!("random #{t}"), p);
    }
}
