//! What tcgemm's measuring tools share beyond `tcgemm-testkit`: reading the command line, the
//! provenance of a report (date, driver), and the precision studies' error figures and tables.
//!
//! The tools (`src/bin/`): `bench_report` (tcgemm against cuBLAS on every benchmark shape and
//! path, with the instruction ceilings; writes `BENCHMARKS.md` and `ratio.svg`), `kernel_sweep`
//! (every kernel of the table by name, for kernel work), `tune` (fits dispatch's time model to the
//! GPU: `src/dispatch/rates.rs`), `precision_study` (error of the three
//! arithmetics of f16 inputs against K), `f32_precision_study` (exact FP32, 3xTF32 and TF32 on
//! f32 inputs) and `launch_order` (16-bit kernels timed by the launch before them). Each needs a
//! CUDA GPU; each exits 2 without one and [`EX_USAGE`] on bad arguments.

#![deny(missing_docs)]

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;

/// The exit status of a tool given bad arguments (`EX_USAGE`; clap's own 2 would read as "no
/// GPU").
pub const EX_USAGE: u8 = 64;

/// The parsed command line, or the exit status after clap printed help (0) or a usage error
/// ([`EX_USAGE`]).
///
/// ```no_run
/// #[derive(clap::Parser)]
/// struct Args {
///     #[arg(long, default_value_t = 0)]
///     device: usize,
/// }
///
/// fn main() -> std::process::ExitCode {
///     let args: Args = match tcgemm_tools::parse_args() {
///         Ok(a) => a,
///         Err(code) => return code,
///     };
///     println!("device {}", args.device);
///     std::process::ExitCode::SUCCESS
/// }
/// ```
pub fn parse_args<T: Parser>() -> Result<T, ExitCode> {
    T::try_parse().map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            ExitCode::from(EX_USAGE)
        } else {
            ExitCode::SUCCESS
        }
    })
}

/// The GEMM kernels of the table named in `names` (blank names skipped, repeats once, in order), or
/// the message that refuses a name: one that is no kernel (listing `ctx`'s runnable GEMM kernels),
/// or an instruction-ceiling kernel. A tool's `--kernels`.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let names = ["f16_f16_nn_128x128x64_w64x128_s6_tma".to_string()];
/// let specs = tcgemm_tools::gemm_kernels(&ctx, &names).expect("a GEMM kernel");
/// assert_eq!(specs[0].name, names[0]);
/// # Ok::<(), tcgemm::Error>(())
/// ```
pub fn gemm_kernels(
    ctx: &tcgemm::Context,
    names: &[String],
) -> Result<Vec<&'static tcgemm::KernelSpec>, String> {
    use tcgemm::Role;
    let mut specs: Vec<&'static tcgemm::KernelSpec> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        match tcgemm_kernels::config::find_kernel(name) {
            Some(spec) if spec.role() == Role::Gemm => {
                if !specs.contains(&spec) {
                    specs.push(spec);
                }
            }
            Some(_) => {
                return Err(format!(
                    "`{name}` is an instruction-ceiling kernel, not a GEMM kernel"
                ))
            }
            None => {
                let names: Vec<&str> = ctx
                    .kernels()
                    .iter()
                    .filter(|k| k.role() == Role::Gemm)
                    .map(|k| k.name)
                    .collect();
                return Err(format!(
                    "no kernel named `{name}`; runnable kernels: {}",
                    names.join(", ")
                ));
            }
        }
    }
    Ok(specs)
}

/// The text of a tcgemm error in a report: `unsupported: …` for what tcgemm does not implement
/// (not a failure), the message otherwise.
///
/// ```
/// let e = tcgemm::Error::Unsupported("no kernel".into());
/// assert_eq!(tcgemm_tools::err_text(e), "unsupported: no kernel");
/// ```
pub fn err_text(e: tcgemm::Error) -> String {
    match e {
        tcgemm::Error::Unsupported(why) => format!("unsupported: {why}"),
        other => other.to_string(),
    }
}

/// The largest error of `out` against `reference` (`|out − ref|`, or `|out − ref| / scale` per
/// entry with `scale`; NaN shows) and the relative Frobenius error `‖out − ref‖ / ‖ref‖`.
///
/// ```
/// let (max, rel) = tcgemm_tools::errors(&[1.0, 2.5], &[1.0, 2.0], Some(&[1.0, 5.0]));
/// assert_eq!((max, rel), (0.1, 0.5 / 5f64.sqrt()));
/// ```
pub fn errors(out: &[f64], reference: &[f64], scale: Option<&[f64]>) -> (f64, f64) {
    let (mut max, mut num, mut den) = (0f64, 0f64, 0f64);
    for (i, (o, r)) in out.iter().zip(reference).enumerate() {
        let e = (o - r).abs();
        let scaled = scale.map_or(e, |s| e / s[i].max(f64::MIN_POSITIVE));
        max = if scaled.is_nan() || scaled > max {
            scaled
        } else {
            max
        };
        num += e * e;
        den += r * r;
    }
    (max, (num / den).sqrt())
}

/// Prints a markdown table: the `columns`, then per row its label cells and its cells, or the
/// error of a row that failed; returns failure when any row failed. Rows are computed as they are
/// printed.
///
/// ```
/// let rows = [(vec!["16".to_string()], Ok(vec!["1e-7".to_string()]))];
/// assert_eq!(tcgemm_tools::print_table(&["K", "rel"], rows), std::process::ExitCode::SUCCESS);
/// ```
pub fn print_table(
    columns: &[&str],
    rows: impl IntoIterator<Item = (Vec<String>, Result<Vec<String>, String>)>,
) -> ExitCode {
    println!("| {} |", columns.join(" | "));
    println!("|{}", "---:|".repeat(columns.len()));
    let mut failed = false;
    for (labels, cells) in rows {
        let cells = cells.unwrap_or_else(|e| {
            failed = true;
            vec![format!("error: {e}")]
        });
        let mut line: Vec<String> = labels.into_iter().chain(cells).collect();
        line.resize(columns.len().max(line.len()), String::new());
        println!("| {} |", line.join(" | "));
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
///
/// ```
/// let now = tcgemm_tools::utc_now();
/// assert!(now.ends_with(" UTC") && now.len() == 20);
/// ```
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// The NVIDIA kernel-module version (the first `N.N...` word of `/proc/driver/nvidia/version`,
/// Linux), else that file's first line; `None` without that file.
///
/// ```
/// println!("{:?}", tcgemm_tools::nvidia_driver_version());
/// ```
pub fn nvidia_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    let version = line.split_whitespace().find(|w| {
        w.contains('.')
            && w.chars().all(|c| c.is_ascii_digit() || c == '.')
            && w.starts_with(|c: char| c.is_ascii_digit())
    });
    Some(version.map_or_else(|| line.trim().to_string(), str::to_string))
}
