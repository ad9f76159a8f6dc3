//! Kernel selection: which entry of [`KERNELS`](tcgemm_kernels::config::KERNELS) runs a call.
//!
//! Everything here is pure (no device), so the policy is unit-tested with synthetic tables.
//! Which kernels *can* run a call is [`can_implement`](crate::can_implement)'s answer; this module
//! resolves the precision into instructions and ranks the kernels that can.

use crate::error::{invalid, Error, Result};
use crate::gemm::{Gemm, Precision};
use crate::problem::{Problem, Signature};
use crate::rules::{can_implement, check_signature};
use tcgemm_kernels::config::{Elem, Family, KernelSpec, Math, Role};

/// Every precision, in declaration order (for the messages that list what exists).
const PRECISIONS: [Precision; 5] = [
    Precision::Default,
    Precision::Exact,
    Precision::Tf32,
    Precision::F16Accumulate,
    Precision::Tf32x3,
];

/// The multiply-accumulate instructions a precision allows for `input` elements, most preferred
/// first.
///
/// - `f32`: `Exact` → FFMA; `Tf32` → TF32 MMA; `Tf32x3` → the 3xTF32 kernels, else TF32 MMA
///   (on the operands' TF32 parts, `src/tf32x3.rs`, which picks one of the two); `Default` → FFMA, or either (TF32 preferred on
///   equal rank) when the context allows TF32.
/// - `f16`: f16 MMA with f32 accumulation, then FFMA on the exactly widened elements (the
///   few-row stream kernels: exact products, f32 sums); with `F16Accumulate` f16 accumulation;
///   `Tf32` and `Tf32x3` are argument errors.
/// - `bf16`: bf16 MMA with f32 accumulation, then FFMA as for f16; `Tf32`, `Tf32x3` and
///   `F16Accumulate` are argument errors.
pub(crate) fn maths_for(
    input: Elem,
    precision: Precision,
    allow_tf32: bool,
) -> Result<&'static [Math]> {
    match (input, precision) {
        (Elem::F32, Precision::Exact) => Ok(&[Math::Ffma]),
        (Elem::F32, Precision::Tf32) => Ok(&[Math::MmaTf32]),
        (Elem::F32, Precision::Tf32x3) => Ok(&[Math::MmaTf32x3, Math::MmaTf32]),
        (Elem::F32, Precision::Default) if allow_tf32 => Ok(&[Math::MmaTf32, Math::Ffma]),
        (Elem::F32, Precision::Default) => Ok(&[Math::Ffma]),
        (Elem::F16 | Elem::Bf16, Precision::Tf32 | Precision::Tf32x3) => Err(invalid(
            "precision",
            format!(
                "Precision::{precision:?} applies to f32 inputs only, but the inputs are {input:?}; \
                 use Precision::Default (half-precision inputs always accumulate in f32)"
            ),
        )),
        (Elem::F32 | Elem::Bf16, Precision::F16Accumulate) => Err(invalid(
            "precision",
            format!(
                "Precision::F16Accumulate applies to f16 inputs only, but the inputs are {input:?}"
            ),
        )),
        (Elem::F16, Precision::F16Accumulate) => Ok(&[Math::MmaF16F16]),
        (Elem::F16, _) => Ok(&[Math::MmaF16F32, Math::Ffma]),
        (Elem::Bf16, _) => Ok(&[Math::MmaBf16F32, Math::Ffma]),
    }
}

/// The GEMM kernels of `specs`.
fn gemms(specs: &[KernelSpec]) -> impl Iterator<Item = &KernelSpec> {
    specs.iter().filter(|s| s.role() == Role::Gemm)
}

