//! Finding `ptxas`, running it on a PTX module and reading its `-v` resource report, for every
//! architecture tcgemm ships machine code of that module for
//! ([`tcgemm_kernels::machine_code::machine_code`]): ptxas allocates registers per architecture, so
//! a kernel clean for `sm_80` may spill in the `sm_86` or `sm_90` code of the same PTX (the copy
//! kernels did, in the `sm_90` code an H200 runs).
//!
//! This file depends only on `std`, `tcgemm_kernels` and its sibling `spills.rs` (the kernels
//! allowed to spill), so the host crate's `tests/ptxas_report.rs` includes both with `#[path]`
//! instead of taking a dev-dependency on the builder.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use tcgemm_kernels::config::{find_kernel, Target};
use tcgemm_kernels::machine_code::{machine_code, Sm};

use super::spills::SPILLS_ALLOWED;

/// Resources `ptxas -v` reports for one function of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    /// PTX symbol.
    pub name: String,
    /// Module the function belongs to.
    pub target: Target,
    /// The architecture `ptxas` assembled it for (one of the module's
    /// [`machine_code`] architectures).
    pub sm: Sm,
    /// `true` for a kernel (`.entry`), `false` for a device function (`.func`) kept by the compiler.
    pub entry: bool,
    /// Registers per thread (reported for entries only).
    pub registers: u32,
    /// Bytes of spill stores.
    pub spill_stores: u32,
    /// Bytes of spill loads.
    pub spill_loads: u32,
    /// Bytes of stack frame (local memory: arrays not kept in registers, call frames).
    pub stack_frame: u32,
    /// Bytes of static shared memory (dynamic shared memory is sized at launch and not counted).
    pub shared_bytes: u32,
    /// ptxas serialized the function's `wgmma`s (its "Potential Performance Loss: wgmma.mma_async
    /// instructions are serialized" note, C75xx): each waits for the one before, whatever the
    /// source's pipelining. Never accepted.
    pub serialized_wgmma: bool,
}

impl KernelReport {
    /// Neither spills nor a stack frame nor serialized `wgmma`s.
    pub fn is_clean(&self) -> bool {
        self.spill_stores == 0
            && self.spill_loads == 0
            && self.stack_frame == 0
            && !self.serialized_wgmma
    }

    /// Clean, or a kernel of [`SPILLS_ALLOWED`] within its bytes (and `wgmma`s not serialized):
    /// what `cargo xtask ptx-report` and the ptxas test accept.
    pub fn is_accepted(&self) -> bool {
        if self.serialized_wgmma {
            return false;
        }
        let spec = find_kernel(&self.name);
        self.is_clean()
            || SPILLS_ALLOWED.iter().any(|a| {
                spec.is_some_and(a.kernel)
                    && [self.spill_stores, self.spill_loads, self.stack_frame]
                        .iter()
                        .all(|&b| b <= a.max_bytes)
            })
    }
}

/// Why running `ptxas` gave no report.
#[derive(Debug)]
pub enum PtxasError {
    /// `ptxas` could not be started.
    Spawn {
        /// The program.
        ptxas: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// `ptxas` rejected the module.
    Failed {
        /// The module.
        ptx: PathBuf,
        /// `ptxas`'s own messages.
        output: String,
    },
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::Spawn { ptxas, error } => {
                write!(f, "cannot run ptxas `{}`: {error}", ptxas.display())
            }
            PtxasError::Failed { ptx, output } => {
                write!(
                    f,
                    "ptxas rejected `{}`:\n{}",
                    ptx.display(),
                    output.trim_end()
                )
            }
        }
    }
}

impl std::error::Error for PtxasError {}

