//! [`Precision::Tf32x3`]: f32 accuracy from TF32 tensor cores (3xTF32).
//!
//! Every f32 `x` of A and B is split into a TF32 high part `hi = rna(x)` and the TF32 rounding of
//! its residual, `lo = rna(x − hi)` (the split kernel, `tcgemm_kernels::utility::split_tf32`),
//! K-major whatever the caller's layout (the split transposes an MN-major operand), in the
//! context's staging buffer. One `nt` TF32 GEMM over a K three times as long then sums
//! `hi·hi + hi·lo + lo·hi` into C (`lo·lo`, below f32's rounding of the sum, is dropped): A's
//! thirds of that K read `hi, hi, lo` and B's `hi, lo, hi` ([`Layout`]). The GEMM runs on the
//! kernel dispatch picks among the 3xTF32 kernels (`Math::MmaTf32x3`, sm_90a: the tensor core's
//! accumulation of each span of k-tiles added into f32 registers, since that accumulation
//! truncates at every step and its error would grow with `3·k`), which read each part written
//! once; or among the TF32 kernels on devices without them, which read the three thirds as
//! written. The cost: three times the TF32 work, plus the split's traffic (each operand read once
//! and written twice, or three times).
//!
//! The kernels need a 16-byte-aligned C: a C that is not is staged (copied into a packed buffer
//! at the start of the staging buffer, and back after the product), as `src/staging.rs` does.
//!
//! A call whose parts exceed [`Context::staging_limit`] is cut along K into chunks that fit, run
//! one after the other: the first with the call's `beta`, the others adding to C (`beta = 1`), in
//! k order, so the result is the same run to run.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::gemm::{Gemm, Precision};
use crate::launch;
use crate::plan::Plan;
use crate::problem::{Addresses, Operand, OperandLayout, Problem, Signature};
use crate::staging::{Staged, Staging};
use cudarc::driver::sys::CUstreamCaptureStatus;
use tcgemm_kernels::config::{Family, KernelSpec, Math, KERNELS};
use tcgemm_kernels::params::SplitParams;
use tcgemm_kernels::utility::split_tf32;

/// Below this many rows or columns of C a 3xTF32 call runs exact FP32 instead ([`resolve`]).
pub(crate) const MIN_MN: usize = 256;

/// `g` as it runs: a 3xTF32 call with fewer than [`MIN_MN`] rows or columns of C is an exact FP32
/// call (CUDA cores, at least as accurate), since there the split's traffic, three times the
/// operands, outweighs the product: H200, f32 → f32, `nn`, against the 3xTF32 kernels of k-tiles
/// added in spans (docs/f32-log.md): 128×11008×4096 41.2 TFLOPS exact against 30.0, 16×4096×4096
/// 18.3 against 3.6.
pub(crate) fn resolve(g: &Gemm) -> Gemm {
    if g.precision == Precision::Tf32x3 && (g.m < MIN_MN || g.n < MIN_MN) {
        g.precision(Precision::Exact)
    } else {
        *g
    }
}

/// Whether `problem` (resolved, [`resolve`]) runs split into TF32 parts: 3xTF32 asked for, and A
/// and B are read (otherwise the TF32 kernel computes `C = beta·C` as it is).
pub(crate) fn splits(problem: &Problem) -> bool {
    problem.gemm().precision == Precision::Tf32x3 && problem.reads_ab()
}

/// f32 elements per 128-byte line: the parts' rows are padded to whole lines (TMA reads rows
/// that start on lines fastest, docs/unaligned-log.md).
const LINE: usize = 32;

/// Byte alignment of B's parts after A's in the staging buffer.
const PART_ALIGN: u64 = 256;

