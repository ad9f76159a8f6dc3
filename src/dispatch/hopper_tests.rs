//! Dispatch on the Hopper tile family: fill and stream-K, k-slices of decode calls, thread copies
//! for unaligned operands, register-sourced A, swapped tiles, short k-slices, the 3xTF32 tiles and
//! few columns (the kernel table's real entries on 132 SMs).

use super::*;
use crate::test_support::{h200_cut, problem};
use tcgemm_kernels::config::KERNELS;

#[test]
fn hopper_tiles_go_by_fill_with_stream_k() {
    // (TMA kernel, stream-K, block m, block n) of the kernel dispatch takes for an aligned call on
    // 132 SMs, all kernels usable (a Hopper context), cut along K as the context would
    let pick = |g: Gemm, input: Elem, output: Elem| {
        let p = problem(&g, input, output, false);
        let cut = |s: &KernelSpec| KSplit {
            slices: 1,
            stream_k: crate::streamk::choose(s, &p, 132).is_some(),
            ..KSplit::NONE
        };
        let s = select(KERNELS, &p, Some(132), |_| true, cut).unwrap();
        (s.family.needs_tma(), cut(s).stream_k, s.block.m, s.block.n)
    };
    for (input, output, precision) in [
        (Elem::F16, Elem::F16, Precision::Default),
        (Elem::Bf16, Elem::F32, Precision::Default),
        (Elem::F32, Elem::F32, Precision::Tf32),
    ] {
        let pick = |m, n| pick(Gemm::new(m, n, 4096).precision(precision), input, output);
        // whole waves of 128×256 tiles (512 and 128 tiles: 97%): the higher rank, no stream-K
        assert_eq!(pick(4096, 4096), (true, false, 128, 256), "{input:?}");
        assert_eq!(pick(2048, 2048), (true, false, 128, 256), "{input:?}");
        // short waves: 96 tiles of 128×192 (73% of a wave, `full_fill_percent`) against 72 of
        // 128×256 streamed (H200, f16 `nn`: 477 against 440 TFLOPS; hopper-log session 46),
        // unsplit for TF32 (128 k-tiles of 32, fewer items than SMs: not shared,
        // `streamk::LONG_ITEM_KTILES`); 16-bit inputs take one wave of 132 tiles of 144×128 (the
        // 128×144 body swapped, `nn_swap`), unsplit
        if input == Elem::F32 {
            assert_eq!(pick(1536, 1536), (true, false, 128, 192), "{input:?}");
        } else {
            assert_eq!(pick(1536, 1536), (true, false, 128, 144), "{input:?}");
        }
        // 1024²: 64 tiles of 128×128 streamed against 128 of 64×128 or 128×64 unsplit (97% of a
        // wave): for 16-bit inputs the 64×128 ping-pong tile (`one_wave_of_tiles`; docs/tune.md,
        // f16 1024³ `nn` 0.0091 ms against the cooperative 128×64 tile's 0.0096); TF32 a TMA tile
        let (tma, sk, bm, bn) = pick(1024, 1024);
        assert!(tma, "{input:?} 1024×1024");
        if input != Elem::F32 {
            assert_eq!((sk, bm, bn), (false, 64, 128), "{input:?} 1024×1024");
        }
        // 3072²: 288 tiles of 128×256 (2.2 waves, stream-K) against 384 of 128×192 (2.9 waves):
        // the 128×192 tile, unsplit (the time model, `cost`)
        assert_eq!(pick(3072, 3072), (true, false, 128, 192), "{input:?}");
        // 64 tiles of 128×256: stream-K on them, or the 128×128 tile, whose 128 tiles fill 97%
        // of a wave
        let (tma, sk, _, bn) = pick(2048, 1024);
        assert!(tma && (sk || bn == 128), "{input:?} 2048×1024");
    }
    // without stream-K or k-slices the waves count: 512² is 32 tiles of 128×64 or 64×128 and 64
    // of 64×64 (24–48% of a wave, under `full_fill_percent`), 128 blocks of the 16×128 mma.sync
    // tile (97%): that wins
    let p = problem(&Gemm::new(512, 512, 4096), Elem::F16, Elem::F16, false);
    let s = select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
    assert!(!s.family.persistent() && s.block.m == 16, "{}", s.name);
}

