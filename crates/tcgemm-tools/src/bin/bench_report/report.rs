//! The report's text: the ceilings table, the results table with its numbered notes, and the
//! `BENCHMARKS.md` document around them.

use std::fmt::Write as _;

use tcgemm::Math;
use tcgemm_testkit::ceiling::{self, Ceiling};
use tcgemm_testkit::{blas, guarded};
use tcgemm_tools::{nvidia_driver_version, utc_now};

use crate::measure::{Meas, Row, Twin};

/// The measured ceilings, one per instruction (or why not).
pub type Ceilings = Vec<(Math, Result<Ceiling, String>)>;

/// TFLOPS with one decimal from 10 on, two below.
pub fn tflops(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A relative error, or `NaN/inf`.
pub fn rel_err(e: f64) -> String {
    if e.is_finite() {
        format!("{e:.1e}")
    } else {
        "NaN/inf".into()
    }
}

/// Whether `msg` is a kernel named by `--kernels` refusing the call (`Context::gemm_with_kernel`:
/// the call breaks a rule of the kernel's family, e.g. TMA's alignment): a row that does not
/// exist, not a failure.
pub fn is_refusal(msg: &str) -> bool {
    msg.starts_with("invalid argument `kernel`")
}

/// A short table cell for an error message; the full text goes to the notes.
fn short(msg: &str) -> String {
    if msg.starts_with("unsupported") {
        "unsupported".into()
    } else if is_refusal(msg) {
        "refused".into()
    } else if msg.starts_with("cuBLAS unavailable") {
        "n/a".into()
    } else {
        "error".into()
    }
}

fn ceiling_of(ceilings: &Ceilings, math: Math) -> Option<&Ceiling> {
    ceilings
        .iter()
        .find(|(m, _)| *m == math)
        .and_then(|(_, c)| c.as_ref().ok())
}

/// Ours / cuBLAS throughput of a row, when both ran.
pub fn ratio(r: &Row) -> Option<f64> {
    match (&r.ours, &r.blas) {
        (Ok(o), Ok(b)) if b.tflops > 0.0 => Some(o.tflops / b.tflops),
        _ => None,
    }
}

/// The instruction ceilings as a markdown table.
pub fn ceilings_table(ceilings: &Ceilings) -> String {
    let mut s = String::from(
        "| instruction | kernel | TFLOPS | ms per launch | loop trips |\n|---|---|---:|---:|---:|\n",
    );
    for (math, c) in ceilings {
        let name = ceiling::math_name(*math);
        let _ = match c {
            Ok(c) => writeln!(
                s,
                "| {name} | `{}` | {} | {:.3} | {} |",
                c.kernel,
                tflops(c.tflops),
                c.ms,
                c.trips
            ),
            Err(e) => writeln!(
                s,
                "| {name} | `{}` | error: {} | – | – |",
                ceiling::ceiling_kernel(*math).unwrap_or("–"),
                e.replace('|', "/")
            ),
        };
    }
    s
}

/// The copy-bandwidth line under the ceilings table.
pub fn bandwidth_line(bw: &Result<f64, String>) -> String {
    match bw {
        Ok(bw) => format!(
            "Device-to-device copy bandwidth: {:.0} GB/s (1 GiB copied, read and written, median of \
             10). A row's \"% of floor\" is the time to move its A, B and C once at this bandwidth \
             over its measured time.",
            bw / 1e9
        ),
        Err(e) => format!("Copy bandwidth: not measured ({e})."),
    }
}

/// Error messages numbered in order of first use, for the notes under the table.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    /// The table cell for `msg`: its short form and note number.
    fn cell(&mut self, msg: &str) -> String {
        let i = match self.0.iter().position(|n| n == msg) {
            Some(i) => i,
            None => {
                self.0.push(msg.to_string());
                self.0.len() - 1
            }
        };
        format!("{} [{}]", short(msg), i + 1)
    }
}

