//! Which families [`super::select`] takes as candidates for a call: thread copies, stream kernels
//! and ping-pong tiles only where they serve it ([`admits`]).

use crate::problem::Problem;
use crate::rules::{tma_reads_ab, tma_reads_off_sectors};
use tcgemm_kernels::config::{Family, KernelSpec, Math};

use super::place::sixteen_bit;

/// Whether [`select`](super::select) takes `spec`, which can implement `p`, as a candidate for
/// `p` by its family (`ping_pong`: whether a ping-pong kernel of a math is a usable candidate;
/// `pairs`: the pairs kernel of a tile ([`pairs_of`]) where it is one):
/// - thread copies ([`Family::LdgWarpSpecialized`]) only where TMA cannot read A or B
///   ([`tma_reads_ab`]);
/// - stream kernels only where they read what the others cannot ([`streams`]);
/// - ping-pong tiles for short items, and there in place of the cooperative `wgmma` tiles of
///   their maths ([`short_items`]); and, beside them, single products of one wave of their tiles
///   ([`one_wave_of_tiles`]) in the maths [`single_product_math`] admits; the 32-wide ones only
///   on decode rows ([`decode_rows`]) of one wave of their tiles or, swapped, of 8 to 32 rows
///   (fewer where shallow) on half a wave or more ([`few_rows_on_half_a_wave`]) and of 1 to 32
///   `nt` rows on a wave or more ([`few_rows_over_waves`]); there, from 1024 deep, they take the
///   call ([`streams_few_rows`]); swapped, also 16-bit calls of 33 to 128 rows on a share of a
///   wave, shallow enough ([`rows_over_32_on_swapped_tiles`]);
/// - tiles in pairs sharing B ([`Family::TmaPairs`]) where [`pairs_serve`] says: in place of the
///   same tiles alone where TMA would read A or B off 32-byte sectors and the pairs fill the
///   call's rows and a wave ([`pairs_fill`]), beside them (ranked one above, so that the pairs
///   take a call on equal time) on many waves of deep work units or a few of shallow ones.
pub(crate) fn admits<'k>(
    spec: &KernelSpec,
    p: &Problem,
    sm_count: Option<u32>,
    ping_pong: impl Fn(Math) -> bool,
    pairs: impl Fn(&KernelSpec) -> Option<&'k KernelSpec>,
) -> bool {
    let short = short_items(p);
    match spec.family {
        Family::LdgWarpSpecialized => !tma_reads_ab(p),
        Family::CudaCoreStream => streams(spec, p),
        Family::TmaPairs => pairs_serve(spec, p, sm_count),
        Family::TmaWarpSpecialized
            if tma_reads_off_sectors(p)
                && pairs(spec).is_some_and(|pairs| pairs_fill(pairs, p, sm_count)) =>
        {
            false
        }
        Family::TmaWarpSpecialized if spec.swaps_ab() && spec.block.n == 32 => {
            sm_count.is_some_and(|sms| few_weight_columns_deep(spec, p, sms))
        }
        Family::TmaPingPong if streams_whole_k(spec) => sm_count.is_some_and(|sms| {
            (decode_rows(p)
                && (one_wave_of_tiles(spec, p, sms)
                    || few_rows_on_half_a_wave(spec, p, sms)
                    || few_rows_over_waves(spec, p, sms)))
                || rows_over_32_on_swapped_tiles(spec, p, sms)
        }),
        Family::TmaPingPong => {
            short
                || (single_product_math(spec, p)
                    && sm_count.is_some_and(|sms| one_wave_of_tiles(spec, p, sms)))
        }
        f if f.needs_tma() => !(short && ping_pong(spec.math)),
        _ => true,
    }
}

/// Whether the tiles in pairs of CTAs sharing B `pairs` fill `p`'s rows and the device's clusters
/// (on `sm_count` SMs; unknown: yes): the second tile of a pair holds rows of C (more than one row
/// of tiles), and the units fill a wave of clusters. Where they do not, the pairs rank below
/// other tiles (their second CTAs idle, or most clusters do, with no split along K), and a call off
/// 32-byte sectors keeps its tile alone among the candidates. H200 (docs/hopper-log.md, session
/// 58): TF32 `nt` at `ld` + 4, 128×4096×11008 on the 128×256 tile alone in 8 k-slices 162 TFLOPS,
/// on the 128×128 tile (4 slices) that dispatch took with it left out 145; 256×4096×14336 (16
/// units) 256 against 166 on the 128×144 tile.
fn pairs_fill(pairs: &KernelSpec, p: &Problem, sm_count: Option<u32>) -> bool {
    p.gemm().m > pairs.c_tile().m as usize
        && sm_count.is_none_or(|sms| {
            p.work_items(pairs.unit_tile()) >= u64::from(sms / pairs.family.cluster())
        })
}

