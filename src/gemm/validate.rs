//! Checking a [`Gemm`] against buffer lengths: [`Gemm::required_lens`] and [`Gemm::validate`].

use super::{Gemm, MAX_BATCH, MAX_DIM};
use crate::error::{invalid, Result};

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
    /// The number of elements the A, B and C buffers must hold:
    /// `stride·(batch−1) + (rows−1)·ld + cols` for each operand with non-empty items, `0` for an
    /// operand the call does not reference (see the [module docs](crate::gemm)).
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
        self.check_sizes()?;
        self.check_leading_dimensions()?;
        if self.is_empty() {
            return Ok(());
        }
        self.check_c_items_apart()?;
        self.check_buffer_lengths(len_a, len_b, len_c)
    }

    /// `m`, `n`, `k` and `batch` within what the kernels index in 32 bits.
    fn check_sizes(&self) -> Result<()> {
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
        Ok(())
    }

    /// Each leading dimension at least the stored row length of its operand.
    fn check_leading_dimensions(&self) -> Result<()> {
        let (ra, ca) = self.a_shape();
        let (rb, cb) = self.b_shape();
        let a_layout = if self.trans_a { "k×m" } else { "m×k" };
        let b_layout = if self.trans_b { "n×k" } else { "k×n" };
        let checks = [
            ("lda", self.lda_or_packed(), "A", a_layout, ra, ca),
            ("ldb", self.ldb_or_packed(), "B", b_layout, rb, cb),
            ("ldc", self.ldc_or_packed(), "C", "m×n", self.m, self.n),
        ];
        for (what, ld, name, layout, rows, cols) in checks {
            if ld < cols {
                return Err(invalid(
                    what,
                    format!(
                        "{what} = {ld} is smaller than the {cols} columns of {name} as stored ({layout} = {rows}×{cols}, row-major); \
                         pass {what} >= {cols} or leave it unset for a packed {name}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// With several batch items, C's items do not overlap (they would race).
    fn check_c_items_apart(&self) -> Result<()> {
        if self.batch <= 1 {
            return Ok(());
        }
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
        Ok(())
    }

    /// Each buffer at least as long as [`Gemm::required_lens`] says.
    fn check_buffer_lengths(&self, len_a: usize, len_b: usize, len_c: usize) -> Result<()> {
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
