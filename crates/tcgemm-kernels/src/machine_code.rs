//! The architectures tcgemm ships machine code (cubin) for, per PTX module. Shared by the builder
//! (`cargo xtask images` assembles exactly these with `ptxas`) and the host (which picks the image a
//! device runs, else falls back to the PTX, which the driver compiles).
//!
//! ```
//! use tcgemm_kernels::config::Target;
//! use tcgemm_kernels::machine_code::{best_for, Sm};
//! // an RTX 4090 (8.9) runs the sm_89 code of the sm_80 module; an H200 (9.0) the sm_90 code
//! assert_eq!(best_for(Target::Sm80, (8, 9)), Some(Sm::new(8, 9)));
//! assert_eq!(best_for(Target::Sm80, (9, 0)), Some(Sm::new(9, 0)));
//! // a newer architecture gets no machine code: its driver compiles the PTX
//! assert_eq!(best_for(Target::Sm80, (12, 0)), None);
//! ```

use crate::config::Target;

/// A machine-code architecture: `sm_{major}{minor}`, with the `a` suffix for the
/// architecture-specific variant (e.g. `sm_90a`, which runs on compute capability 9.0 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sm {
    /// Compute capability, major.
    pub major: u32,
    /// Compute capability, minor.
    pub minor: u32,
    /// `sm_XYa`: the architecture-specific instruction set (`wgmma`, `setmaxnreg` on 9.0).
    pub arch_specific: bool,
}

impl Sm {
    /// `sm_{major}{minor}`.
    pub const fn new(major: u32, minor: u32) -> Sm {
        Sm {
            major,
            minor,
            arch_specific: false,
        }
    }

    /// `sm_{major}{minor}a`.
    pub const fn specific(major: u32, minor: u32) -> Sm {
        Sm {
            major,
            minor,
            arch_specific: true,
        }
    }

    /// Whether a device of compute capability `cc` runs this machine code: cubins run on devices of
    /// the same major version and an equal or higher minor one; architecture-specific code only on
    /// its own compute capability.
    pub const fn runs_on(self, cc: (u32, u32)) -> bool {
        if self.arch_specific {
            cc.0 == self.major && cc.1 == self.minor
        } else {
            cc.0 == self.major && cc.1 >= self.minor
        }
    }
}

/// `sm_86`, `sm_90a`: the name `ptxas -arch` takes.
impl core::fmt::Display for Sm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let a = if self.arch_specific { "a" } else { "" };
        write!(f, "sm_{}{}{a}", self.major, self.minor)
    }
}

/// Machine code shipped for module `t`: the `sm_80` module for Ampere (A100), GA10x (A10, RTX 30),
/// Ada (L4, RTX 40) and Hopper; the `sm_90` module for Hopper (newer devices compile its PTX);
/// the `sm_90a` module for Hopper only.
pub const fn machine_code(t: Target) -> &'static [Sm] {
    const SM80: &[Sm] = &[Sm::new(8, 0), Sm::new(8, 6), Sm::new(8, 9), Sm::new(9, 0)];
    const SM90: &[Sm] = &[Sm::new(9, 0)];
    const SM90A: &[Sm] = &[Sm::specific(9, 0)];
    match t {
        Target::Sm80 => SM80,
        Target::Sm90 => SM90,
        Target::Sm90a => SM90A,
    }
}

/// The machine code of module `t` a device of compute capability `cc` runs best: the newest one
/// that runs on it, or `None` (the driver must compile the PTX).
pub fn best_for(t: Target, cc: (u32, u32)) -> Option<Sm> {
    machine_code(t)
        .iter()
        .copied()
        .filter(|s| s.runs_on(cc))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection() {
        assert_eq!(best_for(Target::Sm80, (8, 0)), Some(Sm::new(8, 0)));
        assert_eq!(best_for(Target::Sm80, (8, 7)), Some(Sm::new(8, 6)));
        assert_eq!(best_for(Target::Sm80, (7, 5)), None);
        assert_eq!(best_for(Target::Sm90, (9, 0)), Some(Sm::new(9, 0)));
        assert_eq!(best_for(Target::Sm90, (8, 9)), None);
        assert_eq!(best_for(Target::Sm90a, (9, 0)), Some(Sm::specific(9, 0)));
        assert_eq!(best_for(Target::Sm90a, (10, 0)), None);
        assert!(!Sm::specific(9, 0).runs_on((9, 1)));
    }
}
