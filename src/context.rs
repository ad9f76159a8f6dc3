//! [`Context`]: a device, a stream and the loaded kernels; the entry point for running GEMMs.
//!
//! This file holds the context itself (options, construction, accessors); what the device offers
//! is read in `context/capabilities.rs`. Its calls live beside it: GEMMs in `calls.rs`, the
//! raw-pointer entry in `raw.rs`, conversions in `convert.rs`, instruction ceilings in
//! `ceiling.rs`, staging in `staging.rs`; loading the modules in `modules.rs`, its device scratch
//! buffers in `workspace.rs`.

mod capabilities;

use crate::dispatch::memo::Picks;
use crate::driver::driver_library;
use crate::error::{invalid, Error, Result};
use crate::modules::LoadedKernels;
use crate::problem::Problem;
use crate::rules::{can_implement, Reason};
use crate::splitk;
use crate::workspace::Scratch;
use capabilities::read_capabilities;
pub use capabilities::Capabilities;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, DeviceSlice, ValidAsZeroBits,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use tcgemm_kernels::config::{KernelSpec, Role, Target, KERNELS};

/// Options for [`Context::with_options`] and [`Context::from_stream`].
///
/// ```
/// let opts = tcgemm::ContextOptions { allow_tf32: Some(true), ..Default::default() };
/// assert!(!opts.force_sm80);
/// assert!(opts.split_k);
/// ```
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Load only the `sm_80` module, even on a compute capability 9.0 device (Hopper kernels off).
    pub force_sm80: bool,
    /// Whether [`Precision::Default`](crate::Precision::Default) may use TF32 for `f32` inputs.
    /// `None`: read the environment variable `TCGEMM_ALLOW_TF32` when the context is created
    /// (`1` or `true` allow it; anything else, or unset, does not).
    pub allow_tf32: Option<bool>,
    /// Load every module from its PTX, compiled by the driver, even where this build has machine
    /// code for the device (slow on a cold driver cache: for testing the fallback that newer
    /// architectures take).
    pub load_ptx: bool,
    /// Whether [`Context::gemm`] may split a call with few output tiles and a long K along K
    /// (deterministic split-K: the slices' f32 partial products go to the context's workspace and
    /// are summed in a fixed order, by each tile's last CTA or by a reduction kernel, or on Hopper
    /// stay in the shared memory of a thread-block cluster whose first CTA sums them; see
    /// [`Split`](crate::Split)), and run the last rows of tiles of a call whose last round of
    /// blocks is short as such a split after the others ([`Tail`](crate::Tail)). Default `true`.
    pub split_k: bool,
    /// Whether a call that leaves a persistent kernel's waves short may share out k-tiles among
    /// its CTAs (stream-K, [`Plan::stream_k`](crate::Plan::stream_k)). Default `true`.
    pub stream_k: bool,
    /// Whether the Hopper TMA kernels store C (where `beta == 0` and C suits TMA) through shared
    /// memory with TMA bulk copies, each consumer going on to its next tile while its copies
    /// write, rather than straight from their registers. The results are the same bit for bit.
    /// Default `true`; `false` measures the register stores.
    pub tma_store: bool,
    /// Whether the reduction kernel that sums a split call's slices ([`Split`](crate::Split)) is
    /// launched as a programmatic dependent of the slices' launch where the device allows it
    /// (compute capability 9.0 and later): its CTAs are scheduled while the slices finish and
    /// wait for them on the SMs, rather than after they complete. The results are the same bit
    /// for bit. Default `true`; `false` measures the plain launch.
    pub programmatic_launch: bool,
    /// The most bytes [`Context::gemm`] may hold in packed copies of operands that are not 16-byte
    /// aligned, so the aligned kernels can run the call ([`Plan::staged`](crate::Plan::staged));
    /// a call that would need more runs on the kernels that take any alignment. The buffer grows
    /// to what calls need, up to this, and is kept ([`Context::reserve_staging`]). `0`: never
    /// stage. Default 2 GiB.
    pub staging_limit: u64,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            force_sm80: false,
            allow_tf32: None,
            load_ptx: false,
            split_k: true,
            stream_k: true,
            tma_store: true,
            programmatic_launch: true,
            staging_limit: 2 << 30,
        }
    }
}

