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

use crate::error::{invalid, Result};

/// How the products of `f32` inputs are computed. Ignored for `f16`/`bf16` inputs, whose kernels
/// always multiply on tensor cores and accumulate in `f32`.
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
    Tf32,
    /// f16 inputs with f16 accumulation (`mma…f16.f16.f16.f16`) and f16 output: every partial sum
    /// is rounded to 11 significant bits and overflows past 65504, so the error grows with `k`
    /// roughly like `2⁻¹¹·√k` relative and large sums become ±inf (see docs/precision.md).
    /// `f16 → f16` only.
    F16Accumulate,
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
    /// How `f32` products are computed.
    pub precision: Precision,
}

/// Largest `m`, `n` or `k` the kernels index with 32-bit arithmetic.
pub(crate) const MAX_DIM: usize = i32::MAX as usize;
/// Largest batch the kernels count with 32-bit arithmetic.
pub(crate) const MAX_BATCH: usize = u32::MAX as usize;

/// Elements spanned by a `rows×cols` row-major matrix with leading dimension `ld`.
fn extent(rows: usize, cols: usize, ld: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    (rows - 1).checked_mul(ld)?.checked_add(cols)
}

/// Elements spanned by `batch` items of `extent` elements placed `stride` apart.
fn span(extent: usize, stride: usize, batch: usize) -> Option<usize> {
    if extent == 0 || batch == 0 {
        return Some(0);
    }
    stride.checked_mul(batch - 1)?.checked_add(extent)
}

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
    fn a_shape(&self) -> (usize, usize) {
        if self.trans_a {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        }
    }

    /// Stored `(rows, cols)` of B: `k×n`, or `n×k` when transposed.
    fn b_shape(&self) -> (usize, usize) {
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

    /// The number of elements the A, B and C buffers must hold:
    /// `stride·(batch−1) + (rows−1)·ld + cols` for each operand with non-empty items, `0` for an
    /// operand the call does not reference (see the [module docs](self)).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when a length overflows `usize`.
    ///
    /// ```
    /// use tcgemm::Gemm;
    /// assert_eq!(Gemm::new(2, 3, 4).required_lens().unwrap(), (8, 12, 6));
    /// assert_eq!(Gemm::new(2, 3, 4).trans_a(true).lda(5).required_lens().unwrap(), (3 * 5 + 2, 12, 6));
    /// assert_eq!(Gemm::new(2, 3, 0).required_lens().unwrap(), (0, 0, 6)); // k = 0: C = beta·C
    /// assert_eq!(Gemm::new(0, 3, 4).required_lens().unwrap(), (0, 0, 0)); // nothing to do
    /// assert!(Gemm::new(1 << 40, 1 << 40, 1).batch(1 << 20).required_lens().is_err());
    /// ```
    pub fn required_lens(&self) -> Result<(usize, usize, usize)> {
        if self.is_empty() {
            return Ok((0, 0, 0));
        }
        let c = self.operand_len(
            "c",
            (self.m, self.n),
            self.ldc_or_packed(),
            self.stride_c_or_packed(),
        )?;
        if !self.reads_ab() {
            return Ok((0, 0, c));
        }
        let a = self.operand_len(
            "a",
            self.a_shape(),
            self.lda_or_packed(),
            self.stride_a_or_packed(),
        )?;
        let b = self.operand_len(
            "b",
            self.b_shape(),
            self.ldb_or_packed(),
            self.stride_b_or_packed(),
        )?;
        Ok((a, b, c))
    }

    /// Elements one operand spans over the whole batch.
    fn operand_len(
        &self,
        what: &'static str,
        (rows, cols): (usize, usize),
        ld: usize,
        stride: usize,
    ) -> Result<usize> {
        extent(rows, cols, ld)
            .and_then(|e| span(e, stride, self.batch))
            .ok_or_else(|| {
                invalid(
                    what,
                    format!(
                        "{} spans {rows}×{cols} with leading dimension {ld} over {} batch items {stride} apart, \
                         which overflows usize; reduce the sizes, leading dimension, stride or batch",
                        what.to_uppercase(),
                        self.batch
                    ),
                )
            })
    }

    /// Checks the description against buffers of `len_a`, `len_b` and `len_c` elements, in this order:
    /// sizes the kernels can index (`m`, `n`, `k` ≤ `i32::MAX`, `batch` ≤ `u32::MAX`); leading
    /// dimensions at least the stored row length (checked even for empty calls, as BLAS does); then,
    /// unless the call is empty, C batch items that do not overlap and buffers long enough
    /// ([`Gemm::required_lens`]). Pure: touches no device.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the offending field or buffer.
    ///
    /// ```
    /// use tcgemm::{Error, Gemm};
    /// let g = Gemm::new(2, 3, 4);
    /// assert!(g.validate(8, 12, 6).is_ok());
    /// let e = g.validate(8, 11, 6).unwrap_err();
    /// assert!(matches!(e, Error::InvalidArgument { what: "b", .. }));
    /// assert!(e.to_string().contains("11") && e.to_string().contains("12"));
    /// ```
    pub fn validate(&self, len_a: usize, len_b: usize, len_c: usize) -> Result<()> {
        for (what, v) in [("m", self.m), ("n", self.n), ("k", self.k)] {
            if v > MAX_DIM {
                return Err(invalid(
                    what,
                    format!("{what} = {v} exceeds {MAX_DIM} (i32::MAX), the largest size the kernels index; split the call"),
                ));
            }
        }
        if self.batch > MAX_BATCH {
            return Err(invalid(
                "batch",
                format!(
                    "batch = {} exceeds {MAX_BATCH} (u32::MAX); split the call",
                    self.batch
                ),
            ));
        }
        let (ra, ca) = self.a_shape();
        let (rb, cb) = self.b_shape();
        let checks = [
            (
                "lda",
                self.lda_or_packed(),
                "A",
                ca,
                self.trans_a,
                ra,
                "k×m",
                "m×k",
            ),
            (
                "ldb",
                self.ldb_or_packed(),
                "B",
                cb,
                self.trans_b,
                rb,
                "n×k",
                "k×n",
            ),
            (
                "ldc",
                self.ldc_or_packed(),
                "C",
                self.n,
                false,
                self.m,
                "",
                "m×n",
            ),
        ];
        for (what, ld, name, cols, trans, rows, t_layout, layout) in checks {
            if ld < cols {
                let layout = if trans { t_layout } else { layout };
                return Err(invalid(
                    what,
                    format!(
                        "{what} = {ld} is smaller than the {cols} columns of {name} as stored ({layout} = {rows}×{cols}, row-major); \
                         pass {what} >= {cols} or leave it unset for a packed {name}"
                    ),
                ));
            }
        }
        if self.is_empty() {
            return Ok(());
        }
        if self.batch > 1 {
            let ldc = self.ldc_or_packed();
            let item = extent(self.m, self.n, ldc).ok_or_else(|| {
                invalid(
                    "c",
                    format!(
                        "one C item ({}×{}, ldc = {ldc}) overflows usize",
                        self.m, self.n
                    ),
                )
            })?;
            let stride = self.stride_c_or_packed();
            if stride < item {
                return Err(invalid(
                    "stride_c",
                    format!(
                        "stride_c = {stride} is smaller than one C item, (m−1)·ldc + n = {item} elements, so the {} batch items \
                         would overlap and race; pass stride_c >= {item} (or leave it unset for packed items)",
                        self.batch
                    ),
                ));
            }
        }
        let (need_a, need_b, need_c) = self.required_lens()?;
        for (what, name, len, need, field, stride) in [
            ("a", "A", len_a, need_a, "lda", "stride_a"),
            ("b", "B", len_b, need_b, "ldb", "stride_b"),
            ("c", "C", len_c, need_c, "ldc", "stride_c"),
        ] {
            if len < need {
                return Err(invalid(
                    what,
                    format!(
                        "buffer {name} holds {len} elements but the call needs {need} \
                         ({stride}·(batch−1) + (rows−1)·{field} + cols); pass a larger buffer or fix m/n/k, {field}, {stride} or batch"
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn what(e: Error) -> &'static str {
        match e {
            Error::InvalidArgument { what, .. } => what,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

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

    #[test]
    fn required_lens_all_transposes_packed() {
        let (m, n, k) = (3, 5, 7);
        for ta in [false, true] {
            for tb in [false, true] {
                let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
                assert_eq!(g.required_lens().unwrap(), (m * k, k * n, m * n));
            }
        }
    }

    #[test]
    fn required_lens_padded_ld() {
        let (m, n, k) = (3, 5, 7);
        // A m×k, lda 9: (m−1)·9 + k.
        let g = Gemm::new(m, n, k).lda(9).ldb(6).ldc(8);
        assert_eq!(
            g.required_lens().unwrap(),
            (2 * 9 + 7, 6 * 6 + 5, 2 * 8 + 5)
        );
        // A k×m, lda 4: (k−1)·4 + m; B n×k, ldb 10: (n−1)·10 + k.
        let g = Gemm::new(m, n, k)
            .trans_a(true)
            .trans_b(true)
            .lda(4)
            .ldb(10);
        assert_eq!(g.required_lens().unwrap(), (6 * 4 + 3, 4 * 10 + 7, 15));
    }

    #[test]
    fn required_lens_batched() {
        let (m, n, k) = (3, 5, 7);
        let g = Gemm::new(m, n, k).batch(4);
        assert_eq!(g.required_lens().unwrap(), (4 * 21, 4 * 35, 4 * 15));
        // Padded ld: packed stride is rows·ld, last item needs only its extent.
        let g = Gemm::new(m, n, k).batch(4).lda(9);
        assert_eq!(g.required_lens().unwrap().0, 3 * 27 + 2 * 9 + 7);
        // Explicit strides, including broadcast (0) and strides smaller than an item.
        let g = Gemm::new(m, n, k)
            .batch(4)
            .stride_a(0)
            .stride_b(10)
            .stride_c(100);
        assert_eq!(g.required_lens().unwrap(), (21, 30 + 35, 300 + 15));
        // batch 1: strides do not matter.
        let g = Gemm::new(m, n, k).stride_a(usize::MAX).stride_c(0);
        assert_eq!(g.required_lens().unwrap(), (21, 35, 15));
    }

    #[test]
    fn required_lens_zero_dims() {
        assert_eq!(Gemm::new(0, 5, 7).required_lens().unwrap(), (0, 0, 0));
        assert_eq!(Gemm::new(3, 0, 7).required_lens().unwrap(), (0, 0, 0));
        assert_eq!(
            Gemm::new(3, 5, 7).batch(0).required_lens().unwrap(),
            (0, 0, 0)
        );
        assert_eq!(Gemm::new(3, 5, 0).required_lens().unwrap(), (0, 0, 15));
        assert_eq!(
            Gemm::new(3, 5, 7).alpha(0.0).required_lens().unwrap(),
            (0, 0, 15)
        );
        assert_eq!(
            Gemm::new(3, 5, 7).alpha(-0.0).required_lens().unwrap(),
            (0, 0, 15)
        );
        // NaN alpha is not zero: A and B are read.
        assert_eq!(
            Gemm::new(3, 5, 7).alpha(f32::NAN).required_lens().unwrap(),
            (21, 35, 15)
        );
    }

    #[test]
    fn required_lens_overflow() {
        let big = usize::MAX / 2;
        assert_eq!(
            what(Gemm::new(3, 5, 7).lda(big).required_lens().unwrap_err()),
            "a"
        );
        assert_eq!(
            what(Gemm::new(3, 5, 7).ldb(big).required_lens().unwrap_err()),
            "b"
        );
        assert_eq!(
            what(Gemm::new(3, 5, 7).ldc(big).required_lens().unwrap_err()),
            "c"
        );
        assert_eq!(
            what(
                Gemm::new(3, 5, 7)
                    .batch(3)
                    .stride_a(big)
                    .required_lens()
                    .unwrap_err()
            ),
            "a"
        );
        // Packed stride saturates, then the span overflows.
        assert_eq!(
            what(
                Gemm::new(3, 5, 7)
                    .ldc(big)
                    .batch(2)
                    .required_lens()
                    .unwrap_err()
            ),
            "c"
        );
    }

    #[test]
    fn validate_accepts_exact_lengths() {
        for ta in [false, true] {
            for tb in [false, true] {
                let g = Gemm::new(3, 5, 7)
                    .trans_a(ta)
                    .trans_b(tb)
                    .batch(2)
                    .lda(11)
                    .ldb(13)
                    .ldc(6);
                let (a, b, c) = g.required_lens().unwrap();
                g.validate(a, b, c).unwrap();
                assert_eq!(what(g.validate(a - 1, b, c).unwrap_err()), "a");
                assert_eq!(what(g.validate(a, b - 1, c).unwrap_err()), "b");
                assert_eq!(what(g.validate(a, b, c - 1).unwrap_err()), "c");
            }
        }
    }

    #[test]
    fn short_buffer_message_names_both_numbers() {
        let e = Gemm::new(4, 4, 4).validate(10, 16, 16).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("buffer A holds 10 elements"), "{s}");
        assert!(s.contains("needs 16"), "{s}");
    }

    #[test]
    fn validate_small_ld() {
        let g = Gemm::new(3, 5, 7);
        assert_eq!(what(g.lda(6).validate(100, 100, 100).unwrap_err()), "lda");
        assert_eq!(what(g.ldb(4).validate(100, 100, 100).unwrap_err()), "ldb");
        assert_eq!(what(g.ldc(4).validate(100, 100, 100).unwrap_err()), "ldc");
        // Transposed: A is k×m (lda ≥ m), B is n×k (ldb ≥ k).
        let t = g.trans_a(true).trans_b(true);
        t.lda(3).ldb(7).validate(100, 100, 100).unwrap();
        assert_eq!(what(t.lda(2).validate(100, 100, 100).unwrap_err()), "lda");
        assert_eq!(what(t.ldb(6).validate(100, 100, 100).unwrap_err()), "ldb");
        let s = g.lda(6).validate(100, 100, 100).unwrap_err().to_string();
        assert!(s.contains("lda = 6") && s.contains(">= 7"), "{s}");
    }

    #[test]
    fn validate_limits() {
        let too_big = MAX_DIM + 1;
        assert_eq!(
            what(Gemm::new(too_big, 1, 1).validate(0, 0, 0).unwrap_err()),
            "m"
        );
        assert_eq!(
            what(Gemm::new(1, too_big, 1).validate(0, 0, 0).unwrap_err()),
            "n"
        );
        assert_eq!(
            what(Gemm::new(1, 1, too_big).validate(0, 0, 0).unwrap_err()),
            "k"
        );
        if usize::BITS > 32 {
            assert_eq!(
                what(
                    Gemm::new(1, 1, 1)
                        .batch(MAX_BATCH + 1)
                        .validate(0, 0, 0)
                        .unwrap_err()
                ),
                "batch"
            );
        }
        // At the limit the sizes are accepted; only the lengths fail.
        assert_eq!(
            what(Gemm::new(MAX_DIM, 1, 1).validate(0, 0, 0).unwrap_err()),
            "a"
        );
        // Overflowing index arithmetic is an argument error, not a panic.
        assert_eq!(
            what(
                Gemm::new(MAX_DIM, MAX_DIM, MAX_DIM)
                    .batch(MAX_BATCH)
                    .validate(0, 0, 0)
                    .unwrap_err()
            ),
            if usize::BITS > 32 { "c" } else { "stride_c" }
        );
    }

    #[test]
    fn validate_overlapping_c_batches() {
        let g = Gemm::new(3, 5, 7).batch(2);
        assert_eq!(
            what(g.stride_c(14).validate(1000, 1000, 1000).unwrap_err()),
            "stride_c"
        );
        assert_eq!(
            what(g.stride_c(0).validate(1000, 1000, 1000).unwrap_err()),
            "stride_c"
        );
        g.stride_c(15).validate(1000, 1000, 1000).unwrap();
        // With padded ldc an item spans (m−1)·ldc + n.
        let g = g.ldc(8);
        assert_eq!(
            what(g.stride_c(20).validate(1000, 1000, 1000).unwrap_err()),
            "stride_c"
        );
        g.stride_c(21).validate(1000, 1000, 1000).unwrap();
        // One item cannot overlap itself; A and B may overlap (read-only broadcast).
        Gemm::new(3, 5, 7).stride_c(0).validate(21, 35, 15).unwrap();
        Gemm::new(3, 5, 7)
            .batch(3)
            .stride_a(0)
            .stride_b(1)
            .validate(21, 37, 45)
            .unwrap();
    }

    #[test]
    fn validate_zero_dims() {
        for g in [
            Gemm::new(0, 5, 7),
            Gemm::new(3, 0, 7),
            Gemm::new(3, 5, 7).batch(0),
        ] {
            g.validate(0, 0, 0).unwrap();
            // Overlapping C strides do not matter when nothing is written.
            g.batch(if g.batch == 0 { 0 } else { 5 })
                .stride_c(0)
                .validate(0, 0, 0)
                .unwrap();
        }
        // Leading dimensions are still checked, as BLAS does.
        assert_eq!(
            what(Gemm::new(0, 5, 7).ldb(1).validate(0, 0, 0).unwrap_err()),
            "ldb"
        );
        // k == 0 or alpha == 0: A and B may be empty, C must be there.
        Gemm::new(3, 5, 0).validate(0, 0, 15).unwrap();
        Gemm::new(3, 5, 7).alpha(0.0).validate(0, 0, 15).unwrap();
        assert_eq!(
            what(Gemm::new(3, 5, 0).validate(0, 0, 14).unwrap_err()),
            "c"
        );
    }

    #[test]
    fn validate_allows_non_finite_scalars() {
        let g = Gemm::new(2, 2, 2).alpha(f32::INFINITY).beta(f32::NAN);
        g.validate(4, 4, 4).unwrap();
    }
}
