//! [`Gemm`]: the description of one (strided-batched) GEMM, checked on the CPU before any launch.
//!
//! Row-major convention: `C[m×n] = alpha·op(A)·op(B) + beta·C`.
//! - `op(A)` is `m×k`: A is stored `m×k` row-major (`lda ≥ k`) or, with `trans_a`, `k×m` (`lda ≥ m`).
//! - `op(B)` is `k×n`: B is stored `k×n` row-major (`ldb ≥ n`) or, with `trans_b`, `n×k` (`ldb ≥ k`).
//! - C is `m×n` row-major, `ldc ≥ n`.
//! - Batch item `z` of A starts `z·stride_a` elements after item 0; likewise B and C.
//!
//! Degenerate calls follow BLAS:
//! - `m == 0`, `n == 0` or `batch == 0`: nothing to compute; no buffer is read or written, no kernel
//!   is launched, and every buffer may be empty.
//! - `k == 0` or `alpha == 0`: A and B are not referenced (they may be empty); the kernel still runs
//!   and computes `C = beta·C` (with `beta == 0` C is only written, so NaN in C does not survive).

mod validate;

/// How the products are computed. For `f32` inputs it picks FFMA or TF32; `f16`/`bf16` inputs
/// always multiply on tensor cores, and accumulate in `f32` with `Default` or `Exact` (f16·f16 and
/// bf16·bf16 products are exact in `f32`) or, for `f16 → f16` only, in `f16` with `F16Accumulate`.
/// A precision the inputs do not have (`Tf32` on 16-bit inputs, `F16Accumulate` on others) or that
/// no kernel implements for the element types is an
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) whose message lists what exists.
///
/// ```
/// use tcgemm::{Gemm, Precision};
/// assert_eq!(Precision::default(), Precision::Default);
/// let g = Gemm::new(64, 64, 64).precision(Precision::Exact);
/// assert_eq!(g.precision, Precision::Exact);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Precision {
    /// Exact FP32 unless the [`Context`](crate::Context) allows TF32
    /// ([`ContextOptions::allow_tf32`](crate::ContextOptions::allow_tf32), else the environment
    /// variable `TCGEMM_ALLOW_TF32=1` read when the context is created); with TF32 allowed, the
    /// highest-ranked TF32 or FP32 kernel runs (TF32 on equal rank).
    #[default]
    Default,
    /// FP32 products and sums (`fma.rn.f32`), whatever the context allows.
    Exact,
    /// TF32 tensor-core products (inputs rounded to 10 mantissa bits), FP32 sums. `f32` inputs only.
    /// A call of at most 4 rows of C with B stored k×n, whose A or B is not 16-byte aligned, runs
    /// as [`Precision::Exact`] (as does `Default` with TF32 allowed): the tensor-core kernels would
    /// copy such a weight element by element or through a packed copy, the CUDA-core stream
    /// kernels read it as it lies (faster there, and at least as accurate).
    Tf32,
    /// f16 inputs with f16 accumulation (`mma…f16.f16.f16.f16`) and f16 output: every partial sum
    /// is rounded to 11 significant bits and overflows past 65504, so the error grows with `k`
    /// roughly like `2⁻¹¹·√k` relative and large sums become ±inf (see docs/precision.md).
    /// `f16 → f16` only.
    F16Accumulate,
    /// f32 accuracy on TF32 tensor cores (3xTF32): each f32 input is split into a TF32 high part
    /// and the TF32 rounding of its residual, and the three significant products
    /// (`hi·hi + hi·lo + lo·hi`) are summed in f32. Its error is close to [`Precision::Exact`]'s
    /// (docs/precision.md has the measured distributions); on Hopper it runs several times faster
    /// than `Exact` at large sizes. The parts live in the context's staging buffer (three times
    /// A's and B's size, [`ContextOptions::staging_limit`](crate::ContextOptions::staging_limit);
    /// a larger call is cut along K). A call with fewer than 256 rows or columns of C runs as
    /// [`Precision::Exact`] (faster there, and at least as accurate). Infinite inputs give NaN
    /// where they meet a zero residual (`∞·0`). `f32` inputs only.
    ///
    /// ```
    /// use tcgemm::{Gemm, Precision};
    /// let g = Gemm::new(4096, 4096, 4096).precision(Precision::Tf32x3);
    /// assert_eq!(g.precision, Precision::Tf32x3);
    /// ```
    Tf32x3,
}