/// Whether a `TCGEMM_ALLOW_TF32` value allows TF32.
fn env_allows_tf32(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        v == "1" || v.eq_ignore_ascii_case("true")
    })
}

/// A device, a stream on it and tcgemm's kernels loaded for it. `Send + Sync`; calls are enqueued
/// on [`Context::stream`] and return without waiting for the GPU.
///
/// ```no_run
/// use tcgemm::{Context, Gemm};
/// let ctx = Context::new(0)?;
/// let s = ctx.stream();
/// let (m, n, k) = (300, 200, 100);
/// let a = s.clone_htod(&vec![1.0f32; m * k])?;
/// let b = s.clone_htod(&vec![2.0f32; k * n])?;
/// let mut c = s.alloc_zeros::<f32>(m * n)?;
/// ctx.gemm(&Gemm::new(m, n, k), &a, &b, &mut c)?;
/// assert!(s.clone_dtoh(&c)?.iter().all(|&x| x == 200.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Context {
    cuda: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    caps: Capabilities,
    allow_tf32: bool,
    /// [`ContextOptions::split_k`].
    split_k: bool,
    /// [`ContextOptions::stream_k`].
    stream_k: bool,
    /// [`ContextOptions::tma_store`].
    tma_store: bool,
    /// [`ContextOptions::programmatic_launch`], where the device and driver allow it.
    programmatic_launch: bool,
    /// The split-K and stream-K workspace (flags, counters, partial tiles).
    pub(crate) workspace: Scratch,
    /// Packed copies of operands that are not 16-byte aligned ([`ContextOptions::staging_limit`]).
    pub(crate) staging: Scratch,
    /// Dispatch's picks for the last calls ([`crate::dispatch::memo`]).
    pub(crate) picks: Picks,
    /// Thread-block clusters of `s` CTAs of a persistent kernel the device holds at once, by `s`
    /// (`launch::resident_clusters`; zeros without one, or without cluster launches).
    resident_clusters: [u32; 9],
    /// Blocks of each loaded kernel one SM holds at once, by name ([`Context::blocks_per_sm`]).
    occupancy: OnceLock<HashMap<&'static str, u32>>,
    /// [`ContextOptions::staging_limit`].
    staging_limit: u64,
    /// The loaded kernels, and why the others are not.
    loaded: LoadedKernels,
}

