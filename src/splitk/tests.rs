use super::*;
use crate::gemm::Gemm;
use crate::plan::Plan;
use crate::problem::Addresses;
use crate::test_support::{any_math, h200_clusters};
use tcgemm_kernels::config::{find_kernel, Family, KERNELS};

const SMS: u32 = 132;

fn kernel(name: &str) -> &'static KernelSpec {
    find_kernel(name).unwrap_or_else(|| panic!("{name} is in the table"))
}

/// The plan of `g` on `name`, split as the model says (every kernel loaded).
fn plan(name: &str, g: &Gemm) -> Plan {
    let k = kernel(name);
    let p = any_math(g, k.input, k.output);
    Plan::for_kernel(k, &p, SMS)
        .unwrap()
        .split_k(&p, SMS, |_| true, |_| 0)
}

/// The GEMM kernels that have an f32 twin (every one but f16 accumulation).
fn splittable() -> impl Iterator<Item = &'static KernelSpec> {
    KERNELS
        .iter()
        .filter(|k| k.role() == Role::Gemm && f32_twin(k, KERNELS).is_some())
}

/// Decode-like shapes: few rows (or columns), long K.
fn decode_shapes() -> Vec<Gemm> {
    let mut v = Vec::new();
    for m in [1, 3, 16, 32, 128] {
        for (n, k) in [(4096, 4096), (1000, 4099), (4096, 11008), (4096, 14336)] {
            v.push(Gemm::new(m, n, k));
            v.push(Gemm::new(m, n, k).trans_b(true));
            v.push(Gemm::new(n, m, k).trans_a(true));
        }
    }
    v
}

#[test]
fn decode_16x4096x4096_f16_splits_eight_ways_on_the_f32_twin() {
    let p = plan("f16_f16_nn_64x64x32_w16x32_s4", &Gemm::new(16, 4096, 4096));
    assert_eq!(p.kernel.name, "f16_f32_nn_64x64x32_w16x32_s4");
    // 64 tiles, 132·4 = 528 slots: 528/64 = 8 slices of 512
    assert_eq!((p.split.slices, p.split.kslice), (8, 512));
    assert_eq!(p.grid, (64, 8, 1));
    // the counters (132 · 2 u32 in 1280 bytes), then 8 slices of 16×4096 f32
    assert_eq!(p.split.workspace_bytes, 1280 + 8 * 16 * 4096 * 4);
}

#[test]
fn the_64_deep_nt_tile_splits_on_the_32_deep_f32_tile() {
    let p = plan(
        "f16_f16_nt_128x256x64_w64x64_s3",
        &Gemm::new(256, 1024, 8192).trans_b(true),
    );
    assert_eq!(p.kernel.name, "f16_f32_nt_128x256x32_w64x64_s4");
    // 8 tiles, 132 slots: 16 slices of 512 (16 of the twin's 32-deep k-tiles each)
    assert_eq!((p.split.slices, p.split.kslice), (16, 512));
    assert_eq!(p.grid, (8, 16, 1));
}

#[test]
fn decode_1x4096x4096_fp32_splits_eight_ways_on_the_8_row_tile() {
    let p = plan(
        "sgemm_nt_8x128x32_t8x4_s4",
        &Gemm::new(1, 4096, 4096).trans_b(true),
    );
    assert_eq!(p.kernel.family, Family::CudaCoreMultistage);
    // 32 tiles, 132·2 = 264 slots: 264/32 = 8 slices of 512
    assert_eq!((p.split.slices, p.split.kslice), (8, 512));
    assert_eq!(p.grid, (32, 8, 1));
    assert_eq!(p.split.workspace_bytes, 1280 + 8 * 4096 * 4);
}