/// How one chunk's TF32 parts lie along each row of the staging buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Each part once, `[hi | lo]`, `P` elements each (the chunk rounded up to a line, which is
    /// the 3xTF32 kernels' k-tile; zeros after the chunk), in rows of `3·P`: a GEMM over `3·P` on
    /// the 3xTF32 kernels reads them as three thirds (`flags::TF32X3_PARTS`). Two thirds of the
    /// writes of [`Layout::Thirds`].
    Once,
    /// The thirds as read: A `[hi | hi | lo]`, B `[hi | lo | hi]`, the chunk each, rows rounded
    /// up to lines: any TF32 GEMM over `3·chunk` reads them as they are. For TF32 kernels and
    /// for a product cut along K into slices (whose kernel sees one slice's k, not the thirds).
    Thirds,
}

/// The parts of one operand for one chunk of K, stored K-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts {
    operand: Operand,
    /// The caller's operand is stored along K (A `m×k`, B `n×k`); else the split transposes it.
    src_k_major: bool,
    /// The other dimension of the operand (`m` for A, `n` for B): the parts' rows.
    width: usize,
    /// Items split: the batch, or 1 when every item is the same (stride 0) or there is one.
    items: usize,
    /// Leading dimension of the parts: at least the product's k (`3·part`), whole 128-byte
    /// lines.
    ld: usize,
    /// Elements of K split: the chunk.
    chunk: usize,
    /// Elements between the parts along a row, each written up to here: the chunk
    /// ([`Layout::Thirds`]) or the chunk rounded up to a line ([`Layout::Once`]).
    part: usize,
    layout: Layout,
}

impl Parts {
    fn new(g: &Gemm, op: &OperandLayout, chunk: usize, layout: Layout) -> Parts {
        let (src_k_major, width) = match op.operand {
            Operand::A => (!g.trans_a, g.m),
            _ => (g.trans_b, g.n),
        };
        let items = if g.batch > 1 && op.stride > 0 {
            g.batch
        } else {
            1
        };
        let part = match layout {
            Layout::Once => chunk.div_ceil(LINE) * LINE,
            Layout::Thirds => chunk,
        };
        Parts {
            operand: op.operand,
            src_k_major,
            width,
            items,
            ld: (3 * part).div_ceil(LINE) * LINE,
            chunk,
            part,
            layout,
        }
    }

    /// The k of the product over these parts: three thirds.
    fn k(&self) -> usize {
        3 * self.part
    }

    /// Elements of one item's parts.
    fn item(&self) -> usize {
        self.width.saturating_mul(self.ld)
    }

    /// Elements of the parts (saturating: an oversized call then exceeds every limit).
    fn len(&self) -> usize {
        self.items.saturating_mul(self.item())
    }

    /// The split of k-range `k0 .. k0 + chunk` of the caller's operand `op` at `user` into the
    /// parts at `dst`.
    fn params(&self, op: &OperandLayout, user: u64, dst: u64, k0: usize) -> SplitParams {
        let start = if self.src_k_major { k0 } else { k0 * op.ld };
        SplitParams {
            src: user + 4 * start as u64,
            dst,
            width: self.width as u64,
            k: self.chunk as u64,
            written_k: self.part as u64,
            src_ld: op.ld as u64,
            dst_ld: self.ld as u64,
            src_stride: op.stride as u64,
            dst_stride: self.item() as u64,
            batch: self.items as u64,
            part_stride: self.part as u64,
            // written once: `[hi | lo]`; thirds: A `[hi | hi | lo]`, B `[hi | lo | hi]`
            parts: if self.layout == Layout::Once { 2 } else { 3 },
            low_part: if self.layout == Layout::Thirds && self.operand == Operand::A {
                2
            } else {
                1
            },
            src_k_major: u32::from(self.src_k_major),
            _pad: 0,
        }
    }
}

/// The grid of a split: along x the tiles of (width, k) up to [`SPLIT_BLOCKS_X`], along y the
/// batch items up to 65535 (the kernel strides over the rest).
fn split_grid(p: &SplitParams) -> (u32, u32, u32) {
    let tiles = p.width.div_ceil(u64::from(split_tf32::TILE_W))
        * p.written_k.div_ceil(u64::from(split_tf32::TILE_K));
    // both clamped below 2^32
    (
        tiles.clamp(1, SPLIT_BLOCKS_X) as u32,
        p.batch.clamp(1, 65535) as u32,
        1,
    )
}

