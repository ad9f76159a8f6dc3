//! The device side: opening the GPU, rotating buffer sets, NaN-poisoning C, CUDA-event timing and
//! the instruction ceilings.
//!
//! Timing is device time only: CUDA events on the context's stream around the launches, never host
//! clocks around asynchronous calls. So that the host's enqueueing cost (cudarc, argument checks,
//! the driver) does not show up as idle GPU time between events, every batch of launches is queued
//! behind a short GPU-side delay (tcgemm's FFMA ceiling kernel run for a calibrated number of loop
//! trips, about 1.5× the measured host time to enqueue the batch); the events only start counting
//! once the delay has run, by which time the whole batch is waiting in the stream.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtrMut};
use tcgemm::{Context, Error, KernelSpec, Math, Role};

use super::{random_vec, El, Shape};

// ---------------------------------------------------------------------------------------------
// Opening the device
// ---------------------------------------------------------------------------------------------

/// Why no context was made.
pub enum Open {
    /// No usable CUDA GPU (no driver library, no device, or one older than compute capability 8.0).
    NoGpu(String),
    /// A GPU is there but tcgemm failed on it.
    Broken(String),
}

/// The text of a panic payload.
pub fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_string()
    }
}

/// A tcgemm context on `device`, or why there is none. Never panics.
pub fn open(device: usize) -> Result<Context, Open> {
    // SAFETY: only tries to dlopen the CUDA driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Open::NoGpu(
            "the CUDA driver library (libcuda) could not be loaded".into(),
        ));
    }
    match catch_unwind(cudarc::driver::CudaContext::device_count) {
        Ok(Ok(n)) if n > 0 => {}
        Ok(Ok(_)) => return Err(Open::NoGpu("the driver reports 0 devices".into())),
        Ok(Err(e)) => return Err(Open::NoGpu(format!("cuDeviceGetCount failed: {e}"))),
        Err(p) => {
            return Err(Open::NoGpu(format!(
                "cuDeviceGetCount panicked: {}",
                panic_text(&*p)
            )))
        }
    }
    match catch_unwind(|| Context::new(device)) {
        Ok(Ok(ctx)) => Ok(ctx),
        Ok(Err(e @ (Error::NoDevice(_) | Error::Unsupported(_)))) => {
            Err(Open::NoGpu(e.to_string()))
        }
        Ok(Err(e)) => Err(Open::Broken(format!(
            "creating the tcgemm context on device {device} failed: {e}"
        ))),
        Err(p) => Err(Open::Broken(format!(
            "creating the tcgemm context on device {device} panicked: {}",
            panic_text(&*p)
        ))),
    }
}

// ---------------------------------------------------------------------------------------------
// Buffer sets
// ---------------------------------------------------------------------------------------------

/// Fewest (A, B, C) sets the timed launches rotate through.
pub const MIN_SETS: usize = 3;
/// Most sets (small shapes need many to span 2× L2).
pub const MAX_SETS: usize = 64;

/// Host inputs (for the reference) and `sets` rotating device (A, B, C) sets of one shape. Every
/// set holds the same random non-zero A and B (at different addresses); C starts zeroed.
pub struct Sets<I, O> {
    /// A, as uploaded.
    pub ha: Vec<I>,
    /// B, as uploaded.
    pub hb: Vec<I>,
    /// A per set.
    pub a: Vec<CudaSlice<I>>,
    /// B per set.
    pub b: Vec<CudaSlice<I>>,
    /// C per set.
    pub c: Vec<CudaSlice<O>>,
}

/// How many sets of `set_bytes` to use: enough that together they span at least twice the L2
/// (so a launch finds none of its operands in L2 from the last time its set ran), at least
/// [`MIN_SETS`], at most [`MAX_SETS`], and no more than half of the free device memory holds.
pub fn set_count(ctx: &Context, set_bytes: usize) -> Result<usize, String> {
    let l2 = ctx.capabilities().l2_bytes as usize;
    let want = (2 * l2)
        .div_ceil(set_bytes.max(1))
        .clamp(MIN_SETS, MAX_SETS);
    let (free, _) = ctx
        .cuda()
        .mem_get_info()
        .map_err(|e| format!("cuMemGetInfo: {e}"))?;
    let fit = (free / 2) / set_bytes.max(1);
    if fit == 0 {
        return Err(format!(
            "one buffer set needs {:.2} GiB but only {:.2} GiB of device memory is free",
            set_bytes as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        ));
    }
    Ok(want.min(fit))
}

