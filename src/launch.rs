//! From a validated call and a [`Plan`] to one kernel launch.

use crate::context::Plan;
use crate::dispatch::Ptrs;
use crate::error::{invalid, Result};
use crate::gemm::Gemm;
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};
use tcgemm_kernels::config::uses_tma_params;
use tcgemm_kernels::config::{Elem, DEFAULT_GROUP_M};
use tcgemm_kernels::params::{flags, GemmParams, TmaParams};

/// The single kernel argument: [`GemmParams`] by value.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
struct KernelArg(GemmParams);

// SAFETY: `GemmParams` is `#[repr(C)]` plain old data (u64/u32/f32 fields, no pointers the host
// dereferences, no padding-dependent invariants); `KernelArg` is `repr(transparent)` over it, so its
// bytes are exactly the parameter block the kernels declare.
unsafe impl DeviceRepr for KernelArg {}

/// The single kernel argument of the TMA kernels: [`TmaParams`] by value.
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
struct TmaKernelArg(TmaParams);

// SAFETY: `TmaParams` is `#[repr(C)]` plain old data: two opaque 128-byte tensor maps the driver
// encoded and a `GemmParams`; its bytes are exactly the parameter block the TMA kernels declare.
unsafe impl DeviceRepr for TmaKernelArg {}

