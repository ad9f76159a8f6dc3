//! Dispatch of calls with few rows or columns of C: the few-row CUDA-core and `mma.sync` tiles,
//! the 64-row `wgmma` tile from 17 rows on Hopper, and the stream tile of unaligned decode calls.

use super::hopper_tests::context_cut;
use super::tests::f32_problem;
use super::*;
use crate::test_support::problem;
use tcgemm_kernels::config::KERNELS;

#[test]
fn exact_fp32_with_few_rows_takes_the_few_row_cuda_core_tiles() {
    use tcgemm_kernels::config::Family;
    // cut along K as the context would: uncut, the 64×64 tile's 64 tiles of 1×4096×4096 would
    // fill more SMs than the 8-row tile's 32
    let pick = |g: Gemm| {
        let p = f32_problem(&g, false);
        select(KERNELS, &p, Some(132), |_| true, context_cut(&p))
            .map(|s| (s.family, s.block.m))
            .unwrap()
    };
    let few_rows = Family::CudaCoreMultistage;
    // one row: the 8-row tile is the least padding (8x: class 6; the 16-row tile's is 8)
    for (n, k) in [(14336, 4096), (4096, 4096), (128256, 4096), (4096, 14336)] {
        assert_eq!(pick(Gemm::new(1, n, k)), (few_rows, 8), "1x{n}x{k}");
        assert_eq!(pick(Gemm::new(1, n, k).trans_b(true)), (few_rows, 8));
    }
    // 16 rows over 14336 columns: 8- and 16-row tiles both fill the GPU without padding: rank
    assert_eq!(pick(Gemm::new(16, 14336, 4096)), (few_rows, 16));
    // 48–64 rows: the 64-row 8×8-thread tile (two 32-row tiles would read B twice, the 128-row
    // one computes as much padding as C); 24–32 rows: the 32-row 8×8-thread tile, whose time the
    // model knows (the few-row tiles have none) at the same padding; at 40 the 16-row tile's 48
    // rows pad a class less than 64 (the model counts area, not tile speed)
    assert_eq!(pick(Gemm::new(40, 14336, 4096)), (few_rows, 16));
    for m in [48, 64] {
        for g in [Gemm::new(m, 14336, 4096), Gemm::new(m, 28672, 8192)] {
            assert_eq!(pick(g), (Family::CudaCore, 64), "{m} rows");
            assert_eq!(pick(g.trans_b(true)), (Family::CudaCore, 64), "{m} rows nt");
        }
    }
    for m in [24, 32] {
        assert_eq!(pick(Gemm::new(m, 28672, 8192)), (Family::CudaCore, 32));
    }
    // large products stay on the 128x128 tile
    assert_eq!(pick(Gemm::new(4096, 4096, 4096)), (Family::CudaCore, 128));
    assert_eq!(pick(Gemm::new(128, 28672, 8192)), (Family::CudaCore, 128));
    let tf32 = select(
        KERNELS,
        &f32_problem(&Gemm::new(4096, 4096, 4096), true),
        Some(132),
        |_| true,
        |_| KSplit::NONE,
    )
    .unwrap();
    assert_eq!(tf32.math, Math::MmaTf32);
}

#[test]
fn exact_fp32_with_few_columns_takes_the_64_wide_cuda_core_tiles() {
    use tcgemm_kernels::config::Family;
    // (family, block m, block n) of the exact FP32 kernel dispatch takes, cut as the context would
    let pick = |g: Gemm| {
        let p = f32_problem(&g, false);
        select(KERNELS, &p, Some(132), |_| true, context_cut(&p))
            .map(|s| (s.family, s.block.m, s.block.n))
            .unwrap()
    };
    // 64 columns: the 128-wide tiles would compute as much padding as C
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let (family, _, bn) = pick(Gemm::new(8192, 64, 8192).trans_a(ta).trans_b(tb));
        assert_eq!(
            (family, bn),
            (Family::CudaCore, 64),
            "8192x64x8192 {ta} {tb}"
        );
    }
    // a batch of 64×64 products: one 64×64 tile each
    let batched = Gemm::new(64, 64, 64).batch(1000);
    assert_eq!(pick(batched), (Family::CudaCore, 64, 64));
    // wide products keep the 128-wide tiles
    assert_eq!(pick(Gemm::new(4096, 4096, 4096)).2, 128);
    assert_eq!(pick(Gemm::new(64, 8192, 8192)).2, 128);
}

