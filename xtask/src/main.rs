//! `cargo xtask <command>`: tcgemm's developer tasks (see `cargo xtask help`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use serde_json::Value;
use tcgemm_build::{
    build_ptx, entry_names, find_ptxas, format_report, ptxas_reports, write_if_changed,
    BuildOptions, KernelReport, Target,
};

mod bundle;
mod images;
mod ptx_diff;

const HELP: &str = "\
usage: cargo xtask <command>

commands:
  ptx                     build the PTX modules from source and update the kept copies in ptx/
  ptx-check               build from source and fail when the result differs from ptx/
  ptx-report [--kept]     ptxas -v figures per kernel (registers, spills, stack, shared memory) of a
                          fresh build (or of ptx/ with --kept); fails when anything spills or has a stack frame
                          (beyond SPILLS_ALLOWED) or ptxas serialized its wgmma
  images                  assemble the kept PTX with the pinned ptxas for every shipped architecture
                          and update the kept machine code in images/
  images-check            fail when images/ differs from what the pinned ptxas makes of ptx/
  ptx-diff DIR [--allow NAME|PREFIX*]...
                          compare the kept ptx/ with the copies in DIR kernel by kernel (`identical` or
                          `differs` per kernel); fails when a kernel differs that no --allow names
  tune [ARGS...]          on a GPU machine: time every kernel dispatch's model ranks on a grid of
                          shapes and write the fitted rates to src/dispatch/rates.rs and the
                          measurements to docs/tune.md (ARGS: the tool's, e.g. --device 1)
  gpu-bundle [--out DIR]  release test, example, bench and tool binaries + PTX + ptxas report + run.sh
                          in DIR (default: bundle/), for a GPU machine without Rust
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args.first().map(String::as_str) {
        Some("ptx") if args.len() == 1 => cmd_ptx(&root),
        Some("ptx-check") if args.len() == 1 => cmd_ptx_check(&root),
        Some("ptx-report") => match &args[1..] {
            [] => cmd_ptx_report(&root, false),
            [k] if k == "--kept" => cmd_ptx_report(&root, true),
            _ => Err(format!("unexpected arguments {:?}\n{HELP}", &args[1..])),
        },
        Some("images") if args.len() == 1 => images::cmd_images(&root),
        Some("images-check") if args.len() == 1 => images::cmd_images_check(&root),
        Some("ptx-diff") => match &args[1..] {
            [dir, rest @ ..]
                if rest.len() % 2 == 0 && rest.iter().step_by(2).all(|a| a == "--allow") =>
            {
                let allow: Vec<String> = rest.iter().skip(1).step_by(2).cloned().collect();
                ptx_diff::ptx_diff(&root, &absolute(&root, dir), &allow)
            }
            _ => Err(format!("unexpected arguments {:?}\n{HELP}", &args[1..])),
        },
        Some("gpu-bundle") => match &args[1..] {
            [] => bundle::gpu_bundle(&root, &root.join("bundle")),
            [o, dir] if o == "--out" => bundle::gpu_bundle(&root, &absolute(&root, dir)),
            _ => Err(format!("unexpected arguments {:?}\n{HELP}", &args[1..])),
        },
        Some("tune") => cmd_tune(&root, &args[1..]),
        Some("help" | "-h" | "--help") => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n{HELP}")),
        None => Err(HELP.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask tune`: the `tune` tool (crates/tcgemm-tools), built in release, writing the table
/// dispatch reads and its measurements into the repository.
fn cmd_tune(root: &Path, args: &[String]) -> Result<(), String> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args([
            "run",
            "--release",
            "-p",
            "tcgemm-tools",
            "--bin",
            "tune",
            "--",
        ])
        .arg("--table")
        .arg(root.join("src/dispatch/rates.rs"))
        .arg("--log")
        .arg(root.join("docs/tune.md"))
        .args(args)
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if status.success() {
        println!("wrote src/dispatch/rates.rs and docs/tune.md: rebuild to dispatch with them");
        Ok(())
    } else {
        Err(format!("tune failed ({status})"))
    }
}

/// The repository root (the parent of `xtask/`).
fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

fn absolute(root: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| root.to_path_buf())
            .join(p)
    }
}

/// The workspace's target directory (`$CARGO_TARGET_DIR` or `target/`).
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        Some(d) => root.join(d), // `join` keeps an absolute path as is
        None => root.join("target"),
    }
}

/// Builds every module from source into `target/ptx/<subdir>`.
fn fresh_build(root: &Path, subdir: &str) -> Result<Vec<(Target, PathBuf)>, String> {
    let mut opts = BuildOptions::for_workspace(root, &target_dir(root).join("ptx").join(subdir));
    opts.target_dir = target_dir(root).join("ptx");
    build_ptx(&opts).map_err(|e| e.to_string())
}

fn kept_path(root: &Path, target: Target) -> PathBuf {
    root.join("ptx").join(target.ptx_file())
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn cmd_ptx(root: &Path) -> Result<(), String> {
    let built = fresh_build(root, "out")?;
    fs::create_dir_all(root.join("ptx")).map_err(|e| e.to_string())?;
    for (target, path) in built {
        let text = read(&path)?;
        let kept = kept_path(root, target);
        let changed = write_if_changed(&kept, text.as_bytes()).map_err(|e| e.to_string())?;
        println!(
            "ptx/{}: {} kernels, {} bytes ({})",
            target.ptx_file(),
            entry_names(&text).len(),
            text.len(),
            if changed { "updated" } else { "unchanged" }
        );
    }
    Ok(())
}

fn cmd_ptx_check(root: &Path) -> Result<(), String> {
    let built = fresh_build(root, "check")?;
    let mut stale = Vec::new();
    for (target, path) in built {
        let fresh = read(&path)?;
        let kept_file = kept_path(root, target);
        let kept = fs::read_to_string(&kept_file).unwrap_or_default();
        if kept == fresh {
            println!("ptx/{}: up to date", target.ptx_file());
        } else if !kept_file.exists() {
            println!("ptx/{}: MISSING (no kept copy)", target.ptx_file());
            stale.push(target.ptx_file());
        } else {
            println!("ptx/{}: DIFFERS from a fresh build", target.ptx_file());
            print!("{}", diff_summary(&kept, &fresh));
            stale.push(target.ptx_file());
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "kept PTX is stale or missing ({}); run `cargo xtask ptx` and commit ptx/",
            stale.join(", ")
        ))
    }
}

/// A short account of how `kept` and `fresh` differ: kernels added/removed, the changed line range.
fn diff_summary(kept: &str, fresh: &str) -> String {
    let mut s = String::new();
    let (ek, ef) = (entry_names(kept), entry_names(fresh));
    let added: Vec<&String> = ef.iter().filter(|e| !ek.contains(e)).collect();
    let removed: Vec<&String> = ek.iter().filter(|e| !ef.contains(e)).collect();
    if !added.is_empty() {
        s.push_str(&format!("  kernels only in the fresh build: {added:?}\n"));
    }
    if !removed.is_empty() {
        s.push_str(&format!("  kernels only in the kept copy: {removed:?}\n"));
    }
    if let Some(d) = unified_diff(kept, fresh) {
        let (minus, plus) = d.lines().fold((0, 0), |(m, p), l| {
            if l.starts_with('-') && !l.starts_with("---") {
                (m + 1, p)
            } else if l.starts_with('+') && !l.starts_with("+++") {
                (m, p + 1)
            } else {
                (m, p)
            }
        });
        let hunks = d.lines().filter(|l| l.starts_with("@@")).count();
        s.push_str(&format!(
            "  {hunks} hunks: {minus} lines only in the kept copy, {plus} only in the fresh build; first lines of `diff -u kept fresh`:\n"
        ));
        for l in d.lines().skip(2).take(30) {
            s.push_str(&format!("  {l}\n"));
        }
        return s;
    }
    // No `diff` program: the changed span between the common prefix and suffix.
    let (a, b): (Vec<&str>, Vec<&str>) = (kept.lines().collect(), fresh.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    s.push_str(&format!(
        "  kept {} lines, fresh {} lines; they differ from line {} to {} lines before the end\n",
        a.len(),
        b.len(),
        prefix + 1,
        suffix
    ));
    s
}

/// `diff -u` of two texts, when a `diff` program is available.
fn unified_diff(kept: &str, fresh: &str) -> Option<String> {
    let dir = std::env::temp_dir().join(format!("tcgemm-ptx-check-{}", std::process::id()));
    fs::create_dir_all(&dir).ok()?;
    let (k, f) = (dir.join("kept.ptx"), dir.join("fresh.ptx"));
    let out = fs::write(&k, kept)
        .and_then(|()| fs::write(&f, fresh))
        .and_then(|()| Command::new("diff").arg("-u").arg(&k).arg(&f).output());
    let _ = fs::remove_dir_all(&dir);
    let out = out.ok()?;
    // diff exits 1 when the files differ, 2 on trouble.
    (out.status.code() == Some(1)).then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The ptxas reports of `modules`.
fn reports(modules: &[(Target, PathBuf)]) -> Result<Vec<KernelReport>, String> {
    let ptxas = find_ptxas().ok_or(
        "ptxas not found: set PTXAS, install CUDA, or `python3 -m pip install nvidia-cuda-nvcc-cu12`",
    )?;
    let mut all = Vec::new();
    for (target, path) in modules {
        all.extend(ptxas_reports(&ptxas, path, *target).map_err(|e| e.to_string())?);
    }
    Ok(all)
}

fn cmd_ptx_report(root: &Path, kept: bool) -> Result<(), String> {
    let modules: Vec<(Target, PathBuf)> = if kept {
        Target::ALL
            .iter()
            .map(|&t| (t, kept_path(root, t)))
            .collect()
    } else {
        fresh_build(root, "report")?
    };
    let all = reports(&modules)?;
    print!("{}", format_report(&all));
    let bad: Vec<String> = all
        .iter()
        .filter(|r| !r.is_accepted())
        .map(|r| format!("{} ({})", r.name, r.sm))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "spills, stack frames or serialized wgmma in: {}",
            bad.join(", ")
        ))
    }
}

/// Runs `cargo ARGS --message-format=json-render-diagnostics` in `root` and returns its JSON messages.
fn cargo_messages(root: &Path, args: &[&str]) -> Result<Vec<Value>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(args)
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}
