//! The f64 reference of `C = alpha·op(A)·op(B) + beta·C`: every entry, or a sample of entries
//! (each a full-length dot product) for big calls, computed in parallel from the operands as
//! uploaded (already rounded to their element type, so input rounding is not counted as error).

use crate::elem::{bits_to_f64, TestElem};
use crate::problem::{Layout, Problem};
use crate::rng::Rng;

/// Above this many multiply-adds a test case's reference is computed on a sample of entries only.
pub const FULL_REFERENCE_MAX_MACS: u128 = 1 << 31;
/// Entries a test case checks (each a full-length f64 dot product) when sampling.
pub const SAMPLES: usize = 2048;

/// An entry of C: `(batch item, row, column)`.
pub type Point = (usize, usize, usize);

/// f64 reference values of the checked entries of C.
///
/// `mags` are the magnitudes the rounding errors scale with, `|alpha|·‖a_i‖₂·‖b_j‖₂ + |beta|·|c_ij|`
/// (Cauchy–Schwarz bounds `Σ|a_ip·b_pj|` by `‖a_i‖‖b_j‖`); the verifier uses them so that a single
/// entry that happens to cancel to ~0 cannot make a correct result fail.
///
/// ```
/// use tcgemm_testkit::{Problem, Reference};
/// let p = Problem::new(2, 2, 3);
/// let (a, b) = ([1.0f32; 6], [2.0f32; 6]);
/// let r = Reference::full_of_values(&p, &a, &b);
/// assert_eq!(r.vals, vec![6.0; 4]);
/// assert_eq!(r.rel_error(&[6.0f32; 4], &p), 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct Reference {
    /// `None`: every entry, in `(z, i, j)` row-major order; `Some`: the sampled entries.
    pub points: Option<Vec<Point>>,
    /// The reference value of each checked entry.
    pub vals: Vec<f64>,
    /// The magnitude of each checked entry.
    pub mags: Vec<f64>,
}

/// Host operands in the storage a [`Problem`] describes (whole allocations: views start at the
/// layouts' offsets), with the functions that read one stored element as f64.
///
/// ```
/// use tcgemm_testkit::{operands_of_bits, Problem, Reference};
/// let p = Problem::new(1, 1, 2).offsets(1, 0, 0);
/// let (a, b) = ([0u32, 1.0f32.to_bits(), 2.0f32.to_bits()], [3.0f32.to_bits(), 4.0f32.to_bits()]);
/// let ops = operands_of_bits::<f32, f32>(&p, &a, &b, &[]);
/// assert_eq!(Reference::full(&ops).vals, vec![11.0]);
/// ```
pub struct Operands<'a, A, C> {
    p: &'a Problem,
    a: &'a [A],
    b: &'a [A],
    c: &'a [C],
    a_val: fn(A) -> f64,
    c_val: fn(C) -> f64,
    la: Layout,
    lb: Layout,
    lc: Layout,
}

/// Operands held as bit patterns of `I` (A, B) and `O` (C), as test cases keep them.
pub fn operands_of_bits<'a, I: TestElem, O: TestElem>(
    p: &'a Problem,
    a: &'a [I::Bits],
    b: &'a [I::Bits],
    c: &'a [O::Bits],
) -> Operands<'a, I::Bits, O::Bits> {
    Operands::new(p, a, b, c, bits_to_f64::<I>, bits_to_f64::<O>)
}

impl<'a, A: Copy + Sync, C: Copy + Sync> Operands<'a, A, C> {
    /// Operands of `p` read with `a_val` (A and B) and `c_val` (C).
    pub fn new(
        p: &'a Problem,
        a: &'a [A],
        b: &'a [A],
        c: &'a [C],
        a_val: fn(A) -> f64,
        c_val: fn(C) -> f64,
    ) -> Self {
        Operands {
            p,
            a,
            b,
            c,
            a_val,
            c_val,
            la: p.layout_a(),
            lb: p.layout_b(),
            lc: p.layout_c(),
        }
    }

    /// Element `(r, c)` of batch item `z` of `op(X)`, for `X` stored in `l`, transposed when
    /// `trans`.
    #[inline]
    fn op(&self, x: &[A], l: &Layout, trans: bool, (z, r, c): Point) -> f64 {
        let idx = if trans { l.at(z, c, r) } else { l.at(z, r, c) };
        (self.a_val)(x[l.offset + idx])
    }

    /// `op(A)[z][i][q]`.
    #[inline]
    fn a(&self, z: usize, i: usize, q: usize) -> f64 {
        self.op(self.a, &self.la, self.p.trans_a, (z, i, q))
    }

    /// `op(B)[z][q][j]`.
    #[inline]
    fn b(&self, z: usize, q: usize, j: usize) -> f64 {
        self.op(self.b, &self.lb, self.p.trans_b, (z, q, j))
    }

    #[inline]
    fn c(&self, z: usize, i: usize, j: usize) -> f64 {
        (self.c_val)(self.c[self.lc.offset + self.lc.at(z, i, j)])
    }

