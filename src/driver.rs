//! The CUDA driver library: whether it is there, and which entry points it exports.
//!
//! cudarc loads the driver library lazily and panics on a missing symbol, so tcgemm probes the
//! library and every entry point it calls once, up front, and turns a miss into
//! [`Error::NoDevice`].

use crate::error::{Error, Result};
use cudarc::driver::sys;
use std::sync::OnceLock;

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
pub(crate) fn driver_library() -> Result<()> {
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
pub(crate) fn driver_has(name: &str) -> bool {
    if driver_library().is_err() {
        return false;
    }
    // SAFETY: `driver_library` succeeded, so a driver library is loaded and `culib` returns
    // cudarc's process-wide handle to it without panicking.
    let lib = unsafe { sys::culib() };
    // SAFETY: looks the symbol up without calling it; the typed pointer is discarded.
    unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_ok()
}

/// Whether the driver has `cuLaunchKernelEx` (CUDA 12), which launches thread-block clusters and
/// programmatic dependent launches; asked once.
pub(crate) fn has_launch_ex() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| driver_has("cuLaunchKernelEx"))
}