impl<I: El, O: El> Sets<I, O> {
    /// Random inputs (seeded by `seed`), uploaded once and copied on the device to the other
    /// sets, and zeroed outputs; [`set_count`] sets. Waits for the copies.
    pub fn new(ctx: &Context, shape: Shape, seed: u64) -> Result<Self, String> {
        let stream = ctx.stream();
        let (la, lb, lc) = shape.lens();
        let sets = set_count(ctx, shape.set_bytes(I::ELEM, O::ELEM))?;
        let ha = random_vec::<I>(la, seed);
        let hb = random_vec::<I>(lb, seed ^ 0x9e37_79b9);
        let da = stream
            .clone_htod(&ha)
            .map_err(|e| format!("upload A: {e}"))?;
        let db = stream
            .clone_htod(&hb)
            .map_err(|e| format!("upload B: {e}"))?;
        let mut s = Sets {
            ha,
            hb,
            a: vec![da],
            b: vec![db],
            c: Vec::with_capacity(sets),
        };
        for i in 0..sets {
            if i > 0 {
                let a = stream
                    .clone_dtod(&s.a[0])
                    .map_err(|e| format!("copy A: {e}"))?;
                let b = stream
                    .clone_dtod(&s.b[0])
                    .map_err(|e| format!("copy B: {e}"))?;
                s.a.push(a);
                s.b.push(b);
            }
            s.c.push(
                stream
                    .alloc_zeros::<O>(lc)
                    .map_err(|e| format!("alloc C: {e}"))?,
            );
        }
        stream
            .synchronize()
            .map_err(|e| format!("synchronize: {e}"))?;
        Ok(s)
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.c.len()
    }

    /// Device bytes held by all sets.
    pub fn bytes(&self) -> usize {
        self.a.iter().map(|x| x.num_bytes()).sum::<usize>()
            + self.b.iter().map(|x| x.num_bytes()).sum::<usize>()
            + self.c.iter().map(|x| x.num_bytes()).sum::<usize>()
    }
}

/// Fills `c` with all-ones bytes (NaN in f32, f16 and bf16) on `stream`, so an entry the next
/// run does not write fails the error check instead of showing an earlier result.
pub fn poison<O: El>(stream: &Arc<CudaStream>, c: &mut CudaSlice<O>) -> Result<(), String> {
    let bytes = c.num_bytes();
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| format!("poisoning C: {e}"))?;
    let (ptr, _write) = c.device_ptr_mut(stream);
    // SAFETY: `ptr` is the start of `c`'s live allocation of `bytes` bytes, used on `stream`
    // (the guard records the write); all-ones bytes are a valid (NaN) f32, f16 and bf16.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xff, bytes, stream.cu_stream()) }
        .map_err(|e| format!("poisoning C: {e}"))
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

/// Most launches queued behind one delay (well inside the driver's launch queue).
pub const CHUNK: usize = 128;

/// The GPU-side delay: the FFMA ceiling kernel, one block per SM.
struct Delay {
    out: CudaSlice<f32>,
    ns_per_trip: f64,
}

/// CUDA-event timing on a context's stream (see the module docs).
pub struct Timer<'a> {
    ctx: &'a Context,
    events: Vec<CudaEvent>,
    delay: Option<Delay>,
    /// Why there is no delay kernel (timings of short launches may then include host gaps).
    pub no_delay: Option<String>,
    /// Host time to enqueue one launch and its event, µs (the last batch's; starts at a guess).
    pub host_us: f64,
}

