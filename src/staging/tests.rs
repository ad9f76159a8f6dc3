use super::*;
use crate::calls::Cuts;
use crate::gemm::Precision;
use crate::test_support::h200_clusters;
use half::f16;
use tcgemm_kernels::config::{find_kernel, Elem, Family, Math, Target, KERNELS};
use tcgemm_testkit::Layout;

/// `g` with f16 inputs and output, its precision resolved.
fn f16_problem(g: &Gemm) -> Problem {
    Problem::assume_aligned::<f16, f16>(g)
        .and_then(|p| p.resolve_precision(false))
        .expect("valid problem")
}

/// `g` with f32 inputs and output asking for TF32, its precision resolved.
fn tf32_problem(g: &Gemm) -> Problem {
    Problem::assume_aligned::<f32, f32>(&g.precision(Precision::Tf32))
        .and_then(|p| p.resolve_precision(false))
        .expect("valid problem")
}

const LIMIT: u64 = 2 << 30;

/// [`choose`] with the plan dispatch makes unstaged on an H200 (132 SMs, both cuts): every kernel
/// loaded with the sm_90a module (`hopper`), else the sm_80 module's.
fn stage(p: &Problem, hopper: bool, limit: u64) -> Option<Staging> {
    let loaded = |s: &KernelSpec| hopper || s.target() == Target::Sm80;
    let cuts = Cuts {
        split_k: true,
        stream_k: true,
    };
    choose(p, hopper, limit, |q| {
        Dispatched::of(
            q,
            132,
            cuts,
            loaded,
            resident_by_shared_memory,
            h200_clusters,
        )
    })
}

/// Blocks of `spec` an H200 SM holds by its threads and shared memory (228 KiB, 1 KiB reserved
/// per block): what the driver reports where registers do not bind first.
fn resident_by_shared_memory(spec: &KernelSpec) -> u32 {
    let by_smem = (228 * 1024) / (spec.smem_bytes + 1024);
    by_smem.min(2048 / spec.threads.max(1))
}

#[test]
fn aligned_calls_and_calls_without_a_product_are_not_staged() {
    assert!(stage(&f16_problem(&Gemm::new(4096, 4096, 4096)), true, LIMIT).is_none());
    let odd = Gemm::new(4095, 4095, 4095);
    assert!(stage(&f16_problem(&odd.alpha(0.0)), true, LIMIT).is_none());
    let fp32 = Problem::assume_aligned::<f32, f32>(&odd.precision(Precision::Exact))
        .and_then(|p| p.resolve_precision(false))
        .unwrap();
    assert!(
        stage(&fp32, true, LIMIT).is_none(),
        "FFMA runs unaligned at its aligned speed"
    );
}

#[test]
fn large_odd_products_stage_every_misaligned_operand() {
    for hopper in [true, false] {
        let s = stage(&f16_problem(&Gemm::new(4095, 4095, 4095)), hopper, LIMIT).unwrap();
        assert_eq!(
            s.staged,
            Staged {
                a: true,
                b: true,
                c: true
            }
        );
        // three copies of 4095 rows of 4096 halves, each rounded to 256 bytes
        let one = (4095 * 4096 * 2u64).div_ceil(256) * 256;
        assert_eq!(s.bytes, 3 * one);
        assert!(stage(
            &f16_problem(&Gemm::new(4095, 4095, 4095)),
            hopper,
            3 * one - 1
        )
        .is_none());
    }
    let tf32 = tf32_problem(&Gemm::new(4097, 4097, 4097));
    assert!(stage(&tf32, true, LIMIT).is_some());
}

