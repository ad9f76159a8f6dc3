//! `cargo xtask gpu-bundle`: everything a GPU machine without Rust needs to run tcgemm's tests,
//! examples, benches and measuring tools.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tcgemm_build::{format_report, Target};

use crate::{cargo_messages, fresh_build, kept_path, reports, target_dir};

/// Largest bundle we accept, bytes.
const LIMIT: u64 = 48 << 20;

const RUN_SH: &str = include_str!("run.sh");

/// An executable cargo built: where it is and what to call it in the bundle.
struct Exe {
    kind: String,
    name: String,
    path: PathBuf,
    test: bool,
}

fn executables(messages: &[Value]) -> Vec<Exe> {
    messages
        .iter()
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| {
            let target = &m["target"];
            Some(Exe {
                kind: target["kind"][0].as_str().unwrap_or_default().to_string(),
                name: target["name"].as_str()?.to_string(),
                path: PathBuf::from(m["executable"].as_str()?),
                test: m["profile"]["test"].as_bool().unwrap_or(false),
            })
        })
        .collect()
}

/// Copies `src` to `dir/name` (a free variant of `name`) and strips it; returns the destination.
fn add(dir: &Path, name: &str, src: &Path, strip: Option<&Path>) -> Result<PathBuf, String> {
    let mut dest = dir.join(name);
    let mut n = 2;
    while dest.exists() {
        dest = dir.join(format!("{name}-{n}"));
        n += 1;
    }
    fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    fs::copy(src, &dest)
        .map_err(|e| format!("copy {} -> {}: {e}", src.display(), dest.display()))?;
    if let Some(strip) = strip {
        let ok = Command::new(strip)
            .arg("--strip-all")
            .arg(&dest)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "warning: `{} --strip-all {}` failed",
                strip.display(),
                dest.display()
            );
        }
    }
    Ok(dest)
}

/// Folders of binaries, packed into [`ARCHIVE`].
const BINARY_DIRS: [&str; 4] = ["tests", "examples", "benches", "tools"];

/// The one archive of every binary. Each binary embeds the same compressed kernel images
/// (about 8.6 MB) and much of the same code; a 256 MiB window (`dict=256MiB`, extreme preset 9)
/// stores what repeats once for the whole archive, where compressing each binary alone would
/// store it once per binary (the default `-9` window of 64 MiB spans about three binaries: the
/// bundle came to 48.5 MiB, over the limit, and to 31.7 MiB with the 256 MiB window). One
/// thread: xz's threads compress blocks of the archive apart, each storing the images again.
/// Packing needs about 2.7 GB of memory, unpacking 256 MiB. run.sh unpacks it.
const ARCHIVE: &str = "binaries.tar.xz";

