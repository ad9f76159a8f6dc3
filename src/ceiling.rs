//! [`Context::instruction_ceiling`]: the instruction-ceiling microkernels (peak rate of one
//! multiply-accumulate instruction on this GPU).

use crate::context::Context;
use crate::error::{invalid, Result};
use crate::launch;
use crate::plan::Plan;
use cudarc::driver::DevicePtrMut;
use tcgemm_kernels::config::{ceiling_flops_per_trip, KernelSpec, Math, Role, KERNELS};
use tcgemm_kernels::params::CeilingParams;

/// The operand seed and FFMA multiplier and addend of every ceiling launch.
const SEED: u32 = 0x3c00_3c01;
/// FFMA ceiling: each chain's multiplier.
const X: f32 = 1.000_001;
/// FFMA ceiling: each chain's addend.
const Y: f32 = 1e-7;

/// The ceiling kernel for `math`.
///
/// # Errors
/// `InvalidArgument` `math` when there is none, naming the maths that have one.
fn ceiling_kernel(math: Math) -> Result<&'static KernelSpec> {
    let ceilings = || KERNELS.iter().filter(|k| k.role() == Role::Ceiling);
    ceilings().find(|k| k.math == math).ok_or_else(|| {
        let maths: Vec<String> = ceilings().map(|k| format!("{:?}", k.math)).collect();
        invalid(
            "math",
            format!(
                "no instruction-ceiling kernel for {math:?}; this build has one for {}",
                maths.join(", ")
            ),
        )
    })
}

/// Blocks and FLOPs of a ceiling launch: `blocks_per_sm · sm_count` blocks, each performing
/// `trips` trips.
///
/// # Errors
/// `InvalidArgument` for zero sizes, more blocks than a grid holds, or a FLOP count beyond `u64`.
fn ceiling_size(
    spec: &KernelSpec,
    blocks_per_sm: u32,
    trips: u32,
    sm_count: u32,
) -> Result<(u32, u64)> {
    if blocks_per_sm == 0 || trips == 0 {
        return Err(invalid("blocks_per_sm, trips", "both must be at least 1"));
    }
    let blocks = blocks_per_sm
        .checked_mul(sm_count)
        .filter(|&b| b <= i32::MAX as u32)
        .ok_or_else(|| invalid("blocks_per_sm", "too many blocks"))?;
    // The FLOP count returned, checked before anything launches: a large
    // `blocks_per_sm · trips` overflows u64 (a panic where overflow checks are on).
    let math = spec.math;
    let flops = u64::from(blocks)
        .checked_mul(u64::from(trips))
        .and_then(|t| t.checked_mul(ceiling_flops_per_trip(math, spec.threads)))
        .ok_or_else(|| {
            invalid(
                "trips",
                format!(
                    "{blocks} blocks × {trips} trips of {math:?} count more than u64::MAX FLOPs; \
                     pass fewer trips or blocks_per_sm"
                ),
            )
        })?;
    Ok((blocks, flops))
}

impl Context {
    /// Runs the instruction-ceiling microkernel for `math` (only that multiply-accumulate
    /// instruction, from registers, 8 independent chains per thread or warp) asynchronously on the
    /// context's stream: `blocks_per_sm × sm_count` blocks of 256 threads, `trips` loop trips each.
    /// Returns the FLOPs it performs; time it with events to get this GPU's peak for `math`.
    /// `out` receives one f32 per thread (keeps the work live) and must hold
    /// `256 · blocks_per_sm · sm_count` elements.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument): `math` when no ceiling kernel
    /// exists for it (f16 accumulation; the message lists those that exist), `out` for a short
    /// buffer or one on another device, `blocks_per_sm`/`trips` for zero sizes or a FLOP count
    /// beyond `u64`; [`Error::Unsupported`](crate::Error::Unsupported) when the kernel is not
    /// loaded.
    ///
    /// ```no_run
    /// use tcgemm::{Context, Math};
    /// let ctx = Context::new(0)?;
    /// let n = 256 * 4 * ctx.capabilities().sm_count as usize;
    /// let mut out = ctx.stream().alloc_zeros::<f32>(n)?;
    /// let flops = ctx.instruction_ceiling(Math::MmaF16F32, 4, 1000, &mut out)?;
    /// ctx.stream().synchronize()?;
    /// assert!(flops > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn instruction_ceiling<C: DevicePtrMut<f32>>(
        &self,
        math: Math,
        blocks_per_sm: u32,
        trips: u32,
        out: &mut C,
    ) -> Result<u64> {
        let spec = ceiling_kernel(math)?;
        let func = self.function(spec, "ceiling kernel")?;
        let (blocks, flops) =
            ceiling_size(spec, blocks_per_sm, trips, self.capabilities().sm_count)?;
        let threads = (blocks as usize) * spec.threads as usize;
        self.check_buffer("out", out)?;
        if out.len() < threads {
            return Err(invalid(
                "out",
                format!(
                    "holds {} f32 but the launch writes {threads} (one per thread)",
                    out.len()
                ),
            ));
        }
        let (pc, _write) = out.device_ptr_mut(self.stream());
        let p = CeilingParams {
            out: pc,
            trips,
            seed: SEED,
            x: X,
            y: Y,
        };
        let plan = Plan::with_grid(spec, (blocks, 1, 1), 0);
        // SAFETY: ceiling kernels take one `CeilingParams`; they write only `out[global thread]`,
        // and `out` was checked to hold one f32 per launched thread; its guard lives across the
        // launch on this context's stream.
        unsafe { launch::launch(self.cuda(), self.stream().cu_stream(), func, &plan, &p) }?;
        Ok(flops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn what<T: core::fmt::Debug>(r: Result<T>) -> &'static str {
        match r {
            Err(Error::InvalidArgument { what, .. }) => what,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn every_f32_accumulating_math_has_a_ceiling() {
        for m in [Math::Ffma, Math::MmaTf32, Math::MmaF16F32, Math::MmaBf16F32] {
            assert_eq!(ceiling_kernel(m).unwrap().math, m);
        }
        let e = ceiling_kernel(Math::MmaF16F16).unwrap_err();
        assert!(
            e.to_string()
                .contains("no instruction-ceiling kernel for MmaF16F16"),
            "{e}"
        );
        assert!(e.to_string().contains("Ffma"), "{e}");
        assert_eq!(what(ceiling_kernel(Math::MmaF16F16)), "math");
    }

    #[test]
    fn sizes_are_checked() {
        let ffma = ceiling_kernel(Math::Ffma).unwrap();
        assert_eq!(what(ceiling_size(ffma, 0, 1, 132)), "blocks_per_sm, trips");
        assert_eq!(what(ceiling_size(ffma, 1, 0, 132)), "blocks_per_sm, trips");
        assert_eq!(what(ceiling_size(ffma, u32::MAX, 1, 132)), "blocks_per_sm");
        let mma = ceiling_kernel(Math::MmaF16F32).unwrap();
        assert_eq!(what(ceiling_size(mma, 4096, u32::MAX, 132)), "trips");
        let (blocks, flops) = ceiling_size(ffma, 2, 10, 132).unwrap();
        assert_eq!(blocks, 264);
        assert_eq!(
            flops,
            264 * 10 * ceiling_flops_per_trip(Math::Ffma, ffma.threads)
        );
    }
}
