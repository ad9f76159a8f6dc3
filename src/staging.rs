//! Staging: [`Context::gemm`] copies an operand whose base address, leading dimension or batch
//! stride is not a multiple of 16 bytes (and, on Hopper, an A or B whose rows TMA would read off
//! 32-byte sectors) into a packed copy with rows on 128-byte lines in the context's
//! staging buffer, and a staged C back into the caller's C after the product. So the call runs on
//! the kernels that need alignment (TMA on Hopper, 16-byte `cp.async` on sm_80) instead of those
//! that copy any alignment by threads, which run at 12–30% of their aligned twins
//! (docs/unaligned-log.md). A copy is bits only: the staged call gives the bits of its aligned
//! twin, the same product on packed buffers.
//!
//! The model (`model`, [`choose`]) stages when the copies cost less than they save.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::gemm::Gemm;
use crate::launch;
use crate::plan::Plan;
use crate::problem::{Addresses, Operand, OperandLayout, Problem};
use cudarc::driver::sys::CUstreamCaptureStatus;
use tcgemm_kernels::config::{Elem, Family, KernelSpec, KERNELS};
use tcgemm_kernels::params::CopyParams;
use tcgemm_kernels::utility::copy_rows;

mod model;
pub(crate) use model::{choose, exact_instead, Dispatched};

/// Which operands a call copies into the context's staging buffer ([`Plan::staged`](crate::Plan::staged)):
/// A or B before the product, C after it (and before, when `beta ≠ 0`).
///
/// ```
/// let s = tcgemm::Staged { a: true, ..Default::default() };
/// assert!(s.any() && !s.c);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Staged {
    /// A is read from a packed copy.
    pub a: bool,
    /// B is read from a packed copy.
    pub b: bool,
    /// C is written to a packed copy, then copied into the caller's C.
    pub c: bool,
}

impl Staged {
    /// Nothing staged.
    ///
    /// ```
    /// assert_eq!(tcgemm::Staged::NONE, tcgemm::Staged::default());
    /// ```
    pub const NONE: Staged = Staged {
        a: false,
        b: false,
        c: false,
    };

    /// Whether any operand is staged.
    ///
    /// ```
    /// assert!(!tcgemm::Staged::NONE.any());
    /// ```
    pub fn any(self) -> bool {
        self.a || self.b || self.c
    }

    fn has(self, operand: Operand) -> bool {
        match operand {
            Operand::A => self.a,
            Operand::B => self.b,
            Operand::C => self.c,
        }
    }
}

/// Stored `(rows, cols)` of one batch item of `operand`.
fn stored_shape(g: &Gemm, operand: Operand) -> (usize, usize) {
    match operand {
        Operand::A => g.a_shape(),
        Operand::B => g.b_shape(),
        Operand::C => (g.m, g.n),
    }
}

/// One operand's packed copy: its layout in the call and in the staging buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PackedCopy {
    operand: Operand,
    elem: Elem,
    rows: u64,
    cols: u64,
    /// Items copied: the batch, or 1 when every item is the same (stride 0) or there is one.
    items: u64,
    src_ld: u64,
    src_stride: u64,
    /// Packed leading dimension: `cols` rounded up to [`ROW_ALIGN`] bytes.
    ld: u64,
    /// Packed batch stride: `rows · ld`, or 0 when one item serves the batch.
    stride: u64,
    /// Byte offset in the staging buffer (a multiple of 256).
    offset: u64,
}

/// Bytes a packed row's length is rounded up to: whole 128-byte lines, so rows start on 32-byte
/// sectors, which TMA reads at full speed (rows off them at about 0.72 of it: `model`'s
/// `OFF_SECTORS`; docs/unaligned-log.md, attempt 3).
const ROW_ALIGN: u64 = 128;

/// Segments of a row the copy grid's y dimension holds: rows of more elements are not staged.
const MAX_SEGMENTS: u64 = 65535;

