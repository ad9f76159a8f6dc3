//! Stream-K on the persistent kernels: when the work items (output tiles × batch items) leave the
//! last wave short, the k-tiles of the last items are shared out in equal pieces, one per SM, so
//! every CTA runs about as long (`tcgemm_kernels::params::StreamK`,
//! `tcgemm_kernels::threadblock::stream_k`). A CTA whose piece starts inside an item stores its
//! partial tile (f32) in the context's workspace and raises a flag; the CTA holding the item's
//! first k-tiles adds the partials in k order and stores C. Same launch, no second kernel; integer
//! flags, one order of additions: bitwise reproducible on a device (the pieces follow its SM
//! count).
//!
//! # The model ([`choose`])
//! A kernel that [streams k](tcgemm_kernels::config::KernelSpec::streams_k), a call that reads A
//! and B, `W` work items on `S` SMs, `T` k-tiles per item:
//! - whole waves need nothing: no stream-K when `W` is a multiple of `S`, or when the waves are
//!   at least [`MIN_WAVE_EFFICIENCY`] percent full (`W / (⌈W/S⌉·S)`: 4096³ on 128×256 tiles, 512
//!   items, 97%);
//! - long items with whole waves to deal (a 128-row tile, `W > S`, `T >` [`LONG_ITEM_KTILES`];
//!   3xTF32 kernels excepted) share only a last partial wave of `S / MAX_SHARERS` to `S / 2`
//!   items, each by 3 to [`MAX_SHARERS`] CTAs, all whole waves dealt first in lockstep; else
//!   nothing. Sharing a whole wave besides lost up to 38% on such calls (session 17); sharing the
//!   last partial wave only gained 5–10% where it is small (H200, same tile unsplit against
//!   shared, session 55: TF32 `nt` 5120³ with 8 of 800 items 1.050×, 3712³–4736³ with 33–43
//!   1.06–1.10×, 3200³–4352³ with 50–61 1.02–1.05×, 2048×11008×4096 with 28 1.072×; f16 5504³
//!   with 22 1.070×, 5120²×8192 and 5120²×16384 with 8 1.066× and 1.085×) and lost where it is
//!   large (2688³ `nt` with 99 of 231, 0.963×; 256×28672×8192 with 92 of 224, 0.82–0.89×: bound
//!   by reading the weights, which pieces at other k offsets read from HBM again) or tiny (5888³
//!   f16 with 2, 0.889×); its exchange costs twice [`PARTIAL_COST_KTILES`] ([`exchange_ktiles`]);
//! - calls of 1 to 2 waves (`S < W < 2·S`) on a 128-row tile share the last partial wave only
//!   (`W mod S` items; none where that is under a third of the SMs, below), the first wave dealt
//!   whole in lockstep: shared as below, every item would be, and each CTA's piece (`W/S` items)
//!   would start and end inside items far from its neighbours' k offsets (H200, TF32 2560³ `nt`
//!   on the 128×256 tile, 200 items of 80 k-tiles: 0.90–0.91× cuBLAS so shared against 1.01×
//!   unsplit, session 26). Sharing the 68 items of the last wave only, each by about two CTAs,
//!   ran it 1.067× unsplit, and TF32 2304³ on the 128×192 tiles (216 items of 72 k-tiles, 84
//!   shared) `nn` 1.009×, `tn` 1.105×, `tt` 1.017×, 2176³ `nn` 1.007× (docs/hopper-log.md,
//!   session 55). Below 1.5 waves too (session 57, same calls before and after, two rounds):
//!   TF32 2112³ on the 128×192 tiles (187 items, 55 shared instead of all) `nn` 1.215×, `tn`
//!   1.034×, `tt` 1.211×; TF32 `nt` 2176³, 2240³ and 2304³ leave the 128×256 tile, whose 153 or
//!   162 items all shared the model overrated, for the 128×128 and 128×192 tiles: 1.140×,
//!   1.066×, 1.050×. The 64-row tiles share everywhere: their calls of a few rows gain from the
//!   shared items' even reads of B (see [`LONG_ITEM_KTILES`]);
//! - fewer items than SMs (`W < S`) of a 128-row tile (not 3xTF32) are not shared where they
//!   are long (more than [`LONG_ITEM_KTILES`] k-tiles): split-K or an unsplit tile takes them.
//!   Shared so, each CTA's piece (about `W·T/S` k-tiles) starts at its own k offset, and the
//!   pieces read A and B with little reuse in L2 where whole items or k-slices go in lockstep
//!   (H200, same calls before and after, two rounds, session 60: TF32 `nt` 768×2304×8192,
//!   512×4096×14336 and 256×8192×28672 on the 128×256 tile 1.64–1.66× as split into two
//!   k-slices, 1280×2560×4096 `nt` 1.23× unsplit, 1536×1792×8192 `nn` 1.75× on the 128×192 tile
//!   unsplit, 128×8192×28672 `nn` 1.26× split; f16 256×8192×28672 1.43×, 512×4096×14336 `nt`
//!   1.12×, 1280×2560×8192 `nt` 1.22×, 768×2304×8192 and 768×3072×8192 1.08–1.10× on the 128×128
//!   and 128×192 tiles unsplit; docs/hopper-log.md, session 60);
//! - otherwise the shared items are the last partial wave plus one whole wave (`W mod S + S`), or
//!   all of them when `W < S`; the others are dealt whole first. With a whole wave among them, a
//!   piece spans one or two items, so an item is shared by two or three CTAs;
//! - at least a third of an SM's worth of items is shared (`3·items ≥ S`; long items above): a
//!   finisher adds at most a few partials, each `BM·BN·4` bytes read by one CTA; fewer items are
//!   left to split-K ([`crate::splitk`]), which sums through all SMs (a fifth on the 64-row
//!   tiles, 4–5 CTAs per item, ran the 4096-wide decode layers' 32 tiles at 16–64 rows 0.90×
//!   their split speed: docs/decode-log.md, session 53);
//! - the k-tiles the busiest CTA computes drop by at least [`exchange_ktiles`]: from
//!   `⌈W/S⌉·T` to `(W − items)/S · T + ⌈items·T / S⌉`. The partial tiles cost that much (measured
//!   on the H200, docs/hopper-log.md): each CTA writes one `BM·BN` f32 tile and a finisher reads
//!   one to three, all at about the same moment, an L2-bound burst of 10–15 µs that no mainloop
//!   hides (1536³ f16: 24 µs for 13 k-tiles per CTA, 9–10 µs of them); and CTAs at different k
//!   offsets read their operands with less sharing in L2 than whole items in lockstep (2560³ f16:
//!   L2 reads 408 MB against 223 MB for the same k-tiles, no gain from the even split).
//!
//! The workspace: the flags (two `u32` per CTA) in the counters' place at its front
//! ([`crate::splitk::counters_bytes`]), then one partial tile of `BM·BN` f32 per CTA, within the
//! bound the context allocates ([`crate::splitk::workspace_bound`]).