/// A persistent (`wgmma`) tile from half a wave on ranks by the time model, not behind tiles that
/// fill more (`full_fill_percent`). H200, same run, dispatch before and after (docs/hopper-log.md,
/// session 46): 768³ f16 69.8 → 98.3 TFLOPS, TF32 29.4 → 60.2; 1792³ f16 422 → 462; 6144×512×4096
/// f16 477 → 554.
#[test]
fn wgmma_tiles_from_half_a_wave_go_by_time() {
    let pick = |m, n, k, input, output, precision| {
        let g = Gemm::new(m, n, k).precision(precision);
        let p = problem(&g, input, output, false);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        // the tile of C, shorter side first (TF32 `nn` swaps its register-A tiles)
        let (m, n) = (s.c_tile().m, s.c_tile().n);
        (s.family.persistent(), cut(s).stream_k, m.min(n), m.max(n))
    };
    for (input, output, precision) in [
        (Elem::F16, Elem::F16, Precision::Default),
        (Elem::F32, Elem::F32, Precision::Tf32),
    ] {
        // 768³: 72 tiles of 128×64 (55%) against 144 blocks of the 32×128 mma.sync tile
        assert_eq!(
            pick(768, 768, 768, input, output, precision),
            (true, false, 64, 128)
        );
        // 1792³: 98 tiles of 128×256 (74%) against 392 of 128×64 (99%) or stream-K
        assert_eq!(
            pick(1792, 1792, 1792, input, output, precision),
            (true, false, 128, 256)
        );
    }
    // 6144×512×4096: 96 tiles of 128×256 (73%) against 192 of 128×128 streamed
    let f16 = pick(6144, 512, 4096, Elem::F16, Elem::F16, Precision::Default);
    assert_eq!(f16, (true, false, 128, 256));
}

/// With split-K counted (the split model on each kernel's f32 twin), 128- and 256-row decode
/// calls on Hopper take the TMA kernels split along K (where their tiles do not fill one wave:
/// 128×4096×4096 takes the 64×64 ping-pong tile unsplit, `one_wave_of_tiles`).
#[test]
fn hopper_decode_calls_take_split_tma_kernels() {
    fn slices(p: &Problem) -> impl Fn(&KernelSpec) -> KSplit + '_ {
        move |s| {
            KSplit::sliced(
                crate::splitk::f32_twin(s, KERNELS)
                    .and_then(|t| crate::splitk::choose(t, p, 132))
                    .map_or(1, |(s, _)| s),
            )
        }
    }
    for (m, n, k, ta, tb) in [
        (128, 2048, 8192, false, false),
        (128, 2048, 8192, false, true),
        (256, 4096, 14336, true, false),
        (128, 1024, 4160, true, true),
    ] {
        let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
        for (i, o, tf32) in [
            (Elem::F16, Elem::F16, false),
            (Elem::Bf16, Elem::F32, false),
            (Elem::F32, Elem::F32, true),
        ] {
            let p = if tf32 {
                problem(&g, Elem::F32, Elem::F32, true)
            } else {
                problem(&g, i, o, false)
            };
            let s = select(KERNELS, &p, Some(132), |_| true, slices(&p)).unwrap();
            assert!(s.family.needs_tma(), "{g:?} {i:?}: {}", s.name);
            assert!(slices(&p)(s).slices > 1, "{g:?} {i:?}: {} unsplit", s.name);
        }
    }
}

