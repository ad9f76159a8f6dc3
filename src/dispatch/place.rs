//! A candidate's place in [`select`](super::select)'s order, before the time model: the share of
//! the SMs its grid keeps busy ([`fill_percent`], ranked as [`fill_tier`]) and the area it loses
//! to padding ([`padding_class`]).

use crate::problem::Problem;
use tcgemm_kernels::config::{Family, KernelSpec, Math};

use super::KSplit;

/// Percent (0..=100) of the device's SMs that `spec`'s grid for `p` keeps busy, when the call is
/// cut along K as `cut` says:
/// - a kernel of one block per tile (and slice): its first wave (the block scheduler spreads
///   blocks over idle SMs before doubling up);
/// - a persistent kernel: every wave (`work / (⌈work / SMs⌉ · SMs)`, each CTA looping over work
///   items: the last wave's idle SMs cost as much as the first's), or 100 under stream-K, which
///   evens out the waves. Except the 3xTF32 kernels ([`Math::MmaTf32x3`]) with fewer work items
///   than SMs: there stream-K cuts every tile's k-loop among two or more CTAs, and their fill
///   counts as their items' (H200, 3xTF32 1024³: the 128×192 tile's 48 items streamed ran
///   32.5 TFLOPS against the 128×128 tile's 39.0 and the 64×128 tile's 128 unsplit 42.0,
///   docs/f32-log.md attempt 5c; the other maths' tiles were not measured so).
pub(crate) fn fill_percent(spec: &KernelSpec, p: &Problem, sm_count: u32, cut: KSplit) -> u32 {
    // the model's slices (`KSplit::spread`)
    let slices = cut.spread.max(1);
    let blocks = p
        .tiles(spec.c_tile())
        .saturating_mul(p.gemm().batch.max(1) as u64)
        .saturating_mul(u64::from(slices));
    if spec.family.persistent() {
        if cut.stream_k && spec.math == Math::MmaTf32x3 && blocks < u64::from(sm_count) {
            return (blocks * 100 / u64::from(sm_count.max(1))) as u32;
        }
        if cut.stream_k {
            return 100;
        }
        return crate::streamk::wave_efficiency(blocks, sm_count) as u32;
    }
    (u128::from(blocks) * 100 / u128::from(sm_count.max(1))).min(100) as u32
}

/// [`fill_percent`] as [`select`](super::select) ranks it: 100 for a kernel that keeps at least
/// [`full_fill_percent`] of the SMs busy (all such kernels fill equally well), else the percent.
pub(crate) fn fill_tier(spec: &KernelSpec, p: &Problem, sm_count: u32, cut: KSplit) -> u32 {
    match fill_percent(spec, p, sm_count, cut) {
        f if f >= full_fill_percent(spec, p) => 100,
        f => f,
    }
}

/// The fill from which [`fill_tier`] counts a kernel as filling the SMs: 75% for a kernel of one
/// block per tile, 50% for a persistent (`wgmma`) kernel, 25% for the TF32 ping-pong tiles.
///
/// A persistent kernel's fill counts all its waves, and the time model ([`cost`](super::cost),
/// next in [`select`](super::select)'s order) counts what its idle SMs cost (the busiest CTA's
/// k-tiles), so among persistent kernels from half a wave on the model decides, not the fill.
/// Against the `mma.sync` tiles a `wgmma` tile half filling the SMs still finishes first: it
/// computes about twice as fast per SM (H200, f16 4096³: 753 against 449 TFLOPS; TF32 about 400 against 200). Measured on
/// the H200 (f16, every kernel forced, same run; docs/hopper-log.md, session 46): 1536³ on the
/// 128×192 tile (96 items, 73% of a wave) 358 TFLOPS `nn` / 353 `nt` against 312 / 313 on the
/// 128×128 tile under stream-K (144 items shared, full); 1792³ `nn` on the 128×256 tile (98 items,
/// 74%) 432 against 413 on the 128×64 tile (392 items, 99%).
///
/// TF32 `mma.sync` runs at half the 16-bit rate, so at most 512 deep a TF32 ping-pong tile (one
/// 64×64 or 64×128 item per CTA, [`admission`](super::admission)) beats it from a quarter of a
/// wave; in `tn`, whose producer transposes both operands, from 257 deep
/// ([`quarter_wave_ping_pong`]).
pub(crate) fn full_fill_percent(spec: &KernelSpec, p: &Problem) -> u32 {
    match spec.family {
        Family::TmaPingPong if quarter_wave_ping_pong(spec, p) => 25,
        f if f.persistent() => PERSISTENT_FILL_PERCENT,
        _ => 75,
    }
}

