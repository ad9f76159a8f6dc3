//! Builds `tcgemm-kernels` to PTX with rustc's NVPTX backend and the toolchain's `llvm-tools`, and reads
//! `ptxas` resource reports. Used by tcgemm's `build.rs` and by `cargo xtask`.
//!
//! Per [`Target`] (one PTX module each), [`build_ptx`]:
//! 1. runs `cargo build` of the kernels crate for `nvptx64-nvidia-cuda` with `-Zbuild-std=core`,
//!    `-C target-cpu=<cpu>`, `panic = "abort"`, `codegen-units = 1`, `opt-level = 3` (a `ptx` profile
//!    given with `--config`, so the workspace's own profiles are untouched), in its own target directory
//!    and with the outer cargo's environment (RUSTFLAGS, CARGO_TARGET_DIR, ...) cleared;
//! 2. links the crate's bitcode with the needed parts of `core`/`compiler_builtins` (`llvm-link`),
//!    keeps only the target's kernels (`KernelSpec::built_in`) visible (`opt` internalize + globaldce + O3) and
//!    emits PTX (`llc -mcpu=<cpu>`);
//! 3. writes `.maxntid`/`.minnctapersm` from the table after each entry, numbers rustc's mangling
//!    hashes (so the output does not depend on paths), drops llc's `// begin/end inline asm` comment
//!    lines, and checks that every listed kernel is there.
//!
//! The library itself builds on stable Rust: only the PTX build needs the pinned nightly.

#![deny(missing_docs)]

mod cargo;
pub mod images;
mod module;
mod postprocess;
pub mod ptxas;
pub mod spills;
mod toolchain;

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

pub use postprocess::{
    add_launch_bounds, entry_names, normalize_symbols, split_entries, EntryTexts,
};
pub use ptxas::{find_ptxas, format_report, ptxas_reports, KernelReport, PtxasError};
pub use tcgemm_kernels::config::{KernelSpec, Target, KERNELS};
pub use toolchain::{parse_channel, pinned_channel, RustcVersion};

/// The rustc target of the device code.
pub const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";

/// LLVM options given to rustc (`-C llvm-args`) and to `opt` by default. The high unroll threshold
/// fully unrolls the loops over per-thread register tiles, so accumulator arrays become registers
/// instead of a local-memory stack frame.
pub const DEFAULT_LLVM_ARGS: &[&str] = &["-unroll-threshold=4000"];

/// Settings of one [`build_ptx`] run.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// `Cargo.toml` of the kernels crate.
    pub kernels_manifest: PathBuf,
    /// Target directory of the inner cargo (one subdirectory per target CPU), e.g. `<workspace>/target/ptx`.
    pub target_dir: PathBuf,
    /// Where the finished modules are written, as [`Target::ptx_file`].
    pub out_dir: PathBuf,
    /// Modules to build.
    pub targets: Vec<Target>,
    /// The kernel table (normally [`KERNELS`]).
    pub kernels: Vec<KernelSpec>,
    /// `cargo` to run (default: `$CARGO`, else `cargo`).
    pub cargo: PathBuf,
    /// `rustc` the inner cargo uses (default: `$RUSTC`, else `rustc`).
    pub rustc: PathBuf,
    /// LLVM options for rustc (`-C llvm-args`) and `opt` (default: [`DEFAULT_LLVM_ARGS`]).
    pub llvm_args: Vec<String>,
    /// The pinned toolchain channel, for error messages (from `rust-toolchain.toml`).
    pub channel: Option<String>,
    /// Capture the inner cargo's output (reported on failure) instead of showing it.
    pub quiet: bool,
}

impl BuildOptions {
    /// Options for the tcgemm workspace at `workspace_root`: the kernels crate at
    /// `crates/tcgemm-kernels`, inner target directory `<workspace_root>/target/ptx`, every target,
    /// [`KERNELS`], the channel of `rust-toolchain.toml`.
    pub fn for_workspace(workspace_root: &Path, out_dir: &Path) -> BuildOptions {
        let env_path = |var: &str, default: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(default))
        };
        BuildOptions {
            kernels_manifest: workspace_root.join("crates/tcgemm-kernels/Cargo.toml"),
            target_dir: workspace_root.join("target").join("ptx"),
            out_dir: out_dir.to_path_buf(),
            targets: Target::ALL.to_vec(),
            kernels: KERNELS.to_vec(),
            cargo: env_path("CARGO", "cargo"),
            rustc: env_path("RUSTC", "rustc"),
            llvm_args: DEFAULT_LLVM_ARGS.iter().map(|s| s.to_string()).collect(),
            channel: pinned_channel(workspace_root),
            quiet: false,
        }
    }

    /// The command that installs what the PTX build needs.
    pub fn install_hint(&self) -> String {
        let channel = self
            .channel
            .clone()
            .unwrap_or_else(|| "nightly".to_string());
        format!("rustup component add rust-src llvm-tools --toolchain {channel}")
    }
}