/// Most blocks of a split along x (each strides over the tiles beyond).
const SPLIT_BLOCKS_X: u64 = 1 << 20;

/// One chunk of K of a 3xTF32 call: the parts of A and B, and their bytes in the staging buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunk {
    len: usize,
    a: Parts,
    b: Parts,
    /// Offset of B's parts in the staging buffer, bytes.
    b_offset: u64,
    bytes: u64,
}

impl Chunk {
    fn new(problem: &Problem, len: usize, layout: Layout) -> Chunk {
        let g = problem.gemm();
        let a = Parts::new(g, problem.a(), len, layout);
        let b = Parts::new(g, problem.b(), len, layout);
        let bytes = |p: &Parts| (p.len() as u64).saturating_mul(4);
        let b_offset = bytes(&a).div_ceil(PART_ALIGN).saturating_mul(PART_ALIGN);
        Chunk {
            len,
            a,
            b,
            b_offset,
            bytes: b_offset.saturating_add(bytes(&b)),
        }
    }

    /// The TF32 GEMM over this chunk's parts on kernels of `math`, the staging buffer at `buffer`
    /// (`None`: planned without buffers), adding to C unless `first`.
    fn problem(
        &self,
        problem: &Problem,
        math: &'static [Math],
        buffer: Option<u64>,
        first: bool,
    ) -> Result<Problem> {
        let g = problem.gemm();
        let stride = |p: &Parts| if p.items > 1 { p.item() } else { 0 };
        let inner = Gemm {
            k: self.a.k(),
            trans_a: false,
            trans_b: true,
            lda: Some(self.a.ld),
            ldb: Some(self.b.ld),
            stride_a: Some(stride(&self.a)),
            stride_b: Some(stride(&self.b)),
            beta: if first { g.beta } else { 1.0 },
            precision: Precision::Tf32,
            ..*g
        };
        let sig = Signature {
            maths: Some(math),
            ..Signature::any_math(&inner, problem.input(), problem.output())
        };
        let lens = (self.a.len(), self.b.len(), problem.c().len);
        let mut inner = Problem::resolve(&inner, sig, lens)?;
        if self.a.layout == Layout::Once {
            inner = inner.with_tf32x3_parts();
        }
        Ok(match (buffer, problem.addresses()) {
            (Some(buffer), Some(addrs)) => inner.at(Addresses {
                a: buffer,
                b: buffer + self.b_offset,
                c: addrs.c,
            }),
            _ => inner,
        })
    }
}

/// The chunk length of a 3xTF32 `problem` within `limit` bytes of staging buffer: all of K when
/// it fits, else the longest multiple of [`LINE`] (or shorter, down to 1) that fits, in either
/// layout ([`Layout::Once`]'s rows, `3·k` rounded up to a line in each third, are never shorter
/// than [`Layout::Thirds`]'s).
///
/// # Errors
/// [`Error::Unsupported`] when not even one k fits the limit.
fn chunk_len(problem: &Problem, limit: u64) -> Result<usize> {
    let k = problem.gemm().k;
    let bytes = |len: usize| Chunk::new(problem, len, Layout::Once).bytes;
    let fits = |len: usize| bytes(len) <= limit;
    if fits(k) {
        return Ok(k);
    }
    // the bytes grow about linearly in the chunk: start from the proportional guess
    let whole = bytes(k) as f64;
    let guess = ((k as f64 * limit as f64 / whole) as usize).min(k - 1);
    let mut len = if guess >= LINE {
        guess / LINE * LINE
    } else {
        guess
    };
    while len > 0 && !fits(len) {
        len = if len > LINE { len - LINE } else { len - 1 };
    }
    if len == 0 {
        return Err(Error::Unsupported(format!(
            "Precision::Tf32x3 splits A and B into TF32 parts in the staging buffer, and even one k \
             of this call's parts takes {} bytes, above its limit of {limit} \
             (ContextOptions::staging_limit)",
            bytes(1)
        )));
    }
    Ok(len)
}

