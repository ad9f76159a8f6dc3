//! [`Problem`]: one GEMM call resolved once, at the top of the call.
//!
//! A [`Gemm`] says what to compute; a `Problem` adds what the call is made of: the element types,
//! the validated shape, each operand's effective leading dimension and batch stride, its base
//! address (or "aligned like a fresh allocation" when planning without buffers), its 16-byte
//! alignment, and whether A, B and C are read. Dispatch ([`can_implement`](crate::can_implement)),
//! the launch grid ([`Plan`](crate::Plan)) and the kernel parameters all read these answers from
//! here instead of working them out again.

use crate::dispatch;
use crate::element::Element;
use crate::error::Result;
use crate::gemm::Gemm;
use crate::raw::{self, RawBuffer};
use cudarc::driver::DevicePtr;
use tcgemm_kernels::config::{Elem, GemmShape, Math, KERNELS};

mod operand;
pub use operand::{Alignment, Operand, OperandLayout};

/// Device addresses of A, B and C (batch item 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Addresses {
    /// Address of A.
    pub a: u64,
    /// Address of B.
    pub b: u64,
    /// Address of C.
    pub c: u64,
}

/// What a call asks of a kernel, before any buffer is looked at: element types, transposes and
/// the multiply-accumulate instructions its precision accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Signature {
    /// Element type of A and B.
    pub input: Elem,
    /// Element type of C.
    pub output: Elem,
    /// A stored transposed.
    pub trans_a: bool,
    /// B stored transposed.
    pub trans_b: bool,
    /// Acceptable instructions, most preferred first; `None`: any (a kernel named by the caller
    /// brings its own, and `g.precision` is not consulted).
    pub maths: Option<&'static [Math]>,
}

impl Signature {
    /// The signature of `g` with `input -> output` elements, accepting any math.
    pub fn any_math(g: &Gemm, input: Elem, output: Elem) -> Signature {
        Signature {
            input,
            output,
            trans_a: g.trans_a,
            trans_b: g.trans_b,
            maths: None,
        }
    }
}

/// Reads the device addresses of three cudarc buffers on their own streams (cudarc records a
/// read of each there); launches nothing.
pub(crate) fn peek_addresses<I, O, A, B, C>(a: &A, b: &B, c: &C) -> Addresses
where
    A: DevicePtr<I>,
    B: DevicePtr<I>,
    C: DevicePtr<O>,
{
    let (pa, _read_a) = a.device_ptr(a.stream());
    let (pb, _read_b) = b.device_ptr(b.stream());
    let (pc, _read_c) = c.device_ptr(c.stream());
    Addresses {
        a: pa,
        b: pb,
        c: pc,
    }
}

/// One GEMM call resolved once: the validated [`Gemm`], its element types and transposes, each
/// operand's effective layout, address and alignment, and which instructions its precision accepts.
///
/// Every `Problem` has passed [`Gemm::validate`] against its buffers' lengths. Kernels are checked
/// against it with [`can_implement`](crate::can_implement); [`Context::gemm`](crate::Context::gemm)
/// builds one at the top of each call.
///
/// ```
/// use tcgemm::{can_implement, Gemm, Problem};
/// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(100, 60, 30))?;
/// assert_eq!((p.a().ld, p.b().ld, p.c().ld), (30, 60, 60));
/// assert!(p.reads_ab() && !p.reads_c());
/// let sgemm = tcgemm_kernels::config::KERNELS
///     .iter()
///     .find(|k| k.family == tcgemm::Family::CudaCore && !k.trans_a && !k.trans_b)
///     .unwrap();
/// assert!(can_implement(sgemm, &p).is_ok());
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    gemm: Gemm,
    sig: Signature,
    a: OperandLayout,
    b: OperandLayout,
    c: OperandLayout,
    /// A and B are 3xTF32 parts written once per row, read in thirds by the kernel
    /// (`flags::TF32X3_PARTS`, `crate::tf32x3`).
    tf32x3_parts: bool,
}

/// How a call resolved on its buffers runs ([`Problem::route`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Route {
    /// Split into TF32 parts first, in the context's staging buffer (`crate::tf32x3`).
    Tf32x3(Problem),
    /// On the kernel dispatch picks for this problem: the call as asked, or a few-row TF32 call
    /// with an unaligned A or B as exact FP32 (`staging::exact_instead`).
    Dispatch(Problem),
}

