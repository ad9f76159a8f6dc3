//! Rotating device buffer sets for timed launches, and NaN-poisoning an output before a run.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtrMut};
use tcgemm::Context;

use crate::elem::TestElem;
use crate::problem::Layout;
use crate::reference::Reference;
use crate::rng::random_vec;
use crate::shapes::Shape;

/// Fewest (A, B, C) sets the timed launches rotate through.
pub const MIN_SETS: usize = 3;
/// Most sets (small shapes need many to span 2× L2).
pub const MAX_SETS: usize = 64;

/// Host inputs (for the reference) and `sets` rotating device (A, B, C) sets of one shape. Every
/// set holds the same random non-zero A and B (at different addresses); C starts zeroed. The
/// buffers are whole allocations of [`Shape::lens`] elements; a call takes the operands' views
/// ([`Sets::views`]), which start the shape's [`Padding::offset`](crate::Padding::offset) in.
///
/// ```no_run
/// use tcgemm_testkit::{Sets, Shape};
/// let ctx = tcgemm::Context::new(0)?;
/// let shape = Shape::parse("1024+ld1+off1")?;
/// let mut sets = Sets::<half::f16, f32>::new(&ctx, shape, 1)?;
/// let g = shape.gemm(tcgemm::Precision::Default);
/// for i in 0..sets.len() {
///     let (a, b, mut c) = sets.views(i);
///     ctx.gemm(&g, &a, &b, &mut c)?;
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Sets<I, O> {
    /// The shape the buffers hold.
    pub shape: Shape,
    /// A, as uploaded.
    pub ha: Vec<I>,
    /// B, as uploaded.
    pub hb: Vec<I>,
    /// A per set.
    pub a: Vec<CudaSlice<I>>,
    /// B per set.
    pub b: Vec<CudaSlice<I>>,
    /// C per set.
    pub c: Vec<CudaSlice<O>>,
}

/// How many sets of `set_bytes` to use: enough that together they span at least twice the L2
/// (so a launch finds none of its operands in L2 from the last time its set ran), at least
/// [`MIN_SETS`], at most [`MAX_SETS`], and no more than half of the free device memory holds. The
/// environment variable `TCGEMM_BENCH_SETS=N` asks for N sets instead (1: the operands stay in L2
/// from launch to launch, to compare).
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let n = tcgemm_testkit::sets::set_count(&ctx, 3 << 20)?;
/// assert!(n >= tcgemm_testkit::sets::MIN_SETS);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn set_count(ctx: &Context, set_bytes: usize) -> Result<usize, String> {
    let l2 = ctx.capabilities().l2_bytes as usize;
    // `TCGEMM_BENCH_SETS=N`: N sets, e.g. 1 to time operands that stay in L2
    let asked = match std::env::var("TCGEMM_BENCH_SETS") {
        Err(_) => None,
        Ok(v) => match v.parse::<usize>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(format!(
                    "TCGEMM_BENCH_SETS={v}: expected a count of at least 1"
                ))
            }
        },
    };
    let want = asked.unwrap_or_else(|| {
        (2 * l2)
            .div_ceil(set_bytes.max(1))
            .clamp(MIN_SETS, MAX_SETS)
    });
    let (free, _) = ctx
        .cuda()
        .mem_get_info()
        .map_err(|e| format!("cuMemGetInfo: {e}"))?;
    let fit = (free / 2) / set_bytes.max(1);
    if fit == 0 {
        return Err(format!(
            "one buffer set needs {:.2} GiB but only {:.2} GiB of device memory is free",
            set_bytes as f64 / (1u64 << 30) as f64,
            free as f64 / (1u64 << 30) as f64
        ));
    }
    Ok(want.min(fit))
}

impl<I: TestElem, O: TestElem> Sets<I, O> {
    /// Random inputs (seeded by `seed`), uploaded once and copied on the device to the other
    /// sets, and zeroed outputs; [`set_count`] sets. Waits for the copies.
    pub fn new(ctx: &Context, shape: Shape, seed: u64) -> Result<Self, String> {
        let stream = ctx.stream();
        let (la, lb, lc) = shape.lens();
        let sets = set_count(ctx, shape.set_bytes(I::ELEM, O::ELEM))?;
        let ha = random_vec::<I>(la, seed);
        let hb = random_vec::<I>(lb, seed ^ 0x9e37_79b9);
        let da = stream
            .clone_htod(&ha)
            .map_err(|e| format!("upload A: {e}"))?;
        let db = stream
            .clone_htod(&hb)
            .map_err(|e| format!("upload B: {e}"))?;
        let mut s = Sets {
            shape,
            ha,
            hb,
            a: vec![da],
            b: vec![db],
            c: Vec::with_capacity(sets),
        };
        for i in 0..sets {
            if i > 0 {
                let a = stream
                    .clone_dtod(&s.a[0])
                    .map_err(|e| format!("copy A: {e}"))?;
                let b = stream
                    .clone_dtod(&s.b[0])
                    .map_err(|e| format!("copy B: {e}"))?;
                s.a.push(a);
                s.b.push(b);
            }
            s.c.push(
                stream
                    .alloc_zeros::<O>(lc)
                    .map_err(|e| format!("alloc C: {e}"))?,
            );
        }
        stream
            .synchronize()
            .map_err(|e| format!("synchronize: {e}"))?;
        Ok(s)
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.c.len()
    }

    /// No set at all (never, for sets [`Sets::new`] made).
    pub fn is_empty(&self) -> bool {
        self.c.is_empty()
    }