/// The fill from which a persistent (`wgmma`) kernel counts as filling the SMs
/// ([`full_fill_percent`]); the staging model counts a staged call at its flop rates from it too
/// (`staging::model::narrow_32_floor`).
pub(crate) const PERSISTENT_FILL_PERCENT: u32 = 50;

/// Whether the ping-pong kernel `spec` fills the SMs for `p` from a quarter of a wave
/// ([`full_fill_percent`]): TF32, `k` at most 512, and in `tn` (A and B MN-major, both transposed
/// by the producer) more than 256.
///
/// H200, TF32, dispatch's picks before and after in one call, two rounds (docs/hopper-log.md,
/// session 48): the 284 calls of 192–1024 rows and 256–1024 columns at most 512 deep whose pick
/// moved, all from the 16-row `mma.sync` tile (unsplit) to the 64×64 ping-pong tile (33–66 tiles),
/// 1.18× by geomean (ours / cuBLAS 0.81 → 0.92); `nn`/`nt`/`tt` 1.00–1.74× (512³ `nt` 16.9 →
/// 28.3 TFLOPS), `tn` 1.06–1.10× at 512 deep but 0.99–1.02× at 256 and 0.94–0.97× at 128; with
/// `tn` from 257 deep, the 240 calls that move 1.22× (0.998–1.736). Deeper
/// calls split K on the other tiles (512×512×2048: the 64×64 ping-pong tile forced 0.66–0.91×);
/// under a quarter of a wave (256³: 16 tiles) the `mma.sync` tile keeps them.
fn quarter_wave_ping_pong(spec: &KernelSpec, p: &Problem) -> bool {
    let g = p.gemm();
    let both_mn_major = g.trans_a && !g.trans_b;
    spec.math == Math::MmaTf32 && g.k <= 512 && !(both_mn_major && g.k <= 256)
}

/// Calls of these many rows of C count their rows as the whole tile's on a `wgmma` tile of at
/// most 64 rows ([`padding_class`]), in every math. (3xTF32, whose calls take its own tiles only,
/// all `wgmma`, picks its 64-row tile at 16 rows either way: its rows fill it with less padding
/// than the 128-row ones.)
///
/// At 16 rows the 16-row `mma.sync` tile (split along K, the slices summed in its own tail) beats
/// the 64-row `wgmma` tile: 16-bit on the H200, f16 decode rows 0.82–0.96× → 0.92–1.02× cuBLAS,
/// bf16 0.82–0.94× → 0.87–1.00× (the ten layer × layout rows of each, same run; docs/decode-log.md,
/// "16 rows of 16-bit inputs"); TF32 on an H100 (session 73, both builds alternated twice in one
/// device call), 34 calls of 16 rows in all four layouts 1.078× by geomean (0.93–1.38×):
/// 16×4096×4096 `nn` 0.90 → 1.04× cuBLAS, `tn` 0.89 → 1.04×, 16×2048×4096 `tn` 0.81 → 1.10×; it
/// lost in `tt` at 14336×4096 and 28672×8192 (0.93–0.97×) and by 1% at 28672×8192 `tn` and
/// 16×2048×4096 `nt` (a second call: 28 moved of 36, 1.083×). TF32 `nt` calls of 16 rows that
/// fill half a wave of the swapped 32-wide tile take that tile first (`admission::streams_few_rows`).
/// At 32 rows the two tiles tie within noise (f16 and bf16 0.81–1.03× either way), so those keep
/// the `wgmma` tile, except TF32 `nn` calls ([`FREE_WGMMA_ROWS_TF32_NN`]).
const FREE_WGMMA_ROWS: core::ops::RangeInclusive<u64> = 17..=64;

