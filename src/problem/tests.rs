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