#[test]
fn the_twin_comes_from_the_table() {
    for k in KERNELS.iter().filter(|k| k.role() == Role::Gemm) {
        match f32_twin(k, KERNELS) {
            Some(t) => {
                assert_eq!(t.output, Elem::F32, "{}", k.name);
                assert_eq!((t.family, t.input, t.math), (k.family, k.input, k.math));
                assert_eq!(
                    (t.block.m, t.block.n, t.warp),
                    (k.block.m, k.block.n, k.warp)
                );
                // another depth only where the table has no f32 kernel of this one
                let same_depth = |o: &KernelSpec| {
                    (o.output, o.family, o.input, o.math) == (Elem::F32, k.family, k.input, k.math)
                        && (o.block, o.warp, o.stages) == (k.block, k.warp, k.stages)
                        && (o.trans_a, o.trans_b) == (k.trans_a, k.trans_b)
                };
                assert!(
                    (t.block, t.stages) == (k.block, k.stages) || !KERNELS.iter().any(same_depth),
                    "{}",
                    k.name
                );
                assert_eq!((t.trans_a, t.trans_b), (k.trans_a, k.trans_b));
            }
            // only f16 accumulation has no f32-output kernel of its tile; kernels of clusters
            // have no split at all
            None => assert!(
                k.math == tcgemm_kernels::config::Math::MmaF16F16 || k.family.cluster() > 1,
                "{}",
                k.name
            ),
        }
    }
    let t = f32_twin(kernel("bf16_bf16_tn_128x128x32_w64x32_s4"), KERNELS).unwrap();
    assert_eq!(t.name, "bf16_f32_tn_128x128x32_w64x32_s4");
    // the 64-deep `nt` tile has no f32-output kernel of its depth: the 32-deep one splits
    let t = f32_twin(kernel("f16_f16_nt_128x256x64_w64x64_s3"), KERNELS).unwrap();
    assert_eq!(t.name, "f16_f32_nt_128x256x32_w64x64_s4");
}

#[test]
fn decode_shapes_split_within_bounds() {
    let mut split = 0;
    for k in splittable() {
        for g in decode_shapes() {
            let p = any_math(&g, k.input, k.output);
            // the split runs on the twin, whose depth may differ (`f32_twin`)
            let t = f32_twin(k, KERNELS).unwrap();
            let Some((s, ks)) = choose(t, &p, SMS) else {
                continue;
            };
            split += 1;
            let (kk, bk) = (g.k as u64, u64::from(t.block.k));
            let (s, ks) = (u64::from(s), u64::from(ks));
            let what = format!("{} {g:?}: S = {s}, kslice = {ks}", k.name);
            assert!((2..=u64::from(MAX_SLICES)).contains(&s), "{what}");
            assert!(ks % bk == 0 && ks % 8 == 0, "{what}");
            assert!(ks >= MIN_SLICE_K.max(4 * bk), "{what}");
            assert!((s - 1) * ks < kk && kk <= s * ks, "{what}");
            let slots = u64::from(SMS) * u64::from(t.min_blocks_per_sm);
            assert!(p.tiles(k.c_tile()) * s <= slots, "{what}");
            if k.family.persistent() {
                assert_eq!(s * ks, kk, "{what}: a TMA kernel's slices divide K");
            }
        }
    }
    assert!(split > 100, "only {split} decode plans split");
    // every decode shape splits on the 64×64 16-bit kernels
    for g in decode_shapes().iter().filter(|g| g.m.min(g.n) <= 32) {
        let layout = match (g.trans_a, g.trans_b) {
            (false, false) => "nn",
            (false, true) => "nt",
            _ => "tn",
        };
        let p = plan(&format!("f16_f16_{layout}_64x64x32_w16x32_s4"), g);
        assert!(p.split.is_split(), "{g:?}");
    }
}

#[test]
fn large_squares_batches_and_trivial_calls_do_not_split() {
    for name in [
        "f16_f16_nn_128x256x32_w64x64_s4",
        "f16_f32_nn_64x64x32_w16x32_s4",
        "sgemm_nn_128x128x16_t8x8_s3",
        "tf32_nn_128x128x32_w64x32_s3",
        "tf32_nn_swap_128x128x32_w64x64_s3",
    ] {
        for g in [
            Gemm::new(4096, 4096, 4096),
            Gemm::new(16, 4096, 4096).batch(2),
            Gemm::new(16, 4096, 4096).alpha(0.0),
            Gemm::new(16, 4096, 128),
            Gemm::new(16, 4096, 0),
        ] {
            let p = plan(name, &g);
            assert_eq!(p.split.slices, 1, "{name} {g:?}");
            assert_eq!(p.kernel.name, name);
            assert_eq!(p.split.workspace_bytes, 0);
        }
    }
    // f16 accumulation never splits
    let acc16 = "f16_f16_nn_128x128x32_w64x32_s4_acc16";
    assert!(!plan(acc16, &Gemm::new(16, 4096, 4096)).split.is_split());
    // a kernel that is not loaded is not used for the split
    let k = kernel("f16_f16_nn_64x64x32_w16x32_s4");
    let g = Gemm::new(16, 4096, 4096);
    let p = any_math(&g, k.input, k.output);
    let unsplit = Plan::for_kernel(k, &p, SMS).unwrap();
    let none_loaded = unsplit.split_k(&p, SMS, |s| s.output != Elem::F32, |_| 0);
    assert_eq!(none_loaded.kernel.name, k.name);
    assert!(!none_loaded.split.is_split());
    assert_eq!(unsplit.split, Split::none(4096));
}

