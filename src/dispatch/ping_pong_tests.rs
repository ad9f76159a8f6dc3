//! Dispatch of the ping-pong tiles (`Family::TmaPingPong`): batches of short items, and single
//! products of one wave of their tiles (16-bit, and TF32 beyond 64 rows and columns), the 32-wide
//! tiles on decode rows.

use super::admission::{admits, one_wave_of_tiles, short_items};
use super::hopper_tests::context_cut;
use super::*;
use crate::test_support::problem;
use tcgemm_kernels::config::KERNELS;

/// `(ping-pong, block m, block n)` of the kernel a Hopper context (132 SMs, every kernel usable)
/// takes for `g` in every layout, with `input -> output` elements.
fn picks(g: Gemm, input: Elem, output: Elem, tf32: bool) -> Vec<(bool, u32, u32)> {
    let mut v = Vec::new();
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let g = g.trans_a(ta).trans_b(tb);
        let p = problem(&g, input, output, tf32);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        v.push((s.family == Family::TmaPingPong, s.block.m, s.block.n));
    }
    v
}

const PATHS: [(Elem, Elem, bool); 5] = [
    (Elem::F16, Elem::F16, false),
    (Elem::F16, Elem::F32, false),
    (Elem::Bf16, Elem::Bf16, false),
    (Elem::Bf16, Elem::F32, false),
    (Elem::F32, Elem::F32, true),
];

#[test]
fn short_batched_items_take_the_ping_pong_tiles() {
    for (input, output, tf32) in PATHS {
        let tf32_precision = |g: Gemm| {
            if tf32 {
                g.precision(Precision::Tf32)
            } else {
                g
            }
        };
        // 64-wide items: the 64×64 tile, which pads none of them
        let g = tf32_precision(Gemm::new(64, 64, 64).batch(1000));
        assert_eq!(
            picks(g, input, output, tf32),
            [(true, 64, 64); 4],
            "{input:?}"
        );
        // 128-wide items: the 64×128 tile (ranked above the 64×64 one on equal time)
        for (items, k) in [(512, 64), (256, 128)] {
            let g = tf32_precision(Gemm::new(128, 128, k).batch(items));
            assert_eq!(
                picks(g, input, output, tf32),
                [(true, 64, 128); 4],
                "{input:?} {items}*128x128x{k}"
            );
        }
    }
}

#[test]
fn long_or_large_items_keep_the_cooperative_tiles() {
    for (input, output, tf32) in PATHS {
        let precision = if tf32 {
            Precision::Tf32
        } else {
            Precision::Default
        };
        for g in [
            // items wider than 128, deeper than 128, or a single product of small k
            Gemm::new(512, 512, 64).batch(64),
            Gemm::new(128, 128, 4096).batch(100),
            Gemm::new(8192, 8192, 64),
            // 288 tiles of 64×64 or 144 of 64×128: more than a wave
            Gemm::new(288, 4096, 4096),
        ] {
            let g = g.precision(precision);
            for (pp, _, _) in picks(g, input, output, tf32) {
                assert!(!pp, "{input:?} {g:?}");
            }
        }
    }
}

#[test]
fn short_items_are_batched_and_at_most_128_cubed() {
    let short = |g: Gemm| short_items(&problem(&g, Elem::F16, Elem::F16, false));
    assert!(short(Gemm::new(128, 128, 128).batch(2)));
    assert!(!short(Gemm::new(128, 128, 128)));
    assert!(!short(Gemm::new(129, 128, 128).batch(2)));
    assert!(!short(Gemm::new(128, 129, 128).batch(2)));
    assert!(!short(Gemm::new(128, 128, 129).batch(2)));
}