/// Whether the tiles in pairs of CTAs sharing B `spec` ([`Family::TmaPairs`]) are candidates for
/// `p`: where TMA would read A or B off 32-byte sectors ([`tma_reads_off_sectors`]; there L2
/// bounds the tiles alone, and the pairs ran 1.22–1.31× them on 3000³ and 4096³ `+ld8`), or, on
/// `sm_count` SMs, where their work units (two tiles each) are deep on many waves (16-bit) or at
/// least one (TF32; [`deep_units_on_enough_waves`]) or shallow on a few
/// ([`shallow_units_on_few_waves`]); the time model then weighs them against the tiles alone,
/// streamed or not, and on equal time the pairs' rank (one above their tile alone) takes the call.
pub(crate) fn pairs_serve(spec: &KernelSpec, p: &Problem, sm_count: Option<u32>) -> bool {
    tma_reads_off_sectors(p)
        || sm_count.is_some_and(|sms| {
            let clusters = u64::from(sms / spec.family.cluster());
            deep_units_on_enough_waves(spec, p, clusters)
                || shallow_units_on_few_waves(spec, p, clusters)
        })
}

/// Whether the work units of the pairs kernel `spec` fill at least [`deep_waves`] waves of
/// `clusters` clusters of two, each unit at least [`PAIRS_KTILES`] k-tiles deep. H200, 16-bit, the
/// 128×256 pairs against the tile alone, same run (docs/hopper-log.md, session 50): 1.003–1.029×
/// on 6144³ (8.7 waves, 96 k-tiles), 8192³ (15.5, 128), 8192×14336×4096 (27, 64),
/// 4096×14336×4096 (13.6, 64) and 16384×4096² (15.5, 64); on fewer waves of deep units they
/// tie (4096³ 1.00–1.01×, 4096²×14336 0.99–1.00×; session 52) or lose where the tile alone
/// shares its last wave out by stream-K (5120³, 6.1 waves, 0.90–0.92×; 3072³, 2.2 waves,
/// 0.86–0.87×), which pairs cannot.
fn deep_units_on_enough_waves(spec: &KernelSpec, p: &Problem, clusters: u64) -> bool {
    p.work_items(spec.unit_tile()) >= deep_waves(spec.math) * clusters
        && p.k_tiles(spec.block) >= PAIRS_KTILES
}

/// Waves of clusters from which deep units of `math` go to the tiles in pairs as candidates:
/// [`PAIRS_WAVES`] for 16-bit inputs, one for TF32. A TF32 k-tile moves as many bytes as a 16-bit
/// one for half its FLOPs, so reading B once per pair pays on fewer waves; the time model still
/// weighs the pairs against the tile alone shared out by stream-K (5120³ keeps it). H200, TF32
/// `nt`, this rule's build against the one before, alternated twice in one device call
/// (docs/hopper-log.md, session 59): 3000³ and 3072³ (128×192, 2.9 waves, 94–96 k-tiles)
/// 1.025× and 1.022×, 4096³ 1.006×, 4096²×2048 1.011×, 2048×8192×4096 1.005×, 4096²×11008
/// 1.002× (128×256, 3.9 waves); forced beside dispatch, 3072³ in pairs 374.6–375.0 TFLOPS
/// against 357.7–358.8 alone.
fn deep_waves(math: Math) -> u64 {
    if math == Math::MmaTf32 {
        1
    } else {
        PAIRS_WAVES
    }
}

/// Whether the work units of the pairs kernel `spec` are shallow (fewer than [`PAIRS_KTILES`]
/// k-tiles) and fill from one to [`PAIRS_WAVES`] waves of `clusters` clusters of two. H200, the
/// tiles in pairs against the same tiles alone as dispatch ran them, `bench_report` of both builds
/// in one device call, two rounds each (an interleaved run of forced kernels favours whichever
/// follows its own launch; docs/hopper-log.md, session 52): 3072³ (128×192, 2.9 waves)
/// 1.014–1.038×, 4096²×128 16-bit C (128×256, 3.9 waves) 1.039–1.078× and f32 C 1.00×, 4096²×64
/// 0.97–1.03×, 2560³ (1.5 waves) 1.002–1.007×. A first rule from half a wave to 20 waves lost on
/// less than a wave (1792³, 2048³: 49 and 64 units, 0.97–0.99×) and on 15.5 waves (8192²×64/128,
/// 0.955–1.004×). A call of one row of tiles (`m` ≤ 128) has its units' second CTAs idle, and the
/// time model, counting units on clusters, ranks the pairs below the tiles alone there.
fn shallow_units_on_few_waves(spec: &KernelSpec, p: &Problem, clusters: u64) -> bool {
    let units = p.work_items(spec.unit_tile());
    p.k_tiles(spec.block) < PAIRS_KTILES && (clusters..=PAIRS_WAVES * clusters).contains(&units)
}