    /// The operands of set `s` as a call takes them: A, B and C each a view starting the shape's
    /// [`Padding::offset`](crate::Padding::offset) elements into its buffer.
    ///
    /// ```no_run
    /// use tcgemm_testkit::{Sets, Shape};
    /// let ctx = tcgemm::Context::new(0)?;
    /// let mut sets = Sets::<f32, f32>::new(&ctx, Shape::parse("512+off1")?, 1)?;
    /// let (a, _b, _c) = sets.views(0);
    /// assert_eq!(a.len(), 512 * 512);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn views(&mut self, s: usize) -> (CudaView<'_, I>, CudaView<'_, I>, CudaViewMut<'_, O>) {
        let offset = self.shape.padding.offset;
        (
            self.a[s].slice(offset..),
            self.b[s].slice(offset..),
            self.c[s].slice_mut(offset..),
        )
    }

    /// The accuracy of one run: poisons C of set 0 ([`poison`]), runs `launch(self, 0)`, downloads
    /// that C and returns its relative error against `reference` ([`Reference::rel_error`];
    /// infinite when an entry is not finite, e.g. left unwritten), or an error when the run wrote
    /// into C's buffer outside its entries (before the view, in the leading-dimension padding, in
    /// the gaps between batch items or after the last one).
    ///
    /// ```no_run
    /// use tcgemm_testkit::{Reference, Rng, Sets, Shape};
    /// let ctx = tcgemm::Context::new(0)?;
    /// let shape = Shape::parse("512+ld1")?;
    /// let mut sets = Sets::<f32, f32>::new(&ctx, shape, 1)?;
    /// let p = shape.problem();
    /// let reference = Reference::sampled_of_values(&p, &sets.ha, &sets.hb, 256, &mut Rng::new(1, 1));
    /// let g = shape.gemm(tcgemm::Precision::Exact);
    /// let err = sets.checked_run(ctx.stream(), &reference, &mut |sets, s| {
    ///     let (a, b, mut c) = sets.views(s);
    ///     ctx.gemm(&g, &a, &b, &mut c).map(|_| ()).map_err(|e| e.to_string())
    /// })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn checked_run(
        &mut self,
        stream: &Arc<CudaStream>,
        reference: &Reference,
        launch: &mut dyn FnMut(&mut Self, usize) -> Result<(), String>,
    ) -> Result<f64, String> {
        poison(stream, &mut self.c[0])?;
        launch(self, 0)?;
        let c = stream
            .clone_dtoh(&self.c[0])
            .map_err(|e| format!("download C: {e}"))?;
        stream
            .synchronize()
            .map_err(|e| format!("synchronize: {e}"))?;
        let problem = self.shape.problem();
        if let Some(i) = written_outside(&c, &problem.layout_c()) {
            let l = problem.layout_c();
            return Err(format!(
                "wrote element {i} of C's buffer, outside its entries (view at {}, ld {}, batch \
                 stride {})",
                l.offset, l.ld, l.stride
            ));
        }
        Ok(reference.rel_error(&c, &problem))
    }

    /// Device bytes held by all sets.
    pub fn bytes(&self) -> usize {
        self.a.iter().map(|x| x.num_bytes()).sum::<usize>()
            + self.b.iter().map(|x| x.num_bytes()).sum::<usize>()
            + self.c.iter().map(|x| x.num_bytes()).sum::<usize>()
    }
}

/// The first element of `c` (C's whole buffer, stored as `l` says) outside C's entries (before the
/// view, in the leading-dimension padding, between batch items, after the last one) that is no
/// longer the NaN [`poison`] wrote, or `None`: a run that wrote there wrote out of bounds.
///
/// ```
/// use tcgemm_testkit::{written_outside, Shape};
/// let shape = Shape::parse("2x3x4+ld1+off1")?; // C: 1 element of offset, 2 rows of 3, ld 4
/// let l = shape.problem().layout_c();
/// let nan = f32::NAN;
/// let mut c = vec![nan, 1.0, 1.0, 1.0, nan, 1.0, 1.0, 1.0];
/// assert_eq!(written_outside(&c, &l), None);
/// c[4] = 0.0; // the padding after row 0
/// assert_eq!(written_outside(&c, &l), Some(4));
/// # Ok::<(), String>(())
/// ```
pub fn written_outside<O: TestElem>(c: &[O], l: &Layout) -> Option<usize> {
    let overwritten =
        |range: std::ops::Range<usize>| range.into_iter().find(|&i| !c[i].to_f64().is_nan());
    // the first element after the last entry checked so far
    let mut next = 0;
    for z in 0..l.batch {
        for r in 0..l.rows {
            let row = l.offset + l.at(z, r, 0);
            if let Some(i) = overwritten(next..row) {
                return Some(i);
            }
            next = row + l.cols;
        }
    }
    overwritten(next..c.len())
}

/// Fills `c` with all-ones bytes (NaN in f32, f16 and bf16) on `stream`, so an entry the next
/// run does not write fails the error check instead of showing an earlier result.
///
/// ```no_run
/// let ctx = tcgemm::Context::new(0)?;
/// let mut c = ctx.alloc_zeros::<f32>(1024)?;
/// tcgemm_testkit::poison(ctx.stream(), &mut c)?;
/// assert!(ctx.stream().clone_dtoh(&c)?.iter().all(|x| x.is_nan()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn poison<O: TestElem>(stream: &Arc<CudaStream>, c: &mut CudaSlice<O>) -> Result<(), String> {
    let bytes = c.num_bytes();
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| format!("poisoning C: {e}"))?;
    let (ptr, _write) = c.device_ptr_mut(stream);
    // SAFETY: `ptr` is the start of `c`'s live allocation of `bytes` bytes, used on `stream`
    // (the guard records the write); all-ones bytes are a valid (NaN) f32, f16 and bf16.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xff, bytes, stream.cu_stream()) }
        .map_err(|e| format!("poisoning C: {e}"))
}
