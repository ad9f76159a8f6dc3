//! A context's memory of dispatch's picks: the kernel [`super::select`] chose for each of the
//! last [`CAPACITY`] calls it was asked about, so a call repeated (a decode loop, a training step,
//! a benchmark) skips the search over the kernel table.
//!
//! The search weighs every kernel of the table (can it run the call, its fill, its padding, the
//! time model with each kernel's cut along K): 7–25 µs of host time per call on the build
//! machine, where cuBLAS enqueues a whole call in 9–18 µs (H200 machine, docs/BENCHMARKS.md's
//! host column).
//!
//! A pick is a function of the call and of the context, whose loaded kernels, SM count and
//! options do not change after it is made. Of the call, dispatch reads every field of its
//! [`Problem`] but the operands' base addresses, which it reads only through their alignment
//! (16 bytes for the aligned kernels, 32 for TMA's sectors): the key is the problem with each
//! base reduced modulo [`BASE_RESIDUE`], so calls on other buffers of the same layout and
//! alignment share an entry. The same pick as a fresh search, bit for bit the same launch.

use crate::calls::Cuts;
use crate::problem::{Addresses, Problem};
use std::sync::Mutex;
use tcgemm_kernels::config::KernelSpec;

/// Picks remembered; the oldest gives way. A hit scans at most this many keys: 0.09 µs for all
/// 32 on the build machine.
pub(crate) const CAPACITY: usize = 32;

/// The bases of a key are reduced modulo this many bytes: a multiple of every alignment dispatch
/// reads (16 and 32 bytes).
pub(crate) const BASE_RESIDUE: u64 = 256;

/// The last [`CAPACITY`] picks, each with its key.
#[derive(Debug, Default)]
pub(crate) struct Picks {
    ring: Mutex<Ring>,
}

/// A fixed-size ring of picks (the newest at `next − 1`).
#[derive(Debug, Default)]
struct Ring {
    entries: Vec<(Problem, Cuts, &'static KernelSpec)>,
    next: usize,
}

impl Picks {
    /// The kernel remembered for `problem` cut as `cuts` allows, else `search`'s, remembered when
    /// it finds one (an error is not).
    pub(crate) fn get_or_search<E>(
        &self,
        problem: &Problem,
        cuts: Cuts,
        search: impl FnOnce() -> Result<&'static KernelSpec, E>,
    ) -> Result<&'static KernelSpec, E> {
        let key = key(problem);
        if let Some(spec) = self.get(&key, cuts) {
            return Ok(spec);
        }
        let spec = search()?;
        self.insert(key, cuts, spec);
        Ok(spec)
    }

    /// The pick remembered for `key` and `cuts`.
    fn get(&self, key: &Problem, cuts: Cuts) -> Option<&'static KernelSpec> {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.entries
            .iter()
            .find(|(k, c, _)| k == key && *c == cuts)
            .map(|e| e.2)
    }

    /// Remembers `spec` for `key` and `cuts`, in place of the oldest pick when full.
    fn insert(&self, key: Problem, cuts: Cuts, spec: &'static KernelSpec) {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let next = ring.next;
        if ring.entries.len() < CAPACITY {
            ring.entries.push((key, cuts, spec));
        } else {
            ring.entries[next] = (key, cuts, spec);
        }
        ring.next = (next + 1) % CAPACITY;
    }
}

