//! From a resolved [`Problem`] and a [`Plan`] to one kernel launch.
//!
//! Every entry point takes one parameter block by value, of the kind its family declares
//! ([`Family::params`](tcgemm_kernels::config::Family::params)): [`GemmParams`], [`TmaParams`],
//! [`ConvertParams`], [`CopyParams`], [`SplitParams`] or [`CeilingParams`]. [`launch`] checks the block against the
//! kernel before enqueueing it.

use crate::error::{invalid, Error, Result};
use crate::plan::Plan;
use crate::problem::Problem;
use cudarc::driver::sys::CUstream;
use cudarc::driver::{result, CudaContext, CudaFunction};
use tcgemm_kernels::config::{ParamsKind, DEFAULT_GROUP_M};
use tcgemm_kernels::params::{
    flags, CeilingParams, ConvertParams, CopyParams, GemmParams, SplitParams, SplitTail, StreamK,
    TmaParams,
};

/// A `#[repr(C)]` parameter block an entry point takes by value.
pub(crate) trait ParamsBlock: Copy {
    /// The family parameter kind that takes this block.
    const KIND: ParamsKind;
}

impl ParamsBlock for GemmParams {
    const KIND: ParamsKind = ParamsKind::Gemm;
}

impl ParamsBlock for TmaParams {
    const KIND: ParamsKind = ParamsKind::Tma;
}

impl ParamsBlock for ConvertParams {
    const KIND: ParamsKind = ParamsKind::Convert;
}

impl ParamsBlock for CeilingParams {
    const KIND: ParamsKind = ParamsKind::Ceiling;
}

impl ParamsBlock for CopyParams {
    const KIND: ParamsKind = ParamsKind::Copy;
}

impl ParamsBlock for SplitParams {
    const KIND: ParamsKind = ParamsKind::Split;
}

/// Narrows a validated size to the kernel's `u32`.
fn to_u32(what: &'static str, v: usize) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        invalid(
            what,
            format!("{what} = {v} does not fit the kernel's 32-bit count"),
        )
    })
}

/// The kernel parameters of a problem resolved on buffers. `k` is passed as 0 when A and B are
/// not referenced (`k == 0` or `alpha == 0`), so the kernel computes `C = beta·C`. The vector
/// flags are the operands' 16-byte alignment ([`Alignment::all`](crate::Alignment::all)).
pub(crate) fn params(p: &Problem) -> Result<GemmParams> {
    let addrs = p.addresses().ok_or_else(|| {
        Error::Unsupported("a problem planned without buffers cannot be launched".into())
    })?;
    let g = p.gemm();
    let k = if p.reads_ab() { g.k } else { 0 };
    let mut f = 0;
    for (op, flag) in [
        (p.a(), flags::VEC_A),
        (p.b(), flags::VEC_B),
        (p.c(), flags::VEC_C),
    ] {
        if op.alignment.all() {
            f |= flag;
        }
    }
    if !p.reads_c() {
        f |= flags::BETA_ZERO;
    }
    if p.tf32x3_parts() {
        f |= flags::TF32X3_PARTS;
    }
    Ok(GemmParams {
        a: addrs.a,
        b: addrs.b,
        c: addrs.c,
        lda: p.a().ld as u64,
        ldb: p.b().ld as u64,
        ldc: p.c().ld as u64,
        stride_a: p.a().stride as u64,
        stride_b: p.b().stride as u64,
        stride_c: p.c().stride as u64,
        m: to_u32("m", g.m)?,
        n: to_u32("n", g.n)?,
        k: to_u32("k", k)?,
        batch: to_u32("batch", g.batch)?,
        alpha: g.alpha,
        beta: g.beta,
        flags: f,
        group_m: DEFAULT_GROUP_M,
        split: SplitTail::default(),
        stream_k: StreamK::default(),
    })
}

/// Checks that `P` is the parameter block `plan.kernel`'s family takes.
fn check_block<P: ParamsBlock>(plan: &Plan) -> Result<()> {
    let takes = plan.kernel.family.params();
    if P::KIND == takes {
        return Ok(());
    }
    Err(Error::Unsupported(format!(
        "kernel `{}` takes {takes:?} parameters, not {:?}; its Family and its entry point disagree",
        plan.kernel.name,
        P::KIND
    )))
}

