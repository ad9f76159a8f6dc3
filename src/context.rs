//! [`Context`]: a device, a stream and the loaded kernels; the entry point for running GEMMs.

use crate::dispatch::{self, Ptrs, Query};
use crate::element::Element;
use crate::error::{invalid, Error, Result};
use crate::gemm::Gemm;
use crate::images;
use crate::launch;
use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    DeviceSlice, ValidAsZeroBits,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use tcgemm_kernels::config::uses_tma_params;
use tcgemm_kernels::config::{
    ceiling_flops_per_trip, find_kernel, KernelSpec, Math, Role, Target, KERNELS,
};
use tcgemm_kernels::params::{flags, GemmParams};

/// Options for [`Context::with_options`] and [`Context::from_stream`].
///
/// ```
/// let opts = tcgemm::ContextOptions { allow_tf32: Some(true), ..Default::default() };
/// assert!(!opts.force_sm80);
/// ```
#[derive(Clone, Debug, Default)]
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
}

/// What the device of a [`Context`] offers and what tcgemm loaded for it.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let caps = ctx.capabilities();
/// println!("{} (sm_{}{}), {} SMs", caps.name, caps.compute_capability.0, caps.compute_capability.1, caps.sm_count);
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Capabilities {
    /// Device name.
    pub name: String,
    /// Device ordinal.
    pub ordinal: usize,
    /// `(major, minor)` compute capability.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Largest dynamic shared memory a block may opt into, bytes.
    pub max_smem_per_block_optin: u32,
    /// L2 cache size, bytes.
    pub l2_bytes: u32,
    /// Tensor cores usable by tcgemm's `mma.sync` kernels (compute capability ≥ 8.0).
    pub tensor_cores: bool,
    /// The `sm_90a` (Hopper) module is loaded.
    pub hopper: bool,
    /// PTX modules loaded.
    pub targets: Vec<Target>,
    /// What was loaded for each module (machine code for which architecture, or PTX) and how long
    /// it took.
    pub modules: Vec<images::LoadedModule>,
}

/// How a call runs: the kernel and its launch shape. Returned by [`Context::plan`] and used by
/// [`Context::gemm`], so the two always agree.
///
/// The grid's x covers the `m×n` output tiles of the kernel's block tile; batch item
/// `z = ctaid.y + ctaid.z·nctaid.y` (y up to 65535, z for larger batches). The Hopper TMA kernels
/// are persistent instead: `(min(tiles·batch, SMs), 1, 1)`. A call with no output (`m`, `n` or
/// `batch` zero) plans a grid with a zero extent and launches nothing.
///
/// ```no_run
/// use tcgemm::{Context, Gemm};
/// let ctx = Context::new(0)?;
/// let plan = ctx.plan::<f32, f32>(&Gemm::new(1000, 500, 64))?;
/// println!("{} grid {:?} block {:?} smem {}", plan.kernel.name, plan.grid, plan.block, plan.smem_bytes);
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// The kernel.
    pub kernel: &'static KernelSpec,
    /// Grid, in blocks.
    pub grid: (u32, u32, u32),
    /// Block, in threads.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: u32,
}

/// Largest grid x dimension CUDA accepts.
const MAX_GRID_X: usize = i32::MAX as usize;
/// Largest grid y dimension CUDA accepts.
const MAX_GRID_Y: usize = 65535;
/// Dynamic shared memory a kernel gets without opting in.
const DEFAULT_SMEM_LIMIT: u32 = 48 * 1024;

