//! The validation path of `Context::gemm_raw`, without a GPU: everything before the stream check.

use super::*;
use crate::Error;
use crate::Precision;
use half::f16;

const N: usize = 64 * 64;

fn buf(ptr: u64, len: usize) -> RawBuffer {
    RawBuffer { ptr, len }
}

/// Three separate 64×64 f32 buffers, 64 KiB apart.
fn bufs() -> (RawBuffer, RawBuffer, RawBuffer) {
    (buf(0x10_0000, N), buf(0x20_0000, N), buf(0x30_0000, N))
}

fn check(g: &Gemm, (a, b, c): (RawBuffer, RawBuffer, RawBuffer)) -> Result<Problem> {
    raw_problem::<f32, f32>(g, false, a, b, c)
}

fn what(r: Result<Problem>) -> (&'static str, String) {
    match r {
        Err(Error::InvalidArgument { what, why }) => (what, why),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn valid_buffers_resolve_with_their_addresses() {
    let p = check(&Gemm::new(64, 64, 64), bufs()).unwrap();
    assert_eq!(p.a().base, Some(0x10_0000));
    assert!(p.c().alignment.all());
    assert_eq!(p.maths(), Some(&[tcgemm_kernels::config::Math::Ffma][..]));
    // an f32 one element past a 16-byte boundary: element-aligned, not 16-byte aligned
    let (a, b, c) = bufs();
    let p = check(&Gemm::new(64, 64, 64), (buf(a.ptr + 4, N), b, c)).unwrap();
    assert!(!p.a().alignment.base);
}

#[test]
fn precision_and_element_types_come_first() {
    let nulls = (buf(0, 0), buf(0, 0), buf(0, 0));
    let g = Gemm::new(64, 64, 64).precision(Precision::Tf32);
    let r = raw_problem::<f16, f32>(&g, true, nulls.0, nulls.1, nulls.2);
    assert_eq!(what(r).0, "precision");
    let r = raw_problem::<f32, f16>(&Gemm::new(64, 64, 64), true, nulls.0, nulls.1, nulls.2);
    assert_eq!(what(r).0, "element types");
}

#[test]
fn lengths_are_validated() {
    let (a, b, c) = bufs();
    let (w, why) = what(check(&Gemm::new(64, 64, 64), (a, buf(b.ptr, N - 1), c)));
    assert_eq!(w, "b", "{why}");
    assert!(why.contains("holds 4095 elements"), "{why}");
}

#[test]
fn null_pointers_only_where_nothing_is_referenced() {
    let (a, b, c) = bufs();
    let g = Gemm::new(64, 64, 64);
    let (w, why) = what(check(&g, (buf(0, N), b, c)));
    assert_eq!(w, "a", "{why}");
    assert!(why.contains("null pointer"), "{why}");
    assert_eq!(what(check(&g, (a, b, buf(0, N)))).0, "c");
    // k = 0 or alpha = 0: A and B are not referenced
    check(&Gemm::new(64, 64, 0), (buf(0, 0), buf(0, 0), c)).unwrap();
    check(&g.alpha(0.0), (buf(0, 0), buf(0, 0), c)).unwrap();
    // no output: nothing is referenced
    check(&Gemm::new(0, 64, 64), (buf(0, 0), buf(0, 0), buf(0, 0))).unwrap();
}

#[test]
fn addresses_are_aligned_to_their_elements() {
    let (a, b, c) = bufs();
    let (w, why) = what(check(&Gemm::new(64, 64, 64), (a, buf(b.ptr + 2, N), c)));
    assert_eq!(w, "b", "{why}");
    assert!(why.contains("4-byte elements"), "{why}");
    // 2 bytes is enough for f16
    let g = Gemm::new(64, 64, 64);
    raw_problem::<f16, f32>(&g, false, buf(a.ptr + 2, N), b, c).unwrap();
}

#[test]
fn extents_stay_in_the_address_space() {
    let (a, b, _) = bufs();
    let (w, why) = what(check(&Gemm::new(64, 64, 64), (a, b, buf(u64::MAX - 15, N))));
    assert_eq!(w, "c", "{why}");
    assert!(why.contains("64-bit address space"), "{why}");
}

#[test]
fn c_must_not_overlap_a_or_b() {
    let (a, b, c) = bufs();
    let g = Gemm::new(64, 64, 64);
    // C's last element on A's first
    let (w, why) = what(check(&g, (a, b, buf(a.ptr - 4 * (N as u64 - 1), N))));
    assert_eq!(w, "c", "{why}");
    assert!(why.contains("overlap buffer A"), "{why}");
    let (w, why) = what(check(&g, (a, b, buf(b.ptr + 4, N))));
    assert_eq!(w, "c", "{why}");
    assert!(why.contains("overlap buffer B"), "{why}");
    // adjacent is fine; A and B may overlap each other (both are read)
    check(&g, (a, b, buf(a.ptr + 4 * N as u64, N))).unwrap();
    check(&g, (a, a, c)).unwrap();
    // C over an unreferenced A: nothing is read from A
    check(&g.alpha(0.0), (a, b, buf(a.ptr, N))).unwrap();
}

#[test]
fn problem_from_raw_applies_the_same_checks() {
    let (a, b, c) = bufs();
    let g = Gemm::new(64, 64, 64);
    let p = Problem::from_raw::<f32, f32>(&g, a, b, c).unwrap();
    assert_eq!(p.maths(), None);
    assert_eq!(p.b().base, Some(b.ptr));
    assert!(Problem::from_raw::<f32, f32>(&g, a, b, buf(b.ptr, N)).is_err());
    assert!(Problem::from_raw::<f32, f32>(&g, buf(0, N), b, c).is_err());
}
