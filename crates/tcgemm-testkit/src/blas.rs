//! cuBLAS through cudarc: loading it (or saying why not), the row-major product, versions.

use std::ffi::{c_int, c_longlong, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use crate::device::panic_text;
use crate::elem::TestElem;
use crate::shapes::Shape;

/// Loads cuBLAS on `stream`, or says why it cannot.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// match tcgemm_testkit::blas::load(ctx.stream()) {
///     Ok(_handle) => println!("cuBLAS loaded"),
///     Err(why) => println!("no cuBLAS: {why}"),
/// }
/// # Ok::<(), tcgemm::Error>(())
/// ```
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
///
/// ```no_run
/// let (cublas, cudart) = tcgemm_testkit::blas::versions();
/// println!("cuBLAS {cublas:?} for CUDA {cudart:?}");
/// ```
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
///
/// ```
/// assert_eq!(tcgemm_testkit::blas::cuda_version(12040), "12.4");
/// ```
pub fn cuda_version(v: usize) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn to_int(v: usize) -> Result<c_int, String> {
    c_int::try_from(v).map_err(|_| format!("{v} does not fit cuBLAS's int"))
}

/// The column-major cuBLAS call that computes a row-major product: `Cᵀ = Bᵀ·Aᵀ`, i.e. a
/// column-major `n×m×k` product of B (first operand) and A (second) into C. A row-major matrix
/// with leading dimension `ld` is its transpose column-major with the same `ld`, so every leading
/// dimension and batch stride is the shape's own ([`Shape::problem`]'s layouts).
struct ColumnMajor {
    op_b: cublasOperation_t,
    op_a: cublasOperation_t,
    n: c_int,
    m: c_int,
    k: c_int,
    ldb: c_int,
    lda: c_int,
    ldc: c_int,
    /// Elements between batch items of (A, B, C).
    strides: (c_longlong, c_longlong, c_longlong),
    batch: c_int,
}

impl ColumnMajor {
    fn of(shape: &Shape) -> Result<ColumnMajor, String> {
        let p = shape.problem();
        let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
        // B stored row-major k×n (n×k when transposed) is column-major n×k (k×n) with the same
        // ld: the n×k first operand as stored, or transposed; likewise A, the k×m second operand
        let op = |transposed: bool| {
            if transposed {
                cublasOperation_t::CUBLAS_OP_T
            } else {
                cublasOperation_t::CUBLAS_OP_N
            }
        };
        let stride = |v: usize| {
            c_longlong::try_from(v).map_err(|_| format!("stride {v} does not fit a long long"))
        };
        Ok(ColumnMajor {
            op_b: op(shape.trans_b),
            op_a: op(shape.trans_a),
            n: to_int(shape.n)?,
            m: to_int(shape.m)?,
            k: to_int(shape.k)?,
            ldb: to_int(lb.ld)?,
            lda: to_int(la.ld)?,
            ldc: to_int(lc.ld)?,
            strides: (stride(la.stride)?, stride(lb.stride)?, stride(lc.stride)?),
            batch: to_int(shape.batch)?,
        })
    }
}

/// Device addresses and cuBLAS types of one call's operands.
struct Pointers {
    a: *const c_void,
    b: *const c_void,
    c: *mut c_void,
    input: cudaDataType,
    output: cudaDataType,
    compute: cublasComputeType_t,
}

/// `cublasGemmEx` (one item) or `cublasGemmStridedBatchedEx` with `alpha = 1`, `beta = 0`.
///
/// # Safety
/// `p` holds device pointers of live buffers, usable on the handle's stream, that hold the
/// operands `cm` describes in the types `p` names.
unsafe fn gemm_ex(blas: &CudaBlas, cm: &ColumnMajor, p: &Pointers) -> Result<(), String> {
    let (one, zero) = (1.0f32, 0.0f32);
    // CUBLAS_COMPUTE_32F* takes host f32 scalars.
    let (alpha, beta) = (
        (&one as *const f32).cast::<c_void>(),
        (&zero as *const f32).cast::<c_void>(),
    );
    let algo = cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
    let (sa, sb, sc) = cm.strides;
    let r = if cm.batch == 1 {
        // SAFETY: the caller's contract; the scalars live until the call returns.
        unsafe {
            cudarc::cublas::result::gemm_ex(
                *blas.handle(),
                cm.op_b,
                cm.op_a,
                cm.n,
                cm.m,
                cm.k,
                alpha,
                p.b,
                p.input,
                cm.ldb,
                p.a,
                p.input,
                cm.lda,
                beta,
                p.c,
                p.output,
                cm.ldc,
                p.compute,
                algo,
            )
        }
    } else {
        // SAFETY: as above, for `batch` items placed `strides` elements apart.
        unsafe {
            cudarc::cublas::result::gemm_strided_batched_ex(
                *blas.handle(),
                cm.op_b,
                cm.op_a,
                cm.n,
                cm.m,
                cm.k,
                alpha,
                p.b,
                p.input,
                cm.ldb,
                sb,
                p.a,
                p.input,
                cm.lda,
                sa,
                beta,
                p.c,
                p.output,
                cm.ldc,
                sc,
                cm.batch,
                p.compute,
                algo,
            )
        }
    };
    r.map_err(|e| {
        let what = if cm.batch == 1 { "" } else { "StridedBatched" };
        format!("cublasGemm{what}Ex: {e:?}")
    })
}

/// Row-major `C = A·B` for every batch item of `shape` (`alpha = 1`, `beta = 0`) through cuBLAS
/// (column-major): `Cᵀ = Bᵀ·Aᵀ`, i.e. a column-major `n×m×k` product of B and A into C, with the
/// shape's leading dimensions and batch strides. `a`, `b`, `c` are whole buffers of
/// [`Shape::lens`] elements (at least); the operands are their sub-views starting
/// [`Padding::offset`](crate::Padding::offset) elements in, as tcgemm is handed them.
/// `cublasGemmEx`, or `cublasGemmStridedBatchedEx` for a batch, with the element types of
/// `I`/`O` and `compute` (FP32 accumulation; `CUBLAS_COMPUTE_32F_FAST_TF32` for TF32). The handle
/// keeps its default math mode, so `CUBLAS_COMPUTE_32F` on f32 is exact FP32.
///
/// ```no_run
/// use tcgemm_testkit::{blas, Path, Shape};
/// let ctx = tcgemm::Context::new(0)?;
/// let s = ctx.stream();
/// let shape = Shape::parse("256x128x64+ld1+off1")?;
/// let (la, lb, lc) = shape.lens();
/// let (a, b) = (s.alloc_zeros::<f32>(la)?, s.alloc_zeros::<f32>(lb)?);
/// let mut c = s.alloc_zeros::<f32>(lc)?;
/// let handle = blas::load(s)?;
/// blas::gemm::<f32, f32>(&handle, s, Path::Fp32.cublas_compute(), shape, &a, &b, &mut c)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gemm<I: TestElem, O: TestElem>(
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    compute: cublasComputeType_t,
    shape: Shape,
    a: &CudaSlice<I>,
    b: &CudaSlice<I>,
    c: &mut CudaSlice<O>,
) -> Result<(), String> {
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
    let cm = ColumnMajor::of(&shape)?;
    let offset = shape.padding.offset;
    let (a, b, mut c) = (a.slice(offset..), b.slice(offset..), c.slice_mut(offset..));
    let (pa, _ga) = a.device_ptr(stream);
    let (pb, _gb) = b.device_ptr(stream);
    let (pc, _gc) = c.device_ptr_mut(stream);
    let p = Pointers {
        a: pa as *const c_void,
        b: pb as *const c_void,
        c: pc as *mut c_void,
        input: I::CUDA,
        output: O::CUDA,
        compute,
    };
    // SAFETY: device pointers of live buffers that hold, from `offset` on, the operands of the
    // shape's layouts (lengths checked above against `Shape::lens`, which counts the offset, the
    // leading dimensions and the batch strides cuBLAS is given), of the declared types, used on
    // the handle's stream (the guards record the accesses and live until the call returns).
    unsafe { gemm_ex(blas, &cm, &p) }
}