/// [`FREE_WGMMA_ROWS`] of a single TF32 `nn` product whose only math is TF32 (`Precision::Tf32`):
/// its 17–32 rows take the 32-row `mma.sync` tile split along K, which streams the weights faster
/// than the 64-row `wgmma` tile split four ways (TF32 has no swapped `nn` tile: its `wgmma` takes
/// an M-major operand from registers only). H100, both rules alternated twice in one device call
/// (docs/decode-log.md): session 73, 17–32 × 4096×4096 `nn` 1.10–1.11× (32 rows 0.89–0.90 →
/// 0.99–1.00× cuBLAS), × 4096×14336 1.06–1.09×, × 4096×1024 1.36–1.41×, × 14336×4096 and
/// × 28672×8192 0.98–1.03×; session 74, 27 calls of 17, 24 and 32 rows × nine weight shapes
/// 0.91 → 1.00× cuBLAS by geomean. The other layouts lost on the wide layers (`tn` 28672×8192
/// 0.87–0.90×, `tt` 14336×4096 0.89–0.92×), so they keep the `wgmma` tile. With exact FP32 among
/// the call's maths (`Precision::Default` on a context that allows TF32) the rows stay free: the
/// FFMA tiles outrank the TF32 `mma.sync` tiles and are compute-bound from about 32 rows
/// (32×28672×8192 exact 28.4 TFLOPS against TF32's 64.0, H200, docs/benchmarks-decode.md).
const FREE_WGMMA_ROWS_TF32_NN: core::ops::RangeInclusive<u64> = 33..=64;

/// Rows of C past 64 that [`padding_class`] counts as free on a `wgmma` tile of at most 128 rows
/// (one row of 128-row tiles, two of 64-row ones) in a single product (not a batch: short
/// batched items are not bound by reading weights, and were not measured so), in every math. It
/// moves calls of 65–90 rows to class 0 on such tiles, and of 91–127 rows whose columns pad too
/// (from 91 rows a 128-row tile alone pads less than √2-fold). A call of at most 128 rows whose
/// weights dominate its bytes is bound by reading them (at most 128 flops a byte of 16-bit
/// weights, 64 of f32), so the padded rows cost no time, while the 16- and 32-row `mma.sync`
/// tiles that pad less read the weights once per 16 or 32 rows and compute at half `wgmma`'s
/// rate or less. H100, session 74 (e6f01e7 and this rule alternated twice in one device call; 65,
/// 72 and 88 rows × 4096×4096, 4096×8192, 4096×14336, 14336×4096, `nn` and `nt`, f16, bf16 and
/// TF32; docs/decode-log.md): 72 calls moved from the 16-row tile (65 rows, rows 64 on in a tail
/// launch) and the 32-row tile to `wgmma` tiles, 16-bit 0.40–0.69 → 0.69–0.97× cuBLAS, TF32
/// 0.29–0.51 → 0.94–1.12×; 1.37–3.11× by geomean per row count and math.
/// 16-bit calls count these rows free from [`PAST_64_MIN_COLUMNS_16_BIT`] columns only.
const FREE_WGMMA_ROWS_PAST_64: core::ops::RangeInclusive<u64> = 65..=128;

/// The fewest columns of C at which a 16-bit call's rows past 64 are free
/// ([`FREE_WGMMA_ROWS_PAST_64`]). Narrower 16-bit layers lost on the `wgmma` tiles: H100, session
/// 75 (32aa762 and 710bcbb alternated twice in one device call; 65, 72 and 80 rows × 512, 1024,
/// 2048 columns × 1024–4096 deep, `nn` and `nt`; docs/decode-log.md), the f16 calls moved from the
/// 16- and 32-row `mma.sync` tiles to the 128×64 and 128×128 `wgmma` tiles split 2–8 ways ran
/// 0.894× (65 rows), 0.958× (72) and 0.981× (80) as fast, 0.72–1.15× per call, while the TF32
/// ones ran 1.07–1.14× (0.87–1.53×) and keep the rule.
const PAST_64_MIN_COLUMNS_16_BIT: u64 = 4096;

