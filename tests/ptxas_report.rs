//! The embedded PTX modules (what `build.rs` put into `OUT_DIR`, from source or from `ptx/`):
//! every kernel of `config::KERNELS` is there with its launch bounds, and `ptxas` assembles each module,
//! for every architecture tcgemm ships its machine code for, with no spills and no stack frame in any
//! function beyond `SPILLS_ALLOWED`.
//!
//! Without `ptxas` (`PTXAS`, `CUDA_HOME`, `/usr/local/cuda`, `PATH`, or the `nvidia-cuda-nvcc-cu12`
//! Python wheel) the `ptxas` test prints `skipped: ptxas not found`; `TCGEMM_REQUIRE_PTXAS=1` makes
//! that a failure.

// The builder's ptxas module depends only on std and tcgemm_kernels; include it rather than take a
// dev-dependency on the builder.
#[allow(dead_code)]
#[path = "../crates/tcgemm-build/src/ptxas.rs"]
mod ptxas;
#[path = "../crates/tcgemm-build/src/spills.rs"]
mod spills;

use tcgemm_kernels::config::{Target, KERNELS};

/// The modules as `build.rs` wrote them for this build.
const MODULES: [(Target, &str); 3] = [
    (
        Target::Sm80,
        include_str!(concat!(env!("OUT_DIR"), "/tcgemm_sm80.ptx")),
    ),
    (
        Target::Sm90,
        include_str!(concat!(env!("OUT_DIR"), "/tcgemm_sm90.ptx")),
    ),
    (
        Target::Sm90a,
        include_str!(concat!(env!("OUT_DIR"), "/tcgemm_sm90a.ptx")),
    ),
];

/// The directives written after the parameter list of `.entry NAME`, up to its body.
fn entry_directives<'a>(ptx: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let decl = format!(".visible .entry {name}(");
    let start = ptx.find(&decl)?;
    let body = &ptx[start..];
    let params_end = body.find("\n)")? + 2;
    let rest = &body[params_end..];
    let block = &rest[..rest.find('{')?];
    Some(
        block
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with('.'))
            .collect(),
    )
}

#[test]
fn every_listed_kernel_is_in_its_modules_with_launch_bounds() {
    let mut problems = Vec::new();
    for (k, (t, ptx)) in KERNELS.iter().flat_map(|k| {
        MODULES
            .iter()
            .filter(|(t, _)| k.built_in(*t))
            .map(move |m| (k, m))
    }) {
        match entry_directives(ptx, k.name) {
            None => problems.push(format!("{} is missing from {}", k.name, t.ptx_file())),
            Some(d) => {
                let want = [
                    format!(".maxntid {}, 1, 1", k.threads),
                    format!(".minnctapersm {}", k.min_blocks_per_sm),
                ];
                if d != want {
                    problems.push(format!("{}: directives {d:?}, want {want:?}", k.name));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the embedded PTX does not match config::KERNELS (stale ptx/? run `cargo xtask ptx`):\n{}",
        problems.join("\n")
    );
}

#[test]
fn ptxas_finds_no_spills_and_no_stack_frames() {
    let Some(ptxas_bin) = ptxas::find_ptxas() else {
        if std::env::var("TCGEMM_REQUIRE_PTXAS").as_deref() == Ok("1") {
            panic!("ptxas not found and TCGEMM_REQUIRE_PTXAS=1: install CUDA or `python3 -m pip install nvidia-cuda-nvcc-cu12`, or set PTXAS");
        }
        println!("skipped: ptxas not found");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tcgemm-ptxas-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut all = Vec::new();
    for (target, text) in MODULES {
        let path = dir.join(target.ptx_file());
        std::fs::write(&path, text).unwrap();
        let report = ptxas::ptxas_reports(&ptxas_bin, &path, target);
        let _ = std::fs::remove_file(&path);
        all.extend(report.unwrap_or_else(|e| panic!("{e}")));
    }
    let _ = std::fs::remove_dir(&dir);
    let table = ptxas::format_report(&all);
    println!("ptxas: {}\n{table}", ptxas_bin.display());
    assert!(
        all.iter().all(ptxas::KernelReport::is_accepted),
        "spills or stack frames (beyond SPILLS_ALLOWED), or serialized wgmma:\n{table}"
    );
}
