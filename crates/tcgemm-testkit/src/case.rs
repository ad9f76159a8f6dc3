//! A test case: host operands with padding, offsets, guards and poisoned C, its f64 reference, and
//! running it on the device (upload, one GEMM through dispatch or a kernel forced by name,
//! download). The checks of the result are in `verify.rs`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr};
use tcgemm::{Context, Gemm, Plan};

use crate::elem::TestElem;
use crate::problem::{Layout, Problem};
use crate::reference::{operands_of_bits, Reference, FULL_REFERENCE_MAX_MACS};
use crate::rng::{random_elem, seed, Rng};

/// Elements after the last operand element that are allocated, filled with the sentinel and
/// checked for writes (C): catches overruns past the end of a view.
pub const GUARD: usize = 64;

/// One test case: host operands (whole allocations, including offsets, padding and guards), the
/// initial C and the reference.
///
/// ```no_run
/// use tcgemm_testkit::{gpu, tol_fp32, Case, Problem, Rng};
/// let Some(ctx) = gpu() else { return };
/// let p = Problem::new(129, 67, 45).pad_ld(1, 3, 5).precision(tcgemm::Precision::Exact);
/// let case = Case::<f32, f32>::new("padded", p, &mut Rng::for_test("doc"));
/// case.run_and_verify("default", ctx, tol_fp32(45));
/// ```
pub struct Case<I: TestElem, O: TestElem> {
    /// Names the case in messages.
    pub label: String,
    /// The call.
    pub p: Problem,
    /// A's allocation.
    pub a: Vec<I::Bits>,
    /// B's allocation.
    pub b: Vec<I::Bits>,
    /// C as uploaded before every run.
    pub c: Vec<O::Bits>,
    /// The f64 reference of the checked entries.
    pub reference: Reference,
    /// View lengths passed to tcgemm.
    pub lens: (usize, usize, usize),
}

/// Device copies of a case's allocations.
///
/// ```no_run
/// use tcgemm_testkit::{gpu, Case, Problem, Rng};
/// let Some(ctx) = gpu() else { return };
/// let case = Case::<f32, f32>::new("x", Problem::new(64, 64, 64), &mut Rng::new(1, 1));
/// let mut dev = case.upload(ctx.stream());
/// case.launch(ctx, &mut dev, None).unwrap();
/// let out = case.download(ctx.stream(), &dev);
/// ```
pub struct DeviceCase<I: TestElem, O: TestElem> {
    /// A's allocation.
    pub a: CudaSlice<I::Bits>,
    /// B's allocation.
    pub b: CudaSlice<I::Bits>,
    /// C's allocation.
    pub c: CudaSlice<O::Bits>,
}

/// Allocation length for a view of `span` elements at `offset`, plus the guard.
fn alloc_len(offset: usize, span: usize) -> usize {
    offset + span + GUARD
}

/// Fills the `rows×cols` windows of every batch item (in a sentinel-filled allocation).
fn fill_windows<T: TestElem>(buf: &mut [T::Bits], l: &Layout, mut f: impl FnMut() -> T::Bits) {
    for z in 0..l.batch {
        for r in 0..l.rows {
            let start = l.offset + l.at(z, r, 0);
            for x in &mut buf[start..start + l.cols] {
                *x = f();
            }
        }
    }
}