#[test]
fn decode_with_an_odd_weight_reads_it_unstaged_where_that_pays() {
    // up to 8 rows the stream kernels read B (4096×50257) with realigned 16-byte loads: a copy
    // would only add B's traffic twice
    for m in [1, 8] {
        assert!(stage(&f16_problem(&Gemm::new(m, 50257, 4096)), true, LIMIT).is_none());
    }
    // 9 to 16 rows: the 16×128 `mma.sync` tile, whose element-wise copies of B stream as fast as
    // the blocks the SMs hold: 393 blocks of 50257 columns, all held at once (three per SM), read
    // B unstaged faster than a copy of it (H200: 20.4 against 17.8 TFLOPS at 16 rows); the 251
    // blocks of 32001 columns (two per SM) do not, and B is staged
    for m in [9, 16] {
        assert!(stage(&f16_problem(&Gemm::new(m, 50257, 4096)), true, LIMIT).is_none());
        let s = stage(&f16_problem(&Gemm::new(m, 32001, 4096)), true, LIMIT).unwrap();
        assert!(s.staged.b && s.staged.c && !s.staged.a, "{:?}", s.staged);
    }
}

/// Small odd products whose copies cost less than the sm_80 kernels' time unaligned (H200,
/// docs/unaligned-log.md attempt 8, the copy rate and launch cost refitted): 1001³ f16→f32 ran
/// 33.3 TFLOPS unstaged, 73.9 staged; 1921×1023×517 f16 51.3 and 73.6.
#[test]
fn small_odd_products_stage_when_the_copies_cost_less() {
    let f16_f32 = |g: &Gemm| {
        Problem::assume_aligned::<f16, f32>(g)
            .and_then(|p| p.resolve_precision(false))
            .expect("valid problem")
    };
    let s = stage(&f16_f32(&Gemm::new(1001, 1001, 1001)), true, LIMIT).unwrap();
    assert!(s.staged.a && s.staged.b && s.staged.c);
    let s = stage(&f16_problem(&Gemm::new(1921, 1023, 517)), true, LIMIT).unwrap();
    assert!(s.staged.a && s.staged.b && s.staged.c);
}

/// 16-bit calls of few tiles: the sm_80 kernels' element-wise copies take 61–79 ns per element
/// of K however small the call, more than three copies and an aligned call (H200, TFLOPS unstaged
/// / staged: 301×263×517 f16 2.1 / 3.6, 501³ 6.8 / 10.8; docs/unaligned-log.md, attempt 11).
#[test]
fn few_tile_16_bit_calls_stage() {
    for g in [Gemm::new(301, 263, 517), Gemm::new(501, 501, 501)] {
        let s = stage(&f16_problem(&g), true, LIMIT).unwrap();
        assert!(s.staged.a && s.staged.b && s.staged.c, "{g:?}");
    }
}

/// TF32 calls read an unaligned f32 weight with 4-byte copies at about twice the bytes per second
/// of 16-bit element copies: unstaged where the copy of the weight would cost more (H200, TFLOPS
/// staged / unstaged: 128×32001×4096 74.0 / 94.8, 64×4096×4096 `ld + 1` 28.0 / 42.7, but
/// 256×4096×4096 `ld + 1` 92.6 / 80.5; docs/unaligned-log.md, attempt 11).
#[test]
fn tf32_weights_stage_only_where_the_copy_pays() {
    let odd_ld = |m: usize| Gemm::new(m, 4096, 4096).lda(4097).ldb(4097).ldc(4097);
    assert!(stage(&tf32_problem(&Gemm::new(128, 32001, 4096)), true, LIMIT).is_none());
    assert!(stage(&tf32_problem(&odd_ld(64)), true, LIMIT).is_none());
    assert!(stage(&tf32_problem(&odd_ld(256)), true, LIMIT).is_some());
}

