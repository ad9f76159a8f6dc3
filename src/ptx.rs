//! The PTX modules built from `tcgemm-kernels`, embedded in the library.

use tcgemm_kernels::config::Target;

/// PTX of the `sm_80` module (CUDA-core and `mma.sync` kernels; runs on every device ≥ 8.0).
///
/// ```
/// // The module is text; an unbuilt module is empty.
/// assert!(tcgemm::ptx::SM80.is_ascii());
/// ```
pub const SM80: &str = include_str!(concat!(env!("OUT_DIR"), "/tcgemm_sm80.ptx"));

/// PTX of the `sm_90a` module (Hopper kernels; runs only on compute capability 9.0).
///
/// ```
/// assert!(tcgemm::ptx::SM90A.is_ascii());
/// ```
pub const SM90A: &str = include_str!(concat!(env!("OUT_DIR"), "/tcgemm_sm90a.ptx"));

/// PTX source of the module for `t`.
///
/// ```
/// use tcgemm::{ptx, Target};
/// assert_eq!(ptx::source(Target::Sm80), ptx::SM80);
/// assert_eq!(ptx::source(Target::Sm90a), ptx::SM90A);
/// ```
pub fn source(t: Target) -> &'static str {
    match t {
        Target::Sm80 => SM80,
        Target::Sm90a => SM90A,
    }
}

/// Whether a module's PTX holds at least one kernel entry point (an unbuilt module is empty).
pub(crate) fn has_entries(src: &str) -> bool {
    src.contains(".entry")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_entries_detects_kernels() {
        assert!(!has_entries(""));
        assert!(!has_entries(".version 8.0\n.target sm_80\n"));
        assert!(has_entries(".visible .entry sgemm_nn(\n"));
    }
}
