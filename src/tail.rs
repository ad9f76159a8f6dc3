//! A tail launch: the last rows of tiles of a call on a kernel of one block per tile, split along
//! K in a second launch.
//!
//! A kernel of one block per tile runs its busiest SM's `⌈W/S⌉` blocks in rounds of `b`
//! (`dispatch/cost.rs`); when the call's `W` tiles are just over a whole number of rounds, a last
//! round of a few blocks costs as much as a full one (2560³ FP32: 800 tiles of 64×128 put 7
//! blocks, rounds of 3, 3 and 1, on the busiest of 132 SMs for 6.06 tiles of work each). A tail
//! launch runs the call's top rows of tiles unsplit with the kernel, then its last `r` rows of
//! tiles as a call of their own, which has fewer tiles than SMs and so is split along K by
//! split-K ([`crate::splitk`]): its slices spread over every SM, and are summed in slice order
//! (the fused tail or the reduction kernel), so the result stays bitwise reproducible.
//!
//! # The model ([`choose`])
//! For a kernel of one block per tile (the CUDA-core tiles, which dispatch's time model ranks, and
//! the `mma.sync` multistage tiles, whose tail runs on their f32-output twin) and a call of one
//! batch item that reads A and B with `K ≥` [`MIN_SPLIT_K`](crate::splitk::MIN_SPLIT_K) and at
//! least as many tiles as SMs: a tail of fewer tiles than SMs spares the busiest SM at most one
//! block, and a longer tail only adds k-tiles, so the tail is the fewest rows `r` whose removal
//! leaves the top rows one block fewer on the busiest SM (a closed form; the unit tests check it
//! against a search over every `r`). It costs the busiest SM's k-tiles of the top rows unsplit,
//! plus those of the tail's split (its exchange included), plus [`LAUNCH_KTILES`], and is taken
//! where that saves at least [`SAVING_PERCENT`] of the unsplit call's; dispatch then weighs it
//! against the other tiles (`KSplit::tail_rows`). `choose` runs for every candidate kernel of
//! every call: the search it replaces took up to 260 µs of host time per call on thin calls of
//! many tile rows (16384×128×4096 f16), the closed form about 5 µs over all candidates.
//!
//! Both launches are on the context's stream and use its workspace only for the tail's slices (at
//! most one wave of them, as any split).

use crate::dispatch::cost;
use crate::plan::Plan;
use crate::problem::Problem;
use crate::splitk::{self, Split};
use tcgemm_kernels::config::{Family, KernelSpec, KERNELS};

/// The k-tiles (of the kernel's own tile) a tail launch costs beyond its blocks' work: the second
/// launch's start behind the first's last block.
pub const LAUNCH_KTILES: u64 = 4;

/// Least share, in percent, of the busiest SM's k-tiles unsplit that a tail launch must save to be
/// taken: one of dispatch's time classes (`CLASS_PERCENT`).
pub const SAVING_PERCENT: u64 = 4;

/// The tail launch of a call ([`Plan::tail`](crate::Plan::tail)): rows `row..m` of C, computed
/// after the rows above them, split along K.
///
/// ```no_run
/// use tcgemm::{Context, Gemm, Precision};
/// let ctx = Context::new(0)?;
/// let plan = ctx.plan::<f32, f32>(&Gemm::new(2560, 2560, 2560).precision(Precision::Exact))?;
/// if let Some(t) = plan.tail {
///     println!("rows {}.. in {} slices of {} k on {}", t.row, t.split.slices, t.split.kslice,
///              t.kernel.name);
/// }
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Tail {
    /// First row of C of the tail launch: the plan's own launch computes the rows above it.
    pub row: u32,
    /// The tail launch's kernel (the call's kernel's f32-output twin).
    pub kernel: &'static KernelSpec,
    /// The tail launch's grid (one batch item per slice).
    pub grid: (u32, u32, u32),
    /// The tail launch's split along K (always split).
    pub split: Split,
}

impl Tail {
    /// The tail launch as a plan of its own.
    pub(crate) fn plan(&self) -> Plan {
        Plan {
            split: self.split,
            ..Plan::with_grid(self.kernel, self.grid, self.kernel.smem_bytes)
        }
    }
}

