//! Kernel selection: which entry of [`KERNELS`](tcgemm_kernels::config::KERNELS) runs a call.
//!
//! Everything here is pure (no device), so the policy is unit-tested with synthetic tables.

use crate::error::{invalid, Error, Result};
use crate::gemm::{Gemm, Precision};
use tcgemm_kernels::config::{uses_tma_params, Elem, KernelSpec, Math, Role};

/// What a call needs from a kernel, independent of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Query {
    /// Element type of A and B.
    pub input: Elem,
    /// Element type of C.
    pub output: Elem,
    /// A stored transposed.
    pub trans_a: bool,
    /// B stored transposed.
    pub trans_b: bool,
    /// Acceptable multiply-accumulate instructions, most preferred first.
    pub maths: &'static [Math],
}

impl Query {
    /// The query for a call with elements `input -> output`.
    pub fn new(g: &Gemm, input: Elem, output: Elem, allow_tf32: bool) -> Result<Query> {
        Ok(Query {
            input,
            output,
            trans_a: g.trans_a,
            trans_b: g.trans_b,
            maths: maths_for(input, g.precision, allow_tf32)?,
        })
    }

    /// Whether `spec` has this query's element types and transposes (any math).
    pub fn matches_layout(&self, spec: &KernelSpec) -> bool {
        spec.input == self.input
            && spec.output == self.output
            && spec.trans_a == self.trans_a
            && spec.trans_b == self.trans_b
    }

    /// Whether `spec` can run this query, ignoring whether it is loaded.
    pub fn matches(&self, spec: &KernelSpec) -> bool {
        spec.role() == Role::Gemm && self.matches_layout(spec) && self.maths.contains(&spec.math)
    }
}

/// The multiply-accumulate instructions a precision allows for `input` elements, most preferred
/// first.
///
/// - `f32`: `Exact` → FFMA; `Tf32` → TF32 MMA; `Default` → FFMA, or either (TF32 preferred on
///   equal rank) when the context allows TF32.
/// - `f16`: f16 MMA with f32 accumulation (the f16-accumulating kernels run only when forced by
///   name); `Tf32` is an argument error.
/// - `bf16`: bf16 MMA with f32 accumulation; `Tf32` is an argument error.
pub(crate) fn maths_for(
    input: Elem,
    precision: Precision,
    allow_tf32: bool,
) -> Result<&'static [Math]> {
    match (input, precision) {
        (Elem::F32, Precision::Exact) => Ok(&[Math::Ffma]),
        (Elem::F32, Precision::Tf32) => Ok(&[Math::MmaTf32]),
        (Elem::F32, Precision::Default) if allow_tf32 => Ok(&[Math::MmaTf32, Math::Ffma]),
        (Elem::F32, Precision::Default) => Ok(&[Math::Ffma]),
        (Elem::F16 | Elem::Bf16, Precision::Tf32) => Err(invalid(
            "precision",
            format!(
                "Precision::Tf32 applies to f32 inputs only, but the inputs are {input:?}; \
                 use Precision::Default (half-precision inputs always use tensor cores with f32 accumulation)"
            ),
        )),
        (Elem::F32 | Elem::Bf16, Precision::F16Accumulate) => Err(invalid(
            "precision",
            format!(
                "Precision::F16Accumulate applies to f16 inputs only, but the inputs are {input:?}"
            ),
        )),
        (Elem::F16, Precision::F16Accumulate) => Ok(&[Math::MmaF16F16]),
        (Elem::F16, _) => Ok(&[Math::MmaF16F32]),
        (Elem::Bf16, _) => Ok(&[Math::MmaBf16F32]),
    }
}

/// Base addresses of a call's buffers, when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ptrs {
    /// Address of A.
    pub a: u64,
    /// Address of B.
    pub b: u64,
    /// Address of C.
    pub c: u64,
}

/// Whether `v` elements of `elem_bytes` bytes are a whole number of 16-byte chunks.
fn bytes_multiple_of_16(v: usize, elem_bytes: u32) -> bool {
    (v as u64)
        .checked_mul(u64::from(elem_bytes))
        .is_some_and(|b| b % 16 == 0)
}

