//! One GEMM call as a test describes it: the library's [`Gemm`] plus where each operand's view
//! starts in its allocation, and the storage [`Layout`] of each operand that follows.

use std::fmt;

use tcgemm::{Gemm, Precision};

/// The four transpose combinations `(trans_a, trans_b)`: nn, nt, tn, tt.
pub const TRANS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

/// The layout's name as in kernel names: `nn`, `nt`, `tn`, `tt`.
///
/// ```
/// assert_eq!(tcgemm_testkit::lay(false, true), "nt");
/// ```
pub fn lay(ta: bool, tb: bool) -> &'static str {
    match (ta, tb) {
        (false, false) => "nn",
        (false, true) => "nt",
        (true, false) => "tn",
        (true, true) => "tt",
    }
}

/// One GEMM call, in the library's row-major convention. `None` leading dimensions and strides are
/// left to the library's defaults (packed), which the helpers mirror.
///
/// The fields are [`Gemm`]'s plus where each view starts in its allocation, and the layouts
/// ([`Problem::layout_a`], ...) are worked out here, not taken from the library: tests check the
/// library's lengths and defaults against these (e.g. `required_lens` against [`Layout::span`]).
///
/// ```
/// use tcgemm_testkit::Problem;
/// let p = Problem::new(5, 7, 11).trans(true, false).pad_ld(1, 0, 2).batched(3).offsets(1, 0, 0);
/// assert_eq!((p.layout_a().rows, p.layout_a().ld), (11, 6));
/// assert_eq!(p.gemm().required_lens().unwrap().2, p.layout_c().span());
/// ```
#[derive(Clone, Debug)]
pub struct Problem {
    /// Rows of C.
    pub m: usize,
    /// Columns of C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// A stored transposed (`k×m`).
    pub trans_a: bool,
    /// B stored transposed (`n×k`).
    pub trans_b: bool,
    /// Leading dimension of A (`None`: packed).
    pub lda: Option<usize>,
    /// Leading dimension of B (`None`: packed).
    pub ldb: Option<usize>,
    /// Leading dimension of C (`None`: packed).
    pub ldc: Option<usize>,
    /// Batch items.
    pub batch: usize,
    /// Elements between batch items of A (`None`: packed).
    pub stride_a: Option<usize>,
    /// Elements between batch items of B (`None`: packed).
    pub stride_b: Option<usize>,
    /// Elements between batch items of C (`None`: packed).
    pub stride_c: Option<usize>,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
    /// Elements between the start of A's allocation and its view (1 = misaligned base).
    pub offset_a: usize,
    /// Elements between the start of B's allocation and its view.
    pub offset_b: usize,
    /// Elements between the start of C's allocation and its view.
    pub offset_c: usize,
    /// The precision asked for.
    pub precision: Precision,
}

/// Storage layout of one operand.
///
/// ```
/// let l = tcgemm_testkit::Problem::new(3, 5, 7).pad_ld(0, 0, 2).layout_c();
/// assert_eq!((l.ld, l.span(), l.full_span(), l.at(0, 1, 2)), (7, 19, 21, 9));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Rows as stored.
    pub rows: usize,
    /// Columns as stored.
    pub cols: usize,
    /// Leading dimension.
    pub ld: usize,
    /// Elements between batch items.
    pub stride: usize,
    /// Batch items.
    pub batch: usize,
    /// Offset of the view in its allocation.
    pub offset: usize,
}

impl Layout {
    /// Elements the view must hold: from the first element of item 0 to the last element of the
    /// last item (no trailing ld padding on the last row).
    pub fn span(&self) -> usize {
        if self.batch == 0 || self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.batch - 1) * self.stride + (self.rows - 1) * self.ld + self.cols
        }
    }

    /// Span including the ld padding of the last row: a length every sane validator accepts.
    pub fn full_span(&self) -> usize {
        if self.batch == 0 || self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.batch - 1) * self.stride + self.rows * self.ld
        }
    }

    /// Index into the view (not the allocation) of element `(z, r, c)`.
    #[inline]
    pub fn at(&self, z: usize, r: usize, c: usize) -> usize {
        z * self.stride + r * self.ld + c
    }
}

impl Problem {
    /// `m×n×k`, no transposes, packed, batch 1, `alpha = 1`, `beta = 0`, default precision.
    pub fn new(m: usize, n: usize, k: usize) -> Problem {
        Problem {
            m,
            n,
            k,
            trans_a: false,
            trans_b: false,
            lda: None,
            ldb: None,
            ldc: None,
            batch: 1,
            stride_a: None,
            stride_b: None,
            stride_c: None,
            alpha: 1.0,
            beta: 0.0,
            offset_a: 0,
            offset_b: 0,
            offset_c: 0,
            precision: Precision::Default,
        }
    }

    /// With A and/or B stored transposed.
    pub fn trans(mut self, a: bool, b: bool) -> Problem {
        self.trans_a = a;
        self.trans_b = b;
        self
    }

    /// Leading dimensions `extra` elements longer than the stored rows.
    pub fn pad_ld(mut self, extra_a: usize, extra_b: usize, extra_c: usize) -> Problem {
        self.lda = Some(self.a_cols() + extra_a);
        self.ldb = Some(self.b_cols() + extra_b);
        self.ldc = Some(self.n + extra_c);
        self
    }

