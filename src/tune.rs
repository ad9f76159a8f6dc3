//! Fitting dispatch's time model to a GPU: the steady rate of every kernel the model ranks, from
//! measured times (issue 15). The `tune` tool of `crates/tcgemm-tools` (`cargo xtask tune`) times
//! each such kernel on a grid of calls, as dispatch would run it (stream-K where the context
//! shares out k-tiles), and writes, with [`table_source`], the table dispatch reads
//! (`src/dispatch/rates.rs`); docs/ARCHITECTURE.md says how to re-run it.
//!
//! The model gives a call on kernel `k` the time `W(k)/r(k)`: `W`, the multiply-adds of the
//! busiest SM ([`busiest_work`]: its waves of work items, or stream-K's shares of them), over
//! `r`, the kernel's steady rate. [`fit`] starts from each kernel's geometric mean of `W/T` over
//! its calls (`T` the measured time: the least-squares fit of `log T = log W − log r`), then moves
//! one rate at a time to the value that makes dispatch's picks on the measured calls cost least
//! (the sum over calls of `log(T(pick) / T(fastest))`), so that where the model's shape is
//! wrong for a tile (a last wave that costs less than a whole one) the rates still order the
//! tiles as measured. Rates are percents of the fastest kernel of each math, since dispatch
//! compares model times only among kernels of one math.
//!
//! ```
//! use tcgemm::tune::{busiest_work, fit, Measurement};
//! use tcgemm::{Gemm, Problem};
//! let spec = tcgemm_kernels::config::find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma").unwrap();
//! let p = Problem::assume_aligned::<half::f16, half::f16>(&Gemm::new(4096, 4096, 4096).trans_b(true))?;
//! // 512 tiles of 128×256 on 132 SMs: the busiest SM computes 4 of them, 64 k-tiles each
//! let work = busiest_work(spec, &p, 132, false).unwrap();
//! assert_eq!(work, 4 * 64 * 128 * 256 * 64);
//! let rates = fit(&[Measurement { kernel: spec, call: 0, prior: 0, stream_k: false, work, seconds: 1e-4 }]);
//! assert_eq!((rates[0].kernel, rates[0].rate), (spec.name, 100));
//! # Ok::<(), tcgemm::Error>(())
//! ```

use std::fmt::Write;

use crate::dispatch::{admits, cost, fill_tier, padding_class, KSplit};
use crate::problem::Problem;
use crate::rules::can_implement;
use tcgemm_kernels::config::{Family, KernelSpec, Math, KERNELS};

/// Whether dispatch's time model ranks `spec`: the persistent (`wgmma`) kernels and the CUDA-core
/// SGEMM tiles ([`Family::CudaCore`]); the others are ranked by fill, padding and rank alone.
///
/// ```
/// let k = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// assert!(tcgemm::tune::modelled(k));
/// ```
pub fn modelled(spec: &KernelSpec) -> bool {
    spec.family.persistent() || spec.family == Family::CudaCore
}

/// The multiply-adds the busiest SM computes for `p` on `spec` with `sm_count` SMs, not split
/// into k-slices, with stream-K's shares where `stream_k` (as the context would cut it): its waves
/// of work items (for a CUDA-core tile its blocks, in rounds of `spec`'s blocks per SM), each of
/// whole k-tiles of the block tile. `None` for a kernel the model does not rank ([`modelled`]).
///
/// ```
/// use tcgemm::{Gemm, Problem};
/// let k = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(3000, 3000, 3000))?;
/// // 576 blocks, 2 per SM at a time: the busiest SM runs 5 (one slot of its third round empty,
/// // a quarter of a block), each 188 k-tiles long
/// let blocks_x4 = 5 * 4 + 1;
/// assert_eq!(tcgemm::tune::busiest_work(k, &p, 132, false), Some(blocks_x4 * 188 / 4 * 128 * 128 * 16));
/// # Ok::<(), tcgemm::Error>(())
/// ```
pub fn busiest_work(spec: &KernelSpec, p: &Problem, sm_count: u32, stream_k: bool) -> Option<u128> {
    let cut = KSplit {
        slices: 1,
        stream_k,
        ..KSplit::NONE
    };
    cost::busiest_work(spec, p, sm_count, cut)
}