#[test]
fn hopper_unaligned_calls_take_thread_copy_kernels() {
    use tcgemm_kernels::config::{Family, Target};
    // the family dispatch takes on 132 SMs with every kernel usable (a Hopper context) or the sm_80
    // module alone; odd sizes make odd packed leading dimensions, which TMA cannot map
    let pick = |g: Gemm, sm90: bool| {
        let p = problem(&g, Elem::F16, Elem::F16, false);
        let usable = |k: &KernelSpec| sm90 || k.target() == Target::Sm80;
        select(KERNELS, &p, Some(132), usable, |_| KSplit::NONE)
            .unwrap()
            .family
    };
    for g in [
        Gemm::new(4095, 4095, 4095),
        Gemm::new(4097, 4097, 4097).trans_a(true),
        Gemm::new(1921, 1023, 517).trans_b(true),
        Gemm::new(4096, 4096, 4096).lda(4097),
    ] {
        assert_eq!(pick(g, true), Family::LdgWarpSpecialized, "{g:?}");
        assert_eq!(pick(g, false), Family::MmaSyncMultistage, "{g:?}");
    }
    // A and B aligned, C not (TMA kernels refuse it): the sm_80 kernels, not the thread copies
    assert_eq!(
        pick(Gemm::new(4096, 4096, 4096).ldc(4097), true),
        Family::MmaSyncMultistage
    );
    // aligned: TMA; few rows of C: the few-row mma.sync tiles, whatever the alignment
    assert_eq!(
        pick(Gemm::new(4096, 4096, 4096), true),
        Family::TmaWarpSpecialized
    );
    assert_eq!(
        pick(Gemm::new(16, 4095, 4095), true),
        Family::MmaSyncMultistage
    );
}

#[test]
fn tf32_with_an_mn_major_operand_takes_register_a_kernels() {
    // aligned TF32 on 132 SMs: A M-major (`tn`, `tt`) or B N-major with A K-major (`nn`, which
    // swaps A and B) goes to the register-sourced kernels; `nt` (both K-major) to the TMA kernel,
    // in pairs where their units fill a wave (`admission::deep_waves`)
    let pick = |g: Gemm| {
        let p = problem(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, true);
        select(KERNELS, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap()
    };
    for (ta, tb) in [(false, false), (true, false), (true, true), (false, true)] {
        let g = |m, n| Gemm::new(m, n, 4096).trans_a(ta).trans_b(tb);
        let s = pick(g(4096, 4096));
        let family = |tma| if !ta && tb { tma } else { Family::TmaRegisterA };
        assert_eq!(
            (s.family, s.block.m, s.block.n),
            (family(Family::TmaPairs), 128, 256),
            "{}",
            s.name
        );
        assert_eq!(s.swaps_ab(), !ta && !tb, "{}", s.name);
        // 64 tiles of 128×256 (or 256×128 of C when swapped) leave SMs idle, and their 32 units
        // in pairs under a wave of 66 clusters: the 128×128 tile alone
        let s = pick(g(2048, 1024));
        assert_eq!(
            (s.family, s.c_tile().m, s.c_tile().n),
            (family(Family::TmaWarpSpecialized), 128, 128),
            "{}",
            s.name
        );
    }
}

#[test]
fn swapped_kernels_count_tiles_of_c_transposed() {
    let nn = KERNELS
        .iter()
        .find(|k| k.swaps_ab() && k.block.n == 256)
        .unwrap();
    assert_eq!((nn.c_tile().m, nn.c_tile().n), (256, 128));
    // 100 rows of C are one 256-row tile, 1000 columns eight of 128
    let p = problem(&Gemm::new(100, 1000, 64), Elem::F32, Elem::F32, true);
    assert_eq!(fill_percent(nn, &p, 132, KSplit::NONE), 8 * 100 / 132);
    // 256·1024 computed for 100·1000: 2.6×, class ⌊log₂ 6.9⌋ = 2
    assert_eq!(padding_class(nn, &p), 2);
}

/// The cut a Hopper context with split-K and stream-K on would make on 132 SMs
/// (`Context::cut`): stream-K where its model says so, else the split-K model's slices, fewer
/// where they run within clusters as an H200 holds them.
pub(super) fn context_cut(p: &Problem) -> impl Fn(&KernelSpec) -> KSplit + '_ {
    let cuts = crate::calls::Cuts {
        split_k: true,
        stream_k: true,
    };
    move |s| h200_cut(s, p, cuts)
}

