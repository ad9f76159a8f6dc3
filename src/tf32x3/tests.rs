use super::*;
use crate::problem::Addresses;
use tcgemm_kernels::config::Math;

/// `g` as a 3xTF32 f32 → f32 problem on buffers at fixed addresses.
fn problem(g: &Gemm) -> Problem {
    let g = g.precision(Precision::Tf32x3);
    Problem::assume_aligned::<f32, f32>(&g)
        .and_then(|p| p.resolve_precision(false))
        .expect("valid problem")
        .at(Addresses {
            a: 1 << 20,
            b: 1 << 30,
            c: 1 << 40,
        })
}

#[test]
fn parts_are_k_major_rows_three_times_as_long() {
    // every layout: A's parts m rows, B's n rows, of 3·k rounded up to 32 f32 (128 bytes): in
    // thirds as read, or each part written once, 1000 rounded up to 1024, in rows of three
    for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
        let p = problem(&Gemm::new(100, 70, 1000).trans_a(ta).trans_b(tb));
        for (layout, part, ld) in [(Layout::Thirds, 1000, 3008), (Layout::Once, 1024, 3072)] {
            let c = Chunk::new(&p, 1000, layout);
            assert_eq!((c.a.src_k_major, c.b.src_k_major), (!ta, tb));
            assert_eq!((c.a.width, c.a.ld, c.a.item()), (100, ld, 100 * ld));
            assert_eq!((c.b.width, c.b.ld, c.b.item()), (70, ld, 70 * ld));
            assert_eq!((c.a.part, c.a.k(), c.b.k()), (part, 3 * part, 3 * part));
            let a_bytes = 100 * ld as u64 * 4;
            assert_eq!(c.b_offset, a_bytes.div_ceil(256) * 256);
            assert_eq!(c.bytes, c.b_offset + 70 * ld as u64 * 4);
        }
    }
}

#[test]
fn split_params_start_at_the_chunk() {
    // A stored k×m (MN-major): chunk k0 = 300 starts 300 rows in; B stored n×k: 300 elements in
    let p = problem(&Gemm::new(100, 70, 1000).trans_a(true).trans_b(true));
    let c = Chunk::new(&p, 200, Layout::Thirds);
    let (pa, pb) = (
        c.a.params(p.a(), 1 << 20, 7 << 32, 300),
        c.b.params(p.b(), 1 << 30, 9 << 32, 300),
    );
    assert_eq!(pa.src, (1 << 20) + 4 * 300 * 100);
    assert_eq!(pb.src, (1 << 30) + 4 * 300);
    assert_eq!((pa.src_k_major, pb.src_k_major), (0, 1));
    // A's parts are [hi | hi | lo], B's [hi | lo | hi], a chunk apart along the rows
    assert_eq!((pa.parts, pa.low_part, pb.parts, pb.low_part), (3, 2, 3, 1));
    assert_eq!(
        (pa.k, pa.written_k, pa.width, pa.part_stride, pa.dst_ld),
        (200, 200, 100, 200, 608)
    );
    assert_eq!(split_grid(&pa), (4 * 4, 1, 1));
    // written once: both `[hi | lo]`, 224 apart, zeros from 200 to 224
    let c = Chunk::new(&p, 200, Layout::Once);
    let (pa, pb) = (
        c.a.params(p.a(), 1 << 20, 7 << 32, 300),
        c.b.params(p.b(), 1 << 30, 9 << 32, 300),
    );
    assert_eq!(pa.src, (1 << 20) + 4 * 300 * 100);
    assert_eq!((pa.parts, pa.low_part, pb.parts, pb.low_part), (2, 1, 2, 1));
    assert_eq!(
        (pa.k, pa.written_k, pa.part_stride, pa.dst_ld),
        (200, 224, 224, 672)
    );
    assert_eq!(split_grid(&pa), (4 * 4, 1, 1));
}

