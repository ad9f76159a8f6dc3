use super::hopper_tests::context_cut;
use super::*;
use crate::test_support::{problem, spec, table};
use tcgemm_kernels::config::{find_kernel, GemmShape, KERNELS};

fn pick<'a>(
    t: &'a [KernelSpec],
    p: &Problem,
    usable: impl Fn(&KernelSpec) -> bool,
) -> Option<&'a str> {
    select(t, p, None, usable, |_| KSplit::NONE).map(|s| s.name)
}

pub(super) fn f32_problem(g: &Gemm, tf32: bool) -> Problem {
    problem(g, Elem::F32, Elem::F32, tf32)
}

#[test]
fn precision_resolution() {
    use Precision::*;
    assert_eq!(maths_for(Elem::F32, Default, false).unwrap(), &[Math::Ffma]);
    assert_eq!(
        maths_for(Elem::F32, Default, true).unwrap(),
        &[Math::MmaTf32, Math::Ffma]
    );
    assert_eq!(maths_for(Elem::F32, Exact, true).unwrap(), &[Math::Ffma]);
    assert_eq!(maths_for(Elem::F32, Tf32, false).unwrap(), &[Math::MmaTf32]);
    assert_eq!(
        maths_for(Elem::F32, Tf32x3, false).unwrap(),
        &[Math::MmaTf32x3, Math::MmaTf32]
    );
    for p in [Default, Exact] {
        for tf32 in [false, true] {
            let (f16, bf16) = (
                maths_for(Elem::F16, p, tf32).unwrap(),
                maths_for(Elem::Bf16, p, tf32).unwrap(),
            );
            assert_eq!(f16, &[Math::MmaF16F32, Math::Ffma]);
            assert_eq!(bf16, &[Math::MmaBf16F32, Math::Ffma]);
        }
    }
    // Tf32 and Tf32x3 with 16-bit inputs: error_tests.rs
}

#[test]
fn highest_rank_wins_first_on_tie() {
    let t = table();
    let p = f32_problem(&Gemm::new(8, 8, 8), false);
    assert_eq!(pick(&t, &p, |_| true), Some("ffma_high"));
    // Unusable candidates are skipped.
    assert_eq!(
        pick(&t, &p, |s| s.name != "ffma_high"),
        Some("ffma_high_too")
    );
    assert_eq!(pick(&t, &p, |s| s.name == "ffma_low"), Some("ffma_low"));
    assert_eq!(pick(&t, &p, |_| false), None);
}

#[test]
fn transposes_must_match() {
    let t = table();
    let p = f32_problem(&Gemm::new(8, 8, 8).trans_b(true), false);
    assert_eq!(pick(&t, &p, |_| true), Some("ffma_nt"));
    let p = f32_problem(&Gemm::new(8, 8, 8).trans_a(true), false);
    assert_eq!(pick(&t, &p, |_| true), None);
}

#[test]
fn tf32_allowed_rank_decides_across_maths() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    let p = f32_problem(&g, true);
    assert_eq!(pick(&t, &p, |_| true), Some("tf32_main")); // rank 20 > 10
                                                           // No TF32 kernel usable: Default falls back to exact FP32.
    let no_tf32 = |s: &KernelSpec| s.math != Math::MmaTf32;
    assert_eq!(pick(&t, &p, no_tf32), Some("ffma_high"));
    // A low-rank TF32 baseline does not displace a better exact kernel...
    let seed_only = |s: &KernelSpec| s.name != "tf32_main";
    assert_eq!(pick(&t, &p, seed_only), Some("ffma_high"));
    // ...but wins over an exact kernel of lower rank, and on equal rank TF32 is preferred.
    let low = |s: &KernelSpec| s.name == "tf32_seed" || s.name == "ffma_low";
    let t2: Vec<KernelSpec> = t
        .iter()
        .map(|s| KernelSpec {
            rank: if s.name == "tf32_seed" { 5 } else { s.rank },
            ..*s
        })
        .collect();
    assert_eq!(pick(&t2, &p, low), Some("tf32_seed"));
    assert_eq!(pick(&t2, &f32_problem(&g, false), low), Some("ffma_low"));
    // Explicit Tf32 takes the best TF32 kernel, however low its rank, and never falls back.
    let p = f32_problem(&g.precision(Precision::Tf32), false);
    assert_eq!(pick(&t, &p, |_| true), Some("tf32_main"));
    assert_eq!(pick(&t, &p, seed_only), Some("tf32_seed"));
    assert_eq!(pick(&t, &p, no_tf32), None);
    // Exact never takes TF32, even if allowed.
    let p = f32_problem(&g.precision(Precision::Exact), true);
    assert_eq!(pick(&t, &p, |_| true), Some("ffma_high"));
}