/// Measured on the H200: splitting a call whose tiles already give every SM a CTA, or whose K is
/// short, was slower (1024³ f16 on 64×64 tiles 2 ways: 0.77×; 1921×1023×517: 0.91×); with fewer
/// tiles than SMs and a long K it paid (1024³ fp32 4 ways: 1.76×).
#[test]
fn only_calls_that_leave_sms_idle_with_a_long_k_split() {
    let f16 = "f16_f16_nn_64x64x32_w16x32_s4"; // 4 blocks/SM: 528 slots
    assert!(
        !plan(f16, &Gemm::new(1024, 1024, 1024)).split.is_split(),
        "256 tiles ≥ 132 SMs"
    );
    assert!(
        plan(f16, &Gemm::new(128, 4096, 4096)).split.is_split(),
        "128 tiles < 132 SMs"
    );
    let f16_128 = "f16_f16_nn_128x128x32_w64x32_s4";
    assert!(
        !plan(f16_128, &Gemm::new(1921, 1023, 517)).split.is_split(),
        "K = 517 is short"
    );
    let sgemm = "sgemm_nn_128x128x16_t8x8_s3";
    let p = plan(sgemm, &Gemm::new(1024, 1024, 1024));
    assert_eq!(
        (p.split.slices, p.split.kslice),
        (4, 256),
        "64 tiles on 264 slots"
    );
}

#[test]
fn the_last_slice_takes_the_remainder() {
    let p = plan("f16_f16_nn_64x64x32_w16x32_s4", &Gemm::new(3, 1000, 4099));
    let s = p.split;
    // 16 tiles: 528/16 = 33 → 32 slices wanted, 4099/256 = 16 → 16; kslice = 288, S = 15
    assert_eq!((s.slices, s.kslice), (15, 288));
    assert_eq!(s.last_k(4099), 4099 - 14 * 288);
    // one launch: a batch item per slice
    assert_eq!(p.grid, (16, 15, 1));
    let even = plan("f16_f16_nn_64x64x32_w16x32_s4", &Gemm::new(16, 4096, 4096)).split;
    assert_eq!(even.last_k(4096), 512);
}

/// Where the tests put the workspace.
const WORKSPACE: u64 = 0x4_0000_0000;
/// Where its slices start: after 1280 bytes of counters (132 SMs).
const SLICES: u64 = WORKSPACE + 1280;

/// The split of `g` on kernel `name`, with A, B, C at 16-byte-aligned addresses: the split, the
/// call's unsplit parameters and the split launch's.
fn split_launch(name: &str, g: &Gemm) -> (Split, GemmParams, GemmParams) {
    let k = kernel(name);
    let p = any_math(g, k.input, k.output).at(Addresses {
        a: 0x1_0000_0000,
        b: 0x2_0000_0000,
        c: 0x3_0000_0000,
    });
    let plan = Plan::for_kernel(k, &p, SMS)
        .unwrap()
        .split_k(&p, SMS, |_| true, |_| 0);
    assert!(plan.split.is_split(), "{name} {g:?}");
    let gp = crate::launch::params(&p).unwrap();
    let l = split_params(&gp, &p, &plan.split, WORKSPACE, SMS);
    (plan.split, gp, l)
}

/// [`split_launch`] of `g` (f16 → f16) on the 64×64 kernel of its layout.
fn launch_of(g: &Gemm) -> (Split, GemmParams, GemmParams) {
    split_launch(&format!("f16_f16_{}_64x64x32_w16x32_s4", layout(g)), g)
}

fn layout(g: &Gemm) -> &'static str {
    match (g.trans_a, g.trans_b) {
        (false, false) => "nn",
        (false, true) => "nt",
        (true, false) => "tn",
        (true, true) => "tt",
    }
}