/// Waves of clusters of two from which the tiles in pairs run a call of deep 16-bit units
/// ([`deep_waves`]), and up to which they run one of shallow units
/// ([`shallow_units_on_few_waves`]).
pub(crate) const PAIRS_WAVES: u64 = 8;

/// k-tiles per work unit from which a call's units are deep ([`deep_units_on_enough_waves`]), and
/// below which shallow ([`shallow_units_on_few_waves`]).
pub(crate) const PAIRS_KTILES: u64 = 64;

/// Whether `pairs` is the kernel of tile `alone` in pairs of CTAs sharing B ([`Family::TmaPairs`]):
/// the same block, stages, types and layout.
pub(crate) fn pairs_of(pairs: &KernelSpec, alone: &KernelSpec) -> bool {
    pairs.family == Family::TmaPairs
        && alone.family == Family::TmaWarpSpecialized
        && (pairs.block, pairs.stages) == (alone.block, alone.stages)
        && (pairs.input, pairs.output, pairs.math) == (alone.input, alone.output, alone.math)
        && (pairs.trans_a, pairs.trans_b) == (alone.trans_a, alone.trans_b)
        && pairs.swaps_ab() == alone.swaps_ab()
}

/// Whether the stream kernel `spec` is a candidate for `p`: a call of at most its tile's rows (each
/// tile row of C reads all of B) whose A or B is not 16-byte aligned. There the tensor-core
/// kernels read that operand element by element, or the call is staged (a copy of B costs twice
/// B's traffic), while the stream kernels read it as it lies with aligned 16-byte loads (H200:
/// 1×32001×4096 f16 2.25× cuBLAS, staged 0.55×; docs/unaligned-log.md, attempt 9). On aligned
/// calls the `cp.async`-pipelined tiles measured faster (the stream kernels have one batch of
/// loads in flight per warp at a time: 0.53–1.01× those tiles on the decode suite).
pub(crate) fn streams(spec: &KernelSpec, p: &Problem) -> bool {
    let aligned = |op: &crate::problem::OperandLayout| op.alignment.all();
    p.gemm().m as u64 <= u64::from(spec.block.m) && !(aligned(p.a()) && aligned(p.b()))
}

/// Whether `p` is a batch of short work items, each at most 128×128 of C and 128 deep: there the
/// ping-pong tiles ([`Family::TmaPingPong`]) are candidates, in place of the cooperative `wgmma`
/// tiles of the same math, and nowhere else. A short item is mostly fill and epilogue; a
/// cooperative tile's two consumers store it together, while a ping-pong consumer stores its item
/// as the other computes the next. Measured on the H200 (same run, ours / cuBLAS;
/// docs/hopper-log.md, "Ping-pong"): 1000 items of 64³ f16 0.87× on the 64×64 `mma.sync` tile
/// (0.78× on the 64-row `wgmma` tile) → 0.96× on the 64×64 ping-pong tile, TF32 `nt` 0.81× →
/// 0.99×; 512 items of 128×128×64 f16 0.86× → 0.90–0.92×, TF32 0.99× → 1.05×; 256 of
/// 128×128×128 f16 `nt` 0.83× → 0.98×. On 512² items and single products of small k
/// (8192²×64, 8192²×128) they ran 0.85–0.99× the cooperative 128×256 tile.
pub(crate) fn short_items(p: &Problem) -> bool {
    let g = p.gemm();
    g.batch > 1 && g.m <= 128 && g.n <= 128 && g.k <= 128
}

/// Whether the ping-pong kernel `spec` may serve a single product `p` ([`one_wave_of_tiles`]) by
/// its math: a 16-bit one always; TF32 beyond 64 rows and columns ([`thin`]), but the 64-wide
/// tile only where both operands are K-major (`nt`) or `k` is at most 1024 (in the other layouts
/// its producer transposes an operand, whose cost grows with `k`).
///
/// H200, TF32, the committed build and this rule's in one call, two rounds (session 47): 576³ to
/// 704³ 1.11–2.16× (the 16- and 32-row `mma.sync` tiles or the 128×64 tile → 64×64 ping-pong;
/// 640³ `nt` 27.3 → 53.0 TFLOPS), 768³ to 1024³ `nt`/`tn`/`tt` 1.09–1.12× (→ 64×128 ping-pong),
/// 320×2048×2048 `nt` 93.8 → 139.2, 4096×256×4096 `nt` 219.8 → 256.9; but the 64×64 tile at 256
/// rows or columns of 2048 deep ran 0.94–0.96× (`nn`), 0.79–0.80× (`tn`), 0.92–0.93× (`tt`) the
/// 128×64 tile under stream-K, which the time model ranked below it.
fn single_product_math(spec: &KernelSpec, p: &Problem) -> bool {
    if sixteen_bit(spec.math) {
        return true;
    }
    let g = p.gemm();
    let k_major = !g.trans_a && g.trans_b;
    spec.math == Math::MmaTf32 && !thin(p) && (spec.block.n > 64 || k_major || g.k <= 1024)
}

