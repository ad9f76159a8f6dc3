//! GPU conversions f32 ↔ f16/bf16 (`Context::convert`) against the `half` crate (round to nearest
//! even), bitwise, on random values and on the edges: the largest finite values, values that round
//! to ±inf, subnormals, ±0, ±inf and NaN; sizes 0, 1, 3, 4, 5 and large; misaligned views.
//! Needs a CUDA GPU (skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use half::{bf16, f16};
use tcgemm_testkit::*;

fn specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        65504.0,
        -65504.0,
        65519.0,
        65520.0,
        -65520.0,
        1e9,
        f32::MAX,
        f32::MIN_POSITIVE,
        5.96e-8,
        2.98e-8,
        6.1e-5,
        1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.389_531_4e38,
        1.0 + f32::EPSILON,
        2049.0,
        2051.0,
    ]
}

fn values(rng: &mut Rng, n: usize) -> Vec<f32> {
    let s = specials();
    (0..n)
        .map(|i| {
            if i < s.len() {
                s[i]
            } else {
                // random magnitudes over the f16 range and beyond
                let e = rng.range(0, 40) as i32 - 30;
                (rng.pm1() as f32) * 2f32.powi(e)
            }
        })
        .collect()
}

/// Same bits, or both NaN.
fn same16(a: u16, b: u16, nan: impl Fn(u16) -> bool) -> bool {
    a == b || (nan(a) && nan(b))
}

#[test]
fn f32_to_16_and_back_bitwise() {
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let mut rng = Rng::for_test("f32_to_16_and_back_bitwise");
    for n in [0usize, 1, 3, 4, 5, 23, 1000, 1 << 20 | 3] {
        for off in [0usize, 1] {
            let x = values(&mut rng, n + off);
            let dx = s.clone_htod(&x).unwrap();
            let src = dx.slice(off..);
            let mut h = s.alloc_zeros::<f16>(n + 1).unwrap();
            let mut b = s.alloc_zeros::<bf16>(n + 1).unwrap();
            {
                let mut hv = h.slice_mut(off.min(1)..);
                let mut bv = b.slice_mut(off.min(1)..);
                ctx.convert(&src, &mut hv).unwrap();
                ctx.convert(&src, &mut bv).unwrap();
            }
            let hh = s.clone_dtoh(&h).unwrap();
            let bh = s.clone_dtoh(&b).unwrap();
            s.synchronize().unwrap();
            for i in 0..n {
                let v = x[off + i];
                let (gh, gb) = (hh[off.min(1) + i], bh[off.min(1) + i]);
                let (wh, wb) = (f16::from_f32(v), bf16::from_f32(v));
                assert!(
                    same16(gh.to_bits(), wh.to_bits(), |u| f16::from_bits(u).is_nan()),
                    "f32 {v:e} -> f16: got {:#06x}, want {:#06x} (n={n}, offset={off}, i={i})",
                    gh.to_bits(),
                    wh.to_bits()
                );
                assert!(
                    same16(gb.to_bits(), wb.to_bits(), |u| bf16::from_bits(u).is_nan()),
                    "f32 {v:e} -> bf16: got {:#06x}, want {:#06x} (n={n}, offset={off}, i={i})",
                    gb.to_bits(),
                    wb.to_bits()
                );
            }
            // and back: exact widening
            let mut back = s.alloc_zeros::<f32>(n + 1).unwrap();
            for (label, wide) in [("f16", 0), ("bf16", 1)] {
                {
                    let mut bk = back.slice_mut(off.min(1)..);
                    if wide == 0 {
                        ctx.convert(&h.slice(off.min(1)..), &mut bk).unwrap();
                    } else {
                        ctx.convert(&b.slice(off.min(1)..), &mut bk).unwrap();
                    }
                }
                let got = s.clone_dtoh(&back).unwrap();
                s.synchronize().unwrap();
                for i in 0..n {
                    let want = if wide == 0 {
                        hh[off.min(1) + i].to_f32()
                    } else {
                        bh[off.min(1) + i].to_f32()
                    };
                    let g = got[off.min(1) + i];
                    assert!(
                        g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                        "{label} -> f32: got {g:e}, want {want:e} (n={n}, i={i})"
                    );
                }
            }
        }
    }
}

#[test]
fn convert_rejects_short_destination_and_other_pairs() {
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let x = s.clone_htod(&[1.0f32; 8]).unwrap();
    let mut h = s.alloc_zeros::<f16>(7).unwrap();
    assert!(matches!(
        ctx.convert(&x, &mut h),
        Err(tcgemm::Error::InvalidArgument { what: "dst", .. })
    ));
    let mut y = s.alloc_zeros::<f32>(8).unwrap();
    assert!(matches!(
        ctx.convert(&x, &mut y),
        Err(tcgemm::Error::InvalidArgument {
            what: "element types",
            ..
        })
    ));
}