#[test]
fn one_wave_of_tiles_takes_a_ping_pong_tile() {
    // 128 tiles of 64×64 at 64×8192, 8192×64 and 128×4096, of 64×128 at 256×4096: one wave each
    for (input, output, tf32) in PATHS {
        for (g, tile) in [
            (Gemm::new(64, 8192, 8192), (64, 64)),
            (Gemm::new(8192, 64, 8192), (64, 64)),
            (Gemm::new(128, 4096, 4096), (64, 64)),
            (Gemm::new(256, 4096, 4096), (64, 128)),
            // 96 tiles of 64×128 (73%: more than 64 rows and columns, half a wave suffices)
            (Gemm::new(192, 4096, 4096), (64, 128)),
        ] {
            let g = if tf32 {
                g.precision(Precision::Tf32)
            } else {
                g
            };
            let layouts = ["nn", "nt", "tn", "tt"];
            for (pick, layout) in picks(g, input, output, tf32).into_iter().zip(layouts) {
                // TF32: the 64×128 ping-pong tile in `nt` (H200, session 47: 256×4096×4096
                // 221.3 → 256.0 TFLOPS, 192×4096×4096 174.2 → 193.2 against the 128×256 tile
                // split in four); not on thin calls, and the model keeps the cooperative tiles
                // in the other layouts and at 128×4096×4096
                let want = !tf32 || (layout == "nt" && tile == (64, 128));
                if want {
                    assert_eq!(pick, (true, tile.0, tile.1), "{input:?} {g:?} {layout}");
                } else {
                    assert!(!pick.0, "{input:?} {g:?} {layout}");
                }
            }
        }
    }
    // TF32 beyond thin calls: the 64-wide tile only in `nt` or at most 1024 deep (its producer
    // transposes an operand in the other layouts; 256×2048×2048 `tn` ran 0.79× the 128×64 tile)
    let tf32 = |g: Gemm| problem(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, true);
    let pp64 = KERNELS
        .iter()
        .find(|k| k.name == "tf32_tn_64x64x32_w64x64_s12_tma_pp")
        .unwrap();
    let deep = tf32(Gemm::new(256, 2048, 2048).trans_a(true));
    let shallow = tf32(Gemm::new(640, 640, 640).trans_a(true));
    let pp = |_| true;
    let pairs = |_: &KernelSpec| None;
    assert!(
        !admits(pp64, &deep, Some(132), pp, pairs) && admits(pp64, &shallow, Some(132), pp, pairs)
    );
    // 640³: 100 tiles of 64×64 (76% of a wave), every layout (27.3 → 53.0 TFLOPS in `nt`)
    let g = Gemm::new(640, 640, 640).precision(Precision::Tf32);
    assert_eq!(picks(g, Elem::F32, Elem::F32, true), [(true, 64, 64); 4]);
    let named = |name| KERNELS.iter().find(|k| k.name == name).unwrap();
    let sixty_four = named("f16_f16_nn_64x64x64_w64x64_s12_tma_pp");
    let wide_tile = named("f16_f16_nn_64x128x64_w64x128_s8_tma_pp");
    let one_wave = |m, n| {
        one_wave_of_tiles(
            sixty_four,
            &problem(&Gemm::new(m, n, 4096), Elem::F16, Elem::F16, false),
            132,
        )
    };
    // the 64×128 tile's own 64 tiles at 64×8192: not a wave
    assert!(!one_wave_of_tiles(
        wide_tile,
        &problem(&Gemm::new(64, 8192, 4096), Elem::F16, Elem::F16, false),
        132
    ));
    // 128 tiles of 64×64 on 132 SMs (97%): one wave; 64 tiles (48%), or 256 with 65 rows: not
    assert!(one_wave(64, 8192) && one_wave(8192, 64) && one_wave(33, 7680) && one_wave(128, 4096));
    assert!(
        !one_wave(64, 4096) && !one_wave(65, 8192) && !one_wave(64, 8512) && !one_wave(192, 4096)
    );
    // beyond 64 rows and columns half a wave suffices: 96 tiles of 64×128 at 192×4096 (73%),
    // not 64 at 128×4096 (48%)
    let wide = |m, n| {
        one_wave_of_tiles(
            wide_tile,
            &problem(&Gemm::new(m, n, 4096), Elem::F16, Elem::F16, false),
            132,
        )
    };
    assert!(wide(192, 4096) && !wide(128, 4096) && !wide(64, 8192));
    assert!(!one_wave_of_tiles(
        sixty_four,
        &problem(
            &Gemm::new(64, 8192, 4096).batch(2),
            Elem::F16,
            Elem::F16,
            false
        ),
        132
    ));
}

/// TF32 single products at most 512 deep take the 64×64 ping-pong tile from a quarter of a wave
/// (`full_fill_percent`; in `tn` from 257 deep): 512³ (64 tiles, 48%), 384³ (36, 27%), over the
/// 16-row `mma.sync` tile (H200, session 48: 512³ `nt` 16.9 → 28.3 TFLOPS). Not under a quarter
/// (256³: 16 tiles), not `tn` at 128 deep (0.94–0.97×), not deeper than 512 (512×512×2048: the
/// split tiles, 1.1–1.5× the ping-pong tile forced).
#[test]
fn tf32_ping_pong_tiles_from_a_quarter_of_a_wave() {
    let tf32 = |m, n, k| Gemm::new(m, n, k).precision(Precision::Tf32);
    let pp64 = (true, 64, 64);
    for s in [384, 512] {
        assert_eq!(picks(tf32(s, s, s), Elem::F32, Elem::F32, true), [pp64; 4]);
    }
    // nn, nt, tt at 128 deep; `tn` keeps the mma.sync tile
    let shallow = picks(tf32(512, 512, 128), Elem::F32, Elem::F32, true);
    assert_eq!([shallow[0], shallow[1], shallow[3]], [pp64; 3]);
    assert!(!shallow[2].0);
    for g in [tf32(256, 256, 256), tf32(512, 512, 2048)] {
        assert!(picks(g, Elem::F32, Elem::F32, true).iter().all(|p| !p.0));
    }
    // 16-bit inputs keep half a wave: 512³ stays on the mma.sync tile
    let f16 = picks(Gemm::new(512, 512, 512), Elem::F16, Elem::F16, false);
    assert!(f16.iter().all(|p| !p.0));
}