/// Packs [`BINARY_DIRS`] of `out` into [`ARCHIVE`] and removes them.
fn pack_binaries(out: &Path) -> Result<(), String> {
    let dirs: Vec<&str> = BINARY_DIRS
        .into_iter()
        .filter(|d| out.join(d).is_dir())
        .collect();
    let ok = Command::new("tar")
        .current_dir(out)
        .env("XZ_OPT", "--lzma2=preset=9e,dict=256MiB -T1")
        .args(["--sort=name", "--owner=0", "--group=0", "-cJf", ARCHIVE])
        .args(&dirs)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(format!("tar -cJf {ARCHIVE} failed (needs tar and xz)"));
    }
    for d in dirs {
        fs::remove_dir_all(out.join(d)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `strip`, else the toolchain's `llvm-strip`.
fn find_strip() -> Option<PathBuf> {
    let on_path = |name: &str| {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|f| f.is_file())
        })
    };
    if let Some(s) = on_path("strip") {
        return Some(s);
    }
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    fs::read_dir(sysroot.join("lib/rustlib"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/llvm-strip"))
        .find(|p| p.is_file())
        .or_else(|| on_path("llvm-strip"))
}

fn dir_size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_size(&p)
                    } else {
                        e.metadata().map(|m| m.len()).unwrap_or(0)
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

fn command_line(program: &str, args: &[&str], root: &Path) -> String {
    Command::new(program)
        .args(args)
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Empties `out` for a new bundle (refusing a folder that is not one) and makes its folders.
fn prepare_out(out: &Path) -> Result<(), String> {
    if out.exists() {
        let is_bundle = out.join("run.sh").is_file()
            || fs::read_dir(out)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
        if !is_bundle {
            return Err(format!(
                "{} exists and is not a bundle (no run.sh); refusing to replace it",
                out.display()
            ));
        }
        fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    for d in ["tests", "benches", "examples", "tools", "ptx"] {
        fs::create_dir_all(out.join(d)).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(())
}

/// The PTX modules into `out/ptx`: a fresh build when the toolchain can, else the kept copies
/// (what the binaries embed). Returns where they came from.
fn bundle_ptx(root: &Path, out: &Path) -> Result<String, String> {
    match fresh_build(root, "bundle") {
        Ok(built) => {
            for (target, path) in built {
                fs::copy(&path, out.join("ptx").join(target.ptx_file()))
                    .map_err(|e| e.to_string())?;
            }
            Ok("built from source".to_string())
        }
        Err(e) => {
            eprintln!("warning: PTX build from source failed, bundling the kept ptx/: {e}");
            for t in Target::ALL {
                fs::copy(kept_path(root, t), out.join("ptx").join(t.ptx_file()))
                    .map_err(|e| format!("ptx/{}: {e}", t.ptx_file()))?;
            }
            Ok("kept copies from ptx/ (source build failed)".to_string())
        }
    }
}

/// Release builds of the test binaries and examples (`cargo test --no-run` builds both), the
/// criterion benches and the measuring tools (`crates/tcgemm-tools`), each into its folder.
fn bundle_binaries(root: &Path, out: &Path, strip: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let tests = cargo_messages(root, &["test", "--release", "--workspace", "--no-run"])?;
    for exe in executables(&tests) {
        if exe.test {
            let name = format!("{}-{}", exe.kind, exe.name);
            files.push(add(&out.join("tests"), &name, &exe.path, strip)?);
        } else if exe.kind == "example" {
            files.push(add(&out.join("examples"), &exe.name, &exe.path, strip)?);
        }
    }
    let benches = cargo_messages(root, &["bench", "--no-run"])?;
    for exe in executables(&benches).iter().filter(|e| e.kind == "bench") {
        files.push(add(&out.join("benches"), &exe.name, &exe.path, strip)?);
    }
    let tools = cargo_messages(
        root,
        &["build", "--release", "-p", "tcgemm-tools", "--bins"],
    )?;
    for exe in executables(&tools).iter().filter(|e| e.kind == "bin") {
        files.push(add(&out.join("tools"), &exe.name, &exe.path, strip)?);
    }
    // Examples built some other way (e.g. `cargo build --release --examples`), when they are
    // still examples of the tree (target/ keeps binaries of examples since removed or moved).
    if let Ok(rd) = fs::read_dir(target_dir(root).join("release/examples")) {
        let mut found: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| is_uplifted_executable(p))
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                root.join("examples").join(format!("{name}.rs")).is_file()
            })
            .collect();
        found.sort();
        for p in found {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if !out.join("examples").join(&name).exists() {
                files.push(add(&out.join("examples"), &name, &p, strip)?);
            }
        }
    }
    Ok(files)
}

/// The ptxas report of the bundled modules, then the modules compressed (run.sh ptxas reads
/// `.ptx.gz`).
fn bundle_ptxas_report(out: &Path) -> Result<(), String> {
    let report = match reports_of(out) {
        Ok(text) => text,
        Err(e) => format!("no ptxas report from the build machine: {e}\nrun `./run.sh ptxas` on the GPU machine\n"),
    };
    fs::write(out.join("ptxas-report.txt"), &report).map_err(|e| e.to_string())?;
    for t in Target::ALL {
        let ptx = out.join("ptx").join(t.ptx_file());
        let gz = Command::new("gzip").arg("-9n").arg(&ptx).status();
        if !gz.is_ok_and(|s| s.success()) {
            eprintln!("warning: gzip failed; {} stays uncompressed", ptx.display());
        }
    }
    Ok(())
}

/// `MANIFEST.txt`: the commit, the compiler, where the PTX came from, and every binary's size.
fn write_manifest(
    root: &Path,
    out: &Path,
    ptx_source: &str,
    files: &mut [PathBuf],
) -> Result<(), String> {
    let mut manifest = format!(
        "tcgemm GPU bundle\ncommit: {}{}\nrustc: {}\nPTX: {ptx_source}\n\nfiles (binaries packed in binaries.tar.xz; sizes unpacked):\n",
        command_line("git", &["rev-parse", "HEAD"], root),
        if command_line("git", &["status", "--porcelain"], root).is_empty() {
            ""
        } else {
            " (working tree modified)"
        },
        command_line("rustc", &["--version"], root),
    );
    files.sort();
    for f in files.iter() {
        let size = fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        let rel = f.strip_prefix(out).unwrap_or(f);
        manifest.push_str(&format!("  {:>10}  {}\n", size, rel.display()));
    }
    fs::write(out.join("MANIFEST.txt"), manifest).map_err(|e| e.to_string())
}

/// Builds the bundle in `out`: binaries, PTX, ptxas report, `run.sh`, `MANIFEST.txt`; fails
/// when it is over [`LIMIT`].
pub fn gpu_bundle(root: &Path, out: &Path) -> Result<(), String> {
    prepare_out(out)?;
    let strip = find_strip();
    if strip.is_none() {
        eprintln!("warning: neither strip nor llvm-strip found; binaries are not stripped");
    }
    let ptx_source = bundle_ptx(root, out)?;
    let mut files = bundle_binaries(root, out, strip.as_deref())?;
    bundle_ptxas_report(out)?;
    let run_sh = out.join("run.sh");
    fs::write(&run_sh, RUN_SH).map_err(|e| e.to_string())?;
    set_executable(&run_sh)?;
    write_manifest(root, out, &ptx_source, &mut files)?;
    pack_binaries(out)?;

    let size = dir_size(out);
    println!(
        "bundle: {} ({} binaries, PTX {ptx_source}), {:.1} MiB (limit {} MiB)",
        out.display(),
        files.len(),
        size as f64 / (1u64 << 20) as f64,
        LIMIT >> 20
    );
    if size > LIMIT {
        return Err(format!(
            "the bundle is {:.1} MiB, over the {} MiB limit",
            size as f64 / (1u64 << 20) as f64,
            LIMIT >> 20
        ));
    }
    println!(
        "run on the GPU machine: {}/run.sh [tests|sanitize|example|tool|bench|reliability|ptxas|all|list]",
        out.display()
    );
    Ok(())
}

/// The ptxas report of the modules in `bundle/ptx`.
fn reports_of(out: &Path) -> Result<String, String> {
    let modules: Vec<(Target, PathBuf)> = Target::ALL
        .iter()
        .map(|&t| (t, out.join("ptx").join(t.ptx_file())))
        .collect();
    Ok(format_report(&reports(&modules)?))
}

/// An example binary cargo uplifted (`gemm_demo`, not `gemm_demo-<hash>` or `.d` files).
fn is_uplifted_executable(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if name.contains('-') || name.contains('.') || !p.is_file() {
        return false;
    }
    is_executable(p)
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    true
}

#[cfg(unix)]
fn set_executable(p: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> Result<(), String> {
    Ok(())
}