/// Where `spec` stands for `p` in dispatch's order before the time model (larger first): 0 where
/// dispatch does not take its family for the call (a ping-pong tile for a long single product,
/// say), else whether it fills the `sm_count` SMs (75% of them busy, 50% for a persistent
/// kernel), then how little of its tiles is padding. Dispatch times only the kernels of a call's
/// highest prior against each other.
///
/// ```
/// use tcgemm::{Gemm, Problem};
/// let named = |n| tcgemm_kernels::config::find_kernel(n).unwrap();
/// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(64, 8192, 8192))?;
/// // 64 rows: the 32-row tile pads none of them, the 128-row tile half
/// let (narrow, wide) = (named("sgemm_nn_32x128x16_t8x8_s3"), named("sgemm_nn_128x128x16_t8x8_s3"));
/// assert!(tcgemm::tune::prior(narrow, &p, 132, false) > tcgemm::tune::prior(wide, &p, 132, false));
/// # Ok::<(), tcgemm::Error>(())
/// ```
pub fn prior(spec: &KernelSpec, p: &Problem, sm_count: u32, stream_k: bool) -> u64 {
    let ping_pong = |m: Math| {
        KERNELS
            .iter()
            .any(|s| s.family == Family::TmaPingPong && s.math == m && can_implement(s, p).is_ok())
    };
    let pairs = |alone: &KernelSpec| {
        KERNELS
            .iter()
            .find(|s| crate::dispatch::pairs_of(s, alone) && can_implement(s, p).is_ok())
    };
    if !admits(spec, p, Some(sm_count), ping_pong, pairs) {
        return 0;
    }
    let cut = KSplit {
        slices: 1,
        stream_k,
        ..KSplit::NONE
    };
    let fill = fill_tier(spec, p, sm_count, cut);
    u64::from(fill) * 1000 + 999 - u64::from(padding_class(spec, p).min(999))
}

/// The steady rate this build's dispatch uses for `spec` (its line of `src/dispatch/rates.rs`);
/// `None` for a kernel the table does not list.
///
/// ```
/// let k = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// assert!(tcgemm::tune::table_rate(k).is_some_and(|r| (1..=100).contains(&r)));
/// ```
pub fn table_rate(spec: &KernelSpec) -> Option<u8> {
    let table = crate::dispatch::rates::RATES;
    let rate = |name: &str| {
        let i = table.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
        Some(table[i].1)
    };
    // a kernel of clusters the table does not list runs at its tile's rate alone (the 128×256
    // pairs sharing B ran 0.99–1.03× the tile alone on unstreamed aligned calls from 4096³ up,
    // docs/hopper-log.md, session 50)
    rate(spec.name).or_else(|| match spec.family.cluster() {
        1 => None,
        _ => rate(spec.name.strip_suffix(CLUSTER_SUFFIX)?),
    })
}

/// How the name of a kernel of clusters (`Family::cluster`) ends: its tile alone's name, then this.
const CLUSTER_SUFFIX: &str = "_x2";

/// One timed call of one kernel.
///
/// ```
/// use tcgemm::tune::Measurement;
/// let kernel = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// // call 0 on the 128×128 FP32 tile: 4096 units of the busiest SM's work in 2 ms
/// let m = Measurement { kernel, call: 0, prior: 0, stream_k: false, work: 4096, seconds: 2e-3 };
/// assert_eq!(m.work as f64 / m.seconds, 2.048e6);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Measurement {
    /// The kernel, run as named.
    pub kernel: &'static KernelSpec,
    /// Which call (shape, layout and types): the kernels measured on one call compete for it.
    pub call: usize,
    /// [`prior`] of the kernel for the call.
    pub prior: u64,
    /// Whether the call ran under stream-K on this kernel.
    pub stream_k: bool,
    /// [`busiest_work`] of the call.
    pub work: u128,
    /// Measured device time, seconds.
    pub seconds: f64,
}