/// Extra requirements a kernel puts on a call beyond types and transposes.
///
/// The TMA kernels ([`uses_tma_params`]: the sm_90a GEMMs) need 16-byte-aligned base addresses,
/// leading dimensions and batch strides (strides only matter with more than one batch item); being
/// persistent, they also need `k ≥ 1` with `alpha ≠ 0` (a call that reads A and B) and at most 2³²
/// work items (output tiles × batch). `ptrs: None` (planning without buffers) assumes aligned
/// bases, as fresh allocations are. Every other kernel accepts every call.
pub(crate) fn kernel_accepts(spec: &KernelSpec, g: &Gemm, ptrs: Option<Ptrs>) -> bool {
    if !uses_tma_params(spec) {
        return true;
    }
    let (ei, eo) = (spec.input.bytes(), spec.output.bytes());
    let bases = ptrs.is_none_or(|p| p.a % 16 == 0 && p.b % 16 == 0 && p.c % 16 == 0);
    let lds = bytes_multiple_of_16(g.lda_or_packed(), ei)
        && bytes_multiple_of_16(g.ldb_or_packed(), ei)
        && bytes_multiple_of_16(g.ldc_or_packed(), eo);
    let strides = g.batch <= 1
        || (bytes_multiple_of_16(g.stride_a_or_packed(), ei)
            && bytes_multiple_of_16(g.stride_b_or_packed(), ei)
            && bytes_multiple_of_16(g.stride_c_or_packed(), eo));
    // the persistent kernels count work items (tiles × batch) in 32 bits and assume k ≥ 1
    let (bm, bn) = (spec.block.m.max(1) as u64, spec.block.n.max(1) as u64);
    let work = (g.m as u64)
        .div_ceil(bm)
        .saturating_mul((g.n as u64).div_ceil(bn))
        .saturating_mul(g.batch as u64);
    // a tensor map's strides must be below 2⁴⁰ bytes (a one-row operand can have any ld)
    let below_2_40 = |elems: usize, eb: u32| (elems as u128) * u128::from(eb) < 1 << 40;
    let tma_strides = below_2_40(g.lda_or_packed(), ei)
        && below_2_40(g.ldb_or_packed(), ei)
        && (g.batch <= 1
            || (below_2_40(g.stride_a_or_packed(), ei) && below_2_40(g.stride_b_or_packed(), ei)));
    bases && lds && strides && tma_strides && g.reads_ab() && work <= u64::from(u32::MAX)
}

/// The kernel for `q` among `specs`: the `usable` candidate of highest `rank`; on equal rank the
/// one whose math comes first in `q.maths` (TF32 before FFMA when TF32 is allowed), then the first
/// in table order. `None` when no candidate is usable.
///
/// Rank decides across maths too, so a low-rank baseline (the seed TF32 kernel) is not taken over
/// a better exact kernel just because TF32 is allowed; explicit [`Precision::Tf32`] still reaches it.
#[cfg(test)]
pub(crate) fn select<'a>(
    specs: &'a [KernelSpec],
    q: &Query,
    usable: impl Fn(&KernelSpec) -> bool,
) -> Option<&'a KernelSpec> {
    select_sized(specs, q, None, usable)
}

/// Percent (0..=100) of the device's SMs that `spec`'s grid for `g` keeps busy in its first wave
/// (the block scheduler spreads blocks over idle SMs before doubling up).
pub(crate) fn fill_percent(spec: &KernelSpec, g: &Gemm, sm_count: u32) -> u32 {
    let tiles =
        g.m.div_ceil(spec.block.m.max(1) as usize) * g.n.div_ceil(spec.block.n.max(1) as usize);
    let blocks = tiles.saturating_mul(g.batch.max(1)) as u128;
    (blocks * 100 / sm_count.max(1) as u128).min(100) as u32
}

/// Tenths (0..=10, rounded down) of the computed tile area that lies inside C: `m·n` over the
/// area of the tiles covering it. A 64×64 product on 128×128 tiles is 2 (three quarters padding).
pub(crate) fn tile_efficiency_tenths(spec: &KernelSpec, g: &Gemm) -> u32 {
    let (bm, bn) = (spec.block.m.max(1) as u128, spec.block.n.max(1) as u128);
    let (m, n) = (g.m as u128, g.n as u128);
    let covered = m.div_ceil(bm) * bm * n.div_ceil(bn) * bn;
    if covered == 0 {
        return 10;
    }
    (m * n * 10 / covered) as u32
}