    /// Whether the product term is present (BLAS: `alpha == 0` or `k == 0` do not read A, B).
    fn has_product(&self) -> bool {
        self.p.alpha != 0.0 && self.p.k > 0
    }

    /// Combines `dot` and norms into `(value, magnitude)` for entry `(z, i, j)`.
    #[inline]
    fn finish(&self, z: usize, i: usize, j: usize, dot: f64, norm_ab: f64) -> (f64, f64) {
        let alpha = f64::from(self.p.alpha);
        let beta = f64::from(self.p.beta);
        let (mut v, mut mag) = if self.has_product() {
            (alpha * dot, alpha.abs() * norm_ab)
        } else {
            (0.0, 0.0)
        };
        if beta != 0.0 {
            // beta == 0: C is never read (it holds NaN poison).
            let c = self.c(z, i, j);
            v += beta * c;
            mag += (beta * c).abs();
        }
        (v, mag)
    }

    /// `(value, magnitude)` of entry `(z, i, j)` by a full-length dot product.
    fn entry(&self, (z, i, j): Point) -> (f64, f64) {
        let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
        if self.has_product() {
            for q in 0..self.p.k {
                let (x, y) = (self.a(z, i, q), self.b(z, q, j));
                dot += x * y;
                na += x * x;
                nb += y * y;
            }
        }
        self.finish(z, i, j, dot, (na * nb).sqrt())
    }

    /// Dense `op(B)` of batch item `z` (`k×n`, f64) and its column norms.
    fn dense_b(&self, z: usize) -> (Vec<f64>, Vec<f64>) {
        let (n, k) = (self.p.n, self.p.k);
        if !self.has_product() {
            return (Vec::new(), vec![0.0; n]);
        }
        let mut d = vec![0.0; k * n];
        let mut norms = vec![0.0; n];
        for q in 0..k {
            for j in 0..n {
                let y = self.b(z, q, j);
                d[q * n + j] = y;
                norms[j] += y * y;
            }
        }
        norms.iter_mut().for_each(|x| *x = x.sqrt());
        (d, norms)
    }

    /// Row `r` (`z·m + i`) of the reference into `vrow`, `mrow`; `arow` and `acc` are scratch.
    fn full_row(&self, r: usize, dense_b: &[(Vec<f64>, Vec<f64>)], rows: RowOut<'_>) {
        let RowOut {
            vals,
            mags,
            arow,
            acc,
        } = rows;
        let (m, n) = (self.p.m, self.p.n);
        let (z, i) = (r / m, r % m);
        acc.fill(0.0);
        let mut na = 0.0;
        let (bd, bn) = &dense_b[z];
        if self.has_product() {
            for (q, x) in arow.iter_mut().enumerate() {
                *x = self.a(z, i, q);
                na += *x * *x;
            }
            for (q, &x) in arow.iter().enumerate() {
                let brow = &bd[q * n..(q + 1) * n];
                for (sum, &y) in acc.iter_mut().zip(brow) {
                    *sum += x * y;
                }
            }
        }
        let na: f64 = na.sqrt();
        for j in 0..n {
            (vals[j], mags[j]) = self.finish(z, i, j, acc[j], na * bn[j]);
        }
    }
}

/// Where [`Operands::full_row`] writes one row, and its scratch.
struct RowOut<'r> {
    vals: &'r mut [f64],
    mags: &'r mut [f64],
    arow: &'r mut [f64],
    acc: &'r mut [f64],
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `count` entries of a `batch` of `m×n` outputs: the corners of the first and of the last batch
/// item (edge tiles, each once), then uniformly random ones.
///
/// ```
/// let pts = tcgemm_testkit::sample_points(2, 10, 1, 8, &mut tcgemm_testkit::Rng::new(1, 1));
/// assert_eq!(pts.len(), 8);
/// assert_eq!(&pts[..4], &[(0, 0, 0), (0, 9, 0), (1, 0, 0), (1, 9, 0)]);
/// ```
pub fn sample_points(batch: usize, m: usize, n: usize, count: usize, rng: &mut Rng) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::with_capacity(count + 8);
    for z in [0, batch - 1] {
        for (i, j) in [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)] {
            if !points.contains(&(z, i, j)) {
                points.push((z, i, j));
            }
        }
    }
    points.truncate(count);
    while points.len() < count {
        points.push((rng.below(batch), rng.below(m), rng.below(n)));
    }
    points
}

impl Reference {
    /// Number of checked entries.
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    /// No entry is checked (an empty call).
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// `(z, i, j)` of checked entry `t`.
    pub fn point(&self, t: usize, m: usize, n: usize) -> Point {
        match &self.points {
            Some(p) => p[t],
            None => (t / (m * n), (t / n) % m, t % n),
        }
    }

