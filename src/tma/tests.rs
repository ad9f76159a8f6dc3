use super::*;
use tcgemm_kernels::config::{Family, KERNELS};

fn spec() -> &'static KernelSpec {
    KERNELS
        .iter()
        .find(|k| k.family.needs_tma() && !k.trans_a && k.trans_b)
        .unwrap()
}

#[test]
fn operand_maps_follow_the_params() {
    let p = GemmParams {
        a: 0x1000,
        b: 0x2000,
        lda: 72,
        ldb: 136,
        stride_a: 72 * 100,
        stride_b: 0,
        m: 100,
        n: 130,
        k: 70,
        batch: 3,
        ..GemmParams::default()
    };
    let s = spec();
    let a = OperandMap::of(&p, s, true);
    assert_eq!((a.k, a.rows, a.batch), (70, 100, 3));
    assert_eq!((a.row_bytes, a.batch_bytes), (144, 14400));
    assert_eq!((a.box_k, a.box_rows), (s.block.k, s.block.m));
    // a zero batch stride shares B across the batch: no batch dimension
    let b = OperandMap::of(&p, s, false);
    assert_eq!((b.rows, b.batch, b.row_bytes), (130, 1, 272));
    assert_eq!(b.box_rows, s.block.n);
}

/// One 100×130×70 item, lda 104, ldb 136.
fn packed_100x130x70() -> GemmParams {
    GemmParams {
        lda: 104,
        ldb: 136,
        m: 100,
        n: 130,
        k: 70,
        batch: 1,
        ..GemmParams::default()
    }
}

#[test]
fn mn_major_operands_get_64_wide_boxes() {
    let p = packed_100x130x70();
    let nns: Vec<&KernelSpec> = KERNELS
        .iter()
        .filter(|k| {
            k.family.needs_tma()
                && !k.trans_a
                && !k.trans_b
                && !k.swaps_ab()
                && k.input == Elem::F16
        })
        .collect();
    // the 128×256 and the 128×128 tiles
    assert!(nns.iter().any(|k| k.block.n == 256) && nns.iter().any(|k| k.block.n == 128));
    for nn in nns {
        let b = OperandMap::of(&p, nn, false);
        assert!(b.mn_major);
        assert_eq!((b.box_rows, b.box_k), (64, nn.block.k), "{}", nn.name);
        assert_eq!((b.row_bytes, b.batch_bytes), (272, 272 * 70));
        assert!(!OperandMap::of(&p, nn, true).mn_major);
        assert!(!b.staged);
    }
}

#[test]
fn k_major_boxes_span_the_tile() {
    let p = packed_100x130x70();
    for nt in KERNELS
        .iter()
        .filter(|k| k.family.needs_tma() && !k.trans_a && k.trans_b)
    {
        let (a, b) = (OperandMap::of(&p, nt, true), OperandMap::of(&p, nt, false));
        assert!(!a.mn_major && !b.mn_major, "{}", nt.name);
        // one box of the tile's rows, one 128-byte swizzle row of k; B's rows split between
        // the CTAs of a pair (`Family::TmaPairs`), each loading its half into both
        assert_eq!(
            (a.box_rows, a.box_k),
            (nt.block.m, nt.block.k),
            "{}",
            nt.name
        );
        assert_eq!(
            (b.box_rows * nt.family.cluster(), b.box_k),
            (nt.block.n, nt.block.k),
            "{}",
            nt.name
        );
        assert_eq!(b.box_k * nt.input.bytes(), 128, "{}", nt.name);
    }
}

