//! Reliability on the GPU: threads and streams, buffer lifetimes across a launch, device
//! out-of-memory, IEEE special values (NaN, ±inf, beta = 0 ignoring C), and operands with more than
//! 2³¹ elements. Without a GPU every test prints a skip line (a failure with `TCGEMM_REQUIRE_GPU=1`).

use cudarc::driver::{CudaSlice, CudaStream};
use half::{bf16, f16};
use std::sync::Arc;
use tcgemm::{Capabilities, Context, ContextOptions, Error, Gemm, Plan, Precision};
use tcgemm_testkit::*;

/// A context enqueuing on a new stream of `base`'s CUDA context.
fn context_on_new_stream(base: &Context, opts: ContextOptions) -> Context {
    let stream = base.cuda().new_stream().expect("new stream");
    Context::from_stream(stream, opts).expect("Context::from_stream")
}

#[test]
fn handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
    send_sync::<Plan>();
    send_sync::<Gemm>();
    send_sync::<Error>();
    send_sync::<Capabilities>();
}

/// One random case of path `i % 4` (f16→f32, bf16→bf16, exact f32, tf32), checked on `ctx`.
fn random_path_case(ctx: &Context, name: &str, rng: &mut Rng, i: usize) {
    let (m, n, k) = (rng.range(100, 900), rng.range(100, 900), rng.range(30, 600));
    // every other case 16-byte aligned, so the Hopper kernels take part on an H200
    let (m, n, k) = if i % 2 == 0 {
        (m / 8 * 8 + 8, n / 8 * 8 + 8, k / 8 * 8 + 8)
    } else {
        (m, n, k)
    };
    let p = Problem::new(m, n, k)
        .trans(rng.chance(0.5), rng.chance(0.5))
        .scale(1.5, if rng.chance(0.5) { 0.0 } else { -0.5 });
    let label = format!("{name} case {i}");
    match i % 4 {
        0 => Case::<f16, f32>::new(label, p, rng).run_and_verify(name, ctx, tol_16::<f32>(k)),
        1 => Case::<bf16, bf16>::new(label, p, rng).run_and_verify(name, ctx, tol_16::<bf16>(k)),
        2 => Case::<f32, f32>::new(label, p.precision(Precision::Exact), rng).run_and_verify(
            name,
            ctx,
            tol_fp32(k),
        ),
        _ => Case::<f32, f32>::new(label, p.precision(Precision::Tf32), rng).run_and_verify(
            name,
            ctx,
            TOL_TF32_FRO,
        ),
    };
}

/// Eight threads, each with its own context on its own stream (one CUDA context), run GEMMs of
/// every path at the same time; every result is checked.
#[test]
fn eight_threads_with_their_own_streams_compute_correctly() {
    let Some(base) = gpu() else { return };
    std::thread::scope(|s| {
        for t in 0..8u64 {
            s.spawn(move || {
                let ctx = context_on_new_stream(base, ContextOptions::default());
                let mut rng = Rng::new(seed(), 7000 + t);
                for i in 0..8 {
                    random_path_case(&ctx, &format!("thread {t}"), &mut rng, i + t as usize);
                }
            });
        }
    });
}

/// Allocates `len` elements holding `bits`.
fn filled<T: cudarc::driver::DeviceRepr + Copy>(
    stream: &Arc<CudaStream>,
    bits: T,
    len: usize,
) -> CudaSlice<T> {
    stream.clone_htod(&vec![bits; len]).expect("upload")
}

/// `C = A·B` (row-major, packed) for f32 buffers, exact arithmetic.
fn gemm_f32(
    ctx: &Context,
    m: usize,
    n: usize,
    k: usize,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
) -> CudaSlice<f32> {
    let mut c = filled(ctx.stream(), f32::from_bits(0x7fc0_dead), m * n);
    ctx.gemm::<f32, f32, _, _, _>(
        &Gemm::new(m, n, k).precision(Precision::Exact),
        a,
        b,
        &mut c,
    )
    .expect("gemm");
    c
}

