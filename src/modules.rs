//! Loading tcgemm's modules (machine code for the device where this build has some, else PTX;
//! see [`images`](crate::images)) and kernel functions into a context, and recording why each
//! kernel of the table that is not runnable is not.

use crate::context::Capabilities;
use crate::driver::driver_has;
use crate::error::Result;
use crate::images::{self, LoadedModule};
use cudarc::driver::sys::{CUfunction_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use std::collections::HashMap;
use std::sync::Arc;
use tcgemm_kernels::config::{KernelSpec, Target, KERNELS};

/// Dynamic shared memory a kernel gets without opting in.
const DEFAULT_SMEM_LIMIT: u32 = 48 * 1024;

/// The modules to load for a device: always `sm_80`; `sm_90` (its TF32 `mma.sync` kernels and the
/// split-K reduction built for sm_90) from compute capability 9.0, `force_sm80` or not, since those are the same kernels
/// as this device runs them; `sm_90a` on compute capability 9.0.
pub(crate) fn wanted_targets(cc: (u32, u32), force_sm80: bool) -> Vec<Target> {
    Target::ALL
        .into_iter()
        .filter(|t| match t {
            Target::Sm80 => true,
            Target::Sm90 => cc >= (9, 0),
            Target::Sm90a => cc == (9, 0) && !force_sm80,
        })
        .collect()
}

/// The kernels of the table loaded on one context, and why the others are not.
pub(crate) struct LoadedKernels {
    /// Runnable kernels by name, and the module each was taken from.
    functions: HashMap<&'static str, (CudaFunction, Target)>,
    /// Why each listed kernel that is not runnable is not.
    unavailable: HashMap<&'static str, String>,
    /// The modules loaded: which image and how long it took.
    modules: Vec<LoadedModule>,
}

impl LoadedKernels {
    /// Loads the modules `caps`' device runs ([`wanted_targets`]) and their kernels, in
    /// [`Target::ALL`]'s order: a kernel built in two modules is taken from the later one. A
    /// kernel missing from its module or needing more shared memory than the device allows is
    /// left out (or kept from the earlier module); so is a Hopper module the driver cannot load or
    /// lacks tensor maps for.
    /// `load_ptx`: load the PTX even where this build has machine code for the device.
    pub fn load(
        cuda: &Arc<CudaContext>,
        caps: &Capabilities,
        force_sm80: bool,
        load_ptx: bool,
    ) -> Result<LoadedKernels> {
        let mut loaded = LoadedKernels {
            functions: HashMap::new(),
            unavailable: HashMap::new(),
            modules: Vec::new(),
        };
        let wanted = wanted_targets(caps.compute_capability, force_sm80);
        for t in Target::ALL {
            let module = match skip_reason(t, &wanted, caps) {
                Some(why) => Err(why),
                None => load_module(cuda, t, caps.compute_capability, load_ptx)?,
            };
            match module {
                Ok((module, image)) => {
                    loaded.modules.push(image);
                    for k in KERNELS.iter().filter(|k| k.built_in(t)) {
                        match load_function(cuda, &module, t, k, caps)? {
                            Ok(f) => {
                                loaded.functions.insert(k.name, (f, t));
                                loaded.unavailable.remove(k.name);
                            }
                            Err(why) => {
                                if !loaded.functions.contains_key(k.name) {
                                    loaded.unavailable.insert(k.name, why);
                                }
                            }
                        }
                    }
                }
                Err(why) => loaded.mark(t, &why),
            }
        }
        Ok(loaded)
    }

    /// Records `why` for every kernel of module `t` not loaded from an earlier module.
    fn mark(&mut self, t: Target, why: &str) {
        for k in KERNELS.iter().filter(|k| k.built_in(t)) {
            if !self.functions.contains_key(k.name) {
                self.unavailable.insert(k.name, why.to_string());
            }
        }
    }

    /// The loaded function of kernel `name`.
    pub fn function(&self, name: &str) -> Option<&CudaFunction> {
        self.functions.get(name).map(|(f, _)| f)
    }

    /// The module kernel `name` was loaded from (the later of two that carry it).
    pub fn module_of(&self, name: &str) -> Option<Target> {
        self.functions.get(name).map(|&(_, t)| t)
    }

    /// Whether kernel `name` is loaded.
    pub fn is_loaded(&self, name: &str) -> bool {
        self.functions.contains_key(name)
    }

    /// Why kernel `name` is not loaded.
    pub fn why_not_loaded(&self, name: &str) -> String {
        self.unavailable
            .get(name)
            .cloned()
            .unwrap_or_else(|| "not loaded".to_string())
    }

    /// The modules loaded, in build order.
    pub fn modules(&self) -> &[LoadedModule] {
        &self.modules
    }
}

/// Why module `t` is not even tried on this device, if it is not.
fn skip_reason(t: Target, wanted: &[Target], caps: &Capabilities) -> Option<String> {
    if !wanted.contains(&t) {
        let (ma, mi) = caps.compute_capability;
        return Some(
            if wanted_targets(caps.compute_capability, false).contains(&t) {
                format!(
                    "the {} module is not loaded (ContextOptions::force_sm80)",
                    t.cpu()
                )
            } else {
                format!(
                    "the {} module does not run on compute capability {ma}.{mi}",
                    t.cpu()
                )
            },
        );
    }
    if t == Target::Sm90a && !driver_has("cuTensorMapEncodeTiled") {
        // the TMA kernels need tensor maps from the driver (CUDA 12.0 and newer)
        return Some(
            "the CUDA driver lacks cuTensorMapEncodeTiled (TMA tensor maps); install a newer NVIDIA driver"
                .to_string(),
        );
    }
    None
}

/// Loads module `t` from the image [`images::load_image`] chooses for compute capability `cc`:
/// `Ok(Err(why))` when this build's module holds no kernels, or when the optional `sm_90` or
/// `sm_90a` module fails to load (the context then runs with the `sm_80` module's kernels); an
/// error when the `sm_80` module fails to load.
fn load_module(
    cuda: &Arc<CudaContext>,
    t: Target,
    cc: (u32, u32),
    load_ptx: bool,
) -> Result<core::result::Result<(Arc<CudaModule>, LoadedModule), String>> {
    let started = std::time::Instant::now();
    let Some((image, machine_code)) = images::load_image(t, cc, load_ptx)? else {
        return Ok(Err(format!(
            "this build's {} module holds no kernels (the PTX was not built)",
            t.cpu()
        )));
    };
    match cuda.load_module(image) {
        Ok(module) => Ok(Ok((
            module,
            LoadedModule {
                target: t,
                machine_code,
                load_seconds: started.elapsed().as_secs_f64(),
            },
        ))),
        Err(e) if t != Target::Sm80 => {
            Ok(Err(format!("the {} module failed to load: {e}", t.cpu())))
        }
        Err(e) => Err(e.into()),
    }
}

/// Loads kernel `k` from `module` (of target `t`) and raises its dynamic shared-memory limit:
/// `Ok(Err(why))` when the module lacks it or the device cannot give it its shared memory.
fn load_function(
    cuda: &CudaContext,
    module: &Arc<CudaModule>,
    t: Target,
    k: &KernelSpec,
    caps: &Capabilities,
) -> Result<core::result::Result<CudaFunction, String>> {
    let f = match module.load_function(k.name) {
        Ok(f) => f,
        Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => {
            return Ok(Err(format!(
                "missing from this build's {} module (rebuild the PTX)",
                t.cpu()
            )));
        }
        Err(e) => return Err(e.into()),
    };
    if k.family.cluster() > 1 && !crate::driver::has_launch_ex() {
        return Ok(Err(
            "runs in thread-block clusters, which this CUDA driver cannot launch (no cuLaunchKernelEx)"
                .to_string(),
        ));
    }
    if k.smem_bytes > DEFAULT_SMEM_LIMIT {
        if k.smem_bytes > caps.max_smem_per_block_optin {
            return Ok(Err(format!(
                "needs {} bytes of shared memory per block, this device allows {}",
                k.smem_bytes, caps.max_smem_per_block_optin
            )));
        }
        // ≤ the device's opt-in maximum, a small positive i32.
        let bytes = i32::try_from(k.smem_bytes).unwrap_or(i32::MAX);
        cuda.bind_to_thread()?;
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes,
        )?;
    }
    Ok(Ok(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_per_device() {
        assert_eq!(wanted_targets((8, 0), false), vec![Target::Sm80]);
        assert_eq!(wanted_targets((8, 9), false), vec![Target::Sm80]);
        assert_eq!(
            wanted_targets((9, 0), false),
            vec![Target::Sm80, Target::Sm90, Target::Sm90a]
        );
        assert_eq!(
            wanted_targets((9, 0), true),
            vec![Target::Sm80, Target::Sm90]
        );
        assert_eq!(
            wanted_targets((10, 0), false),
            vec![Target::Sm80, Target::Sm90]
        );
        assert_eq!(
            wanted_targets((12, 0), false),
            vec![Target::Sm80, Target::Sm90]
        );
    }
}