/// TF32 MN-major operands are staged as 32×32 blocks, except A of the register-sourced
/// kernels, which arrives as one 128-byte row of m (32 elements) × 32 k, swizzled.
#[test]
fn tf32_mn_major_operands_are_staged_as_32x32_blocks() {
    let p = packed_100x130x70();
    for spec in KERNELS
        .iter()
        .filter(|k| k.family.needs_tma() && k.input == Elem::F32)
    {
        let (a, b) = (
            OperandMap::of(&p, spec, true),
            OperandMap::of(&p, spec, false),
        );
        let register_a = spec.family == Family::TmaRegisterA;
        let (trans_a, trans_b) = spec.body_layout();
        assert_eq!(
            (a.staged, b.staged),
            (trans_a && !register_a, !trans_b),
            "{}",
            spec.name
        );
        let b_rows = spec.block.n / spec.family.cluster();
        for (m, rows) in [(a, spec.block.m), (b, b_rows)] {
            // staged or read into registers: 32 MN-elements; K-major: the tile's rows (B's
            // split between the CTAs of a pair, `Family::TmaPairs`)
            let want = if m.mn_major { 32 } else { rows };
            assert_eq!((m.box_rows, m.box_k), (want, 32), "{}", spec.name);
        }
        assert_eq!(a.mn_major, trans_a, "{}", spec.name);
        assert_eq!(b.mn_major, b.staged, "{}", spec.name);
    }
}

/// A kernel that swaps A and B maps the call's B (`ldb`) as its A and the call's A as its K-major
/// B, boxes of the tile's rows (`block.n` of the body's B). In `nn` the call's B is N-major, an
/// M-major A: TF32 (register-sourced A) in boxes of 32 rows × 32 k, 16-bit (the 128×144 and
/// 32-wide `nn_swap` tiles, whose wgmma reads an MN-major A) in the 64-wide boxes of one 128-byte
/// row. In `nt` (`nt_swap`) the call's B is K-major, boxes of the tile's 64 rows.
#[test]
fn swapping_kernels_map_b_as_their_a() {
    let p = GemmParams {
        a: 0x1000,
        b: 0x2000,
        flags: flags::VEC_A,
        ..packed_100x130x70()
    };
    let swapping = KERNELS
        .iter()
        .filter(|k| k.swaps_ab() && k.family.needs_tma());
    assert!(swapping.clone().any(|k| k.input == Elem::F16 && !k.trans_b));
    assert!(swapping.clone().any(|k| k.input == Elem::F16 && k.trans_b));
    for sw in swapping {
        assert!(!sw.trans_a, "{}", sw.name);
        let eb = u64::from(sw.input.bytes());
        let s = p.swapped();
        assert_eq!(s.flags, flags::VEC_B);
        let (a, b) = (OperandMap::of(&s, sw, true), OperandMap::of(&s, sw, false));
        assert_eq!(
            (a.base, a.rows, a.row_bytes),
            (0x2000, 130, 136 * eb),
            "{}",
            sw.name
        );
        assert!(a.mn_major == !sw.trans_b && !a.staged, "{}", sw.name);
        let a_box_rows = match (sw.trans_b, sw.input) {
            (true, _) => sw.block.m,
            (false, Elem::F32) => 32,
            (false, _) => 64,
        };
        assert_eq!(
            (a.box_rows, a.box_k),
            (a_box_rows, sw.block.k),
            "{}",
            sw.name
        );
        assert_eq!(
            (b.base, b.rows, b.row_bytes),
            (0x1000, 100, 104 * eb),
            "{}",
            sw.name
        );
        assert!(!b.mn_major && !b.staged, "{}", sw.name);
        assert_eq!(
            (b.box_rows, b.box_k),
            (sw.block.n, sw.block.k),
            "{}",
            sw.name
        );
    }
}