/// Whether `p` is a single product whose tiles of the ping-pong kernel `spec` fill one wave of
/// `sm_count` SMs at least 90% (and no more; with more than 64 rows and columns, [`thin`], at least
/// its [`full_fill_percent`](super::full_fill_percent): half, a quarter for TF32 at most 512 deep):
/// there that ping-pong tile (of a math [`single_product_math`] admits) is a candidate beside the
/// cooperative tiles (filling the wave, each CTA computing one whole tile, no cut along K), where
/// the cooperative tiles' half as many items of twice the size leave half the SMs idle or share
/// their k-tiles out (stream-K). The model then ranks them ([`cost`](super::cost)). Only a tile
/// that fills the wave itself: the 64×128 ping-pong tile's 64 items at 64×8192×8192, which the
/// model would cut in two k-slices (a cut the tuning runs do not measure), ran 0.89× cuBLAS against
/// the 64×64 tile's 0.93–0.94× (f16, bf16; session 30).
///
/// Measured on the H200 (f16, kernels forced): 64×8192×8192 215–220 TFLOPS on the 64×64
/// ping-pong tile against 187–192 on the 64×128 tile under stream-K (cuBLAS 227–231),
/// 8192×64×8192 211–215 against 191–196 on the 128×64 tile (cuBLAS 200–204) (session 29); with
/// both dimensions above 64 (session 40, since the ping-pong consumers take their turns, session
/// 30): 128×4096×4096 217.9 on the 64×64 tile (128 tiles) against 192.8 on the 128×64 tile under
/// stream-K (`nt` 216.8 against 193.7; cuBLAS 244–248), 256×4096×4096 `nt` 409.8 on the 64×128
/// ping-pong tile (128 tiles) against 379.1 (`nn` 386.8 against 374.4). TF32's measurements:
/// [`single_product_math`].
/// Half a wave beyond 64 rows and columns (session 46, both builds in one call): 192×4096×4096
/// `nn` / `nt` 299 / 322 on the 64×128 ping-pong tile (96 tiles, 73%) against 222 / 216 on the
/// 128×64 tile, 128×6144×4096 302 against 245 (128×128 under stream-K), 768³ 102 against 97.
pub(crate) fn one_wave_of_tiles(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let least = if thin(p) {
        THIN_WAVE_PERCENT
    } else {
        u64::from(super::full_fill_percent(spec, p))
    };
    p.gemm().batch == 1 && fills_wave(spec, p, sm_count, &(least..=100))
}

/// Whether `spec`'s tiles of `p` fill a share of a wave of `sm_count` SMs (percent of the SMs, one
/// tile each) within `percent`.
fn fills_wave(
    spec: &KernelSpec,
    p: &Problem,
    sm_count: u32,
    percent: &core::ops::RangeInclusive<u64>,
) -> bool {
    let sms = u64::from(sm_count);
    (percent.start() * sms..=percent.end() * sms).contains(&(100 * p.tiles(spec.c_tile())))
}

/// The share of a wave, in percent, that tiles of a thin call ([`thin`]) must fill to count as a
/// wave of them ([`one_wave_of_tiles`], [`few_rows_over_waves`]).
const THIN_WAVE_PERCENT: u64 = 90;

/// Whether `spec` is a 32-wide ping-pong tile (`*_64x32x64_w64x32_s16_tma_pp`): a decode tile
/// whose CTAs each stream their columns of B over all of k, admitted only where that was measured
/// to pay ([`decode_rows`]) and never cut along K (`splitk::choose`).
pub(crate) fn streams_whole_k(spec: &KernelSpec) -> bool {
    spec.family == Family::TmaPingPong && spec.block.n < 64
}