#[test]
fn the_inner_call_is_an_nt_tf32_gemm_over_three_times_k() {
    let g = Gemm::new(64, 48, 40)
        .trans_a(true)
        .batch(3)
        .stride_b(0)
        .beta(0.5)
        .ldc(50);
    let p = problem(&g);
    let c = Chunk::new(&p, 40, Layout::Thirds);
    let first = c
        .problem(&p, &[Math::MmaTf32x3], Some(1 << 44), true)
        .unwrap();
    let ig = first.gemm();
    assert_eq!((ig.k, ig.precision, ig.beta), (120, Precision::Tf32, 0.5));
    assert!(!first.tf32x3_parts());
    assert_eq!((ig.trans_a, ig.trans_b), (false, true));
    assert_eq!(first.maths(), Some(&[Math::MmaTf32x3][..]));
    // A batched, B broadcast (one item of parts), C the caller's
    assert_eq!((c.a.items, c.b.items), (3, 1));
    assert_eq!(
        (ig.lda, ig.stride_a, ig.stride_b, ig.ldc),
        (Some(128), Some(64 * 128), Some(0), Some(50))
    );
    let addrs = first.addresses().unwrap();
    assert_eq!(
        (addrs.a, addrs.b, addrs.c),
        (1 << 44, (1 << 44) + c.b_offset, 1 << 40)
    );
    // later chunks add to C
    let later = c.problem(&p, &[Math::MmaTf32], None, false).unwrap();
    assert_eq!(later.gemm().beta, 1.0);
    // written once: thirds of 64 (40 rounded up to a line), the kernel told so
    let once = Chunk::new(&p, 40, Layout::Once)
        .problem(&p, &[Math::MmaTf32x3], Some(1 << 44), true)
        .unwrap();
    assert_eq!((once.gemm().k, once.gemm().lda), (192, Some(192)));
    assert!(once.tf32x3_parts());
    let params = crate::launch::params(&once).unwrap();
    assert_ne!(
        params.flags & tcgemm_kernels::params::flags::TF32X3_PARTS,
        0
    );
}

#[test]
fn chunks_fit_the_limit() {
    let p = problem(&Gemm::new(512, 512, 4096));
    let bytes = |len| Chunk::new(&p, len, Layout::Once).bytes;
    let whole = bytes(4096);
    assert_eq!(chunk_len(&p, whole).unwrap(), 4096);
    let len = chunk_len(&p, whole / 5).unwrap();
    assert!(len % LINE == 0 && len < 4096 / 4, "{len}");
    assert!(bytes(len) <= whole / 5);
    assert!(bytes(len + LINE) > whole / 5);
    // the parts in thirds never take more
    for len in [1, 3, 31, 32, 33, 1000, 4096] {
        assert!(
            Chunk::new(&p, len, Layout::Thirds).bytes <= bytes(len),
            "{len}"
        );
    }
    // below one line of k: shorter chunks
    let tiny = bytes(3);
    assert!(chunk_len(&p, tiny).unwrap() >= 3);
    assert!(matches!(chunk_len(&p, 0), Err(Error::Unsupported(_))));
}

#[test]
fn a_misaligned_c_is_staged_before_the_parts() {
    // ldc = 259 f32 (1036 bytes): the 3xTF32 kernels (TMA) need 16-byte-aligned rows of C
    let p = problem(&Gemm::new(301, 259, 517));
    let out = Output::new(&p);
    let staged = out.staging.as_ref().expect("C staged").staged;
    assert!(staged.c && !staged.a && !staged.b);
    assert_eq!(out.bytes, (301 * 288 * 4u64).div_ceil(256) * 256);
    let outer = out.problem(&p, Some(1 << 44)).unwrap();
    assert_eq!(
        (outer.gemm().ldc, outer.addresses().unwrap().c),
        (Some(288), 1 << 44)
    );
    // an aligned C stays the caller's
    let aligned = problem(&Gemm::new(300, 256, 517));
    assert!(Output::new(&aligned).staging.is_none() && Output::new(&aligned).bytes == 0);
}

#[test]
fn every_3xtf32_k_tile_lies_in_one_third() {
    // parts written once are read in thirds of `P`, a multiple of LINE: a k-tile that divides
    // LINE never straddles two thirds (`flags::TF32X3_PARTS` maps whole k-tiles)
    let kernels: Vec<_> = KERNELS
        .iter()
        .filter(|s| s.math == Math::MmaTf32x3)
        .collect();
    assert!(!kernels.is_empty());
    for s in kernels {
        assert_eq!(LINE % s.block.k as usize, 0, "{}", s.name);
    }
}