/// C by TMA: the TMA-fed families of unpermuted rows, `beta == 0`, 16-byte base, `ldc`, batch
/// stride and row length.
#[test]
fn c_is_stored_by_tma_where_tma_can_write_it() {
    let of = |family: Family, output: Elem| {
        KERNELS
            .iter()
            .find(|k| k.family == family && k.output == output)
            .unwrap()
    };
    let f16 = of(Family::TmaWarpSpecialized, Elem::F16);
    let p = GemmParams {
        c: 0x10000,
        ldc: 136,
        stride_c: 136 * 100,
        m: 100,
        n: 128,
        k: 70,
        batch: 2,
        flags: flags::BETA_ZERO,
        ..GemmParams::default()
    };
    assert!(stores_c_by_tma(&p, f16));
    assert!(stores_c_by_tma(&p, of(Family::TmaPingPong, Elem::F32)));
    // register-sourced A (its rows paired in the writer, a swapped tile of Cᵀ transposed);
    // C's rows are `m` elements long there: a whole number of 16-byte pieces as well
    let register_a = KERNELS.iter().filter(|k| k.family == Family::TmaRegisterA);
    for k in register_a {
        assert!(stores_c_by_tma(&p, k), "{}", k.name);
        let odd_m = GemmParams { m: 101, ..p };
        assert_eq!(stores_c_by_tma(&odd_m, k), !k.swaps_ab(), "{}", k.name);
    }
    // nor the other swapped tiles (16-bit `nn_swap`, `nt_swap`)
    for k in KERNELS.iter().filter(|k| k.swap_ab) {
        assert!(!stores_c_by_tma(&p, k), "{}", k.name);
    }
    // not the thread copies, nor a consumer share that is not whole 128-byte chunks of C's
    // map (128×144: 144 columns per consumer)
    for k in KERNELS.iter().filter(|k| k.block.n == 144) {
        assert!(!stores_c_by_tma(&p, k), "{}", k.name);
    }
    assert!(!stores_c_by_tma(
        &p,
        of(Family::LdgWarpSpecialized, Elem::F16)
    ));
    // beta != 0; C's base, ldc, batch stride or row length not a whole number of 16 bytes
    for bad in [
        GemmParams { flags: 0, ..p },
        GemmParams { c: 0x10008, ..p },
        GemmParams { ldc: 132, ..p },
        GemmParams {
            stride_c: 136 * 100 + 4,
            ..p
        },
        GemmParams { n: 124, ..p },
    ] {
        assert!(!stores_c_by_tma(&bad, f16), "{bad:?}");
    }
    // f32 rows need 4 elements per 16 bytes
    let f32 = of(Family::TmaWarpSpecialized, Elem::F32);
    assert!(stores_c_by_tma(&GemmParams { n: 124, ..p }, f32));
    assert!(!stores_c_by_tma(&GemmParams { n: 126, ..p }, f32));
}

#[test]
fn k_zero_still_gives_a_valid_extent() {
    let p = GemmParams {
        m: 1,
        n: 1,
        k: 0,
        batch: 1,
        lda: 8,
        ldb: 8,
        ..GemmParams::default()
    };
    assert_eq!(OperandMap::of(&p, spec(), true).k, 1);
}

#[test]
fn encode_refusal_is_an_invalid_tensor_map() {
    // docs/errors.md: the driver's tensor-map encoder refuses the operand (here a base address
    // that is not 16-byte aligned, and rows more than 2^40 bytes apart). Needs the driver library
    // (no device): skipped without it.
    // SAFETY: only tries to dlopen the CUDA driver library by its usual names.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        println!("skipped: no CUDA driver library");
        return;
    }
    // SAFETY: a driver library loads (checked above), so `culib` returns cudarc's handle to it
    // without panicking.
    let lib = unsafe { cudarc::driver::sys::culib() };
    // SAFETY: looks the symbol up without calling it; the typed pointer is discarded.
    if unsafe { lib.get::<unsafe extern "C" fn()>(b"cuTensorMapEncodeTiled") }.is_err() {
        println!("skipped: the CUDA driver lacks cuTensorMapEncodeTiled");
        return;
    }
    let p = GemmParams {
        a: 0x1000,
        b: 0x2000,
        lda: 72,
        ldb: 136,
        m: 100,
        n: 130,
        k: 70,
        batch: 1,
        ..GemmParams::default()
    };
    let s = spec();
    for bad in [
        GemmParams { a: 0x1004, ..p },
        GemmParams { lda: 1 << 40, ..p },
    ] {
        match OperandMap::of(&bad, s, true).encode(s) {
            Err(crate::Error::InvalidArgument { what, why }) => {
                assert_eq!(what, "tensor map", "{why}");
                assert!(why.contains("cuTensorMapEncodeTiled refused"), "{why}");
            }
            Err(other) => panic!("expected InvalidArgument, got {other:?}"),
            Ok(_) => panic!("a map for {bad:?} was encoded"),
        }
    }
}