/// TF32 calls with an unaligned A or B whose unstaged kernel runs few tiles per block slot, its
/// element-wise copies the bound (`Dispatched::copy_time`): staged where the staged call runs on
/// the `wgmma` kernels and the copies cost less than they save, as measured (H200, TFLOPS unstaged
/// against the aligned twin plus the copies, docs/unaligned-log.md attempt 13).
#[test]
fn few_tile_tf32_calls_stage_onto_wgmma_kernels() {
    let gap = |g: Gemm, items: usize, len: usize| {
        g.batch(items)
            .stride_a(len + 1)
            .stride_b(len + 1)
            .stride_c(len + 1)
    };
    let odd_ld = |m: usize| Gemm::new(m, 4096, 4096).lda(4097).ldb(4097).ldc(4097);
    // unstaged 55.6 µs against about 36.5 staged (1001³ `nn`; `nt` 57.0 against 32.5),
    // 48.2 against 35.5, 260.7 against 222.9
    for g in [
        Gemm::new(1001, 1001, 1001),
        Gemm::new(1001, 1001, 1001).trans_b(true),
        Gemm::new(1921, 1023, 517),
        gap(Gemm::new(512, 512, 512), 64, 512 * 512),
    ] {
        let s = stage(&tf32_problem(&g), true, LIMIT).expect("staged");
        assert!(s.staged.a && s.staged.b && s.staged.c, "{g:?}");
    }
    // without the sm_90a module the staged call would run on the sm_80 kernels, latency-bound on
    // few tiles as well: the flop rates alone decide, as before
    assert!(stage(&tf32_problem(&Gemm::new(1001, 1001, 1001)), false, LIMIT).is_none());
    // unstaged 21.6 µs against 28.7 (the copies are most of it); 50.1 against 89.9, 60.2 against
    // 95.4 (split calls); and where the staged call would run on the sm_80 kernels too:
    // 301×263×517 18.2 against 25.2, 501³ 18.1 against 26.2, 257³ 11.5 against 19.0,
    // 777×333×1025 `tn` 27.1 against 33.0; 501³ staged now runs on the 64×64 ping-pong tile
    // (64 tiles, a quarter of a wave), 0.63× the unstaged speed (10.4 against 16.6 TFLOPS)
    for g in [
        gap(Gemm::new(256, 256, 256), 16, 256 * 256),
        odd_ld(64),
        odd_ld(128),
        Gemm::new(301, 263, 517),
        Gemm::new(501, 501, 501),
        Gemm::new(257, 257, 257),
        Gemm::new(777, 333, 1025).trans_a(true),
    ] {
        assert!(stage(&tf32_problem(&g), true, LIMIT).is_none(), "{g:?}");
    }
}

/// The copy time of an unstaged TF32 call counts the tiles of the busiest block slot: one
/// 64×128 tile per slot for 1001³ (128 tiles, 2 slots on each of 132 SMs), four 128×256 tiles
/// for 64·512³ (512 tiles, one slot each).
#[test]
fn the_copy_time_counts_the_busiest_block_slots_tiles() {
    let run = |name| Dispatched {
        spec: find_kernel(name).unwrap(),
        slices: 1,
        fill: 100,
        sms: 132,
        resident: 1,
    };
    let per_tile = |k: f64, rows_cols: f64| {
        k * rows_cols / model::rate::NARROW_32_PER_BLOCK + model::rate::NARROW_32_TILE
    };
    let square = tf32_problem(&Gemm::new(1001, 1001, 1001));
    let t = run("tf32_nn_64x128x32_w32x32_s4").copy_time(&square);
    assert!((t - per_tile(1001.0, 192.0)).abs() < 1e-12, "{t}");
    let batched = tf32_problem(&Gemm::new(512, 512, 512).batch(64));
    let t = run("tf32_nn_128x256x32_w64x64_s3").copy_time(&batched);
    assert!((t - 4.0 * per_tile(512.0, 384.0)).abs() < 1e-12, "{t}");
    // in 4 slices of 128: four times the tiles, a quarter of K each
    let split = Dispatched {
        slices: 4,
        ..run("tf32_nn_128x256x32_w64x64_s3")
    };
    let t = split.copy_time(&batched);
    assert!((t - 16.0 * per_tile(128.0, 384.0)).abs() < 1e-12, "{t}");
}