/// Whether the swapped 32-wide ping-pong tile `spec` (`nn_swap` or `nt_swap`, 32 rows × 64 columns
/// of C a tile) serves `p`, of 8 to 32 rows, on at least 45% of a wave of `sm_count` SMs and at
/// most one: each of its CTAs streams 64 columns of the weights over all of k, unsplit, where
/// dispatch's other picks split k on 64- or 16-row tiles. H100 (docs/decode-log.md, session 68;
/// forced beside dispatch, two rounds): 32×4096×4096 `nn` 1.20–1.21× (64 tiles), 24 and 17 rows
/// 1.20–1.27×, 16 and 8 rows 1.08–1.11× the 16-row `mma.sync` tile split 8 ways, 32×5120×4096 and
/// 32×6144×4096 1.12–1.25×, 32×4096×14336 1.09–1.12×, 32×4096×1024 1.31–1.33×; through dispatch
/// (session 71) 30 `nn` rows of 8–64 85.1% → 97.6% of cuBLAS. `nt_swap`, H100 (session 71): 8–32
/// rows 1.02–1.36× the unswapped `nt` tile in the same process. Under one wave and from 1024 deep
/// they take the call ([`streams_few_rows`]); the splitter never cuts them (`splitk::choose`).
///
/// Under 8 rows the swapped tile serves half a wave only 1024 to 2048 deep (H100, session 72,
/// forced beside dispatch's pick, the 16-row `mma.sync` tile split 4 to 8 ways, four rounds in one
/// process): 1–4 rows × 4096×1024 `nn` and `nt` 1.03–1.11× (geomean 1.08), × 4096×4096
/// 0.96–1.06× (1.00), × 6144×4096 0.93–1.03× (0.97), × 4096×14336 0.91–1.00× (0.95): deep, the
/// split tile's 240–256 CTAs read the weights faster than 64 or 96 streaming ones. Shallower than
/// 1024 they were not measured there and are no candidates.
///
/// The TF32 `nt_swap` tile (64×32×32; H100, session 73, forced beside dispatch's pick, two or
/// three rounds): 8–32 rows × 4096×4096 1.04–1.17× (0.87–0.95× → 0.98–1.02× cuBLAS), ×
/// 4096×14336 1.00–1.04×, × 4096×1024 and × 4096×2048 1.04–1.32×, × 6144×4096 0.98–0.99× at 8
/// rows and 1.03× at 32; 1–7 rows × 4096×1024 1.00–1.17×, × 4096×2048 0.97–1.06×.
fn few_rows_on_half_a_wave(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let g = p.gemm();
    let rows = (8..=32).contains(&g.m) || (g.m < 8 && (1024..=2048).contains(&g.k));
    spec.swaps_ab() && rows && fills_wave(spec, p, sm_count, &(45..=100))
}

/// Whether the swapped 32-wide ping-pong tile `spec` (`nt_swap`) serves `p`, an `nt` call (the
/// weights stored n×k, as `torch.nn.Linear` keeps them) of 1 to 32 rows whose tiles fill 90% of a
/// wave of `sm_count` SMs or more, however many waves: each CTA streams 64 rows of the weights
/// over all of k. H100 (docs/decode-log.md, session 72; forced beside dispatch's pick in one
/// process), 1–16 rows against the 16-row `mma.sync` tile split 1 to 4 ways (four rounds):
/// × 8192×8192 (128 tiles) 1.03–1.09× (geomean 1.05), × 14336×4096 (224) 1.00–1.10× (1.06),
/// × 28672×8192 (448) 0.98–1.03× (1.02); 17–32 rows against the 64×128 `wgmma` tile (two rounds):
/// × 14336×4096 1.01–1.04× (1.03), × 28672×8192 (under stream-K) 1.01–1.04× (1.03),
/// × 128256×4096 (2004 tiles) 1.01–1.02× (1.02). `nn` calls of those shapes ran 0.90–1.04× (0.96)
/// at 1–16 rows: they keep the time model's pick. From 1024 deep these calls take the tile
/// ([`streams_few_rows`]). The TF32 `nt_swap` tile (64×32×32, session 73, H100, forced beside the
/// 16-row `mma.sync` tile or the 64×128 `wgmma` tile, two or three rounds): × 14336×4096
/// 1.03–1.09× at 1–8 rows and 0.98–1.03× at 16–32, × 8192×8192 1.03–1.10×, × 128256×4096
/// 0.99–1.04×, × 28672×8192 0.96–1.04× (1–2 rows 0.96–1.00: as the 16-bit tile there, left in,
/// within the ±3% that one kernel's time moves from process to process).
fn few_rows_over_waves(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let g = p.gemm();
    let tiles = p.tiles(spec.c_tile());
    let sms = u64::from(sm_count);
    spec.swaps_ab()
        && !g.trans_a
        && g.trans_b
        && g.m <= 32
        && 100 * tiles >= THIN_WAVE_PERCENT * sms
}