/// A kernel's fitted steady rate.
///
/// ```
/// use tcgemm::tune::{fit, Measurement};
/// let kernel = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// let rates = fit(&[Measurement { kernel, call: 0, prior: 0, stream_k: false, work: 64, seconds: 1.0 }]);
/// // the only kernel of its math is its fastest: 100%, fitted on one call
/// assert_eq!((rates[0].kernel, rates[0].rate, rates[0].calls), (kernel.name, 100, 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    /// Kernel name.
    pub kernel: &'static str,
    /// Its math: rates compare within one.
    pub math: Math,
    /// Percent of the fastest kernel of its math (1 to 100).
    pub rate: u8,
    /// The calls it was fitted on.
    pub calls: usize,
}

/// Rounds of one-rate-at-a-time moves in [`fit`].
const ROUNDS: usize = 4;

/// The steady rate of each kernel measured in `measurements` (see the module docs), sorted by
/// kernel name. Measurements with no work or a time that is not positive and finite are ignored.
///
/// ```
/// use tcgemm::tune::{fit, Measurement};
/// let named = |n| tcgemm_kernels::config::find_kernel(n).unwrap();
/// let (wide, mid) = (named("sgemm_nn_128x128x16_t8x8_s3"), named("sgemm_nn_64x128x16_t8x8_s3"));
/// let m = |kernel, call, work, seconds| Measurement { kernel, call, prior: 0, stream_k: false, work, seconds };
/// // the 64×128 tile does 80% of the 128×128 tile's work per second (geomean of 0.8 and 0.8),
/// // and the model then picks the faster kernel on both calls
/// let rates = fit(&[m(wide, 0, 100, 1.0), m(mid, 0, 80, 1.0), m(wide, 1, 120, 1.2), m(mid, 1, 96, 1.2)]);
/// assert_eq!(rates.iter().map(|r| r.rate).collect::<Vec<_>>(), [100, 80]);
/// ```
pub fn fit(measurements: &[Measurement]) -> Vec<Rate> {
    let ms = usable(measurements);
    // the kernels, each with its least-squares rate (geomean of W/T)
    let mut kernels: Vec<&'static KernelSpec> = Vec::new();
    for m in &ms {
        if !kernels.iter().any(|k| k.name == m.kernel.name) {
            kernels.push(m.kernel);
        }
    }
    kernels.sort_by(|a, b| a.name.cmp(b.name));
    let index = |spec: &KernelSpec| kernels.iter().position(|k| k.name == spec.name);
    let mut rates: Vec<f64> = kernels
        .iter()
        .map(|k| {
            let logs: Vec<f64> = ms
                .iter()
                .filter(|m| m.kernel.name == k.name)
                .map(|m| (m.work as f64 / m.seconds).ln())
                .collect();
            (logs.iter().sum::<f64>() / logs.len() as f64).exp()
        })
        .collect();
    // percent of the fastest of each math
    let percents = |rates: &[f64]| -> Vec<f64> {
        kernels
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let fastest = kernels
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.math == k.math)
                    .map(|(j, _)| rates[j])
                    .fold(f64::MIN_POSITIVE, f64::max);
                (100.0 * rates[i] / fastest).round().clamp(1.0, 100.0)
            })
            .collect()
    };
    rates = percents(&rates);
    let calls: Vec<Vec<Entry>> = competitions(&ms, index).into_iter().map(|c| c.1).collect();
    // the calls each kernel competes in, and the cost of dispatch's pick over a set of calls
    let of_kernel: Vec<Vec<usize>> = (0..kernels.len())
        .map(|i| {
            (0..calls.len())
                .filter(|&c| calls[c].iter().any(|e| e.kernel == i))
                .collect()
        })
        .collect();
    let cost = |rates: &[f64], which: &[usize]| -> f64 {
        which
            .iter()
            .map(|&c| {
                let fastest = calls[c]
                    .iter()
                    .map(|e| e.seconds)
                    .fold(f64::INFINITY, f64::min);
                (pick(&calls[c], rates).seconds / fastest).ln()
            })
            .sum()
    };
    let start = rates.clone();
    for _ in 0..ROUNDS {
        for i in 0..kernels.len() {
            // the rate of 1 to 100 whose picks cost least; on a tie, the nearest the start
            let mut best = (
                cost(&rates, &of_kernel[i]),
                (rates[i] - start[i]).abs(),
                rates[i],
            );
            for p in 1..=100 {
                rates[i] = f64::from(p);
                let c = cost(&rates, &of_kernel[i]);
                let distance = (rates[i] - start[i]).abs();
                if c < best.0 - 1e-9 || (c <= best.0 + 1e-9 && distance < best.1) {
                    best = (c, distance, rates[i]);
                }
            }
            rates[i] = best.2;
        }
    }
    let rates = percents(&rates);
    let mut out: Vec<Rate> = kernels
        .iter()
        .zip(&rates)
        .map(|(k, &r)| Rate {
            kernel: k.name,
            math: k.math,
            rate: r as u8,
            calls: ms.iter().filter(|m| m.kernel.name == k.name).count(),
        })
        .collect();
    out.sort_by(|a, b| a.kernel.cmp(b.kernel));
    out
}