use crate::problem::Problem;
use crate::splitk;
use tcgemm_kernels::config::{KernelSpec, Math};
use tcgemm_kernels::params::{GemmParams, StreamK};

/// Wave efficiency (percent) at and above which a call runs without stream-K.
pub const MIN_WAVE_EFFICIENCY: u64 = 90;
/// k-tiles per work item above which a call shares no whole wave of items (with more items than
/// SMs: only a last partial wave; with fewer: none). Measured on the H200 (docs/hopper-log.md,
/// "Stream-K on long items", the 128×256 and 128×128 tiles forced, stream-K on against off):
/// with whole waves to deal, items of 48–80 k-tiles gained (f16 3072³ +15%, 5120³ +6%, TF32
/// 2560³ on 128×128 +15%), items of 96–256 lost (TF32 `nt` 3072³ −13%, 3072²×8192 −20%,
/// 256×28672×8192 −38%; f16 256×28672×8192 −27%, 3072²×8192 −13%). Calls with fewer items than
/// SMs (all of them shared) gained against their tile unsplit at 64–128 k-tiles (1536²×4096 f16
/// +10%, 2048×1024×4096 TF32 +26%), but lost to split-K and other tiles beyond 80 (session 60,
/// the module docs) and keep stream-K only up to it. Applied to the 128-row
/// tiles only ([`LONG_ITEM_ROWS`]): the 64-row tiles run calls of a few rows, bound by reading
/// B, where the shared items even out the SMs' reads (16–64×28672×8192, 224 items of 128–256
/// k-tiles: 9–15% slower without stream-K, session 18). Not applied to the 3xTF32 kernels
/// (`Math::MmaTf32x3`), whose 3·k is long on every call and which were not measured so.
pub const LONG_ITEM_KTILES: u64 = 80;
/// Rows of the tiles that [`LONG_ITEM_KTILES`] applies to.
pub const LONG_ITEM_ROWS: u32 = 128;
/// Most CTAs that share a long item (the last partial wave of at least `S / MAX_SHARERS` items):
/// H200, 5120³ TF32 `nt`, 8 items on 132 SMs (16.5 CTAs each), 1.050× unsplit; 5888³ f16 `nt`,
/// 2 items (66 CTAs each), 0.889× (session 55).
pub const MAX_SHARERS: u64 = 17;
/// k-tiles (of the kernel's own tile) the exchange of partial tiles costs: stream-K runs when it
/// saves the busiest CTA more. Fitted to the H200 measurements of docs/hopper-log.md: 2560³ f16
/// (19 k-tiles saved) gained nothing, 2048×1024×4096 (33) 4–18% over two runs, 3072³ (39) 24%.
pub const PARTIAL_COST_KTILES: u64 = 20;