/// Whether the swapped 32-wide ping-pong tile `spec` takes `p` over every other candidate
/// ([`select`](super::select)), at least 1024 deep: a decode call of 8 to 32 rows (fewer, up to
/// 2048 deep) on half a wave of its tiles or more ([`few_rows_on_half_a_wave`]) but under one
/// ([`one_wave_of_tiles`]), or an `nt` call of 1 to 32 rows on 90% of a wave or more
/// ([`few_rows_over_waves`]). There every CTA streams 64 columns of the weights over all of k and
/// the call is bound by reading them, which the time model (the busiest SM's multiply-adds over a
/// compute rate) does not count: it ranks a 64×128 tile that computes 64 rows for the call's 32,
/// split along K and summed in a second launch, or the 16-row `mma.sync` tile split 2 to 8 ways,
/// ahead of it, where the swapped tile, forced, ran 1.08–1.33× faster at 4096 columns (64 tiles,
/// H100, the table above [`few_rows_on_half_a_wave`]) and 0.98–1.10× on `nt` calls of one to
/// fifteen waves (the table above [`few_rows_over_waves`]). `nn` calls of a whole wave or more and
/// calls under 1024 deep are left to the time model: 64×4096×512 ran 0.98–0.99× the `mma.sync`
/// tile. So are TF32 calls of 33 to 64 rows on one wave of the swapped tile (H100, session 73):
/// through dispatch 64×4096×4096 `nt` ran 1.10× the 64×128 tile split 4 ways but 64×4096×14336
/// 0.90×, and forced at 33–64 rows × 4096×4096 0.88–1.10× by run; the model keeps the split tile.
/// 16-bit calls of 33 to 64 rows, 1024 to 2048 deep, on 36% to 90% of a wave of the tile, and of
/// 65 to 128 rows, 1024 to 4096 deep, on 54% of a wave to one, take it too
/// ([`rows_over_32_on_swapped_tiles`]).
pub(crate) fn streams_few_rows(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    streams_whole_k(spec)
        && ((decode_rows(p)
            && p.gemm().k >= 1024
            && ((few_rows_on_half_a_wave(spec, p, sm_count)
                && !one_wave_of_tiles(spec, p, sm_count))
                || few_rows_over_waves(spec, p, sm_count)))
            || rows_over_32_on_swapped_tiles(spec, p, sm_count))
}

/// Whether the swapped 32-wide ping-pong tile `spec` (16-bit, 32 rows × 64 columns of C a tile)
/// takes `p`, a single product of 33 to 128 rows (two to four rows of its tiles), by the
/// [`SWAPPED_BANDS`] row band it falls in: its depth and the share of a wave of `sm_count` SMs its
/// tiles fill. Each CTA streams 64 columns of the weights over all of k, unsplit, in one launch,
/// where the time model's pick mostly splits k 2 to 8 ways on the 16- or 32-row `mma.sync` tiles
/// or the 64×128, 128×64 and 128×128 `wgmma` tiles and sums the slices in a second launch. Deep
/// calls on few tiles are left to those splits: their 200–400 CTAs read the weights faster than
/// 48 to 128 streaming ones. Not where TMA would read A or B off 32-byte sectors (unmeasured).
fn rows_over_32_on_swapped_tiles(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let g = p.gemm();
    let in_band = |b: &SwappedBand| {
        b.rows.contains(&g.m)
            && b.depth.contains(&g.k)
            && fills_wave(spec, p, sm_count, &b.wave_percent)
    };
    spec.swaps_ab()
        && sixteen_bit(spec.math)
        && g.batch == 1
        && !tma_reads_off_sectors(p)
        && SWAPPED_BANDS.iter().any(in_band)
}

/// Calls of a band of rows that the swapped 32-wide tile takes ([`rows_over_32_on_swapped_tiles`]):
/// their depths, and the shares of a wave (percent) their tiles fill.
struct SwappedBand {
    rows: core::ops::RangeInclusive<usize>,
    depth: core::ops::RangeInclusive<usize>,
    wave_percent: core::ops::RangeInclusive<u64>,
}