/// Decode calls of one wave of 32-wide tiles (at most 64 rows, 3776–4224 columns) with a K-major B,
/// and `nn` and `nt` calls of one wave of their swapped 32×64 tiles of C (≤ 32 rows at 7616–8448
/// columns, where the time model ranks them first) take the 32-wide ping-pong tiles unsplit
/// (`admission::decode_rows`; H200, 64×4096×4096 `nt` and `tt` 1.05–1.06× the 64×128 tile split
/// in two; H100, `nn` swapped 1.09–1.19×); and so do, on the swapped tile, at least 1024 deep
/// (`admission::streams_few_rows`), `nn` and `nt` calls of 8 to 32 rows (fewer, up to 2048 deep)
/// whose swapped tiles fill half a wave or more but under one, and `nt` calls of 1 to 32 rows
/// whose swapped tiles fill a wave or more; fewer rows deeper, more rows, `tn`, fewer columns or,
/// on a whole wave or more, `nn` calls of 16 rows or fewer keep the other tiles.
#[test]
fn decode_rows_of_one_wave_take_the_32_wide_ping_pong_tiles() {
    let pick = |m, n, k, ta, tb, i, o| {
        let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
        let p = problem(&g, i, o, false);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        let cut = context_cut(&p)(s).slices;
        (s.family, s.block.n, cut, s.swaps_ab())
    };
    for (i, o) in [
        (Elem::F16, Elem::F16),
        (Elem::F16, Elem::F32),
        (Elem::Bf16, Elem::Bf16),
        (Elem::Bf16, Elem::F32),
    ] {
        // (the shapes of tests/half.rs's GPU check among them: 48 rows, a k tail of 32)
        // (`nn`: the swapped tile, 32 rows × 64 columns of C)
        for (m, k, ta, tb) in [
            (64, 4096, false, true),
            (64, 4096, true, true),
            (48, 4096, false, true),
            (64, 4128, true, true),
            (64, 4096, false, false),
            (48, 4128, false, false),
        ] {
            let want = (Family::TmaPingPong, 32, 1, !ta && !tb);
            assert_eq!(
                pick(m, 4096, k, ta, tb, i, o),
                want,
                "{m}x4096x{k} {ta} {tb} {i:?}"
            );
        }
        // swapped, 8 to 32 rows: 128 tiles at 8192 columns (17 to 32 rows, by the time model),
        // 64–96 (`admission::streams_few_rows`) at 4096–6144, unsplit; fewer rows there up to
        // 2048 deep; `nt`, 1 to 32 rows on 128 to 2004 tiles
        for (m, n, k, tb) in [
            (4, 4096, 1024, false),
            (5, 4096, 1056, false),
            (3, 8192, 2080, true),
            (2, 14336, 1024, true),
            (1, 5120, 2048, false),
            (7, 4096, 2048, true),
            (1, 8192, 8192, true),
            (16, 8192, 8192, true),
            (2, 14336, 4096, true),
            (16, 14336, 4096, true),
            (32, 14336, 4096, true),
            (17, 28672, 8192, true),
            (24, 128256, 4096, true),
            (3, 28672, 8192, true),
            (32, 8192, 8192, false),
            (24, 8192, 28672, false),
            (32, 6144, 4096, false),
            (17, 5120, 4096, false),
            (12, 6144, 4096, false),
            (32, 4096, 4096, false),
            (24, 4096, 1024, false),
            (8, 4096, 14336, false),
            (32, 8192, 8192, true),
            (24, 4096, 4096, true),
            (17, 4096, 4128, true),
            (8, 4096, 14336, true),
        ] {
            let want = (Family::TmaPingPong, 32, 1, true);
            assert_eq!(
                pick(m, n, k, false, tb, i, o),
                want,
                "{m}x{n}x{k} {tb} {i:?}"
            );
        }
        for (m, n, k, ta, tb) in [
            (64, 4096, 4096, true, false),
            (4, 4096, 4096, false, true),
            (2, 4096, 14336, false, false),
            (4, 4096, 512, false, false),
            (1, 6144, 4096, false, true),
            (8, 14336, 4096, false, false),
            (1, 28672, 8192, false, false),
            (16, 8192, 8192, false, false),
            (128, 4096, 4096, false, true),
            (64, 4096, 11008, false, true),
            (48, 2048, 4096, false, true),
        ] {
            let (_, width, _, _) = pick(m, n, k, ta, tb, i, o);
            assert!(width >= 64, "{m}x{n}x{k} {ta} {tb} {i:?}");
        }
    }
}

