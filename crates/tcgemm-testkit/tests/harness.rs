//! Self-tests of the test harness (CPU only, run everywhere): the random numbers, the f64
//! reference against a first-principles one, and the verifier, which must accept a simulated
//! correct FP32 kernel and catch deliberately broken outputs.

use tcgemm_testkit::*;

#[test]
fn rng_is_reproducible_and_never_zero() {
    let mut a = Rng::new(42, 7);
    let mut b = Rng::new(42, 7);
    let mut c = Rng::new(42, 8);
    let xs: Vec<u32> = (0..16).map(|_| a.next_u32()).collect();
    let ys: Vec<u32> = (0..16).map(|_| b.next_u32()).collect();
    let zs: Vec<u32> = (0..16).map(|_| c.next_u32()).collect();
    assert_eq!(xs, ys);
    assert_ne!(xs, zs);
    let mut r = Rng::new(1, 1);
    let (mut sum, mut min_abs) = (0.0, f64::MAX);
    for _ in 0..100_000 {
        let v = r.pm1();
        assert!((-1.0..=1.0).contains(&v) && v != 0.0, "{v}");
        sum += v;
        min_abs = min_abs.min(v.abs());
        let f = random_elem::<f32>(&mut r);
        assert!(f != 0.0 && f.abs() <= 1.0);
        let h = random_elem::<half::f16>(&mut r);
        assert!(h.to_f32() != 0.0 && h.to_f32().is_normal());
        let bf = random_elem::<half::bf16>(&mut r);
        assert!(bf.to_f32() != 0.0 && bf.to_f32().is_normal());
    }
    assert!((sum / 100_000.0).abs() < 0.02, "mean {}", sum / 100_000.0);
    for n in [1, 2, 3, 600] {
        for _ in 0..1000 {
            assert!(r.below(n) < n);
        }
    }
    assert_eq!(r.range(5, 5), 5);
}

/// First-principles reference, written independently of the testkit's layouts: every index spelled
/// out from the documented row-major convention.
fn naive(case: &Case<f32, f32>) -> Vec<f64> {
    let p = &case.p;
    let lda = p.lda.unwrap_or(if p.trans_a { p.m } else { p.k });
    let ldb = p.ldb.unwrap_or(if p.trans_b { p.k } else { p.n });
    let ldc = p.ldc.unwrap_or(p.n);
    let sa = p
        .stride_a
        .unwrap_or(if p.trans_a { p.k } else { p.m } * lda);
    let sb = p
        .stride_b
        .unwrap_or(if p.trans_b { p.n } else { p.k } * ldb);
    let sc = p.stride_c.unwrap_or(p.m * ldc);
    let f = |bits: u32| f64::from(f32::from_bits(bits));
    let mut out = Vec::new();
    for z in 0..p.batch {
        for i in 0..p.m {
            for j in 0..p.n {
                let mut dot = 0.0;
                for q in 0..p.k {
                    let a = if p.trans_a {
                        case.a[p.offset_a + z * sa + q * lda + i]
                    } else {
                        case.a[p.offset_a + z * sa + i * lda + q]
                    };
                    let b = if p.trans_b {
                        case.b[p.offset_b + z * sb + j * ldb + q]
                    } else {
                        case.b[p.offset_b + z * sb + q * ldb + j]
                    };
                    dot += f(a) * f(b);
                }
                let mut v = f64::from(p.alpha) * dot;
                if p.beta != 0.0 {
                    v += f64::from(p.beta) * f(case.c[p.offset_c + z * sc + i * ldc + j]);
                }
                out.push(v);
            }
        }
    }
    out
}

/// What a correct FP32 kernel writes: the C allocation after the call (FMA accumulation in f32).
fn simulate(case: &Case<f32, f32>) -> Vec<u32> {
    let p = &case.p;
    let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
    let mut out = case.c.clone();
    let ld = |bits: u32| f32::from_bits(bits);
    for z in 0..p.batch {
        for i in 0..p.m {
            for j in 0..p.n {
                let mut acc = 0.0f32;
                if p.alpha != 0.0 {
                    for q in 0..p.k {
                        let ai = la.offset
                            + if p.trans_a {
                                la.at(z, q, i)
                            } else {
                                la.at(z, i, q)
                            };
                        let bi = lb.offset
                            + if p.trans_b {
                                lb.at(z, j, q)
                            } else {
                                lb.at(z, q, j)
                            };
                        acc = ld(case.a[ai]).mul_add(ld(case.b[bi]), acc);
                    }
                }
                let ci = lc.offset + lc.at(z, i, j);
                let v = if p.beta == 0.0 {
                    p.alpha * acc
                } else {
                    p.beta.mul_add(ld(case.c[ci]), p.alpha * acc)
                };
                out[ci] = v.to_bits();
            }
        }
    }
    out
}

