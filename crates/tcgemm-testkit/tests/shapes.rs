//! The benchmark shapes (CPU only, run everywhere): parsing and labels of padded shapes, their
//! buffer lengths and layouts, the presets and the aligned twin, and the check for writes outside
//! C's entries.

use tcgemm::{Elem, Precision};
use tcgemm_testkit::shapes::{
    all_shapes, decode, prefill, sizes, small_k, unaligned, ALIGN_ELEMS, ODD,
};
use tcgemm_testkit::{written_outside, Layout, Padding, Shape};

fn parse(s: &str) -> Shape {
    Shape::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn pad(ld: usize, offset: usize, batch_stride: usize) -> Padding {
    Padding {
        ld,
        offset,
        batch_stride,
    }
}

#[test]
fn parses_each_padding_part() {
    let square = Shape::new(4096, 4096, 4096);
    assert_eq!(parse("4096+ld1"), square.padded(pad(1, 0, 0)));
    assert_eq!(parse("4096+off3"), square.padded(pad(0, 3, 0)));
    assert_eq!(
        parse("64*512x512x512+bs7"),
        Shape {
            batch: 64,
            ..Shape::new(512, 512, 512)
        }
        .padded(pad(0, 0, 7))
    );
    assert_eq!(parse("4096").padding, Padding::PACKED);
    assert_eq!(parse("4096+ld0").padding, Padding::PACKED);
}

#[test]
fn parses_padding_in_any_order_with_layout_and_spaces() {
    let want = Shape {
        batch: 3,
        ..Shape::new(64, 32, 16).layout(true, false)
    }
    .padded(pad(2, 1, 5));
    for text in [
        "3*64x32x16:tn+ld2+off1+bs5",
        "3*64x32x16:tn+bs5+ld2+off1",
        " 3*64X32×16:tn + off1 + bs5 + LD2 ",
    ] {
        assert_eq!(parse(text), want, "{text}");
    }
}

#[test]
fn label_round_trips() {
    let mut shapes = all_shapes();
    shapes.extend(decode());
    shapes.extend(unaligned());
    shapes.push(parse("5*7x9x11:tt+ld3+off2+bs1"));
    for s in shapes {
        assert_eq!(Shape::parse(&s.label()), Ok(s), "{}", s.label());
    }
    assert_eq!(
        parse("4096:nt+off1+ld1").label(),
        "4096x4096x4096:nt+ld1+off1"
    );
}

#[test]
fn refuses_bad_padding() {
    for bad in [
        "4096+",
        "4096+ld",
        "4096+ldx",
        "4096+ld-1",
        "4096+pad1",
        "4096+1",
        "4096+ld1+ld2",
        "4096+ld1:nt",
        "4096+bs1",
        "1*4096+bs1",
        "4096:nt+",
        "18446744073709551615+off1",
        "4096x4096x4096+ld18446744073709551615",
        "2*4096+bs18446744073709551615",
        "4096+off18446744073709551615",
    ] {
        assert!(Shape::parse(bad).is_err(), "{bad} parsed");
    }
    let why = Shape::parse("4096+ld1:nt").unwrap_err();
    assert!(why.contains("layout goes before"), "{why}");
    let why = Shape::parse("4096+ld1+ld2").unwrap_err();
    assert!(why.contains("twice"), "{why}");
    let why = Shape::parse("4096+bs1").unwrap_err();
    assert!(why.contains("needs a batch"), "{why}");
}

#[test]
fn lens_of_padded_shapes() {
    // A 2×3 (ld 3+2), B 3×4 (ld 4+2), C 2×4 (ld 4+2); 2 elements of offset; no trailing pad
    let s = parse("2x4x3+ld2+off2");
    assert_eq!(s.lens(), (2 + 5 + 3, 2 + 2 * 6 + 4, 2 + 6 + 4));
    // transposed: A stored 3×2 (ld 2+1), B stored 4×3 (ld 3+1)
    let s = parse("2x4x3:tt+ld1");
    assert_eq!(s.lens(), (2 * 3 + 2, 3 * 4 + 3, 5 + 4));
    // batch strides: packed item + 1, the last item without its gap
    let s = parse("3*2x4x3+bs1");
    assert_eq!(s.lens(), (2 * 7 + 6, 2 * 13 + 12, 2 * 9 + 8));
    let s = parse("3*2x4x3+ld1+off4+bs2");
    let (a_item, b_item, c_item) = (2 * 4 + 2, 3 * 5 + 2, 2 * 5 + 2);
    assert_eq!(
        s.lens(),
        (
            4 + 2 * a_item + 4 + 3,
            4 + 2 * b_item + 2 * 5 + 4,
            4 + 2 * c_item + 5 + 4
        )
    );
    assert_eq!(parse("7*5x6x4").lens(), (7 * 20, 7 * 24, 7 * 30));
}

#[test]
fn set_bytes_count_padding() {
    let s = parse("2x4x3+ld2+off2");
    let (a, b, c) = s.lens();
    assert_eq!(s.set_bytes(Elem::F16, Elem::F32), 2 * (a + b) + 4 * c);
    assert_eq!(
        Shape::new(8, 8, 8).set_bytes(Elem::Bf16, Elem::Bf16),
        3 * 64 * 2
    );
}

#[test]
fn buffers_hold_what_the_library_asks_for() {
    let shapes = [
        "4096+ld1",
        "4096:nt+ld1",
        "4096:tn+off1",
        "64*512x512x512:nt+bs1",
        "3*5x7x9:tt+ld3+off2+bs4",
        "1x32001x4096:nt",
    ];
    for text in shapes {
        let s = parse(text);
        let g = s.gemm(Precision::Default);
        let (la, lb, lc) = g.required_lens().unwrap();
        let off = s.padding.offset;
        assert_eq!(s.lens(), (la + off, lb + off, lc + off), "{text}");
        g.validate(la, lb, lc).unwrap();
    }
}

#[test]
fn problem_and_gemm_follow_padding() {
    let s = parse("4*6x10x8:nt+ld1+off3+bs2");
    let p = s.problem();
    let (a, b, c) = (p.layout_a(), p.layout_b(), p.layout_c());
    assert_eq!(
        (a.rows, a.cols, a.ld, a.stride, a.offset),
        (6, 8, 9, 6 * 9 + 2, 3)
    );
    assert_eq!(
        (b.rows, b.cols, b.ld, b.stride, b.offset),
        (10, 8, 9, 10 * 9 + 2, 3)
    );
    assert_eq!(
        (c.rows, c.cols, c.ld, c.stride, c.offset),
        (6, 10, 11, 6 * 11 + 2, 3)
    );
    assert_eq!((p.alpha, p.beta, p.batch), (1.0, 0.0, 4));
    let g = s.gemm(Precision::Tf32);
    assert_eq!((g.lda, g.ldb, g.ldc), (Some(9), Some(9), Some(11)));
    assert_eq!(
        (g.stride_a, g.stride_b, g.stride_c),
        (Some(56), Some(92), Some(68))
    );
    assert_eq!(
        (g.precision, g.trans_a, g.trans_b),
        (Precision::Tf32, false, true)
    );
    // packed shapes leave the library's defaults
    let g = Shape::new(6, 10, 8).gemm(Precision::Default);
    assert_eq!((g.lda, g.ldb, g.ldc, g.stride_a), (None, None, None, None));
}

#[test]
fn unaligned_preset() {
    let shapes = unaligned();
    assert_eq!(Shape::parse_list("unaligned").unwrap(), shapes);
    assert!((25..=35).contains(&shapes.len()));
    for (i, s) in shapes.iter().enumerate() {
        assert!(!shapes[..i].contains(s), "{} twice", s.label());
        assert!(
            !s.is_aligned_packed(),
            "{} is aligned and packed",
            s.label()
        );
        let suite = if *s == Shape::new(4095, 4095, 4095) {
            "odd"
        } else {
            "unaligned"
        };
        assert_eq!(s.suite(), suite, "{}", s.label());
        assert!(s.reports_f16_f32() || suite == "odd", "{}", s.label());
    }
    for text in [
        "1001",
        "8191",
        "4096+ld1",
        "4096:tn+ld1",
        "2048x8192x4096+ld1",
        "4096+off1",
        "4096:nt+off1",
        "64*512:nt+bs1",
        "1x32001x4096",
        "2048x50257x4096:nt",
    ] {
        assert!(shapes.contains(&parse(text)), "{text} missing");
    }
    assert!(!all_shapes().iter().any(|s| s.suite() == "unaligned"));
    let all = Shape::parse_list("all").unwrap();
    assert!(unaligned()
        .iter()
        .all(|s| s.suite() == "odd" || !all.contains(s)));
}

#[test]
fn suites_of_padded_and_command_line_shapes() {
    assert_eq!(parse("1024+ld8").suite(), "unaligned");
    assert_eq!(parse("1x128256x4096:nt+off1").suite(), "unaligned");
    assert_eq!(parse("1000*64x64x64+bs1").suite(), "unaligned");
    assert_eq!(parse("16x50257x4096:tt").suite(), "unaligned");
    assert_eq!(parse("1x128256x4096:nt").suite(), "decode");
    assert_eq!(parse("1000*64x64x64").suite(), "batched");
    assert_eq!(parse("3x50257x4096").suite(), "other");
}

#[test]
fn aligned_twin_rounds_the_row_lengths() {
    let twin = |s: &str| parse(s).aligned_twin();
    assert_eq!(twin("1001"), Shape::new(1001, 1008, 1008));
    assert_eq!(
        twin("1001:nt"),
        Shape::new(1001, 1008, 1008).layout(false, true)
    );
    assert_eq!(
        twin("1001:tn"),
        Shape::new(1008, 1008, 1001).layout(true, false)
    );
    assert_eq!(
        twin("1001:tt"),
        Shape::new(1008, 1008, 1008).layout(true, true)
    );
    assert_eq!(twin("1x50257x4096"), Shape::new(1, 50264, 4096));
    assert_eq!(
        twin("4096:tn+ld1+off1"),
        Shape::new(4096, 4096, 4096).layout(true, false)
    );
    let batched = twin("64*512:nt+bs1");
    assert_eq!((batched.batch, batched.padding), (64, Padding::PACKED));
    for s in unaligned() {
        let t = s.aligned_twin();
        assert!(t.is_aligned_packed(), "{}", t.label());
        assert_eq!(t.aligned_twin(), t);
        assert_eq!(
            (t.batch, t.trans_a, t.trans_b),
            (s.batch, s.trans_a, s.trans_b)
        );
        assert!(t.m - s.m < ALIGN_ELEMS && t.n - s.n < ALIGN_ELEMS && t.k - s.k < ALIGN_ELEMS);
    }
    for s in all_shapes().into_iter().chain(decode()) {
        let odd = ODD.contains(&s);
        assert_eq!(s.is_aligned_packed(), !odd, "{}", s.label());
    }
}

#[test]
fn presets_by_name() {
    for name in [
        "squares",
        "transformer",
        "skinny",
        "odd",
        "batched",
        "decode",
        "unaligned",
        "quick",
        "all",
    ] {
        let shapes = Shape::parse_list(name).unwrap();
        assert!(!shapes.is_empty(), "{name}");
        assert_eq!(
            Shape::parse_list(&name.to_uppercase()),
            Ok(shapes),
            "{name}"
        );
    }
    assert!(Shape::parse_list("aligned").is_err());
    assert!(Shape::parse_list("unaligned,bogus").is_err());
}

/// C's buffer of `shape` after a run that wrote every entry (1.0) and nothing else.
fn after_clean_run(shape: &Shape) -> (Vec<f32>, Layout) {
    let l = shape.problem().layout_c();
    let mut c = vec![f32::NAN; shape.lens().2];
    for z in 0..l.batch {
        for r in 0..l.rows {
            for col in 0..l.cols {
                c[l.offset + l.at(z, r, col)] = 1.0;
            }
        }
    }
    (c, l)
}

#[test]
fn writes_outside_c_are_found() {
    for text in [
        "3*5x7x4:nt+ld2+off3+bs4",
        "5x7x4+ld1",
        "2*5x7x4+bs1",
        "5x7x4+off1",
        "5x7x4",
    ] {
        let shape = Shape::parse(text).unwrap();
        let (c, l) = after_clean_run(&shape);
        assert_eq!(written_outside(&c, &l), None, "{text}");
        let entries = l.batch * l.rows * l.cols;
        let gaps: Vec<usize> = (0..c.len()).filter(|&i| c[i].is_nan()).collect();
        assert_eq!(gaps.len(), c.len() - entries, "{text}");
        for i in gaps {
            let mut stray = c.clone();
            stray[i] = 0.5;
            assert_eq!(written_outside(&stray, &l), Some(i), "{text}: element {i}");
        }
    }
}

#[test]
fn a_longer_buffer_checks_its_tail() {
    let shape = Shape::parse("4x4x4+ld1").unwrap();
    let (mut c, l) = after_clean_run(&shape);
    c.extend([f32::NAN, 2.0]);
    assert_eq!(written_outside(&c, &l), Some(c.len() - 1));
}

/// Issue 15's suites report under their own names, except the shapes an older suite holds.
#[test]
fn issue_15_suites_report_under_their_names() {
    let suite = |s: &str| parse(s).suite();
    assert_eq!(suite("1536:nt"), "sizes");
    assert_eq!(suite("1024"), "squares");
    assert_eq!(suite("16384x28672x8192:nt"), "prefill");
    assert_eq!(suite("4096x4096x4096"), "squares");
    assert_eq!(suite("16384x16384x64"), "smallk");
    assert_eq!(suite("8192x8192x64"), "skinny");
    for s in sizes().iter().chain(&prefill()).chain(&small_k()) {
        assert!(s.is_aligned_packed(), "{}", s.label());
        assert_eq!(Shape::parse(&s.label()).unwrap(), *s);
    }
    // 4096³ (`nn` and `nt`) is in both `sizes` and `prefill`: listed once
    let listed = Shape::parse_list("sizes,prefill,smallk").unwrap();
    assert_eq!(listed.len(), 28 + 32 + 12 - 2);
}