/// TF32 `nt` decode calls take the swapped 32-wide tile (`tf32_nt_swap_*`) unsplit where the
/// 16-bit ones do (`admission::streams_few_rows`: 8 to 32 rows on half a wave, fewer 1024 to 2048
/// deep, 1 to 32 rows on a wave or more); `nn` (no TF32 `nn_swap` tile), fewer rows deeper than
/// 2048 under a wave, 33 rows or more (the time model's 64×128 tile), and fewer tiles than half a
/// wave keep the other tiles.
#[test]
fn tf32_nt_decode_rows_take_the_swapped_32_wide_tile() {
    let pick = |m, n, k, tb| {
        let g = Gemm::new(m, n, k).trans_b(tb);
        let p = problem(&g, Elem::F32, Elem::F32, true);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        let slices = context_cut(&p)(s).slices;
        (s.name, slices)
    };
    let swapped = "tf32_nt_swap_64x32x32_w64x32_s16_tma_pp";
    for (m, n, k) in [
        (8, 4096, 4096),
        (32, 4096, 4096),
        (24, 4096, 14336),
        (4, 4096, 1024),
        (7, 4096, 2048),
        (32, 6144, 4096),
        (1, 8192, 8192),
        (1, 14336, 4096),
        (32, 28672, 8192),
        (2, 128256, 4096),
    ] {
        assert_eq!(pick(m, n, k, true), (swapped, 1), "{m}x{n}x{k} nt");
    }
    for (m, n, k, tb) in [
        (32, 4096, 4096, false),
        (4, 4096, 4096, true),
        (2, 4096, 14336, true),
        (16, 2048, 4096, true),
        (64, 14336, 4096, true),
        (40, 4096, 4096, true),
        (64, 4096, 4096, true),
        (128, 4096, 4096, true),
    ] {
        assert_ne!(pick(m, n, k, tb).0, swapped, "{m}x{n}x{k} {tb}");
    }
}

#[test]
fn rows_of_one_wave_of_64x64_tiles_stream_on_the_ping_pong_tile() {
    // 16-bit calls of 97–128 rows × 4096 columns (128 tiles of 64×64), at least 4096 deep, `nn`
    // and `nt`: the 64×64 ping-pong tile, unsplit (`admission::ping_pong_streams_one_wave`)
    use tcgemm_kernels::config::Family;
    let pick = |m: usize, k: usize, tb: bool, input: Elem, tf32: bool| {
        let precision = if tf32 {
            Precision::Tf32
        } else {
            Precision::Default
        };
        let g = Gemm::new(m, 4096, k).trans_b(tb).precision(precision);
        let p = problem(&g, input, input, tf32);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.family, s.block.m, s.block.n, cut(s).slices, s.name)
    };
    for m in [97, 112, 128] {
        for k in [4096, 14336] {
            for (tb, input) in [
                (false, Elem::F16),
                (true, Elem::F16),
                (false, Elem::Bf16),
                (true, Elem::Bf16),
            ] {
                let (family, bm, bn, slices, name) = pick(m, k, tb, input, false);
                assert_eq!(
                    (family, bm, bn, slices),
                    (Family::TmaPingPong, 64, 64, 1),
                    "{m}x4096x{k} trans_b {tb} {input:?}: {name}"
                );
            }
        }
        // TF32 keeps the time model's pick (a 128-row tile split along K)
        let (family, ..) = pick(m, 14336, true, Elem::F32, true);
        assert_ne!(family, Family::TmaPingPong, "{m} rows TF32 nt");
    }
    // 96 rows (two rows of 64-row tiles for one of 128) and 129 rows: not this rule
    for m in [96, 129] {
        let g = Gemm::new(m, 4096, 14336);
        let p = problem(&g, Elem::F16, Elem::F16, false);
        let spec = KERNELS
            .iter()
            .find(|k| k.name == "f16_f16_nn_64x64x64_w64x64_s12_tma_pp")
            .unwrap();
        assert!(!admission::ping_pong_streams_one_wave(spec, &p, 132), "{m}");
    }
}

