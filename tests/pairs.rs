//! Pairs of CTAs sharing B's loads (`Family::TmaPairs`: clusters of two, B's stage multicast into
//! both): every such kernel, by name, against the f64 reference with the kernel's tolerance and
//! bit for bit against the same tile computed alone (its `Family::TmaWarpSpecialized` twin, the
//! name without `_x2`; both unsplit, as the pairs always are), on calls that exercise what pairs
//! add: an odd number of tile rows (the last pair's second tile lies wholly below C), more work
//! units than clusters (each cluster walks several, the stage ring running on across them), batch
//! items, padded leading dimensions, `beta ≠ 0` (C read and stored from registers) and `beta == 0`
//! on packed rows (C stored by TMA). Each case's C starts poisoned, and the reference check also
//! fails a write outside C's entries. `TCGEMM_KERNEL_FILTER=SUB[,SUB...]` narrows it (sanitizer
//! runs).
//!
//! Needs a Hopper GPU (see `tcgemm_testkit::gpu`: skipped without one unless
//! `TCGEMM_REQUIRE_GPU=1`).

use tcgemm::{Context, ContextOptions, Family, KernelSpec, Role};
use tcgemm_testkit::*;

fn shapes(spec: &KernelSpec) -> [(&'static str, Problem); 3] {
    let (bm, bn, bk) = (
        spec.block.m as usize,
        spec.block.n as usize,
        spec.block.k as usize,
    );
    let prec = kernel_precision(spec);
    // three tile rows: two pairs, the second's lower tile wholly below C; two tile columns
    let odd = Problem::new(3 * bm - 40, bn + 24, 7 * bk + 8)
        .trans(spec.trans_a, spec.trans_b)
        .scale(1.5, -0.5)
        .precision(prec);
    // (TMA needs 16-byte-aligned leading dimensions and batch strides)
    let odd = odd.pad_ld_for_tma().batched(2);
    // 150 work units (one pair of tiles each) on at most 66 clusters of the H200
    let units = Problem::new(2 * bm, bn, 2 * bk + 8)
        .trans(spec.trans_a, spec.trans_b)
        .scale(-0.75, 0.25)
        .precision(prec)
        .batched(150);
    // packed rows of whole 16-byte pieces, beta = 0: C stored by TMA
    let packed = Problem::new(4 * bm, 2 * bn, 16 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .scale(1.0, 0.0)
        .precision(prec);
    [("odd tile rows", odd), ("units", units), ("packed", packed)]
}

fn run<I: TestElem, O: TestElem>(ctx: &Context, spec: &KernelSpec, rng: &mut Rng) {
    let alone = spec
        .name
        .strip_suffix("_x2")
        .unwrap_or_else(|| panic!("{}: a pairs kernel's name ends in _x2", spec.name));
    for (label, p) in shapes(spec) {
        let case = Case::<I, O>::new(format!("{} {label}", spec.name), p, rng);
        let paired = case.run_with(ctx, Some(spec.name));
        case.verify_on(spec.name, &paired, tol_kernel(spec, case.p.k));
        let single = case.run_with(ctx, Some(alone));
        assert_same_bits(&case.label, &paired, &single, alone);
    }
}

#[test]
fn pairs_match_their_tile_alone_bit_for_bit() {
    let Some(ctx) = gpu() else { return };
    if !ctx.capabilities().hopper {
        return;
    }
    // unsplit twins (no stream-K, no split along K), whose sums run in the pairs' order
    let Some(ctx) = gpu_with_options(ContextOptions {
        stream_k: false,
        split_k: false,
        ..Default::default()
    }) else {
        return;
    };
    let mut rng = Rng::for_test("pairs_match_their_tile_alone_bit_for_bit");
    let pairs = |k: &KernelSpec| k.role() == Role::Gemm && k.family == Family::TmaPairs;
    let kernels = selected_kernels(&ctx, pairs, "pairs");
    for spec in kernels {
        with_kernel_elems!(spec, run(&ctx, spec, &mut rng));
    }
}