/// Whether [`padding_class`] counts `p`'s rows as free on `spec`: a persistent (`wgmma`) tile of
/// at most 64 rows and a call of [`FREE_WGMMA_ROWS`] ([`FREE_WGMMA_ROWS_TF32_NN`] for a single
/// TF32-only `nn` product on a TF32 tile), or one of at most 128 rows and a single product of
/// [`FREE_WGMMA_ROWS_PAST_64`] (16-bit: of at least [`PAST_64_MIN_COLUMNS_16_BIT`] columns).
/// (Batches keep [`FREE_WGMMA_ROWS`]: their short items are not bound by reading weights, and the
/// other rules were measured on single products.)
fn rows_free(spec: &KernelSpec, p: &Problem) -> bool {
    let g = p.gemm();
    let (tile_m, m) = (u64::from(spec.c_tile().m), g.m as u64);
    let tf32_only = p.maths() == Some(&[Math::MmaTf32][..]);
    let tf32_nn = spec.math == Math::MmaTf32 && tf32_only && !g.trans_a && !g.trans_b;
    let few = if tf32_nn && g.batch == 1 {
        FREE_WGMMA_ROWS_TF32_NN
    } else {
        FREE_WGMMA_ROWS
    };
    let past_64 = FREE_WGMMA_ROWS_PAST_64;
    let wide = !sixteen_bit(spec.math) || g.n as u64 >= PAST_64_MIN_COLUMNS_16_BIT;
    spec.family.persistent()
        && ((tile_m <= *few.end() && few.contains(&m))
            || (g.batch == 1 && wide && tile_m <= *past_64.end() && past_64.contains(&m)))
}

/// Whether `math` multiplies 16-bit inputs (f16 or bf16, either accumulation).
pub(super) fn sixteen_bit(math: Math) -> bool {
    matches!(math, Math::MmaF16F32 | Math::MmaBf16F32 | Math::MmaF16F16)
}

/// How much of the computed tile area is padding, in classes of a factor √2:
/// `⌊log₂((area of the tiles covering C / area of C)²)⌋`. 0: under √2× C's area (at least 71%
/// of the computed area lies inside C); a 64×64 product on 128×128 tiles (4×) is class 4; one row
/// on 16-row tiles class 8, on 64-row tiles class 12. Coarse on purpose: tiles that pad about
/// equally tie, and rank decides.
///
/// Except few rows on `wgmma` tiles ([`rows_free`]): a call of 17 to 64 rows ([`FREE_WGMMA_ROWS`];
/// TF32 `nn` 33 to 64, [`FREE_WGMMA_ROWS_TF32_NN`]) on a persistent (`wgmma`) tile of at most 64
/// rows, or of 65 to 128 rows on one of at most 128 ([`FREE_WGMMA_ROWS_PAST_64`]), counts its rows
/// as the tiles'. Such a call is bound by reading B once (2 flops per row and element of B: 64 rows
/// of 16-bit B need 64 flops per byte, a fifth of `wgmma`'s rate over the H200's bandwidth), so
/// the padded rows cost no time. Measured on the H200 (docs/decode-log.md, session 13, before the
/// `mma.sync` tiles' swizzled layout of session 22): from 16 rows up the 64×128 `wgmma` tile beat
/// the 16- and 32-row `mma.sync` tiles that pad less (f16 decode geomean at 32 rows 0.79× cuBLAS
/// → 0.91×); below 16 it loses on the 4096-wide layers, where it splits K four ways and sums the
/// slices in a second launch while the 16-row tile (two CTAs per SM) splits eight ways and sums
/// them in its own tail (1–8 rows: 0.81–0.89× against 0.93–1.03×). Not for the `mma.sync` and
/// CUDA-core tiles, whose padded rows were measured to cost.
pub(crate) fn padding_class(spec: &KernelSpec, p: &Problem) -> u32 {
    let tile = spec.c_tile();
    let (tm, tn) = p.tile_grid(tile);
    let covered =
        u128::from(tm) * u128::from(tile.m.max(1)) * u128::from(tn) * u128::from(tile.n.max(1));
    let rows = if rows_free(spec, p) {
        u128::from(tm) * u128::from(tile.m)
    } else {
        p.gemm().m as u128
    };
    let area = rows * (p.gemm().n as u128);
    if area == 0 || covered <= area {
        return 0;
    }
    // covered < 2^64 and area ≥ 1: the ratio's square stays below 2^128
    let ratio_sq = (covered * covered) / (area * area);
    ratio_sq.checked_ilog2().unwrap_or(0)
}