/// `problem` with each base address reduced modulo [`BASE_RESIDUE`] (a problem planned without
/// buffers has none).
fn key(problem: &Problem) -> Problem {
    match problem.addresses() {
        Some(Addresses { a, b, c }) => problem.at(Addresses {
            a: a % BASE_RESIDUE,
            b: b % BASE_RESIDUE,
            c: c % BASE_RESIDUE,
        }),
        None => *problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::select;
    use crate::gemm::Gemm;
    use crate::test_support::problem;
    use tcgemm_kernels::config::{Elem, KERNELS};

    const CUTS: Cuts = Cuts {
        split_k: true,
        stream_k: true,
    };

    fn f16_at(g: &Gemm, a: u64, b: u64, c: u64) -> Problem {
        problem(g, Elem::F16, Elem::F16, false).at(Addresses { a, b, c })
    }

    fn search(p: &Problem) -> Result<&'static KernelSpec, ()> {
        let cut = |s: &KernelSpec| crate::test_support::h200_cut(s, p, CUTS);
        select(KERNELS, p, Some(132), |_| true, cut).ok_or(())
    }

    #[test]
    fn a_repeated_call_is_not_searched_again() {
        let picks = Picks::default();
        let g = Gemm::new(4096, 4096, 4096);
        let p = f16_at(&g, 1 << 20, 2 << 20, 3 << 20);
        let first = picks.get_or_search(&p, CUTS, || search(&p)).unwrap();
        assert_eq!(first.name, search(&p).unwrap().name);
        // the same layout on other buffers of the same alignment: remembered
        let q = f16_at(&g, 5 << 20, 6 << 20, 7 << 20);
        let again = picks.get_or_search(&q, CUTS, || Err(())).unwrap();
        assert!(core::ptr::eq(first, again));
        // other cuts are another key
        assert!(picks.get_or_search(&q, Cuts::NONE, || Err(())).is_err());
    }

    #[test]
    fn an_unaligned_base_is_another_key() {
        let picks = Picks::default();
        let g = Gemm::new(2048, 2048, 2048);
        let aligned = f16_at(&g, 1 << 20, 2 << 20, 3 << 20);
        let tma = picks
            .get_or_search(&aligned, CUTS, || search(&aligned))
            .unwrap();
        assert!(tma.family.needs_tma(), "{}", tma.name);
        // A 2 bytes into its buffer: no TMA kernel can read it, and the memory does not say one
        let off = f16_at(&g, (1 << 20) + 2, 2 << 20, 3 << 20);
        let other = picks.get_or_search(&off, CUTS, || search(&off)).unwrap();
        assert!(!other.family.needs_tma(), "{}", other.name);
        assert_eq!(other.name, search(&off).unwrap().name);
        // 16 bytes apart from the first but off 32-byte sectors: its own key, its own search
        let on16 = f16_at(&g, (1 << 20) + 16, 2 << 20, 3 << 20);
        assert_ne!(key(&on16), key(&aligned));
    }

    #[test]
    fn the_oldest_pick_gives_way() {
        let picks = Picks::default();
        let calls: Vec<Problem> = (0..=CAPACITY)
            .map(|i| f16_at(&Gemm::new(64 + 8 * i, 256, 256), 0, 0, 0))
            .collect();
        for p in &calls {
            picks.get_or_search(p, CUTS, || search(p)).unwrap();
        }
        // the newest CAPACITY are remembered, the first is not
        for p in &calls[1..] {
            assert!(picks.get_or_search(p, CUTS, || Err(())).is_ok());
        }
        assert!(picks.get_or_search(&calls[0], CUTS, || Err(())).is_err());
    }

    #[test]
    fn a_failed_search_is_not_remembered() {
        let picks = Picks::default();
        let p = f16_at(&Gemm::new(64, 64, 64), 0, 0, 0);
        assert!(picks.get_or_search(&p, CUTS, || Err(())).is_err());
        assert!(picks.get_or_search(&p, CUTS, || search(&p)).is_ok());
    }

    /// Dispatch reads the bases only through the key: calls whose bases agree modulo
    /// [`BASE_RESIDUE`] get the same pick from a fresh search (shapes of every suite's kind,
    /// four layouts, four element paths, bases at 0 to 128 bytes past 256-byte boundaries).
    #[test]
    fn the_pick_depends_on_bases_only_through_the_key() {
        let paths = [
            (Elem::F16, Elem::F16, crate::Precision::Default),
            (Elem::Bf16, Elem::F32, crate::Precision::Default),
            (Elem::F32, Elem::F32, crate::Precision::Tf32),
            (Elem::F32, Elem::F32, crate::Precision::Default),
        ];
        let shapes = [
            (2048, 2048, 2048, 1),
            (64, 4096, 4096, 1),
            (1, 4096, 4096, 1),
            (3000, 3000, 3000, 1),
            (2560, 2560, 2560, 1),
            (128, 128, 64, 64),
            (8192, 64, 8192, 1),
        ];
        let residues = [0u64, 2, 4, 8, 16, 32, 48, 64, 128];
        let mut checked = 0;
        for &(m, n, k, batch) in &shapes {
            for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
                for &(input, output, precision) in &paths {
                    let g = Gemm::new(m, n, k)
                        .trans_a(ta)
                        .trans_b(tb)
                        .batch(batch)
                        .precision(precision);
                    let p = problem(&g, input, output, false);
                    for (i, &r) in residues.iter().enumerate() {
                        let r = r / u64::from(input.bytes()) * u64::from(input.bytes());
                        let near = p.at(Addresses {
                            a: (1 << 20) + r,
                            b: 2 << 20,
                            c: (3 << 20) + r,
                        });
                        let far = p.at(Addresses {
                            a: ((9 + i as u64) << 32) + r,
                            b: 5 << 32,
                            c: (7 << 32) + r,
                        });
                        assert_eq!(key(&near), key(&far));
                        let (x, y) = (search(&near).map(|s| s.name), search(&far).map(|s| s.name));
                        assert_eq!(x, y, "{m}x{n}x{k}*{batch} {ta} {tb} {input:?} residue {r}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, shapes.len() * 4 * paths.len() * residues.len());
    }
}