#[test]
fn half_inputs_take_f32_accumulation_only() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    let p = problem(&g, Elem::F16, Elem::F16, false);
    assert_eq!(pick(&t, &p, |_| true), Some("h_f32acc")); // not the rank-99 f16-acc one
    let p = problem(&g, Elem::F16, Elem::F32, false);
    assert_eq!(pick(&t, &p, |_| true), Some("h_to_f32"));
    let p = problem(&g, Elem::Bf16, Elem::F32, false);
    assert_eq!(pick(&t, &p, |_| true), Some("bf_to_f32"));
    let p = problem(&g, Elem::Bf16, Elem::Bf16, false);
    assert_eq!(pick(&t, &p, |_| true), None);
}

#[test]
fn no_kernel_error_explains() {
    let t = table();
    let g = Gemm::new(8, 8, 8);
    let p = problem(&g, Elem::Bf16, Elem::Bf16, false);
    let s = no_kernel_error(&t, p.signature(), |_| unreachable!()).to_string();
    assert!(
        s.starts_with("unsupported: no kernel for Bf16 -> Bf16"),
        "{s}"
    );
    assert!(s.contains("no kernel for these element types"), "{s}");
    let p = f32_problem(&g, false);
    let s = no_kernel_error(&t, p.signature(), |sp| format!("{} not loaded", sp.name)).to_string();
    assert!(s.contains("`ffma_high`: ffma_high not loaded"), "{s}");
    assert!(!s.contains("tf32_main"), "{s}");
    // Only kernels of another math: suggest another precision.
    let ffma_only: Vec<KernelSpec> = t.iter().copied().filter(|s| s.math == Math::Ffma).collect();
    let p = f32_problem(&g.precision(Precision::Tf32), false);
    let s = no_kernel_error(&ffma_only, p.signature(), |_| unreachable!()).to_string();
    assert!(s.contains("choose another Precision"), "{s}");
}

#[test]
fn real_table_serves_fp32_all_layouts() {
    for ta in [false, true] {
        for tb in [false, true] {
            let g = Gemm::new(8, 8, 8).trans_a(ta).trans_b(tb);
            let s = select(
                KERNELS,
                &f32_problem(&g, false),
                None,
                |_| true,
                |_| KSplit::NONE,
            )
            .expect("an FP32 kernel for every layout");
            assert_eq!((s.trans_a, s.trans_b, s.math), (ta, tb, Math::Ffma));
        }
    }
}

#[test]
fn size_aware_selection_prefers_filling_the_gpu() {
    let mut big = spec("big_tile", Elem::F16, Elem::F32, Math::MmaF16F32, 20);
    big.block = GemmShape::new(128, 256, 32);
    big.min_blocks_per_sm = 1;
    let mut small = spec("small_tile", Elem::F16, Elem::F32, Math::MmaF16F32, 10);
    small.block = GemmShape::new(128, 128, 32);
    small.min_blocks_per_sm = 2;
    let t = vec![big, small];
    let pick = |m: usize, n: usize| {
        let p = problem(&Gemm::new(m, n, 64), Elem::F16, Elem::F32, false);
        select(&t, &p, Some(132), |_| true, |_| KSplit::NONE)
            .unwrap()
            .name
    };
    assert_eq!(pick(8192, 8192), "big_tile"); // both fill: rank
    assert_eq!(pick(2048, 2048), "big_tile"); // 128 and 256 blocks on 132 SMs: both ≥ 75%
    assert_eq!(pick(1024, 1024), "small_tile"); // 32 vs 64 blocks: the fuller one
    let p = problem(&Gemm::new(1024, 1024, 1), Elem::F16, Elem::F32, false);
    assert_eq!(fill_percent(&t[0], &p, 132, KSplit::NONE), 24);
}