/// The call's rows above the tail and the tail, `tile_rows` rows of `spec`'s tiles, as two calls
/// on views of the same buffers.
pub(crate) fn parts(spec: &KernelSpec, p: &Problem, tile_rows: u64) -> (Problem, Problem) {
    let (tiles_m, _) = p.tile_grid(spec.c_tile());
    // (tiles_m − tile_rows)·BM < m, so it fits usize
    let row = (tiles_m.saturating_sub(tile_rows) * u64::from(spec.c_tile().m)) as usize;
    at_row(p, row)
}

/// The call's rows above `row` and from `row` on.
pub(crate) fn at_row(p: &Problem, row: usize) -> (Problem, Problem) {
    let m = p.gemm().m;
    (p.rows(0, row), p.rows(row, m - row))
}

/// The busiest SM's k-tiles (of `spec`'s tile) for `p` on `sms` SMs with a tail launch of
/// `tile_rows` rows of tiles (see the module docs); `None` when split-K does not split the tail
/// (or `spec` has no f32 twin that `loaded` accepts).
pub(crate) fn busiest_ktiles(
    spec: &KernelSpec,
    p: &Problem,
    sms: u32,
    tile_rows: u64,
    loaded: impl Fn(&KernelSpec) -> bool,
) -> Option<u64> {
    let twin = splitk::f32_twin(spec, KERNELS).filter(|t| loaded(t))?;
    let (top, tail) = parts(spec, p, tile_rows);
    let (slices, _) = splitk::choose(twin, &tail, sms)?;
    let top = cost::block_rounds_ktiles(spec, &top, sms, 1);
    // the twin has the tile of C; its k-tiles may be of another depth
    let tail = cost::block_rounds_ktiles(twin, &tail, sms, slices) * u64::from(twin.block.k);
    Some(top + tail.div_ceil(u64::from(spec.block.k.max(1))) + LAUNCH_KTILES)
}

/// Whether `spec` is a kernel of one block per tile that a tail launch may follow: the CUDA-core
/// and the `mma.sync` multistage tiles.
fn takes_a_tail(spec: &KernelSpec) -> bool {
    matches!(spec.family, Family::CudaCore | Family::MmaSyncMultistage)
}

/// The grid of tiles (rows, columns) of `p` on `spec` where a tail launch may follow it on `sms`
/// SMs: a kernel of one block per tile, one batch item that reads A and B with `K ≥`
/// [`MIN_SPLIT_K`](crate::splitk::MIN_SPLIT_K), and at least as many tiles as SMs (of which there
/// are some).
fn tail_grid(spec: &KernelSpec, p: &Problem, sms: u32) -> Option<(u64, u64)> {
    let g = p.gemm();
    if !takes_a_tail(spec) || g.batch != 1 || !p.reads_ab() || (g.k as u64) < splitk::MIN_SPLIT_K {
        return None;
    }
    let (tiles_m, tiles_n) = p.tile_grid(spec.c_tile());
    (sms > 0 && tiles_m.saturating_mul(tiles_n) >= u64::from(sms)).then_some((tiles_m, tiles_n))
}

/// The rows of tiles of the tail launch of `p` on `spec` on `sms` SMs, by the model in the module
/// docs, with the kernels `loaded` accepts; `None`: no tail launch.
pub(crate) fn choose(
    spec: &KernelSpec,
    p: &Problem,
    sms: u32,
    loaded: impl Fn(&KernelSpec) -> bool,
) -> Option<u32> {
    let (tiles_m, tiles_n) = tail_grid(spec, p, sms)?;
    let sms64 = u64::from(sms);
    // Fewer tail tiles than SMs spare the busiest SM at most one block, and a longer tail only
    // adds k-tiles: the tail is the fewest rows whose removal leaves the top one block fewer.
    let blocks = (tiles_m * tiles_n).div_ceil(sms64);
    let top_rows = (blocks - 1) * sms64 / tiles_n;
    let rows = tiles_m - top_rows;
    if rows * tiles_n >= sms64 {
        return None;
    }
    let whole = cost::block_rounds_ktiles(spec, p, sms, 1);
    let with_tail = busiest_ktiles(spec, p, sms, rows, loaded)?;
    // rows < SMs, a u32
    (with_tail * 100 <= whole * (100 - SAVING_PERCENT)).then_some(rows as u32)
}

