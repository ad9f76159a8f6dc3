//! What tcgemm's measuring tools share beyond `tcgemm-testkit`: reading the command line.
//!
//! The tools (`src/bin/`): `bench_report` (tcgemm against cuBLAS on every benchmark shape and
//! path, with the instruction ceilings; writes `BENCHMARKS.md` and `ratio.svg`), `kernel_sweep`
//! (every kernel of the table by name, for kernel work) and `precision_study` (error of the three
//! arithmetics against K). Each needs a CUDA GPU; each exits 2 without one and 64 on bad arguments.

#![deny(missing_docs)]

use std::process::ExitCode;

use clap::Parser;

/// The parsed command line, or the exit status after clap printed help (0) or a usage error (64,
/// `EX_USAGE`; clap's own 2 would read as "no GPU").
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
            ExitCode::from(64)
        } else {
            ExitCode::SUCCESS
        }
    })
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