#[test]
fn size_aware_selection_avoids_padding() {
    let mut big = spec("big", Elem::F16, Elem::F32, Math::MmaF16F32, 10);
    big.block = GemmShape::new(128, 128, 32);
    let mut small = spec("small", Elem::F16, Elem::F32, Math::MmaF16F32, 3);
    small.block = GemmShape::new(64, 64, 32);
    let t = vec![big, small];
    let pick = |g: Gemm| {
        let p = problem(&g, Elem::F16, Elem::F32, false);
        select(&t, &p, Some(132), |_| true, |_| KSplit::NONE)
            .unwrap()
            .name
    };
    assert_eq!(pick(Gemm::new(64, 64, 64).batch(1000)), "small"); // 4x padding vs none
    assert_eq!(pick(Gemm::new(4096, 4096, 64)), "big"); // no padding either way: rank
    assert_eq!(pick(Gemm::new(1921, 1023, 517)), "big"); // 1.07x vs 1.03x: both class 0
    let p = problem(&Gemm::new(64, 64, 1), Elem::F16, Elem::F32, false);
    assert_eq!(padding_class(&t[0], &p), 4);
    assert_eq!(padding_class(&t[1], &p), 0);
    let one_row = problem(&Gemm::new(1, 4096, 4096), Elem::F16, Elem::F32, false);
    assert_eq!(padding_class(&t[1], &one_row), 12);
}

#[test]
fn the_slices_of_a_split_count_toward_fill() {
    let mut large = spec("large", Elem::F16, Elem::F32, Math::MmaF16F32, 30);
    large.block = GemmShape::new(128, 256, 64);
    let mut small = spec("small", Elem::F16, Elem::F32, Math::MmaF16F32, 3);
    small.block = GemmShape::new(64, 64, 32);
    let mut few_rows = spec("few_rows", Elem::F16, Elem::F32, Math::MmaF16F32, 4);
    few_rows.block = GemmShape::new(16, 128, 64);
    let t = vec![large, small, few_rows];
    let p = problem(&Gemm::new(1, 4096, 4096), Elem::F16, Elem::F32, false);
    // unsplit, the 64×64 tile's 64 blocks fill the most SMs (48%)
    let unsplit = select(&t, &p, Some(132), |_| true, |_| KSplit::NONE).unwrap();
    assert_eq!(unsplit.name, "small");
    // split 8 ways, both small tiles fill every SM; the one-row tile pads 16×, not 64×
    let split = |s: &KernelSpec| KSplit::sliced(if s.name == "large" { 1 } else { 8 });
    assert_eq!(
        select(&t, &p, Some(132), |_| true, split).unwrap().name,
        "few_rows"
    );
    assert_eq!(fill_percent(&t[2], &p, 132, KSplit::sliced(8)), 100);
    assert_eq!(
        (padding_class(&t[1], &p), padding_class(&t[2], &p)),
        (12, 8)
    );
}

#[test]
fn mma_sync_tiles_copying_element_wise_that_load_the_busiest_sm_a_quarter_more_give_way() {
    let sm80 = |s: &KernelSpec| !s.family.persistent() && s.family != Family::LdgWarpSpecialized;
    let pick = |m, n, input| {
        let g = Gemm::new(m, n, 4096).precision(if input == Elem::F32 {
            Precision::Tf32
        } else {
            Precision::Default
        });
        let p = problem(&g, input, input, true);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), sm80, &cut).unwrap();
        (s.block.m, s.block.n)
    };
    // 128×50257 (B's rows not 16-byte aligned): 197 tiles of 128×256, two on the busiest SM (4
    // of 128×128), against 393 of 128×128, three on the busiest SM
    assert_eq!(pick(128, 50257, Elem::F32), (128, 128));
    assert_eq!(pick(128, 50257, Elem::F16), (128, 128));
    // 128×32001: two tiles of 128×128 on the busiest SM either way; rank keeps 128×256
    assert_eq!(pick(128, 32001, Elem::F32), (128, 256));
    // 16-byte copies: 384×14336 saves the same quarter on 128×128, but 128×256 stays
    assert_eq!(pick(384, 14336, Elem::F16), (128, 256));
    assert_eq!(pick(384, 14336, Elem::F32), (128, 256));
    // shorter tiles do not compete: at 128×50257 the 64×128 tile's busiest SM also computes
    // 3 tiles of 128×128, but the 128×128 tile (rank) is taken
    let p = problem(&Gemm::new(128, 50257, 4096), Elem::F16, Elem::F16, false);
    let tile = |name| find_kernel(name).unwrap();
    let (wide, mid, short) = (
        tile("f16_f16_nn_128x256x32_w64x64_s4"),
        tile("f16_f16_nn_128x128x32_w64x32_s4"),
        tile("f16_f16_nn_64x128x64_w32x32_s4"),
    );
    let work = |s| cost::sm_work(s, &p, 132, KSplit::NONE);
    assert_eq!(work(wide), 4 * work(mid) / 3);
    assert_eq!(work(short), work(mid));
    let crowded = |s, o| cost::crowded_mma_sync(s, KSplit::NONE, [(o, KSplit::NONE)], &p, 132);
    assert!(crowded(wide, mid));
    assert!(!crowded(mid, short));
    assert!(!crowded(wide, short));
    // the same tiles with every operand 16-byte aligned
    let p = problem(&Gemm::new(128, 50264, 4096), Elem::F16, Elem::F16, false);
    assert!(!cost::crowded_mma_sync(
        wide,
        KSplit::NONE,
        [(mid, KSplit::NONE)],
        &p,
        132
    ));
}