/// The measurements with work and a positive, finite time.
fn usable(measurements: &[Measurement]) -> Vec<&Measurement> {
    measurements
        .iter()
        .filter(|m| m.work > 0 && m.seconds.is_finite() && m.seconds > 0.0)
        .collect()
}

/// The calls of `ms`, each with its number and its competitors: the measurements of its highest
/// [`prior`], of kernels `index` knows (by their index there).
fn competitions(
    ms: &[&Measurement],
    index: impl Fn(&KernelSpec) -> Option<usize>,
) -> Vec<(usize, Vec<Entry>)> {
    let mut calls: Vec<(usize, Vec<Entry>)> = Vec::new();
    for m in ms {
        let Some(kernel) = index(m.kernel) else {
            continue;
        };
        let entry = Entry {
            kernel,
            prior: m.prior,
            uncut: !m.stream_k,
            rank: m.kernel.rank,
            work: m.work as f64,
            seconds: m.seconds,
        };
        match calls.iter_mut().find(|c| c.0 == m.call) {
            Some(c) => c.1.push(entry),
            None => calls.push((m.call, vec![entry])),
        }
    }
    for c in &mut calls {
        let top = c.1.iter().map(|e| e.prior).max().unwrap_or(0);
        c.1.retain(|e| e.prior == top);
    }
    calls
}

/// A measured call on which the model, with the fitted rates, picks a slower kernel than the
/// fastest it could have picked (see [`misses`]).
///
/// ```
/// use tcgemm::tune::Miss;
/// let miss = Miss { call: 3, picked: "a", fastest: "b", slower: 1.25 };
/// // the pick took a quarter longer than the fastest kernel on call 3
/// assert!(miss.slower > 1.0 && miss.picked != miss.fastest);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    /// The call's number ([`Measurement::call`]).
    pub call: usize,
    /// The kernel the model picks.
    pub picked: &'static str,
    /// The fastest of the kernels dispatch compares on the call.
    pub fastest: &'static str,
    /// The picked kernel's time over the fastest's (> 1).
    pub slower: f64,
}