impl PackedCopy {
    fn new(g: &Gemm, op: &OperandLayout, offset: u64) -> PackedCopy {
        let (rows, cols) = stored_shape(g, op.operand);
        let per_line = ROW_ALIGN / u64::from(op.elem.bytes());
        let ld = (cols as u64).div_ceil(per_line) * per_line;
        let items = if g.batch > 1 && op.stride > 0 {
            g.batch as u64
        } else {
            1
        };
        PackedCopy {
            operand: op.operand,
            elem: op.elem,
            rows: rows as u64,
            cols: cols as u64,
            items,
            src_ld: op.ld as u64,
            src_stride: op.stride as u64,
            ld,
            stride: if items > 1 { rows as u64 * ld } else { 0 },
            offset,
        }
    }

    /// Elements of the packed copy (saturating: a batch of overlapping items can ask for more
    /// than any buffer holds, and [`choose`] then finds it above the limit).
    fn len(&self) -> u64 {
        self.items.saturating_mul(self.rows).saturating_mul(self.ld)
    }

    /// Bytes of the operand the copy moves one way.
    fn bytes(&self) -> f64 {
        self.items as f64 * self.rows as f64 * self.cols as f64 * f64::from(self.elem.bytes())
    }

    /// The copy's parameters: into the staging buffer at `buffer` from the caller's operand at
    /// `user`, or back.
    fn params(&self, user: u64, buffer: u64, into_buffer: bool) -> CopyParams {
        let staged = buffer + self.offset;
        let (src, dst) = if into_buffer {
            (user, staged)
        } else {
            (staged, user)
        };
        let (src_ld, dst_ld, src_stride, dst_stride) = if into_buffer {
            (self.src_ld, self.ld, self.src_stride, self.stride)
        } else {
            (self.ld, self.src_ld, self.stride, self.src_stride)
        };
        CopyParams {
            src,
            dst,
            rows: self.rows,
            cols: self.cols,
            src_ld,
            dst_ld,
            src_stride,
            dst_stride,
            batch: self.items,
        }
    }
}

/// A call's staging: which operands, their copies, and the call on the staged buffers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Staging {
    pub staged: Staged,
    copies: Vec<PackedCopy>,
    /// Bytes of staging buffer the copies need.
    pub bytes: u64,
}

impl Staging {
    /// The copies of the operands `staged` names.
    pub(crate) fn new(problem: &Problem, staged: Staged) -> Staging {
        let g = problem.gemm();
        let mut offset = 0;
        let mut copies = Vec::new();
        for op in [problem.a(), problem.b(), problem.c()] {
            if staged.has(op.operand) {
                let copy = PackedCopy::new(g, op, offset);
                let bytes = copy.len().saturating_mul(u64::from(op.elem.bytes()));
                offset = offset.saturating_add(bytes.div_ceil(256) * 256);
                copies.push(copy);
            }
        }
        Staging {
            staged,
            copies,
            bytes: offset,
        }
    }

    /// `problem` on the staged buffers, the staging buffer at `buffer` (`None`: planned without
    /// buffers, every base assumed aligned).
    ///
    /// # Errors
    /// As [`Gemm::validate`] (not expected: the packed layouts hold every element they address).
    pub fn problem(&self, problem: &Problem, buffer: Option<u64>) -> Result<Problem> {
        let mut g = *problem.gemm();
        let mut lens = (problem.a().len, problem.b().len, problem.c().len);
        let mut addrs = problem.addresses();
        for c in &self.copies {
            let (ld, stride, len) = (c.ld as usize, c.stride as usize, c.len() as usize);
            let base = buffer.map(|b| b + c.offset);
            match c.operand {
                Operand::A => {
                    (g.lda, g.stride_a, lens.0) = (Some(ld), Some(stride), len);
                    addrs = addrs.zip(base).map(|(a, b)| Addresses { a: b, ..a });
                }
                Operand::B => {
                    (g.ldb, g.stride_b, lens.1) = (Some(ld), Some(stride), len);
                    addrs = addrs.zip(base).map(|(a, b)| Addresses { b, ..a });
                }
                Operand::C => {
                    (g.ldc, g.stride_c, lens.2) = (Some(ld), Some(stride), len);
                    addrs = addrs.zip(base).map(|(a, b)| Addresses { c: b, ..a });
                }
            }
        }
        let staged = Problem::resolve(&g, *problem.signature(), lens)?;
        Ok(match addrs {
            Some(addrs) => staged.at(addrs),
            None => staged,
        })
    }