#[test]
fn of_two_stage_counts_the_tile_that_fills_the_busiest_sms_last_round_wins() {
    let pick = |m, n, k, trans_b| {
        let g = Gemm::new(m, n, k)
            .trans_b(trans_b)
            .precision(Precision::Tf32);
        let p = problem(&g, Elem::F32, Elem::F32, false);
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |s| !s.family.persistent(), &cut).unwrap();
        (s.block.m, s.block.n, s.stages)
    };
    // 393 blocks of 16×128, 3 on the busiest SM: one round of 3 slots, or 2 + 1 of 2
    assert_eq!(pick(1, 50257, 4096, true), (16, 128, 3));
    assert_eq!(pick(16, 50257, 4096, false), (16, 128, 3));
    // 1002 blocks, 8 on the busiest SM: 2 + 2 + 2 + 2, or 3 + 3 + 2
    assert_eq!(pick(1, 128256, 4096, true), (16, 128, 4));
    // 224 and 251 blocks, 2 on the busiest SM: one full round of 2, or 2 of 3 slots
    assert_eq!(pick(1, 28672, 8192, true), (16, 128, 4));
    assert_eq!(pick(1, 32001, 4096, true), (16, 128, 4));
    // split: 2 slices of 112 tiles on 4 stages (2 per SM), 3 on 3 stages (3 per SM): both fill
    // their round, so the deeper pipeline
    assert_eq!(pick(1, 14336, 4096, true), (16, 128, 4));
    let tile = |name| find_kernel(name).unwrap();
    let (three, four) = (
        tile("tf32_nt_16x128x32_w16x32_s3"),
        tile("tf32_nt_16x128x32_w16x32_s4"),
    );
    let p = problem(
        &Gemm::new(1, 50257, 4096)
            .trans_b(true)
            .precision(Precision::Tf32),
        Elem::F32,
        Elem::F32,
        false,
    );
    assert_eq!(cost::last_round(three, &p, 132, KSplit::NONE), (3, 3));
    assert_eq!(cost::last_round(four, &p, 132, KSplit::NONE), (1, 2));
    let loses = |s, o| cost::fills_last_round_less(s, KSplit::NONE, [(o, KSplit::NONE)], &p, 132);
    assert!(loses(four, three));
    assert!(!loses(three, four));
    // only stage twins compete: the 32-row tile is no twin of the 16-row one
    assert!(!loses(four, tile("tf32_nt_32x128x32_w16x32_s4")));
}

#[test]
fn tf32_nn_takes_the_swapped_tile_where_it_pads_no_more() {
    let sm80 = |s: &KernelSpec| !s.family.persistent() && s.family != Family::LdgWarpSpecialized;
    let pick = |m, n| {
        let g = Gemm::new(m, n, 4096).precision(Precision::Tf32);
        let p = problem(&g, Elem::F32, Elem::F32, true);
        let cut = context_cut(&p);
        select(KERNELS, &p, Some(132), sm80, &cut).unwrap().name
    };
    let (swapped, unswapped) = (
        "tf32_nn_swap_128x256x32_w64x64_s3",
        "tf32_nn_128x256x32_w64x64_s3",
    );
    assert!(find_kernel(swapped).unwrap().swaps_ab());
    // squares and prefill shapes: both tiles without padding, the swapped one ranked higher
    for (m, n) in [(4096, 4096), (8192, 8192), (4096, 11008), (16384, 4096)] {
        assert_eq!(pick(m, n), swapped, "{m}×{n}");
    }
    // 128 rows: the swapped tile's 256 rows would be half padding
    assert_eq!(pick(128, 32001), unswapped);
    assert_eq!(pick(128, 4096), unswapped);
    // 384 rows: two tiles on the busiest SM either way (168 of 128×256, 224 of 256×128): rank
    assert_eq!(pick(384, 14336), swapped);
}

