//! This GPU's instruction ceilings: tcgemm's microkernels that only issue one instruction
//! (`Context::instruction_ceiling`), timed like the GEMMs.

use cudarc::driver::CudaSlice;
use tcgemm::{Context, KernelSpec, Math};
use tcgemm_kernels::config::Role;

use crate::timer::{median, Timer};

/// The instructions whose ceilings the bench and the report measure.
pub const CEILINGS: [Math; 4] = [Math::Ffma, Math::MmaTf32, Math::MmaF16F32, Math::MmaBf16F32];

/// Blocks per SM of the ceiling launches (256 threads each).
pub const CEILING_BLOCKS_PER_SM: u32 = 4;

/// The ceiling kernel for `math`, if the table has one.
///
/// ```
/// use tcgemm::Math;
/// let spec = tcgemm_testkit::ceiling::ceiling_spec(Math::MmaTf32).unwrap();
/// assert_eq!(Some(spec.name), tcgemm_testkit::ceiling::ceiling_kernel(Math::MmaTf32));
/// ```
pub fn ceiling_spec(math: Math) -> Option<&'static KernelSpec> {
    tcgemm_kernels::config::KERNELS
        .iter()
        .find(|k| k.role() == Role::Ceiling && k.math == math)
}

/// Name of the ceiling kernel for `math`, if the table has one.
///
/// ```
/// assert!(tcgemm_testkit::ceiling::ceiling_kernel(tcgemm::Math::Ffma).is_some());
/// ```
pub fn ceiling_kernel(math: Math) -> Option<&'static str> {
    ceiling_spec(math).map(|k| k.name)
}

/// FLOPs of one ceiling launch (what `Context::instruction_ceiling` returns).
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let flops = tcgemm_testkit::ceiling::ceiling_flops(&ctx, tcgemm::Math::Ffma, 1000);
/// # Ok::<(), tcgemm::Error>(())
/// ```
pub fn ceiling_flops(ctx: &Context, math: Math, trips: u32) -> u64 {
    let threads = ceiling_spec(math).map_or(256, |k| k.threads);
    tcgemm_kernels::config::ceiling_flops_per_trip(math, threads)
        * u64::from(CEILING_BLOCKS_PER_SM * ctx.capabilities().sm_count)
        * u64::from(trips)
}

/// Short display name of an instruction.
///
/// ```
/// assert_eq!(tcgemm_testkit::ceiling::math_name(tcgemm::Math::MmaTf32), "MMA tf32");
/// ```
pub fn math_name(math: Math) -> &'static str {
    match math {
        Math::Ffma => "FFMA (fp32)",
        Math::MmaTf32 => "MMA tf32",
        Math::MmaTf32x3 => "MMA tf32, k-tiles added (3xTF32)",
        Math::MmaF16F32 => "MMA f16 (f32 acc)",
        Math::MmaF16F16 => "MMA f16 (f16 acc)",
        Math::MmaBf16F32 => "MMA bf16 (f32 acc)",
    }
}

/// One measured instruction ceiling.
///
/// ```no_run
/// use tcgemm_testkit::{ceiling, Timer};
/// let ctx = tcgemm::Context::new(0)?;
/// let mut timer = Timer::new(&ctx);
/// let c = ceiling::measure_ceiling(&mut timer, tcgemm::Math::MmaF16F32, 6.0, 5)?;
/// println!("{}: {:.1} TFLOPS", c.kernel, c.tflops);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Ceiling {
    /// The instruction.
    pub math: Math,
    /// The microkernel.
    pub kernel: &'static str,
    /// Loop trips per launch.
    pub trips: u32,
    /// FLOPs per launch.
    pub flops: u64,
    /// Median device time of one launch, ms.
    pub ms: f64,
    /// `flops / ms`, in TFLOP/s.
    pub tflops: f64,
}