/// One (strided-batched) GEMM: shapes, layouts, scalars and precision. Buffers are passed separately
/// to [`Context::gemm`](crate::Context::gemm).
///
/// `None` in a leading dimension or stride means packed: `ld` = the stored row length, stride =
/// stored rows · `ld`.
///
/// ```
/// use tcgemm::Gemm;
/// // 4 independent 128×64·64×32 products, B shared by all of them (stride 0), C padded to 40 columns.
/// let g = Gemm::new(128, 32, 64).batch(4).stride_b(0).ldc(40);
/// assert_eq!(g.required_lens().unwrap(), (4 * 128 * 64, 64 * 32, 3 * 128 * 40 + 127 * 40 + 32));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    /// Rows of `op(A)` and C.
    pub m: usize,
    /// Columns of `op(B)` and C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// A is stored transposed (`k×m` row-major).
    pub trans_a: bool,
    /// B is stored transposed (`n×k` row-major).
    pub trans_b: bool,
    /// Leading dimension of A in elements; `None` = packed.
    pub lda: Option<usize>,
    /// Leading dimension of B in elements; `None` = packed.
    pub ldb: Option<usize>,
    /// Leading dimension of C in elements; `None` = packed (`n`).
    pub ldc: Option<usize>,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of the prior C (`0` = C is not read).
    pub beta: f32,
    /// Number of batch items.
    pub batch: usize,
    /// Elements between batch items of A; `None` = packed. May be smaller than an item (`0` shares
    /// one A between all items).
    pub stride_a: Option<usize>,
    /// Elements between batch items of B; `None` = packed. May be smaller than an item.
    pub stride_b: Option<usize>,
    /// Elements between batch items of C; `None` = packed. Items must not overlap.
    pub stride_c: Option<usize>,
    /// How the products are computed.
    pub precision: Precision,
}

/// Largest `m`, `n` or `k` the kernels index with 32-bit arithmetic.
pub(crate) const MAX_DIM: usize = i32::MAX as usize;
/// Largest batch the kernels count with 32-bit arithmetic.
pub(crate) const MAX_BATCH: usize = u32::MAX as usize;