#[test]
fn tiny_or_shallow_calls_run_unstaged() {
    assert!(stage(&f16_problem(&Gemm::new(17, 17, 17)), true, LIMIT).is_none());
    // only C misaligned and k small: the copy of C costs more than the TMA kernels save
    let nt = Gemm::new(2048, 1001, 64).trans_b(true);
    assert!(stage(&f16_problem(&nt), true, LIMIT).is_none());
}

#[test]
fn only_c_misaligned_stages_c_on_hopper_with_deep_k() {
    let nt = f16_problem(&Gemm::new(2048, 1001, 4096).trans_b(true));
    let s = stage(&nt, true, LIMIT).unwrap();
    assert_eq!(
        s.staged,
        Staged {
            a: false,
            b: false,
            c: true
        }
    );
    assert!(
        stage(&nt, false, LIMIT).is_none(),
        "sm_80 kernels store an unaligned C as fast"
    );
}

#[test]
fn the_staged_problem_is_aligned_and_packed() {
    let g = Gemm::new(300, 200, 100)
        .trans_a(true)
        .lda(301)
        .ldb(203)
        .batch(3)
        .stride_b(0);
    let p = f16_problem(&g).at(Addresses {
        a: 0x1002,
        b: 0x2000,
        c: 0x3000,
    });
    let s = Staging::new(
        &p,
        Staged {
            a: true,
            b: true,
            c: false,
        },
    );
    let q = s.problem(&p, Some(0x10_0000)).unwrap();
    for op in [q.a(), q.b(), q.c()] {
        assert!(op.alignment.all(), "{op:?}");
    }
    // A stored 100×300 → ld 320 (640 bytes), packed items; B broadcast: one item, stride 0
    assert_eq!(
        (q.a().ld, q.a().stride, q.a().base),
        (320, 100 * 320, Some(0x10_0000))
    );
    let a_bytes = (3 * 100 * 320 * 2u64).div_ceil(256) * 256;
    assert_eq!(
        (q.b().ld, q.b().stride, q.b().base),
        (256, 0, Some(0x10_0000 + a_bytes))
    );
    assert_eq!(q.c().base, Some(0x3000));
    let ins = s.copies_in(&p, 0x10_0000).unwrap();
    assert_eq!(ins.len(), 2);
    let (_, b) = ins[1];
    assert_eq!(
        (b.src, b.dst, b.batch, b.rows, b.cols),
        (0x2000, 0x10_0000 + a_bytes, 1, 100, 200)
    );
    assert_eq!((b.src_ld, b.dst_ld), (203, 256));
    assert!(s.copy_out(&p, 0x10_0000).unwrap().is_none());
}

#[test]
fn c_is_copied_in_only_when_read() {
    let g = Gemm::new(1024, 1024, 1024).ldc(1025);
    let p = f16_problem(&g).at(Addresses {
        a: 0x1000,
        b: 0x2000,
        c: 0x3000,
    });
    let s = Staging::new(
        &p,
        Staged {
            a: false,
            b: false,
            c: true,
        },
    );
    assert!(s.copies_in(&p, 0).unwrap().is_empty());
    let out = s.copy_out(&p, 0x8000).unwrap().unwrap().1;
    assert_eq!(
        (out.src, out.dst, out.src_ld, out.dst_ld),
        (0x8000, 0x3000, 1024, 1025)
    );
    let beta = f16_problem(&g.beta(0.5)).at(Addresses {
        a: 0x1000,
        b: 0x2000,
        c: 0x3000,
    });
    let back_in = s.copies_in(&beta, 0x8000).unwrap();
    assert_eq!(back_in.len(), 1);
    assert_eq!((back_in[0].1.src, back_in[0].1.dst), (0x3000, 0x8000));
}

