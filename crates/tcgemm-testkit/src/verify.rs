//! The checks of a downloaded C: nothing outside the `m×n` windows touched, every window entry
//! written, the numbers within a relative Frobenius tolerance of the f64 reference (NaN never
//! passes), and the TF32 per-entry bound.

use crate::case::Case;
use crate::elem::{bits_to_f64, TestElem};
use crate::tolerance::U_TF32;

/// The outcome of a successful [`Case::verify`].
#[derive(Clone, Debug)]
pub struct Report {
    /// Relative Frobenius error over the checked entries.
    pub rel_fro: f64,
    /// Largest absolute error of an entry.
    pub max_abs: f64,
    /// Entries checked against the reference.
    pub checked: usize,
}

impl<I: TestElem, O: TestElem> Case<I, O> {
    /// Runs on `ctx` and verifies; returns the report. `ctx_name` goes into failure messages.
    pub fn run_and_verify(
        &self,
        ctx_name: &str,
        ctx: &tcgemm::Context,
        tol_rel_fro: f64,
    ) -> Report {
        let out = self.run(ctx);
        self.verify_on(ctx_name, &out, tol_rel_fro)
    }

    /// [`Case::verify`] with the context's name in the messages.
    pub fn verify_on(&self, ctx_name: &str, out: &[O::Bits], tol_rel_fro: f64) -> Report {
        match self.try_verify(out, tol_rel_fro) {
            Ok(r) => {
                println!(
                    "ok [{ctx_name}] {}: rel_fro={:.3e} (tol {:.3e}) max_abs={:.3e} over {} entries",
                    self.label, r.rel_fro, tol_rel_fro, r.max_abs, r.checked
                );
                r
            }
            Err(msg) => panic!("[{ctx_name}] {msg}\n  {}", self.describe()),
        }
    }

    /// Checks a downloaded C allocation; panics with the case description on failure.
    pub fn verify(&self, out: &[O::Bits], tol_rel_fro: f64) -> Report {
        self.verify_on("-", out, tol_rel_fro)
    }

    /// The checks of [`Case::verify`], returning the failure text instead of panicking:
    /// 1. nothing outside the `m×n` windows changed (ld padding, batch gaps, guards), bitwise;
    /// 2. with `beta == 0`, no poison is left in any window (every element was written);
    /// 3. no NaN/Inf in the checked entries, and
    ///    `‖out − ref‖₂ / max(‖ref‖₂, ‖mag‖₂ / (2·√max(k,1))) ≤ tol_rel_fro` over the checked
    ///    entries. For random data `‖mag‖ ≈ √k·‖ref‖`, so the second term (≈ ‖ref‖/2) only matters
    ///    when the checked entries cancel to nearly zero. Each entry's error is counted less half
    ///    the output type's subnormal spacing ([`TestElem::SUBNORMAL_STEP`]): an output below the
    ///    smallest normal is rounded to that grid, an absolute error the relative tolerances
    ///    (`tol_out`) do not cover (f16 outputs of a call with alpha ≈ 2e-5: every entry
    ///    subnormal, rounded to steps of 6e-8 on values of 1e-6).
    pub fn try_verify(&self, out: &[O::Bits], tol_rel_fro: f64) -> Result<Report, String> {
        if out.len() != self.c.len() {
            return Err(format!(
                "downloaded {} elements, expected {}",
                out.len(),
                self.c.len()
            ));
        }
        self.check_outside_windows(out)?;
        if self.p.beta == 0.0 {
            self.check_all_written(out)?;
        }
        self.check_numbers(out, tol_rel_fro)
    }

    /// Check 1: elements outside the windows are bitwise what was uploaded.
    fn check_outside_windows(&self, out: &[O::Bits]) -> Result<(), String> {
        let lc = self.p.layout_c();
        let mut in_window = vec![false; out.len()];
        for z in 0..lc.batch {
            for i in 0..lc.rows {
                let s = lc.offset + lc.at(z, i, 0);
                in_window[s..s + lc.cols].fill(true);
            }
        }
        let mut bad = Vec::new();
        let mut n_bad = 0usize;
        for (idx, (&o, &c0)) in out.iter().zip(&self.c).enumerate() {
            if !in_window[idx] && o != c0 {
                n_bad += 1;
                if bad.len() < 5 {
                    bad.push(format!(
                        "{} = {:#x} (was {:#x})",
                        self.where_in_c(idx),
                        o,
                        c0
                    ));
                }
            }
        }
        if n_bad > 0 {
            return Err(format!(
                "{n_bad} element(s) of C outside the m×n windows were modified, e.g. {}",
                bad.join("; ")
            ));
        }
        Ok(())
    }

    /// Check 2 (`beta == 0`): every window element was written (the poison is gone).
    fn check_all_written(&self, out: &[O::Bits]) -> Result<(), String> {
        let lc = self.p.layout_c();
        let mut left = 0usize;
        let mut first = None;
        for z in 0..lc.batch {
            for i in 0..lc.rows {
                for j in 0..lc.cols {
                    if out[lc.offset + lc.at(z, i, j)] == O::POISON {
                        left += 1;
                        first.get_or_insert((z, i, j));
                    }
                }
            }
        }
        match first {
            Some((z, i, j)) => Err(format!(
                "{left} element(s) of C were not written (poison left), first at batch {z} row {i} col {j}"
            )),
            None => Ok(()),
        }
    }

