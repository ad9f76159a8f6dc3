//! The inner cargo that compiles the kernels crate for the NVPTX target, and the rlibs it reports
//! in its JSON messages.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{io_err, run, BuildError, BuildOptions, Target, NVPTX_TARGET};

/// Removes the environment an outer cargo (a build script's, or `cargo run`'s) would leak into the
/// inner one: flags, wrappers, target/profile settings, build-script variables, the jobserver.
fn scrub_env(cmd: &mut Command) {
    const KEEP_PREFIXES: [&str; 8] = [
        "CARGO_HOME",
        "CARGO_NET_",
        "CARGO_HTTP_",
        "CARGO_REGISTRIES_",
        "CARGO_REGISTRY_",
        "CARGO_TERM_",
        "CARGO_BUILD_JOBS",
        "CARGO_LOG",
    ];
    const DROP: [&str; 18] = [
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "RUSTDOC",
        "CLIPPY_ARGS",
        "CLIPPY_CONF_DIR",
        "MAKEFLAGS",
        "MFLAGS",
        "OUT_DIR",
        "TARGET",
        "HOST",
        "NUM_JOBS",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "RUSTC",
    ];
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        let drop = DROP.contains(&k.as_ref())
            || k.starts_with("__CARGO")
            || k.starts_with("DEP_")
            || (k.starts_with("CARGO_") && !KEEP_PREFIXES.iter().any(|p| k.starts_with(p)));
        if drop {
            cmd.env_remove(&key);
        }
    }
}

/// An rlib the inner cargo built.
pub(crate) struct Rlib {
    pub(crate) crate_name: String,
    pub(crate) path: PathBuf,
    pub(crate) primary: bool,
}

/// Compiles the kernels crate (and `core`) for `target`; returns the rlibs, the kernels crate first.
pub(crate) fn cargo_build(opts: &BuildOptions, target: Target) -> Result<Vec<Rlib>, BuildError> {
    let manifest =
        fs::canonicalize(&opts.kernels_manifest).map_err(io_err(&opts.kernels_manifest))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let mut cmd = Command::new(&opts.cargo);
    cmd.current_dir(dir);
    scrub_env(&mut cmd);
    cmd.env("RUSTC", &opts.rustc);
    // -Zlocation-detail=none: panic locations carry no file names (the module must not depend on paths).
    let mut rustflags = vec![
        format!("-Ctarget-cpu={}", target.cpu()),
        "-Zlocation-detail=none".to_string(),
    ];
    rustflags.extend(opts.llvm_args.iter().map(|a| format!("-Cllvm-args={a}")));
    cmd.env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\x1f"));
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--lib", "--target", NVPTX_TARGET, "-Zbuild-std=core"])
        .args(["--profile", "ptx"]);
    for setting in [
        "profile.ptx.inherits=\"release\"",
        "profile.ptx.opt-level=3",
        "profile.ptx.codegen-units=1",
        "profile.ptx.panic=\"abort\"",
        "profile.ptx.lto=false",
        "profile.ptx.debug=0",
        "profile.ptx.debug-assertions=false",
        "profile.ptx.overflow-checks=false",
        "profile.ptx.incremental=false",
        "profile.ptx.strip=\"none\"",
    ] {
        cmd.arg("--config").arg(setting);
    }
    cmd.arg("--target-dir")
        .arg(opts.target_dir.join(target.cpu()))
        .arg("--message-format=json-render-diagnostics");
    if opts.quiet {
        cmd.arg("--quiet");
    }
    let stdout = run(&mut cmd, opts.quiet)?;

    let mut rlibs: Vec<Rlib> = stdout
        .lines()
        .filter_map(|line| Rlib::of_message(line, &manifest))
        .collect();
    // The kernels crate first, then the libraries by crate name: a deterministic link order.
    rlibs.sort_by(|a, b| (!a.primary, &a.crate_name).cmp(&(!b.primary, &b.crate_name)));
    if !rlibs.first().is_some_and(|r| r.primary) {
        return Err(BuildError::MissingArtifact(format!(
            "the rlib of {}",
            opts.kernels_manifest.display()
        )));
    }
    if !rlibs.iter().any(|r| r.crate_name == "core") {
        return Err(BuildError::MissingArtifact("the rlib of `core`".into()));
    }
    Ok(rlibs)
}

impl Rlib {
    /// The rlib of a `compiler-artifact` line of cargo's JSON messages (`primary` when it is the
    /// crate of `manifest`, a canonical path); `None` for any other line.
    fn of_message(line: &str, manifest: &Path) -> Option<Rlib> {
        if !line.starts_with('{') {
            return None;
        }
        let msg: Value = serde_json::from_str(line).ok()?;
        if msg["reason"] != "compiler-artifact" {
            return None;
        }
        let path = msg["filenames"]
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .find(|f| f.ends_with(".rlib"))?;
        let primary = msg["manifest_path"]
            .as_str()
            .and_then(|p| fs::canonicalize(p).ok())
            .is_some_and(|p| p == manifest);
        Some(Rlib {
            crate_name: msg["target"]["name"].as_str().unwrap_or("").to_string(),
            path: PathBuf::from(path),
            primary,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_rlib_of_an_artifact_line() {
        let line = r#"{"reason":"compiler-artifact","manifest_path":"/nonexistent/Cargo.toml","target":{"kind":["lib"],"name":"core"},"profile":{"test":false},"filenames":["/t/libcore-1.rlib","/t/libcore-1.rmeta"],"executable":null,"fresh":true}"#;
        let r = Rlib::of_message(line, Path::new("/elsewhere/Cargo.toml")).unwrap();
        assert_eq!(
            (r.crate_name.as_str(), r.path.as_path(), r.primary),
            ("core", Path::new("/t/libcore-1.rlib"), false)
        );
    }

    #[test]
    fn skips_other_lines() {
        let m = Path::new("/m/Cargo.toml");
        for line in [
            r#"{"reason":"build-finished","success":true}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"x"},"filenames":["/t/libx.rmeta"]}"#,
            r#"{"reason":"compiler-artifact","#,
            "   Compiling core",
        ] {
            assert!(Rlib::of_message(line, m).is_none(), "{line}");
        }
    }
}