#[test]
fn copy_kernels_exist_for_both_element_sizes() {
    for e in [Elem::F16, Elem::Bf16, Elem::F32] {
        let k = copy_kernel(e).unwrap();
        assert_eq!(k.input.bytes(), e.bytes());
        assert_eq!(k.family.params(), tcgemm_kernels::config::ParamsKind::Copy);
    }
    let k = copy_kernel(Elem::F16).unwrap();
    let p = CopyParams {
        rows: 3,
        cols: 5,
        batch: 2,
        ..Default::default()
    };
    assert_eq!(copy_grid(k, &p), (1, 1, 1));
    let p = CopyParams {
        rows: 1 << 20,
        cols: 4097,
        batch: 1,
        ..Default::default()
    };
    assert_eq!(copy_grid(k, &p), (1 << 16, 9, 1));
}

#[test]
fn rows_off_32_byte_sectors_stage_on_hopper_unless_pairs_read_them() {
    // 4100 floats = 16400-byte rows: 16-byte aligned, off 32-byte sectors; TF32 has no tiles in
    // pairs sharing B, so its operands are copied
    let p = tf32_problem(&Gemm::new(4096, 4096, 4096).lda(4100).ldb(4100));
    let s = stage(&p, true, LIMIT).unwrap();
    assert!(s.staged.a && s.staged.b && !s.staged.c, "{:?}", s.staged);
    assert!(stage(&p, false, LIMIT).is_none(), "sm_80");
    // an A view 16 bytes into its allocation: rows off their sectors
    let p = tf32_problem(&Gemm::new(4096, 4096, 4096)).at(Addresses {
        a: 0x1010,
        b: 0x2000,
        c: 0x3000,
    });
    assert_eq!(
        stage(&p, true, LIMIT).unwrap().staged,
        Staged {
            a: true,
            b: false,
            c: false
        }
    );
    // 16-bit rows off sectors (3000 halves = 6000 bytes, 4104 = 8208 bytes, an A view 16 bytes
    // in): dispatch runs them on the tiles in pairs, which read them at full speed, unstaged
    let f16_off = [
        f16_problem(&Gemm::new(3000, 3000, 3000)),
        f16_problem(&Gemm::new(4096, 4096, 4096).lda(4104).ldb(4104)),
        f16_problem(&Gemm::new(4096, 4096, 4096)).at(Addresses {
            a: 0x1010,
            b: 0x2000,
            c: 0x3000,
        }),
    ];
    for p in f16_off {
        assert!(stage(&p, true, LIMIT).is_none(), "{:?}", p.gemm());
    }
    // rows on sectors though off 128-byte lines (8224 and 16416 bytes) are read at full speed
    let on_sectors = [
        f16_problem(&Gemm::new(4096, 4096, 4096).lda(4112).ldb(4112)),
        tf32_problem(&Gemm::new(4096, 4096, 4096).lda(4104).ldb(4104)),
    ];
    for p in on_sectors {
        assert!(stage(&p, true, LIMIT).is_none(), "{:?}", p.gemm());
    }
    // rows on their lines, or too little work for the copies to pay
    assert!(stage(&f16_problem(&Gemm::new(3072, 3072, 3072)), true, LIMIT).is_none());
    assert!(stage(&f16_problem(&Gemm::new(1000, 1000, 64)), true, LIMIT).is_none());
}

#[test]
fn overlapping_batches_and_huge_strides_do_not_overflow() {
    // 2^20 items one element apart: a packed copy far above any limit, refused, never overflowing
    let g = Gemm::new(4096, 4096, 4096)
        .lda(4097)
        .batch(1 << 20)
        .stride_a(1);
    let p = Problem::build(
        &g,
        f16_problem(&Gemm::new(1, 1, 1)).signature().to_owned(),
        (usize::MAX, usize::MAX, usize::MAX),
    );
    assert!(stage(&p, true, u64::MAX).is_none_or(|s| s.bytes > LIMIT));
    assert!(stage(&p, true, LIMIT).is_none());
}