/// Why a PTX build failed.
#[derive(Debug)]
pub enum BuildError {
    /// The compiler is not a nightly (`-Zbuild-std` needs one).
    NotNightly {
        /// `rustc -vV`'s first line, or why it could not be read.
        rustc: String,
        /// What to run.
        hint: String,
    },
    /// A toolchain component is not installed.
    MissingComponent {
        /// `rust-src` or `llvm-tools`.
        component: &'static str,
        /// The file that was looked for.
        looked_for: PathBuf,
        /// What to run.
        hint: String,
    },
    /// A program could not be started.
    Spawn {
        /// The program.
        program: PathBuf,
        /// The OS error.
        error: io::Error,
    },
    /// A program failed.
    Failed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: ExitStatus,
        /// Its captured output (empty when it was shown directly).
        output: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        error: io::Error,
    },
    /// Cargo's messages did not name an expected build output.
    MissingArtifact(String),
    /// The source defines kernels the table does not list.
    UnlistedKernels(Vec<String>),
    /// A kernel listed for the target is not in the built module.
    MissingKernel {
        /// The module.
        target: Target,
        /// The kernel.
        name: String,
    },
    /// The module calls functions nothing defines.
    Unresolved {
        /// The module.
        target: Target,
        /// The functions.
        symbols: Vec<String>,
    },
    /// Post-processing found something it cannot handle.
    Ptx {
        /// The module.
        target: Target,
        /// What.
        message: String,
    },
}

impl BuildError {
    /// The toolchain cannot build PTX at all (not a nightly, or a component missing), as opposed to
    /// a failure of the build itself.
    pub fn is_toolchain_problem(&self) -> bool {
        matches!(
            self,
            BuildError::NotNightly { .. } | BuildError::MissingComponent { .. }
        )
    }
}