impl Problem {
    /// The problem of `g` planned without buffers: lengths are the required ones and every base
    /// address is assumed 16-byte aligned, as fresh allocations are. Accepts any math until
    /// [`Problem::resolve_precision`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) as [`Gemm::validate`].
    ///
    /// ```
    /// use tcgemm::{Gemm, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(3, 5, 7).lda(9))?;
    /// assert_eq!(p.a().len, 2 * 9 + 7);
    /// assert!(Problem::assume_aligned::<f32, f32>(&Gemm::new(3, 5, 7).lda(2)).is_err());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn assume_aligned<I: Element, O: Element>(g: &Gemm) -> Result<Problem> {
        let lens = g.required_lens()?;
        Problem::resolve(g, Signature::any_math(g, I::ELEM, O::ELEM), lens)
    }

    /// The problem of `g` on cudarc buffers (slices or views): validated against their lengths,
    /// with their addresses (read on each buffer's own stream; nothing is launched). Accepts any
    /// math until [`Problem::resolve_precision`], like a kernel named in
    /// [`Context::gemm_with_kernel`](crate::Context::gemm_with_kernel).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) as [`Gemm::validate`].
    ///
    /// ```no_run
    /// use tcgemm::{can_implement, Context, Gemm, Operand, Problem, Reason};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let a = s.alloc_zeros::<f32>(1 + 64 * 64)?;
    /// let b = s.alloc_zeros::<f32>(64 * 64)?;
    /// let c = s.alloc_zeros::<f32>(64 * 64)?;
    /// let g = Gemm::new(64, 64, 64);
    /// let p = Problem::new::<f32, f32>(&g, &a.slice(1..), &b, &c)?;
    /// assert!(!p.a().alignment.base); // one f32 past an allocation
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new<I: Element, O: Element>(
        g: &Gemm,
        a: &impl DevicePtr<I>,
        b: &impl DevicePtr<I>,
        c: &impl DevicePtr<O>,
    ) -> Result<Problem> {
        let sig = Signature::any_math(g, I::ELEM, O::ELEM);
        let p = Problem::resolve(g, sig, (a.len(), b.len(), c.len()))?;
        Ok(p.at(peek_addresses(a, b, c)))
    }

    /// The problem of `g` on buffers given by device address and length in elements (memory from
    /// another library). Checks what can be checked without the device: the lengths
    /// ([`Gemm::validate`]), and for every operand the call references a non-null address aligned
    /// to its element, a byte extent that fits 64 bits, and C apart from A and B.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a`, `b` or `c` (or a
    /// field of `g`).
    ///
    /// ```
    /// use tcgemm::{Gemm, Problem, RawBuffer};
    /// let g = Gemm::new(4, 4, 4);
    /// let buf = |ptr| RawBuffer { ptr, len: 16 };
    /// let p = Problem::from_raw::<f32, f32>(&g, buf(0x1000), buf(0x2000), buf(0x3000))?;
    /// assert_eq!(p.c().base, Some(0x3000));
    /// // C overlapping A is refused
    /// assert!(Problem::from_raw::<f32, f32>(&g, buf(0x1000), buf(0x2000), buf(0x1020)).is_err());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn from_raw<I: Element, O: Element>(
        g: &Gemm,
        a: RawBuffer,
        b: RawBuffer,
        c: RawBuffer,
    ) -> Result<Problem> {
        let sig = Signature::any_math(g, I::ELEM, O::ELEM);
        Problem::resolve_raw(g, sig, a, b, c)
    }

    /// Restricts the problem to the instructions `g.precision` allows for its element types, as
    /// [`Context::gemm`](crate::Context::gemm) does (`allow_tf32`: whether
    /// [`Precision::Default`](crate::Precision::Default) may use TF32, see
    /// [`Context::allow_tf32`](crate::Context::allow_tf32)).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument): `precision` when the inputs do
    /// not have that precision or no kernel of these element types implements it; `element types`
    /// when no kernel multiplies these element types. Both messages list the combinations that
    /// exist.
    ///
    /// ```
    /// use tcgemm::{Gemm, Math, Precision, Problem};
    /// let g = Gemm::new(64, 64, 64);
    /// let p = Problem::assume_aligned::<f32, f32>(&g)?.resolve_precision(false)?;
    /// assert_eq!(p.maths(), Some(&[Math::Ffma][..]));
    /// let tf32 = g.precision(Precision::Tf32);
    /// assert!(Problem::assume_aligned::<half::f16, f32>(&tf32)?.resolve_precision(true).is_err());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn resolve_precision(self, allow_tf32: bool) -> Result<Problem> {
        let (input, output) = (self.sig.input, self.sig.output);
        let sig = dispatch::signature(KERNELS, &self.gemm, input, output, allow_tf32)?;
        Ok(Problem { sig, ..self })
    }

    /// Validates `g` against buffers of `lens` elements; bases unknown (assumed aligned).
    pub(crate) fn resolve(
        g: &Gemm,
        sig: Signature,
        (len_a, len_b, len_c): (usize, usize, usize),
    ) -> Result<Problem> {
        g.validate(len_a, len_b, len_c)?;
        Ok(Problem::build(g, sig, (len_a, len_b, len_c)))
    }

    /// The problem of `g` on buffers of `lens` elements, without validating it (the unit tests of
    /// the guards behind validation use it directly).
    pub(crate) fn build(
        g: &Gemm,
        sig: Signature,
        (len_a, len_b, len_c): (usize, usize, usize),
    ) -> Problem {
        let batch = g.batch;
        let (input, output) = (sig.input, sig.output);
        let layout = |operand, elem, ld, stride, len| {
            OperandLayout::new(operand, elem, ld, stride, len, batch)
        };
        Problem {
            gemm: *g,
            sig,
            a: layout(
                Operand::A,
                input,
                g.lda_or_packed(),
                g.stride_a_or_packed(),
                len_a,
            ),
            b: layout(
                Operand::B,
                input,
                g.ldb_or_packed(),
                g.stride_b_or_packed(),
                len_b,
            ),
            c: layout(
                Operand::C,
                output,
                g.ldc_or_packed(),
                g.stride_c_or_packed(),
                len_c,
            ),
            tf32x3_parts: false,
        }
    }

    /// [`Problem::resolve`] on raw buffers, with their address checks.
    pub(crate) fn resolve_raw(
        g: &Gemm,
        sig: Signature,
        a: RawBuffer,
        b: RawBuffer,
        c: RawBuffer,
    ) -> Result<Problem> {
        let p = Problem::resolve(g, sig, (a.len, b.len, c.len))?;
        raw::check_addresses(&p, a, b, c)?;
        Ok(p.at(Addresses {
            a: a.ptr,
            b: b.ptr,
            c: c.ptr,
        }))
    }

    /// This problem asking for `precision` instead, resolved as [`Problem::resolve_precision`]
    /// resolves it (`staging::exact_instead` asks for `Exact`).
    pub(crate) fn with_precision(self, precision: crate::gemm::Precision) -> Result<Problem> {
        let gemm = self.gemm.precision(precision);
        Problem { gemm, ..self }.resolve_precision(false)
    }

    /// How this problem, resolved on its buffers, runs ([`Route`]): the one rule
    /// `Context::gemm`, `Context::plan_for` and `Context::gemm_raw` share.
    pub(crate) fn route(self) -> Route {
        if crate::tf32x3::splits(&self) {
            return Route::Tf32x3(self);
        }
        Route::Dispatch(crate::staging::exact_instead(&self).unwrap_or(self))
    }

    /// The same problem with A and B read as 3xTF32 parts written once (`crate::tf32x3`).
    pub(crate) fn with_tf32x3_parts(self) -> Problem {
        Problem {
            tf32x3_parts: true,
            ..self
        }
    }

    /// Whether A and B are 3xTF32 parts written once: the kernel reads them in thirds
    /// (`flags::TF32X3_PARTS`).
    pub(crate) fn tf32x3_parts(&self) -> bool {
        self.tf32x3_parts
    }

    /// The same problem on buffers at `addrs`.
    pub(crate) fn at(self, addrs: Addresses) -> Problem {
        Problem {
            a: self.a.at(addrs.a),
            b: self.b.at(addrs.b),
            c: self.c.at(addrs.c),
            ..self
        }
    }

    /// The call's description.
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7);
    /// assert_eq!(tcgemm::Problem::assume_aligned::<f32, f32>(&g)?.gemm(), &g);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn gemm(&self) -> &Gemm {
        &self.gemm
    }

    /// Element type of A and B.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<half::bf16, f32>(&tcgemm::Gemm::new(2, 2, 2))?;
    /// assert_eq!(p.input(), tcgemm::Elem::Bf16);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn input(&self) -> Elem {
        self.sig.input
    }

    /// Element type of C.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<half::bf16, f32>(&tcgemm::Gemm::new(2, 2, 2))?;
    /// assert_eq!(p.output(), tcgemm::Elem::F32);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn output(&self) -> Elem {
        self.sig.output
    }

    /// The instructions the problem accepts, most preferred first; `None`: any (no precision
    /// resolved, as for a kernel named by the caller).
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<f32, f32>(&tcgemm::Gemm::new(2, 2, 2))?;
    /// assert_eq!(p.maths(), None);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn maths(&self) -> Option<&'static [Math]> {
        self.sig.maths
    }

    pub(crate) fn signature(&self) -> &Signature {
        &self.sig
    }

    /// Operand A.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<f32, f32>(&tcgemm::Gemm::new(2, 3, 4))?;
    /// assert_eq!(p.a().ld, 4);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn a(&self) -> &OperandLayout {
        &self.a
    }

    /// Operand B.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<f32, f32>(&tcgemm::Gemm::new(2, 3, 4))?;
    /// assert_eq!(p.b().ld, 3);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn b(&self) -> &OperandLayout {
        &self.b
    }

    /// Operand C.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<f32, f32>(&tcgemm::Gemm::new(2, 3, 4).ldc(8))?;
    /// assert_eq!(p.c().ld, 8);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn c(&self) -> &OperandLayout {
        &self.c
    }

    /// The layout of `operand`.
    ///
    /// ```
    /// use tcgemm::{Gemm, Operand, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(2, 3, 4))?;
    /// assert_eq!(p.operand(Operand::B), p.b());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn operand(&self, operand: Operand) -> &OperandLayout {
        match operand {
            Operand::A => &self.a,
            Operand::B => &self.b,
            Operand::C => &self.c,
        }
    }

    /// Device addresses, when the problem was resolved on buffers.
    pub(crate) fn addresses(&self) -> Option<Addresses> {
        Some(Addresses {
            a: self.a.base?,
            b: self.b.base?,
            c: self.c.base?,
        })
    }

    /// No output: `m`, `n` or `batch` is zero, so nothing is launched.
    ///
    /// ```
    /// let p = tcgemm::Problem::assume_aligned::<f32, f32>(&tcgemm::Gemm::new(0, 3, 4))?;
    /// assert!(p.is_empty());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.gemm.is_empty()
    }

    /// Whether A and B are read: `k > 0` and `alpha != 0` (otherwise the call computes `C = beta·C`).
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(2, 3, 4);
    /// assert!(!tcgemm::Problem::assume_aligned::<f32, f32>(&g.alpha(0.0))?.reads_ab());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn reads_ab(&self) -> bool {
        self.gemm.reads_ab()
    }

    /// Whether C is read: `beta != 0` (NaN included). With `beta == 0` C is only written.
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(2, 3, 4);
    /// assert!(tcgemm::Problem::assume_aligned::<f32, f32>(&g.beta(1.0))?.reads_c());
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn reads_c(&self) -> bool {
        self.gemm.beta != 0.0
    }

    /// Rows `start..start + rows` of this call's C (one batch item, `start + rows ≤ m`): the same
    /// call on those rows of `op(A)` and C, as views into the same buffers with the same leading
    /// dimensions (a tail launch, `crate::tail`).
    pub(crate) fn rows(&self, start: usize, rows: usize) -> Problem {
        let g = &self.gemm;
        let a_skip = if g.trans_a { start } else { start * self.a.ld };
        Problem {
            gemm: Gemm {
                m: rows,
                lda: Some(self.a.ld),
                ldb: Some(self.b.ld),
                ldc: Some(self.c.ld),
                ..*g
            },
            a: self.a.skip(a_skip),
            c: self.c.skip(start * self.c.ld),
            ..*self
        }
    }

    /// Output tiles of a `block` tile along m and along n (a zero block extent counts as 1).
    ///
    /// ```
    /// use tcgemm::{GemmShape, Gemm, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(300, 100, 8))?;
    /// assert_eq!(p.tile_grid(GemmShape::new(128, 64, 8)), (3, 2));
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn tile_grid(&self, block: GemmShape) -> (u64, u64) {
        let (bm, bn) = (u64::from(block.m.max(1)), u64::from(block.n.max(1)));
        (
            (self.gemm.m as u64).div_ceil(bm),
            (self.gemm.n as u64).div_ceil(bn),
        )
    }

    /// Output tiles of a `block` tile per batch item (saturating; at most 2⁶² after validation).
    ///
    /// ```
    /// use tcgemm::{GemmShape, Gemm, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(300, 100, 8))?;
    /// assert_eq!(p.tiles(GemmShape::new(128, 64, 8)), 6);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn tiles(&self, block: GemmShape) -> u64 {
        let (tm, tn) = self.tile_grid(block);
        tm.saturating_mul(tn)
    }

    /// Work items of a `block` tile: output tiles × batch items (saturating).
    ///
    /// ```
    /// use tcgemm::{GemmShape, Gemm, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(300, 100, 8).batch(5))?;
    /// assert_eq!(p.work_items(GemmShape::new(128, 64, 8)), 30);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn work_items(&self, block: GemmShape) -> u64 {
        self.tiles(block).saturating_mul(self.gemm.batch as u64)
    }

    /// k-tiles of a `block` tile's k-loop: `⌈k / block.k⌉` (0 for k = 0).
    ///
    /// ```
    /// use tcgemm::{GemmShape, Gemm, Problem};
    /// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(300, 100, 100))?;
    /// assert_eq!(p.k_tiles(GemmShape::new(128, 64, 32)), 4);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn k_tiles(&self, block: GemmShape) -> u64 {
        (self.gemm.k as u64).div_ceil(u64::from(block.k.max(1)))
    }
}

#[cfg(test)]
mod tests;