impl<'a> Timer<'a> {
    /// A timer on `ctx`'s stream; calibrates the delay kernel (a few milliseconds).
    pub fn new(ctx: &'a Context) -> Result<Timer<'a>, String> {
        let mut t = Timer {
            ctx,
            events: Vec::new(),
            delay: None,
            no_delay: None,
            host_us: 20.0,
        };
        match t.calibrate_delay() {
            Ok(d) => t.delay = Some(d),
            Err(e) => t.no_delay = Some(e),
        }
        Ok(t)
    }

    /// The context whose stream this timer times.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    fn calibrate_delay(&mut self) -> Result<Delay, String> {
        let threads = 256 * self.ctx.capabilities().sm_count as usize;
        let mut out = self
            .ctx
            .stream()
            .alloc_zeros::<f32>(threads)
            .map_err(|e| format!("alloc: {e}"))?;
        let trips = 20_000u32;
        self.ctx
            .instruction_ceiling(Math::Ffma, 1, trips / 10, &mut out)
            .map_err(|e| e.to_string())?;
        self.ensure_events(2)?;
        let stream = self.ctx.stream();
        self.events[0]
            .record(stream)
            .map_err(|e| format!("record: {e}"))?;
        self.ctx
            .instruction_ceiling(Math::Ffma, 1, trips, &mut out)
            .map_err(|e| e.to_string())?;
        self.events[1]
            .record(stream)
            .map_err(|e| format!("record: {e}"))?;
        let ms = self.events[0]
            .elapsed_ms(&self.events[1])
            .map_err(|e| format!("elapsed: {e}"))?;
        if ms.is_nan() || ms <= 0.0 {
            return Err(format!("the delay kernel timed {ms} ms"));
        }
        Ok(Delay {
            out,
            ns_per_trip: f64::from(ms) * 1e6 / f64::from(trips),
        })
    }

    fn ensure_events(&mut self, n: usize) -> Result<(), String> {
        while self.events.len() < n {
            // Timing-enabled events: `new_event(None)` would create them with timing disabled.
            let e = self
                .ctx
                .cuda()
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| format!("event: {e}"))?;
            self.events.push(e);
        }
        Ok(())
    }

    /// Queues the delay kernel for about 1.5× the expected host time to enqueue `launches`.
    fn delay(&mut self, launches: usize) -> Result<(), String> {
        let us = (self.host_us * launches as f64 * 1.5 + 30.0).min(200_000.0);
        if let Some(d) = &mut self.delay {
            let trips = (us * 1e3 / d.ns_per_trip)
                .ceil()
                .clamp(1.0, f64::from(u32::MAX)) as u32;
            self.ctx
                .instruction_ceiling(Math::Ffma, 1, trips, &mut d.out)
                .map_err(|e| format!("delay kernel: {e}"))?;
        }
        Ok(())
    }

    fn learn(&mut self, host: Duration, launches: usize) {
        if launches > 0 {
            self.host_us = (host.as_secs_f64() * 1e6 / launches as f64).clamp(1.0, 10_000.0);
        }
    }

    /// Device time of each of `n` launches, ms: `launch(j)` for `j` in `0..n`, each between its
    /// own pair of events (consecutive launches share the event between them), [`CHUNK`] at a
    /// time behind a delay.
    pub fn each(
        &mut self,
        n: usize,
        launch: &mut dyn FnMut(usize) -> Result<(), String>,
    ) -> Result<Vec<f64>, String> {
        let stream = self.ctx.stream().clone();
        let mut ms = Vec::with_capacity(n);
        let mut j0 = 0;
        while j0 < n {
            let len = CHUNK.min(n - j0);
            self.ensure_events(len + 1)?;
            self.delay(len)?;
            let t0 = Instant::now();
            self.events[0]
                .record(&stream)
                .map_err(|e| format!("record: {e}"))?;
            for j in 0..len {
                launch(j0 + j)?;
                self.events[j + 1]
                    .record(&stream)
                    .map_err(|e| format!("record: {e}"))?;
            }
            self.learn(t0.elapsed(), len);
            stream
                .synchronize()
                .map_err(|e| format!("synchronize: {e}"))?;
            for j in 0..len {
                let t = self.events[j]
                    .elapsed_ms(&self.events[j + 1])
                    .map_err(|e| format!("elapsed: {e}"))?;
                ms.push(f64::from(t));
            }
            j0 += len;
        }
        Ok(ms)
    }

    /// Device time of `n` back-to-back launches `launch(j)`, `j` in `0..n`: one event before and
    /// one after every [`CHUNK`] launches (queued behind a delay), summed. For criterion's
    /// `iter_custom`.
    pub fn total(
        &mut self,
        n: u64,
        launch: &mut dyn FnMut(u64) -> Result<(), String>,
    ) -> Result<Duration, String> {
        let stream = self.ctx.stream().clone();
        self.ensure_events(2)?;
        let mut total = 0.0f64;
        let mut j0 = 0u64;
        while j0 < n {
            let len = (CHUNK as u64).min(n - j0);
            self.delay(len as usize)?;
            let t0 = Instant::now();
            self.events[0]
                .record(&stream)
                .map_err(|e| format!("record: {e}"))?;
            for j in 0..len {
                launch(j0 + j)?;
            }
            self.events[1]
                .record(&stream)
                .map_err(|e| format!("record: {e}"))?;
            self.learn(t0.elapsed(), len as usize);
            stream
                .synchronize()
                .map_err(|e| format!("synchronize: {e}"))?;
            let t = self.events[0]
                .elapsed_ms(&self.events[1])
                .map_err(|e| format!("elapsed: {e}"))?;
            total += f64::from(t);
            j0 += len;
        }
        Ok(Duration::from_secs_f64(total * 1e-3))
    }
}