/// The split kernel.
fn split_kernel() -> Result<&'static KernelSpec> {
    KERNELS
        .iter()
        .find(|k| k.family == Family::SplitTf32)
        .ok_or_else(|| Error::Unsupported("no TF32 split kernel in this build".into()))
}

/// The product of one chunk ([`Context::tf32x3_product`]): its parts, the TF32 GEMM over them and
/// its plan (the kernel dispatch picks, and the cut).
struct Product {
    chunk: Chunk,
    inner: Problem,
    plan: Plan,
}

/// Where a 3xTF32 call's C goes: the caller's, or, where it is not 16-byte aligned (which the
/// 3xTF32 kernels, TMA kernels, need), a packed copy at the start of the staging buffer
/// (`Staged::c`), the parts after it.
struct Output {
    /// The staging of C, if any.
    staging: Option<Staging>,
    /// Bytes of staging buffer before the parts.
    bytes: u64,
}

impl Output {
    fn new(problem: &Problem) -> Output {
        let staging = (!problem.c().alignment.all()).then(|| {
            let c_only = Staged {
                c: true,
                ..Staged::NONE
            };
            Staging::new(problem, c_only)
        });
        let bytes = staging.as_ref().map_or(0, |s| s.bytes);
        Output { staging, bytes }
    }

    /// `problem` with its C where the product writes it, the staging buffer at `buffer`.
    fn problem(&self, problem: &Problem, buffer: Option<u64>) -> Result<Problem> {
        match &self.staging {
            Some(s) => s.problem(problem, buffer),
            None => Ok(*problem),
        }
    }
}

/// The chunk length of `problem` (C where the product writes it) within `limit`, `output`'s
/// bytes taken.
fn chunk_within(problem: &Problem, output: &Output, limit: u64) -> Result<usize> {
    chunk_len(problem, limit.saturating_sub(output.bytes))
}