/// [`select`], aware of the problem size when `sized = Some((g, sm_count))`: a kernel whose first
/// wave keeps at least 75% of the SMs busy beats one that does not, whatever their
/// ranks; among kernels that all fall short, the fuller one wins. Next, the kernel whose tiles waste
/// less area on padding (in tenths, [`tile_efficiency_tenths`]), then rank. So a large tile (high
/// rank) is taken where it keeps every SM busy without padding, and a smaller tile where the large
/// one would leave SMs idle or compute mostly padding (batched 64×64 products).
pub(crate) fn select_sized<'a>(
    specs: &'a [KernelSpec],
    q: &Query,
    sized: Option<(&Gemm, u32)>,
    usable: impl Fn(&KernelSpec) -> bool,
) -> Option<&'a KernelSpec> {
    let preference = |s: &KernelSpec| {
        q.maths
            .iter()
            .position(|&m| m == s.math)
            .unwrap_or(usize::MAX)
    };
    let fill = |s: &KernelSpec| match sized {
        None => 100,
        Some((g, sms)) => match fill_percent(s, g, sms) {
            f if f >= 75 => 100,
            f => f,
        },
    };
    let efficiency = |s: &KernelSpec| sized.map_or(10, |(g, _)| tile_efficiency_tenths(s, g));
    let key = |s: &KernelSpec| {
        (
            fill(s),
            efficiency(s),
            s.rank,
            core::cmp::Reverse(preference(s)),
        )
    };
    specs
        .iter()
        .filter(|s| q.matches(s) && usable(s))
        .fold(None, |best: Option<&KernelSpec>, s| match best {
            Some(b) if key(b) >= key(s) => Some(b),
            _ => Some(s),
        })
}