/// `ctx.gemm` (or `gemm_with_kernel` when `kernel` names one) on device buffers of raw bits, as
/// test cases hold them; returns the plan that ran (`None` for a call with nothing to compute).
///
/// ```no_run
/// use tcgemm_testkit::gemm_on_bits;
/// let ctx = tcgemm::Context::new(0)?;
/// let s = ctx.stream();
/// let (a, b) = (s.alloc_zeros::<u16>(64 * 64)?, s.alloc_zeros::<u16>(64 * 64)?);
/// let mut c = s.alloc_zeros::<u32>(64 * 64)?;
/// let g = tcgemm::Gemm::new(64, 64, 64);
/// gemm_on_bits::<half::f16, f32>(&ctx, &g, &a.slice(..), &b.slice(..), &mut c.slice_mut(..), None)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gemm_on_bits<I: TestElem, O: TestElem>(
    ctx: &Context,
    g: &Gemm,
    a: &CudaView<'_, I::Bits>,
    b: &CudaView<'_, I::Bits>,
    c: &mut CudaViewMut<'_, O::Bits>,
    kernel: Option<&str>,
) -> tcgemm::Result<Option<Plan>> {
    let (la, lb, lc) = (a.len(), b.len(), c.len());
    // SAFETY: `I::Bits`/`O::Bits` are the bit patterns of `I`/`O` (same size, any bits valid).
    let a = unsafe { a.transmute::<I>(la) }.expect("A view");
    // SAFETY: as above.
    let b = unsafe { b.transmute::<I>(lb) }.expect("B view");
    // SAFETY: as above.
    let mut c = unsafe { c.transmute_mut::<O>(lc) }.expect("C view");
    match kernel {
        None => ctx.gemm::<I, O, _, _, _>(g, &a, &b, &mut c),
        Some(name) => ctx.gemm_with_kernel::<I, O, _, _, _>(name, g, &a, &b, &mut c),
    }
}

impl<I: TestElem, O: TestElem> Case<I, O> {
    /// Random A and B (uniform in `[-1, 1]`, never zero); C poisoned when `beta == 0`, random
    /// otherwise; everything outside the windows set to the sentinel. Computes the reference.
    pub fn new(label: impl Into<String>, p: Problem, rng: &mut Rng) -> Self {
        Self::with_reference_limit(label, p, rng, FULL_REFERENCE_MAX_MACS)
    }

    /// [`Case::new`] with the full reference computed up to `full_max_macs` multiply-adds (and
    /// sampled, [`SAMPLES`](crate::SAMPLES) entries, above that) instead of
    /// [`FULL_REFERENCE_MAX_MACS`]: for suites of many cases (tests/property.rs) whose run time
    /// the CPU reference would dominate.
    pub fn with_reference_limit(
        label: impl Into<String>,
        p: Problem,
        rng: &mut Rng,
        full_max_macs: u128,
    ) -> Self {
        let (la, lb, lc) = (p.layout_a(), p.layout_b(), p.layout_c());
        // View lengths: the tight span, or more when the library asks for more.
        let (mut len_a, mut len_b, mut len_c) = (la.span(), lb.span(), lc.span());
        if let Ok((ra, rb, rc)) = p.gemm().required_lens() {
            len_a = len_a.max(ra);
            len_b = len_b.max(rb);
            len_c = len_c.max(rc);
        }
        let mut a = vec![I::SENTINEL; alloc_len(la.offset, len_a)];
        let mut b = vec![I::SENTINEL; alloc_len(lb.offset, len_b)];
        let mut c = vec![O::SENTINEL; alloc_len(lc.offset, len_c)];
        fill_windows::<I>(&mut a, &la, || random_elem::<I>(rng).to_bits());
        fill_windows::<I>(&mut b, &lb, || random_elem::<I>(rng).to_bits());
        if p.beta == 0.0 {
            fill_windows::<O>(&mut c, &lc, || O::POISON);
        } else {
            fill_windows::<O>(&mut c, &lc, || random_elem::<O>(rng).to_bits());
        }
        let ops = operands_of_bits::<I, O>(&p, &a, &b, &c);
        let reference = Reference::for_case(&ops, rng, full_max_macs);
        Case {
            label: label.into(),
            p,
            a,
            b,
            c,
            reference,
            lens: (len_a, len_b, len_c),
        }
    }