#[test]
fn slices_step_along_k_in_every_layout() {
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let g = Gemm::new(3, 1000, 4099).trans_a(ta).trans_b(tb);
        let (s, gp, l) = launch_of(&g);
        let ks = u64::from(s.kslice);
        let step_a = if ta { ks * gp.lda } else { ks };
        let step_b = if tb { ks } else { ks * gp.ldb };
        assert_eq!((l.a, l.b, l.c), (gp.a, gp.b, SLICES));
        assert_eq!((l.stride_a, l.stride_b), (step_a, step_b));
        assert_eq!((l.ldc, l.stride_c), (1000, 3 * 1000));
        assert_eq!(
            (l.k, l.batch, l.alpha, l.beta),
            (s.kslice, s.slices, 1.0, 0.0)
        );
        assert_eq!((l.m, l.n, l.lda, l.ldb), (gp.m, gp.n, gp.lda, gp.ldb));
        assert!(l.flags & flags::BETA_ZERO != 0 && l.flags & flags::VEC_C != 0);
        // the last slice's depth; the tail writes the call's C
        let t = &l.split;
        assert_eq!(u64::from(t.last_k), s.last_k(4099));
        assert_eq!((t.c, t.ldc, t.counters), (gp.c, gp.ldc, WORKSPACE));
        assert_eq!(t.flags & (flags::OUT_F16 | flags::OUT_BF16), flags::OUT_F16);
    }
}

#[test]
fn workspace_rows_are_padded_to_16_bytes_and_flags_follow_c() {
    // n = 1001: ldw = 1004; C's ldc = 1001 f16 is not a multiple of 4 elements
    let g = Gemm::new(16, 1001, 4096).alpha(0.5).beta(2.0);
    let (s, gp, l) = launch_of(&g);
    assert_eq!(l.ldc, 1004);
    assert_eq!(
        s.workspace_bytes,
        1280 + u64::from(s.slices) * 16 * 1004 * 4
    );
    assert_eq!(l.split.flags & flags::VEC_C, 0);
    assert_eq!(l.split.flags & flags::BETA_ZERO, 0);
    assert_eq!((l.split.alpha, l.split.beta), (0.5, 2.0));
    assert_eq!(l.split.last_k, s.kslice);
    // ldc = 4096: vector stores, and beta = 0 leaves C unread
    let (_, gp2, l2) = launch_of(&Gemm::new(16, 4096, 4096));
    assert_ne!(l2.split.flags & flags::VEC_C, 0);
    assert_ne!(l2.split.flags & flags::BETA_ZERO, 0);
    assert_eq!(gp.flags & flags::BETA_ZERO, 0);
    assert_ne!(gp2.flags & flags::BETA_ZERO, 0);
    // the slices keep A's and B's vector access when the call has it
    assert_eq!(l2.flags & flags::VEC_A, gp2.flags & flags::VEC_A);
    assert_ne!(l2.flags & flags::VEC_B, 0);
    // an unsplit launch has no tail
    assert_eq!(gp2.split, SplitTail::default());
}

#[test]
fn the_tail_names_the_output_element() {
    for (name, out) in [
        ("f16_f32_nn_64x64x32_w16x32_s4", 0),
        ("bf16_bf16_nn_64x64x32_w16x32_s4", flags::OUT_BF16),
        ("sgemm_nn_16x128x32_t16x4_s4", 0),
    ] {
        let (_, _, l) = split_launch(name, &Gemm::new(16, 4096, 4096));
        let elem = l.split.flags & (flags::OUT_F16 | flags::OUT_BF16);
        assert_eq!(elem, out, "{name}");
    }
}

/// The counters (two `u32` per SM: a stream-K launch's flags) take whole 256-byte blocks, so the
/// slices after them stay aligned.
#[test]
fn counters_hold_two_u32_per_sm() {
    assert_eq!(counters_bytes(132), 1280);
    assert_eq!(counters_bytes(32), 256);
    assert_eq!(counters_bytes(33), 512);
}

/// The context allocates `workspace_bound` once; no split of any kernel needs more.
#[test]
fn no_split_needs_more_than_the_workspace_bound() {
    let bound = workspace_bound(KERNELS, SMS);
    assert!(bound > 0 && bound < 64 << 20, "{bound} bytes");
    let mut shapes = decode_shapes();
    for m in [1, 2, 5, 100, 255, 700, 1500] {
        for n in [1, 3, 129, 1023, 2500] {
            shapes.push(Gemm::new(m, n, 8192));
        }
    }
    for k in splittable() {
        for g in &shapes {
            let p = plan(k.name, g);
            assert!(
                p.split.workspace_bytes <= bound,
                "{} {g:?}: {} > {bound}",
                k.name,
                p.split.workspace_bytes
            );
        }
    }
}