#[test]
fn tensor_core_calls_with_few_rows_take_the_few_row_tiles() {
    // without the sm_90a module (an sm_80 device): the `mma.sync` tiles, by padding, then rank
    let pick = |m: usize| {
        let p = problem(&Gemm::new(m, 14336, 4096), Elem::F16, Elem::F16, false);
        select(
            KERNELS,
            &p,
            Some(132),
            |s| !s.family.persistent(),
            |_| KSplit::NONE,
        )
        .map(|s| (s.block.m, s.block.n))
        .unwrap()
    };
    assert_eq!(pick(1), (16, 128));
    assert_eq!(pick(16), (16, 128));
    assert_eq!(pick(32), (32, 128));
    // 64 rows: no padding on the 32- or 64-row tiles; rank: the 64-row tile reads the weights once
    assert_eq!(pick(64), (64, 128));
    // 48 rows: both pad to 64 rows (the same class): rank again
    assert_eq!(pick(48), (64, 128));
    // a batch of 64×64 products: the 32×128 tile would pad 2×
    let p = problem(
        &Gemm::new(64, 64, 64).batch(1000),
        Elem::F16,
        Elem::F16,
        false,
    );
    let batched = select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
    assert_eq!((batched.block.m, batched.block.n), (64, 64));
}

#[test]
fn few_rows_on_hopper_take_the_64_row_wgmma_tile() {
    // every kernel usable (a Hopper context): 17 to 64 rows are free on a 64-row `wgmma` tile
    // (`padding_class`), so its rank beats the `mma.sync` tiles that pad less, in every layout;
    // the CUDA-core tiles keep their padding rule
    for (input, output, tf32) in [
        (Elem::F16, Elem::F16, false),
        (Elem::Bf16, Elem::F32, false),
        (Elem::F32, Elem::F32, true),
    ] {
        for m in [17, 32, 48, 64] {
            for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
                // (an M-major A of 1 or 17 rows has rows TMA cannot map: not 16-byte multiples;
                // `nt` of ≤ 32 rows streams on the swapped 32-wide tile: `ping_pong_tests`)
                if (ta && m % 8 != 0) || (!ta && tb && m <= 32) {
                    continue;
                }
                let g = Gemm::new(m, 14336, 4096).trans_a(ta).trans_b(tb);
                let p = problem(&g, input, output, tf32);
                let s = select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
                assert_eq!(
                    (s.family, s.block.m, s.block.n),
                    (Family::TmaWarpSpecialized, 64, 128),
                    "{g:?} {input:?}: {}",
                    s.name
                );
                assert_eq!(padding_class(s, &p), 0, "{g:?}");
            }
        }
    }
    // below the rule and above 64 rows it stops: 1, 8 and 16 rows take the 16-row `mma.sync`
    // tile (less padding), 65 rows not the 64-row one; exact FP32 never takes it (no `wgmma`)
    for (m, input, tf32) in [
        (1, Elem::F16, false),
        (8, Elem::F16, false),
        (16, Elem::F16, false),
        (16, Elem::Bf16, false),
        (16, Elem::F32, true),
        (65, Elem::F16, false),
    ] {
        let precision = if tf32 {
            Precision::Tf32
        } else {
            Precision::Default
        };
        let p = problem(
            &Gemm::new(m, 14336, 4096).precision(precision),
            input,
            input,
            tf32,
        );
        let s = select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
        assert!(
            m > 64 || (s.block.m, s.family) == (16, Family::MmaSyncMultistage),
            "{m}: {}",
            s.name
        );
        assert!(m < 64 || s.block.m != 64, "{m}: {}", s.name);
    }
    let p = f32_problem(&Gemm::new(1, 14336, 4096).precision(Precision::Exact), true);
    let s = select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
    assert_eq!((s.math, s.block.m), (Math::Ffma, 8), "{}", s.name);
}