    /// Check 3: the checked entries are finite and within the relative Frobenius tolerance.
    fn check_numbers(&self, out: &[O::Bits], tol_rel_fro: f64) -> Result<Report, String> {
        let (p, r, lc) = (&self.p, &self.reference, self.p.layout_c());
        let (mut err2, mut ref2, mut mag2, mut max_abs) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut worst: Option<(usize, f64, f64)> = None;
        for t in 0..r.len() {
            let (z, i, j) = r.point(t, p.m, p.n);
            let bits = out[lc.offset + lc.at(z, i, j)];
            let (got, want) = (bits_to_f64::<O>(bits), r.vals[t]);
            if !got.is_finite() {
                return Err(format!(
                    "non-finite output {got} at batch {z} row {i} col {j} (reference {want:e}, bits {bits:#x})"
                ));
            }
            let e = (got - want).abs();
            let beyond_rounding = (e - O::SUBNORMAL_STEP / 2.0).max(0.0);
            err2 += beyond_rounding * beyond_rounding;
            ref2 += want * want;
            mag2 += r.mags[t] * r.mags[t];
            if worst.is_none() || e > max_abs {
                max_abs = e;
                worst = Some((t, got, want));
            }
        }
        let denom = ref2
            .sqrt()
            .max(mag2.sqrt() / (2.0 * (p.k.max(1) as f64).sqrt()));
        let err = err2.sqrt();
        let rel_fro = if denom > 0.0 {
            err / denom
        } else if err == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        if rel_fro.is_nan() || rel_fro > tol_rel_fro {
            let w = match worst {
                Some((t, got, want)) => {
                    let (z, i, j) = r.point(t, p.m, p.n);
                    format!("worst at batch {z} row {i} col {j}: got {got:e}, want {want:e}, |err| {max_abs:e}")
                }
                None => "no entries".into(),
            };
            return Err(format!(
                "relative Frobenius error {rel_fro:.3e} > tolerance {tol_rel_fro:.3e} over {} entries; {w}",
                r.len()
            ));
        }
        Ok(Report {
            rel_fro,
            max_abs,
            checked: r.len(),
        })
    }

    /// Describes an index into the C allocation for messages.
    pub fn where_in_c(&self, idx: usize) -> String {
        let lc = self.p.layout_c();
        if idx < lc.offset {
            return format!("C[{idx}] (before the view)");
        }
        let rel = idx - lc.offset;
        if rel >= self.lens.2 {
            return format!("C[{idx}] (guard after the view, +{})", rel - self.lens.2);
        }
        let (z, within) = match rel.checked_div(lc.stride) {
            Some(z) => (z, rel % lc.stride),
            None => (0, rel),
        };
        let (r, c) = (within / lc.ld.max(1), within % lc.ld.max(1));
        if z < lc.batch && r < lc.rows {
            format!("C[{idx}] (ld padding: batch {z} row {r} col {c})")
        } else {
            format!("C[{idx}] (gap after batch item {z})")
        }
    }
}

/// The TF32 per-entry bound over the reference's entries:
/// `|out − ref| ≤ |alpha|·3·u·√k + 2⁻²⁰·(|ref| + |beta·c|)` (derivation in tests/tf32.rs). A NaN
/// is never within it. Returns the first entry outside.
pub fn tf32_entry_errors(case: &Case<f32, f32>, out: &[u32]) -> Result<(), String> {
    let p = &case.p;
    let lc = p.layout_c();
    let r = &case.reference;
    let sk = (p.k.max(1) as f64).sqrt();
    for t in 0..r.len() {
        let (z, i, j) = r.point(t, p.m, p.n);
        let idx = lc.offset + lc.at(z, i, j);
        let got = f32::from_bits(out[idx]) as f64;
        let want = r.vals[t];
        let c0 = if p.beta == 0.0 {
            0.0
        } else {
            (f32::from_bits(case.c[idx]) as f64 * p.beta as f64).abs()
        };
        let bound =
            (p.alpha as f64).abs() * 3.0 * U_TF32 * sk + (want.abs() + c0) * (2f64).powi(-20);
        if (got - want).abs() > bound || got.is_nan() {
            return Err(format!(
                "entry (z={z}, i={i}, j={j}): got {got:e}, want {want:e}, |err| {:e} > bound {bound:e}",
                (got - want).abs()
            ));
        }
    }
    Ok(())
}

/// Fails unless `got` and `want`, C of one case from two runs, are equal bit for bit: the check of
/// a path that must reproduce another exactly (C stored by TMA against register stores, tiles in
/// pairs against the tile alone). `label` names the case, `want_from` the run `want` came from.
///
/// ```
/// tcgemm_testkit::assert_same_bits("1×2×3 f32", &[1u32, 2], &[1u32, 2], "the tile alone");
/// ```
pub fn assert_same_bits<B: PartialEq>(label: &str, got: &[B], want: &[B], want_from: &str) {
    let differ = got.iter().zip(want).filter(|(x, y)| x != y).count();
    assert!(
        got.len() == want.len() && differ == 0,
        "{label}: {differ} of {} elements of C differ from {want_from}'s ({} elements)",
        got.len(),
        want.len()
    );
}