/// Random f32 values in [-1, 1], never zero.
fn random_f32(rng: &mut Rng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.pm1() as f32).collect()
}

/// Relative error of 256 sampled entries (the corners, then random ones) of a packed row-major
/// `m×n` product against f64; infinite when a sampled entry is not finite.
fn sampled_error(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    (m, n, k): (usize, usize, usize),
    rng: &mut Rng,
) -> f64 {
    let p = Problem::new(m, n, k);
    Reference::sampled_of_values(&p, a, b, 256, rng).rel_error(c, &p)
}

/// Two contexts on two streams of one CUDA context: GEMMs launched on both before either finishes
/// give the right results, and an output written on stream 1 and read as an input on stream 2 is
/// read after the write (cudarc's per-buffer events order the streams).
#[test]
fn two_streams_of_one_context_do_not_interfere() {
    let Some(base) = gpu() else { return };
    let c1 = context_on_new_stream(base, ContextOptions::default());
    let c2 = context_on_new_stream(base, ContextOptions::default());
    let mut rng = Rng::for_test("two_streams_of_one_context_do_not_interfere");
    let (m, n, k) = (2048, 2048, 2048);
    let (ha, hb) = (random_f32(&mut rng, m * k), random_f32(&mut rng, k * n));
    let (m2, n2, k2) = (1000, 700, 900);
    let (hx, hy) = (random_f32(&mut rng, m2 * k2), random_f32(&mut rng, k2 * n2));
    let (a, b) = (
        c1.stream().clone_htod(&ha).unwrap(),
        c1.stream().clone_htod(&hb).unwrap(),
    );
    let (x, y) = (
        c2.stream().clone_htod(&hx).unwrap(),
        c2.stream().clone_htod(&hy).unwrap(),
    );
    // interleaved launches on the two streams
    let mut outs1 = Vec::new();
    let mut outs2 = Vec::new();
    for _ in 0..3 {
        outs1.push(gemm_f32(&c1, m, n, k, &a, &b));
        outs2.push(gemm_f32(&c2, m2, n2, k2, &x, &y));
    }
    // stream 2 reads stream 1's newest output as its A: C·B over the same k = n = 2048
    let last = outs1.last().unwrap();
    let chained = gemm_f32(&c2, m, n, k, last, &b);
    let h1 = c1.stream().clone_dtoh(last).unwrap();
    let hc = c2.stream().clone_dtoh(&chained).unwrap();
    for o in &outs1 {
        let h = c1.stream().clone_dtoh(o).unwrap();
        let e = sampled_error(&ha, &hb, &h, (m, n, k), &mut rng);
        assert!(e <= tol_fp32(k), "stream 1: relative error {e:e}");
    }
    for o in &outs2 {
        let h = c2.stream().clone_dtoh(o).unwrap();
        let e = sampled_error(&hx, &hy, &h, (m2, n2, k2), &mut rng);
        assert!(e <= tol_fp32(k2), "stream 2: relative error {e:e}");
    }
    // the chained product against C as stream 1 left it (had stream 2 read C early, it would
    // have read the NaN fill)
    let e = sampled_error(&h1, &hb, &hc, (m, n, k), &mut rng);
    assert!(
        e <= tol_fp32(k),
        "stream 2 reading stream 1's output: relative error {e:e}"
    );
}

/// A, B and C dropped right after the launch: cudarc frees them in stream order, so the kernel
/// still reads the data it was given while another stream allocates and overwrites memory.
#[test]
fn buffers_dropped_right_after_a_launch_stay_valid_for_it() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng::for_test("buffers_dropped_right_after_a_launch_stay_valid_for_it");
    let (m, n, k) = (4096, 4096, 4096);
    let (ha, hb) = (random_f32(&mut rng, m * k), random_f32(&mut rng, k * n));
    let s = ctx.stream();
    let a = s.clone_htod(&ha).unwrap();
    let b = s.clone_htod(&hb).unwrap();
    s.synchronize().unwrap();
    let c = gemm_f32(ctx, m, n, k, &a, &b);
    drop(a);
    drop(b);
    let other = ctx.cuda().new_stream().unwrap();
    for _ in 0..4 {
        let junk = filled(&other, f32::NAN, m * k);
        drop(junk);
    }
    let h = s.clone_dtoh(&c).unwrap();
    let e = sampled_error(&ha, &hb, &h, (m, n, k), &mut rng);
    assert!(
        e <= tol_fp32(k),
        "relative error {e:e} after dropping A and B in flight"
    );
}