#[test]
fn unaligned_decode_takes_the_stream_tile_of_its_rows() {
    use tcgemm_kernels::config::Family;
    // (family, tile rows) dispatch takes on 132 SMs with every kernel usable, cut as a context cuts
    let pick = |g: Gemm, input: Elem, output: Elem| {
        let p = problem(&g, input, output, false);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.family, s.block.m)
    };
    let stream = Family::CudaCoreStream;
    for (input, output) in [(Elem::F16, Elem::F16), (Elem::Bf16, Elem::F32)] {
        // B 4096×50257 (N-major, odd `ld`) or 50257×4096 with an odd `ld`
        for (m, bm) in [(1, 1), (3, 4), (4, 4), (5, 8), (8, 8)] {
            assert_eq!(pick(Gemm::new(m, 50257, 4096), input, output), (stream, bm));
            let nt = Gemm::new(m, 4096, 4096).trans_b(true).ldb(4097);
            assert_eq!(pick(nt, input, output), (stream, bm), "{m} {input:?}");
        }
        // 9 rows: a stream tile would read B twice
        assert_ne!(pick(Gemm::new(9, 50257, 4096), input, output).0, stream);
        // aligned: never (the pipelined tiles measured faster)
        for m in [1, 8] {
            assert_ne!(pick(Gemm::new(m, 4096, 4096), input, output).0, stream);
        }
    }
    // f32 inputs, exact: the stream tiles of 1 and 4 rows, then the CUDA-core tiles; asked as
    // TF32 the tensor-core tiles (the plan runs such a call as exact: `staging::exact_instead`)
    let f32 = |m, precision| {
        let g = Gemm::new(m, 50257, 4096).precision(precision);
        let p = problem(&g, Elem::F32, Elem::F32, false);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.family, s.block.m)
    };
    for (m, bm) in [(1, 1), (2, 4), (4, 4)] {
        assert_eq!(f32(m, Precision::Exact), (stream, bm));
    }
    assert_ne!(f32(5, Precision::Exact).0, stream);
    assert_ne!(f32(1, Precision::Tf32).0, stream);
}

#[test]
fn tf32x3_calls_of_16_rows_take_the_64_row_tile() {
    // the inner problem of a 3xTF32 call on Hopper (its own math only, all `wgmma` tiles): 16 rows
    // are not free (`FREE_WGMMA_ROWS`), yet the 64-row tile pads less than the 128-row ones
    use crate::problem::Signature;
    for (n, k) in [(4096, 4096), (14336, 4096), (1024, 1024)] {
        let g = Gemm::new(16, n, 3 * k).trans_b(true);
        let sig = Signature {
            maths: Some(&[Math::MmaTf32x3]),
            ..Signature::any_math(&g, Elem::F32, Elem::F32)
        };
        let p = Problem::resolve(&g, sig, g.required_lens().unwrap()).unwrap();
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        assert_eq!(
            (s.math, s.block.m),
            (Math::MmaTf32x3, 64),
            "16x{n}x{k}: {}",
            s.name
        );
    }
}