impl core::fmt::Debug for Context {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Context")
            .field("capabilities", &self.caps)
            .field("allow_tf32", &self.allow_tf32)
            .field("split_k", &self.split_k)
            .field("stream_k", &self.stream_k)
            .field("tma_store", &self.tma_store)
            .field("programmatic_launch", &self.programmatic_launch)
            .field(
                "kernels",
                &self.kernels().iter().map(|k| k.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Context {
    /// A context on device `ordinal` with default [`ContextOptions`] and a new stream.
    ///
    /// # Errors
    /// [`Error::NoDevice`] without a driver library or device `ordinal`; [`Error::Unsupported`] on
    /// a device older than compute capability 8.0; [`Error::Driver`] when the driver fails.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn new(ordinal: usize) -> Result<Context> {
        Self::with_options(ordinal, ContextOptions::default())
    }

    /// A context on device `ordinal` with a new (non-blocking) stream.
    ///
    /// Loads the `sm_80` module, and the `sm_90a` module on compute capability 9.0 unless
    /// `force_sm80`. Kernels of the table missing from a loaded module, or needing more shared
    /// memory than the device allows, are left out (a call that needs one reports why); a Hopper
    /// module the driver cannot load is left out the same way.
    ///
    /// # Errors
    /// As [`Context::new`].
    ///
    /// ```no_run
    /// use tcgemm::{Context, ContextOptions};
    /// let ctx = Context::with_options(0, ContextOptions { force_sm80: true, ..Default::default() })?;
    /// assert!(!ctx.capabilities().hopper);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn with_options(ordinal: usize, opts: ContextOptions) -> Result<Context> {
        let count = Self::device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice(format!(
                "device ordinal {ordinal} does not exist: {count} CUDA device(s) visible \
                 (check CUDA_VISIBLE_DEVICES or pass an ordinal below {count})"
            )));
        }
        let cuda = CudaContext::new(ordinal)?;
        let caps = read_capabilities(&cuda)?;
        let stream = cuda.new_stream()?;
        Self::finish(cuda, stream, caps, opts)
    }

    /// A context that enqueues on `stream` (and runs on its device), for callers who manage their
    /// own cudarc streams.
    ///
    /// # Errors
    /// As [`Context::with_options`].
    ///
    /// ```no_run
    /// use cudarc::driver::CudaContext;
    /// let cuda = CudaContext::new(0)?;
    /// let stream = cuda.new_stream()?;
    /// let ctx = tcgemm::Context::from_stream(stream.clone(), Default::default())?;
    /// assert!(std::sync::Arc::ptr_eq(ctx.stream(), &stream));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_stream(stream: Arc<CudaStream>, opts: ContextOptions) -> Result<Context> {
        driver_library()?;
        let cuda = stream.context().clone();
        let caps = read_capabilities(&cuda)?;
        Self::finish(cuda, stream, caps, opts)
    }

    /// Loads the modules and kernels and assembles the context.
    fn finish(
        cuda: Arc<CudaContext>,
        stream: Arc<CudaStream>,
        mut caps: Capabilities,
        opts: ContextOptions,
    ) -> Result<Context> {
        let allow_tf32 = opts
            .allow_tf32
            .unwrap_or_else(|| env_allows_tf32(std::env::var("TCGEMM_ALLOW_TF32").ok().as_deref()));
        let loaded = LoadedKernels::load(&cuda, &caps, opts.force_sm80, opts.load_ptx)?;
        caps.modules = loaded.modules().to_vec();
        caps.targets = caps.modules.iter().map(|m| m.target).collect();
        caps.hopper = caps.targets.contains(&Target::Sm90a);
        // the reduction waits for the slices only in its sm_90 build (`griddepcontrol.wait`)
        let reduce_waits = KERNELS
            .iter()
            .filter(|k| k.role() == Role::SplitkReduce)
            .all(|k| loaded.module_of(k.name).is_some_and(|t| t != Target::Sm80));
        let programmatic_launch =
            opts.programmatic_launch && reduce_waits && crate::driver::has_launch_ex();
        let mut ctx = Context {
            cuda,
            stream,
            caps,
            allow_tf32,
            split_k: opts.split_k,
            stream_k: opts.stream_k,
            tma_store: opts.tma_store,
            programmatic_launch,
            workspace: Scratch::new("split-K workspace"),
            staging: Scratch::new("staging buffer"),
            staging_limit: opts.staging_limit,
            picks: Picks::default(),
            resident_clusters: [0; 9],
            occupancy: OnceLock::new(),
            loaded,
        };
        ctx.resident_clusters = ctx.query_resident_clusters();
        if ctx.split_k || ctx.stream_k {
            // Allocated once, at its largest: no call allocates, and a CUDA graph that captured a
            // split call keeps a valid workspace for the context's life.
            let bytes = splitk::workspace_bound(KERNELS, ctx.caps.sm_count);
            drop(ctx.workspace.at_least(&ctx, bytes)?);
            ctx.stream.synchronize()?;
        }
        Ok(ctx)
    }

    /// The cudarc context (device).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert_eq!(ctx.cuda().ordinal(), 0);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn cuda(&self) -> &Arc<CudaContext> {
        &self.cuda
    }

    /// The stream every call is enqueued on.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// ctx.stream().synchronize()?;
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device's capabilities and the loaded modules.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert!(ctx.capabilities().tensor_cores);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    /// Whether [`Precision::Default`](crate::Precision::Default) may use TF32 for `f32` inputs.
    ///
    /// ```no_run
    /// use tcgemm::{Context, ContextOptions};
    /// let ctx = Context::with_options(0, ContextOptions { allow_tf32: Some(false), ..Default::default() })?;
    /// assert!(!ctx.allow_tf32());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn allow_tf32(&self) -> bool {
        self.allow_tf32
    }

    /// Whether [`Context::gemm`] may split calls along K ([`ContextOptions::split_k`]).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert!(ctx.split_k());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn split_k(&self) -> bool {
        self.split_k
    }

    /// Whether persistent kernels may use stream-K ([`ContextOptions::stream_k`]).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert!(ctx.stream_k());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn stream_k(&self) -> bool {
        self.stream_k
    }

    /// Whether the Hopper TMA kernels store C by TMA where they can ([`ContextOptions::tma_store`]).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert!(ctx.tma_store());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn tma_store(&self) -> bool {
        self.tma_store
    }

    /// Whether a split call's reduction kernel is launched as a programmatic dependent of the
    /// slices' launch ([`ContextOptions::programmatic_launch`], on a device that allows it).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// let hopper = ctx.capabilities().compute_capability >= (9, 0);
    /// assert_eq!(ctx.programmatic_launch(), hopper);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn programmatic_launch(&self) -> bool {
        self.programmatic_launch
    }

    /// The most bytes of staged operands calls may hold ([`ContextOptions::staging_limit`]).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert_eq!(ctx.staging_limit(), 2 << 30);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn staging_limit(&self) -> u64 {
        self.staging_limit
    }

    /// The kernels runnable on this context, in table order.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// for k in ctx.kernels() {
    ///     println!("{} ({:?} -> {:?}, {:?})", k.name, k.input, k.output, k.math);
    /// }
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn kernels(&self) -> Vec<&'static KernelSpec> {
        KERNELS
            .iter()
            .filter(|k| self.loaded.is_loaded(k.name))
            .collect()
    }

    /// The loaded function of `spec`, or an `Unsupported` error saying why there is none
    /// (`what`: "kernel", "conversion kernel", ...).
    pub(crate) fn function(&self, spec: &KernelSpec, what: &str) -> Result<&CudaFunction> {
        self.loaded.function(spec.name).ok_or_else(|| {
            Error::Unsupported(format!(
                "{what} `{}` is not loaded: {}",
                spec.name,
                self.loaded.why_not_loaded(spec.name)
            ))
        })
    }

    /// Whether `kernel` can run `problem` on this context: it is loaded
    /// ([`Reason::NotLoaded`] says why not) and [`can_implement`] accepts it.
    ///
    /// # Errors
    /// The first reason it cannot.
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm, Problem};
    /// let ctx = Context::new(0)?;
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(256, 256, 64))?;
    /// for k in tcgemm_kernels::config::KERNELS {
    ///     if let Err(why) = ctx.can_run(k, &p) {
    ///         println!("{}: {why}", k.name);
    ///     }
    /// }
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn can_run(
        &self,
        kernel: &KernelSpec,
        problem: &Problem,
    ) -> core::result::Result<(), Reason> {
        if !self.loaded.is_loaded(kernel.name) {
            return Err(Reason::NotLoaded {
                why: self.loaded.why_not_loaded(kernel.name),
            });
        }
        can_implement(kernel, problem)
    }

    /// Whether kernel `spec` is loaded on this context.
    pub(crate) fn is_loaded(&self, spec: &KernelSpec) -> bool {
        self.loaded.is_loaded(spec.name)
    }

    /// Blocks of kernel `spec` one SM of this device holds at once, as the driver reports for its
    /// loaded function (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, asked for every loaded
    /// kernel on the first call and kept); 0 where it is not loaded or the driver cannot tell.
    pub(crate) fn blocks_per_sm(&self, spec: &KernelSpec) -> u32 {
        let occupancy = self.occupancy.get_or_init(|| {
            KERNELS
                .iter()
                .filter_map(|k| {
                    let f = self.loaded.function(k.name)?;
                    let blocks = f
                        .occupancy_max_active_blocks_per_multiprocessor(
                            k.threads,
                            k.smem_bytes as usize,
                            None,
                        )
                        .unwrap_or(0);
                    Some((k.name, blocks))
                })
                .collect()
        });
        occupancy.get(spec.name).copied().unwrap_or(0)
    }

    /// Clusters of `slices` CTAs of a persistent kernel this device holds at once (0: none).
    pub(crate) fn resident_clusters(&self, slices: u32) -> u32 {
        self.resident_clusters
            .get(slices as usize)
            .copied()
            .unwrap_or(0)
    }

    /// [`launch::resident_clusters`] of the first loaded persistent kernel that can split within
    /// clusters: every such kernel takes a whole SM (one CTA of 384 threads at 168 registers).
    fn query_resident_clusters(&self) -> [u32; 9] {
        if !crate::driver::has_launch_ex() {
            return [0; 9];
        }
        KERNELS
            .iter()
            .find(|k| splitk::cluster_fits(k, 2) && self.is_loaded(k))
            .and_then(|k| Some((k, self.loaded.function(k.name)?)))
            .map_or([0; 9], |(k, f)| {
                crate::launch::resident_clusters(f, k.threads, k.smem_bytes)
            })
    }

    /// Why `spec` cannot run `problem` here, for error messages.
    pub(crate) fn why_unusable(&self, spec: &KernelSpec, problem: &Problem) -> String {
        match self.can_run(spec, problem) {
            Err(why) => why.to_string(),
            Ok(()) => "runnable".to_string(),
        }
    }

    /// Whether kernel `spec` is loaded here, or an `Unsupported` error saying why it cannot run on
    /// this context.
    pub(crate) fn require_loaded(&self, spec: &KernelSpec) -> Result<()> {
        if self.loaded.is_loaded(spec.name) {
            return Ok(());
        }
        Err(Error::Unsupported(format!(
            "kernel `{}` cannot run on this context: {}",
            spec.name,
            self.loaded.why_not_loaded(spec.name)
        )))
    }

    /// Checks that a buffer lives on this context's device.
    pub(crate) fn check_buffer<T>(
        &self,
        what: &'static str,
        buf: &impl DeviceSlice<T>,
    ) -> Result<()> {
        let theirs = buf.stream().context();
        if Arc::ptr_eq(theirs, &self.cuda) || **theirs == *self.cuda {
            Ok(())
        } else {
            Err(invalid(
                what,
                format!(
                    "buffer {} was allocated in the context of device {}, but this tcgemm Context runs on device {}; \
                     allocate it on this context's device",
                    what.to_uppercase(),
                    theirs.ordinal(),
                    self.cuda.ordinal()
                ),
            ))
        }
    }

    /// Allocates `len` zeroed elements on this context's device, ordered on [`Context::stream`]
    /// (cudarc's stream-ordered allocation: the buffer is freed in stream order when dropped, after
    /// every kernel enqueued on it).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the device cannot hold the buffer (the context stays usable);
    /// [`Error::InvalidArgument`] when `len` elements overflow the address space;
    /// [`Error::Driver`] for other driver failures.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// let c = ctx.alloc_zeros::<f32>(1 << 20)?;
    /// assert!(matches!(ctx.alloc_zeros::<f32>(1 << 50), Err(tcgemm::Error::OutOfMemory(_))));
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>> {
        if len.checked_mul(core::mem::size_of::<T>()).is_none() {
            return Err(invalid(
                "len",
                format!(
                    "{len} elements of {} bytes overflow usize",
                    core::mem::size_of::<T>()
                ),
            ));
        }
        Ok(self.stream.alloc_zeros::<T>(len)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Context>();
        assert_send_sync::<Capabilities>();
        assert_send_sync::<crate::Plan>();
        assert_send_sync::<crate::Problem>();
        assert_send_sync::<crate::Reason>();
    }

    #[test]
    fn no_gpu_means_error_not_panic() {
        let visible = matches!(Context::device_count(), Ok(n) if n > 0);
        let r = Context::new(0);
        if !visible {
            assert!(
                matches!(r, Err(Error::NoDevice(_) | Error::Driver(_))),
                "{r:?}"
            );
        }
        // An ordinal past every device is never a panic.
        let r = Context::new(usize::MAX);
        assert!(
            matches!(r, Err(Error::NoDevice(_) | Error::Driver(_))),
            "{r:?}"
        );
        assert!(
            Context::with_options(
                0,
                ContextOptions {
                    force_sm80: true,
                    allow_tf32: Some(true),
                    ..Default::default()
                }
            )
            .is_ok()
                == visible
        );
    }

    #[test]
    fn tf32_env_parsing() {
        assert!(!env_allows_tf32(None));
        assert!(env_allows_tf32(Some("1")));
        assert!(env_allows_tf32(Some(" true ")));
        assert!(env_allows_tf32(Some("TRUE")));
        assert!(!env_allows_tf32(Some("0")));
        assert!(!env_allows_tf32(Some("")));
        assert!(!env_allows_tf32(Some("yes please")));
    }
}