/// Finds `ptxas`: `$PTXAS`, `$CUDA_HOME/bin/ptxas`, `$CUDA_PATH/bin/ptxas`, `/usr/local/cuda/bin/ptxas`,
/// `PATH`, then the Python wheel `nvidia-cuda-nvcc-cu12` (`site-packages/nvidia/cuda_nvcc/bin/ptxas`).
pub fn find_ptxas() -> Option<PathBuf> {
    let exe = format!("ptxas{}", std::env::consts::EXE_SUFFIX);
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PTXAS").filter(|p| !p.is_empty()) {
        candidates.push(PathBuf::from(p));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            candidates.push(Path::new(&home).join("bin").join(&exe));
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin").join(&exe));
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join(&exe)));
    }
    if let Some(found) = candidates.into_iter().find(|p| p.is_file()) {
        return Some(found);
    }
    // `nvidia` is a namespace package: `nvidia.cuda_nvcc.__file__` is None, its `__path__` is not.
    const SCRIPT: &str =
        "import os, nvidia\nfor p in nvidia.__path__: print(os.path.join(p, 'cuda_nvcc', 'bin'))";
    for python in ["python3", "python"] {
        let Ok(out) = Command::new(python).args(["-c", SCRIPT]).output() else {
            continue;
        };
        if !out.status.success() {
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        if let Some(found) = text
            .lines()
            .map(|dir| Path::new(dir.trim()).join(&exe))
            .find(|p| p.is_file())
        {
            return Some(found);
        }
    }
    None
}

/// The reports of module `target` at `ptx` for every architecture tcgemm ships its machine code for
/// ([`machine_code`]), assembled in parallel: [`ptxas_report`] per architecture, in
/// [`machine_code`]'s order.
pub fn ptxas_reports(
    ptxas: &Path,
    ptx: &Path,
    target: Target,
) -> Result<Vec<KernelReport>, PtxasError> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = machine_code(target)
            .iter()
            .map(|&sm| scope.spawn(move || ptxas_report(ptxas, ptx, target, sm)))
            .collect();
        let mut all = Vec::new();
        for run in runs {
            all.extend(run.join().expect("a ptxas thread panicked")?);
        }
        Ok(all)
    })
}

/// Assembles `ptx` (module `target`) with `ptxas -arch=<sm> -v` and returns the report of every
/// function in it, entries first, each group sorted by name.
pub fn ptxas_report(
    ptxas: &Path,
    ptx: &Path,
    target: Target,
    sm: Sm,
) -> Result<Vec<KernelReport>, PtxasError> {
    let sink = if cfg!(unix) {
        PathBuf::from("/dev/null")
    } else {
        std::env::temp_dir().join(format!("tcgemm-ptxas-{}-{sm}.cubin", std::process::id()))
    };
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-v")
        .arg(ptx)
        .arg("-o")
        .arg(&sink)
        .output()
        .map_err(|error| PtxasError::Spawn {
            ptxas: ptxas.to_path_buf(),
            error,
        })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(PtxasError::Failed {
            ptx: ptx.to_path_buf(),
            output: text,
        });
    }
    Ok(parse_ptxas_output(&text, target, sm))
}

/// First unsigned integer in `s`.
fn leading_number(s: &str) -> Option<u32> {
    let digits: String = s
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The number in front of `unit` in a comma-separated `ptxas` line (`"12 bytes spill stores"`).
fn field(line: &str, unit: &str) -> Option<u32> {
    line.split(',')
        .map(str::trim)
        .find_map(|part| part.strip_suffix(unit).and_then(leading_number))
}

/// Parses the text `ptxas -v` prints for module `target` assembled for `sm` (see [`ptxas_report`]).
pub fn parse_ptxas_output(text: &str, target: Target, sm: Sm) -> Vec<KernelReport> {
    let mut reports: Vec<KernelReport> = Vec::new();
    fn slot<'a>(
        reports: &'a mut Vec<KernelReport>,
        name: &str,
        target: Target,
        sm: Sm,
    ) -> &'a mut KernelReport {
        let i = match reports.iter().position(|r| r.name == name) {
            Some(i) => i,
            None => {
                reports.push(KernelReport {
                    name: name.to_string(),
                    target,
                    sm,
                    entry: false,
                    registers: 0,
                    spill_stores: 0,
                    spill_loads: 0,
                    stack_frame: 0,
                    shared_bytes: 0,
                    serialized_wgmma: false,
                });
                reports.len() - 1
            }
        };
        &mut reports[i]
    }
    let mut entry: Option<String> = None; // last "Compiling entry function"
    let mut props: Option<String> = None; // last "Function properties for"
    for line in text.lines() {
        let body = line
            .split_once("ptxas info")
            .map(|(_, rest)| rest.trim_start().trim_start_matches(':').trim())
            .unwrap_or_else(|| line.trim());
        if body.contains("wgmma.mma_async instructions are serialized") {
            // "(C7520) Potential Performance Loss: ... in the function 'NAME'"
            if let Some((_, rest)) = body.rsplit_once("in the function '") {
                if let Some((name, _)) = rest.split_once('\'') {
                    slot(&mut reports, name, target, sm).serialized_wgmma = true;
                }
            }
        } else if let Some(rest) = body.strip_prefix("Compiling entry function '") {
            if let Some((name, _)) = rest.split_once('\'') {
                slot(&mut reports, name, target, sm).entry = true;
                entry = Some(name.to_string());
            }
        } else if let Some(name) = body.strip_prefix("Function properties for ") {
            props = Some(name.trim().to_string());
        } else if body.contains("bytes stack frame") {
            if let Some(name) = props.take() {
                let r = slot(&mut reports, &name, target, sm);
                // A function is reported once per caller; keep the largest figures.
                r.stack_frame = r
                    .stack_frame
                    .max(field(body, "bytes stack frame").unwrap_or(0));
                r.spill_stores = r
                    .spill_stores
                    .max(field(body, "bytes spill stores").unwrap_or(0));
                r.spill_loads = r
                    .spill_loads
                    .max(field(body, "bytes spill loads").unwrap_or(0));
            }
        } else if let Some(rest) = body.strip_prefix("Used ") {
            if let Some(name) = entry.as_deref() {
                let r = slot(&mut reports, name, target, sm);
                r.registers = leading_number(rest).unwrap_or(0);
                r.shared_bytes = field(body, "bytes smem").unwrap_or(0);
            }
        }
    }
    // Entries first, then functions, each by name (ptxas prints entries in no useful order).
    reports.sort_by(|a, b| (!a.entry, &a.name).cmp(&(!b.entry, &b.name)));
    reports
}