/// Device out-of-memory is `Error::OutOfMemory`, and the context keeps working afterwards.
#[test]
fn out_of_memory_is_typed_and_the_context_survives() {
    let Some(ctx) = gpu() else { return };
    // 4 TiB: more than any GPU has
    match ctx.alloc_zeros::<f32>(1 << 40) {
        Err(Error::OutOfMemory(why)) => println!("out of memory, as expected: {why}"),
        other => panic!("allocating 4 TiB: expected Error::OutOfMemory, got {other:?}"),
    }
    let c = ctx
        .alloc_zeros::<f32>(1 << 20)
        .expect("a small allocation after the failure");
    drop(c);
    let mut rng = Rng::for_test("out_of_memory_is_typed_and_the_context_survives");
    random_path_case(ctx, "after OOM", &mut rng, 2);
    random_path_case(ctx, "after OOM", &mut rng, 0);
}

// ---------------------------------------------------------------------------------------------
// Special values
// ---------------------------------------------------------------------------------------------

/// `ctx.gemm` on whole buffers of raw bits, as test cases hold them.
fn gemm_bits<I: TestElem, O: TestElem>(
    ctx: &Context,
    g: &Gemm,
    a: &CudaSlice<I::Bits>,
    b: &CudaSlice<I::Bits>,
    c: &mut CudaSlice<O::Bits>,
) {
    gemm_on_bits::<I, O>(
        ctx,
        g,
        &a.slice(..),
        &b.slice(..),
        &mut c.slice_mut(..),
        None,
    )
    .unwrap_or_else(|e| panic!("gemm {g:?}: {e}"));
}