/// Small tiles' slices are summed by the tile's last CTA; large ones by the reduction kernel
/// after the launch (the launch then has no counters).
#[test]
fn large_tiles_are_reduced_after_the_launch() {
    // 1 row × 128 columns × 8 slices × 4 bytes = 4 KiB: fused
    let small = plan("f16_f16_nn_16x128x64_w16x32_s4", &Gemm::new(1, 4096, 4096));
    assert_eq!((small.split.slices, small.split.reduce), (8, None));
    // 32 × 128 × 8 slices × 4 bytes = 128 KiB: the reduction kernel
    let large = plan("f16_f16_nn_32x128x64_w16x32_s4", &Gemm::new(32, 4096, 4096));
    assert_eq!(large.split.slices, 8);
    let reduce = large
        .split
        .reduce
        .expect("a 128 KiB tail is reduced after the launch");
    assert_eq!(reduce.family, Family::SplitkReduce);
    // the columns inside C count, not the tile's: 3 of the 64×64 tile's 64 (tn); 64 tiles on
    // 528 slots: 8 slices of 512, 64 × 3 × 8 × 4 = 6 KiB, fused (the whole tile would be 128 KiB)
    let narrow = plan(
        "f16_f16_tn_64x64x32_w16x32_s4",
        &Gemm::new(4096, 3, 4096).trans_a(true),
    );
    assert_eq!((narrow.split.slices, narrow.split.reduce), (8, None));
    // the launch of a large tile carries no counters; a fused one does
    for (m, counters) in [(32, 0), (1, WORKSPACE)] {
        let g = Gemm::new(m, 4096, 4096);
        let (_, gp, l) = split_launch("f16_f16_nn_32x128x64_w16x32_s4", &g);
        assert_eq!((l.split.counters, l.split.c), (counters, gp.c), "m = {m}");
    }
    let k = kernel("f16_f16_nn_32x128x64_w16x32_s4");
    // without the reduction kernel loaded, a large tile is not split
    let p = any_math(&Gemm::new(32, 4096, 4096), k.input, k.output);
    let unloaded = Plan::for_kernel(k, &p, SMS).unwrap().split_k(
        &p,
        SMS,
        |s| s.role() != Role::SplitkReduce,
        |_| 0,
    );
    assert!(!unloaded.split.is_split());
}

/// A persistent TMA kernel takes the slices as its work items: slices that divide K, the
/// reduction kernel after them, one CTA per SM at most.
#[test]
fn tma_kernels_split_into_slices_that_divide_k() {
    let tma = "f16_f16_nn_128x256x64_w64x256_s4_tma";
    let p = plan(tma, &Gemm::new(128, 4096, 4096));
    assert_eq!(p.kernel.name, "f16_f32_nn_128x256x64_w64x256_s4_tma");
    // 16 tiles on 132 SMs: 8 slices of 512
    assert_eq!((p.split.slices, p.split.kslice), (8, 512));
    assert_eq!(p.grid, (128, 1, 1));
    assert_eq!(p.split.reduce.map(|r| r.family), Some(Family::SplitkReduce));
    // K = 4160 = 65 · 64: 5 slices of 832 = 13 · 64 (8, 7 and 6 do not divide it in 64s)
    let p5 = plan(tma, &Gemm::new(128, 4096, 4160)).split;
    assert_eq!((p5.slices, p5.kslice), (5, 832));
    // K = 4288 = 67 · 64: no count of slices from 2 to 8 divides it into multiples of 64
    assert!(!plan(tma, &Gemm::new(128, 4096, 4288)).split.is_split());
    // K = 4099 is not a multiple of 64 at all
    assert!(!plan(tma, &Gemm::new(128, 4096, 4099)).split.is_split());
    // 32 tiles of 128×128: 4 slices of 1024
    let p = plan(
        "bf16_bf16_nt_128x128x64_w64x128_s6_tma",
        &Gemm::new(128, 4096, 4096).trans_b(true),
    );
    assert_eq!(
        (p.split.slices, p.split.kslice, p.grid),
        (4, 1024, (128, 1, 1))
    );
}

