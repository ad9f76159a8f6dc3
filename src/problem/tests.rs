use super::operand::multiple_of_16_bytes;
use super::*;

fn planned(g: &Gemm) -> Problem {
    Problem::assume_aligned::<half::f16, f32>(g).unwrap()
}

#[test]
fn alignment_is_the_16_byte_rule_per_part() {
    // lda 12 halves = 24 bytes; ldc 12 f32 = 48 bytes
    let p = planned(&Gemm::new(64, 12, 12).lda(12));
    assert_eq!(
        p.a().alignment,
        Alignment {
            base: true,
            ld: false,
            stride: true
        }
    );
    assert!(p.c().alignment.all());
    // strides count only with several batch items
    let g = Gemm::new(8, 8, 8).stride_a(4);
    assert!(planned(&g).a().alignment.stride);
    assert!(!planned(&g.batch(2)).a().alignment.stride);
    assert!(planned(&g.batch(2).stride_a(8)).a().alignment.stride);
    // huge values do not overflow
    assert!(!multiple_of_16_bytes(u64::MAX, Elem::F32));
}

#[test]
fn addresses_set_the_base_alignment_only() {
    let p = planned(&Gemm::new(8, 8, 8));
    assert_eq!(p.addresses(), None);
    let at = p.at(Addresses {
        a: 256,
        b: 514,
        c: 1024,
    });
    assert_eq!(at.addresses().map(|x| x.b), Some(514));
    assert!(at.a().alignment.all());
    assert!(!at.b().alignment.base && at.b().alignment.ld);
}

#[test]
fn tiles_are_counted_once() {
    let p = planned(&Gemm::new(257, 129, 8).batch(3));
    let block = GemmShape::new(128, 64, 32);
    assert_eq!(p.tile_grid(block), (3, 3));
    assert_eq!(p.tiles(block), 9);
    assert_eq!(p.work_items(block), 27);
    // a zero extent counts as one; no output, no tiles
    assert_eq!(p.tile_grid(GemmShape::new(0, 0, 0)), (257, 129));
    assert_eq!(planned(&Gemm::new(0, 5, 1)).tiles(block), 0);
    assert_eq!(planned(&Gemm::new(5, 5, 1).batch(0)).work_items(block), 0);
}

#[test]
fn reads_follow_blas() {
    let g = Gemm::new(4, 4, 4);
    assert!(planned(&g).reads_ab());
    assert!(!planned(&Gemm::new(4, 4, 0)).reads_ab());
    assert!(!planned(&g.alpha(-0.0)).reads_ab());
    assert!(!planned(&g).reads_c());
    assert!(!planned(&g.beta(-0.0)).reads_c());
    assert!(planned(&g.beta(f32::NAN)).reads_c());
}

#[test]
fn resolve_validates_the_lengths() {
    let g = Gemm::new(4, 4, 4);
    let sig = Signature::any_math(&g, Elem::F32, Elem::F32);
    assert!(Problem::resolve(&g, sig, (16, 16, 16)).is_ok());
    assert!(Problem::resolve(&g, sig, (16, 15, 16)).is_err());
}

/// `Problem::rows` (a tail launch's two calls): views into the same buffers, with the call's
/// leading dimensions (packed ones made explicit) and A stepped by rows or, stored transposed, by
/// columns.
#[test]
fn rows_are_views_with_the_same_leading_dimensions() {
    for trans_a in [false, true] {
        let g = Gemm::new(300, 70, 52).trans_a(trans_a).ldc(72);
        let p = Problem::resolve(
            &g,
            Signature::any_math(&g, Elem::F32, Elem::F32),
            g.required_lens().unwrap(),
        )
        .unwrap()
        .at(Addresses {
            a: 1 << 20,
            b: 2 << 20,
            c: 3 << 20,
        });
        let tail = p.rows(256, 44);
        assert_eq!(tail.gemm().m, 44);
        assert_eq!((tail.a().ld, tail.c().ld), (p.a().ld, 72));
        let a_skip = if trans_a { 256 } else { 256 * 52 };
        assert_eq!(tail.a().base, Some((1 << 20) + 4 * a_skip as u64));
        assert_eq!(tail.a().len, p.a().len - a_skip);
        assert_eq!(tail.b(), p.b());
        assert_eq!(tail.c().base, Some((3 << 20) + 4 * 256 * 72));
        assert!(tail.a().alignment.all() && tail.c().alignment.all());
        // from row 1, A stored transposed starts 4 bytes on: off 16 bytes
        assert_eq!(p.rows(1, 44).a().alignment.base, !trans_a);
        let top = p.rows(0, 256);
        assert_eq!(
            (top.gemm().m, top.a().base, top.c().len),
            (256, p.a().base, p.c().len)
        );
    }
}