#[test]
fn tf32_nn_calls_of_17_to_32_rows_take_the_32_row_mma_sync_tile() {
    // `Precision::Tf32` `nn`: 17–32 rows are not free on the 64-row `wgmma` tile
    // (`FREE_WGMMA_ROWS_TF32_NN`), so the 32-row `mma.sync` tile, split along K, takes them; the
    // other layouts, 33 rows and up, and `Default` on a TF32 context (exact FP32 among its maths)
    // keep the `wgmma` tile
    use tcgemm_kernels::config::Family;
    let pick = |m: usize, n: usize, k: usize, ta: bool, precision: Precision| {
        let g = Gemm::new(m, n, k).trans_a(ta).precision(precision);
        let p = problem(&g, Elem::F32, Elem::F32, true);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.math, s.family, s.block.m, s.name)
    };
    for (n, k) in [
        (4096, 4096),
        (4096, 14336),
        (4096, 1024),
        (14336, 4096),
        (28672, 8192),
    ] {
        for m in [17, 24, 32] {
            let (math, family, bm, name) = pick(m, n, k, false, Precision::Tf32);
            assert_eq!(
                (math, family, bm),
                (Math::MmaTf32, Family::MmaSyncMultistage, 32),
                "{m}x{n}x{k}: {name}"
            );
            for (ta, precision) in [(true, Precision::Tf32), (false, Precision::Default)] {
                // (an M-major A of 17 f32 rows: rows TMA cannot map, not 16-byte multiples)
                if ta && m % 4 != 0 {
                    continue;
                }
                let (math, family, bm, name) = pick(m, n, k, ta, precision);
                assert_eq!(
                    (math, family.persistent(), bm),
                    (Math::MmaTf32, true, 64),
                    "{m}x{n}x{k} trans_a {ta} {precision:?}: {name}"
                );
            }
        }
        let (_, family, _, name) = pick(40, n, k, false, Precision::Tf32);
        assert!(family.persistent(), "40x{n}x{k}: {name}");
    }
    // batches keep the 64-row `wgmma` tile (unmeasured there)
    let g = Gemm::new(32, 512, 512).batch(64).precision(Precision::Tf32);
    let p = problem(&g, Elem::F32, Elem::F32, true);
    let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
    assert_eq!((s.family.persistent(), s.block.m), (true, 64), "{}", s.name);
}

#[test]
fn rows_past_64_take_a_wgmma_tile() {
    let pick = |g: &Gemm, input: Elem, tf32: bool| {
        let p = problem(g, input, input, tf32);
        (
            select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap(),
            p,
        )
    };
    // 65–90 rows pad a 128-row tile (or two 64-row ones) past √2-fold, yet their rows are free on
    // the `wgmma` tiles (`FREE_WGMMA_ROWS_PAST_64`): a persistent tile takes them in every math
    // and layout, where the 16- and 32-row `mma.sync` tiles (less padding) did
    for (input, tf32) in [(Elem::F16, false), (Elem::Bf16, false), (Elem::F32, true)] {
        for m in [65, 72, 88] {
            for (n, k) in [(4096, 4096), (4096, 14336), (14336, 4096), (28672, 8192)] {
                for tb in [false, true] {
                    let precision = if tf32 {
                        Precision::Tf32
                    } else {
                        Precision::Default
                    };
                    let g = Gemm::new(m, n, k).trans_b(tb).precision(precision);
                    let (s, p) = pick(&g, input, tf32);
                    assert!(s.family.persistent(), "{g:?} {input:?}: {}", s.name);
                    assert_eq!(padding_class(s, &p), 0, "{g:?} {input:?}: {}", s.name);
                }
            }
        }
    }
    // not in batches of short items (unmeasured there): 256 products of 80×80×80 keep the 32-row
    // `mma.sync` tile
    let (s, _) = pick(&Gemm::new(80, 80, 80).batch(256), Elem::F16, false);
    let got = (s.family.persistent(), s.block.m);
    assert_eq!(got, (false, 32), "{}", s.name);
    // under 4096 columns (`PAST_64_MIN_COLUMNS_16_BIT`) 16-bit calls keep the 16- and 32-row
    // `mma.sync` tiles (they ran 0.89–0.98× as fast on the `wgmma` tiles) where half a wave of the
    // swapped 32-wide tile does not take them (`admission::rows_over_32_on_swapped_tiles`: 65–80
    // rows × 1536–2560 columns) nor the swapped 128×32 tile those of few deep weight columns
    // (`admission::few_weight_columns_deep`: 72 and 80 rows × 512 columns × 4096, 12 tiles; 65
    // rows pad its 32-row tiles 1.5-fold), TF32 ones move
    for (m, tile_m) in [(65, 16), (72, 32), (80, 32)] {
        for (n, k) in [(512, 4096), (1024, 2048), (2048, 8192)] {
            for tb in [false, true] {
                let g = Gemm::new(m, n, k).trans_b(tb);
                for input in [Elem::F16, Elem::Bf16] {
                    let (s, _) = pick(&g, input, false);
                    let got = (s.family.persistent(), s.block.m);
                    if (n, k) == (512, 4096) && m >= 72 {
                        assert!(
                            s.swaps_ab() && (s.block.m, s.block.n) == (128, 32),
                            "{g:?}: {}",
                            s.name
                        );
                        continue;
                    }
                    assert_eq!(got, (false, tile_m), "{g:?} {input:?}: {}", s.name);
                }
                let (s, _) = pick(&g.precision(Precision::Tf32), Elem::F32, true);
                assert!(s.family.persistent(), "{g:?} TF32: {}", s.name);
            }
        }
    }
}