    /// The copies into the staging buffer at `buffer` before the product: A and B as staged, C
    /// when staged and read (`beta ≠ 0`).
    pub fn copies_in(&self, problem: &Problem, buffer: u64) -> Result<Vec<(Elem, CopyParams)>> {
        let addrs = addresses(problem)?;
        Ok(self
            .copies
            .iter()
            .filter(|c| c.operand != Operand::C || problem.reads_c())
            .map(|c| {
                (
                    c.elem,
                    c.params(user_address(addrs, c.operand), buffer, true),
                )
            })
            .collect())
    }

    /// The copy of a staged C back into the caller's C after the product.
    pub fn copy_out(&self, problem: &Problem, buffer: u64) -> Result<Option<(Elem, CopyParams)>> {
        let addrs = addresses(problem)?;
        Ok(self
            .copies
            .iter()
            .find(|c| c.operand == Operand::C)
            .map(|c| (c.elem, c.params(addrs.c, buffer, false))))
    }
}

fn addresses(problem: &Problem) -> Result<Addresses> {
    problem.addresses().ok_or_else(|| {
        Error::Unsupported("a problem planned without buffers cannot be staged".into())
    })
}

fn user_address(addrs: Addresses, operand: Operand) -> u64 {
    match operand {
        Operand::A => addrs.a,
        Operand::B => addrs.b,
        Operand::C => addrs.c,
    }
}

impl Context {
    /// The staging [`Context::gemm`] gives `problem`, if any: the model's ([`choose`]) within
    /// [`Context::staging_limit`], on the context's stream only.
    pub(crate) fn staging_for(&self, problem: &Problem) -> Option<Staging> {
        let caps = self.capabilities();
        let dispatched = |p: &Problem| {
            Dispatched::of(
                p,
                caps.sm_count,
                self.cuts(),
                |s| self.is_loaded(s),
                |s| self.blocks_per_sm(s),
                |s| self.resident_clusters(s),
            )
        };
        choose(problem, caps.hopper, self.staging_limit(), dispatched)
    }

    /// Grows the staging buffer to at least `bytes` (within [`Context::staging_limit`]) now, so
    /// that calls staging up to that much allocate nothing, e.g. before capturing them in a CUDA
    /// graph (a call that would grow the buffer during a capture runs unstaged instead).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] `bytes` above the limit;
    /// [`Error::OutOfMemory`] when the device cannot hold it.
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// ctx.reserve_staging(256 << 20)?;
    /// assert!(ctx.staging_bytes() >= 256 << 20);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn reserve_staging(&self, bytes: u64) -> Result<()> {
        if bytes > self.staging_limit() {
            return Err(crate::error::invalid(
                "bytes",
                format!(
                    "{bytes} bytes exceed the staging limit of {} (ContextOptions::staging_limit)",
                    self.staging_limit()
                ),
            ));
        }
        drop(self.staging.at_least(self, bytes)?);
        Ok(())
    }

    /// Bytes the staging buffer holds now (it grows to what calls need, up to
    /// [`Context::staging_limit`], and is kept).
    ///
    /// ```no_run
    /// let ctx = tcgemm::Context::new(0)?;
    /// assert_eq!(ctx.staging_bytes(), 0); // nothing staged yet
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn staging_bytes(&self) -> u64 {
        self.staging.bytes()
    }
}

