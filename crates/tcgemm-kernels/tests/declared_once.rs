//! Every kernel is declared once: its name and its tile numbers stand only in its line of
//! `src/catalog.rs`. This scans the product's sources (the library, the kernels crate, the builder
//! and the build script) outside comments and unit-test modules:
//! - no kernel's name (every name in `KERNELS`) appears as text: the catalog derives names;
//! - no kernel record is built outside the catalog's rules (`KernelSpec {` and `GemmShape::new(`
//!   with numbers), so no tile shape is restated;
//! - no positional const-generic list of tile numbers (`::<…128, 256…>`) instantiates a body.
//!
//! Tests, tools, docs and the tuning table (`src/dispatch/rates.rs`, generated and checked
//! against `KERNELS` by its own test) may name kernels: they use them, they do not declare them.

use std::fs;
use std::path::{Path, PathBuf};

use tcgemm_kernels::config::KERNELS;

/// The repository: where this crate was built from, else the current directory (a test binary
/// run elsewhere, e.g. from the GPU bundle in a copy of the repository).
fn root() -> PathBuf {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let here = std::env::current_dir().unwrap_or_default();
    [built_from, here]
        .into_iter()
        .find(|r| r.join("crates/tcgemm-kernels/src/catalog.rs").is_file())
        .expect("the repository's sources (run from the repository root)")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Generated tables keyed by kernel name, which name the kernels they measured (they use them, as
/// tests do) and whose own unit tests check every name against `KERNELS`: the steady rates
/// written by `cargo xtask tune`.
const GENERATED: [&str; 1] = ["src/dispatch/rates.rs"];

/// The code of a file: comment lines dropped, unit-test modules (`#[cfg(test)]` to the end of the
/// file, where this code base keeps them), test-only files (`tests.rs`, `*_tests.rs`,
/// `test_support.rs`) and the [`GENERATED`] tables left out.
fn code(path: &Path) -> String {
    let test_only = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "tests.rs" || n.ends_with("_tests.rs") || n == "test_support.rs");
    if test_only || GENERATED.iter().any(|g| path.ends_with(g)) {
        return String::new();
    }
    let text = fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn product_sources() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut files = vec![root.join("build.rs")];
    for dir in [
        "src",
        "crates/tcgemm-kernels/src",
        "crates/tcgemm-build/src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 40, "found only {} source files", files.len());
    files.into_iter().map(|f| (f.clone(), code(&f))).collect()
}

#[test]
fn no_kernel_name_outside_the_catalog() {
    let sources = product_sources();
    let mut found = Vec::new();
    for k in KERNELS {
        for (path, code) in &sources {
            if code.contains(k.name) {
                found.push(format!("{} in {}", k.name, path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "kernel names written out:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_tile_shape_outside_the_catalog() {
    let catalog = root().join("crates/tcgemm-kernels/src/catalog");
    let mut found = Vec::new();
    for (path, code) in product_sources() {
        if path.starts_with(&catalog) {
            continue; // the rules that turn a catalog line into a record
        }
        for (i, line) in code.lines().enumerate() {
            let numbered_shape = line.contains("GemmShape::new(")
                && line
                    .split("GemmShape::new(")
                    .nth(1)
                    .is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()));
            let record = line.contains("KernelSpec {")
                && !line.contains("struct ")
                && !line.contains("impl ");
            let numeric_generics = line.split("::<").skip(1).any(|r| {
                let args = r.split('>').next().unwrap_or("");
                args.split(',').any(|a| {
                    a.trim()
                        .parse::<u32>()
                        .is_ok_and(|v| v >= 16 && v.is_power_of_two())
                })
            });
            if numbered_shape || record || numeric_generics {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "tile shapes restated:\n{}",
        found.join("\n")
    );
}
