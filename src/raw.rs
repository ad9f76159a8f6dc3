//! The raw entry, [`Context::gemm_raw`]: buffers given as device addresses and lengths, a raw
//! `CUstream`, for callers whose memory comes from elsewhere (cust, a C library, another
//! framework).

use crate::calls::Cuts;
use crate::context::Context;
use crate::dispatch;
use crate::driver::driver_has;
use crate::element::Element;
use crate::error::{invalid, Error, Result};
use crate::gemm::Gemm;
use crate::plan::Plan;
use crate::problem::{Operand, Problem, Route};
use cudarc::driver::sys::{self, CUdeviceptr, CUresult, CUstream};
use tcgemm_kernels::config::KERNELS;

/// A device buffer given by its address and its length in elements, for [`Context::gemm_raw`]
/// and [`Problem::from_raw`].
///
/// ```
/// let a = tcgemm::RawBuffer { ptr: 0x7f00_0000_0000, len: 4096 };
/// assert_eq!(a.len, 4096);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawBuffer {
    /// Device address of element 0 (`CUdeviceptr`).
    pub ptr: CUdeviceptr,
    /// Elements from `ptr` that the caller owns.
    pub len: usize,
}

/// Bytes `[start, end)` of the elements an operand of `p` references, or `None` when the call
/// references none of it. Errors name the operand when the buffer cannot be addressed.
fn referenced_bytes(
    p: &Problem,
    op: Operand,
    buf: RawBuffer,
    need: usize,
) -> Result<Option<(u64, u64)>> {
    if need == 0 {
        return Ok(None);
    }
    let what = match op {
        Operand::A => "a",
        Operand::B => "b",
        Operand::C => "c",
    };
    let eb = u64::from(p.operand(op).elem.bytes());
    if buf.ptr == 0 {
        return Err(invalid(
            what,
            format!(
                "buffer {op} is a null pointer but the call reads or writes {need} elements of it"
            ),
        ));
    }
    if buf.ptr % eb != 0 {
        return Err(invalid(
            what,
            format!(
                "buffer {op} at {:#x} is not aligned to its {eb}-byte elements",
                buf.ptr
            ),
        ));
    }
    let end = (need as u64)
        .checked_mul(eb)
        .and_then(|bytes| buf.ptr.checked_add(bytes))
        .ok_or_else(|| {
            invalid(
                what,
                format!(
                    "buffer {op} at {:#x} with {need} elements runs past the 64-bit address space",
                    buf.ptr
                ),
            )
        })?;
    Ok(Some((buf.ptr, end)))
}

/// The address checks of raw buffers for a problem validated against their lengths: for every
/// operand the call references, a non-null address aligned to its element type, an extent inside
/// the 64-bit address space, and C's extent apart from A's and B's (the safe entry points get
/// this from the borrow rules; C written while A or B is read would race).
pub(crate) fn check_addresses(p: &Problem, a: RawBuffer, b: RawBuffer, c: RawBuffer) -> Result<()> {
    if p.is_empty() {
        return Ok(());
    }
    let (need_a, need_b, need_c) = p.gemm().required_lens()?;
    let ra = referenced_bytes(p, Operand::A, a, need_a)?;
    let rb = referenced_bytes(p, Operand::B, b, need_b)?;
    let rc = referenced_bytes(p, Operand::C, c, need_c)?;
    let overlaps = |x: Option<(u64, u64)>, y: Option<(u64, u64)>| match (x, y) {
        (Some((x0, x1)), Some((y0, y1))) => x0 < y1 && y0 < x1,
        _ => false,
    };
    for (other, name) in [(ra, "A"), (rb, "B")] {
        if overlaps(rc, other) {
            return Err(invalid(
                "c",
                format!(
                    "buffer C's elements overlap buffer {name}'s; the kernel writes C while reading {name}, \
                     so C must not alias A or B: pass a separate output buffer"
                ),
            ));
        }
    }
    Ok(())
}