/// The copy kernel of elements of `elem`'s size.
fn copy_kernel(elem: Elem) -> Result<&'static KernelSpec> {
    KERNELS
        .iter()
        .find(|k| k.family == Family::CopyRows && k.input.bytes() == elem.bytes())
        .ok_or_else(|| Error::Unsupported(format!("no copy kernel for {elem:?} in this build")))
}

/// Most blocks of a copy along x (the kernel strides over the rows beyond).
const COPY_BLOCKS_X: u64 = 1 << 16;

/// The grid of a copy: along y one block per segment of a row ([`copy_rows::SEGMENT`] elements,
/// at most [`MAX_SEGMENTS`]), along x one warp per row up to [`COPY_BLOCKS_X`] blocks.
fn copy_grid(spec: &KernelSpec, p: &CopyParams) -> (u32, u32, u32) {
    let warps = u64::from(spec.threads / 32).max(1);
    let x = (p.batch * p.rows).div_ceil(warps).clamp(1, COPY_BLOCKS_X);
    let y = p.cols.div_ceil(copy_rows::SEGMENT).clamp(1, MAX_SEGMENTS);
    // both clamped below 2^16
    (x as u32, y as u32, 1)
}

impl Context {
    /// Enqueues one copy on the context's stream.
    ///
    /// # Safety
    /// Every element `p` addresses lies in a live buffer of this context that nothing else writes
    /// (or, for the destination, reads) until the copy completes; source and destination apart.
    pub(crate) unsafe fn launch_copy(&self, elem: Elem, p: &CopyParams) -> Result<()> {
        let spec = copy_kernel(elem)?;
        let func = self.function(spec, "copy kernel")?;
        let plan = Plan::with_grid(spec, copy_grid(spec, p), 0);
        // SAFETY: as this function's contract; `func` is `spec`'s loaded entry point.
        unsafe { launch::launch(self.cuda(), self.stream().cu_stream(), func, &plan, p) }
    }

    /// Runs `problem` (resolved on buffers of this context, not empty) staged: copies the staged
    /// operands into the staging buffer, launches the kernel dispatch picks for the staged call,
    /// and copies a staged C back, all on the context's stream while holding the buffer. `None`
    /// (nothing enqueued) when the buffer would have to grow while the stream is capturing a
    /// graph: the caller runs the call unstaged.
    ///
    /// # Safety
    /// As [`Context::launch_problem`] on the context's stream.
    pub(crate) unsafe fn launch_staged(
        &self,
        staging: &Staging,
        problem: &Problem,
    ) -> Result<Option<Plan>> {
        let capturing = || -> Result<bool> {
            let status = self.stream().capture_status()?;
            Ok(status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
        };
        if self.staging.bytes() < staging.bytes && capturing()? {
            return Ok(None);
        }
        let (_buffer, addr) = self.staging.at_least(self, staging.bytes)?;
        let staged = staging.problem(problem, Some(addr))?;
        let spec = self.select(&staged, self.cuts())?;
        // SAFETY: the copies read the caller's validated operands and write the staging buffer,
        // which holds `staging.bytes` and is held locked until all is enqueued; the product runs
        // on the staged problem (validated against the packed layouts) on the context's stream;
        // the copy out writes the caller's C inside its validated extent. Stream order keeps the
        // copies, the product and the copy out in sequence.
        unsafe {
            for (elem, p) in staging.copies_in(problem, addr)? {
                self.launch_copy(elem, &p)?;
            }
            let plan =
                self.launch_problem(spec, &staged, self.stream().cu_stream(), self.cuts())?;
            if let Some((elem, p)) = staging.copy_out(problem, addr)? {
                self.launch_copy(elem, &p)?;
            }
            Ok(Some(Plan {
                staged: staging.staged,
                ..plan
            }))
        }
    }
}

#[cfg(test)]
mod tests;