    /// Makes every element of A and B (windows included) the sentinel NaN: for calls that must
    /// not read A and B (`alpha == 0`, `k == 0`). The reference does not depend on them then.
    pub fn poison_inputs(&mut self) {
        assert!(
            self.p.alpha == 0.0 || self.p.k == 0,
            "poison_inputs on a case that reads A and B"
        );
        self.a.fill(I::SENTINEL);
        self.b.fill(I::SENTINEL);
    }

    /// Identifies the case in failure messages: label, problem, types and seed.
    pub fn describe(&self) -> String {
        format!(
            "case '{}' [{}→{}] {} (reference: {}) — replay with TCGEMM_SEED={}",
            self.label,
            I::NAME,
            O::NAME,
            self.p,
            if self.reference.points.is_some() {
                "sampled"
            } else {
                "full"
            },
            seed()
        )
    }

    /// Uploads the operands (whole allocations).
    pub fn upload(&self, stream: &Arc<CudaStream>) -> DeviceCase<I, O> {
        fn up<T: DeviceRepr>(
            stream: &Arc<CudaStream>,
            what: &str,
            host: &[T],
            case: &str,
        ) -> CudaSlice<T> {
            stream
                .clone_htod(host)
                .unwrap_or_else(|e| panic!("upload of {what} failed: {e:?}; {case}"))
        }
        let d = self.describe();
        let a = up(stream, "A", &self.a, &d);
        let b = up(stream, "B", &self.b, &d);
        let c = up(stream, "C", &self.c, &d);
        stream
            .synchronize()
            .unwrap_or_else(|e| panic!("synchronize after upload: {e:?}; {}", self.describe()));
        DeviceCase { a, b, c }
    }

    /// Restores the initial C on the device.
    pub fn reset_c(&self, stream: &Arc<CudaStream>, dev: &mut DeviceCase<I, O>) {
        stream
            .memcpy_htod(&self.c, &mut dev.c)
            .unwrap_or_else(|e| panic!("reset of C failed: {e:?}; {}", self.describe()));
    }

    /// Calls tcgemm on the device operands (asynchronous), optionally forcing a kernel by name;
    /// returns the plan that ran.
    pub fn launch(
        &self,
        ctx: &Context,
        dev: &mut DeviceCase<I, O>,
        kernel: Option<&str>,
    ) -> tcgemm::Result<Option<Plan>> {
        let (len_a, len_b, len_c) = self.lens;
        let (oa, ob, oc) = (self.p.offset_a, self.p.offset_b, self.p.offset_c);
        let a = dev.a.slice(oa..oa + len_a);
        let b = dev.b.slice(ob..ob + len_b);
        let mut c = dev.c.slice_mut(oc..oc + len_c);
        gemm_on_bits::<I, O>(ctx, &self.p.gemm(), &a, &b, &mut c, kernel)
    }

    /// Downloads the whole C allocation (synchronizing the stream).
    pub fn download(&self, stream: &Arc<CudaStream>, dev: &DeviceCase<I, O>) -> Vec<O::Bits> {
        let out = stream
            .clone_dtoh(&dev.c)
            .unwrap_or_else(|e| panic!("download of C failed: {e:?}; {}", self.describe()));
        stream
            .synchronize()
            .unwrap_or_else(|e| panic!("synchronize after GEMM: {e:?}; {}", self.describe()));
        out
    }

    /// Upload, one GEMM, download; panics (with the case) when tcgemm returns an error.
    pub fn run(&self, ctx: &Context) -> Vec<O::Bits> {
        self.run_with(ctx, None)
    }

    /// [`Case::run`] through a kernel forced by name.
    pub fn run_with(&self, ctx: &Context, kernel: Option<&str>) -> Vec<O::Bits> {
        let stream = ctx.stream();
        let mut dev = self.upload(stream);
        self.launch(ctx, &mut dev, kernel)
            .unwrap_or_else(|e| panic!("tcgemm returned an error: {e}; {}", self.describe()));
        self.download(stream, &dev)
    }
}