/// Percent of the `sm_count · waves` CTA slots of a persistent launch that `work` items fill.
pub(crate) fn wave_efficiency(work: u64, sm_count: u32) -> u64 {
    let sms = u64::from(sm_count.max(1));
    let slots = work.div_ceil(sms).max(1) * sms;
    work * 100 / slots
}

/// The work items whose k-tiles `kernel` shares out for `problem` on `sm_count` SMs, or `None`
/// for no stream-K (see the module docs).
pub(crate) fn choose(kernel: &KernelSpec, problem: &Problem, sm_count: u32) -> Option<u32> {
    if !kernel.streams_k() || !problem.reads_ab() || sm_count == 0 {
        return None;
    }
    let sms = u64::from(sm_count);
    let work = problem.work_items(kernel.c_tile());
    if work == 0 || work % sms == 0 || wave_efficiency(work, sm_count) >= MIN_WAVE_EFFICIENCY {
        return None;
    }
    let ktiles = problem.k_tiles(kernel.block);
    let last_wave = work % sms;
    // the rules of 128-row tiles with whole waves to deal (the module docs)
    let rows128 = rows128_waves(kernel, work, sms);
    let long = long_items(kernel, work, ktiles, sms);
    // long items: a last wave of at most half the SMs' items, each shared by at most MAX_SHARERS
    if long && (2 * last_wave >= sms || MAX_SHARERS * last_wave < sms) {
        return None;
    }
    // long items fewer than the SMs: not shared (split-K or an unsplit tile takes them)
    if work < sms && long_tile_items(kernel, ktiles) {
        return None;
    }
    // the last partial wave only on long items and on 1 to 2 waves of a 128-row tile
    let items = if long || (rows128 && work < 2 * sms) {
        last_wave
    } else if work > sms {
        last_wave + sms
    } else {
        work
    };
    let total = items.checked_mul(ktiles)?;
    if (3 * items < sms && !long) || total > u64::from(u32::MAX) {
        return None;
    }
    let whole = work.div_ceil(sms) * ktiles;
    if whole < shared_ktiles(work, items, ktiles, sms) + exchange_cost(long) {
        return None;
    }
    u32::try_from(items).ok()
}