/// Whether an operand allows 16-byte vector accesses: aligned base, and leading dimension and (with
/// several batch items) batch stride whole multiples of 16 bytes.
fn vectorizable(base: u64, ld: u64, stride: u64, batch: u32, elem: Elem) -> bool {
    let eb = u64::from(elem.bytes());
    let whole = |v: u64| v.checked_mul(eb).is_some_and(|b| b % 16 == 0);
    base % 16 == 0 && whole(ld) && (batch <= 1 || whole(stride))
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

/// The kernel parameters of a validated, non-empty call. `k` is passed as 0 when A and B are not
/// referenced (`k == 0` or `alpha == 0`), so the kernel computes `C = beta·C`.
pub(crate) fn params(g: &Gemm, input: Elem, output: Elem, ptrs: Ptrs) -> Result<GemmParams> {
    let batch = to_u32("batch", g.batch)?;
    let k = if g.reads_ab() { g.k } else { 0 };
    let (lda, ldb, ldc) = (
        g.lda_or_packed() as u64,
        g.ldb_or_packed() as u64,
        g.ldc_or_packed() as u64,
    );
    let (sa, sb, sc) = (
        g.stride_a_or_packed() as u64,
        g.stride_b_or_packed() as u64,
        g.stride_c_or_packed() as u64,
    );
    let mut f = 0;
    if vectorizable(ptrs.a, lda, sa, batch, input) {
        f |= flags::VEC_A;
    }
    if vectorizable(ptrs.b, ldb, sb, batch, input) {
        f |= flags::VEC_B;
    }
    if vectorizable(ptrs.c, ldc, sc, batch, output) {
        f |= flags::VEC_C;
    }
    if g.beta == 0.0 {
        f |= flags::BETA_ZERO;
    }
    Ok(GemmParams {
        a: ptrs.a,
        b: ptrs.b,
        c: ptrs.c,
        lda,
        ldb,
        ldc,
        stride_a: sa,
        stride_b: sb,
        stride_c: sc,
        m: to_u32("m", g.m)?,
        n: to_u32("n", g.n)?,
        k: to_u32("k", k)?,
        batch,
        alpha: g.alpha,
        beta: g.beta,
        flags: f,
        group_m: DEFAULT_GROUP_M,
    })
}

/// The launch shape of a plan.
pub(crate) fn launch_config(plan: &Plan) -> LaunchConfig {
    LaunchConfig {
        grid_dim: plan.grid,
        block_dim: plan.block,
        shared_mem_bytes: plan.smem_bytes,
    }
}

/// Enqueues `func` (the function of `plan.kernel`) with `p` on `stream`.
///
/// # Safety
/// `func` must be the entry point `plan.kernel` names, `p` must come from [`params`] for a call
/// that passed [`Gemm::validate`](crate::Gemm::validate) against the buffers its addresses point
/// into, and those buffers must stay allocated and unaliased by host-visible writes until the
/// kernel completes (the caller holds their stream guards across this call).
pub(crate) unsafe fn launch(
    stream: &CudaStream,
    func: &CudaFunction,
    plan: &Plan,
    p: GemmParams,
) -> Result<()> {
    let cfg = launch_config(plan);
    if uses_tma_params(plan.kernel) {
        let arg = TmaKernelArg(crate::tma::tma_params(p, plan.kernel)?);
        // SAFETY: as below; the TMA kernels take one `TmaParams`, whose tensor maps describe the
        // same A and B extents (k, rows, batch, leading dimensions, strides) that `p` carries, so
        // every box a kernel copies lies in those validated buffers or is zero-filled by TMA.
        unsafe { stream.launch_builder(func).arg(&arg).launch(cfg) }?;
        return Ok(());
    }
    let arg = KernelArg(p);
    // SAFETY: every tcgemm kernel takes exactly one parameter, a `GemmParams` by value (the
    // `#[repr(C)]` struct shared with the kernels crate), which `KernelArg` is; `cfg` comes from the
    // same `KernelSpec` the kernel was built from (threads, smem bytes, and a grid covering m×n tiles
    // with batch items strided by grid.y), and the function's dynamic shared-memory limit was raised
    // to `smem_bytes` when it was loaded. The caller guarantees (see `# Safety`) the addresses and
    // extents in `p` lie inside live device buffers of the validated lengths.
    unsafe { stream.launch_builder(func).arg(&arg).launch(cfg) }?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Ptrs = Ptrs {
        a: 0x1000,
        b: 0x2000,
        c: 0x3000,
    };

    #[test]
    fn kernel_arg_is_the_params_block() {
        assert_eq!(
            core::mem::size_of::<KernelArg>(),
            core::mem::size_of::<GemmParams>()
        );
        assert_eq!(
            core::mem::align_of::<KernelArg>(),
            core::mem::align_of::<GemmParams>()
        );
    }

    #[test]
    fn params_packed_f32() {
        let g = Gemm::new(3, 5, 8).alpha(2.0).beta(0.5);
        let p = params(&g, Elem::F32, Elem::F32, P).unwrap();
        assert_eq!((p.a, p.b, p.c), (0x1000, 0x2000, 0x3000));
        assert_eq!((p.m, p.n, p.k, p.batch), (3, 5, 8, 1));
        assert_eq!((p.lda, p.ldb, p.ldc), (8, 5, 5));
        assert_eq!((p.stride_a, p.stride_b, p.stride_c), (24, 40, 15));
        assert_eq!((p.alpha, p.beta), (2.0, 0.5));
        assert_eq!(p.group_m, DEFAULT_GROUP_M);
        // lda 8 f32 = 32 bytes: vector loads; ldb/ldc 5 f32 = 20 bytes: scalar.
        assert_eq!(p.flags, flags::VEC_A);
    }

    #[test]
    fn params_flags() {
        let g = Gemm::new(4, 4, 4).trans_a(true).trans_b(true);
        let p = params(&g, Elem::F32, Elem::F32, P).unwrap();
        assert_eq!(
            p.flags,
            flags::VEC_A | flags::VEC_B | flags::VEC_C | flags::BETA_ZERO
        );
        // Misaligned base address of B.
        let p = params(&g, Elem::F32, Elem::F32, Ptrs { b: 0x2004, ..P }).unwrap();
        assert_eq!(p.flags & flags::VEC_B, 0);
        assert_ne!(p.flags & flags::VEC_A, 0);
        // f16: ld 8 halves = 16 bytes is enough, ld 4 halves is not.
        let g = Gemm::new(8, 8, 8);
        let p = params(&g, Elem::F16, Elem::F32, P).unwrap();
        assert_eq!(
            p.flags & (flags::VEC_A | flags::VEC_B | flags::VEC_C),
            flags::VEC_A | flags::VEC_B | flags::VEC_C
        );
        let p = params(&g.lda(12), Elem::F16, Elem::F16, P).unwrap();
        assert_eq!(p.flags & flags::VEC_A, 0);
        // -0.0 == 0.0: C not read; NaN beta: C read.
        assert_ne!(
            params(&g.beta(-0.0), Elem::F32, Elem::F32, P)
                .unwrap()
                .flags
                & flags::BETA_ZERO,
            0
        );
        assert_eq!(
            params(&g.beta(f32::NAN), Elem::F32, Elem::F32, P)
                .unwrap()
                .flags
                & flags::BETA_ZERO,
            0
        );
    }

    #[test]
    fn params_batch_strides_gate_vectors() {
        let g = Gemm::new(8, 8, 8).batch(3).stride_a(8 * 8 + 1).stride_b(0);
        let p = params(&g, Elem::F32, Elem::F32, P).unwrap();
        assert_eq!(p.batch, 3);
        assert_eq!((p.stride_a, p.stride_b, p.stride_c), (65, 0, 64));
        assert_eq!(p.flags & flags::VEC_A, 0);
        assert_ne!(p.flags & flags::VEC_B, 0);
        assert_ne!(p.flags & flags::VEC_C, 0);
        // One item: its stride is irrelevant.
        let p = params(&g.batch(1), Elem::F32, Elem::F32, P).unwrap();
        assert_ne!(p.flags & flags::VEC_A, 0);
    }

    #[test]
    fn params_unreferenced_ab_pass_k_zero() {
        let p = params(
            &Gemm::new(4, 4, 4).alpha(0.0).beta(1.0),
            Elem::F32,
            Elem::F32,
            P,
        )
        .unwrap();
        assert_eq!((p.k, p.alpha, p.beta), (0, 0.0, 1.0));
        let p = params(&Gemm::new(4, 4, 0), Elem::F32, Elem::F32, P).unwrap();
        assert_eq!(p.k, 0);
    }

    #[test]
    fn params_reject_unrepresentable_sizes() {
        if usize::BITS > 32 {
            let e = params(
                &Gemm::new(1, 1, 1).batch(u32::MAX as usize + 1),
                Elem::F32,
                Elem::F32,
                P,
            );
            assert!(e.is_err());
        }
    }

    #[test]
    fn params_name_the_size_that_does_not_fit_32_bits() {
        // docs/errors.md: unreachable after Gemm::validate (m, n, k ≤ i32::MAX, batch ≤ u32::MAX),
        // but params itself refuses rather than truncate.
        if usize::BITS <= 32 {
            return;
        }
        let big = u32::MAX as usize + 1;
        for (g, want) in [
            (Gemm::new(1, 1, 1).batch(big), "batch"),
            (Gemm::new(big, 1, 1), "m"),
            (Gemm::new(1, big, 1), "n"),
            (Gemm::new(1, 1, big), "k"),
        ] {
            match params(&g, Elem::F32, Elem::F32, P) {
                Err(crate::Error::InvalidArgument { what, why }) => {
                    assert_eq!(what, want, "{why}");
                    assert!(why.contains("32-bit"), "{why}");
                }
                Err(other) => panic!("{want}: expected InvalidArgument, got {other:?}"),
                Ok(_) => panic!("{want}: {g:?} accepted"),
            }
        }
        // k is passed as 0 when A and B are not referenced, so a huge k then fits.
        let p = params(&Gemm::new(1, 1, big).alpha(0.0), Elem::F32, Elem::F32, P).unwrap();
        assert_eq!(p.k, 0);
    }
}