impl Plan {
    /// The launch shape of `kernel` for a validated call `g` on a device with `sm_count` SMs.
    ///
    /// The Hopper TMA kernels are persistent: one CTA per SM (at most one per work item), each
    /// looping over work items `tile + z·tiles`; `dispatch::kernel_accepts` keeps them to calls
    /// whose tiles·batch fits 32 bits.
    pub(crate) fn for_kernel(kernel: &'static KernelSpec, g: &Gemm, sm_count: u32) -> Result<Plan> {
        let (bm, bn) = (kernel.block.m as usize, kernel.block.n as usize);
        if bm == 0 || bn == 0 || kernel.threads == 0 {
            return Err(Error::Unsupported(format!(
                "kernel table entry `{}` has an empty block tile or no threads; fix its KernelSpec",
                kernel.name
            )));
        }
        let tiles = g
            .m
            .div_ceil(bm)
            .checked_mul(g.n.div_ceil(bn))
            .filter(|&t| t <= MAX_GRID_X)
            .ok_or_else(|| {
                invalid(
                    "m, n",
                    format!(
                        "{}×{} needs more than {MAX_GRID_X} output tiles of {bm}×{bn} for kernel `{}`; split the call along m or n",
                        g.m, g.n, kernel.name
                    ),
                )
            })?;
        if uses_tma_params(kernel) {
            let work = (tiles as u64).saturating_mul(g.batch as u64);
            return Ok(Plan {
                kernel,
                // ≤ sm_count, so it fits u32
                grid: (work.min(u64::from(sm_count.max(1))) as u32, 1, 1),
                block: (kernel.threads, 1, 1),
                smem_bytes: kernel.smem_bytes,
            });
        }
        // Batch item z = ctaid.y + ctaid.z·nctaid.y: y up to 65535, z for the rest (the kernels
        // return early for z ≥ batch, so the last z slice may overshoot).
        let batch_y = g.batch.min(MAX_GRID_Y);
        let batch_z = if batch_y == 0 {
            0
        } else {
            g.batch.div_ceil(batch_y)
        };
        if batch_z > MAX_GRID_Y {
            return Err(invalid(
                "batch",
                format!(
                    "{} batch items exceed the grid's {}·{} limit; split the call",
                    g.batch, MAX_GRID_Y, MAX_GRID_Y
                ),
            ));
        }
        Ok(Plan {
            kernel,
            // All fit in u32: tiles ≤ i32::MAX, batch_y and batch_z ≤ 65535.
            grid: (tiles as u32, batch_y as u32, batch_z.max(1) as u32),
            block: (kernel.threads, 1, 1),
            smem_bytes: kernel.smem_bytes,
        })
    }
}

/// Driver entry points tcgemm (through cudarc) calls. cudarc panics on a missing symbol, so they are
/// probed once up front.
const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventDestroy_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
];

/// Checks, once per process, that the CUDA driver library can be loaded and has every entry point
/// tcgemm needs, so that no later cudarc call panics.
fn driver_library() -> Result<()> {
    static PROBE: OnceLock<core::result::Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            // SAFETY: only tries to dlopen the CUDA driver library by its usual names (running its
            // initializers, which is what every CUDA program does) and closes it again.
            if !unsafe { sys::is_culib_present() } {
                return Err("the CUDA driver library (libcuda.so / nvcuda.dll) was not found; install the NVIDIA \
                            driver or add the directory holding libcuda.so to LD_LIBRARY_PATH"
                    .to_string());
            }
            // SAFETY: `culib` panics only when no candidate library loads, which the check above just
            // ruled out; it returns the process-wide handle cudarc itself uses.
            let lib = unsafe { sys::culib() };
            for name in DRIVER_SYMBOLS {
                // SAFETY: looks the symbol up without calling it; the typed pointer is discarded.
                let found = unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_ok();
                if !found {
                    return Err(format!(
                        "the CUDA driver library lacks `{name}`; install a newer NVIDIA driver"
                    ));
                }
            }
            Ok(())
        })
        .clone()
        .map_err(Error::NoDevice)
}

/// Whether the loaded CUDA driver library exports `name` (an optional entry point: cudarc would
/// panic on calling a missing one). Only meaningful after [`driver_library`] succeeded.
fn driver_has(name: &str) -> bool {
    if driver_library().is_err() {
        return false;
    }
    // SAFETY: `driver_library` succeeded, so a driver library is loaded and `culib` returns
    // cudarc's process-wide handle to it without panicking.
    let lib = unsafe { sys::culib() };
    // SAFETY: looks the symbol up without calling it; the typed pointer is discarded.
    unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_ok()
}

/// Whether a `TCGEMM_ALLOW_TF32` value allows TF32.
fn env_allows_tf32(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        v == "1" || v.eq_ignore_ascii_case("true")
    })
}

/// Reads a non-negative device attribute.
fn attribute(cuda: &CudaContext, a: CUdevice_attribute) -> Result<u32> {
    Ok(u32::try_from(cuda.attribute(a)?).unwrap_or(0))
}