/// Where the model with `rates` (as [`fit`] returns them) loses on `measurements`: the calls on
/// which its pick is slower than the fastest kernel it compares there, slowest first. The fit's
/// residual: what one rate per kernel cannot order.
///
/// ```
/// use tcgemm::tune::{fit, misses, Measurement};
/// let named = |n| tcgemm_kernels::config::find_kernel(n).unwrap();
/// let (wide, mid) = (named("sgemm_nn_128x128x16_t8x8_s3"), named("sgemm_nn_64x128x16_t8x8_s3"));
/// let m = |kernel, call, work, seconds| Measurement { kernel, call, prior: 0, stream_k: false, work, seconds };
/// // the wider tile is faster per unit of work on call 0 and slower on call 1: one rate each
/// // cannot order both
/// let ms = [m(wide, 0, 100, 1.0), m(mid, 0, 100, 2.0), m(wide, 1, 100, 2.0), m(mid, 1, 100, 1.0)];
/// let lost = misses(&ms, &fit(&ms));
/// assert_eq!(lost.len(), 1);
/// assert_eq!(lost[0].slower, 2.0);
/// ```
pub fn misses(measurements: &[Measurement], rates: &[Rate]) -> Vec<Miss> {
    let names: Vec<&'static str> = rates.iter().map(|r| r.kernel).collect();
    let values: Vec<f64> = rates.iter().map(|r| f64::from(r.rate)).collect();
    let index = |spec: &KernelSpec| names.iter().position(|n| *n == spec.name);
    let mut out: Vec<Miss> = competitions(&usable(measurements), index)
        .iter()
        .filter_map(|(call, entries)| {
            let picked = pick(entries, &values);
            let fastest = entries
                .iter()
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds))?;
            (picked.seconds > fastest.seconds).then(|| Miss {
                call: *call,
                picked: names[picked.kernel],
                fastest: names[fastest.kernel],
                slower: picked.seconds / fastest.seconds,
            })
        })
        .collect();
    out.sort_by(|a, b| b.slower.total_cmp(&a.slower));
    out
}

/// One kernel's measurement on one call, as [`fit`] compares them.
struct Entry {
    kernel: usize,
    prior: u64,
    uncut: bool,
    rank: u32,
    work: f64,
    seconds: f64,
}

/// The entry dispatch's model picks among `call` (one call's competitors) with steady rates
/// `rates` (by kernel index): the least time `work / rate`, every kernel within the best's time
/// class ([`cost::CLASS_PERCENT`]) tied, and among those an uncut schedule, then the higher rank,
/// then the first measured (the tool measures in the kernel table's order, which `select` keeps
/// on a tie).
fn pick<'a>(call: &'a [Entry], rates: &[f64]) -> &'a Entry {
    let time = |e: &Entry| e.work / rates[e.kernel];
    let best = call.iter().map(time).fold(f64::INFINITY, f64::min);
    let width = 1.0 + cost::CLASS_PERCENT as f64 / 100.0;
    // the first of the best in measurement order, the kernel table's, as `select` keeps
    call.iter()
        .rev()
        .filter(|e| time(e) < best * width)
        .max_by_key(|e| (e.uncut, e.rank))
        .unwrap_or(&call[0])
}

/// The Rust source of `src/dispatch/rates.rs` for `rates` (sorted by name, as [`fit`] returns
/// them); `provenance` (device, driver, date, command) goes into its documentation, line by line.
///
/// ```
/// use tcgemm::tune::{fit, table_source, Measurement};
/// let k = tcgemm_kernels::config::find_kernel("sgemm_nn_128x128x16_t8x8_s3").unwrap();
/// let m = Measurement { kernel: k, call: 0, prior: 0, stream_k: false, work: 1, seconds: 1.0 };
/// let src = table_source(&fit(&[m]), "H200");
/// assert!(src.contains("(\"sgemm_nn_128x128x16_t8x8_s3\", 100),"));
/// ```
pub fn table_source(rates: &[Rate], provenance: &str) -> String {
    let mut s = String::from(
        "//! The steady rate of each kernel dispatch's time model ranks (`super::cost`), percent of\n\
         //! the fastest kernel of its math: fitted to measured times by `cargo xtask tune`\n\
         //! (`tcgemm::tune`, the `tune` tool of `crates/tcgemm-tools`). Written by that command: re-run\n\
         //! it rather than editing by hand.\n//!\n",
    );
    for line in provenance.lines() {
        let _ = writeln!(s, "//! {line}");
    }
    s.push_str("\n/// `(kernel name, steady rate)`, sorted by name.\npub(crate) const RATES: &[(&str, u8)] = &[\n");
    for r in rates {
        let _ = writeln!(s, "    (\"{}\", {}),", r.kernel, r.rate);
    }
    s.push_str("];\n");
    s
}