#[test]
fn short_splits_of_persistent_kernels_give_way_to_an_unsplit_one() {
    let pick = |m, n, k| {
        let p = problem(&Gemm::new(m, n, k), Elem::F16, Elem::F16, false);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.family.persistent(), s.block.m, s.block.n, cut(s).slices)
    };
    // 1024³: the 128×256 tile would run 4 slices of 4 k-tiles; the 64×128 ping-pong tile's 128
    // tiles fill 97% of the SMs unsplit
    assert_eq!(pick(1024, 1024, 1024), (true, 64, 128, 1));
    // 1280³ (2 slices of 10 k-tiles) and 1024×2048×2048 (2 of 16): the 128×128 tile, unsplit
    assert_eq!(pick(1280, 1280, 1280), (true, 128, 128, 1));
    assert_eq!(pick(1024, 2048, 2048), (true, 128, 128, 1));
    // slices of 56 k-tiles pay: the 128×256 tile split 4 ways stays ahead of the unsplit 64×128
    assert_eq!(pick(256, 4096, 14336), (true, 128, 256, 4));
    // 64 rows: one wave of the 32-wide ping-pong tile, swapped (`nn`: 128 tiles of 32 rows × 64
    // columns of C), unsplit
    assert_eq!(pick(64, 4096, 4096), (true, 64, 32, 1));
    // 24 rows at 3072 columns (48 swapped 32-wide tiles, under half a wave: no
    // `admission::streams_few_rows`): the 128×64 tile's 48 items fill the SMs under stream-K but
    // pad 5×; the swapped 128×32 tile's 24 (`admission::few_weight_columns_deep`) split 4 ways
    assert_eq!(pick(24, 3072, 4096), (true, 128, 32, 4));
    // 48 rows at 2048 columns: 32 tiles of that tile, over a fifth of a wave; the 64×128 tile,
    // which counts the rows as free, split along K
    let (persistent, m, n, slices) = pick(48, 2048, 4096);
    assert!(persistent && (m, n) == (64, 128) && slices > 1);
    // 16 rows (not free on `wgmma` tiles for 16-bit inputs): the 16-row `mma.sync` tile, split 11
    // ways in its own tail
    assert_eq!(pick(16, 3072, 4096), (false, 16, 128, 11));
    let p = problem(&Gemm::new(1024, 1024, 1024), Elem::F16, Elem::F16, false);
    let big = KERNELS
        .iter()
        .find(|s| s.name == "f16_f16_nn_128x256x64_w64x256_s4_tma")
        .unwrap();
    assert!(short_split(big, &p, context_cut(&p)(big)));
}

#[test]
fn splits_past_8_slices_summed_by_the_reduction_kernel_give_way() {
    // TF32 calls of few tiles (`cost::reduced_slices_ktiles`): (block m, block n, slices)
    let pick = |m, n, k, ta: bool, tb: bool| {
        let g = Gemm::new(m, n, k)
            .trans_a(ta)
            .trans_b(tb)
            .precision(Precision::Tf32);
        let p = problem(&g, Elem::F32, Elem::F32, true);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.block.m, s.block.n, cut(s).slices)
    };
    // 4 tiles of 128×256 split 32 ways (8 k-tiles a slice) give way to 16 of 128×64 or 64×128
    // split 8 ways (H100, session 85: 1.22× at 256×512×8192 `nn`, 1.19× at 128×1024×8192 `tt`)
    assert_eq!(pick(256, 512, 8192, false, false), (128, 64, 8));
    assert_eq!(pick(128, 1024, 8192, true, true), (64, 128, 8));
    // 4 of 128×128 split 32 ways to 8 of 128×64 split 16 ways (1.11× at 128×512×14336 `nt`)
    assert_eq!(pick(128, 512, 14336, false, true), (128, 64, 16));
    // 8 slices cost nothing more: 16 tiles of 128×256 split 8 ways stay
    assert_eq!(pick(128, 4096, 14336, false, true), (128, 256, 8));
}