/// Percent of the bandwidth floor of a row: the time to move its bytes once (A, B and C, each
/// read or written once) at the copy bandwidth (`bw`, bytes/s) over the measured time.
pub fn of_floor(r: &Row, m: &Meas, bw: f64) -> f64 {
    let (input, output) = r.path.elems();
    let floor_s = r.shape.set_bytes(input, output) as f64 / bw;
    100.0 * floor_s / (m.ms * 1e-3)
}

/// The results table and the notes (full error messages, numbered). `bw`: the copy bandwidth
/// (bytes/s) for the "% of floor" column.
pub fn results_table(
    rows: &[Row],
    ceilings: &Ceilings,
    bw: Result<f64, String>,
) -> (String, Vec<String>) {
    let mut notes = Notes::default();
    let mut s = String::from(
        "| shape | path | kernel | ours TFLOPS | cuBLAS TFLOPS | ours / cuBLAS | % of ceiling | % of floor | host µs ours / cuBLAS | ours rel err | cuBLAS rel err |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let kernel = if r.forced {
            format!("`{}` (forced)", r.kernel)
        } else if r.kernel == "–" {
            r.kernel.clone()
        } else {
            format!("`{}`", r.kernel)
        };
        let (ours, ours_err, of_ceiling, floor) = match &r.ours {
            Ok(m) => (
                tflops(m.tflops),
                rel_err(m.err),
                ceiling_of(ceilings, r.path.ceiling_math()).map_or("–".into(), |c| {
                    format!("{:.0}%", 100.0 * m.tflops / c.tflops)
                }),
                bw.as_ref()
                    .map_or("–".into(), |&bw| format!("{:.0}%", of_floor(r, m, bw))),
            ),
            Err(e) => (notes.cell(e), "–".into(), "–".into(), "–".into()),
        };
        let (theirs, theirs_err) = match &r.blas {
            Ok(m) => (tflops(m.tflops), rel_err(m.err)),
            Err(e) => (notes.cell(e), "–".into()),
        };
        let ratio = ratio(r).map_or("–".into(), |x| format!("{:.0}%", 100.0 * x));
        let host = |m: &Result<Meas, String>| {
            m.as_ref()
                .map_or("–".into(), |m| format!("{:.1}", m.host_us))
        };
        let host = format!("{} / {}", host(&r.ours), host(&r.blas));
        let _ = writeln!(
            s,
            "| {} | {} | {kernel} | {ours} | {theirs} | {ratio} | {of_ceiling} | {floor} | {host} | {ours_err} | {theirs_err} |",
            r.shape.label(),
            r.path.name()
        );
    }
    (s, notes.0)
}

/// Per suite (and over every row): the geometric mean of ours / cuBLAS over the rows where both
/// ran, and the worst row. Forced-kernel rows are left out (they measure a kernel, not the library).
pub fn summary_table(rows: &[Row]) -> String {
    let mut suites: Vec<&'static str> = Vec::new();
    for r in rows {
        if !suites.contains(&r.shape.suite()) {
            suites.push(r.shape.suite());
        }
    }
    let mut s = String::from(
        "| suite | rows | geomean ours / cuBLAS | worst row | worst ratio |\n|---|---:|---:|---|---:|\n",
    );
    for suite in suites.iter().copied().map(Some).chain([None]) {
        let ratios: Vec<(f64, &Row)> = rows
            .iter()
            .filter(|r| !r.forced && suite.is_none_or(|name| r.shape.suite() == name))
            .filter_map(|r| ratio(r).map(|x| (x, r)))
            .collect();
        let Some(&(worst, w)) = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0)) else {
            continue;
        };
        let geomean = (ratios.iter().map(|(x, _)| x.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let _ = writeln!(
            s,
            "| {} | {} | {:.1}% | {} {} | {:.0}% |",
            suite.unwrap_or("**all**"),
            ratios.len(),
            100.0 * geomean,
            w.shape.label(),
            w.path.name(),
            100.0 * worst
        );
    }
    s
}