#[test]
fn rows_over_32_on_a_share_of_a_wave_take_the_swapped_32_wide_tile() {
    // 16-bit single products, `nn` and `nt`, of 33–64 rows 1024–2048 deep whose swapped 32×64
    // tiles of C fill 48 to 118 of 132 SMs, of 65–96 rows 1024–4096 deep and of 97–128 rows
    // 1024–2048 deep whose tiles fill 72 to 132, and of 97–128 rows 4096 deep whose tiles fill 119
    // to 132: the swapped 32-wide tile, unsplit (`admission::rows_over_32_on_swapped_tiles`)
    use tcgemm_kernels::config::Family;
    let pick = |g: Gemm, input: Elem, output: Elem, tf32: bool| {
        let p = problem(&g, input, output, tf32);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        let swapped = (s.family, s.block.n, s.swaps_ab(), cut(s).slices)
            == (Family::TmaPingPong, 32, true, 1);
        (swapped, s.name)
    };
    let takes = [
        (65, 2048, 2048, false),
        (80, 2048, 4096, true),
        (72, 1536, 1024, true),
        (96, 2560, 4096, false),
        (100, 2048, 4096, true),
        (128, 2048, 4096, false),
        (128, 2048, 1024, false),
        (97, 1152, 2048, true),
        (33, 1536, 1024, false),
        (40, 3072, 2048, true),
        (48, 2048, 2048, false),
        (64, 1480, 1024, true),
        (56, 3776, 2048, false),
        (48, 2048, 2048, true),
        (40, 3072, 1056, false),
        (33, 1536, 2016, true),
    ];
    for (i, o, _) in PATHS.into_iter().filter(|p| !p.2) {
        for (m, n, k, tb) in takes {
            let (swapped, name) = pick(Gemm::new(m, n, k).trans_b(tb), i, o, false);
            assert!(swapped, "{m}x{n}x{k} trans_b {tb} {i:?}->{o:?}: {name}");
        }
    }
    // 97–128 rows 4096 deep under 119 tiles (the 128×64 tile split in clusters of 4),
    // deeper than 4096 (33–64 rows: 2048; the split tiles read the weights with more CTAs),
    // shallower than 1024, under 72 tiles (33–64 rows: 48; 1024 columns of 65–128 rows: 48 or 64;
    // 65 rows × 1472: 69) or over a wave (96 rows × 4096 columns: 192), 129 rows, batches, `tn`,
    // TF32, and a B off 32-byte sectors: not this rule; 33–64 rows on 90% of a wave or more are
    // the time model's (`admission::one_wave_of_tiles`: 64×4096×2048 `nt` on the unswapped tile)
    let f16 = |g: Gemm| pick(g, Elem::F16, Elem::F16, false);
    for g in [
        Gemm::new(100, 1536, 4096).trans_b(true),
        Gemm::new(128, 1152, 4096),
        Gemm::new(80, 2048, 8192),
        Gemm::new(80, 2048, 512),
        Gemm::new(96, 1024, 4096),
        Gemm::new(65, 1472, 2048),
        Gemm::new(128, 1024, 2048),
        Gemm::new(96, 4096, 4096),
        Gemm::new(128, 2560, 2048),
        Gemm::new(129, 1536, 2048),
        Gemm::new(48, 2048, 4096),
        Gemm::new(64, 1472, 2048),
        Gemm::new(64, 4096, 2048).trans_b(true),
        Gemm::new(80, 2048, 2048).batch(2),
        Gemm::new(80, 2048, 2048).trans_a(true),
        Gemm::new(80, 2048, 2048).ldb(2048 + 8),
    ] {
        let (swapped, name) = f16(g);
        assert!(!swapped, "{g:?}: {name}");
    }
    let tf32 = Gemm::new(80, 2048, 2048)
        .trans_b(true)
        .precision(Precision::Tf32);
    let (swapped, name) = pick(tf32, Elem::F32, Elem::F32, true);
    assert!(!swapped, "TF32: {name}");
    // 128×1536×4096 on the 128×64 tile split in clusters of 4 (1.05–1.09× the swapped tile, H100)
    let p = problem(&Gemm::new(128, 1536, 4096), Elem::F16, Elem::F16, false);
    let cut = context_cut(&p);
    let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
    let k = cut(s);
    assert_eq!(
        (s.block.m, s.block.n, k.slices, k.cluster),
        (128, 64, 4, true),
        "{}",
        s.name
    );
}
