//! The case generator of the property tests ([`random_problem`], drawn per case by
//! [`case_problem`]) and its self-check, which needs no GPU.

use super::*;
use tcgemm_kernels::config::KERNELS;

/// Largest `m`, `n` and `k` drawn.
const MAX_DIM: usize = 2048;
/// Cap on `m·n·k·batch`: above it the largest dimension is redrawn from the small/tile-edge classes.
const MAX_MACS: u128 = 1 << 28;
/// Cap on the elements of A, B and C together (`(m·k + k·n + m·n)·batch`), redrawn like
/// [`MAX_MACS`]: operand generation, transfers and the check of C cost per element.
const MAX_ELEMS: u128 = 1 << 20;
/// Tile edges of the kernels (block, warp and k tiles): each is drawn as `t − 1`, `t` or `t + 1`.
const TILE_EDGES: [usize; 6] = [8, 16, 32, 64, 128, 256];
/// Odd primes: never a multiple of a tile or of a vector width.
const PRIMES: [usize; 12] = [3, 5, 7, 11, 13, 31, 61, 127, 257, 509, 1021, 2039];

/// `1..=8`, 1 with probability ≈ 0.48.
fn small_dim(rng: &mut Rng) -> usize {
    if rng.chance(0.4) {
        1
    } else {
        rng.range(1, 8)
    }
}

/// `t − 1`, `t` or `t + 1` for a tile edge `t`.
fn tile_edge_dim(rng: &mut Rng) -> usize {
    rng.pick(&TILE_EDGES) - 1 + rng.below(3)
}

/// One of `m`, `n`, `k`: 35% small, 25% tile edge ±1, 20% odd prime, 20% uniform in `1..=2048`.
fn dim(rng: &mut Rng) -> usize {
    let u = rng.unit();
    if u < 0.35 {
        small_dim(rng)
    } else if u < 0.60 {
        tile_edge_dim(rng)
    } else if u < 0.80 {
        rng.pick(&PRIMES)
    } else {
        rng.range(1, MAX_DIM)
    }
}

/// Elements to add to `x` to reach a multiple of `align`.
fn up_to(x: usize, align: usize) -> usize {
    (align - x % align) % align
}

/// The problem of one case (without its precision), drawn from `rng`, for inputs of `in_bytes` and
/// an output of `out_bytes` per element (the 16-byte-aligned paddings and offsets depend on them).
pub(super) fn random_problem(rng: &mut Rng, in_bytes: usize, out_bytes: usize) -> Problem {
    let (ai, ao) = (16 / in_bytes, 16 / out_bytes);
    let mut d = [dim(rng), dim(rng), dim(rng)];
    let batch = if rng.chance(0.7) { 1 } else { rng.range(2, 5) };
    // Cap the work: redraw the largest dimension (the last of equals) until under the caps.
    let over = |d: &[usize; 3]| {
        let (m, n, k) = (d[0] as u128, d[1] as u128, d[2] as u128);
        let b = batch as u128;
        m * n * k * b > MAX_MACS || (m * k + k * n + m * n) * b > MAX_ELEMS
    };
    while over(&d) {
        let i = (0..3).max_by_key(|&i| d[i]).expect("three dimensions");
        d[i] = if rng.chance(0.5) {
            small_dim(rng)
        } else {
            tile_edge_dim(rng)
        };
    }
    let (m, n, k) = (d[0], d[1], d[2]);
    let (ta, tb) = (rng.chance(0.5), rng.chance(0.5));
    let mut p = Problem::new(m, n, k).trans(ta, tb).batched(batch);
    // Leading dimensions: 50% packed, 35% padded by 1..=9 (odd and even: mostly not 16-byte
    // multiples), 15% padded to a 16-byte multiple (plus 16 bytes half of the time).
    match rng.below(20) {
        0..=9 => {}
        10..=16 => {
            let (ea, eb, ec) = (rng.range(1, 9), rng.range(1, 9), rng.range(1, 9));
            p = p.pad_ld(ea, eb, ec);
        }
        _ => {
            let ea = up_to(p.a_cols(), ai) + ai * rng.below(2);
            let eb = up_to(p.b_cols(), ai) + ai * rng.below(2);
            let ec = up_to(p.n, ao) + ao * rng.below(2);
            p = p.pad_ld(ea, eb, ec);
        }
    }
    if batch > 1 {
        // Batch strides: 50% packed, 25% padded by 0..=9, 25% padded to a 16-byte multiple.
        match rng.below(4) {
            0 | 1 => {}
            2 => {
                let (ea, eb, ec) = (rng.range(0, 9), rng.range(0, 9), rng.range(0, 9));
                p = p.pad_strides(ea, eb, ec);
            }
            _ => {
                let ea = up_to(p.a_rows() * p.eff_lda(), ai) + ai * rng.below(2);
                let eb = up_to(p.b_rows() * p.eff_ldb(), ai) + ai * rng.below(2);
                let ec = up_to(p.m * p.eff_ldc(), ao) + ao * rng.below(2);
                p = p.pad_strides(ea, eb, ec);
            }
        }
        // 20%: A, B or both shared by every batch item (stride 0).
        if rng.chance(0.2) {
            match rng.below(5) {
                0 | 1 => p.stride_a = Some(0),
                2 | 3 => p.stride_b = Some(0),
                _ => {
                    p.stride_a = Some(0);
                    p.stride_b = Some(0);
                }
            }
        }
    }
    // 15%: views that start 1 or 3 elements (misaligned) or 16 bytes into their allocation.
    if rng.chance(0.15) {
        let (oa, ob, oc) = (
            rng.pick(&[0, 1, 3, ai]),
            rng.pick(&[0, 1, 3, ai]),
            rng.pick(&[0, 1, 3, ao]),
        );
        p = p.offsets(oa, ob, oc);
    }
    let alpha = match rng.below(20) {
        0..=5 => 1.0,
        6..=8 => -1.0,
        9 | 10 => 0.0,
        11..=13 => 0.5,
        _ => (2.0 * rng.pm1()) as f32,
    };
    let beta = match rng.below(20) {
        0..=7 => 0.0,
        8..=11 => 1.0,
        12..=14 => -1.0,
        _ => (2.0 * rng.pm1()) as f32,
    };
    p.scale(alpha, beta)
}

