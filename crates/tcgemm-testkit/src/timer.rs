//! Device-time measurement: CUDA events on a context's stream around the launches, never host
//! clocks around asynchronous calls.
//!
//! So that the host's enqueueing cost (cudarc, argument checks, the driver) does not show up as
//! idle GPU time between events, every batch of launches is queued behind a short GPU-side delay
//! (tcgemm's FFMA ceiling kernel run for a calibrated number of loop trips, about 1.5× the measured
//! host time to enqueue the batch); the events only start counting once the delay has run, by
//! which time the whole batch is waiting in the stream.

use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice};
use tcgemm::{Context, Math};

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
    /// A timer on `ctx`'s stream; calibrates the delay kernel (a few milliseconds). Without one
    /// (the calibration failed) [`Timer::no_delay`] says why, and timings of short launches may
    /// include host gaps.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// let mut timer = tcgemm_testkit::Timer::new(&ctx);
    /// let mut out = ctx.alloc_zeros::<f32>(1 << 20)?;
    /// let ms = timer.each(10, &mut |_| ctx.instruction_ceiling(tcgemm::Math::Ffma, 1, 100, &mut out)
    ///     .map(|_| ()).map_err(|e| e.to_string()))?;
    /// println!("median {} ms", tcgemm_testkit::median(&ms));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(ctx: &'a Context) -> Timer<'a> {
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
        t
    }

    /// Records event `i` on the context's stream.
    fn record(&self, i: usize) -> Result<(), String> {
        self.events[i]
            .record(self.ctx.stream())
            .map_err(|e| format!("record: {e}"))
    }

    /// Device time between events `i` and `j` (recorded and synchronized), ms.
    fn between(&self, i: usize, j: usize) -> Result<f64, String> {
        let t = self.events[i]
            .elapsed_ms(&self.events[j])
            .map_err(|e| format!("elapsed: {e}"))?;
        Ok(f64::from(t))
    }

    /// Waits for the context's stream.
    fn synchronize(&self) -> Result<(), String> {
        self.ctx
            .stream()
            .synchronize()
            .map_err(|e| format!("synchronize: {e}"))
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
        self.record(0)?;
        self.ctx
            .instruction_ceiling(Math::Ffma, 1, trips, &mut out)
            .map_err(|e| e.to_string())?;
        self.record(1)?;
        let ms = self.between(0, 1)?;
        if ms.is_nan() || ms <= 0.0 {
            return Err(format!("the delay kernel timed {ms} ms"));
        }
        Ok(Delay {
            out,
            ns_per_trip: ms * 1e6 / f64::from(trips),
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
        let mut ms = Vec::with_capacity(n);
        let mut j0 = 0;
        while j0 < n {
            let len = CHUNK.min(n - j0);
            self.ensure_events(len + 1)?;
            self.delay(len)?;
            let t0 = Instant::now();
            self.record(0)?;
            for j in 0..len {
                launch(j0 + j)?;
                self.record(j + 1)?;
            }
            self.learn(t0.elapsed(), len);
            self.synchronize()?;
            for j in 0..len {
                ms.push(self.between(j, j + 1)?);
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
        self.ensure_events(2)?;
        let mut total = 0.0f64;
        let mut j0 = 0u64;
        while j0 < n {
            let len = (CHUNK as u64).min(n - j0);
            self.delay(len as usize)?;
            let t0 = Instant::now();
            self.record(0)?;
            for j in 0..len {
                launch(j0 + j)?;
            }
            self.record(1)?;
            self.learn(t0.elapsed(), len as usize);
            self.synchronize()?;
            total += self.between(0, 1)?;
            j0 += len;
        }
        Ok(Duration::from_secs_f64(total * 1e-3))
    }
}

/// The median of `v` (`NaN` when empty).
///
/// ```
/// assert_eq!(tcgemm_testkit::median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
/// ```
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
