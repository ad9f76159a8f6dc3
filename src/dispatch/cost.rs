//! The time model that ranks persistent (`wgmma`) kernels whose waves fill the GPU equally well
//! (issue 15), and the CUDA-core SGEMM tiles (`Family::CudaCore`) among themselves: which tile
//! finishes a call first, counting its waves (or stream-K's shares of them) and how fast the tile
//! runs once its pipeline is full.
//!
//! For a persistent kernel, a call of `W` work items of `T` k-tiles on `S` SMs, its **busiest CTA**
//! computes
//! - `⌈W/S⌉·T` k-tiles unsplit (the last wave costs as much as a full one);
//! - under stream-K with `I` shared items ([`crate::streamk::choose`]), `(W − I)/S·T + ⌈I·T/S⌉`
//!   plus the exchange of partial tiles ([`crate::streamk::exchange_ktiles`]:
//!   [`PARTIAL_COST_KTILES`], twice that for long items, and for items of more than
//!   [`crate::streamk::LONG_ITEM_KTILES`] k-tiles all shared in a call of fewer than `S`);
//! - split into `s` k-slices, `⌈W·s/S⌉·⌈T/s⌉` plus [`PARTIAL_COST_KTILES`], and within clusters
//!   `s − 1` partial tiles of [`CLUSTER_PARTIAL_KTILES`], else (the reduction kernel sums the
//!   slices) a quarter k-tile per slice past the first round of its loads ([`reduced_slices_ktiles`]).
//!
//! A CUDA-core tile runs `b` blocks per SM (`min_blocks_per_sm`), which share the SM's FMA units.
//! Its busiest SM runs `B = ⌈W·s/S⌉` blocks (`s` k-slices, 1 unsplit) in rounds of `b`, each of
//! `⌈T/s⌉` k-tiles plus, split, its exchange; an empty slot of the last round costs a quarter of
//! a block (`(4·B + empty)/4` blocks): a block alone on an SM runs faster than when it shares it,
//! though not `b` times faster. At 2560³ the 64×128 tile's 800 blocks put 7 on the busiest SM
//! (3, 3 and 1: 7.5 blocks), the 128×128 tile's 400 put 4 (2 and 2: 4 blocks of twice the
//! work); H200, forced, same run: 43.1 against 38.3 TFLOPS `nn`, 44.4 against 39.3 `tn` (128×64).
//! (Counting whole waves of `b·S` blocks instead picked the 128×128 tile there; counting the
//! blocks alone overrates the small tiles' last rounds: docs/kernel-log.md, session 40.) With a
//! tail launch (`KSplit::tail_rows`, [`crate::tail`]) it is the top rows' rounds plus the tail's
//! split rounds.
//!
//! Its **time** is that many k-tiles of `BM·BN·BK` multiply-adds at the kernel's [`steady_rate`],
//! fitted to measured times by `cargo xtask tune` ([`crate::tune`], `super::rates`).
//! Dispatch compares the times of the candidates of one math that fill the SMs and pad alike
//! in classes of [`CLASS_PERCENT`] (`⌊(time / their best time − 1) / 4%⌋`): within one class, an
//! uncut schedule and then rank decide ([`super::select`]).
//!
//! Checked against the H200 (bench_report, every kernel forced, docs/hopper-log.md "128×192
//! tiles"): at 3072³ the 128×192 tiles' 384 items are 2.9 waves (97%), the 128×256 tile's 288 are
//! 2.2 (73%): TF32 register-A 1.10× cuBLAS against 0.92× (`nn`, `tt`; `tn` 1.21× against 0.98×),
//! TF32 `nt` 0.97× against 0.70× (stream-K); at 4096³–8192³ and prefill shapes the 128×256 tile's
//! whole waves win (the 128×192 tile runs 0.88–0.92× their speed there).

