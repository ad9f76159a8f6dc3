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
    /// k-slices of split-K the launch runs (1: none).
    pub slices: u32,
    /// k-slices whose CTAs [`fill_percent`] counts: the split the model wants
    /// ([`crate::splitk::choose`]) where the launch runs fewer within clusters
    /// ([`crate::splitk::cluster_split`]), else `slices`. Measured (H100, session 82,
    /// docs/decode-log.md): 16-bit splits within clusters on 48% of the SMs (24–64 rows × 1024–2048
    /// columns, 4096–8192 deep) ran 1.09–1.30× as fast as the `mma.sync` tiles that a fill counted
    /// on the launched CTAs chose instead (split 16–32 ways over every SM).
    pub spread: u32,
    /// The slices run within thread-block clusters ([`crate::splitk::cluster_split`]): the
    /// first slice's CTA adds the others' partial tiles one by one
    /// ([`cost::CLUSTER_PARTIAL_KTILES`]).
    pub cluster: bool,
    /// Stream-K.
    pub stream_k: bool,
    /// Rows of tiles of the tail launch (0: none).
    pub tail_rows: u32,
}

impl KSplit {
    /// One pass over K, no stream-K.
    pub(crate) const NONE: KSplit = KSplit {
        slices: 1,
        spread: 1,
        cluster: false,
        stream_k: false,
        tail_rows: 0,
    };

    /// Split-K into `slices` k-slices, all launched (no clusters of fewer CTAs).
    pub(crate) const fn sliced(slices: u32) -> KSplit {
        KSplit {
            slices,
            spread: slices,
            ..KSplit::NONE
        }
    }
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
/// 32-wide ping-pong tile at least 1024 deep on a call of 8 to 32 rows (fewer, up to 2048 deep)
/// whose tiles fill half a wave or more but under one, or on an `nt` call of 1 to 32 rows whose
/// tiles fill 90% of a wave or more, or on a 16-bit call of 33 to 64 rows 1024 to 2048 deep on
/// 36–90% of a wave or of 65 to 128 rows 1024 to 4096 deep on 54% of a wave to one (the row bands
/// of `admission::SWAPPED_BANDS`), takes the call before any of the order above
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
    // a swapped 32-wide tile streaming the weights of a few rows, or the 64×64 ping-pong tile
    // streaming them for up to 128 rows on one wave, takes the call
    if let Some(sms) = sm_count {
        let streaming = candidates
            .iter()
            .filter(|&&(s, _)| {
                admission::streams_few_rows(s, p, sms)
                    || admission::ping_pong_streams_one_wave(s, p, sms)
            })
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
mod place;
pub(crate) use place::{
    fill_percent, fill_tier, full_fill_percent, padding_class, PERSISTENT_FILL_PERCENT,
};

#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod few_rows_tests;
#[cfg(test)]
mod hopper_tests;
#[cfg(test)]
mod ping_pong_tests;
#[cfg(test)]
mod tests;