fn harness_zoo() -> Vec<Problem> {
    let mut v = Vec::new();
    for (ta, tb) in TRANS {
        v.push(Problem::new(37, 23, 41).trans(ta, tb));
        v.push(
            Problem::new(37, 23, 41)
                .trans(ta, tb)
                .pad_ld(3, 1, 5)
                .scale(-0.5, 1.25),
        );
        v.push(
            Problem::new(9, 13, 17)
                .trans(ta, tb)
                .batched(3)
                .pad_strides(2, 5, 7)
                .offsets(1, 2, 3),
        );
        let mut bc = Problem::new(9, 13, 17)
            .trans(ta, tb)
            .batched(3)
            .scale(2.0, -1.0);
        bc.stride_a = Some(0);
        v.push(bc);
    }
    v.push(Problem::new(1, 1, 1));
    v.push(Problem::new(1, 1, 300));
    v.push(Problem::new(8, 8, 0).scale(1.0, 0.5));
    v.push(Problem::new(8, 8, 5).scale(0.0, 0.5));
    v
}

#[test]
fn harness_reference_matches_first_principles() {
    let mut rng = Rng::for_test("harness_reference_matches_first_principles");
    for p in harness_zoo() {
        let case = Case::<f32, f32>::new("zoo", p, &mut rng);
        assert!(
            case.reference.points.is_none(),
            "small cases use the full reference"
        );
        let want = naive(&case);
        assert_eq!(case.reference.vals.len(), want.len(), "{}", case.describe());
        for (t, (&r, &w)) in case.reference.vals.iter().zip(&want).enumerate() {
            assert!(
                (r - w).abs() <= 1e-12 * (1.0 + w.abs()),
                "entry {t}: {r} vs {w}; {}",
                case.describe()
            );
        }
    }
}

#[test]
fn harness_accepts_a_correct_kernel() {
    let mut rng = Rng::for_test("harness_accepts_a_correct_kernel");
    for p in harness_zoo() {
        let case = Case::<f32, f32>::new("zoo", p, &mut rng);
        let out = simulate(&case);
        case.try_verify(&out, tol_fp32(case.p.k))
            .unwrap_or_else(|e| panic!("{e}; {}", case.describe()));
    }
    // m/n/batch == 0: nothing may change.
    for p in [
        Problem::new(0, 5, 5),
        Problem::new(5, 0, 5),
        Problem::new(5, 5, 5).batched(0),
    ] {
        let case = Case::<f32, f32>::new("empty", p, &mut rng);
        assert!(case.reference.is_empty());
        case.try_verify(&case.c.clone(), tol_fp32(5)).unwrap();
        let mut bad = case.c.clone();
        bad[0] = 0;
        assert!(
            case.try_verify(&bad, tol_fp32(5)).is_err(),
            "write into an empty call's buffer not caught"
        );
    }
}

#[test]
fn harness_catches_broken_kernels() {
    let mut rng = Rng::for_test("harness_catches_broken_kernels");
    let p = Problem::new(64, 48, 96)
        .pad_ld(2, 3, 4)
        .batched(2)
        .pad_strides(1, 1, 8)
        .offsets(1, 1, 1);
    let case = Case::<f32, f32>::new("broken", p.clone(), &mut rng);
    let good = simulate(&case);
    let tol = tol_fp32(case.p.k);
    case.try_verify(&good, tol).unwrap();
    let lc = case.p.layout_c();
    let at = |z, i, j| lc.offset + lc.at(z, i, j);
    let expect_err = |out: &[u32], needle: &str| {
        let e = case.try_verify(out, tol).expect_err(needle);
        assert!(e.contains(needle), "expected '{needle}' in: {e}");
    };
    // Write into ld padding, into the gap between batch items, before and after the view.
    let mut o = good.clone();
    o[at(0, 3, 48)] = 0;
    expect_err(&o, "outside");
    let mut o = good.clone();
    o[at(0, 63, 48 + 4 + 1)] = 0; // the gap of 8 after item 0 (past the last row's padding)
    expect_err(&o, "outside");
    let mut o = good.clone();
    o[0] = 0;
    expect_err(&o, "outside");
    let mut o = good.clone();
    let last = o.len() - 1;
    o[last] = 0;
    expect_err(&o, "outside");
    // An element never written (poison left).
    let mut o = good.clone();
    o[at(1, 63, 47)] = f32::POISON;
    expect_err(&o, "not written");
    // A NaN / Inf in the output.
    let mut o = good.clone();
    o[at(1, 5, 5)] = f32::NAN.to_bits();
    expect_err(&o, "non-finite");
    let mut o = good.clone();
    o[at(0, 0, 0)] = f32::INFINITY.to_bits();
    expect_err(&o, "non-finite");
    // One wrong entry (off by 1e-3 of its value) and a dropped last k term (a k-tail bug).
    let mut o = good.clone();
    let v = f32::from_bits(o[at(1, 10, 20)]);
    o[at(1, 10, 20)] = (v + 1e-3 * v.abs().max(1.0)).to_bits();
    expect_err(&o, "relative Frobenius");
    let mut short = case.p.clone();
    short.k -= 1;
    let tail = Case::<f32, f32> {
        p: short,
        ..clone_case(&case)
    };
    // simulate() on the same data with k − 1: C holds the product without its last term.
    expect_err(&simulate(&tail), "relative Frobenius");
    // beta ignored (C treated as 0) when beta != 0.
    let pb = p.clone().scale(1.0, 0.5);
    let case_b = Case::<f32, f32>::new("beta", pb.clone(), &mut rng);
    let mut no_beta = clone_case(&case_b);
    no_beta.p.beta = 0.0;
    let o = simulate(&no_beta);
    assert!(case_b
        .try_verify(&o, tol_fp32(pb.k))
        .unwrap_err()
        .contains("relative Frobenius"));
}