/// Ours / aligned-twin throughput of a row, when both ran: the fraction of the aligned speed the
/// call keeps.
pub fn twin_ratio(r: &Row) -> Option<f64> {
    match (&r.ours, r.twin.as_ref().map(|t| &t.meas)) {
        (Ok(o), Some(Ok(t))) if t.tflops > 0.0 => Some(o.tflops / t.tflops),
        _ => None,
    }
}

/// The rows timed against their aligned twin, as a markdown section (heading, what the twin is,
/// the table, the geometric mean and worst row of ours / twin over the non-forced rows, notes);
/// empty when no row has a twin.
pub fn twin_section(rows: &[Row]) -> String {
    let with_twin: Vec<(&Row, &Twin)> = rows
        .iter()
        .filter_map(|r| r.twin.as_ref().map(|t| (r, t)))
        .collect();
    if with_twin.is_empty() {
        return String::new();
    }
    let mut notes = Notes::default();
    let mut s = String::from(
        "## Unaligned calls against their aligned twins\n\n\
         A shape that is not aligned and packed (a stored row length, i.e. a packed leading \
         dimension, that is not a multiple of 8 elements, or padding: `+ldP` leading dimensions \
         P elements longer than packed, `+offO` operands O elements into their buffers, `+bsS` \
         S-element gaps between batch items) is also timed, in the same interleaved rounds, \
         against tcgemm's dispatch on its aligned twin: the same product, packed, with every \
         stored row length rounded up to a multiple of 8 (`n`; `k` unless only A is stored \
         transposed; `m` when A is). ours / twin is the fraction of the aligned speed the call \
         keeps.\n\n\
         | shape | path | kernel | ours TFLOPS | aligned twin | twin kernel | twin TFLOPS | ours / twin |\n\
         |---|---|---|---:|---|---|---:|---:|\n",
    );
    for &(r, twin) in &with_twin {
        let kernel = if r.forced {
            format!("`{}` (forced)", r.kernel)
        } else {
            format!("`{}`", r.kernel)
        };
        let mut figure = |m: &Result<Meas, String>| match m {
            Ok(m) => tflops(m.tflops),
            Err(e) => notes.cell(e),
        };
        let (ours, theirs) = (figure(&r.ours), figure(&twin.meas));
        let twin_kernel = match twin.kernel.as_str() {
            "–" => "–".to_string(),
            name => format!("`{name}`"),
        };
        let ratio = twin_ratio(r).map_or("–".into(), |x| format!("{:.0}%", 100.0 * x));
        let _ = writeln!(
            s,
            "| {} | {} | {kernel} | {ours} | {} | {twin_kernel} | {theirs} | {ratio} |",
            r.shape.label(),
            r.path.name(),
            twin.shape.label(),
        );
    }
    let ratios: Vec<(f64, &Row)> = with_twin
        .iter()
        .filter(|(r, _)| !r.forced)
        .filter_map(|&(r, _)| twin_ratio(r).map(|x| (x, r)))
        .collect();
    if let Some(&(worst, w)) = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
        let geomean = (ratios.iter().map(|(x, _)| x.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let _ = writeln!(
            s,
            "\nOurs / aligned twin over {} rows: geomean {:.1}%, worst {} {} ({:.0}%).",
            ratios.len(),
            100.0 * geomean,
            w.shape.label(),
            w.path.name(),
            100.0 * worst
        );
    }
    if !notes.0.is_empty() {
        let _ = writeln!(s, "\nNotes:\n\n{}", numbered(&notes.0));
    }
    s
}

/// What the method line of the document reports about a run.
pub struct Method {
    /// Timed rounds per case (fewest, most).
    pub reps: (usize, usize),
    /// Buffer sets per case (fewest, most).
    pub sets: (usize, usize),
    /// Host time to enqueue one launch, µs.
    pub host_us: f64,
    /// Why there was no GPU-side delay.
    pub no_delay: Option<String>,
    /// Sampled entries of C.
    pub samples: usize,
}

fn range((lo, hi): (usize, usize)) -> String {
    match (lo, hi) {
        (usize::MAX, _) => "–".to_string(),
        (lo, hi) if lo == hi => lo.to_string(),
        (lo, hi) => format!("{lo} to {hi}"),
    }
}

/// The `- Method:` line of the document.
pub fn method_line(m: &Method) -> String {
    format!(
        "- Method: device time from CUDA events around each launch; median of {} interleaved rounds per case \
         (tcgemm, forced kernels, cuBLAS; one launch each) after 2 warm-up rounds; {} rotating buffer sets per case \
         (≥ 2× L2 where memory allows); launches queued behind a GPU-side delay (host enqueue ≈ {:.1} µs per launch){}; \
         TFLOPS = 2·m·n·k·batch / time. Error: relative 2-norm error over {} sampled entries of C (NaN-poisoned \
         before the run) against an f64 reference. Inputs uniform in [-1, 1], never zero; alpha = 1, beta = 0, \
         row-major, no transposes except where the shape ends in `:nt` (B stored n×k), `:tn` (A stored k×m) or `:tt` (both), \
         packed except where it ends in `+ldP` (leading dimensions P elements longer), `+offO` (A, B and C views O elements \
         into their buffers, for tcgemm and cuBLAS alike) or `+bsS` (S-element gaps between batch items); the error check \
         also fails a run that writes C's buffer outside its entries. % of ceiling: ours / \
         the measured ceiling of the path's instruction (fp32: FFMA, tf32: MMA tf32, f16: MMA f16, bf16: MMA \
         bf16; tcgemm's `mma.sync` microkernels, which `wgmma` kernels, tcgemm's `_tma` ones and cuBLAS's on \
         Hopper, exceed). Kernel column: `/SxDk` the call split into S k-slices of D, `+skI` stream-K sharing \
         out I items, `+tailR /SxDk` rows from R on run after the others as a second launch split into S \
         k-slices of D, `+staged` the operands copied first.",
        range(m.reps),
        range(m.sets),
        m.host_us,
        m.no_delay
            .as_ref()
            .map_or(String::new(), |w| format!(" (delay unavailable: {w})")),
        m.samples
    )
}

/// The header lines of the document: device, driver, cuBLAS, date, command.
pub fn header(device_line: &str, blas_line: &str, command: &str) -> String {
    let mut md = String::from("# tcgemm benchmarks\n\n");
    let _ = writeln!(md, "- Device: {device_line}");
    let _ = writeln!(
        md,
        "- NVIDIA driver: {}; CUDA driver API {}",
        nvidia_driver_version().unwrap_or_else(|| "unknown".into()),
        driver_api_version().unwrap_or_else(|| "unknown".into())
    );
    let _ = writeln!(md, "- cuBLAS: {blas_line}");
    let _ = writeln!(md, "- Date: {}", utc_now());
    let _ = writeln!(md, "- Command: `{command}`");
    md
}

/// Notes as a numbered list, each on one line.
pub fn numbered(notes: &[String]) -> String {
    let mut s = String::new();
    for (i, n) in notes.iter().enumerate() {
        let _ = writeln!(s, "{}. {}", i + 1, n.replace('\n', " "));
    }
    s
}

/// cuDriverGetVersion as `major.minor`.
fn driver_api_version() -> Option<String> {
    guarded("cuDriverGetVersion", || {
        let mut v = 0;
        // SAFETY: writes one int; the driver library is loaded (a context exists).
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) }
            .result()
            .map_err(|e| e.to_string())?;
        Ok(blas::cuda_version(v as usize))
    })
    .ok()
}

#[cfg(test)]
mod tests;
