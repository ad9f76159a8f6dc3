//! C stored by TMA (`epilogue::tma_store`): every Hopper kernel that can store C through shared
//! memory and TMA bulk copies, by name, on calls with `beta == 0` (tails in M, N and K, padded
//! leading dimensions, two batch items; a shape with edge tiles; a 64-row-aligned shape whose
//! last chunk of columns is partial; and N not a whole number of 16-byte pieces, which stores from
//! the registers), against the f64 reference with the kernel's tolerance, and
//! bit for bit against the same kernel storing from its registers
//! (`ContextOptions::tma_store = false`). Each case's C starts poisoned, and the reference check
//! also fails a write outside C's entries (padding, the gap between batch items).
//! `TCGEMM_KERNEL_FILTER=SUB[,SUB...]` (`kernel_filter_selects`) narrows it (sanitizer runs).
//!
//! Needs a Hopper GPU (see `tcgemm_testkit::gpu`: skipped without one unless
//! `TCGEMM_REQUIRE_GPU=1`).

use tcgemm::{Context, ContextOptions, Family, KernelSpec, Role};
use tcgemm_testkit::*;

/// The Hopper context, or `None` (nothing to test) on other GPUs.
fn hopper() -> Option<&'static Context> {
    gpu().filter(|c| c.capabilities().hopper)
}

/// The TMA-fed kernels whose consumers store C by TMA where the call allows it (register-sourced
/// A included: its writer pairs the rows).
fn stores_c_by_tma(spec: &KernelSpec) -> bool {
    spec.role() == Role::Gemm
        && matches!(
            spec.family,
            Family::TmaWarpSpecialized
                | Family::TmaPingPong
                | Family::TmaPairs
                | Family::TmaRegisterA
        )
}

fn shapes(spec: &KernelSpec) -> [(&'static str, Problem); 4] {
    let (bm, bn, bk) = (
        spec.block.m as usize,
        spec.block.n as usize,
        spec.block.k as usize,
    );
    let prec = kernel_precision(spec);
    // TMA needs 16-byte-aligned leading dimensions and batch strides: pad each one past a
    // multiple of 8 elements; two batch items
    let tail = |n: usize| {
        let p = Problem::new(bm + 3, n, 3 * bk + 1)
            .trans(spec.trans_a, spec.trans_b)
            .scale(1.5, 0.0)
            .precision(prec);
        p.pad_ld_for_tma().batched(2)
    };
    let edge = Problem::new(bm + bm / 2 + 8, bn + bn / 2 + 8, 8 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .scale(-0.75, 0.0)
        .precision(prec);
    // whole 64-row chunks; the last chunk of 128 bytes of columns holds 8 of them
    let columns = Problem::new(2 * bm, bn + 8, 2 * bk)
        .trans(spec.trans_a, spec.trans_b)
        .precision(prec);
    [
        // N a multiple of 8 elements (rows of whole 16-byte pieces: `tcgemm`'s `stores_c_by_tma`)
        ("tail", tail(2 * bn - 8)),
        // N odd: rows end inside a 16-byte piece, so C goes from the registers
        ("odd n", tail(2 * bn - 5)),
        ("edge", edge),
        ("columns", columns),
    ]
}

fn run<I: TestElem, O: TestElem>(
    ctx: &Context,
    registers: &Context,
    spec: &KernelSpec,
    rng: &mut Rng,
) {
    for (label, p) in shapes(spec) {
        let case = Case::<I, O>::new(format!("{} {label}", spec.name), p, rng);
        let by_tma = case.run_with(ctx, Some(spec.name));
        case.verify_on(spec.name, &by_tma, tol_kernel(spec, case.p.k));
        let from_registers = case.run_with(registers, Some(spec.name));
        assert_same_bits(&case.label, &by_tma, &from_registers, "register stores");
    }
}

#[test]
fn tma_store_matches_register_stores_bit_for_bit() {
    let Some(ctx) = hopper() else { return };
    assert!(ctx.tma_store(), "the default context stores C by TMA");
    let Some(registers) = gpu_with_options(ContextOptions {
        tma_store: false,
        ..Default::default()
    }) else {
        return;
    };
    let mut rng = Rng::for_test("tma_store_matches_register_stores_bit_for_bit");
    let kernels = selected_kernels(ctx, stores_c_by_tma, "TMA-storing");
    for spec in kernels {
        with_kernel_elems!(spec, run(ctx, &registers, spec, &mut rng));
    }
}