/// The row bands of [`rows_over_32_on_swapped_tiles`], measured on an H100 (sessions 76 and 77,
/// docs/decode-log.md; `nn` and `nt`, f16 and bf16).
///
/// 33–64 rows (two rows of tiles), 1024–2048 deep, from 48 tiles (36% of 132 SMs: 1473 columns)
/// to 90% of a wave (from there [`one_wave_of_tiles`] admits the tile to the time model): forced
/// beside dispatch's pick in one process, 33, 40, 48, 56, 64 rows × 1536, 2048, 2560, 3072 columns
/// (48–96 tiles), f16, 80 calls 1.348× (1.12–1.53×; 0.650 → 0.877× cuBLAS); 4096 deep 1.085×
/// (0.97–1.27×), 8192 deep 0.924× (0.79–1.15×), left out. As builds (session 77, before and
/// after the band alternated twice in one call): 120 calls of 1536, 2048, 3072 columns, f16 and
/// bf16, 1.340× (1.16–1.51×, none under 1.0×; 0.653 → 0.867× cuBLAS).
///
/// 65–128 rows (three or four rows of tiles), 1024–4096 deep, from 72 tiles (54%: 65–96 rows ×
/// 1473 columns, 97–128 rows × 1089) to one wave: main and a build taking the tile from 1024 deep
/// with no upper bound alternated twice in one device call, 65–128 rows × 1024–2560 columns ×
/// 1024–8192 deep: 336 calls moved, 1.161×; 1024 deep 1.346×, 2048 1.211×, 4096 1.136×, 8192
/// 0.982× (1536–2048 columns 0.87–0.94×), hence the depth bound. This band's build against main,
/// the same way: 252 moved calls of 1536–2560 columns 1.229× (0.91–1.54×), 0.69 → 0.85× cuBLAS;
/// 180 of 97–128 rows × 1152–1408 columns 1.236× (0.85–1.44×; `nn` f16 4096 deep 0.886×, its
/// `nt` and bf16 twins 1.34–1.37×). At 1024 columns (48 tiles of 65–96 rows, 36%) the tile,
/// forced, lost 4096 deep (0.70–0.78× cuBLAS against 0.72–0.96×).
///
/// 97–128 rows past 2048 deep only from 90% of a wave: since dispatch prices the slices a split
/// within clusters launches (session 82), the time model's pick there, the 128×64 tile split in
/// clusters of 4, ran faster on fewer tiles. Main and a build whose 65–128-row band ended at 2048
/// deep alternated twice in one device call (H100, session 83), 65–128 rows × 1152–2560 columns ×
/// 4096, `nn` and `nt`, f16 and bf16: 112 and 128 rows × 1152–1536 columns (72–96 tiles) 1.05–1.16×
/// (24 calls), × 2048 (128 tiles, 97%) 0.94–0.96×; 65–96 rows 0.82–1.03× (to the `mma.sync` tiles
/// split, or the 128×64 tile split 2 ways), so they keep the band. 2049–4095 deep is unmeasured:
/// the band's 2048-deep calls gained 1.21× in session 77.
const SWAPPED_BANDS: [SwappedBand; 4] = [
    SwappedBand {
        rows: 33..=64,
        depth: 1024..=2048,
        wave_percent: 36..=THIN_WAVE_PERCENT,
    },
    SwappedBand {
        rows: 65..=96,
        depth: 1024..=4096,
        wave_percent: 54..=100,
    },
    SwappedBand {
        rows: 97..=128,
        depth: 1024..=2048,
        wave_percent: 54..=100,
    },
    SwappedBand {
        rows: 97..=128,
        depth: 2049..=4096,
        wave_percent: THIN_WAVE_PERCENT..=100,
    },
];

/// Whether the 64×64 ping-pong tile `spec` takes `p` over every other candidate
/// ([`select`](super::select)): a single 16-bit product of 97 to 128 rows in `nn` or `nt`, at
/// least 4096 deep, whose 64×64 tiles fill 90% of a wave of `sm_count` SMs or more and at most one
/// (4096 columns: 128 tiles). Each CTA streams its 64 columns of the weights over all of k,
/// unsplit, and the call is bound by reading them (at most 128 flops a byte of 16-bit weights,
/// under `wgmma`'s rate over the bandwidth), which the time model does not count: it ranks the
/// 128×128 or 128×256 tile split 4 or 8 ways ahead (as many multiply-adds a CTA at a faster compute
/// rate), whose slices are summed in a second launch. H100, session 74 (e6f01e7 and this rule
/// alternated twice in one device call, 104–128 rows × 4096 × 8192 and 14336 deep, `nn`, `nt`,
/// f16 and bf16; docs/decode-log.md): 1.01–1.04× by geomean per row count (0.96–1.10×), e.g.
/// 112×4096×8192 0.90–0.95 → 0.99–1.02× cuBLAS; 16-bit calls 4096 deep ran on this tile already
/// (the model's pick); at 104–112 rows 14336 deep it lost 2–3%. At 96 rows it lost (an earlier
/// form of the rule, same session: 96×4096×14336 16-bit 0.94–0.99 → 0.83–0.85× cuBLAS), so it
/// starts at 97. TF32 was left out: `nt` 96 rows 1.05–1.12 → 0.83–0.87×, 128 rows 0.97–1.04× the
/// model's pick; `nn` ran 0.76–0.81× forced (the register-A 128×128 tile split: 0.94–1.03×). Not
/// where TMA would read A or B off 32-byte sectors (unmeasured; the 128×256 tile alone keeps
/// such calls, [`pairs_fill`]).
pub(crate) fn ping_pong_streams_one_wave(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let g = p.gemm();
    spec.family == Family::TmaPingPong
        && (spec.block.m, spec.block.n) == (64, 64)
        && !spec.swaps_ab()
        && sixteen_bit(spec.math)
        && !g.trans_a
        && g.batch == 1
        && (97..=128).contains(&g.m)
        && g.k >= 4096
        && !tma_reads_off_sectors(p)
        && fills_wave(spec, p, sm_count, &(THIN_WAVE_PERCENT..=100))
}