/// A TF32 call with an unaligned A or B that an f32 stream kernel takes (at most its rows, `nn`
/// or `tn`) runs as exact FP32; aligned calls, taller ones, other layouts and exact ones run as
/// asked.
#[test]
fn tf32_calls_the_stream_kernels_take_run_exact() {
    let resolved = |g: &Gemm, allow_tf32: bool| {
        Problem::assume_aligned::<f32, f32>(g)
            .and_then(|p| p.resolve_precision(allow_tf32))
            .unwrap()
    };
    let rows = KERNELS
        .iter()
        .filter(|k| k.family == Family::CudaCoreStream && k.input == Elem::F32)
        .map(|k| k.block.m as usize)
        .max()
        .expect("f32 stream kernels");
    let tf32 = |m, n| Gemm::new(m, n, 4096).precision(Precision::Tf32);
    // 50257 columns: B's rows are not 16-byte aligned
    let p = exact_instead(&resolved(&tf32(1, 50257), false)).expect("runs exact");
    assert_eq!(p.gemm().precision, Precision::Exact);
    assert_eq!(p.maths(), Some(&[Math::Ffma][..]));
    assert!(exact_instead(&resolved(&tf32(rows, 50257), false)).is_some());
    assert!(exact_instead(&resolved(&tf32(rows, 50257).trans_a(true), false)).is_some());
    // TF32 allowed for Default: the same
    let default = Gemm::new(rows, 32001, 4096);
    assert!(exact_instead(&resolved(&default, true)).is_some());
    // taller calls (the TF32 tiles are faster: 16×32001×4096 25.5 TFLOPS against 18.4 exact),
    // an n×k weight (no f32 stream kernel), aligned weights, exact calls and calls without a
    // product run as asked
    assert!(exact_instead(&resolved(&tf32(rows + 1, 50257), false)).is_none());
    assert!(exact_instead(&resolved(&tf32(16, 32001), false)).is_none());
    let nk = tf32(1, 4096).trans_b(true).ldb(4097);
    assert!(exact_instead(&resolved(&nk, false)).is_none());
    assert!(exact_instead(&resolved(&tf32(1, 50264), false)).is_none());
    assert!(exact_instead(&resolved(&default, false)).is_none());
    assert!(exact_instead(&resolved(&tf32(1, 50257).alpha(0.0), false)).is_none());
}

/// A source and a destination layout of one shape (`tcgemm_testkit::Layout`), from `(ld, stride,
/// offset)` of each, in elements.
fn copy_layouts(
    rows: usize,
    cols: usize,
    batch: usize,
    (ld, stride, offset): (usize, usize, usize),
    (dst_ld, dst_stride, dst_offset): (usize, usize, usize),
) -> (Layout, Layout) {
    let src = Layout {
        rows,
        cols,
        ld,
        stride,
        batch,
        offset,
    };
    let dst = Layout {
        ld: dst_ld,
        stride: dst_stride,
        offset: dst_offset,
        ..src
    };
    (src, dst)
}