/// The element-type and precision combinations `specs` implement, for error messages:
/// `F32 -> F32 (Default, Exact, Tf32); F16 -> F32 (Default, Exact); ...`.
pub(crate) fn combinations(specs: &[KernelSpec]) -> String {
    let mut pairs: Vec<(Elem, Elem)> = Vec::new();
    for s in gemms(specs) {
        if !pairs.contains(&(s.input, s.output)) {
            pairs.push((s.input, s.output));
        }
    }
    let implements = |i: Elem, o: Elem, p: Precision| {
        maths_for(i, p, true).is_ok_and(|ms| {
            gemms(specs).any(|s| (s.input, s.output) == (i, o) && ms.contains(&s.math))
        })
    };
    pairs
        .iter()
        .map(|&(i, o)| {
            let ps: Vec<String> = PRECISIONS
                .iter()
                .filter(|&&p| implements(i, o, p))
                .map(|p| format!("{p:?}"))
                .collect();
            format!("{i:?} -> {o:?} ({})", ps.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The signature of a dispatched call: `g`'s transposes, `input -> output` elements and the
/// instructions `g.precision` allows (`allow_tf32`: whether `Precision::Default` may use TF32).
///
/// # Errors
/// `InvalidArgument` `precision` when the inputs do not have the precision ([`maths_for`]) or no
/// kernel of `specs` implements it for these element types; `InvalidArgument` `element types` when
/// no kernel of `specs` multiplies them. The last two list the combinations that exist.
pub(crate) fn signature(
    specs: &[KernelSpec],
    g: &Gemm,
    input: Elem,
    output: Elem,
    allow_tf32: bool,
) -> Result<Signature> {
    let maths = maths_for(input, g.precision, allow_tf32)?;
    let types = |s: &&KernelSpec| (s.input, s.output) == (input, output);
    if !gemms(specs).any(|s| types(&s)) {
        return Err(invalid(
            "element types",
            format!(
                "no kernel for {input:?} -> {output:?}: this build has no kernel for these element types; \
                 it multiplies {} (Context::convert converts between f32 and f16 or bf16)",
                combinations(specs)
            ),
        ));
    }
    if !gemms(specs).filter(types).any(|s| maths.contains(&s.math)) {
        return Err(invalid(
            "precision",
            format!(
                "no kernel for {input:?} -> {output:?} with Precision::{:?} ({maths:?}): choose another Precision; \
                 this build multiplies {}",
                g.precision,
                combinations(specs)
            ),
        ));
    }
    Ok(Signature {
        maths: Some(maths),
        ..Signature::any_math(g, input, output)
    })
}

/// How a call would be cut along K on a kernel: into `slices` k-slices (split-K, one block per
/// tile and slice; 1 when not split), or with the k-tiles of its last work items shared out among
/// the CTAs (`stream_k`: stream-K on a persistent kernel, [`crate::streamk`]), or its last
/// `tail_rows` rows of tiles split along K in a second launch (a kernel of one block per tile,
/// [`crate::tail`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KSplit {
    /// k-slices of split-K (1: none).
    pub slices: u32,
    /// Stream-K.
    pub stream_k: bool,
    /// Rows of tiles of the tail launch (0: none).
    pub tail_rows: u32,
}

impl KSplit {
    /// One pass over K, no stream-K.
    pub(crate) const NONE: KSplit = KSplit {
        slices: 1,
        stream_k: false,
        tail_rows: 0,
    };
}

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
    let blocks = p
        .tiles(spec.c_tile())
        .saturating_mul(p.gemm().batch.max(1) as u64)
        .saturating_mul(u64::from(cut.slices.max(1)));
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

/// [`fill_percent`] as [`select`] ranks it: 100 for a kernel that keeps at least
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
/// A persistent kernel's fill counts all its waves, and the time model ([`cost`], next in
/// [`select`]'s order) counts what its idle SMs cost (the busiest CTA's k-tiles), so among
/// persistent kernels from half a wave on the model decides, not the fill. Against the `mma.sync`
/// tiles a `wgmma` tile half filling the SMs still finishes first: it computes about twice as
/// fast per SM (H200, f16 4096³: 753 against 449 TFLOPS; TF32 about 400 against 200). Measured on
/// the H200 (f16, every kernel forced, same run; docs/hopper-log.md, session 46): 1536³ on the
/// 128×192 tile (96 items, 73% of a wave) 358 TFLOPS `nn` / 353 `nt` against 312 / 313 on the
/// 128×128 tile under stream-K (144 items shared, full); 1792³ `nn` on the 128×256 tile (98 items,
/// 74%) 432 against 413 on the 128×64 tile (392 items, 99%).
///
/// TF32 `mma.sync` runs at half the 16-bit rate, so at most 512 deep a TF32 ping-pong tile (one
/// 64×64 or 64×128 item per CTA, [`admission`]) beats it from a quarter of a wave; in `tn`, whose
/// producer transposes both operands, from 257 deep ([`quarter_wave_ping_pong`]).
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
/// most 64 rows ([`padding_class`]), by the tile's math: from 16 rows on the TF32 tiles, from 17
/// on the 16-bit ones.
///
/// At 16 rows the 16-bit `mma.sync` tile of 16 rows (split along K, the slices summed in its own
/// tail) beats the 64-row `wgmma` tile on the H200: f16 decode rows 0.82–0.96× → 0.92–1.02×
/// cuBLAS, bf16 0.82–0.94× → 0.87–1.00× (the ten layer × layout rows of each, same run). TF32
/// gains in `nn` and loses in `nt` there, and at 32 rows the two tiles tie within noise (f16 and
/// bf16 0.81–1.03× either way), so those keep the `wgmma` tile (docs/decode-log.md, "16 rows of
/// 16-bit inputs").
pub(crate) fn free_wgmma_rows(math: Math) -> core::ops::RangeInclusive<u64> {
    if sixteen_bit(math) {
        17..=64
    } else {
        16..=64
    }
}

/// Whether `math` multiplies 16-bit inputs (f16 or bf16, either accumulation).
fn sixteen_bit(math: Math) -> bool {
    matches!(math, Math::MmaF16F32 | Math::MmaBf16F32 | Math::MmaF16F16)
}

/// How much of the computed tile area is padding, in classes of a factor √2:
/// `⌊log₂((area of the tiles covering C / area of C)²)⌋`. 0: under √2× C's area (at least 71%
/// of the computed area lies inside C); a 64×64 product on 128×128 tiles (4×) is class 4; one row
/// on 16-row tiles class 8, on 64-row tiles class 12. Coarse on purpose: tiles that pad about
/// equally tie, and rank decides.
///
/// Except few rows on `wgmma` tiles: a call of 16 (17 for 16-bit inputs) to 64 rows
/// ([`free_wgmma_rows`]) on a persistent (`wgmma`) tile of at most 64 rows counts its rows as the
/// tile's. Such a call is bound by reading B once (2 flops per row and element of B: 64 rows of
/// 16-bit B need 64 flops per byte, a fifth of `wgmma`'s rate over the H200's bandwidth), so the
/// padded rows cost no time. Measured on the H200 (docs/decode-log.md, session 13, before the
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
    let free = free_wgmma_rows(spec.math);
    let free_rows = spec.family.persistent()
        && u64::from(tile.m) <= *free.end()
        && free.contains(&(p.gemm().m as u64));
    let rows = if free_rows {
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

/// The kernel for `p` among `specs`: of the candidates that [`can_implement`] it and are `usable`
/// (loaded), the best by
///
/// 1. with `sm_count`, the fill ([`fill_percent`]), counting how the call would be cut along K
///    on that kernel (`cut`: split-K slices, [`crate::splitk`], or stream-K, [`crate::streamk`]):
///    a kernel that keeps at least [`full_fill_percent`] of the SMs busy (75%; a persistent
///    kernel 50%) beats one that does not, whatever their ranks; among kernels that all fall
///    short, the fuller one;
/// 2. with `sm_count`, less area lost to padding ([`padding_class`]); except that persistent
///    kernels that fill the SMs, in a call of more than 64 rows and columns ([`thin`]), all count
///    at their math's least padding among them, so that the time model, which counts padded
///    tiles' work, ranks them: 136×14336×4096 f16 on the 128×256 tile (112 tiles, 85%; padding
///    class 1) 341 TFLOPS against 203 on the 64×128 tile under stream-K (class 0), 272×14336×4096
///    `nt` on 128×192 434 against 310 on 128×256 under stream-K (H200, session 46); where both are
///    split along K it also moves 272×1000×11008 `nt` to slower tiles (0.82–0.91×);
/// 3. with `sm_count`, among persistent kernels, the model's time class ([`cost`]: waves or
///    stream-K's shares of them, times the tile's steady rate; in classes of 4% of the best time
///    of the same math among the candidates of the same fill and padding), persistent kernels
///    before the others;
/// 4. among persistent kernels of one time class, an uncut schedule (no stream-K, no k-slices);
/// 5. `rank`;
/// 6. the math that comes first in the problem's accepted list (TF32 before FFMA when TF32 is
///    allowed);
/// 7. table order.
///
/// The thread-copy kernels ([`Family::LdgWarpSpecialized`]) are candidates only where TMA cannot
/// read A or B: with both readable by 16-byte copies (a C that TMA kernels refuse), the sm_80
/// kernels measured faster. The stream kernels ([`Family::CudaCoreStream`]) are candidates only
/// where [`streams`] says. The ping-pong kernels ([`Family::TmaPingPong`]) are candidates for
/// batches of short items ([`admission::short_items`]), and there the cooperative `wgmma`
/// kernels of their maths are not; and, beside the cooperative ones, for 16-bit calls that fill
/// one wave with their tiles ([`admission::one_wave_of_tiles`]). With `sm_count`, a swapped
/// 32-wide ping-pong tile on a call of 8 to 32 rows whose tiles fill half a wave or more but under
/// one, at least 1024 deep, takes the call before any of the order above
/// ([`admission::streams_few_rows`]): the time model counts multiply-adds, and such a call is
/// bound by reading the weights.
///
/// With `sm_count`, where a persistent (`wgmma`) kernel fills the SMs ([`fill_tier`]) without
/// k-slices (stream-K counts as unsplit), the persistent kernels that pad as much or more and
/// would split the call into slices of fewer than
/// [`PARTIAL_COST_KTILES`](crate::streamk::PARTIAL_COST_KTILES) k-tiles are not candidates
/// ([`short_split`]): such slices are mostly fill and drain, their partial sums cost about that
/// many k-tiles (as stream-K's do), and a persistent kernel's slices are summed in a second
/// launch. Measured on the H200 (docs/hopper-log.md, session 13): f16 1024³ unsplit
/// on the 64×128 tile 199 TFLOPS against 99 on the 128×256 tile in 4 slices of 4 k-tiles, 1280³
/// on 128×128 286 against 172 (2 slices of 10), 1024×2048×2048 430 against 288 (2 of 16); with
/// slices of 56 k-tiles (256×4096×14336) the split 128×256 tile stays ahead (551 against 439).
///
/// With `sm_count`, in a call whose A or B is copied element by element, an `mma.sync` tile
/// ([`Family::MmaSyncMultistage`]) is not a candidate where another of its math and height, of the
/// same fill and padding, leaves its busiest SM at most 80% of the multiply-adds
/// ([`cost::crowded_mma_sync`]): 128×50257×4096 TF32 with an unaligned B runs on the 128×128 tile
/// (3 blocks of 128×128 on the busiest SM) instead of the 128×256 tile (2 blocks of 128×256),
/// 88.5 → 111.2 TFLOPS on the H200.
///
/// With `sm_count`, of two `mma.sync` tiles that differ only in their stages (and so in their
/// blocks per SM), the one that fills a smaller share of its busiest SM's last round of blocks is
/// not a candidate, nor, at equal shares, the one of fewer stages
/// ([`cost::fills_last_round_less`]): 1×50257×4096 TF32 runs on the 3-stage 16×128 tile (393
/// blocks, 3 at once on an SM) instead of the 4-stage one (2 at once), 1.58 → 1.86 TFLOPS.
///
/// With `sm_count`, in a call whose A or B is copied element by element, of two `mma.sync` tiles
/// that differ only in their warp tiles, the one of fewer threads is not a candidate
/// ([`cost::copies_with_fewer_threads`]): 128×50257×4096 TF32 with an unaligned B runs on the
/// 128×128 tile of 8 warps (64×32 warp tiles) instead of the one of 4 (64×64), 76.9 → 109.2 TFLOPS;
/// with 16-byte copies the 4-warp tile (higher rank) runs 1.3–1.5× faster.
///
/// So a large tile (high rank) is taken where it keeps every SM busy without padding, and a smaller
/// tile where the large one would leave SMs idle or compute mostly padding (batched 64×64
/// products, a few rows of C). Rank decides across maths too, so a low-rank baseline (the seed
/// TF32 kernel) is not taken over a better exact kernel just because TF32 is allowed; explicit
/// [`Precision::Tf32`] still reaches it. `None` when no candidate is usable.
pub(crate) fn select<'a>(
    specs: &'a [KernelSpec],
    p: &Problem,
    sm_count: Option<u32>,
    usable: impl Fn(&KernelSpec) -> bool,
    cut: impl Fn(&KernelSpec) -> KSplit,
) -> Option<&'a KernelSpec> {
    let maths = p.maths().unwrap_or(&[]);
    let preference = |s: &KernelSpec| {
        maths
            .iter()
            .position(|&m| m == s.math)
            .unwrap_or(usize::MAX)
    };
    // each usable candidate with its cut, computed once
    let candidates: Vec<(&KernelSpec, KSplit)> = specs
        .iter()
        .filter(|s| can_implement(s, p).is_ok() && usable(s))
        .map(|s| (s, cut(s)))
        .collect();
    let ping_pong = |m: Math| {
        candidates
            .iter()
            .any(|&(s, _)| s.family == Family::TmaPingPong && s.math == m)
    };
    let pairs = |alone: &KernelSpec| {
        candidates
            .iter()
            .find(|&&(s, _)| pairs_of(s, alone))
            .map(|&(s, _)| s)
    };
    let candidates: Vec<(&KernelSpec, KSplit)> = candidates
        .iter()
        .copied()
        .filter(|&(s, _)| admits(s, p, sm_count, ping_pong, pairs))
        .collect();
    // a swapped 32-wide tile streaming the weights of a few rows takes the call
    if let Some(sms) = sm_count {
        let streaming = candidates
            .iter()
            .filter(|&&(s, _)| admission::streams_few_rows(s, p, sms))
            .min_by_key(|&&(s, _)| preference(s));
        if let Some(&(s, _)) = streaming {
            return Some(s);
        }
    }
    // the least padding of a persistent kernel that fills the SMs unsplit: short splits of
    // persistent kernels that pad as much or more are out
    let unsplit_padding = sm_count.and_then(|sms| {
        candidates
            .iter()
            .filter(|&&(s, k)| {
                s.family.persistent() && k.slices <= 1 && fill_tier(s, p, sms, k) == 100
            })
            .map(|&(s, _)| padding_class(s, p))
            .min()
    });
    // fill tier and padding class: the key's first two places
    type Place = (u32, u32);
    let place = |s: &KernelSpec, k: KSplit| -> Place {
        match sm_count {
            None => (100, 0),
            Some(sms) => (fill_tier(s, p, sms, k), padding_class(s, p)),
        }
    };
    // the candidates left, each with its place and the model time of a persistent kernel (`cost`)
    let mut candidates: Vec<(&KernelSpec, KSplit, Place, Option<u128>)> = candidates
        .into_iter()
        .filter(|&(s, k)| {
            !(unsplit_padding.is_some_and(|pad| pad <= padding_class(s, p)) && short_split(s, p, k))
        })
        .map(|(s, k)| {
            let time = sm_count.and_then(|sms| cost::time(s, p, sms, k));
            (s, k, place(s, k), time)
        })
        .collect();
    // beyond 64 rows and columns, persistent kernels that fill the SMs take their math's least
    // padding class among them as their own: the time model ranks them, padded tiles and all
    if sm_count.is_some() && !thin(p) {
        let timed = |s: &KernelSpec, (fill, _): Place| s.family.persistent() && fill == 100;
        let least: Vec<Option<u32>> = candidates
            .iter()
            .map(|&(s, _, place, _)| {
                if !timed(s, place) {
                    return None;
                }
                let rivals = candidates
                    .iter()
                    .filter(|c| c.0.math == s.math && timed(c.0, c.2));
                rivals.map(|c| c.2 .1).min()
            })
            .collect();
        for (c, least) in candidates.iter_mut().zip(least) {
            if let Some(least) = least {
                c.2 .1 = least;
            }
        }
    }
    // `mma.sync` tiles, copying element-wise, whose busiest SM another tile of their height and
    // place spares a fifth of its work; those whose twin of other stages fills the busiest SM's
    // last round of blocks better; and, copying element-wise, those with a twin of more threads
    let candidates: Vec<(&KernelSpec, KSplit, Place, Option<u128>)> = match sm_count {
        None => candidates,
        Some(sms) => candidates
            .iter()
            .copied()
            .filter(|&(s, k, place, _)| {
                let rivals = candidates
                    .iter()
                    .filter(|c| c.2 == place)
                    .map(|&(o, ok, _, _)| (o, ok));
                !cost::crowded_mma_sync(s, k, rivals.clone(), p, sms)
                    && !cost::fills_last_round_less(s, k, rivals.clone(), p, sms)
                    && !cost::copies_with_fewer_threads(s, rivals, p)
            })
            .collect(),
    };
    // the best model time of each math at each place: a time class is compared only between
    // candidates that tie on fill and padding, so it is measured from the best of those (a faster
    // tile that pads more would put every kernel of its math in a later class, behind another
    // math's)
    let mut bests: Vec<(Math, Place, u128)> = Vec::new();
    for &(s, _, place, t) in &candidates {
        let Some(t) = t else { continue };
        match bests.iter_mut().find(|b| (b.0, b.1) == (s.math, place)) {
            Some(b) => b.2 = b.2.min(t),
            None => bests.push((s.math, place, t)),
        }
    }
    let key = |s: &KernelSpec, k: KSplit, (fill, padding): Place, time: Option<u128>| {
        let best = bests
            .iter()
            .find(|b| (b.0, b.1) == (s.math, (fill, padding)));
        let class = match (time, best) {
            (Some(t), Some(&(_, _, b))) => cost::class(t, b),
            _ if sm_count.is_none() => 0,
            _ => u128::MAX,
        };
        (
            fill,
            core::cmp::Reverse(padding),
            core::cmp::Reverse(class),
            s.family.persistent() && k == KSplit::NONE,
            s.rank,
            core::cmp::Reverse(preference(s)),
        )
    };
    candidates
        .iter()
        .map(|&(s, k, place, t)| (key(s, k, place, t), s))
        .fold(None, |best: Option<(_, &KernelSpec)>, (k, s)| match best {
            Some((bk, b)) if bk >= k => Some((bk, b)),
            _ => Some((k, s)),
        })
        .map(|(_, s)| s)
}

/// Whether `cut` splits `p` on the persistent kernel `spec` into k-slices of fewer than
/// [`PARTIAL_COST_KTILES`](crate::streamk::PARTIAL_COST_KTILES) of its k-tiles (see [`select`]).
pub(crate) fn short_split(spec: &KernelSpec, p: &Problem, cut: KSplit) -> bool {
    let slice_ktiles = p.k_tiles(spec.block).div_ceil(u64::from(cut.slices.max(1)));
    spec.family.persistent() && cut.slices > 1 && slice_ktiles < crate::streamk::PARTIAL_COST_KTILES
}

/// The error for a call no usable kernel serves. `why_unusable` explains, for a kernel with the
/// call's signature, why it cannot run (not loaded, missing from its module, a rule of its family).
pub(crate) fn no_kernel_error(
    specs: &[KernelSpec],
    sig: &Signature,
    why_unusable: impl Fn(&KernelSpec) -> String,
) -> Error {
    let maths = sig.maths.unwrap_or(&[]);
    let mut msg = format!(
        "no kernel for {:?} -> {:?} with trans_a={}, trans_b={} and math {maths:?} on this device",
        sig.input, sig.output, sig.trans_a, sig.trans_b
    );
    let reasons: Vec<String> = specs
        .iter()
        .filter(|s| check_signature(s, sig).is_ok())
        .map(|s| format!("`{}`: {}", s.name, why_unusable(s)))
        .collect();
    if reasons.is_empty() {
        let any_math = Signature {
            maths: None,
            ..*sig
        };
        let others: Vec<&str> = specs
            .iter()
            .filter(|s| check_signature(s, &any_math).is_ok())
            .map(|s| s.name)
            .collect();
        if others.is_empty() {
            msg.push_str("; this build has no kernel for these element types and transposes");
        } else {
            msg.push_str(&format!(
                "; kernels with other math exist ({}): choose another Precision",
                others.join(", ")
            ));
        }
    } else {
        msg.push_str(&format!("; candidates: {}", reasons.join("; ")));
    }
    Error::Unsupported(msg)
}

pub(crate) mod cost;
pub(crate) mod memo;
pub(crate) mod rates;

mod admission;
pub(crate) use admission::{admits, pairs_of, streams, streams_whole_k, thin};

#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod hopper_tests;
#[cfg(test)]
mod ping_pong_tests;
#[cfg(test)]
mod tests;