/// The error for a query no usable kernel serves. `why_unusable` explains, for a matching kernel,
/// why it cannot run (not loaded, missing from its module, not accepting these arguments).
pub(crate) fn no_kernel_error(
    specs: &[KernelSpec],
    q: &Query,
    why_unusable: impl Fn(&KernelSpec) -> String,
) -> Error {
    let mut msg = format!(
        "no kernel for {:?} -> {:?} with trans_a={}, trans_b={} and math {:?} on this device",
        q.input, q.output, q.trans_a, q.trans_b, q.maths
    );
    let reasons: Vec<String> = specs
        .iter()
        .filter(|s| q.matches(s))
        .map(|s| format!("`{}`: {}", s.name, why_unusable(s)))
        .collect();
    if reasons.is_empty() {
        let others: Vec<&str> = specs
            .iter()
            .filter(|s| s.role() == Role::Gemm && q.matches_layout(s))
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

/// Checks that the kernel forced by name fits the call's element types and transposes.
pub(crate) fn check_forced(spec: &KernelSpec, input: Elem, output: Elem, g: &Gemm) -> Result<()> {
    if spec.role() != Role::Gemm {
        let (what, see) = match spec.role() {
            Role::Convert => ("an element-wise conversion", "Context::convert"),
            _ => (
                "an instruction-ceiling microbenchmark",
                "Context::instruction_ceiling",
            ),
        };
        return Err(invalid(
            "kernel",
            format!("`{}` is {what}, not a GEMM kernel; see {see}", spec.name),
        ));
    }
    if spec.input != input || spec.output != output {
        return Err(invalid(
            "kernel",
            format!(
                "kernel `{}` multiplies {:?} -> {:?} but the buffers are {input:?} -> {output:?}; \
                 pick a kernel with matching element types (see Context::kernels)",
                spec.name, spec.input, spec.output
            ),
        ));
    }
    if spec.trans_a != g.trans_a || spec.trans_b != g.trans_b {
        return Err(invalid(
            "kernel",
            format!(
                "kernel `{}` takes trans_a={}, trans_b={} but the call has trans_a={}, trans_b={}; \
                 pick the kernel for this layout",
                spec.name, spec.trans_a, spec.trans_b, g.trans_a, g.trans_b
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcgemm_kernels::config::{Family, GemmShape, KERNELS};

    fn spec(name: &'static str, input: Elem, output: Elem, math: Math, rank: u32) -> KernelSpec {
        KernelSpec {
            name,
            family: Family::MmaSyncMultistage,
            input,
            output,
            math,
            trans_a: false,
            trans_b: false,
            block: GemmShape::new(128, 128, 32),
            warp: GemmShape::new(64, 64, 32),
            stages: 3,
            threads: 128,
            min_blocks_per_sm: 1,
            smem_bytes: 0,
            rank,
        }
    }

    fn table() -> Vec<KernelSpec> {
        vec![
            spec("ffma_low", Elem::F32, Elem::F32, Math::Ffma, 5),
            spec("ffma_high", Elem::F32, Elem::F32, Math::Ffma, 10),
            spec("ffma_high_too", Elem::F32, Elem::F32, Math::Ffma, 10),
            spec("tf32_seed", Elem::F32, Elem::F32, Math::MmaTf32, 1),
            spec("tf32_main", Elem::F32, Elem::F32, Math::MmaTf32, 20),
            spec("h_f32acc", Elem::F16, Elem::F16, Math::MmaF16F32, 10),
            spec("h_f16acc", Elem::F16, Elem::F16, Math::MmaF16F16, 99),
            spec("h_to_f32", Elem::F16, Elem::F32, Math::MmaF16F32, 10),
            spec("bf_to_f32", Elem::Bf16, Elem::F32, Math::MmaBf16F32, 10),
            KernelSpec {
                trans_b: true,
                ..spec("ffma_nt", Elem::F32, Elem::F32, Math::Ffma, 10)
            },
        ]
    }

    fn query(g: &Gemm, input: Elem, output: Elem, tf32: bool) -> Query {
        Query::new(g, input, output, tf32).unwrap()
    }

    #[test]
    fn precision_resolution() {
        use Precision::*;
        assert_eq!(maths_for(Elem::F32, Default, false).unwrap(), &[Math::Ffma]);
        assert_eq!(
            maths_for(Elem::F32, Default, true).unwrap(),
            &[Math::MmaTf32, Math::Ffma]
        );
        assert_eq!(maths_for(Elem::F32, Exact, true).unwrap(), &[Math::Ffma]);
        assert_eq!(maths_for(Elem::F32, Tf32, false).unwrap(), &[Math::MmaTf32]);
        for p in [Default, Exact] {
            for tf32 in [false, true] {
                assert_eq!(maths_for(Elem::F16, p, tf32).unwrap(), &[Math::MmaF16F32]);
                assert_eq!(maths_for(Elem::Bf16, p, tf32).unwrap(), &[Math::MmaBf16F32]);
            }
        }
        for e in [Elem::F16, Elem::Bf16] {
            let err = maths_for(e, Tf32, true).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::InvalidArgument {
                        what: "precision",
                        ..
                    }
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn highest_rank_wins_first_on_tie() {
        let t = table();
        let q = query(&Gemm::new(8, 8, 8), Elem::F32, Elem::F32, false);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "ffma_high");
        // Unusable candidates are skipped.
        let pick = select(&t, &q, |s| s.name != "ffma_high").unwrap();
        assert_eq!(pick.name, "ffma_high_too");
        let pick = select(&t, &q, |s| s.name == "ffma_low").unwrap();
        assert_eq!(pick.name, "ffma_low");
        assert!(select(&t, &q, |_| false).is_none());
    }

    #[test]
    fn transposes_must_match() {
        let t = table();
        let q = query(
            &Gemm::new(8, 8, 8).trans_b(true),
            Elem::F32,
            Elem::F32,
            false,
        );
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "ffma_nt");
        let q = query(
            &Gemm::new(8, 8, 8).trans_a(true),
            Elem::F32,
            Elem::F32,
            false,
        );
        assert!(select(&t, &q, |_| true).is_none());
    }

    #[test]
    fn tf32_allowed_rank_decides_across_maths() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        let q = query(&g, Elem::F32, Elem::F32, true);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "tf32_main"); // rank 20 > 10
                                                                         // No TF32 kernel usable: Default falls back to exact FP32.
        let no_tf32 = |s: &KernelSpec| s.math != Math::MmaTf32;
        assert_eq!(select(&t, &q, no_tf32).unwrap().name, "ffma_high");
        // A low-rank TF32 baseline does not displace a better exact kernel...
        let seed_only = |s: &KernelSpec| s.name != "tf32_main";
        assert_eq!(select(&t, &q, seed_only).unwrap().name, "ffma_high");
        // ...but wins over an exact kernel of lower rank, and on equal rank TF32 is preferred.
        let low = |s: &KernelSpec| s.name == "tf32_seed" || s.name == "ffma_low";
        let t2: Vec<KernelSpec> = t
            .iter()
            .map(|s| KernelSpec {
                rank: if s.name == "tf32_seed" { 5 } else { s.rank },
                ..*s
            })
            .collect();
        assert_eq!(select(&t2, &q, low).unwrap().name, "tf32_seed");
        let q_exact_first = query(&g, Elem::F32, Elem::F32, false);
        assert_eq!(select(&t2, &q_exact_first, low).unwrap().name, "ffma_low");
        // Explicit Tf32 takes the best TF32 kernel, however low its rank, and never falls back.
        let q = query(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, false);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "tf32_main");
        assert_eq!(select(&t, &q, seed_only).unwrap().name, "tf32_seed");
        assert!(select(&t, &q, no_tf32).is_none());
        // Exact never takes TF32, even if allowed.
        let q = query(&g.precision(Precision::Exact), Elem::F32, Elem::F32, true);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "ffma_high");
    }

    #[test]
    fn half_inputs_take_f32_accumulation_only() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        let q = query(&g, Elem::F16, Elem::F16, false);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "h_f32acc"); // not the rank-99 f16-acc one
        let q = query(&g, Elem::F16, Elem::F32, false);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "h_to_f32");
        let q = query(&g, Elem::Bf16, Elem::F32, false);
        assert_eq!(select(&t, &q, |_| true).unwrap().name, "bf_to_f32");
        let q = query(&g, Elem::Bf16, Elem::Bf16, false);
        assert!(select(&t, &q, |_| true).is_none());
    }

    #[test]
    fn no_kernel_error_explains() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        let q = query(&g, Elem::Bf16, Elem::Bf16, false);
        let s = no_kernel_error(&t, &q, |_| unreachable!()).to_string();
        assert!(
            s.starts_with("unsupported: no kernel for Bf16 -> Bf16"),
            "{s}"
        );
        assert!(s.contains("no kernel for these element types"), "{s}");
        let q = query(&g, Elem::F32, Elem::F32, false);
        let s = no_kernel_error(&t, &q, |sp| format!("{} not loaded", sp.name)).to_string();
        assert!(s.contains("`ffma_high`: ffma_high not loaded"), "{s}");
        assert!(!s.contains("tf32_main"), "{s}");
        // Only kernels of another math: suggest another precision.
        let ffma_only: Vec<KernelSpec> =
            t.iter().copied().filter(|s| s.math == Math::Ffma).collect();
        let q = query(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, false);
        let s = no_kernel_error(&ffma_only, &q, |_| unreachable!()).to_string();
        assert!(s.contains("choose another Precision"), "{s}");
    }

    #[test]
    fn real_table_serves_fp32_all_layouts() {
        for ta in [false, true] {
            for tb in [false, true] {
                let g = Gemm::new(8, 8, 8).trans_a(ta).trans_b(tb);
                let q = query(&g, Elem::F32, Elem::F32, false);
                let s = select(KERNELS, &q, |_| true).expect("an FP32 kernel for every layout");
                assert_eq!((s.trans_a, s.trans_b, s.math), (ta, tb, Math::Ffma));
            }
        }
    }

    #[test]
    fn hopper_alignment_hook() {
        let sm80 = spec("a", Elem::F16, Elem::F32, Math::MmaF16F32, 1);
        let sm90 = KernelSpec {
            family: Family::TmaWarpSpecialized,
            ..sm80
        };
        let aligned = Ptrs {
            a: 256,
            b: 512,
            c: 1024,
        };
        let g = Gemm::new(64, 64, 64);
        assert!(kernel_accepts(&sm90, &g, Some(aligned)));
        assert!(kernel_accepts(&sm90, &g, None));
        // Misaligned base.
        assert!(!kernel_accepts(&sm90, &g, Some(Ptrs { b: 514, ..aligned })));
        assert!(kernel_accepts(&sm80, &g, Some(Ptrs { b: 514, ..aligned })));
        // lda 12 halves = 24 bytes; ldc 12 f32 = 48 bytes.
        assert!(!kernel_accepts(&sm90, &g.lda(68), None));
        assert!(kernel_accepts(&sm90, &g.lda(72), None));
        assert!(!kernel_accepts(&sm90, &g.ldc(66), None));
        assert!(kernel_accepts(&sm90, &g.ldc(68), None));
        // Strides matter only with several batch items.
        assert!(kernel_accepts(&sm90, &g.stride_a(4), None));
        assert!(!kernel_accepts(&sm90, &g.batch(2).stride_a(4), None));
        assert!(kernel_accepts(&sm90, &g.batch(2).stride_a(8), None));
        assert!(kernel_accepts(&sm90, &g.batch(2).stride_b(0), None));
        assert!(!kernel_accepts(
            &sm90,
            &g.batch(2).stride_c(64 * 64 + 2),
            None
        ));
        // Huge values do not overflow.
        assert!(!kernel_accepts(&sm90, &g.lda(usize::MAX), None));
        // A tensor map's strides stay below 2^40 bytes: 2^39 halves is 2^40 bytes.
        let one_row = Gemm::new(1, 64, 64);
        assert!(kernel_accepts(&sm90, &one_row.lda((1 << 39) - 8), None));
        assert!(!kernel_accepts(&sm90, &one_row.lda(1 << 39), None));
        assert!(!kernel_accepts(
            &sm90,
            &one_row.trans_b(true).ldb(1 << 39),
            None
        ));
        // The persistent TMA kernels need a call that reads A and B, and < 2^32 work items;
        // the sm_80 kernels take everything.
        assert!(!kernel_accepts(&sm90, &Gemm::new(64, 64, 0), None));
        assert!(!kernel_accepts(&sm90, &g.alpha(0.0), None));
        assert!(kernel_accepts(&sm80, &g.alpha(0.0), None));
        let many = Gemm::new(1 << 20, 1 << 20, 8).batch(1 << 20);
        assert!(!kernel_accepts(&sm90, &many, None));
        assert!(kernel_accepts(&sm80, &many, None));
    }

    #[test]
    fn size_aware_selection_prefers_filling_the_gpu() {
        let mut big = spec("big_tile", Elem::F16, Elem::F32, Math::MmaF16F32, 20);
        big.block = GemmShape::new(128, 256, 32);
        big.min_blocks_per_sm = 1;
        let mut small = spec("small_tile", Elem::F16, Elem::F32, Math::MmaF16F32, 10);
        small.block = GemmShape::new(128, 128, 32);
        small.min_blocks_per_sm = 2;
        let t = vec![big, small];
        let pick = |m: usize, n: usize| {
            let g = Gemm::new(m, n, 64);
            let q = query(&g, Elem::F16, Elem::F32, false);
            select_sized(&t, &q, Some((&g, 132)), |_| true)
                .unwrap()
                .name
        };
        assert_eq!(pick(8192, 8192), "big_tile"); // both fill: rank
        assert_eq!(pick(2048, 2048), "big_tile"); // 128 and 256 blocks on 132 SMs: both ≥ 75%
        assert_eq!(pick(1024, 1024), "small_tile"); // 32 vs 64 blocks: the fuller one
        assert_eq!(fill_percent(&t[0], &Gemm::new(1024, 1024, 1), 132), 24);
    }

    #[test]
    fn size_aware_selection_avoids_padding() {
        let mut big = spec("big", Elem::F16, Elem::F32, Math::MmaF16F32, 10);
        big.block = GemmShape::new(128, 128, 32);
        let mut small = spec("small", Elem::F16, Elem::F32, Math::MmaF16F32, 3);
        small.block = GemmShape::new(64, 64, 32);
        let t = vec![big, small];
        let pick = |g: Gemm| {
            let q = query(&g, Elem::F16, Elem::F32, false);
            select_sized(&t, &q, Some((&g, 132)), |_| true)
                .unwrap()
                .name
        };
        assert_eq!(pick(Gemm::new(64, 64, 64).batch(1000)), "small"); // 2 tenths vs 10
        assert_eq!(pick(Gemm::new(4096, 4096, 64)), "big"); // no padding either way: rank
        assert_eq!(pick(Gemm::new(1921, 1023, 517)), "big"); // 0.93 vs 0.96: both 9 tenths
        assert_eq!(tile_efficiency_tenths(&t[0], &Gemm::new(64, 64, 1)), 2);
        assert_eq!(tile_efficiency_tenths(&t[1], &Gemm::new(64, 64, 1)), 10);
    }

    #[test]
    fn forced_kernel_checks() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        check_forced(&t[0], Elem::F32, Elem::F32, &g).unwrap();
        let e = check_forced(&t[0], Elem::F16, Elem::F32, &g).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { what: "kernel", .. }));
        let e = check_forced(&t[0], Elem::F32, Elem::F32, &g.trans_a(true)).unwrap_err();
        assert!(e.to_string().contains("trans_a=true"), "{e}");
        // f16 accumulation is reachable only by name.
        check_forced(&t[6], Elem::F16, Elem::F16, &g).unwrap();
    }

    // docs/errors.md rows checked in this module.

    #[test]
    fn f16_accumulation_with_other_inputs_is_an_invalid_precision() {
        for e in [Elem::F32, Elem::Bf16] {
            for tf32 in [false, true] {
                let err = maths_for(e, Precision::F16Accumulate, tf32).unwrap_err();
                assert!(
                    matches!(
                        err,
                        Error::InvalidArgument {
                            what: "precision",
                            ..
                        }
                    ),
                    "{err}"
                );
                assert!(err.to_string().contains("F16Accumulate"), "{err}");
            }
        }
        // Query::new (the first step of Context::plan and Context::gemm) reports it, for either
        // precision an input type does not have.
        for (p, input) in [
            (Precision::F16Accumulate, Elem::F32),
            (Precision::Tf32, Elem::F16),
            (Precision::Tf32, Elem::Bf16),
        ] {
            let g = Gemm::new(8, 8, 8).precision(p);
            let err = Query::new(&g, input, Elem::F32, true).unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::InvalidArgument {
                        what: "precision",
                        ..
                    }
                ),
                "{p:?} with {input:?}: {err}"
            );
        }
    }

    #[test]
    fn forced_kernel_of_another_role_types_or_layout_is_an_invalid_kernel() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        let kernel_err = |r: Result<()>, needle: &str| match r {
            Err(Error::InvalidArgument { what, why }) => {
                assert_eq!(what, "kernel", "{why}");
                assert!(why.contains(needle), "expected '{needle}' in: {why}");
            }
            other => panic!("expected InvalidArgument {{ what: \"kernel\" }}, got {other:?}"),
        };
        // not a GEMM kernel: a ceiling microbenchmark or a conversion
        for family in [Family::Ceiling, Family::Convert] {
            let s = KernelSpec { family, ..t[0] };
            kernel_err(
                check_forced(&s, Elem::F32, Elem::F32, &g),
                "not a GEMM kernel",
            );
        }
        // element types: input or output differ
        kernel_err(
            check_forced(&t[0], Elem::Bf16, Elem::F32, &g),
            "matching element types",
        );
        kernel_err(
            check_forced(&t[0], Elem::F32, Elem::F16, &g),
            "matching element types",
        );
        // transposes
        kernel_err(
            check_forced(&t[0], Elem::F32, Elem::F32, &g.trans_a(true)),
            "for this layout",
        );
        kernel_err(
            check_forced(&t[0], Elem::F32, Elem::F32, &g.trans_b(true)),
            "for this layout",
        );
    }

    #[test]
    fn no_kernel_for_the_query_is_unsupported() {
        let t = table();
        let g = Gemm::new(8, 8, 8);
        // element types without a kernel; another math only; candidates that cannot run
        let cases = [
            (query(&g, Elem::Bf16, Elem::Bf16, false), t.clone()),
            (
                query(&g.precision(Precision::Tf32), Elem::F32, Elem::F32, false),
                t.iter().copied().filter(|s| s.math == Math::Ffma).collect(),
            ),
            (query(&g, Elem::F32, Elem::F32, false), t.clone()),
        ];
        for (q, specs) in cases {
            let e = no_kernel_error(&specs, &q, |s| format!("{} not loaded", s.name));
            assert!(matches!(e, Error::Unsupported(_)), "{e:?}");
            assert!(
                e.to_string().starts_with("unsupported: no kernel for"),
                "{e}"
            );
        }
    }
}
