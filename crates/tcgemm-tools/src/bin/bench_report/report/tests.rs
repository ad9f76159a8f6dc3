//! The aligned-twin column and section of the report, from made-up rows (no GPU).

use tcgemm_testkit::{Path, Shape};

use super::*;
use crate::measure::{Meas, Row, Twin};

fn meas(tflops: f64) -> Meas {
    Meas {
        ms: 1.0,
        host_us: 5.0,
        tflops,
        err: 1e-3,
        reps: 10,
    }
}

fn row(shape: &str, ours: Result<Meas, String>, twin: Option<Result<Meas, String>>) -> Row {
    let shape = Shape::parse(shape).unwrap();
    Row {
        shape,
        path: Path::F16,
        kernel: "f16_nn_128x128x32".into(),
        forced: false,
        ours,
        blas: Ok(meas(100.0)),
        twin: twin.map(|meas| Twin {
            shape: shape.aligned_twin(),
            kernel: "f16_nn_128x256x64_tma".into(),
            meas,
        }),
    }
}

#[test]
fn twin_ratio_is_ours_over_the_twin() {
    let r = row("4096+ld1", Ok(meas(300.0)), Some(Ok(meas(600.0))));
    assert_eq!(twin_ratio(&r), Some(0.5));
    assert_eq!(twin_ratio(&row("4096", Ok(meas(300.0)), None)), None);
    let failed = row(
        "4095",
        Ok(meas(300.0)),
        Some(Err("setup: out of memory".into())),
    );
    assert_eq!(twin_ratio(&failed), None);
}

#[test]
fn no_twin_section_without_twins() {
    let rows = [row("4096", Ok(meas(300.0)), None)];
    assert_eq!(twin_section(&rows), "");
}

#[test]
fn twin_section_lists_the_rows_with_twins() {
    let mut forced = row("4096+off1", Ok(meas(100.0)), Some(Ok(meas(400.0))));
    forced.forced = true;
    let rows = [
        row("4096", Ok(meas(300.0)), None),
        row("4096+ld1", Ok(meas(300.0)), Some(Ok(meas(600.0)))),
        row("1x32001x4096", Ok(meas(2.0)), Some(Ok(meas(2.0)))),
        row("4095", Ok(meas(300.0)), Some(Err("boom".into()))),
        forced,
    ];
    let s = twin_section(&rows);
    assert!(s.starts_with("## Unaligned calls against their aligned twins"));
    assert!(s.contains("| 4096x4096x4096+ld1 | f16 | `f16_nn_128x128x32` | 300.0 | 4096x4096x4096 | `f16_nn_128x256x64_tma` | 600.0 | 50% |"), "{s}");
    assert!(
        s.contains("| 1x32001x4096 | f16 | `f16_nn_128x128x32` | 2.00 | 1x32008x4096 |"),
        "{s}"
    );
    assert!(s.contains("| 4095x4095x4095 | f16 | `f16_nn_128x128x32` | 300.0 | 4095x4096x4096 | `f16_nn_128x256x64_tma` | error [1] | – |"), "{s}");
    assert!(s.contains("(forced)"), "{s}");
    assert!(!s.contains("| 4096x4096x4096 | f16"), "{s}");
    // the forced row stays out of the geomean: sqrt(0.5 · 1.0)
    assert!(
        s.contains("over 2 rows: geomean 70.7%, worst 4096x4096x4096+ld1 f16 (50%)"),
        "{s}"
    );
    assert!(s.contains("Notes:\n\n1. boom"), "{s}");
}