/// Splits within clusters: persistent kernels with room for the partials' adds, 2 to 8 slices.
#[test]
fn clusters_take_persistent_kernels_of_at_most_eight_slices() {
    let tma = kernel("f16_f16_nn_64x128x64_w64x64_s8_tma");
    assert!(cluster_fits(tma, 2) && cluster_fits(tma, MAX_CLUSTER));
    assert!(!cluster_fits(tma, 1) && !cluster_fits(tma, MAX_CLUSTER + 1));
    assert!(!cluster_fits(kernel("f16_f16_nn_64x64x32_w16x32_s4"), 4));
    assert!(!cluster_fits(
        kernel("f16_f16_nt_128x128x64_w64x128_s6_ldg"),
        4
    ));
}

/// A split within clusters keeps the call's C, scalars and flags; its batch items are the
/// slices, stepping along K in A and B.
#[test]
fn cluster_launch_steps_along_k_and_keeps_c() {
    let name = "f16_f16_nt_64x128x64_w64x64_s8_tma";
    let g = Gemm::new(64, 4096, 4096).trans_b(true).alpha(0.5).beta(2.0);
    let p = any_math(&g, Elem::F16, Elem::F16).at(Addresses {
        a: 0x1_0000_0000,
        b: 0x2_0000_0000,
        c: 0x3_0000_0000,
    });
    let split = Split {
        slices: 4,
        kslice: 1024,
        cluster: true,
        ..Split::none(1024)
    };
    let gp = crate::launch::params(&p).unwrap();
    let l = cluster_params(&gp, &p, &split);
    assert_eq!((l.k, l.batch), (1024, 4));
    // A is m×k and B n×k: both step 1024 elements along their rows
    assert_eq!((l.stride_a, l.stride_b), (1024, 1024));
    assert_eq!((l.c, l.ldc, l.alpha, l.beta), (gp.c, gp.ldc, 0.5, 2.0));
    assert_eq!(l.flags, gp.flags | flags::CLUSTER_SPLIT);
    assert!(cluster_fits(kernel(name), split.slices));
}

/// A split within clusters takes the most slices whose clusters all fit at once and divide K;
/// fewer slices than the model's only while a CTA reads at most `CLUSTER_CTA_BYTES`.
#[test]
fn cluster_split_takes_the_most_slices_that_fit_at_once() {
    let tile64 = kernel("f16_f16_nn_64x128x64_w64x64_s8_tma");
    let p = any_math(&Gemm::new(64, 4096, 4096), Elem::F16, Elem::F16);
    // 32 tiles: 4 slices would need 32 clusters of 4 (30 fit), 3 do not divide K; 2 slices read
    // (64 + 128)·2048·2 bytes per CTA
    assert_eq!(cluster_split(tile64, &p, 4, h200_clusters), Some((2, 2048)));
    assert_eq!(cluster_split(tile64, &p, 4, |_| 0), None);
    // K = 14336: 2 slices would read 2.75 MiB per CTA
    let long = any_math(&Gemm::new(64, 4096, 14336), Elem::F16, Elem::F16);
    assert_eq!(cluster_split(tile64, &long, 4, h200_clusters), None);
    // unless the clusters hold the model's slices: the same CTAs, no reduction
    assert_eq!(
        cluster_split(tile64, &long, 2, h200_clusters),
        Some((2, 7168))
    );
    // TF32 (4-byte elements): 1.5 MiB per CTA
    let tf32 = kernel("tf32_nn_64x128x32_w64x64_s8_tma");
    let p = any_math(&Gemm::new(64, 4096, 4096), Elem::F32, Elem::F32);
    assert_eq!(cluster_split(tf32, &p, 4, h200_clusters), None);
    // 16 tiles of 128×256: 8 slices would need 16 clusters of 8 (15 fit); 7 divide K = 14336
    let wide = kernel("f16_f16_nn_128x256x64_w64x256_s4_tma");
    let p = any_math(&Gemm::new(128, 4096, 7168), Elem::F16, Elem::F16);
    assert_eq!(cluster_split(wide, &p, 8, h200_clusters), Some((7, 1024)));
    // sm_80 kernels do not take clusters
    let sm80 = kernel("f16_f16_nn_64x64x32_w16x32_s4");
    assert_eq!(cluster_split(sm80, &p, 4, h200_clusters), None);
}

#[test]
fn kernels_of_clusters_have_no_twin_and_never_split() {
    for k in KERNELS.iter().filter(|k| k.family.cluster() > 1) {
        assert!(f32_twin(k, KERNELS).is_none(), "{}", k.name);
        assert!(!k.streams_k(), "{}", k.name);
    }
}