#[test]
fn tf32x3_tiles_under_one_wave_give_way() {
    // the inner problem of a 3xTF32 call on Hopper (`tf32x3::Chunk::problem`): `nt` on the TF32
    // parts, K three times as long, the 3xTF32 kernels' math only
    let pick = |size: usize| {
        let g = Gemm::new(size, size, 3 * size).trans_b(true);
        let sig = Signature {
            maths: Some(&[Math::MmaTf32x3]),
            ..Signature::any_math(&g, Elem::F32, Elem::F32)
        };
        let p = Problem::resolve(&g, sig, g.required_lens().unwrap()).unwrap();
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.block.m, s.block.n)
    };
    // whole waves of 128×192 tiles (3000³ up): the widest tile
    for size in [3000, 4096, 8192] {
        assert_eq!(pick(size), (128, 192), "{size}³");
    }
    // 2048³: 256 tiles of 128×128 (1.94 waves) rather than 176 of 128×192 streamed (1.3 waves):
    // the tuning run measured 128×128 faster at 2048³ (267 against 249 TFLOPS) and 1024×4096×8192
    // (302 against 292); in the suite's 3xTF32 2048³ (K three times as long) they tied (79.5
    // against 80.9 TFLOPS; H200, session 30)
    assert_eq!(pick(2048), (128, 128), "2048³");
    // 1024³: 48 tiles of 128×192 (and 64 of 128×128), each cut among 2–3 CTAs by stream-K, give
    // way to the 64×128 tile's 128, 97% of a wave unsplit
    assert_eq!(pick(1024), (64, 128), "1024³");
}

#[test]
fn few_columns_take_the_128x64_tiles() {
    // N ≤ 64: the 128×64 tile computes no padded columns (the 64×64 `mma.sync` tile ran 0.56×
    // cuBLAS at 8192×64×8192 f16); its 64 items stream k. Except 16-bit calls whose 64×64
    // tiles fill one wave (`one_wave_of_tiles`): the 64×64 ping-pong tile, one whole tile
    // per CTA
    for (m, n, k) in [(8192, 64, 8192), (8192, 32, 8192), (16384, 64, 4096)] {
        for (e, tf32) in [(Elem::F16, false), (Elem::Bf16, false), (Elem::F32, true)] {
            let p = problem(&Gemm::new(m, n, k), e, e, tf32);
            let cut = context_cut(&p);
            let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
            let want = if !tf32 && m == 8192 {
                (64, 64)
            } else {
                (128, 64)
            };
            assert_eq!(
                (s.block.m, s.block.n),
                want,
                "{m}x{n}x{k} {e:?}: {}",
                s.name
            );
        }
    }
    // against the 64×128 tiles on equal items (1024³: 128 each), as measured: for TF32 in `nn`
    // (B N-major) the 128×64 tile (its MN-major B half as wide; H200 1024³ 116 TFLOPS against
    // 92 for the cooperative 64×128 tile, docs/tune.md), in `nt`, `tn` and `tt` the 64×128
    // ping-pong tile (session 47: 161.3 against the 128×64 tile's 145.4, 98.2 against 87.3, 128.4
    // against the cooperative 64×128 tile's 115.6); 16-bit inputs take the 64×128 ping-pong tile
    // in every layout (f16 `nn` 0.0091 ms against the 128×64 tile's 0.0096, `nt` 0.0087 against
    // 0.0096)
    for (e, tf32) in [(Elem::F16, false), (Elem::Bf16, false), (Elem::F32, true)] {
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            let g = Gemm::new(1024, 1024, 1024).trans_a(ta).trans_b(tb);
            let p = problem(&g, e, e, tf32);
            let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
            let want = if !tf32 || ta || tb {
                (64, 128)
            } else {
                (128, 64)
            };
            assert_eq!((s.block.m, s.block.n), want, "{e:?} {}", s.name);
        }
    }
}