/// Enqueues `func` (the entry point of `plan.kernel`) with the parameter block `p` on `stream`
/// of context `cuda`.
///
/// # Errors
/// [`Error::Unsupported`] when `p` is not the block the kernel's family takes (a defect, checked
/// before anything is enqueued); [`Error::Driver`] when the launch fails.
///
/// # Safety
/// `func` must be the entry point `plan.kernel` names, loaded in `cuda`; `stream` a live stream of
/// `cuda`; every address and extent in `p` must lie inside device buffers that stay allocated,
/// and are not written by anyone else, until the kernel completes (the safe callers hold their
/// buffers' cudarc guards across this call; [`Context::gemm_raw`](crate::Context::gemm_raw)'s
/// caller promises it).
pub(crate) unsafe fn launch<P: ParamsBlock>(
    cuda: &CudaContext,
    stream: CUstream,
    func: &CudaFunction,
    plan: &Plan,
    p: &P,
) -> Result<()> {
    // SAFETY: the caller's contract, as `enqueue`'s with a plain launch.
    unsafe { enqueue(cuda, stream, func, plan, p, false) }
}

/// [`launch`], or with `dependent` [`launch_dependent`]: checks the block, binds the context and
/// launches `func` with the one launch attribute its plan or `dependent` asks for, if any.
///
/// # Safety
/// As [`launch`], and with `dependent` as [`launch_dependent`].
unsafe fn enqueue<P: ParamsBlock>(
    cuda: &CudaContext,
    stream: CUstream,
    func: &CudaFunction,
    plan: &Plan,
    p: &P,
    dependent: bool,
) -> Result<()> {
    check_block::<P>(plan)?;
    cuda.bind_to_thread()?;
    let mut args = [p as *const P as *mut core::ffi::c_void];
    // CTAs per cluster: a split within clusters' slices, else the family's (1: no clusters)
    let cluster = if plan.split.cluster {
        plan.split.slices
    } else {
        plan.kernel.family.cluster()
    };
    // SAFETY: the entry point takes exactly one by-value parameter of the kind its family declares,
    // which `P` is (checked above; each `ParamsBlock` is the `#[repr(C)]` struct shared with the
    // kernels crate, and `p` outlives the call, which copies it). The grid, block and shared memory
    // come from the same `KernelSpec` the kernel was built from, and the function's dynamic
    // shared-memory limit was raised to `smem_bytes` when it was loaded. The caller guarantees the
    // rest (see `# Safety`: with `dependent`, the kernel's wait and the driver entry point).
    unsafe {
        if dependent {
            launch_with(func, plan, programmatic_attribute(), stream, &mut args)?;
        } else if cluster > 1 {
            launch_with(func, plan, cluster_attribute(cluster), stream, &mut args)?;
        } else {
            result::launch_kernel(
                func.cu_function(),
                plan.grid,
                plan.block,
                plan.smem_bytes,
                stream,
                &mut args,
            )?;
        }
    }
    Ok(())
}

/// Clusters of `s` CTAs of `func` (a persistent kernel, `threads` threads and `smem` bytes of
/// dynamic shared memory each) the device holds at once, for `s` = 0..=[`MAX_CLUSTER`](crate::splitk::MAX_CLUSTER)
/// (`cuOccupancyMaxActiveClusters`; 0 for `s < 2` and where the driver cannot tell). Thread-block
/// clusters are placed within one GPC, so fewer CTAs fit as clusters than as single CTAs (H200, one
/// CTA per SM: 66 pairs, 30 clusters of 4, 15 of 8 on 132 SMs).
pub(crate) fn resident_clusters(func: &CudaFunction, threads: u32, smem: u32) -> [u32; 9] {
    use cudarc::driver::sys;
    let mut out = [0; 9];
    if !crate::driver::driver_has("cuOccupancyMaxActiveClusters") {
        return out;
    }
    for (s, slot) in out.iter_mut().enumerate().skip(2) {
        let s = s as u32;
        let mut attr = cluster_attribute(s);
        let config = launch_config(
            (s * 16, 1, 1),
            (threads, 1, 1),
            smem,
            core::ptr::null_mut(),
            &mut attr,
        );
        let mut n = 0i32;
        // SAFETY: a query: `config` and `attr` outlive the call; `func` is a loaded function of
        // the current context, whose shared-memory limit was raised to `smem` when it was loaded.
        let r = unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, func.cu_function(), &config) };
        if r == sys::CUresult::CUDA_SUCCESS {
            *slot = n.max(0) as u32;
        }
    }
    out
}

/// The launch attribute of thread-block clusters of `size` CTAs along x.
fn cluster_attribute(size: u32) -> cudarc::driver::sys::CUlaunchAttribute {
    use cudarc::driver::sys;
    let mut value = sys::CUlaunchAttributeValue { pad: [0; 64] };
    value.clusterDim.x = size;
    value.clusterDim.y = 1;
    value.clusterDim.z = 1;
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value,
    }
}