    /// Leading dimensions that TMA can map and that are not packed: each stored row padded past
    /// the next multiple of 8 elements, plus 8 (16-byte-aligned rows, for any element width, of
    /// every layout and every tail).
    ///
    /// ```
    /// let p = tcgemm_testkit::Problem::new(131, 507, 193).pad_ld_for_tma();
    /// assert_eq!((p.lda, p.ldb, p.ldc), (Some(208), Some(520), Some(520)));
    /// ```
    pub fn pad_ld_for_tma(self) -> Problem {
        let pad = |x: usize| (8 - x % 8) % 8 + 8;
        let (ca, cb, n) = (self.a_cols(), self.b_cols(), self.n);
        self.pad_ld(pad(ca), pad(cb), pad(n))
    }

    /// With `alpha` and `beta`.
    pub fn scale(mut self, alpha: f32, beta: f32) -> Problem {
        self.alpha = alpha;
        self.beta = beta;
        self
    }

    /// With `batch` items.
    pub fn batched(mut self, batch: usize) -> Problem {
        self.batch = batch;
        self
    }

    /// Batch strides `extra` elements longer than packed (`rows·ld`).
    pub fn pad_strides(mut self, extra_a: usize, extra_b: usize, extra_c: usize) -> Problem {
        self.stride_a = Some(self.a_rows() * self.eff_lda() + extra_a);
        self.stride_b = Some(self.b_rows() * self.eff_ldb() + extra_b);
        self.stride_c = Some(self.m * self.eff_ldc() + extra_c);
        self
    }

    /// Views starting `a`, `b`, `c` elements into their allocations.
    pub fn offsets(mut self, a: usize, b: usize, c: usize) -> Problem {
        self.offset_a = a;
        self.offset_b = b;
        self.offset_c = c;
        self
    }

    /// With precision `p`.
    pub fn precision(mut self, p: Precision) -> Problem {
        self.precision = p;
        self
    }

    /// Rows of A as stored (`k` when transposed).
    pub fn a_rows(&self) -> usize {
        if self.trans_a {
            self.k
        } else {
            self.m
        }
    }

    /// Columns of A as stored.
    pub fn a_cols(&self) -> usize {
        if self.trans_a {
            self.m
        } else {
            self.k
        }
    }

    /// Rows of B as stored (`n` when transposed).
    pub fn b_rows(&self) -> usize {
        if self.trans_b {
            self.n
        } else {
            self.k
        }
    }

    /// Columns of B as stored.
    pub fn b_cols(&self) -> usize {
        if self.trans_b {
            self.k
        } else {
            self.n
        }
    }

    /// Leading dimension of A, the packed one when unset.
    pub fn eff_lda(&self) -> usize {
        self.lda.unwrap_or(self.a_cols())
    }

    /// Leading dimension of B, the packed one when unset.
    pub fn eff_ldb(&self) -> usize {
        self.ldb.unwrap_or(self.b_cols())
    }

    /// Leading dimension of C, the packed one when unset.
    pub fn eff_ldc(&self) -> usize {
        self.ldc.unwrap_or(self.n)
    }

    /// Storage of A.
    pub fn layout_a(&self) -> Layout {
        let ld = self.eff_lda();
        Layout {
            rows: self.a_rows(),
            cols: self.a_cols(),
            ld,
            stride: self.stride_a.unwrap_or(self.a_rows() * ld),
            batch: self.batch,
            offset: self.offset_a,
        }
    }

    /// Storage of B.
    pub fn layout_b(&self) -> Layout {
        let ld = self.eff_ldb();
        Layout {
            rows: self.b_rows(),
            cols: self.b_cols(),
            ld,
            stride: self.stride_b.unwrap_or(self.b_rows() * ld),
            batch: self.batch,
            offset: self.offset_b,
        }
    }

    /// Storage of C.
    pub fn layout_c(&self) -> Layout {
        let ld = self.eff_ldc();
        Layout {
            rows: self.m,
            cols: self.n,
            ld,
            stride: self.stride_c.unwrap_or(self.m * ld),
            batch: self.batch,
            offset: self.offset_c,
        }
    }

    /// The library's descriptor of this call.
    pub fn gemm(&self) -> Gemm {
        let mut g = Gemm::new(self.m, self.n, self.k)
            .trans_a(self.trans_a)
            .trans_b(self.trans_b)
            .alpha(self.alpha)
            .beta(self.beta)
            .batch(self.batch)
            .precision(self.precision);
        if let Some(v) = self.lda {
            g = g.lda(v);
        }
        if let Some(v) = self.ldb {
            g = g.ldb(v);
        }
        if let Some(v) = self.ldc {
            g = g.ldc(v);
        }
        if let Some(v) = self.stride_a {
            g = g.stride_a(v);
        }
        if let Some(v) = self.stride_b {
            g = g.stride_b(v);
        }
        if let Some(v) = self.stride_c {
            g = g.stride_c(v);
        }
        g
    }

    /// `batch·m·n·k`, saturating.
    pub fn macs(&self) -> u128 {
        self.batch as u128 * self.m as u128 * self.n as u128 * self.k as u128
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (la, lb, lc) = (self.layout_a(), self.layout_b(), self.layout_c());
        write!(
            f,
            "m×n×k={}×{}×{} op={}{} ld=({},{},{}) batch={} strides=({},{},{}) alpha={:e} beta={:e} \
             offsets=({},{},{}) precision={:?}",
            self.m,
            self.n,
            self.k,
            if self.trans_a { 'T' } else { 'N' },
            if self.trans_b { 'T' } else { 'N' },
            la.ld,
            lb.ld,
            lc.ld,
            self.batch,
            la.stride,
            lb.stride,
            lc.stride,
            self.alpha,
            self.beta,
            self.offset_a,
            self.offset_b,
            self.offset_c,
            self.precision
        )
    }
}