#[test]
fn time_classes_are_counted_among_kernels_of_equal_fill_and_padding() {
    // f32 calls in a context that allows TF32 (FFMA and TF32 kernels both candidates): a faster
    // TF32 tile that pads more does not push the unpadded TF32 tiles into later classes behind
    // the CUDA-core ones (H200, session 31: 8192×64×8192 `tt` TF32 104.8 TFLOPS on the 128×64
    // `wgmma` tile against 44.9 on the 128×64 CUDA-core tile)
    let pick = |g: Gemm| {
        let p = problem(&g, Elem::F32, Elem::F32, true);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.math, s.block.m, s.block.n)
    };
    for (ta, tb) in [(false, false), (true, true)] {
        let g = Gemm::new(8192, 64, 8192).trans_a(ta).trans_b(tb);
        assert_eq!(pick(g), (Math::MmaTf32, 128, 64), "8192x64x8192 {ta} {tb}");
    }
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let g = Gemm::new(1536, 1536, 1536).trans_a(ta).trans_b(tb);
        assert_eq!(pick(g).0, Math::MmaTf32, "1536³ {ta} {tb}");
    }
}

/// With B K-major (`nt`, `tt`), the 128×144 tiles where their items fill a wave that the wider
/// tiles leave short: 1536³ and 1472³ are 132 tiles of 128×144 (one wave) against 96 of
/// 128×192 (73%), 2112³ 255 (1.9 waves) against 187 (1.4); H200, dispatch before and after, same
/// run: 1.10–1.39× (docs/hopper-log.md, session 48). Not where they add padding or items for no
/// better fill: 1152³ (72 tiles against 81 of 128×128, both under a wave) and 2048×1024×4096
/// (128 against 128) ran 0.86–0.96× the 128×128 tile; nor in `nn` or `tn` (no such tile), nor
/// for TF32 `tt` (the register-A tiles).
#[test]
fn k_major_b_takes_128x144_tiles_where_they_fill_a_wave() {
    let pick = |m, n, k, (ta, tb), e, tf32| {
        let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
        let p = problem(&g, e, e, tf32);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.c_tile().m, s.c_tile().n)
    };
    let (nt, tt) = ((false, true), (true, true));
    for (e, tf32) in [(Elem::F16, false), (Elem::Bf16, false), (Elem::F32, true)] {
        let layouts: &[(bool, bool)] = if tf32 { &[nt] } else { &[nt, tt] };
        for &l in layouts {
            for s in [1472, 1536, 2112] {
                assert_eq!(pick(s, s, s, l, e, tf32), (128, 144), "{s}³ {l:?} {e:?}");
            }
            assert_eq!(
                pick(1152, 1152, 1152, l, e, tf32),
                (128, 128),
                "{l:?} {e:?}"
            );
            assert_eq!(
                pick(2048, 1024, 4096, l, e, tf32),
                (128, 128),
                "{l:?} {e:?}"
            );
            assert_eq!(
                pick(4096, 4096, 4096, l, e, tf32),
                (128, 256),
                "{l:?} {e:?}"
            );
        }
        assert_ne!(pick(1536, 1536, 1536, (false, false), e, tf32).1, 144);
        if tf32 {
            assert_ne!(pick(1536, 1536, 1536, tt, e, tf32).1, 144);
        }
    }
}

/// Family and block (m, n) of dispatch's pick for `g` on 132 SMs, every kernel usable, each cut
/// along K as a context with stream-K would cut it.
fn family_pick(g: Gemm, input: Elem, output: Elem) -> (Family, u32, u32) {
    let p = problem(&g, input, output, false);
    let cut = |s: &KernelSpec| KSplit {
        slices: 1,
        stream_k: crate::streamk::choose(s, &p, 132).is_some(),
        ..KSplit::NONE
    };
    let s = select(KERNELS, &p, Some(132), |_| true, cut).unwrap();
    (s.family, s.block.m, s.block.n)
}