/// The median of `v` (`NaN` when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let h = s.len() / 2;
    if s.len() % 2 == 1 {
        s[h]
    } else {
        0.5 * (s[h - 1] + s[h])
    }
}

// ---------------------------------------------------------------------------------------------
// Instruction ceilings
// ---------------------------------------------------------------------------------------------

/// The instructions whose ceilings the bench and the report measure.
pub const CEILINGS: [Math; 4] = [Math::Ffma, Math::MmaTf32, Math::MmaF16F32, Math::MmaBf16F32];

/// Blocks per SM of the ceiling launches (256 threads each).
pub const CEILING_BLOCKS_PER_SM: u32 = 4;

/// The ceiling kernel for `math`, if the table has one.
pub fn ceiling_spec(math: Math) -> Option<&'static KernelSpec> {
    tcgemm_kernels::config::KERNELS
        .iter()
        .find(|k| k.role() == Role::Ceiling && k.math == math)
}

/// Name of the ceiling kernel for `math`, if the table has one.
pub fn ceiling_kernel(math: Math) -> Option<&'static str> {
    ceiling_spec(math).map(|k| k.name)
}

/// FLOPs of one ceiling launch (what `Context::instruction_ceiling` returns).
pub fn ceiling_flops(ctx: &Context, math: Math, trips: u32) -> u64 {
    let threads = ceiling_spec(math).map_or(256, |k| k.threads);
    tcgemm_kernels::config::ceiling_flops_per_trip(math, threads)
        * u64::from(CEILING_BLOCKS_PER_SM * ctx.capabilities().sm_count)
        * u64::from(trips)
}

/// Short display name of an instruction.
pub fn math_name(math: Math) -> &'static str {
    match math {
        Math::Ffma => "FFMA (fp32)",
        Math::MmaTf32 => "MMA tf32",
        Math::MmaF16F32 => "MMA f16 (f32 acc)",
        Math::MmaF16F16 => "MMA f16 (f16 acc)",
        Math::MmaBf16F32 => "MMA bf16 (f32 acc)",
    }
}

/// One measured instruction ceiling.
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
pub fn ceiling_trips(
    timer: &mut Timer<'_>,
    math: Math,
    out: &mut CudaSlice<f32>,
    target_ms: f64,
) -> Result<u32, String> {
    let ctx = timer.ctx;
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
pub fn measure_ceiling(
    timer: &mut Timer<'_>,
    math: Math,
    target_ms: f64,
    runs: usize,
) -> Result<Ceiling, String> {
    let ctx = timer.ctx;
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

/// Runs `f`, turning a panic (e.g. a cudarc symbol missing from an old library) into an error.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(format!("{what} panicked: {}", panic_text(&*p))),
    }
}