/// Case `i` of a path: its problem (precision drawn from `precisions`) and the generator that then
/// fills its operands. `gen` is the path's stream, `Rng::for_test(<test name>)`; each case takes two
/// words from it whether or not it runs, so case `i` depends only on the seed, the name and `i`.
pub(super) fn case_problem(
    gen: &mut Rng,
    in_bytes: usize,
    out_bytes: usize,
    precisions: &[Precision],
) -> (Problem, Rng) {
    let (seed, stream) = (gen.next_u64(), gen.next_u64());
    let mut rng = Rng::new(seed, stream);
    let p = random_problem(&mut rng, in_bytes, out_bytes);
    let precision = rng.pick(precisions);
    (p.precision(precision), rng)
}

/// The generator alone (no GPU needed, so it runs everywhere): for every path's stream, cases in
/// range and under the cap, valid for the library's argument checks, reproducible from the seed,
/// and every class of the mixture present. Prints the host work the cases make (the GPU run's cost
/// is mostly this: operand generation, transfers and the CPU reference).
#[test]
fn generator_self_check() {
    for spec in SPECS {
        let (mut g1, mut g2) = (Rng::for_test(spec.name), Rng::for_test(spec.name));
        let mut seen_dims = std::collections::BTreeSet::new();
        let (mut unit, mut uniform_big, mut batched, mut bcast_a, mut bcast_b) = (0, 0, 0, 0, 0);
        let (mut legal, mut legal_batched, mut offsets, mut ld_odd) = (0, 0, 0, 0);
        let (mut trans, mut alphas, mut betas) = ([0usize; 4], [0usize; 5], [0usize; 4]);
        let (mut elems, mut full_macs, mut sampled_macs, mut sampled) = (0u128, 0u128, 0u128, 0);
        for i in 0..DEFAULT_CASES {
            let (p, mut r1) = case_problem(&mut g1, spec.in_bytes, spec.out_bytes, spec.precisions);
            let (q, mut r2) = case_problem(&mut g2, spec.in_bytes, spec.out_bytes, spec.precisions);
            assert_eq!(
                format!("{p}"),
                format!("{q}"),
                "{}: case #{i} differs",
                spec.name
            );
            assert_eq!(
                r1.next_u64(),
                r2.next_u64(),
                "{}: case #{i} data",
                spec.name
            );
            let what = format!("{}: case #{i}: {p}", spec.name);
            for d in [p.m, p.n, p.k] {
                assert!((1..=MAX_DIM).contains(&d), "{what}: dimension {d}");
                seen_dims.insert(d);
                unit += usize::from(d == 1);
                uniform_big += usize::from(d > 1024 && !PRIMES.contains(&d));
            }
            assert!((1..=5).contains(&p.batch), "{what}: batch");
            assert!(p.macs() <= MAX_MACS, "{what}: over the cap");
            assert!(spec.precisions.contains(&p.precision), "{what}: precision");
            let g = p.gemm();
            let lens = g
                .required_lens()
                .unwrap_or_else(|e| panic!("{what}: required_lens: {e}"));
            let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
            g.validate(
                la.span().max(lens.0),
                lb.span().max(lens.1),
                lc.span().max(lens.2),
            )
            .unwrap_or_else(|e| panic!("{what}: the library rejects it: {e}"));
            batched += usize::from(p.batch > 1);
            bcast_a += usize::from(p.batch > 1 && p.stride_a == Some(0));
            bcast_b += usize::from(p.batch > 1 && p.stride_b == Some(0));
            // a TMA kernel of the table (no GPU here) with the case's element sizes and layout
            let tma_spec = KERNELS
                .iter()
                .find(|k| tma_of_sizes(k, &spec, p.trans_a, p.trans_b))
                .expect("a TMA kernel for every element size pair and layout");
            let tma = kernel_can_run(tma_spec, &p);
            legal += usize::from(tma);
            legal_batched += usize::from(tma && p.batch > 1 && p.stride_b != Some(0));
            offsets += usize::from(p.offset_a + p.offset_b + p.offset_c > 0);
            ld_odd += usize::from(la.ld % 2 == 1 || lb.ld % 2 == 1 || lc.ld % 2 == 1);
            trans[usize::from(p.trans_a) * 2 + usize::from(p.trans_b)] += 1;
            alphas[match p.alpha {
                0.0 => 0,
                1.0 => 1,
                -1.0 => 2,
                0.5 => 3,
                _ => 4,
            }] += 1;
            betas[match p.beta {
                0.0 => 0,
                1.0 => 1,
                -1.0 => 2,
                _ => 3,
            }] += 1;
            elems +=
                (la.offset + la.span() + lb.offset + lb.span() + lc.offset + lc.span()) as u128;
            let reads_ab = p.alpha != 0.0;
            if p.macs() > FULL_REFERENCE_MACS
                || p.batch as u128 * p.k as u128 * p.n as u128 > 1 << 27
            {
                sampled += 1;
                sampled_macs += if reads_ab { (SAMPLES * p.k) as u128 } else { 0 };
            } else if reads_ab {
                full_macs += p.macs();
            }
        }
        let missing: Vec<usize> = TILE_EDGES
            .iter()
            .flat_map(|&t| [t - 1, t, t + 1])
            .chain(PRIMES)
            .chain(1..=8)
            .filter(|d| !seen_dims.contains(d))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: never drawn: {missing:?}",
            spec.name
        );
        assert!(uniform_big > 0, "{}: no large uniform dimension", spec.name);
        assert!(
            batched > 0 && bcast_a > 0 && bcast_b > 0,
            "{}: batches",
            spec.name
        );
        assert!(
            legal > 0 && legal < DEFAULT_CASES,
            "{}: TMA-legal mix",
            spec.name
        );
        assert!(legal_batched > 0, "{}: TMA-legal batches", spec.name);
        assert!(offsets > 0 && ld_odd > 0, "{}: offsets/odd ld", spec.name);
        assert!(
            trans.iter().all(|&c| c > 0),
            "{}: transposes {trans:?}",
            spec.name
        );
        assert!(
            alphas.iter().all(|&c| c > 0),
            "{}: alphas {alphas:?}",
            spec.name
        );
        assert!(
            betas.iter().all(|&c| c > 0),
            "{}: betas {betas:?}",
            spec.name
        );
        println!(
            "{}: {DEFAULT_CASES} cases: {unit} unit dims, {batched} batched ({bcast_a} broadcast A, \
             {bcast_b} broadcast B), {legal} TMA-legal, {offsets} with offsets; alpha 0/1/-1/0.5/other \
             {alphas:?}, beta 0/1/-1/other {betas:?}; host work: {:.1} M operand elements, \
             {:.2} G full-reference MACs, {sampled} sampled references ({:.2} G MACs)",
            spec.name,
            elems as f64 / 1e6,
            full_macs as f64 / 1e9,
            sampled_macs as f64 / 1e9
        );
    }
}