#[test]
fn rows_off_sectors_go_to_tiles_in_pairs() {
    let pick = family_pick;
    for (input, output) in [
        (Elem::F16, Elem::F16),
        (Elem::Bf16, Elem::Bf16),
        (Elem::F16, Elem::F32),
        (Elem::Bf16, Elem::F32),
    ] {
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            let g = |n: usize, ld: usize| {
                Gemm::new(n, n, n)
                    .trans_a(ta)
                    .trans_b(tb)
                    .lda(ld)
                    .ldb(ld)
                    .ldc(ld)
            };
            // 3000 elements, 6000-byte rows: 16 bytes off 32-byte sectors, in pairs (H200 f16
            // 3000³ `nt`: 128×192 alone 468 TFLOPS, in pairs 614; docs/hopper-log.md, session
            // 50); the same pairs as on 3008-element rows, where their units are shallow on a
            // few waves (`shallow_units_on_few_waves`: 47 k-tiles, 2.9 waves)
            let aligned = pick(g(3008, 3008), input, output);
            assert_eq!(aligned.0, Family::TmaPairs, "{input:?} {ta} {tb}");
            let paired = pick(g(3000, 3000), input, output);
            assert_eq!(paired, aligned, "{input:?} {ta} {tb}");
            // 4096³ on 4104-element rows: the 128×256 tile in pairs
            let paired = pick(g(4096, 4104), input, output);
            assert_eq!(paired, (Family::TmaPairs, 128, 256), "{input:?} {ta} {tb}");
        }
    }
    // TF32 `nt` (its TMA tiles) in pairs; TF32 `nn` reads A through registers
    // (`TmaRegisterA`), which has no pairs: its rows off sectors are staged (`staging::choose`)
    let g = Gemm::new(4096, 4096, 4096)
        .lda(4100)
        .ldb(4100)
        .precision(Precision::Tf32);
    let nt = pick(g.trans_b(true), Elem::F32, Elem::F32);
    assert_eq!(nt, (Family::TmaPairs, 128, 256));
    assert_ne!(pick(g, Elem::F32, Elem::F32).0, Family::TmaPairs);
}

/// Off sectors, a tile alone stays a candidate where its pairs would not fill the call's rows (one
/// row of tiles) or a wave of clusters (`admission::pairs_fill`): there the pairs rank below other
/// tiles, and without the tile alone dispatch took narrower ones (H200, 16-bit 128×28672×8192
/// and 256×4096×14336 on 8-element-longer rows: the 128×256 tile alone 1.23–1.41× the 128×128 and
/// 128×144 tiles; docs/hopper-log.md, session 58).
#[test]
fn tiles_alone_stay_off_sectors_where_their_pairs_would_idle() {
    let pick = |g: Gemm, input: Elem| {
        let p = problem(&g, input, input, false);
        let s = select(KERNELS, &p, Some(132), |_| true, context_cut(&p)).unwrap();
        (s.family, s.block.m, s.block.n)
    };
    for (m, n, k) in [(128, 28672, 8192), (128, 4096, 14336), (256, 4096, 14336)] {
        for tb in [false, true] {
            let g = Gemm::new(m, n, k).trans_b(tb);
            let g = g.lda(k + 8).ldb(if tb { k } else { n } + 8).ldc(n + 8);
            let alone = (Family::TmaWarpSpecialized, 128, 256);
            assert_eq!(pick(g, Elem::F16), alone, "{g:?}");
        }
    }
    // TF32 `nt` 128×4096×11008 on 4-element-longer rows: the 128×256 tile alone, not the 128×128
    let g = Gemm::new(128, 4096, 11008)
        .trans_b(true)
        .lda(11012)
        .ldb(11012)
        .ldc(4100)
        .precision(Precision::Tf32);
    assert_eq!(pick(g, Elem::F32), (Family::TmaWarpSpecialized, 128, 256));
}