/// Reads the device's capabilities (without the module fields) and requires compute capability ≥ 8.0.
fn read_capabilities(cuda: &CudaContext) -> Result<Capabilities> {
    let (major, minor) = cuda.compute_capability()?;
    let cc = (
        u32::try_from(major).unwrap_or(0),
        u32::try_from(minor).unwrap_or(0),
    );
    if cc < (8, 0) {
        return Err(Error::Unsupported(format!(
            "compute capability {}.{}; tcgemm needs 8.0 (Ampere) or newer",
            cc.0, cc.1
        )));
    }
    Ok(Capabilities {
        name: cuda.name()?,
        ordinal: cuda.ordinal(),
        compute_capability: cc,
        sm_count: attribute(
            cuda,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )?,
        max_smem_per_block_optin: attribute(
            cuda,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        l2_bytes: attribute(cuda, CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
        tensor_cores: cc >= (8, 0),
        hopper: false,
        targets: Vec::new(),
        modules: Vec::new(),
    })
}

/// The modules to load for a device: always `sm_80`, plus `sm_90a` on compute capability 9.0.
fn wanted_targets(cc: (u32, u32), force_sm80: bool) -> Vec<Target> {
    Target::ALL
        .into_iter()
        .filter(|t| match t {
            Target::Sm80 => true,
            Target::Sm90a => cc == (9, 0) && !force_sm80,
        })
        .collect()
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
    /// Runnable kernels by name.
    functions: HashMap<&'static str, CudaFunction>,
    /// Why each listed kernel that is not runnable is not.
    unavailable: HashMap<&'static str, String>,
}

impl core::fmt::Debug for Context {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Context")
            .field("capabilities", &self.caps)
            .field("allow_tf32", &self.allow_tf32)
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

    /// Number of CUDA devices visible (0 when the driver reports none).
    ///
    /// # Errors
    /// [`Error::NoDevice`] when the CUDA driver library is missing; [`Error::Driver`] when it fails.
    ///
    /// ```
    /// match tcgemm::Context::device_count() {
    ///     Ok(n) => println!("{n} device(s)"),
    ///     Err(e) => println!("no CUDA: {e}"),
    /// }
    /// ```
    pub fn device_count() -> Result<usize> {
        driver_library()?;
        match CudaContext::device_count() {
            Ok(n) => Ok(usize::try_from(n).unwrap_or(0)),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NO_DEVICE => Ok(0),
            Err(e) => Err(e.into()),
        }
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
        let wanted = wanted_targets(caps.compute_capability, opts.force_sm80);
        let mut functions = HashMap::new();
        let mut unavailable = HashMap::new();
        let mark = |unavailable: &mut HashMap<&'static str, String>, t: Target, why: &str| {
            for k in KERNELS.iter().filter(|k| k.target() == t) {
                unavailable.insert(k.name, why.to_string());
            }
        };
        let mut loaded = Vec::new();
        for t in Target::ALL {
            if !wanted.contains(&t) {
                let (ma, mi) = caps.compute_capability;
                let why = if opts.force_sm80 {
                    format!(
                        "the {} module is not loaded (ContextOptions::force_sm80)",
                        t.cpu()
                    )
                } else {
                    format!(
                        "the {} module does not run on compute capability {ma}.{mi}",
                        t.cpu()
                    )
                };
                mark(&mut unavailable, t, &why);
                continue;
            }
            if t == Target::Sm90a && !driver_has("cuTensorMapEncodeTiled") {
                // the TMA kernels need tensor maps from the driver (CUDA 12.0 and newer)
                mark(
                    &mut unavailable,
                    t,
                    "the CUDA driver lacks cuTensorMapEncodeTiled (TMA tensor maps); install a newer NVIDIA driver",
                );
                continue;
            }
            let started = std::time::Instant::now();
            let Some((image, machine_code)) =
                images::load_image(t, caps.compute_capability, opts.load_ptx)?
            else {
                mark(
                    &mut unavailable,
                    t,
                    &format!(
                        "this build's {} module holds no kernels (the PTX was not built)",
                        t.cpu()
                    ),
                );
                continue;
            };
            match cuda.load_module(image) {
                Ok(module) => {
                    loaded.push(images::LoadedModule {
                        target: t,
                        machine_code,
                        load_seconds: started.elapsed().as_secs_f64(),
                    });
                    for k in KERNELS.iter().filter(|k| k.target() == t) {
                        let f = match module.load_function(k.name) {
                            Ok(f) => f,
                            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => {
                                unavailable.insert(
                                    k.name,
                                    format!(
                                        "missing from this build's {} module (rebuild the PTX)",
                                        t.cpu()
                                    ),
                                );
                                continue;
                            }
                            Err(e) => return Err(e.into()),
                        };
                        if k.smem_bytes > DEFAULT_SMEM_LIMIT {
                            if k.smem_bytes > caps.max_smem_per_block_optin {
                                unavailable.insert(
                                    k.name,
                                    format!(
                                        "needs {} bytes of shared memory per block, this device allows {}",
                                        k.smem_bytes, caps.max_smem_per_block_optin
                                    ),
                                );
                                continue;
                            }
                            // ≤ the device's opt-in maximum, a small positive i32.
                            let bytes = i32::try_from(k.smem_bytes).unwrap_or(i32::MAX);
                            cuda.bind_to_thread()?;
                            f.set_attribute(
                                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                bytes,
                            )?;
                        }
                        functions.insert(k.name, f);
                    }
                }
                // The Hopper module is optional: run with the sm_80 kernels if the driver rejects it.
                Err(e) if t == Target::Sm90a => {
                    mark(
                        &mut unavailable,
                        t,
                        &format!("the {} module failed to load: {e}", t.cpu()),
                    );
                }
                Err(e) => return Err(e.into()),
            }
        }
        caps.hopper = loaded.iter().any(|m| m.target == Target::Sm90a);
        caps.targets = loaded.iter().map(|m| m.target).collect();
        caps.modules = loaded;
        Ok(Context {
            cuda,
            stream,
            caps,
            allow_tf32,
            functions,
            unavailable,
        })
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
            .filter(|k| self.functions.contains_key(k.name))
            .collect()
    }

    /// The loaded function of `spec`, or an `Unsupported` error saying why there is none
    /// (`what`: "kernel", "conversion kernel", ...).
    fn function(&self, spec: &KernelSpec, what: &str) -> Result<&CudaFunction> {
        self.functions.get(spec.name).ok_or_else(|| {
            Error::Unsupported(format!(
                "{what} `{}` is not loaded: {}",
                spec.name,
                self.why_unusable(spec)
            ))
        })
    }

    /// Why the listed kernel `spec` cannot run this call here.
    fn why_unusable(&self, spec: &KernelSpec) -> String {
        if self.functions.contains_key(spec.name) {
            // loaded but refused: the only per-call rule is the TMA kernels' (dispatch::kernel_accepts)
            "TMA kernels need 16-byte-aligned buffer addresses, leading dimensions and batch strides, \
             k ≥ 1 with alpha ≠ 0, and fewer than 2³² output tiles × batch items"
                .to_string()
        } else {
            self.unavailable
                .get(spec.name)
                .cloned()
                .unwrap_or_else(|| "not loaded".to_string())
        }
    }

    /// The kernel dispatch picks for `q` (`ptrs: None` assumes aligned buffers).
    fn select(&self, q: &Query, g: &Gemm, ptrs: Option<Ptrs>) -> Result<&'static KernelSpec> {
        dispatch::select_sized(KERNELS, q, Some((g, self.caps.sm_count)), |s| {
            self.functions.contains_key(s.name) && dispatch::kernel_accepts(s, g, ptrs)
        })
        .ok_or_else(|| dispatch::no_kernel_error(KERNELS, q, |s| self.why_unusable(s)))
    }

    /// Which kernel [`Context::gemm`] would run for `g` with `I` inputs and `O` output, and its
    /// launch shape; launches nothing. Assumes buffers aligned like fresh allocations (an unaligned
    /// view may steer `gemm` away from a kernel that needs alignment).
    ///
    /// # Errors
    /// As [`Context::gemm`], without the buffer-length checks.
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let plan = ctx.plan::<f32, f32>(&Gemm::new(4096, 4096, 4096).trans_b(true))?;
    /// assert!(plan.kernel.trans_b);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn plan<I: Element, O: Element>(&self, g: &Gemm) -> Result<Plan> {
        let q = Query::new(g, I::ELEM, O::ELEM, self.allow_tf32)?;
        let (a, b, c) = g.required_lens()?;
        g.validate(a, b, c)?;
        let spec = self.select(&q, g, None)?;
        Plan::for_kernel(spec, g, self.caps.sm_count)
    }

    /// Checks that a buffer lives on this context's device.
    fn check_buffer<T>(&self, what: &'static str, buf: &impl DeviceSlice<T>) -> Result<()> {
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

    /// Validates the buffers and, for a call with output, returns their addresses to `run`.
    fn prepare<I, O, A, B, C>(&self, g: &Gemm, a: &A, b: &B, c: &C) -> Result<bool>
    where
        A: DeviceSlice<I>,
        B: DeviceSlice<I>,
        C: DeviceSlice<O>,
    {
        g.validate(a.len(), b.len(), c.len())?;
        if g.is_empty() {
            return Ok(false);
        }
        self.check_buffer("a", a)?;
        self.check_buffer("b", b)?;
        self.check_buffer("c", c)?;
        Ok(true)
    }

    /// Launches `spec` for a validated, non-empty call.
    fn run(&self, spec: &'static KernelSpec, g: &Gemm, ptrs: Ptrs) -> Result<()> {
        let func = self.function(spec, "kernel")?;
        let plan = Plan::for_kernel(spec, g, self.caps.sm_count)?;
        let p = launch::params(g, spec.input, spec.output, ptrs)?;
        // SAFETY: `func` is the entry point named `spec.name`, loaded from `spec.target`'s module;
        // `p` comes from `launch::params` for `g`, which `prepare` validated against the lengths of
        // the buffers whose addresses are in `ptrs`; the callers hold those buffers' stream guards
        // (and borrows) until this returns, and cudarc's events keep the allocations alive until
        // the kernel has run.
        unsafe { launch::launch(&self.stream, func, &plan, p) }
    }

    /// Enqueues `C = alpha·op(A)·op(B) + beta·C` (batched as `g` says) on [`Context::stream`] with
    /// the kernel [`Context::plan`] picks; returns without waiting for the GPU.
    ///
    /// `g` is checked against the buffers' lengths first ([`Gemm::validate`]); nothing is launched
    /// when `m`, `n` or `batch` is zero. With `k == 0` or `alpha == 0` A and B are not read and the
    /// kernel computes `C = beta·C`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a description that does not fit the buffers, a buffer of
    /// another device, or [`Precision::Tf32`](crate::Precision::Tf32) with half-precision inputs;
    /// [`Error::Unsupported`] when no loaded kernel serves the element types, transposes and
    /// precision; [`Error::Driver`] when the launch fails.
    ///
    /// ```no_run
    /// use half::f16;
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// // C (f32, 64×32) = A (f16, stored 128×64, i.e. transposed) · B (f16, 128×32), 8 times.
    /// let g = Gemm::new(64, 32, 128).trans_a(true).batch(8);
    /// let (la, lb, lc) = g.required_lens()?;
    /// let a = s.clone_htod(&vec![f16::ONE; la])?;
    /// let b = s.clone_htod(&vec![f16::ONE; lb])?;
    /// let mut c = s.alloc_zeros::<f32>(lc)?;
    /// ctx.gemm(&g, &a, &b, &mut c)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gemm<I, O, A, B, C>(&self, g: &Gemm, a: &A, b: &B, c: &mut C) -> Result<()>
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let q = Query::new(g, I::ELEM, O::ELEM, self.allow_tf32)?;
        if !self.prepare(g, a, b, c)? {
            return Ok(());
        }
        self.with_ptrs(a, b, c, |ptrs| {
            let spec = self.select(&q, g, Some(ptrs))?;
            self.run(spec, g, ptrs)
        })
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

    /// Converts `src` element-wise into `dst` on the GPU, asynchronously on the context's stream:
    /// f32 → f16 or bf16 (round to nearest even; beyond the range → ±inf, NaN stays NaN, subnormals
    /// kept) and f16 or bf16 → f32 (exact). So f32 data can take the 16-bit tensor-core path.
    /// Converts `src.len()` elements; `dst` may be longer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dst` is shorter than `src` or a buffer is on another device;
    /// [`Error::Unsupported`] for other type pairs.
    ///
    /// ```no_run
    /// use tcgemm::Context;
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let x = s.clone_htod(&vec![1.5f32; 1000])?;
    /// let mut h = s.alloc_zeros::<half::f16>(1000)?;
    /// ctx.convert(&x, &mut h)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn convert<S, D, A, B>(&self, src: &A, dst: &mut B) -> Result<()>
    where
        S: Element,
        D: Element,
        A: DevicePtr<S>,
        B: DevicePtrMut<D>,
    {
        let spec = KERNELS
            .iter()
            .find(|k| k.role() == Role::Convert && k.input == S::ELEM && k.output == D::ELEM)
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "no conversion {:?} -> {:?}; tcgemm converts f32 <-> f16 and f32 <-> bf16",
                    S::ELEM,
                    D::ELEM
                ))
            })?;
        let n = src.len();
        if dst.len() < n {
            return Err(invalid(
                "dst",
                format!("holds {} elements but src has {n}", dst.len()),
            ));
        }
        self.check_buffer("src", src)?;
        self.check_buffer("dst", dst)?;
        if n == 0 {
            return Ok(());
        }
        let func = self.function(spec, "conversion kernel")?;
        let (ps, _read) = src.device_ptr(&self.stream);
        let (pd, _write) = dst.device_ptr_mut(&self.stream);
        // Vector groups of 4: 16 bytes of f32 and 8 bytes of 16-bit elements.
        let (sa, da) = (4 * S::ELEM.bytes() as u64, 4 * D::ELEM.bytes() as u64);
        let vec = ps % sa == 0 && pd % da == 0;
        let p = GemmParams {
            a: ps,
            c: pd,
            stride_a: n as u64,
            flags: if vec { flags::VEC_A | flags::VEC_C } else { 0 },
            ..GemmParams::default()
        };
        let groups = n.div_ceil(4 * spec.threads as usize);
        let blocks = (self.caps.sm_count as usize * spec.min_blocks_per_sm as usize)
            .min(groups)
            .max(1);
        let plan = Plan {
            kernel: spec,
            grid: (blocks as u32, 1, 1),
            block: (spec.threads, 1, 1),
            smem_bytes: 0,
        };
        // SAFETY: conversion kernels take one `GemmParams` and touch only `a[0..stride_a]` (read)
        // and `c[0..stride_a]` (write); `src` holds `n` elements and `dst` at least `n`; the vector
        // flags are set only when both addresses have the vector alignment; the guards live across
        // the launch.
        unsafe { launch::launch(&self.stream, func, &plan, p) }?;
        Ok(())
    }

    /// Runs the instruction-ceiling microkernel for `math` (only that multiply-accumulate
    /// instruction, from registers, 8 independent chains per thread or warp) asynchronously on the
    /// context's stream: `blocks_per_sm × sm_count` blocks of 256 threads, `trips` loop trips each.
    /// Returns the FLOPs it performs; time it with events to get this GPU's peak for `math`.
    /// `out` receives one f32 per thread (keeps the work live) and must hold
    /// `256 · blocks_per_sm · sm_count` elements.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a short `out`, a buffer on another device, zero sizes, or a
    /// FLOP count beyond `u64`; [`Error::Unsupported`] when no ceiling kernel exists for `math` (f16 accumulation) or it is
    /// not loaded.
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
        let spec = KERNELS
            .iter()
            .find(|k| k.role() == Role::Ceiling && k.math == math)
            .ok_or_else(|| {
                Error::Unsupported(format!("no instruction-ceiling kernel for {math:?}"))
            })?;
        let func = self.function(spec, "ceiling kernel")?;
        if blocks_per_sm == 0 || trips == 0 {
            return Err(invalid("blocks_per_sm, trips", "both must be at least 1"));
        }
        let blocks = blocks_per_sm
            .checked_mul(self.caps.sm_count)
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| invalid("blocks_per_sm", "too many blocks"))?;
        // The FLOP count this returns, checked before anything launches: a large
        // `blocks_per_sm · trips` overflows u64 (a panic where overflow checks are on).
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
        let (pc, _write) = out.device_ptr_mut(&self.stream);
        let p = GemmParams {
            c: pc,
            k: trips,
            alpha: 1.000_001,
            beta: 1e-7,
            flags: 0x3c00_3c01,
            ..GemmParams::default()
        };
        let plan = Plan {
            kernel: spec,
            grid: (blocks, 1, 1),
            block: (spec.threads, 1, 1),
            smem_bytes: 0,
        };
        // SAFETY: ceiling kernels take one `GemmParams`; they write only `c[global thread]`, and
        // `out` was checked to hold one f32 per launched thread; its guard lives across the launch.
        unsafe { launch::launch(&self.stream, func, &plan, p) }?;
        Ok(flops)
    }

    /// [`Context::gemm`] with the kernel named `kernel` instead of the one dispatch picks (tests
    /// and benchmarks). `g.precision` is ignored: the kernel's math is used.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no kernel has that name, or its element types or transposes
    /// differ from the call's, or it needs alignment the buffers lack; [`Error::Unsupported`] when
    /// it is not runnable on this context (module not loaded, missing from the module, too much
    /// shared memory); otherwise as [`Context::gemm`].
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let a = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let b = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let mut c = s.alloc_zeros::<f32>(64 * 64)?;
    /// ctx.gemm_with_kernel("sgemm_nn_128x128x8_t8x8_s2", &Gemm::new(64, 64, 64), &a, &b, &mut c)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gemm_with_kernel<I, O, A, B, C>(
        &self,
        kernel: &str,
        g: &Gemm,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<()>
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let spec = find_kernel(kernel).ok_or_else(|| {
            invalid(
                "kernel",
                format!("no kernel named `{kernel}` in this build; Context::kernels() lists the runnable ones"),
            )
        })?;
        dispatch::check_forced(spec, I::ELEM, O::ELEM, g)?;
        if !self.functions.contains_key(spec.name) {
            return Err(Error::Unsupported(format!(
                "kernel `{}` cannot run on this context: {}",
                spec.name,
                self.why_unusable(spec)
            )));
        }
        if !self.prepare(g, a, b, c)? {
            return Ok(());
        }
        self.with_ptrs(a, b, c, |ptrs| {
            if !dispatch::kernel_accepts(spec, g, Some(ptrs)) {
                return Err(invalid(
                    "kernel",
                    format!("kernel `{}`: {}", spec.name, self.why_unusable(spec)),
                ));
            }
            self.run(spec, g, ptrs)
        })
    }

    /// Runs `f` with the device addresses of A, B and C. The stream guards cudarc returns with
    /// them live until `f` (which launches) has returned, so they record the kernel's reads of A
    /// and B and its write of C for cross-stream ordering.
    fn with_ptrs<I, O, A, B, C, R>(&self, a: &A, b: &B, c: &mut C, f: impl FnOnce(Ptrs) -> R) -> R
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let (pa, _read_a) = a.device_ptr(&self.stream);
        let (pb, _read_b) = b.device_ptr(&self.stream);
        let (pc, _write_c) = c.device_ptr_mut(&self.stream);
        f(Ptrs {
            a: pa,
            b: pb,
            c: pc,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcgemm_kernels::config::GemmShape;

    fn spec() -> KernelSpec {
        KERNELS[0]
    }

    fn leak(s: KernelSpec) -> &'static KernelSpec {
        Box::leak(Box::new(s))
    }

    #[test]
    fn context_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Context>();
        assert_send_sync::<Capabilities>();
        assert_send_sync::<Plan>();
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

    #[test]
    fn targets_per_device() {
        assert_eq!(wanted_targets((8, 0), false), vec![Target::Sm80]);
        assert_eq!(wanted_targets((8, 9), false), vec![Target::Sm80]);
        assert_eq!(
            wanted_targets((9, 0), false),
            vec![Target::Sm80, Target::Sm90a]
        );
        assert_eq!(wanted_targets((9, 0), true), vec![Target::Sm80]);
        assert_eq!(wanted_targets((10, 0), false), vec![Target::Sm80]);
        assert_eq!(wanted_targets((12, 0), false), vec![Target::Sm80]);
    }

    #[test]
    fn plan_grid() {
        let k = leak(spec());
        let (bm, bn) = (k.block.m as usize, k.block.n as usize);
        let g = Gemm::new(2 * bm + 1, 3 * bn, 17);
        let p = Plan::for_kernel(k, &g, 132).unwrap();
        assert_eq!(p.grid, (3 * 3, 1, 1));
        assert_eq!(p.block, (k.threads, 1, 1));
        assert_eq!(p.smem_bytes, k.smem_bytes);
        assert_eq!(Plan::for_kernel(k, &g.batch(7), 132).unwrap().grid.1, 7);
        let big = Plan::for_kernel(k, &g.batch(1_000_000), 132).unwrap().grid;
        assert_eq!((big.1, big.2), (65535, 16)); // 65535·16 ≥ 1e6 > 65535·15
        assert!(Plan::for_kernel(k, &g.batch(65535 * 65535 + 1), 132).is_err());
        assert_eq!(
            Plan::for_kernel(k, &Gemm::new(1, 1, 1), 132).unwrap().grid,
            (1, 1, 1)
        );
        assert_eq!(
            Plan::for_kernel(k, &Gemm::new(0, 5, 1), 132)
                .unwrap()
                .grid
                .0,
            0
        );
        assert_eq!(
            Plan::for_kernel(k, &Gemm::new(5, 5, 1).batch(0), 132)
                .unwrap()
                .grid
                .1,
            0
        );
    }

    #[test]
    fn tma_plans_are_persistent() {
        let tma = KERNELS
            .iter()
            .find(|k| uses_tma_params(k))
            .expect("the table has TMA kernels");
        let (bm, bn) = (tma.block.m as usize, tma.block.n as usize);
        // 4·2 tiles × 3 batch items = 24 work items: fewer than the SMs, one CTA each
        let g = Gemm::new(4 * bm, 2 * bn, 64).batch(3);
        let p = Plan::for_kernel(tma, &g, 132).unwrap();
        assert_eq!(p.grid, (24, 1, 1));
        // more work items than SMs: one CTA per SM
        let big = Gemm::new(40 * bm, 40 * bn, 64);
        assert_eq!(Plan::for_kernel(tma, &big, 132).unwrap().grid, (132, 1, 1));
        // no output: nothing launches
        let none = Gemm::new(0, bn, 64);
        assert_eq!(Plan::for_kernel(tma, &none, 132).unwrap().grid.0, 0);
        // other kernels: one CTA per tile, batch items over y and z
        let k = leak(spec());
        let (kbm, kbn) = (k.block.m as usize, k.block.n as usize);
        let g80 = Gemm::new(4 * kbm, 2 * kbn, 64).batch(3);
        assert_eq!(Plan::for_kernel(k, &g80, 132).unwrap().grid, (8, 3, 1));
    }

    #[test]
    fn plan_rejects_too_many_tiles() {
        let small = leak(KernelSpec {
            block: GemmShape::new(16, 16, 8),
            ..spec()
        });
        let big = crate::gemm::MAX_DIM;
        let e = Plan::for_kernel(small, &Gemm::new(big, big, 1), 132).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { what: "m, n", .. }),
            "{e}"
        );
        // Exactly at the limit is fine: i32::MAX tiles of 1×1.
        let unit = leak(KernelSpec {
            block: GemmShape::new(1, 1, 1),
            ..spec()
        });
        assert_eq!(
            Plan::for_kernel(unit, &Gemm::new(big, 1, 1), 132)
                .unwrap()
                .grid
                .0,
            i32::MAX as u32
        );
        assert!(Plan::for_kernel(unit, &Gemm::new(big, 2, 1), 132).is_err());
    }

    #[test]
    fn plan_rejects_broken_spec() {
        let empty = leak(KernelSpec {
            block: GemmShape::new(0, 128, 8),
            ..spec()
        });
        assert!(matches!(
            Plan::for_kernel(empty, &Gemm::new(4, 4, 4), 132),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn plan_rejects_batches_beyond_the_grid() {
        // docs/errors.md: a batch the sm_80 grid (y·z ≤ 65535²) cannot cover; validate accepts it
        // (≤ u32::MAX), so the plan is where it is refused.
        let k = leak(spec());
        assert!(!uses_tma_params(k));
        let most = 65535usize * 65535;
        let g = Gemm::new(1, 1, 1).batch(most + 1);
        g.validate(most + 1, most + 1, most + 1).unwrap();
        assert_eq!(
            Plan::for_kernel(k, &g.batch(most), 132).unwrap().grid,
            (1, 65535, 65535)
        );
        match Plan::for_kernel(k, &g, 132) {
            Err(Error::InvalidArgument { what, why }) => {
                assert_eq!(what, "batch", "{why}");
                assert!(why.contains("split the call"), "{why}");
            }
            other => panic!("expected InvalidArgument {{ what: \"batch\" }}, got {other:?}"),
        }
    }
}