/// Runs the copy kernel of `elem` (elements `T`) from layout `from` to layout `to` (each in a
/// buffer that ends with it) and checks the destination buffer element by element: the layout's
/// elements are the source's, every other one is unchanged.
fn check_copy<T>(
    ctx: &Context,
    elem: Elem,
    (from, to): (Layout, Layout),
    value: impl Fn(usize) -> T,
) where
    T: cudarc::driver::DeviceRepr + Copy + PartialEq + std::fmt::Debug,
{
    use cudarc::driver::DevicePtr as _;
    let s = ctx.stream();
    let host_src: Vec<T> = (0..from.offset + from.span()).map(&value).collect();
    // the destination ends with its layout, so a store past it would be one past the buffer
    let before: Vec<T> = (0..to.offset + to.span())
        .map(|i| value(i + 1_000_003))
        .collect();
    let src = s.clone_htod(&host_src).expect("upload");
    let dst = s.clone_htod(&before).expect("upload");
    let bytes = u64::from(elem.bytes());
    {
        let (ps, _r) = src.device_ptr(s);
        let (pd, _w) = dst.device_ptr(s);
        let p = CopyParams {
            src: ps + from.offset as u64 * bytes,
            dst: pd + to.offset as u64 * bytes,
            rows: from.rows as u64,
            cols: from.cols as u64,
            src_ld: from.ld as u64,
            dst_ld: to.ld as u64,
            src_stride: from.stride as u64,
            dst_stride: to.stride as u64,
            batch: from.batch as u64,
        };
        // SAFETY: both layouts lie in their buffers (sized by `span`), which are apart and live
        // until the copy is read back below on the same stream.
        unsafe { ctx.launch_copy(elem, &p) }.expect("copy launches");
    }
    let after = s.clone_dtoh(&dst).expect("download");
    let mut want = before;
    for z in 0..from.batch {
        for r in 0..from.rows {
            for c in 0..from.cols {
                want[to.offset + to.at(z, r, c)] = host_src[from.offset + from.at(z, r, c)];
            }
        }
    }
    for (i, (got, want)) in after.iter().zip(&want).enumerate() {
        assert!(
            got == want,
            "{elem:?} {from:?} -> {to:?}: destination element {i}: {got:?}, want {want:?}"
        );
    }
}

/// The copy kernels on a GPU against a host copy (skipped without one unless
/// `TCGEMM_REQUIRE_GPU=1`): rows of 1 to 1031 elements whose starts fall anywhere in a 16-byte
/// chunk on either side, staging's destination (rows on 128-byte lines), odd batch strides, 2-
/// and 4-byte elements, and more rows than the grid has warps.
#[test]
fn copies_move_exactly_the_layouts_elements() {
    let ctx = match Context::new(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            assert!(
                !tcgemm_testkit::require_gpu(),
                "TCGEMM_REQUIRE_GPU=1 and no GPU: {e}"
            );
            return;
        }
    };
    let f16_bits = |i: usize| (i * 7919 % 65_521) as u16;
    let f32_bits = |i: usize| (i as u32).wrapping_mul(2_654_435_761);
    for cols in [1usize, 2, 3, 5, 7, 8, 9, 16, 17, 100, 1031] {
        let packed = cols.div_ceil(64) * 64;
        for (so, dof) in [(0, 0), (1, 0), (0, 1), (3, 5), (7, 2), (6, 6)] {
            let cases = [
                // odd leading dimensions on both sides
                copy_layouts(5, cols, 1, (cols + 3, 0, so), (cols + 1, 0, dof)),
                // staging's destination: rows on 128-byte lines, packed items
                copy_layouts(
                    3,
                    cols,
                    2,
                    (cols + 1, 3 * (cols + 1) + 1, so),
                    (packed, 3 * packed, 0),
                ),
                // odd batch strides on both sides
                copy_layouts(
                    2,
                    cols,
                    3,
                    (cols, 2 * cols + 5, so),
                    (cols + 2, 2 * (cols + 2) + 3, dof),
                ),
            ];
            for case in cases {
                check_copy(&ctx, Elem::F16, case, f16_bits);
                check_copy(&ctx, Elem::F32, case, f32_bits);
            }
        }
    }
    // more rows than the grid's warps (`COPY_BLOCKS_X` blocks of 8): each warp strides over
    // several rows and items
    let case = copy_layouts(
        200_000,
        3,
        3,
        (5, 200_000 * 5 + 7, 1),
        (7, 200_000 * 7 + 3, 2),
    );
    check_copy(&ctx, Elem::F16, case, f16_bits);
    check_copy(&ctx, Elem::F32, case, f32_bits);
}