/// The launch attribute of a programmatic dependent launch: the grid may be scheduled before the
/// grid ahead of it on the stream completes, once each CTA of that grid has started it
/// (`griddepcontrol.launch_dependents`) or exited, and waits for that grid itself
/// (`griddepcontrol.wait`, `tcgemm_kernels::arch::grid_dependency`).
fn programmatic_attribute() -> cudarc::driver::sys::CUlaunchAttribute {
    use cudarc::driver::sys;
    let mut value = sys::CUlaunchAttributeValue { pad: [0; 64] };
    value.programmaticStreamSerializationAllowed = 1;
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
        pad: [0; 4],
        value,
    }
}

/// The `cuLaunchKernelEx` configuration of `grid` × `block` with `smem` bytes of dynamic shared
/// memory on `stream`, with the one attribute `attr` (which must outlive its use).
fn launch_config(
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    smem: u32,
    stream: CUstream,
    attr: &mut cudarc::driver::sys::CUlaunchAttribute,
) -> cudarc::driver::sys::CUlaunchConfig {
    cudarc::driver::sys::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: block.0,
        blockDimY: block.1,
        blockDimZ: block.2,
        sharedMemBytes: smem,
        hStream: stream,
        attrs: attr,
        numAttrs: 1,
    }
}

/// `cuLaunchKernelEx` of `plan` with the one launch attribute `attr`: thread-block clusters
/// ([`cluster_attribute`]) or a programmatic dependent launch ([`programmatic_attribute`]).
///
/// # Safety
/// As [`launch`], with `args` its argument array; the driver has `cuLaunchKernelEx`
/// (`driver::has_launch_ex`); for clusters of `s` CTAs, `plan.grid.0` is a multiple of `s`;
/// a programmatic dependent's kernel waits for the grid ahead of it before it touches memory.
unsafe fn launch_with(
    func: &CudaFunction,
    plan: &Plan,
    mut attr: cudarc::driver::sys::CUlaunchAttribute,
    stream: CUstream,
    args: &mut [*mut core::ffi::c_void],
) -> Result<()> {
    use cudarc::driver::sys;
    let config = launch_config(plan.grid, plan.block, plan.smem_bytes, stream, &mut attr);
    // SAFETY: `config` and `attr` outlive the call, which copies them; the rest is the caller's
    // contract (as `result::launch_kernel` in `launch`).
    unsafe {
        sys::cuLaunchKernelEx(
            &config,
            func.cu_function(),
            args.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    }
    .result()?;
    Ok(())
}

/// Enqueues `func` as [`launch`] does, as a programmatic dependent launch of the grid ahead of it
/// on `stream`: its CTAs may be scheduled while that grid's last CTAs run (all of them once
/// started, where that grid calls `griddepcontrol.launch_dependents`), and wait for it on the SMs.
///
/// # Errors
/// As [`launch`].
///
/// # Safety
/// As [`launch`]; and `func` waits for the grid ahead of it (`griddepcontrol.wait`) before it
/// touches any memory (the sm_90 build of a kernel that does, [`LoadedKernels::module_of`]), and
/// the driver has `cuLaunchKernelEx` (`driver::has_launch_ex`).
///
/// [`LoadedKernels::module_of`]: crate::modules::LoadedKernels::module_of
pub(crate) unsafe fn launch_dependent<P: ParamsBlock>(
    cuda: &CudaContext,
    stream: CUstream,
    func: &CudaFunction,
    plan: &Plan,
    p: &P,
) -> Result<()> {
    // SAFETY: the caller's contract, as `enqueue`'s with a programmatic dependent launch.
    unsafe { enqueue(cuda, stream, func, plan, p, true) }
}

/// Enqueues GEMM kernel `func` for `problem` (resolved on buffers) as `plan` says: [`params`],
/// plus the tensor maps for a kernel whose family takes [`TmaParams`] (C's where `store_c` and
/// the call allow, [`tma_params`](crate::tma::tma_params)).
///
/// # Safety
/// As [`launch`], for the buffers at the problem's addresses, which the problem was validated
/// against.
pub(crate) unsafe fn launch_gemm(
    cuda: &CudaContext,
    stream: CUstream,
    func: &CudaFunction,
    plan: &Plan,
    problem: &Problem,
    store_c: bool,
) -> Result<()> {
    let p = params(problem)?;
    match plan.kernel.family.params() {
        ParamsKind::Tma => {
            let tma = crate::tma::tma_params(p, plan.kernel, store_c)?;
            // SAFETY: as this function's contract; the tensor maps describe the same A, B and C
            // extents (k, rows, columns, batch, leading dimensions, strides) that `p` carries, so
            // every box a kernel copies lies in those validated buffers or is zero-filled by TMA,
            // and TMA writes only C's elements inside its map.
            unsafe { launch(cuda, stream, func, plan, &tma) }
        }
        // SAFETY: as this function's contract.
        _ => unsafe { launch(cuda, stream, func, plan, &p) },
    }
}

#[cfg(test)]
mod tests;