/// NaN and ±inf in A propagate as IEEE arithmetic says, inf·0 is NaN, beta = 0 ignores a NaN C,
/// beta = 1 carries a NaN of C into its own entry only, and alpha = 0 ignores NaN in A.
fn special_values<I: TestElem, O: TestElem>(ctx_name: &str, ctx: &Context, prec: Precision) {
    let mut rng = Rng::for_test(&format!(
        "special_values {} {} {ctx_name}",
        I::NAME,
        O::NAME
    ));
    for (m, n, k, ta) in [
        (256, 264, 136, false),
        (77, 45, 33, false),
        (96, 128, 64, true),
    ] {
        // A as stored (k×m when transposed); element (i, q) of op(A)
        let at = |i: usize, q: usize| if ta { q * m + i } else { i * k + q };
        let mut a: Vec<f64> = (0..m * k).map(|_| rng.pm1()).collect();
        // B with positive entries, so a single inf in a row of A gives an inf of one sign
        let mut b: Vec<f64> = (0..k * n).map(|_| rng.unit() * 0.9 + 0.1).collect();
        let (i_nan, i_pinf, i_ninf) = (1, m / 2, m - 1);
        let (q_nan, q_inf, q_ninf) = (0, k / 2, k - 1);
        let j_zero = n / 3;
        a[at(i_nan, q_nan)] = f64::NAN;
        a[at(i_pinf, q_inf)] = f64::INFINITY;
        a[at(i_ninf, q_ninf)] = f64::NEG_INFINITY;
        b[q_inf * n + j_zero] = 0.0;
        let ha: Vec<I::Bits> = a.iter().map(|&v| I::from_f64(v).to_bits()).collect();
        let hb: Vec<I::Bits> = b.iter().map(|&v| I::from_f64(v).to_bits()).collect();
        let s = ctx.stream();
        let (da, db) = (s.clone_htod(&ha).unwrap(), s.clone_htod(&hb).unwrap());
        let g = Gemm::new(m, n, k).trans_a(ta).precision(prec);
        let what = |w: &str| {
            format!(
                "{} -> {} {ctx_name} {m}x{n}x{k} trans_a={ta}: {w}",
                I::NAME,
                O::NAME
            )
        };

        // runs `g` over C = `dc` and returns C as f64
        let run = |g: &Gemm, mut dc: CudaSlice<O::Bits>| -> Vec<f64> {
            gemm_bits::<I, O>(ctx, g, &da, &db, &mut dc);
            s.clone_dtoh(&dc)
                .unwrap()
                .into_iter()
                .map(|x| O::from_bits(x).to_f64())
                .collect()
        };

        // beta = 0 over a NaN-filled C
        let c = run(&g, filled(s, O::POISON, m * n));
        for j in 0..n {
            assert!(
                c[i_nan * n + j].is_nan(),
                "{}",
                what(&format!("NaN row, column {j}: {}", c[i_nan * n + j]))
            );
            let p = c[i_pinf * n + j];
            if j == j_zero {
                assert!(
                    p.is_nan(),
                    "{}",
                    what(&format!("inf·0 should be NaN, got {p}"))
                );
            } else {
                assert!(
                    p == f64::INFINITY,
                    "{}",
                    what(&format!("+inf row, column {j}: {p}"))
                );
            }
            let q = c[i_ninf * n + j];
            assert!(
                q == f64::NEG_INFINITY,
                "{}",
                what(&format!("-inf row, column {j}: {q}"))
            );
        }
        for i in (0..m).filter(|&i| i != i_nan && i != i_pinf && i != i_ninf) {
            for j in 0..n {
                let v = c[i * n + j];
                assert!(
                    v.is_finite(),
                    "{}",
                    what(&format!("beta = 0 leaked C into ({i}, {j}): {v}"))
                );
            }
        }

        // beta = 1: a NaN in C stays in its entry and nowhere else
        let (i_c, j_c) = (m / 3, n - 1);
        let mut hc: Vec<O::Bits> = (0..m * n)
            .map(|_| O::from_f64(rng.pm1()).to_bits())
            .collect();
        hc[i_c * n + j_c] = O::POISON;
        let c = run(&g.beta(1.0), s.clone_htod(&hc).unwrap());
        assert!(
            c[i_c * n + j_c].is_nan(),
            "{}",
            what("beta = 1 lost C's NaN")
        );
        let finite = (0..m * n)
            .filter(|&x| ![i_nan, i_pinf, i_ninf].contains(&(x / n)) && x != i_c * n + j_c)
            .all(|x| c[x].is_finite());
        assert!(
            finite,
            "{}",
            what("beta = 1: a non-finite entry outside the special rows")
        );

        // alpha = 0, beta = 0: C = 0 whatever A and C hold (BLAS: A, B and C not read)
        let zero = run(&g.alpha(0.0), filled(s, O::POISON, m * n))
            .into_iter()
            .all(|x| x == 0.0);
        assert!(zero, "{}", what("alpha = 0, beta = 0 must give C = 0"));
    }
    println!("ok special values {} -> {} ({ctx_name})", I::NAME, O::NAME);
}

#[test]
fn nan_and_inf_propagate_and_beta_zero_ignores_c() {
    for (name, ctx) in gpu_all() {
        special_values::<f32, f32>(name, ctx, Precision::Exact);
        special_values::<f32, f32>(name, ctx, Precision::Tf32);
        special_values::<f16, f16>(name, ctx, Precision::Default);
        special_values::<f16, f32>(name, ctx, Precision::Default);
        special_values::<bf16, bf16>(name, ctx, Precision::Default);
        special_values::<bf16, f32>(name, ctx, Precision::Default);
    }
}

// ---------------------------------------------------------------------------------------------
// Beyond 2^31 elements
// ---------------------------------------------------------------------------------------------