impl Context {
    /// [`Context::gemm`] on buffers given as raw device addresses, enqueued on a raw `stream`, for
    /// memory allocated outside cudarc (cust, a C library, another framework). Returns the
    /// [`Plan`] it launched, or `None` for a call with no output (nothing launched).
    ///
    /// It validates all it can: the precision and element types, `g` against the lengths
    /// ([`Gemm::validate`]), and for every operand the call references a non-null address aligned
    /// to its element type, inside the 64-bit address space, C apart from A and B; that `stream`
    /// belongs to this context (when the driver can say); then dispatch picks the kernel for the
    /// addresses as for [`Context::gemm`], except that the call is never cut along K (split-K and
    /// stream-K use the context's workspace, ordered on [`Context::stream`]). No ordering with
    /// [`Context::stream`] or cudarc's events is added: the work is ordered on `stream` only.
    ///
    /// # Safety
    /// 1. `a.ptr`, `b.ptr` and `c.ptr` are device addresses of memory that this context's device
    ///    can access from [`Context::cuda`]'s CUDA context, valid for `a.len`, `b.len` and `c.len`
    ///    elements of `I`, `I` and `O`.
    /// 2. `stream` is a live stream of this context's CUDA context (or the null stream while that
    ///    context is current; a library that creates its own CUDA context must share this one).
    /// 3. The memory stays allocated until the GEMM has completed on `stream`, nothing writes A or
    ///    B, and nothing reads or writes C, until then (order other work on `stream` or with
    ///    events).
    /// 4. C does not alias A or B (checked for the referenced extents, but not for memory mapped
    ///    twice).
    ///
    /// # Errors
    /// As [`Context::gemm`]; [`Error::InvalidArgument`] `a`, `b` or
    /// `c` for an address that breaks the rules above, `stream` for a stream of another context.
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm, RawBuffer};
    /// use cudarc::driver::{DevicePtr, DevicePtrMut};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let g = Gemm::new(64, 64, 64);
    /// // memory from "elsewhere": here cudarc's, passed on as raw pointers
    /// let a = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let b = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let mut c = s.alloc_zeros::<f32>(64 * 64)?;
    /// let (pa, _ra) = a.device_ptr(s);
    /// let (pb, _rb) = b.device_ptr(s);
    /// let (pc, _wc) = c.device_ptr_mut(s);
    /// let buf = |ptr, len| RawBuffer { ptr, len };
    /// // SAFETY: the three buffers live on this context's device until the stream is synchronized
    /// // below, C is its own allocation, and `s` is this context's stream.
    /// let plan = unsafe {
    ///     ctx.gemm_raw::<f32, f32>(&g, buf(pa, 64 * 64), buf(pb, 64 * 64), buf(pc, 64 * 64), s.cu_stream())
    /// }?;
    /// s.synchronize()?;
    /// println!("ran {:?}", plan.map(|p| p.kernel.name));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn gemm_raw<I: Element, O: Element>(
        &self,
        g: &Gemm,
        a: RawBuffer,
        b: RawBuffer,
        c: RawBuffer,
        stream: CUstream,
    ) -> Result<Option<Plan>> {
        let problem = raw_problem::<I, O>(&crate::tf32x3::resolve(g), self.allow_tf32(), a, b, c)?;
        if problem.is_empty() {
            return Ok(None);
        }
        let Route::Dispatch(problem) = problem.route() else {
            return Err(Error::Unsupported(
                "Precision::Tf32x3 splits A and B in the context's staging buffer, on the \
                 context's stream: run it with Context::gemm"
                    .into(),
            ));
        };
        self.check_stream(stream)?;
        // dispatch counts no cut along K: this call runs on the caller's stream
        let spec = self.select(&problem, Cuts::NONE)?;
        // SAFETY: the caller guarantees (# Safety 1–4) that the addresses are live device memory of
        // this context of the lengths `problem` was validated against, untouched until the kernel
        // completes on `stream`, a live stream of this context.
        unsafe { self.launch_problem(spec, &problem, stream, Cuts::NONE) }.map(Some)
    }

    /// Checks that `stream` belongs to this context's CUDA context (skipped when the driver
    /// lacks `cuStreamGetCtx`).
    fn check_stream(&self, stream: CUstream) -> Result<()> {
        if !driver_has("cuStreamGetCtx") {
            return Ok(());
        }
        self.cuda().bind_to_thread()?;
        let mut ctx: sys::CUcontext = core::ptr::null_mut();
        // SAFETY: the driver writes one `CUcontext` to `ctx`; a stream handle that is not live is
        // the caller's breach of `gemm_raw`'s contract, which the driver reports as an error.
        let r = unsafe { sys::cuStreamGetCtx(stream, &mut ctx) };
        if r != CUresult::CUDA_SUCCESS {
            return Err(invalid(
                "stream",
                format!("the driver does not know this stream ({r:?}); pass a live stream of this context"),
            ));
        }
        if ctx != self.cuda().cu_ctx() {
            return Err(invalid(
                "stream",
                "the stream belongs to another CUDA context; pass a stream of this Context's CUDA \
                 context (Context::cuda), whose modules the kernels are loaded in",
            ));
        }
        Ok(())
    }
}

/// The problem of a raw call: precision and element types resolved as for a dispatched call, `g`
/// validated against the lengths, the addresses checked.
pub(crate) fn raw_problem<I: Element, O: Element>(
    g: &Gemm,
    allow_tf32: bool,
    a: RawBuffer,
    b: RawBuffer,
    c: RawBuffer,
) -> Result<Problem> {
    let sig = dispatch::signature(KERNELS, g, I::ELEM, O::ELEM, allow_tf32)?;
    Problem::resolve_raw(g, sig, a, b, c)
}

#[cfg(test)]
mod tests;
