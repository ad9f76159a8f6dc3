//! The command line: presets, padded shapes and the cases they make (no GPU).

use clap::{CommandFactory, Parser};
use tcgemm_testkit::{Path, Shape};

use super::{ours_failed, Args};

fn args(line: &[&str]) -> Result<Args, clap::Error> {
    Args::try_parse_from(std::iter::once("bench_report").chain(line.iter().copied()))
}

#[test]
fn help_lists_the_unaligned_preset_and_the_padding_syntax() {
    let help = Args::command().render_long_help().to_string();
    assert!(help.contains("unaligned"), "{help}");
    assert!(
        help.contains("+ldP") && help.contains("+offO") && help.contains("+bsS"),
        "{help}"
    );
}

#[test]
fn unaligned_suite_cases() {
    let a = args(&["--shapes", "unaligned"]).unwrap();
    let cases = a.cases();
    let shapes = tcgemm_testkit::shapes::unaligned();
    // every shape on fp32, tf32, f16 and bf16; f16 -> f32 on all but 4095³ (an `odd` shape)
    assert_eq!(cases.len(), 4 * shapes.len() + shapes.len() - 1);
    let a = args(&["--shapes", "unaligned", "--paths", "f16,bf16"]).unwrap();
    let cases = a.cases();
    assert_eq!(cases.len(), 3 * shapes.len() - 1);
    assert!(cases.contains(&(Shape::parse("4096+off1").unwrap(), Path::F16F32)));
    assert!(!cases
        .iter()
        .any(|&(_, p)| p == Path::Fp32 || p == Path::Tf32));
}

#[test]
fn padded_shapes_on_the_command_line() {
    let a = args(&[
        "--shapes",
        "4096:nt+ld1, 64*512x512x512+bs1",
        "--paths",
        "bf16",
    ])
    .unwrap();
    let labels: Vec<String> = a.cases().iter().map(|(s, _)| s.label()).collect();
    assert_eq!(labels, ["4096x4096x4096:nt+ld1", "64*512x512x512+bs1"]);
    for bad in [
        "4096+ld",
        "4096+ld1:nt",
        "4096+bs1",
        "4096+off1+off2",
        "unaligned,4096+x1",
    ] {
        assert!(args(&["--shapes", bad]).is_err(), "{bad}");
    }
}

#[test]
fn standard_suites_keep_their_cases() {
    let a = args(&[]).unwrap();
    let cases = a.cases();
    // 22 shapes on 4 paths, and f16 -> f32 on the 4 power-of-two squares
    assert_eq!(cases.len(), 22 * 4 + 4);
}

#[test]
fn a_named_kernel_refusing_the_call_is_not_a_failure() {
    let refused = tcgemm::Error::InvalidArgument {
        what: "kernel",
        why: "kernel `k`: TMA kernels need 16-byte-aligned base addresses".into(),
    };
    assert!(!ours_failed(&Err(refused.to_string())));
    let other = tcgemm::Error::InvalidArgument {
        what: "lda",
        why: "lda = 3 is smaller than k = 4".into(),
    };
    assert!(ours_failed(&Err(other.to_string())));
    assert!(!ours_failed(&Err("unsupported: no kernel".into())));
}
