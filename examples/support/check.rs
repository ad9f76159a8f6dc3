//! The accuracy check: an f64 reference on a sample of C's entries, each a full-length dot product
//! of the inputs as uploaded (already rounded to the input type).

use super::{El, Pcg, Shape};

/// Reference values of sampled entries of C (packed, row-major, batch items `m·n` apart).
pub struct Reference {
    /// Flat indices into C.
    pub idx: Vec<usize>,
    /// `Σ_q A[z,i,q]·B[z,q,j]` in f64.
    pub want: Vec<f64>,
}

impl Reference {
    /// `samples` entries: the four corners of the first and of the last batch item (edge tiles),
    /// then uniformly random ones. Computed in parallel.
    pub fn new<I: El>(ha: &[I], hb: &[I], shape: Shape, samples: usize) -> Reference {
        let Shape {
            batch,
            m,
            n,
            k,
            trans_a,
            trans_b,
        } = shape;
        let mut r = Pcg::new(0x5eed, 99);
        let mut pos: Vec<(usize, usize, usize)> = Vec::with_capacity(samples);
        for z in [0, batch - 1] {
            for (i, j) in [(0, 0), (m - 1, n - 1), (0, n - 1), (m - 1, 0)] {
                if !pos.contains(&(z, i, j)) {
                    pos.push((z, i, j));
                }
            }
        }
        pos.truncate(samples.max(1));
        while pos.len() < samples {
            pos.push((r.below(batch), r.below(m), r.below(n)));
        }
        let dot = |&(z, i, j): &(usize, usize, usize)| -> f64 {
            // A[i][q] at i·k + q, or at q·m + i when A is stored k×m
            let (a, sa) = if trans_a {
                (&ha[z * m * k + i..], m)
            } else {
                (&ha[z * m * k + i * k..], 1)
            };
            // B[q][j] at q·n + j, or at j·k + q when B is stored n×k
            let (b, step) = if trans_b {
                (&hb[z * k * n + j * k..], 1)
            } else {
                (&hb[z * k * n + j..], n)
            };
            (0..k)
                .map(|q| a[q * sa].to_f64() * b[q * step].to_f64())
                .sum()
        };
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let chunk = pos.len().div_ceil(threads).max(16);
        let mut want = vec![0.0; pos.len()];
        std::thread::scope(|s| {
            for (p, w) in pos.chunks(chunk).zip(want.chunks_mut(chunk)) {
                s.spawn(move || {
                    for (x, y) in p.iter().zip(w.iter_mut()) {
                        *y = dot(x);
                    }
                });
            }
        });
        Reference {
            idx: pos.iter().map(|&(z, i, j)| z * m * n + i * n + j).collect(),
            want,
        }
    }

    /// Relative error over the sample, `‖got − want‖₂ / ‖want‖₂`; infinite when an entry is not
    /// finite (a NaN-poisoned entry the run did not write, or an overflow).
    pub fn rel_error<O: El>(&self, c: &[O]) -> f64 {
        let (mut e2, mut r2) = (0.0f64, 0.0f64);
        for (&i, &want) in self.idx.iter().zip(&self.want) {
            let got = c[i].to_f64();
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