    /// The reference at `points`, in parallel.
    pub fn at_points<A: Copy + Sync, C: Copy + Sync>(
        ops: &Operands<'_, A, C>,
        points: Vec<Point>,
    ) -> Reference {
        let chunk = points.len().div_ceil(threads()).max(16);
        let mut vals = vec![0.0; points.len()];
        let mut mags = vec![0.0; points.len()];
        std::thread::scope(|s| {
            for ((pts, vs), ms) in points
                .chunks(chunk)
                .zip(vals.chunks_mut(chunk))
                .zip(mags.chunks_mut(chunk))
            {
                s.spawn(move || {
                    for (t, &pt) in pts.iter().enumerate() {
                        (vs[t], ms[t]) = ops.entry(pt);
                    }
                });
            }
        });
        Reference {
            points: Some(points),
            vals,
            mags,
        }
    }

    /// Every entry, in parallel over rows (dense `op(B)` per batch item).
    pub fn full<A: Copy + Sync, C: Copy + Sync>(ops: &Operands<'_, A, C>) -> Reference {
        let p = ops.p;
        let (m, n, k) = (p.m, p.n, p.k);
        let total = p.batch * m * n;
        let (mut vals, mut mags) = (vec![0.0; total], vec![0.0; total]);
        if total == 0 {
            return Reference {
                points: None,
                vals,
                mags,
            };
        }
        let dense_b: Vec<_> = (0..p.batch).map(|z| ops.dense_b(z)).collect();
        let rows_per = (p.batch * m).div_ceil(threads());
        let dense_b = &dense_b;
        std::thread::scope(|s| {
            for (t, (vch, mch)) in vals
                .chunks_mut(rows_per * n)
                .zip(mags.chunks_mut(rows_per * n))
                .enumerate()
            {
                s.spawn(move || {
                    let (mut arow, mut acc) = (vec![0.0; k], vec![0.0; n]);
                    for (rr, (vals, mags)) in vch.chunks_mut(n).zip(mch.chunks_mut(n)).enumerate() {
                        let out = RowOut {
                            vals,
                            mags,
                            arow: &mut arow,
                            acc: &mut acc,
                        };
                        ops.full_row(t * rows_per + rr, dense_b, out);
                    }
                });
            }
        });
        Reference {
            points: None,
            vals,
            mags,
        }
    }

    /// A test case's reference: every entry up to `full_max_macs` multiply-adds (and while the
    /// dense `op(B)` of all batch items stays under 2²⁷ elements), else [`SAMPLES`] entries.
    pub fn for_case<A: Copy + Sync, C: Copy + Sync>(
        ops: &Operands<'_, A, C>,
        rng: &mut Rng,
        full_max_macs: u128,
    ) -> Reference {
        let p = ops.p;
        let empty = p.batch == 0 || p.m == 0 || p.n == 0;
        let big_b = p.batch as u128 * p.k as u128 * p.n as u128 > 1 << 27;
        if !empty && (p.macs() > full_max_macs || big_b) {
            Self::at_points(ops, sample_points(p.batch, p.m, p.n, SAMPLES, rng))
        } else {
            Self::full(ops)
        }
    }

    /// `samples` entries ([`sample_points`]) of the product of typed host operands `a`, `b` in the
    /// storage `p` describes; `p.beta` must be 0 (C is not an input).
    pub fn sampled_of_values<I: TestElem>(
        p: &Problem,
        a: &[I],
        b: &[I],
        samples: usize,
        rng: &mut Rng,
    ) -> Reference {
        assert!(
            p.beta == 0.0,
            "a reference of values has no C: beta must be 0"
        );
        let ops = Operands::<I, I>::new(p, a, b, &[], I::to_f64, I::to_f64);
        let empty = p.batch == 0 || p.m == 0 || p.n == 0;
        let points = if empty {
            Vec::new()
        } else {
            sample_points(p.batch, p.m, p.n, samples, rng)
        };
        Self::at_points(&ops, points)
    }

    /// Every entry of the product of typed host operands `a`, `b` (`p.beta` must be 0).
    pub fn full_of_values<I: TestElem>(p: &Problem, a: &[I], b: &[I]) -> Reference {
        assert!(
            p.beta == 0.0,
            "a reference of values has no C: beta must be 0"
        );
        Self::full(&Operands::<I, I>::new(p, a, b, &[], I::to_f64, I::to_f64))
    }

    /// Relative 2-norm error of the checked entries of `c` (C's whole allocation, in the storage
    /// `p` describes), `‖c − ref‖₂ / ‖ref‖₂` (the absolute error when the reference is 0);
    /// infinite when an entry is not finite (a NaN-poisoned entry the run did not write, or an
    /// overflow).
    pub fn rel_error<O: TestElem>(&self, c: &[O], p: &Problem) -> f64 {
        let lc = p.layout_c();
        let (mut e2, mut r2) = (0.0f64, 0.0f64);
        for (t, &want) in self.vals.iter().enumerate() {
            let (z, i, j) = self.point(t, p.m, p.n);
            let got = c[lc.offset + lc.at(z, i, j)].to_f64();
            if !got.is_finite() {
                return f64::INFINITY;
            }
            e2 += (got - want) * (got - want);
            r2 += want * want;
        }
        if r2 > 0.0 {
            (e2 / r2).sqrt()
        } else {
            e2.sqrt()
        }
    }
}