/// A cheap deterministic value in [-1, 1], never zero, for element `i` (billions of them).
fn hashed(i: usize, salt: u64) -> f64 {
    let mut x = (i as u64 ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 32;
    let v = ((x >> 40) as f64 + 1.0) / (1u64 << 24) as f64; // (0, 1]
    if x & 1 == 0 {
        v
    } else {
        -v
    }
}

/// Fills `len` elements of `T` with `hashed`, in parallel.
fn fill_hashed<T: TestElem>(len: usize, salt: u64) -> Vec<T::Bits> {
    let mut v = vec![T::POISON; len];
    let threads = std::thread::available_parallelism().map_or(4, |t| t.get());
    let chunk = len.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (c, part) in v.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (o, x) in part.iter_mut().enumerate() {
                    *x = T::from_f64(hashed(c * chunk + o, salt)).to_bits();
                }
            });
        }
    });
    v
}

/// `C = A·B` with `m·n` or `m·k` beyond 2³¹ elements (packed, row-major), checked on rows at the
/// start, around element 2³¹ of C and at the end.
fn beyond_2_31<I: TestElem, O: TestElem>(
    ctx_name: &str,
    ctx: &Context,
    (m, n, k): (usize, usize, usize),
) {
    let s = ctx.stream();
    let ha = fill_hashed::<I>(m * k, 1);
    let hb = fill_hashed::<I>(k * n, 2);
    let da = s.clone_htod(&ha).unwrap();
    let db = s.clone_htod(&hb).unwrap();
    let mut dc = filled(s, O::POISON, m * n);
    let g = Gemm::new(m, n, k);
    gemm_bits::<I, O>(ctx, &g, &da, &db, &mut dc);
    let edge = (1usize << 31) / n;
    let mut rows = vec![
        0,
        1,
        edge.saturating_sub(1),
        edge,
        edge + 1,
        m / 2,
        m - 2,
        m - 1,
    ];
    rows.retain(|&r| r < m);
    rows.sort_unstable();
    rows.dedup();
    let tol = 4.0 * O::UNIT_ROUNDOFF + 64.0 * f64::from(f32::EPSILON);
    for r in rows {
        let row = s.clone_dtoh(&dc.slice(r * n..(r + 1) * n)).unwrap();
        for j in (0..n).step_by((n / 61).max(1)).chain([n - 1]) {
            let (mut want, mut mag) = (0.0f64, 0.0f64);
            for q in 0..k {
                let x = I::from_bits(ha[r * k + q]).to_f64() * I::from_bits(hb[q * n + j]).to_f64();
                want += x;
                mag += x.abs();
            }
            let got = O::from_bits(row[j]).to_f64();
            assert!(
                (got - want).abs() <= tol * mag,
                "{} -> {} {ctx_name} {m}x{n}x{k}: entry ({r}, {j}) (element {} of C) is {got}, want {want}",
                I::NAME,
                O::NAME,
                r * n + j
            );
        }
    }
    println!(
        "ok {} -> {} {ctx_name} {m}x{n}x{k}: C has {} elements, A {}",
        I::NAME,
        O::NAME,
        m * n,
        m * k
    );
}

/// More than 2³¹ elements in C (f16 and f32 output) and in A, on the Hopper (aligned) and the
/// sm_80 kernels: 64-bit offsets throughout.
#[test]
fn operands_beyond_2_pow_31_elements_compute_correctly() {
    for (name, ctx) in gpu_all() {
        // C: 46344² = 2 147 766 336 > 2³¹ elements (16-byte-aligned rows: TMA where available)
        beyond_2_31::<f16, f16>(name, ctx, (46344, 46344, 16));
        // odd n: the sm_80 kernels
        beyond_2_31::<f16, f16>(name, ctx, (46341, 46345, 16));
        beyond_2_31::<f32, f32>(name, ctx, (46341, 46345, 8));
        // A: (2²⁷ + 3) × 16 > 2³¹ elements, C 8 wide
        beyond_2_31::<bf16, f32>(name, ctx, ((1 << 27) + 3, 8, 16));
    }
}