/// The last `n` lines of `s`.
fn tail(s: &str, n: usize) -> &str {
    let mut idx = s.len();
    for _ in 0..n {
        match s[..idx].trim_end_matches('\n').rfind('\n') {
            Some(p) => idx = p,
            None => return s,
        }
    }
    &s[idx + 1..]
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NotNightly { rustc, hint } => write!(
                f,
                "building PTX needs the pinned nightly toolchain (for -Zbuild-std), but the compiler is `{rustc}`; {hint}"
            ),
            BuildError::MissingComponent {
                component,
                looked_for,
                hint,
            } => write!(
                f,
                "the toolchain component `{component}` is not installed (no `{}`); run `{hint}`",
                looked_for.display()
            ),
            BuildError::Spawn { program, error } => {
                write!(f, "cannot run `{}`: {error}", program.display())
            }
            BuildError::Failed {
                command,
                status,
                output,
            } => {
                write!(f, "`{command}` failed ({status})")?;
                if !output.trim().is_empty() {
                    write!(f, ":\n{}", tail(output, 60).trim_end())?;
                }
                Ok(())
            }
            BuildError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            BuildError::MissingArtifact(what) => {
                write!(f, "cargo's build messages do not name {what}")
            }
            BuildError::UnlistedKernels(names) => write!(
                f,
                "the kernels crate defines kernels that tcgemm_kernels::config::KERNELS does not list \
                 (declare every kernel by a line of tcgemm_kernels::catalog, not by hand): {}",
                names.join(", ")
            ),
            BuildError::MissingKernel { target, name } => write!(
                f,
                "kernel `{name}` is listed in tcgemm_kernels::config::KERNELS for {} but the {} build does \
                 not export it as an `extern \"ptx-kernel\"` function (does its family's entry macro in \
                 tcgemm_kernels::kernels gate it with the wrong cfg?)",
                target.cpu(),
                target.cpu()
            ),
            BuildError::Unresolved { target, symbols } => write!(
                f,
                "the {} module calls functions nothing defines: {}",
                target.cpu(),
                symbols.join(", ")
            ),
            BuildError::Ptx { target, message } => {
                write!(f, "post-processing the {} module: {message}", target.cpu())
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Spawn { error, .. } | BuildError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> BuildError + '_ {
    move |error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Runs `cmd`, returning its stdout; on failure the error carries its stderr (when captured).
fn run(cmd: &mut Command, capture_stderr: bool) -> Result<String, BuildError> {
    let program = PathBuf::from(cmd.get_program());
    cmd.stdout(Stdio::piped());
    cmd.stderr(if capture_stderr {
        Stdio::piped()
    } else {
        Stdio::inherit()
    });
    let out = cmd.output().map_err(|error| BuildError::Spawn {
        program: program.clone(),
        error,
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(BuildError::Failed {
            command: describe(cmd),
            status: out.status,
            output: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(stdout)
}

fn describe(cmd: &Command) -> String {
    let mut s = Path::new(cmd.get_program())
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

struct Tools {
    link: PathBuf,
    opt: PathBuf,
    llc: PathBuf,
    ar: PathBuf,
    dis: PathBuf,
    nm: PathBuf,
    version: RustcVersion,
}

/// Checks the compiler is a nightly with `rust-src` and `llvm-tools`, and locates the LLVM tools.
fn check_toolchain(opts: &BuildOptions) -> Result<Tools, BuildError> {
    let hint = opts.install_hint();
    let version = RustcVersion::query(&opts.rustc).ok_or_else(|| BuildError::NotNightly {
        rustc: format!("{} (`-vV` failed)", opts.rustc.display()),
        hint: "install the pinned toolchain with `rustup toolchain install` in the repository"
            .into(),
    })?;
    if !version.is_nightly() {
        return Err(BuildError::NotNightly {
            rustc: version.summary,
            hint: match &opts.channel {
                Some(c) => format!("use `cargo +{c}` or run cargo inside the repository (rust-toolchain.toml) after `rustup toolchain install`"),
                None => "use a nightly toolchain".into(),
            },
        });
    }
    let mut sysroot_cmd = Command::new(&opts.rustc);
    sysroot_cmd.args(["--print", "sysroot"]);
    let sysroot = PathBuf::from(run(&mut sysroot_cmd, true)?.trim());
    let core_src = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if !core_src.is_file() {
        return Err(BuildError::MissingComponent {
            component: "rust-src",
            looked_for: core_src,
            hint,
        });
    }
    let bin = sysroot.join("lib/rustlib").join(&version.host).join("bin");
    let tool = |name: &str| -> Result<PathBuf, BuildError> {
        let p = bin.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        if p.is_file() {
            Ok(p)
        } else {
            Err(BuildError::MissingComponent {
                component: "llvm-tools",
                looked_for: p,
                hint: hint.clone(),
            })
        }
    };
    Ok(Tools {
        link: tool("llvm-link")?,
        opt: tool("opt")?,
        llc: tool("llc")?,
        ar: tool("llvm-ar")?,
        dis: tool("llvm-dis")?,
        nm: tool("llvm-nm")?,
        version,
    })
}

/// Builds the PTX modules of `opts.targets` into `opts.out_dir` (see the crate docs) and returns the
/// written files. The output is deterministic: the same sources and toolchain give the same bytes.
pub fn build_ptx(opts: &BuildOptions) -> Result<Vec<(Target, PathBuf)>, BuildError> {
    let tools = check_toolchain(opts)?;
    fs::create_dir_all(&opts.out_dir).map_err(io_err(&opts.out_dir))?;
    let mut written = Vec::new();
    for &target in &opts.targets {
        // A private scratch directory: concurrent builds (debug and release build scripts) never share.
        let work =
            opts.target_dir
                .join("link")
                .join(format!("{}-{}", target.cpu(), std::process::id()));
        let _ = fs::remove_dir_all(&work);
        fs::create_dir_all(&work).map_err(io_err(&work))?;
        let result = module::build_module(opts, &tools, target, &work);
        let _ = fs::remove_dir_all(&work);
        let ptx = result?;
        let path = opts.out_dir.join(target.ptx_file());
        write_if_changed(&path, ptx.as_bytes())?;
        written.push((target, path));
    }
    Ok(written)
}

/// Writes `bytes` to `path` unless it already holds them (keeps mtimes, so nothing downstream
/// rebuilds needlessly); writes through a temporary file and a rename.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, BuildError> {
    if fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(false);
    }
    let mut tmp = OsString::from(path.as_os_str());
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_hint_names_the_pinned_channel() {
        let mut o = BuildOptions::for_workspace(Path::new("/nonexistent"), Path::new("/tmp"));
        assert_eq!(
            o.install_hint(),
            "rustup component add rust-src llvm-tools --toolchain nightly"
        );
        o.channel = Some("nightly-2026-05-20".into());
        assert_eq!(
            o.install_hint(),
            "rustup component add rust-src llvm-tools --toolchain nightly-2026-05-20"
        );
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(tail("a\nb", 5), "a\nb");
    }

    #[test]
    fn missing_component_error_names_the_command() {
        let e = BuildError::MissingComponent {
            component: "rust-src",
            looked_for: PathBuf::from("/x"),
            hint: "rustup component add rust-src llvm-tools --toolchain nightly-2026-05-20".into(),
        };
        assert!(e.is_toolchain_problem());
        assert!(e.to_string().contains(
            "run `rustup component add rust-src llvm-tools --toolchain nightly-2026-05-20`"
        ));
    }
}