impl Context {
    /// The kernels of a 3xTF32 call's product: those that add each span of k-tiles' accumulation
    /// (`Math::MmaTf32x3`, sm_90a) where loaded, else the TF32 kernels (whose error then grows
    /// with k, docs/precision.md).
    fn tf32x3_math(&self) -> &'static [Math] {
        if self.capabilities().hopper {
            &[Math::MmaTf32x3]
        } else {
            &[Math::MmaTf32]
        }
    }

    /// The plan of a 3xTF32 `problem` that [`splits`]: the TF32 kernel dispatch picks for its
    /// first chunk's parts, with [`Plan::tf32x3`] set (and `Plan::staged` C where C is staged).
    pub(crate) fn plan_tf32x3(&self, problem: &Problem) -> Result<Plan> {
        let output = Output::new(problem);
        let outer = output.problem(problem, None)?;
        let len = chunk_within(&outer, &output, self.staging_limit())?;
        let product = self.tf32x3_product(&outer, len, None, true)?;
        Ok(Plan {
            tf32x3: true,
            staged: output.staging.map_or(Staged::NONE, |s| s.staged),
            ..product.plan
        })
    }

    /// The product of one chunk of `len` of K of `outer` (C where the product writes it), its
    /// parts at `buffer` (`None`: planned without buffers), adding to C unless `first`: the parts
    /// written once ([`Layout::Once`]) where it runs on a 3xTF32 kernel not cut along K into
    /// slices, else in thirds.
    fn tf32x3_product(
        &self,
        outer: &Problem,
        len: usize,
        buffer: Option<u64>,
        first: bool,
    ) -> Result<Product> {
        let math = self.tf32x3_math();
        let product = |layout| -> Result<Product> {
            let chunk = Chunk::new(outer, len, layout);
            let inner = chunk.problem(outer, math, buffer, first)?;
            let spec = self.select(&inner, self.cuts())?;
            let plan = self.plan_problem(spec, &inner, self.cuts())?;
            Ok(Product { chunk, inner, plan })
        };
        if math.contains(&Math::MmaTf32x3) {
            let once = product(Layout::Once)?;
            let sliced = once.plan.split.is_split() || once.plan.tail.is_some();
            if once.plan.kernel.math == Math::MmaTf32x3 && !sliced {
                return Ok(once);
            }
        }
        product(Layout::Thirds)
    }

    /// Runs a 3xTF32 `problem` (resolved on buffers of this context, one that [`splits`]) on the
    /// context's stream: a misaligned C copied into the staging buffer (when read), then per
    /// chunk of K the split of A and of B into the staging buffer and the TF32 product over the
    /// parts, then the staged C copied back; returns the first chunk's plan.
    ///
    /// # Errors
    /// As [`Context::gemm`]; [`Error::Unsupported`] when the staging buffer would have to grow
    /// while the stream captures a graph (reserve it first, [`Context::reserve_staging`]) or when
    /// no chunk fits the limit.
    ///
    /// # Safety
    /// As [`Context::launch_problem`] on the context's stream.
    pub(crate) unsafe fn launch_tf32x3(&self, problem: &Problem) -> Result<Plan> {
        let k = problem.gemm().k;
        let output = Output::new(problem);
        let planned = output.problem(problem, None)?;
        let len = chunk_within(&planned, &output, self.staging_limit())?;
        let bytes = output.bytes + Chunk::new(&planned, len, Layout::Once).bytes;
        if self.staging.bytes() < bytes {
            let status = self.stream().capture_status()?;
            if status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
                return Err(Error::Unsupported(format!(
                    "Precision::Tf32x3 needs {bytes} bytes of staging buffer, more than it holds, \
                     and it cannot grow during a graph capture: call Context::reserve_staging first"
                )));
            }
        }
        let addrs = problem.addresses().ok_or_else(|| {
            Error::Unsupported("a problem planned without buffers cannot be launched".into())
        })?;
        let (_buffer, buffer) = self.staging.at_least(self, bytes)?;
        let outer = output.problem(problem, Some(buffer))?;
        let parts_at = buffer + output.bytes;
        let split = split_kernel()?;
        let split_fn = self.function(split, "TF32 split kernel")?;
        let cu = self.stream().cu_stream();
        // SAFETY: the copies of a staged C read and write the caller's validated C and the
        // staging buffer's first `output.bytes`; each split reads its k-range of the caller's
        // validated operand and writes its parts after them inside the staging buffer, which
        // holds `bytes` (the first, longest chunk's) and stays locked until all is enqueued; the
        // products read the parts and write C as `launch_plan`'s contract says. All on the
        // context's stream, in order.
        unsafe {
            if let Some(s) = &output.staging {
                for (elem, p) in s.copies_in(problem, buffer)? {
                    self.launch_copy(elem, &p)?;
                }
            }
            let mut plan = None;
            for k0 in (0..k).step_by(len) {
                let len = len.min(k - k0);
                let Product {
                    chunk,
                    inner,
                    plan: product,
                } = self.tf32x3_product(&outer, len, Some(parts_at), k0 == 0)?;
                let parts = [
                    (&chunk.a, problem.a(), addrs.a, parts_at),
                    (&chunk.b, problem.b(), addrs.b, parts_at + chunk.b_offset),
                ];
                for (parts, op, user, dst) in parts {
                    let p = parts.params(op, user, dst, k0);
                    let launch_plan =
                        Plan::with_grid(split, split_grid(&p), split_tf32::SMEM_BYTES);
                    launch::launch(self.cuda(), cu, split_fn, &launch_plan, &p)?;
                }
                let ran = self.launch_plan(product, &inner, cu)?;
                plan.get_or_insert(ran);
            }
            if let Some((elem, p)) = output
                .staging
                .as_ref()
                .map(|s| s.copy_out(problem, buffer))
                .transpose()?
                .flatten()
            {
                self.launch_copy(elem, &p)?;
            }
            let plan = plan.ok_or_else(|| Error::Unsupported("a 3xTF32 call without k".into()))?;
            Ok(Plan {
                tf32x3: true,
                staged: output.staging.map_or(Staged::NONE, |s| s.staged),
                ..plan
            })
        }
    }
}

#[cfg(test)]
mod tests;