fn clone_case(c: &Case<f32, f32>) -> Case<f32, f32> {
    Case {
        label: c.label.clone(),
        p: c.p.clone(),
        a: c.a.clone(),
        b: c.b.clone(),
        c: c.c.clone(),
        reference: Reference {
            points: c.reference.points.clone(),
            vals: c.reference.vals.clone(),
            mags: c.reference.mags.clone(),
        },
        lens: c.lens,
    }
}

#[test]
fn harness_samples_big_shapes() {
    // Above 2^31 multiply-adds the reference is a sample of full-length dot products; the verifier
    // then checks those entries numerically and every entry for poison.
    let mut rng = Rng::for_test("harness_samples_big_shapes");
    let p = Problem::new(2048, 1024, 1025);
    assert!(p.macs() > FULL_REFERENCE_MAX_MACS);
    let case = Case::<f32, f32>::new("sampled", p, &mut rng);
    let pts = case.reference.points.as_ref().expect("sampled reference");
    assert_eq!(pts.len(), SAMPLES);
    assert!(pts.contains(&(0, 0, 0)) && pts.contains(&(0, 2047, 1023)));
    let lc = case.p.layout_c();
    // A "kernel" that writes the f32-rounded reference at sampled entries and 0.5 elsewhere.
    let mut out = case.c.clone();
    for i in 0..case.p.m {
        for j in 0..case.p.n {
            out[lc.offset + lc.at(0, i, j)] = 0.5f32.to_bits();
        }
    }
    for (t, &(z, i, j)) in pts.iter().enumerate() {
        out[lc.offset + lc.at(z, i, j)] = (case.reference.vals[t] as f32).to_bits();
    }
    let r = case.try_verify(&out, tol_fp32(case.p.k)).unwrap();
    assert_eq!(r.checked, SAMPLES);
    // The sampled values are right (recomputed here for a few entries).
    for (t, &(z, i, j)) in pts.iter().enumerate().take(16) {
        let mut dot = 0.0;
        for q in 0..case.p.k {
            dot += f64::from(f32::from_bits(case.a[i * case.p.k + q]))
                * f64::from(f32::from_bits(case.b[q * case.p.n + j]));
        }
        assert_eq!(z, 0);
        assert!((dot - case.reference.vals[t]).abs() < 1e-9, "sample {t}");
    }
    // A wrong sampled entry and a missed (poisoned) unsampled one are caught.
    let (_, i, j) = pts[100];
    let mut o = out.clone();
    o[lc.offset + lc.at(0, i, j)] = 1000.0f32.to_bits();
    assert!(case.try_verify(&o, tol_fp32(case.p.k)).is_err());
    let mut o = out;
    let unsampled = (0..case.p.m * case.p.n)
        .find(|&t| !pts.contains(&(0, t / case.p.n, t % case.p.n)))
        .unwrap();
    o[lc.offset + unsampled] = f32::POISON;
    assert!(case
        .try_verify(&o, tol_fp32(case.p.k))
        .unwrap_err()
        .contains("not written"));
}

/// Outputs below the smallest normal are rounded to the subnormal grid, an absolute error the
/// relative tolerances do not cover: a correctly rounded f16 output of property_f16_to_f16's case
/// #81 (session 18: m×n×k = 965×1×1, alpha = −2.29e-5, every entry about 1e-6, subnormal steps
/// of 6e-8) passes, and the same output one step off in every entry still fails.
#[test]
fn subnormal_outputs_are_held_to_their_rounding() {
    use half::f16;
    let mut rng = Rng::for_test("subnormal_outputs_are_held_to_their_rounding");
    let p = Problem::new(965, 1, 1)
        .trans(true, false)
        .scale(-2.293_263_4e-5, 0.0);
    let case = Case::<f16, f16>::new("subnormal", p, &mut rng);
    let tol = tol_16::<f16>(case.p.k);
    let lc = case.p.layout_c();
    let (mut rounded, mut off) = (case.c.clone(), case.c.clone());
    for t in 0..case.reference.len() {
        let (z, i, j) = case.reference.point(t, case.p.m, case.p.n);
        let want = case.reference.vals[t];
        assert!(
            want.abs() < 6.1e-5,
            "entry {t} is not subnormal in f16: {want:e}"
        );
        let at = lc.offset + lc.at(z, i, j);
        rounded[at] = f16::from_f64(want).to_bits();
        off[at] = f16::from_f64(want + want.signum() * f16::SUBNORMAL_STEP).to_bits();
    }
    case.try_verify(&rounded, tol).unwrap();
    assert!(
        case.try_verify(&off, tol).is_err(),
        "outputs a step off passed"
    );
}