/// A buffer for the ceiling kernels' per-thread output.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let mut out = tcgemm_testkit::ceiling::ceiling_out(&ctx)?;
/// ctx.instruction_ceiling(tcgemm::Math::Ffma, 4, 100, &mut out)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ceiling_out(ctx: &Context) -> Result<CudaSlice<f32>, String> {
    let threads = CEILINGS
        .iter()
        .filter_map(|&m| ceiling_spec(m))
        .map(|k| k.threads)
        .max()
        .unwrap_or(256) as usize;
    let n = threads * CEILING_BLOCKS_PER_SM as usize * ctx.capabilities().sm_count as usize;
    ctx.stream()
        .alloc_zeros::<f32>(n)
        .map_err(|e| format!("alloc: {e}"))
}

/// Loop trips that make one ceiling launch for `math` last about `target_ms` (after a warm-up
/// launch that also loads it).
///
/// ```no_run
/// use tcgemm_testkit::{ceiling, Timer};
/// let ctx = tcgemm::Context::new(0)?;
/// let mut timer = Timer::new(&ctx);
/// let mut out = ceiling::ceiling_out(&ctx)?;
/// let trips = ceiling::ceiling_trips(&mut timer, tcgemm::Math::Ffma, &mut out, 1.0)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ceiling_trips(
    timer: &mut Timer<'_>,
    math: Math,
    out: &mut CudaSlice<f32>,
    target_ms: f64,
) -> Result<u32, String> {
    let ctx = timer.ctx();
    let probe = 2_000u32;
    ctx.instruction_ceiling(math, CEILING_BLOCKS_PER_SM, probe, out)
        .map_err(|e| e.to_string())?;
    let ms = timer.each(1, &mut |_| {
        ctx.instruction_ceiling(math, CEILING_BLOCKS_PER_SM, probe, out)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?[0];
    let trips = f64::from(probe) * target_ms / ms.max(1e-3);
    Ok(trips.clamp(f64::from(probe), f64::from(u32::MAX / 2)) as u32)
}

/// The ceiling of `math`: median of `runs` launches of about `target_ms` each.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let mut timer = tcgemm_testkit::Timer::new(&ctx);
/// let c = tcgemm_testkit::ceiling::measure_ceiling(&mut timer, tcgemm::Math::Ffma, 6.0, 5)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn measure_ceiling(
    timer: &mut Timer<'_>,
    math: Math,
    target_ms: f64,
    runs: usize,
) -> Result<Ceiling, String> {
    let ctx = timer.ctx();
    let kernel = ceiling_kernel(math).ok_or("no ceiling kernel in this build")?;
    let mut out = ceiling_out(ctx)?;
    let trips = ceiling_trips(timer, math, &mut out, target_ms)?;
    let mut flops = 0;
    let times = timer.each(runs.max(1), &mut |_| {
        flops = ctx
            .instruction_ceiling(math, CEILING_BLOCKS_PER_SM, trips, &mut out)
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;
    let ms = median(&times);
    Ok(Ceiling {
        math,
        kernel,
        trips,
        flops,
        ms,
        tflops: flops as f64 / (ms * 1e-3) / 1e12,
    })
}

/// Bytes of each buffer of the copy-bandwidth measurement (1 GiB: far beyond any L2).
pub const COPY_BYTES: usize = 1 << 30;

/// This GPU's device-to-device copy bandwidth, bytes/s: `2 · COPY_BYTES` (read and written) over
/// the median device time of `runs` copies of one [`COPY_BYTES`] buffer into another
/// (`cuMemcpyDtoDAsync` on the context's stream), timed like the GEMMs. The floor of a
/// memory-bound product is its bytes over this.
pub fn measure_copy_bandwidth(timer: &mut Timer<'_>, runs: usize) -> Result<f64, String> {
    let stream = timer.ctx().stream().clone();
    let src = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(|e| e.to_string())?;
    let mut dst = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(|e| e.to_string())?;
    let times = timer.each(runs.max(1) + 1, &mut |_| {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(|e| e.to_string())
    })?;
    // the first copy warms the path; the rest are timed
    let ms = median(&times[1..]);
    Ok(2.0 * COPY_BYTES as f64 / (ms * 1e-3))
}