#[test]
fn deep_calls_on_few_weight_columns_take_the_swapped_128x32_tile() {
    // 16-bit single products of 17 to 128 rows, at least 4096 deep (at most 8192 for 65 to 96
    // rows, 4096 past them), whose 128×32 tiles fill at most a fifth of a wave: the swapped
    // 128×32 tile, split along K (`admission::few_weight_columns_deep`)
    let pick = |g: Gemm, input: Elem, output: Elem| {
        let p = problem(&g, input, output, false);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.name, cut(s).slices)
    };
    let paths = [
        (Elem::F16, Elem::F16),
        (Elem::F16, Elem::F32),
        (Elem::Bf16, Elem::Bf16),
        (Elem::Bf16, Elem::F32),
    ];
    for (i, o) in paths {
        for (m, n, k, tb) in [
            (32, 1536, 4096, false),
            (32, 1536, 8192, true),
            (64, 1536, 4096, true),
            (64, 1536, 8192, false),
            (24, 3072, 4096, false),
            (32, 2048, 4096, false),
            (20, 2048, 8192, true),
            (56, 1536, 4096, false),
            (72, 512, 4096, false),
            (96, 1024, 4096, true),
            (128, 512, 4096, false),
            (80, 1024, 8192, true),
            (88, 1024, 4096, true),
            (112, 512, 4096, false),
        ] {
            let (name, slices) = pick(Gemm::new(m, n, k).trans_b(tb), i, o);
            assert!(
                name.contains("_swap_128x32x64_") && slices > 1,
                "{m}x{n}x{k} trans_b {tb} {i:?}->{o:?}: {name} /{slices}"
            );
        }
    }
    // 16 and 65 rows, under 4096 deep, over a fifth of a wave (40 to 64 rows × 2048: 32 tiles;
    // 96×4096×4096: 96; 112×1024: 32), deeper than 8192 past 64 rows and than 4096 past 96,
    // `tn`, batches, TF32 and a B off 32-byte sectors: not this tile
    for g in [
        Gemm::new(16, 1536, 4096),
        Gemm::new(65, 1536, 4096),
        Gemm::new(32, 1536, 2048),
        Gemm::new(40, 2048, 4096),
        Gemm::new(64, 2048, 8192).trans_b(true),
        Gemm::new(96, 4096, 4096),
        Gemm::new(112, 1024, 4096),
        Gemm::new(72, 512, 14336),
        Gemm::new(128, 512, 8192),
        Gemm::new(32, 1536, 4096).trans_a(true),
        Gemm::new(32, 1536, 4096).batch(2),
        Gemm::new(32, 1536, 4096).ldb(1536 + 8),
    ] {
        let (name, _) = pick(g, Elem::F16, Elem::F16);
        assert!(!name.contains("_swap_128x32x64_"), "{g:?}: {name}");
    }
    let tf32 = Gemm::new(32, 1536, 4096)
        .trans_b(true)
        .precision(Precision::Tf32);
    let (name, _) = pick(tf32, Elem::F32, Elem::F32);
    assert!(!name.contains("_swap_128x32x64_"), "TF32: {name}");
}