/// Whether `kernel` is a 128-row tile (not 3xTF32): the tiles the module docs' rules for whole
/// waves and for long items apply to.
fn rows128(kernel: &KernelSpec) -> bool {
    kernel.block.m >= LONG_ITEM_ROWS && kernel.math != Math::MmaTf32x3
}

/// Whether `kernel` ([`rows128`]) deals whole waves of `work` items on `sms` SMs (more items than
/// SMs).
fn rows128_waves(kernel: &KernelSpec, work: u64, sms: u64) -> bool {
    work > sms && rows128(kernel)
}

/// Whether `kernel` ([`rows128`]) has items of more than [`LONG_ITEM_KTILES`] k-tiles: shared
/// only as a last partial wave ([`long_items`]), and not at all when fewer than the SMs.
fn long_tile_items(kernel: &KernelSpec, ktiles: u64) -> bool {
    rows128(kernel) && ktiles > LONG_ITEM_KTILES
}

/// [`long_tile_items`] with whole waves to deal ([`rows128_waves`]).
fn long_items(kernel: &KernelSpec, work: u64, ktiles: u64, sms: u64) -> bool {
    work > sms && long_tile_items(kernel, ktiles)
}

/// k-tiles the exchange of partial tiles costs the busiest CTA of a stream-K launch of `kernel`
/// for `problem` on `sm_count` SMs, as dispatch prices it against other tiles and cuts
/// ([`crate::dispatch`]'s time model): [`PARTIAL_COST_KTILES`], twice that
/// - for long items ([`long_items`]), each shared by 3 to [`MAX_SHARERS`] CTAs. Fitted so that
///   dispatch keeps the unsplit 128×192 tile where the shared 128×256 tile measured slower (H200,
///   TF32 `nt` 2944³ 0.933×, 3072³ 0.993×, session 55; with the single cost the model moved
///   them);
/// - for every item shared in a call of fewer items than SMs, each longer than
///   [`LONG_ITEM_KTILES`] ([`all_long_items_shared`]; only the 64-row tiles share those): each
///   CTA's piece starts at its own k offset, as on the 128-row tiles that stopped sharing them
///   (the module docs). Priced once, the 64-row tiles so shared took 96–384 rows × 1024–3072
///   columns, 4096–8192 deep from the 128-row tiles split in clusters and ran 0.77–0.93× as fast
///   (f16, bf16, TF32; H100, docs/decode-log.md, session 82); priced twice, dispatch returns
///   those calls to the splits: 73 calls 1.123× (0.91–1.35; session 83).
///
/// [`choose`] weighs sharing against the same tile unshared with the single cost.
pub(crate) fn exchange_ktiles(kernel: &KernelSpec, problem: &Problem, sm_count: u32) -> u64 {
    let work = problem.work_items(kernel.c_tile());
    let ktiles = problem.k_tiles(kernel.block);
    let sms = u64::from(sm_count);
    exchange_cost(long_items(kernel, work, ktiles, sms) || all_long_items_shared(work, ktiles, sms))
}

/// Whether a call of `work` items of `ktiles` k-tiles on `sms` SMs that streams shares items
/// longer than [`LONG_ITEM_KTILES`], all of them (fewer items than SMs).
fn all_long_items_shared(work: u64, ktiles: u64, sms: u64) -> bool {
    work < sms && ktiles > LONG_ITEM_KTILES
}

/// [`exchange_ktiles`] of a launch whose items are long or not.
fn exchange_cost(long: bool) -> u64 {
    if long {
        2 * PARTIAL_COST_KTILES
    } else {
        PARTIAL_COST_KTILES
    }
}

/// k-tiles the busiest CTA computes when `items` of `work` items of `ktiles` k-tiles each are
/// shared out over `sms` SMs and the others dealt whole first (`(W − I)/S·T + ⌈I·T/S⌉`), before
/// the exchange of partial tiles ([`PARTIAL_COST_KTILES`]).
pub(crate) fn shared_ktiles(work: u64, items: u64, ktiles: u64, sms: u64) -> u64 {
    let sms = sms.max(1);
    (work - items.min(work)) / sms * ktiles + items.saturating_mul(ktiles).div_ceil(sms)
}