/// Whether the swapped 128×32 tile `spec` (`*_swap_128x32x64_w64x32_s10_tma`: 128 weight columns
/// × 32 rows of C a tile, both consumers on every tile, 20 KiB a k-tile) is a candidate for `p`: a
/// single product of 17 to 128 rows at least 4096 deep ([`swapped_128x32_deepest`] past 64 rows)
/// whose tiles fill at most a fifth of a wave of `sm_count` SMs (few weight columns: up to 26
/// tiles at 132 SMs, e.g. 24 at 32 rows × 3072, 64 × 1536 or 96 × 1024), read by TMA on 32-byte
/// sectors. There the time model ranks it (rate 40, `super::rates`) and splits it along K, where
/// the other rules give the 64×128 tile split 4 to 8 ways (64 rows of work for 17 to 64 rows),
/// the 16- and 32-row `mma.sync` tiles split 11 to 22 ways or the 128×64 tile split 4 to 8 ways
/// (65 to 128 rows). H100 (docs/decode-log.md; main against this rule alternated in one process,
/// f16 and bf16, `nn` and `nt`): sessions 80 and 81, 17 to 64 rows × 4096 and 8192 deep, 12 to 24
/// tiles 1.04–1.27× (20 to 64 rows × 1536, 20 to 32 rows × 2048 and 3072), 32 tiles (40 to 64
/// rows × 2048, split 2 ways) 0.88–1.04×, and 96 (96×4096×4096) 0.83–0.96×: left out; session
/// 84, 65 to 128 rows, 12 to 24 tiles (512 columns, 1024 up to 96 rows): 4096 deep 1.01–1.17×,
/// 8192 deep 0.98–1.19× up to 96 rows and 0.91–1.03× past them; 32 to 48 tiles (1024 columns past
/// 96 rows, 1536) 0.76–1.00×.
fn few_weight_columns_deep(spec: &KernelSpec, p: &Problem, sm_count: u32) -> bool {
    let g = p.gemm();
    g.batch == 1
        && (17..=128).contains(&g.m)
        && (4096..=swapped_128x32_deepest(g.m)).contains(&g.k)
        && !tma_reads_off_sectors(p)
        && fills_wave(spec, p, sm_count, &(0..=20))
}

/// The deepest call of `m` rows the swapped 128×32 tile takes ([`few_weight_columns_deep`]):
/// any depth up to 64 rows, 8192 up to 96 and 4096 past them. Deeper, the calls of 65 to 128
/// rows lost on it (H100, session 84: 97 to 128 rows × 512 × 8192 `nn` 0.91–0.94×; a 72-row
/// call 14336 deep on 512 columns, its padded `wgmma` tiles then ranked by the time model,
/// took the 128×192 tile split 32 ways at 0.84×).
fn swapped_128x32_deepest(m: usize) -> usize {
    match m {
        0..=64 => usize::MAX,
        65..=96 => 8192,
        _ => 4096,
    }
}

/// Whether `p` is a single product of at most 64 rows of C (LLM decode): the calls the 32-wide
/// ping-pong tiles (`*_64x32x64_w64x32_s16_tma_pp`, 16-bit, K-major B, and `nn`, `nt` swapped) were
/// measured on and serve, one wave of 128 tiles (at 4096 columns; swapped, 32 rows × 64 columns of
/// C each, also at ≤ 32 rows and 8192 columns), each CTA streaming its columns of B over all of k,
/// unsplit (docs/decode-log.md, the builds with and without them alternated in one call). H200,
/// session 66: 64×4096×4096 `nt` f16 / bf16 125.3 / 126.2 TFLOPS against 117.9 / 118.9 on the
/// 64×128 tile split in two, `tt` 125.3 / 123.8 against 118.6 / 118.3, 48×4096×4096 `nt` 91.2 /
/// 91.5 against 88.8 / 90.4. H100, session 68, `nn` swapped: 64×4096×4096 1.09–1.19× the split
/// tile, 48×4096×4096 1.07–1.12×, 32×8192×8192 1.04× the 64×64 ping-pong tile, 32×8192×28672
/// 1.07× the streamed 64×128 tile, 64×4096×512 0.98–0.99× the 16-row `mma.sync` tile. Elsewhere
/// they are no candidates: with more rows they ran 0.49–0.60× cuBLAS (128×4096×4096,
/// 128×4096×14336 `nt`, forced), 64×4096×11008 `nt` 0.94–0.96× the split tile (which the time
/// model keeps), and as short batched items they are unmeasured.
fn decode_rows(p: &Problem) -> bool {
    let g = p.gemm();
    g.batch == 1 && g.m <= 64
}

/// Whether `p` has at most 64 rows or columns of C (LLM decode and its transpose): there dispatch
/// keeps the rules measured on the decode suite (docs/decode-log.md) where other calls let the
/// time model rank more of the persistent tiles ([`select`](super::select),
/// [`one_wave_of_tiles`]).
pub(crate) fn thin(p: &Problem) -> bool {
    let g = p.gemm();
    g.m <= 64 || g.n <= 64
}
