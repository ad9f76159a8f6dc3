//! Puts tcgemm's PTX modules (`tcgemm_sm80.ptx`, `tcgemm_sm90.ptx`, `tcgemm_sm90a.ptx`) into `OUT_DIR`.
//!
//! - From source (`tcgemm-build`) when the compiler is the nightly pinned in `rust-toolchain.toml` and
//!   the kernels crate's sources are beside this manifest (a checkout of the repository).
//! - Otherwise the kept copies in `ptx/` (committed; `cargo xtask ptx` refreshes them), so a project
//!   depending on tcgemm builds on stable Rust with neither nightly, rust-src nor CUDA.
//!
//! Then the PTX is compressed and listed with the kept machine code of `images/` (`cargo xtask
//! images`) that was assembled from exactly that PTX, in `OUT_DIR/images.rs`.
//!
//! `TCGEMM_PTX=kept` or `TCGEMM_PTX=source` forces one way; with `source` any failure is a build error.
//! Without it, a failed source build falls back to the kept copies with a warning.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::exit;

use tcgemm_build::{build_ptx, BuildOptions, RustcVersion, Target};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Auto,
    Kept,
    Source,
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    exit(1);
}

fn warn(message: &str) {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
}

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let kernels = manifest_dir.join("crates/tcgemm-kernels");
    let toolchain_file = manifest_dir.join("rust-toolchain.toml");

    println!("cargo:rerun-if-env-changed=TCGEMM_PTX");
    for p in [
        kernels.join("src"),
        kernels.join("Cargo.toml"),
        manifest_dir.join("ptx"),
        toolchain_file.clone(),
    ] {
        // Naming a path that does not exist would make cargo rerun this script on every build.
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }

    let mode = match env::var("TCGEMM_PTX").as_deref() {
        Err(_) | Ok("") => Mode::Auto,
        Ok("kept") => Mode::Kept,
        Ok("source") => Mode::Source,
        Ok(other) => fail(&format!(
            "TCGEMM_PTX must be `kept` or `source`, not `{other}`"
        )),
    };

    let channel = tcgemm_build::pinned_channel(&manifest_dir);
    let rustc = PathBuf::from(env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
    let from_source = match mode {
        Mode::Kept => false,
        Mode::Source => true,
        Mode::Auto => {
            let pinned = channel
                .as_deref()
                .is_some_and(|c| RustcVersion::query(&rustc).is_some_and(|v| v.matches_channel(c)));
            pinned && kernels.join("src").is_dir()
        }
    };

    if from_source {
        let mut opts = BuildOptions::for_workspace(&manifest_dir, &out_dir);
        opts.target_dir = inner_target_dir(&manifest_dir, &out_dir);
        opts.rustc = rustc;
        opts.quiet = true;
        match build_ptx(&opts) {
            Ok(_) => return embed_images(&manifest_dir, &out_dir),
            Err(e) if mode == Mode::Source => fail(&format!("building PTX from source (TCGEMM_PTX=source): {e}")),
            Err(e) => warn(&format!(
                "building PTX from source failed; using the kept ptx/ instead (TCGEMM_PTX=source makes this an error):\n{e}"
            )),
        }
    }

    for target in Target::ALL {
        let kept = manifest_dir.join("ptx").join(target.ptx_file());
        let bytes = fs::read(&kept).unwrap_or_else(|e| {
            fail(&format!(
                "cannot read the kept PTX {}: {e}; build it with `cargo xtask ptx` (needs the pinned toolchain{})",
                kept.display(),
                channel.as_deref().map(|c| format!(" {c}")).unwrap_or_default()
            ))
        });
        if let Err(e) = tcgemm_build::write_if_changed(&out_dir.join(target.ptx_file()), &bytes) {
            fail(&e.to_string());
        }
    }
    embed_images(&manifest_dir, &out_dir);
}

/// Writes `OUT_DIR/images.rs`: the compressed PTX of each module and the kept machine code of
/// `images/` that was assembled from exactly that PTX (`src/images.rs` includes it).
fn embed_images(manifest_dir: &Path, out_dir: &Path) {
    let images = manifest_dir.join("images");
    println!("cargo:rerun-if-changed={}", images.display());
    match tcgemm_build::images::embed(out_dir, &images) {
        Ok(e) => {
            for note in &e.notes {
                warn(note);
            }
            if let Err(err) =
                tcgemm_build::write_if_changed(&out_dir.join("images.rs"), e.source.as_bytes())
            {
                fail(&err.to_string());
            }
        }
        Err(e) => fail(&format!("embedding the kernel images: {e}")),
    }
}

/// `<target dir>/ptx`: the outer build's target directory is the nearest ancestor of `OUT_DIR` that
/// cargo marked with `CACHEDIR.TAG`, else `$CARGO_TARGET_DIR`, else `<manifest>/target`. The inner
/// cargo needs a directory of its own: the outer one holds the lock on the target directory.
fn inner_target_dir(manifest_dir: &Path, out_dir: &Path) -> PathBuf {
    if let Some(t) = out_dir
        .ancestors()
        .find(|a| a.join("CACHEDIR.TAG").is_file())
    {
        return t.join("ptx");
    }
    match env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        Some(t) => manifest_dir.join(t).join("ptx"),
        None => manifest_dir.join("target").join("ptx"),
    }
}
