//! [`Capabilities`]: what the device of a [`Context`](crate::Context) offers, read once when the
//! context is made; and how many devices there are ([`Context::device_count`]).

use super::Context;
use crate::driver::driver_library;
use crate::error::{Error, Result};
use crate::images;
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::CudaContext;
use tcgemm_kernels::config::Target;

/// What the device of a [`Context`](crate::Context) offers and what tcgemm loaded for it.
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

/// Reads a non-negative device attribute.
fn attribute(cuda: &CudaContext, a: CUdevice_attribute) -> Result<u32> {
    Ok(u32::try_from(cuda.attribute(a)?).unwrap_or(0))
}

/// Reads the device's capabilities (without the module fields) and requires compute capability ≥ 8.0.
pub(super) fn read_capabilities(cuda: &CudaContext) -> Result<Capabilities> {
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

impl Context {
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
}
