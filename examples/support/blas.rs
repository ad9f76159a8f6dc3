//! cuBLAS through cudarc: loading it (or saying why not), the row-major product, versions.

use std::ffi::{c_int, c_longlong, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use super::gpu::panic_text;
use super::{El, Shape};

/// Loads cuBLAS on `stream`, or says why it cannot.
pub fn load(stream: &Arc<CudaStream>) -> Result<CudaBlas, String> {
    // SAFETY: only tries to dlopen libcublas.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err(
            "libcublas could not be loaded (not installed, or not on LD_LIBRARY_PATH)".into(),
        );
    }
    match catch_unwind(AssertUnwindSafe(|| CudaBlas::new(stream.clone()))) {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(e)) => Err(format!("cublasCreate failed: {e:?}")),
        Err(p) => Err(format!("loading cuBLAS panicked: {}", panic_text(&*p))),
    }
}

/// `"major.minor.patch"` of the loaded cuBLAS, and the CUDA runtime version it was built for.
pub fn versions() -> (Option<String>, Option<String>) {
    use cudarc::cublas::sys::{cublasGetCudartVersion, cublasGetProperty, libraryPropertyType};
    let cublas = catch_unwind(|| {
        let mut v = [0 as c_int; 3];
        for (slot, p) in v.iter_mut().zip([
            libraryPropertyType::MAJOR_VERSION,
            libraryPropertyType::MINOR_VERSION,
            libraryPropertyType::PATCH_LEVEL,
        ]) {
            // SAFETY: writes one int; needs no handle.
            unsafe { cublasGetProperty(p, slot) }.result().ok()?;
        }
        Some(format!("{}.{}.{}", v[0], v[1], v[2]))
    })
    .ok()
    .flatten();
    // SAFETY: takes no arguments.
    let cudart = catch_unwind(|| unsafe { cublasGetCudartVersion() })
        .ok()
        .filter(|&v| v > 0)
        .map(cuda_version);
    (cublas, cudart)
}

/// `12040` → `"12.4"`.
pub fn cuda_version(v: usize) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn to_int(v: usize) -> Result<c_int, String> {
    c_int::try_from(v).map_err(|_| format!("{v} does not fit cuBLAS's int"))
}

/// Row-major `C = A·B` for every batch item of `shape` (packed, `alpha = 1`, `beta = 0`) through
/// cuBLAS (column-major): `Cᵀ = Bᵀ·Aᵀ`, i.e. a column-major `n×m×k` product of B (ld n) and A
/// (ld k) into C (ld n). `cublasGemmEx`, or `cublasGemmStridedBatchedEx` for a batch, with the
/// element types of `I`/`O` and `compute` (FP32 accumulation; `CUBLAS_COMPUTE_32F_FAST_TF32` for
/// TF32). The handle keeps its default math mode, so `CUBLAS_COMPUTE_32F` on f32 is exact FP32.
pub fn gemm<I: El, O: El>(
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    compute: cublasComputeType_t,
    shape: Shape,
    a: &CudaSlice<I>,
    b: &CudaSlice<I>,
    c: &mut CudaSlice<O>,
) -> Result<(), String> {
    let Shape {
        batch,
        m,
        n,
        k,
        trans_a,
        trans_b,
    } = shape;
    let (la, lb, lc) = shape.lens();
    if a.len() < la || b.len() < lb || c.len() < lc {
        return Err(format!(
            "buffers of {}, {}, {} elements are too short for {}",
            a.len(),
            b.len(),
            c.len(),
            shape.label()
        ));
    }
    let (mi, ni, ki) = (to_int(m)?, to_int(n)?, to_int(k)?);
    let (alpha, beta) = (1.0f32, 0.0f32);
    let (pa, _ga) = a.device_ptr(stream);
    let (pb, _gb) = b.device_ptr(stream);
    let (pc, _gc) = c.device_ptr_mut(stream);
    let (alpha, beta) = (
        (&alpha as *const f32).cast::<c_void>(),
        (&beta as *const f32).cast::<c_void>(),
    );
    let (op, algo) = (
        cublasOperation_t::CUBLAS_OP_N,
        cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
    );
    // B row-major n×k is column-major k×n with ld k: transposed, it is the n×k first operand
    let (op_b, ldb) = if trans_b {
        (cublasOperation_t::CUBLAS_OP_T, to_int(k)?)
    } else {
        (op, ni)
    };
    // A row-major k×m is column-major m×k with ld m: transposed, it is the k×m second operand
    let (op_a, lda) = if trans_a {
        (cublasOperation_t::CUBLAS_OP_T, to_int(m)?)
    } else {
        (op, ki)
    };
    let r = if batch == 1 {
        // SAFETY: device pointers of live buffers of at least m·k (A), k·n (B) and m·n (C)
        // elements of the declared types (checked above), used on the handle's stream (the
        // guards record the accesses); scalars are host f32, as CUBLAS_COMPUTE_32F* requires.
        unsafe {
            cudarc::cublas::result::gemm_ex(
                *blas.handle(),
                op_b,
                op_a,
                ni,
                mi,
                ki,
                alpha,
                pb as *const c_void,
                I::CUDA,
                ldb,
                pa as *const c_void,
                I::CUDA,
                lda,
                beta,
                pc as *mut c_void,
                O::CUDA,
                ni,
                compute,
                algo,
            )
        }
    } else {
        let stride = |v: usize| {
            c_longlong::try_from(v).map_err(|_| format!("stride {v} does not fit a long long"))
        };
        let (sa, sb, sc) = (stride(m * k)?, stride(k * n)?, stride(m * n)?);
        // SAFETY: as above, for `batch` items placed m·k, k·n and m·n elements apart.
        unsafe {
            cudarc::cublas::result::gemm_strided_batched_ex(
                *blas.handle(),
                op_b,
                op_a,
                ni,
                mi,
                ki,
                alpha,
                pb as *const c_void,
                I::CUDA,
                ldb,
                sb,
                pa as *const c_void,
                I::CUDA,
                lda,
                sa,
                beta,
                pc as *mut c_void,
                O::CUDA,
                ni,
                sc,
                to_int(batch)?,
                compute,
                algo,
            )
        }
    };
    r.map_err(|e| {
        format!(
            "cublasGemm{}Ex: {e:?}",
            if batch == 1 { "" } else { "StridedBatched" }
        )
    })
}