#[test]
fn tf32_element_wise_copies_take_the_128x128_tile_of_more_threads() {
    let sm80 = |s: &KernelSpec| !s.family.persistent() && s.family != Family::LdgWarpSpecialized;
    let pick = |g: Gemm| {
        let p = problem(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, true);
        let cut = context_cut(&p);
        select(KERNELS, &p, Some(132), sm80, &cut).unwrap().name
    };
    let (four_warps, eight_warps) = (
        "tf32_nn_swap_128x128x32_w64x64_s3",
        "tf32_nn_128x128x32_w64x32_s3",
    );
    // 16-byte copies: rank (1536² fills the SMs better with 128×128 tiles than with 128×256)
    assert_eq!(pick(Gemm::new(1536, 1536, 1536)), four_warps);
    // B's rows not 16-byte aligned (50257 columns; 1536 columns with ldb 1537)
    assert_eq!(pick(Gemm::new(128, 50257, 4096)), eight_warps);
    assert_eq!(pick(Gemm::new(1536, 1536, 1536).ldb(1537)), eight_warps);
    // only warp-tile twins compete: the 128×256 tile's 8 warps cover another tile of C
    let tile = |name| find_kernel(name).unwrap();
    let p = problem(&Gemm::new(128, 50257, 4096), Elem::F32, Elem::F32, true);
    let drops = |s, o| cost::copies_with_fewer_threads(tile(s), [(tile(o), KSplit::NONE)], &p);
    assert!(drops(four_warps, eight_warps));
    assert!(!drops(eight_warps, four_warps));
    assert!(!drops(four_warps, "tf32_nn_128x256x32_w64x64_s3"));
}

#[test]
fn sm80_16_bit_nt_takes_the_64_deep_tile() {
    let sm80 = |k: &KernelSpec| k.family == Family::MmaSyncMultistage;
    let pick = |ta, out| {
        let g = Gemm::new(4096, 4096, 4096).trans_a(ta).trans_b(true);
        let p = problem(&g, Elem::F16, out, false);
        let cut = context_cut(&p);
        select(KERNELS, &p, Some(132), sm80, &cut).unwrap().name
    };
    assert_eq!(pick(false, Elem::F16), "f16_f16_nt_128x256x64_w64x64_s3");
    // `tt` and f32 C: the 32-deep tile (docs/kernel-log.md, session 44)
    assert_eq!(pick(true, Elem::F16), "f16_f16_tt_128x256x32_w64x64_s4");
    assert_eq!(pick(false, Elem::F32), "f16_f32_nt_128x256x32_w64x64_s4");
}

/// Long items all shared on a 64-row tile pay the exchange twice
/// (`streamk::exchange_ktiles`): 256×1536×8192 f16 (48 items of 128 k-tiles on the 64×128 tile)
/// and 384×1024×8192, B stored n×k, take the 128×128 tile split in clusters of 4, which ran 1.31×
/// and 1.17× as fast (H100, docs/decode-log.md, session 83).
#[test]
fn long_items_all_shared_give_way_to_splits_in_clusters() {
    for (m, n) in [(256, 1536), (384, 1024)] {
        let p = problem(
            &Gemm::new(m, n, 8192).trans_b(true),
            Elem::F16,
            Elem::F16,
            false,
        );
        let cut = context_cut(&p);
        let s = select(KERNELS, &p, Some(132), |_| true, &cut).unwrap();
        let k = cut(s);
        assert_eq!((s.block.m, s.block.n), (128, 128), "{m}×{n}: {}", s.name);
        assert!(k.cluster && k.slices == 4 && !k.stream_k, "{m}×{n}: {k:?}");
    }
}