use crate::problem::Problem;
use crate::streamk::{self, PARTIAL_COST_KTILES};
use tcgemm_kernels::config::{Family, KernelSpec};
use tcgemm_kernels::utility::REDUCE_LOADS_IN_FLIGHT;

use super::KSplit;

/// Width of a time class, in percent of the best candidate's time.
pub(crate) const CLASS_PERCENT: u128 = 4;

/// A kernel's steady rate: the rate at which it computes the busiest SM's multiply-adds, percent
/// of the fastest kernel of its math, from the table [`super::rates::RATES`], which `cargo xtask
/// tune` fits to times measured on the GPU ([`crate::tune`]). A kernel missing from the table
/// (added since the last tuning run; a unit test keeps the table complete) ranks at
/// [`UNTUNED_RATE`].
pub(crate) fn steady_rate(spec: &KernelSpec) -> u128 {
    crate::tune::table_rate(spec).map_or(UNTUNED_RATE, u128::from)
}

/// The steady rate of a kernel the tuning table does not list: half the fastest kernel's.
pub(crate) const UNTUNED_RATE: u128 = 50;

/// k-tiles the busiest SM computes for `p` with `spec` on `sms` SMs, cut as `cut` says (see the
/// module docs); `None` for a kernel that is neither persistent nor a CUDA-core SGEMM tile.
pub(crate) fn busiest_ktiles(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> Option<u64> {
    if spec.family == Family::CudaCore {
        if cut.tail_rows > 0 {
            // the cut came from `tail::choose`, which found the f32 twin loaded
            return crate::tail::busiest_ktiles(spec, p, sms, u64::from(cut.tail_rows), |_| true);
        }
        return Some(block_rounds_ktiles(spec, p, sms, cut.slices));
    }
    if !spec.family.persistent() {
        return None;
    }
    // a kernel of clusters (`Family::cluster`): its work units (`KernelSpec::unit_tile`) on
    // clusters of that many SMs
    let sms = u64::from((sms / spec.family.cluster()).max(1));
    let work = p.work_items(spec.unit_tile()).max(1);
    let ktiles = p.k_tiles(spec.block).max(1);
    if cut.stream_k {
        if let Some(items) = streamk::choose(spec, p, sms as u32) {
            let shared = streamk::shared_ktiles(work, u64::from(items), ktiles, sms);
            return Some(shared + streamk::exchange_ktiles(spec, p, sms as u32));
        }
    }
    if cut.slices > 1 {
        let s = u64::from(cut.slices);
        let waves = work.saturating_mul(s).div_ceil(sms);
        let summing = if cut.cluster {
            (s - 1) * CLUSTER_PARTIAL_KTILES
        } else {
            reduced_slices_ktiles(s)
        };
        return Some(waves.saturating_mul(ktiles.div_ceil(s)) + PARTIAL_COST_KTILES + summing);
    }
    Some(work.div_ceil(sms).saturating_mul(ktiles))
}

/// k-tiles the busiest SM computes for `p` on the block-per-tile kernel `spec` on `sms` SMs, cut
/// into `slices` k-slices: its blocks share the SM's units in rounds of `b` (blocks per SM), each
/// block ⌈T/s⌉ k-tiles and, split, one exchange ([`PARTIAL_COST_KTILES`]); an empty slot of the
/// last round costs a quarter of a block (the module docs).
pub(crate) fn block_rounds_ktiles(spec: &KernelSpec, p: &Problem, sms: u32, slices: u32) -> u64 {
    let cut = KSplit::sliced(slices);
    let blocks = busiest_sm_blocks(spec, p, sms, cut);
    let (filled, slots) = last_round(spec, p, sms, cut);
    let idle = slots - filled;
    let s = u64::from(slices.max(1));
    let per_block =
        p.k_tiles(spec.block).max(1).div_ceil(s) + if s > 1 { PARTIAL_COST_KTILES } else { 0 };
    blocks
        .saturating_mul(4)
        .saturating_add(idle)
        .saturating_mul(per_block)
        / 4
}

/// The model's time of `spec` for `p` (arbitrary units: multiply-adds of the busiest SM over
/// [`steady_rate`]); `None` where [`busiest_ktiles`] is.
pub(crate) fn time(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> Option<u128> {
    busiest_work(spec, p, sms, cut).map(|w| w * 100 / steady_rate(spec))
}

/// k-tiles (of the kernel's own tile) each partial tile costs the first CTA of a split within
/// clusters, which adds the other slices' partials one by one from their shared memory. Fitted
/// to the H100 measurements of docs/decode-log.md (session 82): 128×1024×8192 f16, 64 CTAs
/// either way, the 128×128 tile in clusters of 8 ran 24.2 µs and the 128×64 tile in clusters of
/// 4 17.7 µs, a ratio this cost of 4 k-tiles per partial gives. Priced without it, the 306 calls
/// whose pick the launched slices changed lost where they moved to wider tiles in larger clusters
/// (0.62–0.79×) and won where they moved to narrower ones (1.18–1.30×); with it, the 337 calls
/// whose pick changed ran 1.166× as fast as before (16–256 rows × 512–4096 × 1024–14336, every
/// layout, f16, bf16, TF32; 42 slower than 0.95×, worst 0.77×: 256 × 1536 × 8192 to the 64×128
/// tile under stream-K).
pub(crate) const CLUSTER_PARTIAL_KTILES: u64 = 4;

/// k-tiles (of the kernel's own tile) a split of `slices` k-slices that the reduction kernel sums
/// costs beyond [`PARTIAL_COST_KTILES`]: a quarter per slice past the first
/// [`REDUCE_LOADS_IN_FLIGHT`] (8), which one round of its loads covers (each slice adds a
/// partial of C's size to write and read, each further round a round trip of the loads). Fitted
/// to the H100 measurements of docs/decode-log.md (session 85):
/// priced without it, the 128×256 and 128×128 tiles split 13–32 ways won over narrower tiles
/// split 4–16 ways; with it, the 25 TF32 calls whose pick changed (96–512 rows × 512–2048 ×
/// 4096–14336, every layout) ran 1.081× as fast (23 faster, 1.02–1.22×; 192 and 256 × 512 × 8192
/// `tn` 0.90× and 0.97×). The 16-bit calls it moves on an H200 (96–512 rows × 512–1024 × 14336)
/// did not move on the H100 and are unmeasured.
pub(crate) fn reduced_slices_ktiles(slices: u64) -> u64 {
    slices.saturating_sub(u64::from(REDUCE_LOADS_IN_FLIGHT)) / 4
}

/// The multiply-adds of the [`busiest_ktiles`]: that many k-tiles of `BM·BN·BK`.
pub(crate) fn busiest_work(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> Option<u128> {
    let tile = spec.c_tile();
    let per_ktile = u128::from(tile.m) * u128::from(tile.n) * u128::from(spec.block.k);
    busiest_ktiles(spec, p, sms, cut).map(|k| u128::from(k) * per_ktile)
}

/// Least share of its busiest SM's multiply-adds, in percent, that another `mma.sync` tile of its
/// math and height must save for dispatch to drop a tile ([`crowded_mma_sync`]).
pub(crate) const MMA_SYNC_SAVING_PERCENT: u128 = 20;

/// Blocks of the block-per-tile kernel `spec` for `p` that its busiest SM runs on `sms` SMs, cut
/// into `cut.slices` k-slices: `⌈work items · slices / SMs⌉` (the block scheduler spreads blocks
/// over the SMs before doubling up).
fn busiest_sm_blocks(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> u64 {
    p.work_items(spec.c_tile())
        .max(1)
        .saturating_mul(u64::from(cut.slices.max(1)))
        .div_ceil(u64::from(sms.max(1)))
}

/// Multiply-adds the busiest SM computes for `p` on the block-per-tile kernel `spec` on `sms`
/// SMs, cut into `cut.slices` k-slices: ⌈blocks / SMs⌉ blocks (blocks = work items × slices), each
/// of ⌈T / slices⌉ k-tiles of `BM·BN·BK`. It counts an SM's blocks as sharing its units, so an SM
/// with fewer blocks finishes sooner (where [`busiest_ktiles`] counts the CUDA-core tiles'
/// blocks in rounds of their blocks per SM). That held where copies bound the blocks ([`crowded_mma_sync`]): on the H200,
/// 128×50257×4096 TF32 with an unaligned B on the sm_80 128×128 tile (393 blocks, 2 per SM at
/// once: 3 on the busiest SM, 3 tiles of work) ran 110.1 TFLOPS, on the 128×256 tile (197
/// blocks, 1 per SM: 2 on the busiest SM, 4 tiles of 128×128 of work) 88.2; 128×32001×4096 (2
/// such tiles on either) 105.5 against 110.0 (docs/unaligned-log.md, attempt 16).
pub(crate) fn sm_work(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> u128 {
    let ktiles = p
        .k_tiles(spec.block)
        .max(1)
        .div_ceil(u64::from(cut.slices.max(1)));
    let tile = spec.c_tile();
    u128::from(busiest_sm_blocks(spec, p, sms, cut))
        * u128::from(ktiles)
        * u128::from(tile.m)
        * u128::from(tile.n)
        * u128::from(spec.block.k)
}

/// Whether dispatch drops the `mma.sync` tile `spec` (cut as `cut`) for `p` on `sms` SMs because
/// another of `others` (each with its cut) of the same family, math and block height computes at
/// most `100 − `[`MMA_SYNC_SAVING_PERCENT`] percent of `spec`'s busiest SM's multiply-adds
/// ([`sm_work`]), in a call whose A or B is copied element by element (not 16-byte aligned), so
/// that its copies bound the tiles.
///
/// Only tiles of one height compete so: they read B alike and differ in how often they read A,
/// and ran within 4% of each other's speed where their work was equal (128×32001×4096 TF32
/// above), where shorter tiles read B once per row of tiles and ran slower (128×50257×4096 TF32 on
/// the 64×128 tile: 81.4 TFLOPS, the same work per SM as the 128×128 tile's 110.1). Only where an
/// operand is copied element-wise: with 16-byte copies the 128×256 tile (64×64 warp tiles) ran
/// faster at the same shapes despite a quarter more work on its busiest SM (H200, sm_80 tiles
/// alone: 384×14336×4096 f16 294.6 TFLOPS against 243.4 on 128×128, 1024×6144×4096 340.2
/// against 279.7, TF32 10–11% faster; docs/unaligned-log.md, attempt 16).
pub(crate) fn crowded_mma_sync<'a>(
    spec: &KernelSpec,
    cut: KSplit,
    others: impl IntoIterator<Item = (&'a KernelSpec, KSplit)>,
    p: &Problem,
    sms: u32,
) -> bool {
    if spec.family != Family::MmaSyncMultistage || !copies_element_wise(p) {
        return false;
    }
    let work = sm_work(spec, p, sms, cut);
    others.into_iter().any(|(o, o_cut)| {
        o.family == spec.family
            && o.math == spec.math
            && o.c_tile().m == spec.c_tile().m
            && sm_work(o, p, sms, o_cut) * 100 <= work * (100 - MMA_SYNC_SAVING_PERCENT)
    })
}

/// Whether dispatch drops the `mma.sync` tile `spec` for `p` because A or B is copied element by
/// element and another of `others` differs from it only in its warp tile, running more threads
/// per block: those issue the 4-byte copies.
///
/// The TF32 128×128 tile has two warp tiles: 64×64 (4 warps, fragments double-buffered), taken
/// with 16-byte copies, and 64×32 (8 warps). Measured on the H200 (both forced, cuBLAS
/// interleaved; docs/kernel-log.md, session 43): 128×50257×4096 `nn` (B's rows not 16-byte
/// aligned) 109.2 TFLOPS on 8 warps against 76.9 on 4 (87.7 on an unswapped 4-warp `nn` tile, an
/// experiment); with every leading dimension odd, 128×50257×4096 `nt` 94.1 against 77.1 and
/// 512×4096×4096 5–9% faster on 8 warps in every layout. (At 1536³–2048³ with odd leading
/// dimensions 4 warps ran 10–18% faster, but there the H200 stages the operands for TMA kernels,
/// 2× faster again.)
pub(crate) fn copies_with_fewer_threads<'a>(
    spec: &KernelSpec,
    others: impl IntoIterator<Item = (&'a KernelSpec, KSplit)>,
    p: &Problem,
) -> bool {
    if spec.family != Family::MmaSyncMultistage || !copies_element_wise(p) {
        return false;
    }
    others.into_iter().any(|(o, _)| {
        o.family == spec.family
            && o.math == spec.math
            && (o.input, o.output) == (spec.input, spec.output)
            && (o.trans_a, o.trans_b) == (spec.trans_a, spec.trans_b)
            && (o.c_tile(), o.stages) == (spec.c_tile(), spec.stages)
            && o.threads > spec.threads
    })
}

/// Whether the block-per-tile kernels copy A or B element by element for `p`: one of them is not
/// 16-byte aligned.
fn copies_element_wise(p: &Problem) -> bool {
    !(p.a().alignment.all() && p.b().alignment.all())
}

/// The busiest SM's last round of blocks of the block-per-tile kernel `spec` for `p` on `sms` SMs,
/// cut into `cut.slices` k-slices, as `(filled, slots)`: the SM holds `B = ⌈blocks / SMs⌉` blocks
/// and runs them `slots = b` at a time (`b`: the kernel's blocks per SM), so its last round has
/// `filled = B − (⌈B / b⌉ − 1)·b` of its `b` slots busy. A round with idle slots reads less at once
/// where the blocks are bound by memory (few rows of C).
pub(crate) fn last_round(spec: &KernelSpec, p: &Problem, sms: u32, cut: KSplit) -> (u64, u64) {
    let slots = u64::from(spec.min_blocks_per_sm.max(1));
    // at least one block: the work items count from 1
    let per_sm = busiest_sm_blocks(spec, p, sms, cut);
    ((per_sm - 1) % slots + 1, slots)
}

/// Whether dispatch drops the `mma.sync` tile `spec` (cut as `cut`) for `p` on `sms` SMs because
/// another of `others` (each with its cut) differs from it only in its stages, and so in its blocks
/// per SM, and fills a larger share of its busiest SM's last round ([`last_round`]), or an equal
/// share with more stages.
///
/// The TF32 16×128 tile has two such: 4 stages of padded rows (84 KiB, 2 blocks per SM) and 3 (63
/// KiB, 3 per SM). Measured on the H200 (both forced, cuBLAS interleaved; docs/unaligned-log.md,
/// attempt 17): 1×50257×4096 `nt`, 393 blocks, 3 on the busiest SM (last rounds: one of 2 slots, 3
/// of 3), 3 stages 1.86 TFLOPS against 1.58; at 8 and 16 rows 14–18% faster too. 1×128256×4096,
/// 1002 blocks, 8 on the busiest SM (2 of 2, 2 of 3): 4 stages 5–6% faster (`nt` and `nn`). 224
/// blocks (1×28672×8192; 2 of 2, 2 of 3) and 251 (1×32001×4096): within 2% in `nn` and in `nt` at
/// 251; at 224 in `nt` the 3 stages ran 6–7% faster, which this rule leaves to the 4 stages.
pub(crate) fn fills_last_round_less<'a>(
    spec: &KernelSpec,
    cut: KSplit,
    others: impl IntoIterator<Item = (&'a KernelSpec, KSplit)>,
    p: &Problem,
    sms: u32,
) -> bool {
    if spec.family != Family::MmaSyncMultistage {
        return false;
    }
    let (filled, slots) = last_round(spec, p, sms, cut);
    let twin = |o: &KernelSpec| {
        o.family == spec.family
            && o.math == spec.math
            && (o.input, o.output) == (spec.input, spec.output)
            && (o.trans_a, o.trans_b) == (spec.trans_a, spec.trans_b)
            && (o.block, o.warp) == (spec.block, spec.warp)
            && o.stages != spec.stages
    };
    others
        .into_iter()
        .filter(|&(o, _)| twin(o))
        .any(|(o, o_cut)| {
            let (o_filled, o_slots) = last_round(o, p, sms, o_cut);
            // filled / slots against o_filled / o_slots
            let (mine, theirs) = (filled * o_slots, o_filled * slots);
            theirs > mine || (theirs == mine && o.stages > spec.stages)
        })
}

/// The time class of a candidate whose model time is `time` when the best of its math at its
/// fill and padding is `best` (see the module docs): 0 within [`CLASS_PERCENT`] of the best.
pub(crate) fn class(time: u128, best: u128) -> u128 {
    (time * 100 / best.max(1)).saturating_sub(100) / CLASS_PERCENT
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::select;
    use crate::gemm::{Gemm, Precision};
    use crate::test_support::problem;
    use tcgemm_kernels::config::{find_kernel, Elem, KERNELS};

    /// The cut a Hopper context would make on 132 SMs (stream-K where its model says so; these
    /// shapes have enough tiles not to split).
    fn cut(p: &Problem) -> impl Fn(&KernelSpec) -> KSplit + '_ {
        move |s| KSplit {
            slices: 1,
            stream_k: streamk::choose(s, p, 132).is_some(),
            ..KSplit::NONE
        }
    }

    fn f16(m: usize, n: usize, k: usize) -> Problem {
        problem(
            &Gemm::new(m, n, k).trans_b(true),
            Elem::F16,
            Elem::F16,
            false,
        )
    }

    #[test]
    fn busiest_cta_counts_waves_or_shares() {
        let wide = find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma").unwrap();
        let mid = find_kernel("f16_f16_nt_128x192x64_w64x192_s5_tma").unwrap();
        // 4096³: 512 items of 128×256 (3.9 waves, unsplit): 4 waves of 64 k-tiles
        let p = f16(4096, 4096, 4096);
        assert_eq!(busiest_ktiles(wide, &p, 132, cut(&p)(wide)), Some(4 * 64));
        // 3072³: 288 items, stream-K shares the last 24 and a whole wave: 48 + ⌈156·48/132⌉ + 20
        let p = f16(3072, 3072, 3072);
        assert_eq!(
            busiest_ktiles(wide, &p, 132, cut(&p)(wide)),
            Some(48 + 57 + 20)
        );
        // ... and 384 of 128×192, 2.9 waves: 3 of 48
        assert_eq!(busiest_ktiles(mid, &p, 132, cut(&p)(mid)), Some(3 * 48));
        // k-slices: 4 slices of 16 k-tiles over 32 items, 128 in all (one wave), plus the exchange
        let p = f16(1024, 1024, 4096);
        let four = KSplit::sliced(4);
        assert_eq!(busiest_ktiles(wide, &p, 132, four), Some(16 + 20));
        // 32 slices summed by the reduction kernel: a quarter k-tile each past 8; in clusters
        // (`Split::cluster`), 4 per partial the first CTA adds instead
        let q = f16(128, 1024, 8192);
        let sliced = |slices, cluster| KSplit {
            cluster,
            ..KSplit::sliced(slices)
        };
        assert_eq!(
            busiest_ktiles(wide, &q, 132, sliced(32, false)),
            Some(4 + 20 + 6)
        );
        assert_eq!(
            busiest_ktiles(wide, &q, 132, sliced(8, false)),
            Some(16 + 20)
        );
        assert_eq!(
            busiest_ktiles(wide, &q, 132, sliced(8, true)),
            Some(16 + 20 + 28)
        );
        // not persistent: no model
        let sm80 = find_kernel("f16_f16_nt_128x256x32_w64x64_s4").unwrap();
        assert_eq!(busiest_ktiles(sm80, &p, 132, KSplit::NONE), None);
        // CUDA-core tiles: the busiest SM's blocks, in rounds of b, an empty slot of the last
        // round a quarter of a block. 3000³: 576 blocks of 128×128 put 5 on the busiest SM (2 at
        // a time: one slot of the third round empty), 1128 of 64×128 9 (3 rounds of 3)
        let p = problem(&Gemm::new(3000, 3000, 3000), Elem::F32, Elem::F32, false);
        let sgemm = |name| find_kernel(name).unwrap();
        let (large, small) = (
            sgemm("sgemm_nn_128x128x16_t8x8_s3"),
            sgemm("sgemm_nn_64x128x16_t8x8_s3"),
        );
        assert_eq!(
            busiest_ktiles(large, &p, 132, KSplit::NONE),
            Some((5 * 4 + 1) * 188 / 4)
        );
        assert_eq!(busiest_ktiles(small, &p, 132, KSplit::NONE), Some(9 * 188));
        // split: each block exchanges its partial tile. 64×4096×4096 in 12 slices of 22 k-tiles:
        // 384 blocks of 64×128 put 3 on the busiest SM (one round of 3), 768 of 32×128 6 (one
        // round of 6): the 64-row tile's time is the shorter (H200: 35.6 TFLOPS against 33.7)
        let p = problem(&Gemm::new(64, 4096, 4096), Elem::F32, Elem::F32, false);
        let twelve = KSplit::sliced(12);
        let narrow = sgemm("sgemm_nn_32x128x16_t8x8_s3");
        assert_eq!(
            busiest_ktiles(small, &p, 132, twelve),
            Some(3 * 22 + 3 * 20)
        );
        assert_eq!(
            busiest_ktiles(narrow, &p, 132, twelve),
            Some(6 * 22 + 6 * 20)
        );
        assert!(time(small, &p, 132, twelve) < time(narrow, &p, 132, twelve));
    }

    /// The tuning table lists every kernel the model ranks, once, by name in order, each with a
    /// rate of 1 to 100, and only those.
    #[test]
    fn the_rate_table_covers_the_modelled_kernels() {
        let table = crate::dispatch::rates::RATES;
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0), "sorted, unique");
        for &(name, rate) in table {
            let spec = find_kernel(name).unwrap_or_else(|| panic!("`{name}` is no kernel"));
            assert!(
                crate::tune::modelled(spec),
                "`{name}` is not ranked by the model"
            );
            assert!((1..=100).contains(&rate), "`{name}`: {rate}");
        }
        // (a kernel of clusters may go by its tile alone's rate, `tune::table_rate`)
        for spec in KERNELS.iter().filter(|s| crate::tune::modelled(s)) {
            assert!(
                crate::tune::table_rate(spec).is_some(),
                "`{}` has no rate: run `cargo xtask tune`",
                spec.name
            );
        }
        // the fastest kernel of each math is 100
        for math in KERNELS
            .iter()
            .filter(|s| crate::tune::modelled(s))
            .map(|s| s.math)
        {
            let best = KERNELS
                .iter()
                .filter(|s| s.math == math && crate::tune::modelled(s));
            assert_eq!(best.map(steady_rate).max(), Some(100), "{math:?}");
        }
    }

    #[test]
    fn classes_are_four_percent_wide() {
        assert_eq!(class(100, 100), 0);
        assert_eq!(class(103, 100), 0);
        assert_eq!(class(104, 100), 1);
        assert_eq!(class(150, 100), 12);
    }

    /// The measured cases of the module docs (H200, 132 SMs): the tile the model picks.
    #[test]
    fn waves_against_rate_on_the_measured_shapes() {
        let pick = |g: Gemm, input: Elem, output: Elem| {
            let p = problem(&g, input, output, false);
            let s = select(KERNELS, &p, Some(132), |_| true, cut(&p)).unwrap();
            (s.family, s.c_tile().m, s.c_tile().n)
        };
        let tf32 = |m, n, k, ta, tb| {
            let g = Gemm::new(m, n, k).trans_a(ta).trans_b(tb);
            pick(g.precision(Precision::Tf32), Elem::F32, Elem::F32)
        };
        use Family::{TmaPairs as Pairs, TmaRegisterA as Reg, TmaWarpSpecialized as Tma};
        for size in [3000, 3072] {
            // register-A (`nn` swapped: 192×128 of C), `nt` on TMA in pairs: the 128×192 tiles
            assert_eq!(tf32(size, size, size, false, false), (Reg, 192, 128));
            assert_eq!(tf32(size, size, size, true, false), (Reg, 128, 192));
            assert_eq!(tf32(size, size, size, true, true), (Reg, 128, 192));
            assert_eq!(tf32(size, size, size, false, true), (Pairs, 128, 192));
        }
        // whole waves of 128×256: the 128×256 tiles (swapped in `nn`)
        for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 11008, 4096)] {
            assert_eq!(tf32(m, n, k, false, false), (Reg, 256, 128));
            assert_eq!(tf32(m, n, k, true, true), (Reg, 128, 256));
            // `nt`: TF32 in pairs from a wave of their units, 16-bit from 8 waves
            // (`admission::deep_waves`: 4096³ has 256 units of two tiles, under 8 waves of 66
            // clusters)
            assert_eq!(tf32(m, n, k, false, true), (Pairs, 128, 256));
            let family = if m * n >= 8 * 66 * 2 * 128 * 256 {
                Pairs
            } else {
                Tma
            };
            let g = Gemm::new(m, n, k).trans_b(true);
            assert_eq!(pick(g, Elem::F16, Elem::F16), (family, 128, 256));
            assert_eq!(pick(g, Elem::Bf16, Elem::Bf16), (family, 128, 256));
        }
        // 5120³ (800 items of 128×256, stream-K; 1080 of 128×192 unsplit, 9 waves): 128×256
        assert_eq!(tf32(5120, 5120, 5120, false, true), (Tma, 128, 256));
        // exact FP32: the 64×128 CUDA-core tile where its rounds are fuller (3000³: 9 blocks of
        // 64×128 on the busiest SM in 3 rounds of 3, against 5 of 128×128 in 3 rounds of 2), the
        // 128×128 tile on whole rounds; 2560³ `nn` (7 blocks in rounds of 3, 3 and 1, against 4 in
        // 2 and 2): H200, forced, 43.1 against 38.4 TFLOPS (docs/kernel-log.md, session 40)
        let fp32 = |m, n, k, tb| {
            let s = pick(Gemm::new(m, n, k).trans_b(tb), Elem::F32, Elem::F32);
            (s.0, s.1)
        };
        assert_eq!(fp32(2560, 2560, 2560, false), (Family::CudaCore, 64));
        for tb in [false, true] {
            assert_eq!(fp32(3000, 3000, 3000, tb), (Family::CudaCore, 64));
            for (m, n, k) in [
                (4096, 4096, 4096),
                (8192, 8192, 8192),
                (2048, 2048, 2048),
                (128, 28672, 8192),
                (8192, 28672, 4096),
            ] {
                assert_eq!(fp32(m, n, k, tb), (Family::CudaCore, 128), "{m}x{n}x{k}");
            }
        }
    }
}