impl Gemm {
    /// An `m×n×k` GEMM: `alpha = 1`, `beta = 0`, one batch item, no transposes, packed layouts,
    /// [`Precision::Default`].
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7);
    /// assert_eq!((g.alpha, g.beta, g.batch, g.trans_a, g.trans_b), (1.0, 0.0, 1, false, false));
    /// assert_eq!((g.lda_or_packed(), g.ldb_or_packed(), g.ldc_or_packed()), (7, 5, 5));
    /// ```
    pub fn new(m: usize, n: usize, k: usize) -> Gemm {
        Gemm {
            m,
            n,
            k,
            trans_a: false,
            trans_b: false,
            lda: None,
            ldb: None,
            ldc: None,
            alpha: 1.0,
            beta: 0.0,
            batch: 1,
            stride_a: None,
            stride_b: None,
            stride_c: None,
            precision: Precision::Default,
        }
    }

    /// Sets [`Gemm::trans_a`].
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7).trans_a(true);
    /// assert_eq!(g.lda_or_packed(), 3); // A stored k×m
    /// ```
    pub fn trans_a(mut self, trans_a: bool) -> Gemm {
        self.trans_a = trans_a;
        self
    }

    /// Sets [`Gemm::trans_b`].
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7).trans_b(true);
    /// assert_eq!(g.ldb_or_packed(), 7); // B stored n×k
    /// ```
    pub fn trans_b(mut self, trans_b: bool) -> Gemm {
        self.trans_b = trans_b;
        self
    }

    /// Sets the leading dimension of A.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).lda(8).lda_or_packed(), 8);
    /// ```
    pub fn lda(mut self, lda: usize) -> Gemm {
        self.lda = Some(lda);
        self
    }

    /// Sets the leading dimension of B.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).ldb(8).ldb_or_packed(), 8);
    /// ```
    pub fn ldb(mut self, ldb: usize) -> Gemm {
        self.ldb = Some(ldb);
        self
    }

    /// Sets the leading dimension of C.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).ldc(8).ldc_or_packed(), 8);
    /// ```
    pub fn ldc(mut self, ldc: usize) -> Gemm {
        self.ldc = Some(ldc);
        self
    }

    /// Sets `alpha`. `alpha == 0` leaves A and B unreferenced (`C = beta·C`).
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).alpha(0.5).alpha, 0.5);
    /// ```
    pub fn alpha(mut self, alpha: f32) -> Gemm {
        self.alpha = alpha;
        self
    }

    /// Sets `beta`. `beta == 0` means C is written without being read.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).beta(1.0).beta, 1.0);
    /// ```
    pub fn beta(mut self, beta: f32) -> Gemm {
        self.beta = beta;
        self
    }

    /// Sets the number of batch items.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).batch(10).batch, 10);
    /// ```
    pub fn batch(mut self, batch: usize) -> Gemm {
        self.batch = batch;
        self
    }

    /// Sets the distance between A's batch items, in elements (`0` shares one A).
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).stride_a(0).stride_a_or_packed(), 0);
    /// ```
    pub fn stride_a(mut self, stride_a: usize) -> Gemm {
        self.stride_a = Some(stride_a);
        self
    }

    /// Sets the distance between B's batch items, in elements (`0` shares one B).
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).stride_b(100).stride_b_or_packed(), 100);
    /// ```
    pub fn stride_b(mut self, stride_b: usize) -> Gemm {
        self.stride_b = Some(stride_b);
        self
    }

    /// Sets the distance between C's batch items, in elements (must not make items overlap).
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).stride_c(16).stride_c_or_packed(), 16);
    /// ```
    pub fn stride_c(mut self, stride_c: usize) -> Gemm {
        self.stride_c = Some(stride_c);
        self
    }

    /// Sets the [`Precision`].
    ///
    /// ```
    /// use tcgemm::{Gemm, Precision};
    /// assert_eq!(Gemm::new(3, 5, 7).precision(Precision::Tf32).precision, Precision::Tf32);
    /// ```
    pub fn precision(mut self, precision: Precision) -> Gemm {
        self.precision = precision;
        self
    }

    /// Stored `(rows, cols)` of A: `m×k`, or `k×m` when transposed.
    pub(crate) fn a_shape(&self) -> (usize, usize) {
        if self.trans_a {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        }
    }

    /// Stored `(rows, cols)` of B: `k×n`, or `n×k` when transposed.
    pub(crate) fn b_shape(&self) -> (usize, usize) {
        if self.trans_b {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        }
    }

    /// Leading dimension of A: `lda`, or the stored row length (`k`, or `m` when transposed).
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7);
    /// assert_eq!(g.lda_or_packed(), 7);
    /// assert_eq!(g.trans_a(true).lda_or_packed(), 3);
    /// ```
    pub fn lda_or_packed(&self) -> usize {
        self.lda.unwrap_or(self.a_shape().1)
    }

    /// Leading dimension of B: `ldb`, or the stored row length (`n`, or `k` when transposed).
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7);
    /// assert_eq!(g.ldb_or_packed(), 5);
    /// assert_eq!(g.trans_b(true).ldb_or_packed(), 7);
    /// ```
    pub fn ldb_or_packed(&self) -> usize {
        self.ldb.unwrap_or(self.b_shape().1)
    }

    /// Leading dimension of C: `ldc`, or `n`.
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).ldc_or_packed(), 5);
    /// ```
    pub fn ldc_or_packed(&self) -> usize {
        self.ldc.unwrap_or(self.n)
    }

    /// Distance between A's batch items: `stride_a`, or stored rows · `lda` (saturating at
    /// `usize::MAX`; [`Gemm::validate`] rejects a batch that would need such a stride).
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7).lda(8);
    /// assert_eq!(g.stride_a_or_packed(), 3 * 8);
    /// ```
    pub fn stride_a_or_packed(&self) -> usize {
        self.stride_a
            .unwrap_or(self.a_shape().0.saturating_mul(self.lda_or_packed()))
    }

    /// Distance between B's batch items: `stride_b`, or stored rows · `ldb` (saturating).
    ///
    /// ```
    /// let g = tcgemm::Gemm::new(3, 5, 7).trans_b(true);
    /// assert_eq!(g.stride_b_or_packed(), 5 * 7);
    /// ```
    pub fn stride_b_or_packed(&self) -> usize {
        self.stride_b
            .unwrap_or(self.b_shape().0.saturating_mul(self.ldb_or_packed()))
    }

    /// Distance between C's batch items: `stride_c`, or `m · ldc` (saturating).
    ///
    /// ```
    /// assert_eq!(tcgemm::Gemm::new(3, 5, 7).stride_c_or_packed(), 15);
    /// ```
    pub fn stride_c_or_packed(&self) -> usize {
        self.stride_c
            .unwrap_or(self.m.saturating_mul(self.ldc_or_packed()))
    }

    /// No output: `m`, `n` or `batch` is zero, so nothing is launched.
    pub(crate) fn is_empty(&self) -> bool {
        self.m == 0 || self.n == 0 || self.batch == 0
    }

    /// Whether A and B are referenced: `k > 0` and `alpha != 0` (BLAS leaves them untouched otherwise).
    pub(crate) fn reads_ab(&self) -> bool {
        self.k > 0 && self.alpha != 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_defaults() {
        let g = Gemm::new(3, 5, 7);
        assert_eq!((g.m, g.n, g.k), (3, 5, 7));
        assert!(!g.trans_a && !g.trans_b);
        assert_eq!((g.lda, g.ldb, g.ldc), (None, None, None));
        assert_eq!((g.stride_a, g.stride_b, g.stride_c), (None, None, None));
        assert_eq!((g.alpha, g.beta, g.batch), (1.0, 0.0, 1));
        assert_eq!(g.precision, Precision::Default);
        assert_eq!(
            (g.lda_or_packed(), g.ldb_or_packed(), g.ldc_or_packed()),
            (7, 5, 5)
        );
        assert_eq!(
            (
                g.stride_a_or_packed(),
                g.stride_b_or_packed(),
                g.stride_c_or_packed()
            ),
            (21, 35, 15)
        );
    }

    #[test]
    fn builder_setters() {
        let g = Gemm::new(3, 5, 7)
            .trans_a(true)
            .trans_b(true)
            .lda(10)
            .ldb(11)
            .ldc(12)
            .alpha(2.0)
            .beta(-1.0)
            .batch(4)
            .stride_a(100)
            .stride_b(0)
            .stride_c(60)
            .precision(Precision::Tf32);
        assert!(g.trans_a && g.trans_b);
        assert_eq!((g.lda, g.ldb, g.ldc), (Some(10), Some(11), Some(12)));
        assert_eq!((g.alpha, g.beta, g.batch), (2.0, -1.0, 4));
        assert_eq!(
            (g.stride_a, g.stride_b, g.stride_c),
            (Some(100), Some(0), Some(60))
        );
        assert_eq!(g.precision, Precision::Tf32);
    }

    #[test]
    fn packed_ld_follows_transposes() {
        let (m, n, k) = (3, 5, 7);
        for (ta, tb, lda, ldb, sa, sb) in [
            (false, false, k, n, m * k, k * n),
            (true, false, m, n, k * m, k * n),
            (false, true, k, k, m * k, n * k),
            (true, true, m, k, k * m, n * k),
        ] {
            let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
            assert_eq!(
                (g.lda_or_packed(), g.ldb_or_packed()),
                (lda, ldb),
                "ta={ta} tb={tb}"
            );
            assert_eq!((g.stride_a_or_packed(), g.stride_b_or_packed()), (sa, sb));
        }
    }
}