/// Bytes of the workspace a stream-K launch of `kernel` uses on `sm_count` SMs: the flags, then
/// one partial tile per CTA.
pub(crate) fn workspace_bytes(kernel: &KernelSpec, sm_count: u32) -> u64 {
    let tile = u64::from(kernel.block.m) * u64::from(kernel.block.n) * 4;
    splitk::counters_bytes(sm_count) + u64::from(sm_count) * tile
}

/// `p` with the stream-K schedule of `items` shared items, its flags and partials in the
/// workspace at `workspace` (`sm_count` SMs).
pub(crate) fn params(p: GemmParams, items: u32, workspace: u64, sm_count: u32) -> GemmParams {
    GemmParams {
        stream_k: StreamK {
            flags: workspace,
            partials: workspace + splitk::counters_bytes(sm_count),
            items,
            _pad: 0,
        },
        ..p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::Gemm;
    use tcgemm_kernels::config::{find_kernel, KERNELS};
    use tcgemm_kernels::threadblock::stream_k::{Role, Schedule};

    fn f16(m: usize, n: usize, k: usize) -> Problem {
        Problem::assume_aligned::<half::f16, half::f16>(&Gemm::new(m, n, k).trans_b(true)).unwrap()
    }

    /// TF32 `n³`, B stored n×k where `trans_b`.
    fn tf32_cube(n: usize, trans_b: bool) -> Problem {
        let g = Gemm::new(n, n, n).trans_b(trans_b);
        Problem::assume_aligned::<f32, f32>(&g.precision(crate::Precision::Tf32)).unwrap()
    }

    const NT256: &str = "f16_f16_nt_128x256x64_w64x256_s4_tma";

    #[test]
    fn wave_quantized_calls_stream() {
        let k = find_kernel(NT256).unwrap();
        // 3072³: 288 items = 2 waves + 24 → the last 24 + one wave shared
        assert_eq!(choose(k, &f16(3072, 3072, 3072), 132), Some(24 + 132));
        // 1536² × 4096: 72 items on 132 SMs, all shared (64 k-tiles per CTA become 35)
        assert_eq!(choose(k, &f16(1536, 1536, 4096), 132), Some(72));
        // 2560³ (200 items: 80 k-tiles become 61) and 1536³ (24 become 14): the partials cost more
        assert_eq!(choose(k, &f16(2560, 2560, 2560), 132), None);
        assert_eq!(choose(k, &f16(1536, 1536, 1536), 132), None);
        // full waves: 4096³ (512 items, 97%), 8192³ (2048, 97%), 132 items exactly
        assert_eq!(choose(k, &f16(4096, 4096, 4096), 132), None);
        assert_eq!(choose(k, &f16(8192, 8192, 8192), 132), None);
        assert_eq!(choose(k, &f16(128 * 12, 256 * 11, 4096), 132), None);
        // too few items (a tile shared by more than ~3 CTAs): 1024³ has 32, decode 16
        assert_eq!(choose(k, &f16(1024, 1024, 1024), 132), None);
        assert_eq!(choose(k, &f16(128, 4096, 4096), 132), None);
        // short k: 72 items × 2 k-tiles
        assert_eq!(choose(k, &f16(1536, 1536, 128), 132), None);
        // long items with whole waves to deal share only a last partial wave of 8 to 65 items:
        // not 256×28672×8192 (224 items of 128 k-tiles, 92 in the last wave) nor 5888³ (1058
        // of 92, 2 left: 66 CTAs to an item); 3072²×8192 (288 of 128) shares its last 24, and
        // 5120²×8192 (800 of 128) its last 8; 5120³ (800 of 80, not long) the last wave and one
        assert_eq!(choose(k, &f16(256, 28672, 8192), 132), None);
        assert_eq!(choose(k, &f16(5888, 5888, 5888), 132), None);
        assert_eq!(choose(k, &f16(3072, 3072, 8192), 132), Some(24));
        assert_eq!(choose(k, &f16(5120, 5120, 8192), 132), Some(8));
        assert_eq!(choose(k, &f16(5120, 5120, 5120), 132), Some(8 + 132));
        // ... fewer items than SMs: all shared up to 80 k-tiles (72 of 64 above), longer ones
        // not at all (split-K takes them): f16 1536²×8192 (72 of 128), TF32 `nt` 256×8192×28672
        // (64 of 896, 1.64× split in two against all shared, session 60)
        assert_eq!(choose(k, &f16(1536, 1536, 8192), 132), None);
        let tf32_nt = find_kernel("tf32_nt_128x256x32_w64x256_s4_tma").unwrap();
        let g = Gemm::new(256, 8192, 28672).trans_b(true);
        let deep = Problem::assume_aligned::<f32, f32>(&g.precision(crate::Precision::Tf32));
        assert_eq!(choose(tf32_nt, &deep.unwrap(), 132), None);
        // 1 to 2 waves on a 128-row tile: the last partial wave only, TF32 2560³ `nt` on
        // 128×256 (200 items of 80 k-tiles) shares 68, 2176³ (153 items of 68) its last 21: too
        // few (a piece of 0.16 items), so none; 1536³ on 128×128 (144 items) none either
        let tf32 = tf32_cube(2560, true);
        let tf32_256 = find_kernel("tf32_nt_128x256x32_w64x256_s4_tma").unwrap();
        assert_eq!(choose(tf32_256, &tf32, 132), Some(68));
        let nt128 = find_kernel("f16_f16_nt_128x128x64_w64x128_s6_tma").unwrap();
        assert_eq!(choose(nt128, &f16(1536, 1536, 1536), 132), None);
        assert_eq!(choose(tf32_256, &tf32_cube(2176, true), 132), None);
        // ... 2112³ on the 128×192 tile (187 items, 1.42 waves) shares its last 55
        let tf32_192 = find_kernel("tf32_nn_128x192x32_w64x192_s5_tma_areg").unwrap();
        assert_eq!(choose(tf32_192, &tf32_cube(2112, false), 132), Some(55));
        // ... and the 64-row tiles, bound by reading B: 32×28672×8192 streams its 224 items
        let rows64 = find_kernel("f16_f16_nt_64x128x64_w64x64_s8_tma").unwrap();
        assert_eq!(
            choose(rows64, &f16(32, 28672, 8192), 132),
            Some(224 % 132 + 132)
        );
        // but not 16×4096×4096's 32 items, each of which would be shared by 4–5 CTAs
        assert_eq!(choose(rows64, &f16(16, 4096, 4096), 132), None);
    }

    /// The exchange dispatch prices: once for short items or some shared, twice for long items
    /// with whole waves to deal and for long items all shared (fewer than the SMs).
    #[test]
    fn long_items_exchange_twice() {
        let rows64 = find_kernel("f16_f16_nt_64x128x64_w64x64_s8_tma").unwrap();
        let nt128 = find_kernel("f16_f16_nt_128x128x64_w64x128_s6_tma").unwrap();
        let xch = |k, m, n, kk| exchange_ktiles(k, &f16(m, n, kk), 132);
        // 256×1536×8192 on the 64×128 tile: 48 items of 128 k-tiles, all shared
        assert_eq!(choose(rows64, &f16(256, 1536, 8192), 132), Some(48));
        assert_eq!(xch(rows64, 256, 1536, 8192), 2 * PARTIAL_COST_KTILES);
        // 80 k-tiles are not long; 224 items are more than the SMs, the tile of 64 rows
        assert_eq!(xch(rows64, 256, 1536, 5120), PARTIAL_COST_KTILES);
        assert_eq!(xch(rows64, 32, 28672, 8192), PARTIAL_COST_KTILES);
        // the 128-row tile's long items with whole waves: 3072²×8192 (288 of 128)
        assert_eq!(xch(nt128, 3072, 3072, 8192), 2 * PARTIAL_COST_KTILES);
        assert_eq!(xch(nt128, 3072, 3072, 4096), PARTIAL_COST_KTILES);
    }

    /// The context allocates `splitk::workspace_bound` once; no stream-K launch needs more.
    #[test]
    fn workspace_fits_the_bound() {
        for sms in [1, 78, 132, 144] {
            let bound = splitk::workspace_bound(KERNELS, sms);
            for k in KERNELS.iter().filter(|k| k.streams_k()) {
                assert!(workspace_bytes(k, sms) <= bound, "{} on {sms} SMs", k.name);
            }
        }
    }

    #[test]
    fn only_kernels_that_stream_k() {
        let p = f16(3072, 3072, 3072);
        for k in KERNELS.iter().filter(|k| !k.streams_k()) {
            assert_eq!(choose(k, &p, 132), None, "{}", k.name);
        }
        assert!(KERNELS.iter().any(|k| k.streams_k()));
    }

    /// Every k-tile of every item is computed once; each item shared is stored by one finisher
    /// whose peers hold the rest of it, in k order.
    fn check_schedule(work: u32, ktiles: u32, items: u32, grid: u32) {
        let mut seen = vec![0u32; (work * ktiles) as usize];
        let mut owner = vec![None; work as usize];
        for bid in 0..grid {
            let s = Schedule::new(work, ktiles, items, grid, bid);
            let mut c = s.start();
            let mut count = 0;
            let mut partials = 0;
            while let Some(u) = s.next(&mut c) {
                assert!(u.k_begin < u.k_end && u.k_end <= ktiles);
                for kt in u.k_begin..u.k_end {
                    seen[(u.item * ktiles + kt) as usize] += 1;
                }
                count += u.k_end - u.k_begin;
                match s.role(u) {
                    Role::Whole | Role::Finisher => {
                        assert!(owner[u.item as usize].replace((bid, u)).is_none());
                    }
                    Role::Partial => partials += 1,
                }
            }
            assert_eq!(count, s.ktiles_total(), "CTA {bid}");
            assert!(partials <= 1, "CTA {bid} has {partials} partials");
        }
        assert!(
            seen.iter().all(|&n| n == 1),
            "{work}×{ktiles}, {items} on {grid}"
        );
        for (item, o) in owner.iter().enumerate() {
            let (bid, u) = o.unwrap_or_else(|| panic!("item {item} has no finisher"));
            let s = Schedule::new(work, ktiles, items, grid, bid);
            // the peers bid−1, bid−2, … start where the previous piece ended
            let mut next = u.k_end;
            for i in 0..s.peers(u) {
                let peer = bid - 1 - i;
                let ps = Schedule::new(work, ktiles, items, grid, peer);
                let mut c = ps.start();
                let first = std::iter::from_fn(|| ps.next(&mut c))
                    .find(|v| v.item == u.item)
                    .unwrap();
                assert_eq!((first.k_begin, ps.role(first)), (next, Role::Partial));
                next = first.k_end;
            }
            assert_eq!(next, ktiles, "item {item}");
        }
    }

    #[test]
    fn schedules_cover_every_k_tile_once() {
        check_schedule(288, 48, 156, 132);
        check_schedule(200, 40, 200, 132);
        // the last partial wave only: items shared by about two CTAs after a whole wave
        check_schedule(200, 80, 68, 132);
        check_schedule(216, 72, 84, 132);
        // long items: a last partial wave of 8, each item shared by 16 or 17 CTAs
        check_schedule(800, 160, 8, 132);
        check_schedule(72, 24, 72, 132);
        check_schedule(64, 16, 64, 132);
        check_schedule(10, 7, 10, 3);
        check_schedule(10, 7, 4, 3);
        check_schedule(5, 1, 5, 4);
        check_schedule(9, 3, 0, 4);
        check_schedule(145, 13, 145, 132);
        // a piece shorter than an item: items shared by three CTAs and more
        check_schedule(50, 13, 50, 70);
    }
}