/// The search the closed form in [`choose`] replaces (every `r` with fewer tail tiles than
/// SMs): the tests check that both agree.
#[cfg(test)]
fn choose_by_search(
    spec: &KernelSpec,
    p: &Problem,
    sms: u32,
    loaded: impl Fn(&KernelSpec) -> bool,
) -> Option<u32> {
    let (tiles_m, tiles_n) = tail_grid(spec, p, sms)?;
    let sms64 = u64::from(sms);
    let whole = cost::block_rounds_ktiles(spec, p, sms, 1);
    (1..tiles_m)
        .take_while(|r| r * tiles_n < sms64)
        .filter_map(|r| busiest_ktiles(spec, p, sms, r, &loaded).map(|t| (t, r)))
        .min()
        .filter(|&(t, _)| t * 100 <= whole * (100 - SAVING_PERCENT))
        .map(|(_, r)| r as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::Cuts;
    use crate::dispatch::select;
    use crate::dispatch::KSplit;
    use crate::gemm::{Gemm, Precision};
    use crate::rules::can_implement;
    use crate::test_support::{h200_cut, problem};
    use tcgemm_kernels::config::{find_kernel, Elem, KERNELS};

    fn exact(g: Gemm) -> Problem {
        problem(&g.precision(Precision::Exact), Elem::F32, Elem::F32, false)
    }

    fn sgemm(name: &str) -> &'static KernelSpec {
        find_kernel(name).expect("a CUDA-core tile of the table")
    }

    /// 2560³ on the 64×128 tile: 40 × 20 tiles put 7 blocks (rounds of 3, 3 and 1) on the busiest
    /// of 132 SMs; the top 39 rows put 6 (two whole rounds) and the last row's 20 tiles split 10
    /// ways (slices of 256) fill 200 slots.
    #[test]
    fn the_last_row_of_tiles_runs_split_where_the_last_round_is_short() {
        let tile = sgemm("sgemm_nn_64x128x16_t8x8_s3");
        let p = exact(Gemm::new(2560, 2560, 2560));
        assert_eq!(choose(tile, &p, 132, |_| true), Some(1));
        let (top, tail) = parts(tile, &p, 1);
        assert_eq!((top.gemm().m, tail.gemm().m), (2496, 64));
        assert_eq!(splitk::choose(tile, &tail, 132), Some((10, 256)));
        let whole = cost::busiest_ktiles(tile, &p, 132, KSplit::NONE).unwrap();
        // 7 blocks, the last round's 2 empty slots a quarter each: 7.5 × 160 k-tiles
        assert_eq!(whole, 1200);
        // 6 × 160, then 2 blocks of 16 k-tiles and the exchange in a round of 3, and the launch
        let with_tail = busiest_ktiles(tile, &p, 132, 1, |_| true).unwrap();
        assert_eq!(with_tail, 960 + (2 * 4 + 1) * (16 + 20) / 4 + LAUNCH_KTILES);
    }

    #[test]
    fn no_tail_where_rounds_are_whole_or_the_call_cannot_split() {
        let tile = sgemm("sgemm_nn_64x128x16_t8x8_s3");
        // 4096³: 2048 tiles, 16 blocks on the busiest SM, nearly six whole rounds
        assert_eq!(
            choose(tile, &exact(Gemm::new(4096, 4096, 4096)), 132, |_| true),
            None
        );
        // fewer tiles than SMs: split-K's call, not a tail's
        assert_eq!(
            choose(tile, &exact(Gemm::new(64, 4096, 4096)), 132, |_| true),
            None
        );
        // K under split-K's least, two batch items, alpha = 0
        assert_eq!(
            choose(tile, &exact(Gemm::new(2560, 2560, 1000)), 132, |_| true),
            None
        );
        let two = Gemm::new(2560, 2560, 2560).batch(2);
        assert_eq!(choose(tile, &exact(two), 132, |_| true), None);
        let scale = Gemm::new(2560, 2560, 2560).alpha(0.0).beta(1.0);
        assert_eq!(choose(tile, &exact(scale), 132, |_| true), None);
        // only the kernels of one block per tile take it
        let p = problem(&Gemm::new(2560, 2560, 2560), Elem::F16, Elem::F16, false);
        for spec in KERNELS.iter().filter(|s| !takes_a_tail(s)) {
            assert_eq!(choose(spec, &p, 132, |_| true), None, "{}", spec.name);
        }
    }

    /// The `mma.sync` tiles (the sm_80 path) take it on their f32 twin: 3072³ f16 `nt` on the
    /// 64-deep 128×256 tile, 24 × 12 tiles at one block per SM (3 waves for 2.18 of work); the
    /// top 22 rows are 2 whole waves, the last 2 rows' 24 tiles run 5 slices on the 32-deep twin.
    #[test]
    fn mma_sync_tiles_take_it_on_their_f32_twin() {
        let tile = find_kernel("f16_f16_nt_128x256x64_w64x64_s3").unwrap();
        let g = Gemm::new(3072, 3072, 3072).trans_b(true);
        let p = problem(&g, Elem::F16, Elem::F16, false);
        assert_eq!(choose(tile, &p, 132, |_| true), Some(2));
        // no tail when the twin is not loaded
        assert_eq!(choose(tile, &p, 132, |s| s.output == Elem::F16), None);
        let twin = splitk::f32_twin(tile, KERNELS).unwrap();
        assert_eq!((twin.block.k, twin.output), (32, Elem::F32));
        let (_, tail) = parts(tile, &p, 2);
        assert_eq!(splitk::choose(twin, &tail, 132), Some((5, 640)));
        // 3 waves of 48 k-tiles unsplit; 2 waves, then one of 20 32-deep k-tiles and the exchange
        assert_eq!(cost::block_rounds_ktiles(tile, &p, 132, 1), 144);
        let with_tail = busiest_ktiles(tile, &p, 132, 2, |_| true).unwrap();
        assert_eq!(with_tail, 96 + (20 + 20) * 32 / 64 + LAUNCH_KTILES);
    }

    /// The closed form of `choose` (the fewest rows that spare the busiest SM a block) picks what
    /// a search over every tail of fewer tiles than SMs picks, on every kernel that can run a grid
    /// of shapes (odd and round sizes, thin and wide, three maths).
    #[test]
    fn the_closed_form_agrees_with_the_search() {
        let mut tails = 0;
        for m in (256..=9000).step_by(293) {
            for n in [64, 128, 1000, 2560, 4096, 11008] {
                for (input, output, precision) in [
                    (Elem::F32, Elem::F32, Precision::Exact),
                    (Elem::F32, Elem::F32, Precision::Tf32),
                    (Elem::F16, Elem::F16, Precision::Default),
                ] {
                    let g = Gemm::new(m, n, 2503).precision(precision);
                    let p = problem(&g, input, output, false);
                    for spec in KERNELS.iter().filter(|s| can_implement(s, &p).is_ok()) {
                        let closed = choose(spec, &p, 132, |_| true);
                        assert_eq!(
                            closed,
                            choose_by_search(spec, &p, 132, |_| true),
                            "{g:?} {}",
                            spec.name
                        );
                        tails += usize::from(closed.is_some());
                    }
                }
            }
        }
        assert!(tails > 100, "only {tails} tails on the grid");
    }

    /// Dispatch weighs the tail against the other tiles: 2560³ exact FP32 runs the 64×128 tile with
    /// a tail in every layout (`nt` was on the 128×128 tile unsplit: 4 blocks of twice the work on
    /// the busiest SM; H200 forced, 40.0 against 37.3 TFLOPS before the tail, docs/f32-log.md).
    #[test]
    fn dispatch_takes_the_tail_at_2560() {
        let cuts = Cuts {
            split_k: true,
            stream_k: true,
        };
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            let p = exact(Gemm::new(2560, 2560, 2560).trans_a(ta).trans_b(tb));
            let with = |s: &KernelSpec| h200_cut(s, &p, cuts);
            let s = select(KERNELS, &p, Some(132), |_| true, with).unwrap();
            assert_eq!(
                (s.block.m, s.block.n, with(s).tail_rows),
                (64, 128, 1),
                "{}",
                s.name
            );
            // without split-K there is no tail
            assert_eq!(h200_cut(s, &p, Cuts::NONE).tail_rows, 0);
        }
    }
}