/// Formats reports as a fixed-width table, one row per function, with a closing verdict line.
pub fn format_report(reports: &[KernelReport]) -> String {
    let name_w = reports
        .iter()
        .map(|r| r.name.len())
        .chain(["kernel".len()])
        .max()
        .unwrap_or(6);
    let mut s = format!(
        "{:<name_w$}  {:<6}  {:<6}  {:<5}  {:>4}  {:>11}  {:>10}  {:>11}  {:>11}\n",
        "kernel",
        "module",
        "arch",
        "kind",
        "regs",
        "spill st(B)",
        "spill ld(B)",
        "stack(B)",
        "static smem"
    );
    for r in reports {
        s.push_str(&format!(
            "{:<name_w$}  {:<6}  {:<6}  {:<5}  {:>4}  {:>11}  {:>10}  {:>11}  {:>11}{}\n",
            r.name,
            r.target.cpu(),
            r.sm.to_string(),
            if r.entry { "entry" } else { "func" },
            if r.entry {
                r.registers.to_string()
            } else {
                "-".to_string()
            },
            r.spill_stores,
            r.spill_loads,
            r.stack_frame,
            r.shared_bytes,
            if r.is_clean() {
                ""
            } else if r.serialized_wgmma {
                "  <-- wgmma serialized"
            } else if r.is_accepted() {
                "  (spills allowed: SPILLS_ALLOWED)"
            } else {
                "  <-- spills/stack"
            }
        ));
    }
    let spills = |r: &&KernelReport| r.spill_stores + r.spill_loads + r.stack_frame > 0;
    let bad = reports.iter().filter(spills).count();
    let allowed = reports
        .iter()
        .filter(|r| spills(r) && r.is_accepted())
        .count();
    // an entry is reported once per architecture: count kernels by name, and their builds
    let entries = reports.iter().filter(|r| r.entry).count();
    let kernels = reports
        .iter()
        .filter(|r| r.entry)
        .map(|r| r.name.as_str())
        .collect::<BTreeSet<_>>()
        .len();
    let archs = reports
        .iter()
        .map(|r| r.sm)
        .collect::<BTreeSet<_>>()
        .iter()
        .map(Sm::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let serialized = reports.iter().filter(|r| r.serialized_wgmma).count();
    if serialized > 0 {
        s.push_str(&format!(
            "{serialized} with serialized wgmma (ptxas's C75xx note)\n"
        ));
    }
    if bad == 0 {
        s.push_str(&format!(
            "{kernels} kernels, {entries} builds of them, {} functions in all ({archs}): no spills, no stack frames\n",
            reports.len()
        ));
    } else {
        s.push_str(&format!(
            "{kernels} kernels, {entries} builds of them, {} functions in all ({archs}): {bad} with spills or a stack frame ({allowed} allowed)\n",
            reports.len()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'other' for 'sm_80'
ptxas info    : Function properties for other
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers, 16 bytes cumulative stack size, 360 bytes cmem[0]
ptxas info    : Compile time = 9.687 ms
ptxas info    : Function properties for helper
    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'axpy' for 'sm_80'
ptxas info    : Function properties for axpy
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers, 4096 bytes smem, 384 bytes cmem[0]
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
";

    #[test]
    fn allowed_spills_are_accepted_within_their_bytes() {
        // each allowance names exactly the kernels it counts
        for a in SPILLS_ALLOWED {
            let n = tcgemm_kernels::config::KERNELS
                .iter()
                .filter(|&k| (a.kernel)(k))
                .count();
            assert_eq!(n, a.count, "{}", a.why);
        }
        let a = SPILLS_ALLOWED[0];
        let spec = tcgemm_kernels::config::KERNELS
            .iter()
            .find(|&k| (a.kernel)(k))
            .unwrap();
        let r = |spill: u32| KernelReport {
            name: spec.name.to_string(),
            target: Target::Sm80,
            sm: Sm::new(8, 0),
            entry: true,
            registers: 128,
            spill_stores: spill,
            spill_loads: spill,
            stack_frame: spill,
            shared_bytes: 0,
            serialized_wgmma: false,
        };
        assert!(!r(a.max_bytes).is_clean() && r(a.max_bytes).is_accepted());
        // serialized `wgmma`s are never accepted, allowance or not
        let serialized = KernelReport {
            serialized_wgmma: true,
            ..r(a.max_bytes)
        };
        assert!(!serialized.is_clean() && !serialized.is_accepted());
        assert!(!r(a.max_bytes + 1).is_accepted());
        let other = KernelReport {
            name: "other".into(),
            ..r(4)
        };
        assert!(!other.is_accepted());
        assert!(format_report(&[r(a.max_bytes)]).contains("(1 allowed)"));
    }

    #[test]
    fn parses_entries_and_functions() {
        let r = parse_ptxas_output(SAMPLE, Target::Sm80, Sm::new(8, 6));
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].name.as_str(), r[0].entry), ("axpy", true));
        assert_eq!(
            (r[0].registers, r[0].stack_frame, r[0].shared_bytes),
            (128, 0, 4096)
        );
        assert!(r[0].is_clean());
        assert_eq!((r[1].name.as_str(), r[1].entry), ("other", true));
        assert_eq!(
            (r[1].registers, r[1].stack_frame, r[1].shared_bytes),
            (10, 16, 0)
        );
        assert_eq!((r[2].name.as_str(), r[2].entry), ("helper", false));
        assert_eq!((r[2].spill_stores, r[2].spill_loads), (8, 4));
        assert!(!r[1].is_clean() && !r[2].is_clean());
        let table = format_report(&r);
        assert!(table.contains(
            "2 kernels, 2 builds of them, 3 functions in all (sm_86): 2 with spills or a stack \
             frame (0 allowed)"
        ));
        assert_eq!(table.matches("<-- spills/stack").count(), 2);
    }

    #[test]
    fn empty_module_reports_nothing() {
        let r = parse_ptxas_output(
            "ptxas info    : 0 bytes gmem\n",
            Target::Sm90a,
            Sm::specific(9, 0),
        );
        assert!(r.is_empty());
        assert!(format_report(&r)
            .contains("0 kernels, 0 builds of them, 0 functions in all (): no spills"));
    }

    #[test]
    fn serialized_wgmma_is_flagged() {
        let text = "\
ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program dependence on compiler-inserted WG.AR in divergent path in the function 'gemm_k'
ptxas info    : Compiling entry function 'gemm_k' for 'sm_90a'
ptxas info    : Function properties for gemm_k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 16 barriers, 384 bytes cmem[0]
";
        let r = parse_ptxas_output(text, Target::Sm90a, Sm::specific(9, 0));
        assert_eq!(r.len(), 1);
        assert!(r[0].entry && r[0].serialized_wgmma);
        assert_eq!((r[0].spill_stores, r[0].stack_frame), (0, 0));
        assert!(!r[0].is_clean() && !r[0].is_accepted());
        let table = format_report(&r);
        assert!(table.contains("<-- wgmma serialized"), "{table}");
        assert!(table.contains("1 with serialized wgmma"), "{table}");
    }
}