#[test]
fn many_waves_of_deep_units_go_to_tiles_in_pairs() {
    let pick = |g: Gemm| family_pick(g, Elem::F16, Elem::F16);
    // 8192³ (1024 units of two 128×256 tiles: 15.5 waves of 66 clusters, 128 k-tiles) and a
    // prefill layer (8192×14336×4096: 1792 units, 64 k-tiles): the pairs
    for g in [Gemm::new(8192, 8192, 8192), Gemm::new(8192, 14336, 4096)] {
        assert_eq!(pick(g.trans_b(true)), (Family::TmaPairs, 128, 256), "{g:?}");
        // TF32 `nt` alike
        let tf32 = |g: Gemm| family_pick(g.precision(Precision::Tf32), Elem::F32, Elem::F32);
        assert_eq!(tf32(g.trans_b(true)), (Family::TmaPairs, 128, 256), "{g:?}");
    }
    // TF32 `nt` 6144³: 576 units of 192 k-tiles, 8.7 waves
    let tf32 = Gemm::new(6144, 6144, 6144)
        .trans_b(true)
        .precision(Precision::Tf32);
    assert_eq!(
        family_pick(tf32, Elem::F32, Elem::F32),
        (Family::TmaPairs, 128, 256)
    );
    // 4096³ (256 units, 3.9 waves) and 4096²×14336, 5120³ (400 units: the tile alone
    // streamed): the tiles alone
    for g in [
        Gemm::new(4096, 4096, 4096),
        Gemm::new(4096, 4096, 14336),
        Gemm::new(5120, 5120, 5120),
    ] {
        assert_eq!(pick(g).0, Family::TmaWarpSpecialized, "{g:?}");
    }
}

#[test]
fn shallow_units_on_few_waves_go_to_tiles_in_pairs() {
    let layouts = [(false, false), (false, true), (true, false), (true, true)];
    // fewer than 64 k-tiles on one to 8 waves of 66 clusters: 4096²×64…1024 (256 units of two
    // 128×256 tiles), 3072³ (192 units of two 128×192 tiles), 64 items of 512²×64 (128 units)
    for (ta, tb) in layouts {
        for (input, output) in [
            (Elem::F16, Elem::F16),
            (Elem::Bf16, Elem::Bf16),
            (Elem::F16, Elem::F32),
        ] {
            let pick = |g: Gemm| family_pick(g.trans_a(ta).trans_b(tb), input, output);
            for k in [64, 128, 256, 1024] {
                let g = Gemm::new(4096, 4096, k);
                assert_eq!(pick(g), (Family::TmaPairs, 128, 256), "{g:?} {output:?}");
            }
            let g = Gemm::new(3072, 3072, 3072);
            assert_eq!(pick(g), (Family::TmaPairs, 128, 192), "{g:?} {output:?}");
            let g = Gemm::new(512, 512, 64).batch(64);
            assert_eq!(pick(g), (Family::TmaPairs, 128, 256), "{g:?} {output:?}");
        }
    }
    // the tiles alone: under a wave (2048³: 64 units), over 8 waves (8192²×128: 1024 units,
    // 16384²×128, 64 items of 2048²×128), one row of tiles (128×16896×512: the pairs' second
    // CTAs would idle; the time model keeps them off)
    for g in [
        Gemm::new(2048, 2048, 2048),
        Gemm::new(8192, 8192, 128),
        Gemm::new(16384, 16384, 128),
        Gemm::new(2048, 2048, 128).batch(64),
        Gemm::new(128, 16896, 512),
    ] {
        let pick = family_pick(g.trans_b(true), Elem::F16, Elem::F16);
        assert_ne!(pick.0, Family::TmaPairs, "{g:?}");
    }
}

/// Stream-K's long items (`streamk::choose`): TF32 `nt` 5120³ keeps the 128×256 tile and shares
/// its last 8 items; 2944³ and 3072³, where sharing the 128×256 tile's last wave measured slower
/// than the unsplit 128×192 tile (H200, session 55), keep that tile because the model counts a long
/// item's exchange twice (`streamk::exchange_ktiles`).
#[test]
fn long_items_share_a_small_last_wave_without_moving_tiles() {
    let pick = |n: usize| {
        let g = Gemm::new(n, n, n).trans_b(true).precision(Precision::Tf32);
        let p = problem(&g, Elem::F32, Elem::F32, false);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        (s.block.m, s.block.n, crate::streamk::choose(s, &p, 132))
    };
    assert_eq!(pick(5120), (128, 256, Some(8)));
    assert_eq!(pick(2944), (128, 192, None));
    assert_eq!(pick(3072), (128, 192, None));
}
