//! Deterministic split-K: a call with few output tiles and a long K runs its kernel's f32-output
//! twin once over `S` k-slices (batch item `s` is slice `s`), each CTA writing its f32 partial
//! tile into the [`Context`](crate::Context)'s workspace; then C = alpha·Σ_s W[s] + beta·C, the
//! slices summed in slice order (`tcgemm_kernels::params::SplitTail`):
//! - by the CTA that finishes a tile last (counted on the tile's integer counter), in the same
//!   kernel, when the tile's slices hold at most `FUSED_TAIL_BYTES` (rows and columns inside C);
//! - else by the reduction kernel (`Family::SplitkReduce`) after the launch, over all SMs (one CTA
//!   reading a large tile's slices is slower than a second launch: docs/decode-log.md);
//! - or, on a persistent kernel, without the workspace: each tile's slices run as one thread-block
//!   cluster, and the first slice's CTA adds the others' partial tiles from their shared memory,
//!   in slice order, and stores C ([`Split::cluster`], [`cluster_split`] says when).
//!
//! No floating-point atomics, a fixed order: results stay bitwise reproducible.
//!
//! # The model ([`choose`])
//! Split a GEMM kernel (a persistent TMA kernel takes the slices as batch items, so as work
//! items), a call with `batch == 1` that reads A and B (`k ≥ 1`, `alpha ≠ 0`), whose C has an f32
//! twin of the kernel (the kernel itself for f32 output; for 16-bit output the kernel of the same
//! family, tile, layout, input and instruction writing f32, found in the table), and only when
//! - the output tiles leave SMs without a CTA: `tiles < SMs`, and
//! - K is long: `K ≥ max(`[`MIN_SPLIT_K`]`, 8 · block k)`.
//!
//! (A first version split whenever `tiles < slots / 2`: on the H200 that split 1024³ f16 on the
//! 64×64 tile 2 ways and ran it at 0.77× the unsplit speed, and 1921×1023×517 at 0.91×; the
//! workspace round trip costs more than the extra CTAs gain once every SM has work or K is short.
//! docs/decode-log.md.)
//!
//! Then `S = ⌊slots / tiles⌋` with `slots = SMs · min_blocks_per_sm` of the f32 twin (tiles·S at
//! most one full wave of CTA slots), at most
//! [`MAX_SLICES`], and at most `K / min_slice` with `min_slice = max(`[`MIN_SLICE_K`]`, 4·block k)`.
//! The slice depth `kslice = ⌈K / S⌉` rounded up to a multiple of the block k and of 8 elements
//! (so every slice's start keeps the operand's 16-byte alignment); then `S = ⌈K / kslice⌉`. No
//! split when `S < 2`. All slices run as one launch, a strided batch of `S` items; the last is
//! `K − (S−1)·kslice` deep. A persistent (TMA) kernel splits only into slices that divide K (the
//! largest `S ≤` the wanted count with `K / S` a multiple of that unit): its tensor maps give every
//! slice the same depth. Its slices are always summed by the reduction kernel.
//!
//! The workspace starts with the tiles' counters ([`counters_bytes`]: one `u32` per output tile,
//! fewer than the SMs; zeroed when the workspace is allocated, and set back to zero by the CTA
//! that reduces the tile), then `S` slices of `m × ldw` f32, `ldw = n` rounded up to 4, so every
//! slice row starts 16-byte aligned (the GEMM stores and the reduction loads are 16-byte
//! accesses).

use crate::problem::Problem;
use tcgemm_kernels::config::{Elem, KernelSpec, Role};
use tcgemm_kernels::params::{flags, GemmParams, SplitTail, FUSED_TAIL_BYTES};

/// Most slices one call is split into.
pub const MAX_SLICES: u32 = 32;
/// Least depth of a slice, in elements of K (a slice also has at least 4 block-k tiles).
pub const MIN_SLICE_K: u64 = 256;
/// Least K of a call that is split.
pub const MIN_SPLIT_K: u64 = 1024;

/// How a call is split along K ([`Plan::split`](crate::Plan::split)): `slices == 1` is no split.
///
/// ```no_run
/// use tcgemm::{Context, Gemm};
/// let ctx = Context::new(0)?;
/// let plan = ctx.plan::<half::f16, half::f16>(&Gemm::new(16, 4096, 4096))?;
/// println!("{} slices of {} k, {} bytes of workspace", plan.split.slices, plan.split.kslice,
///          plan.split.workspace_bytes);
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Number of k-slices `S` (1: the call is not split).
    pub slices: u32,
    /// Depth of every slice but possibly the last (the call's `k` when not split).
    pub kslice: u32,
    /// Bytes of the context's workspace the call uses, its tiles' counters included (0 when not
    /// split).
    pub workspace_bytes: u64,
    /// The reduction kernel run after the slices; `None` when the slices' kernel sums them itself
    /// (the last CTA of each tile, or the cluster's first CTA) or the call is not split.
    pub reduce: Option<&'static KernelSpec>,
    /// The slices of each output tile run as one thread-block cluster of `slices` CTAs, and the
    /// first slice's CTA adds the others' partial tiles from their shared memory and stores C: no
    /// workspace, no reduction kernel (Hopper kernels, where the clusters fit on the device at
    /// once; `src/splitk.rs`).
    pub cluster: bool,
}

impl Split {
    /// No split: one pass over all of `k`.
    ///
    /// ```
    /// assert_eq!(tcgemm::Split::none(77).slices, 1);
    /// ```
    pub fn none(k: u32) -> Split {
        Split {
            slices: 1,
            kslice: k,
            workspace_bytes: 0,
            reduce: None,
            cluster: false,
        }
    }

    /// Whether the call is split (`slices > 1`).
    ///
    /// ```
    /// assert!(!tcgemm::Split::none(64).is_split());
    /// ```
    pub fn is_split(&self) -> bool {
        self.slices > 1
    }

    /// Depth of the last slice: `k − (S−1)·kslice`, in `1..=kslice`.
    pub(crate) fn last_k(&self, k: u64) -> u64 {
        k - u64::from(self.slices - 1) * u64::from(self.kslice)
    }
}

/// Bytes at the front of the workspace for the tiles' counters on a device of `sm_count` SMs: one
/// `u32` per output tile of a split call (fewer tiles than SMs), or two per CTA of a stream-K
/// launch (its flags, [`crate::streamk`]), rounded up to 256 bytes so the slices or partial tiles
/// that follow stay aligned.
pub(crate) fn counters_bytes(sm_count: u32) -> u64 {
    (u64::from(sm_count) * 8).div_ceil(256) * 256
}

/// Bytes of workspace enough for every split of every kernel of `table` on a device of
/// `sm_count` SMs: the counters, then the slices. A split call has `tiles·S ≤ slots`
/// (`slots = SMs · blocks/SM` of its kernel), so its `S · m · ldw` f32 (with `ldw ≤ n + 3`) are
/// at most `slots · bm · (bn + 3)`, `bm × bn` the tile of C a CTA covers
/// ([`KernelSpec::c_tile`]).
pub(crate) fn workspace_bound(table: &[KernelSpec], sm_count: u32) -> u64 {
    // (a stream-K launch's partial tiles, `SMs · bm · bn` f32 of a persistent kernel, are within
    // the same bound: every such kernel has an f32-output twin of its tile)
    counters_bytes(sm_count)
        + table
            .iter()
            .filter(|k| k.role() == Role::Gemm && k.output == Elem::F32)
            .map(|k| {
                let slots = u64::from(sm_count) * u64::from(k.min_blocks_per_sm.max(1));
                let tile = k.c_tile();
                slots * u64::from(tile.m) * (u64::from(tile.n) + 3) * 4
            })
            .max()
            .unwrap_or(0)
}

/// The workspace's leading dimension: `n` rounded up to 4 f32 (16 bytes).
pub(crate) fn workspace_ld(n: u64) -> u64 {
    n.div_ceil(4) * 4
}

/// The f32-output twin of GEMM kernel `kernel` in `table`: itself when it writes f32, else the
/// kernel of the same family, tile of C and warp tile, layout (swapped or not), input and
/// instruction that writes f32, of the same depth and stages where the table has one. `None` for
/// a kernel of clusters ([`Family::cluster`](tcgemm_kernels::config::Family::cluster)): its
/// clusters are its work units' CTAs, so it is never split along K.
pub(crate) fn f32_twin<'t>(
    kernel: &'t KernelSpec,
    table: &'t [KernelSpec],
) -> Option<&'t KernelSpec> {
    if kernel.family.cluster() > 1 {
        return None;
    }
    if kernel.output == Elem::F32 {
        return Some(kernel);
    }
    let same_tile = |t: &&KernelSpec| {
        t.role() == Role::Gemm
            && t.output == Elem::F32
            && (t.family, t.input, t.math) == (kernel.family, kernel.input, kernel.math)
            && (t.trans_a, t.trans_b, t.swaps_ab())
                == (kernel.trans_a, kernel.trans_b, kernel.swaps_ab())
            && (t.block.m, t.block.n, t.warp) == (kernel.block.m, kernel.block.n, kernel.warp)
    };
    // the first of the same depth and stages where the table has one (a 64-deep 16-bit tile's
    // f32-output twin spills, so it takes the 32-deep one)
    table
        .iter()
        .filter(same_tile)
        .min_by_key(|t| (t.block.k, t.stages) != (kernel.block.k, kernel.stages))
}

/// Whether the last CTA of each tile sums the slices itself: the f32 its tile's slices hold
/// inside C (`min(bm, m) · min(bn, n) · S · 4` bytes) are at most [`FUSED_TAIL_BYTES`], and the
/// kernel is not a persistent (TMA) one.
pub(crate) fn fused(kernel: &KernelSpec, problem: &Problem, slices: u32) -> bool {
    if kernel.family.persistent() {
        // the persistent TMA kernels have no fused tail
        return false;
    }
    let (g, tile) = (problem.gemm(), kernel.c_tile());
    let rows = u64::from(tile.m).min(g.m as u64);
    let cols = u64::from(tile.n).min(g.n as u64);
    rows * cols * u64::from(slices) * 4 <= FUSED_TAIL_BYTES
}

/// The reduction kernel in `table`.
pub(crate) fn reduction(table: &[KernelSpec]) -> Option<&KernelSpec> {
    table.iter().find(|t| t.role() == Role::SplitkReduce)
}

/// Blocks of the reduction over `m×n`: one group of 4 elements per thread, at most
/// `min_blocks_per_sm` blocks per SM (the kernel strides over the rest), at least one.
pub(crate) fn reduce_blocks(spec: &KernelSpec, m: u32, n: u32, sm_count: u32) -> u32 {
    let groups = u64::from(m) * u64::from(n.div_ceil(4));
    let blocks = groups
        .div_ceil(u64::from(spec.threads.max(1)))
        .min(u64::from(sm_count) * u64::from(spec.min_blocks_per_sm))
        .max(1);
    // ≤ sm_count · min_blocks_per_sm, a u32 product
    blocks as u32
}

/// Least common multiple of two positive numbers.
fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// The part of the model that does not depend on the kernel's instruction or stages: a call with
/// `batch == 1` that reads A and B, `MIN_SPLIT_K ≤ K < 2³²`, and `tiles` output tiles (of the
/// kernel considered) fewer than the SMs. Cheap: the hot path asks it before anything else.
pub(crate) fn may_split(problem: &Problem, tiles: u64, sm_count: u32) -> bool {
    let g = problem.gemm();
    let k = g.k as u64;
    g.batch == 1
        && problem.reads_ab()
        && tiles < u64::from(sm_count)
        && (MIN_SPLIT_K..=u64::from(u32::MAX)).contains(&k)
}

/// The split of `problem` on `kernel` (an f32-output twin, see [`f32_twin`]) for a device of
/// `sm_count` SMs, by the model in the module docs; `None` when the call is not split.
pub(crate) fn choose(kernel: &KernelSpec, problem: &Problem, sm_count: u32) -> Option<(u32, u32)> {
    let g = problem.gemm();
    if kernel.role() != Role::Gemm || kernel.output != Elem::F32 {
        return None;
    }
    // the 32-wide ping-pong tiles stream all of k, unsplit, where dispatch admits them (measured
    // so, on one wave or, swapped, on half of one)
    if crate::dispatch::streams_whole_k(kernel) {
        return None;
    }
    let (k, bk) = (g.k as u64, u64::from(kernel.block.k.max(1)));
    let tiles = problem.tiles(kernel.c_tile()).max(1);
    let slots = u64::from(sm_count) * u64::from(kernel.min_blocks_per_sm.max(1));
    if !may_split(problem, tiles, sm_count) || k < 8 * bk {
        return None;
    }
    let min_slice = MIN_SLICE_K.max(4 * bk);
    let wanted = (slots / tiles)
        .min(u64::from(MAX_SLICES))
        .min(k / min_slice);
    if wanted < 2 {
        return None;
    }
    let unit = lcm(bk, 8);
    if kernel.family.persistent() {
        // TMA maps every slice `kslice` deep (a batch dimension stepping along k): a shorter last
        // slice would read past K instead of zeros, so the slices must divide K
        let s = (2..=wanted)
            .rev()
            .find(|s| k % s == 0 && (k / s) % unit == 0)?;
        // s ≤ 32 and k / s < 2^32
        return Some((s as u32, (k / s) as u32));
    }
    let kslice = k.div_ceil(wanted).div_ceil(unit) * unit;
    let slices = k.div_ceil(kslice);
    // slices ≤ wanted ≤ 32 and kslice ≤ k < 2^32
    (slices >= 2).then_some((slices as u32, kslice as u32))
}

/// Most CTAs of a thread-block cluster that every sm_90 device schedules (the portable limit).
pub const MAX_CLUSTER: u32 = 8;

/// Whether the `slices` of a split of `kernel` may run as thread-block clusters
/// (`flags::CLUSTER_SPLIT`; the plan also needs a driver with `cuLaunchKernelEx`): a persistent
/// kernel whose consumers have the registers to add partial tiles
/// ([`KernelSpec::splits_in_clusters`], which implies persistent), at most [`MAX_CLUSTER`]
/// slices. The sum then needs neither the workspace's round trip nor the reduction kernel's
/// launch (H200, 64×4096×4096 f16 on 4 slices: slices 13.5 µs, reduction 4.6 µs under ncu).
pub(crate) fn cluster_fits(kernel: &KernelSpec, slices: u32) -> bool {
    kernel.splits_in_clusters() && (2..=MAX_CLUSTER).contains(&slices)
}

/// Bytes of A and B one CTA of a split within clusters may stream when the clusters hold fewer
/// slices than the workspace split would (fewer CTAs, each reading more): H200, against the
/// workspace split on twice the CTAs, the 64×128 tile's 2-slice clusters with 0.75 MiB per CTA
/// (f16/bf16, K = 4096) ran 1.00–1.17×, with 1.5 MiB (TF32, K = 4096) 0.60–0.79×, with 2.75 MiB
/// (K = 14336) 0.87–1.02× (docs/decode-log.md, "Split-K within clusters").
pub const CLUSTER_CTA_BYTES: u64 = 1 << 20;

/// The split within clusters of `problem` on persistent kernel `kernel`, which the model
/// ([`choose`]) splits into `slices`: the most slices `s ≤ slices` that [`cluster_fits`] allows, that
/// divide K into whole k-tile units (as every split of a persistent kernel), and whose clusters,
/// one per output tile, the device holds all at once (`resident(s)` clusters of `s` CTAs), as
/// `(s, K / s)`; with `s < slices` only if each CTA then reads at most [`CLUSTER_CTA_BYTES`] of A
/// and B. `None`: the split goes through the workspace. (A cluster that must wait for another to
/// leave doubles the launch's time: H200, 64×4096×4096 f16, 32 clusters of 4 where 30 fit ran at
/// 0.78× the workspace split.)
pub(crate) fn cluster_split(
    kernel: &KernelSpec,
    problem: &Problem,
    slices: u32,
    resident: impl Fn(u32) -> u32,
) -> Option<(u32, u32)> {
    let k = problem.gemm().k as u64;
    let unit = lcm(u64::from(kernel.block.k.max(1)), 8);
    let tiles = problem.tiles(kernel.c_tile());
    let edge = u64::from(kernel.block.m) + u64::from(kernel.block.n);
    let cta_bytes = |s: u64| edge * (k / s) * u64::from(problem.input().bytes());
    (2..=slices.min(MAX_CLUSTER))
        .rev()
        .filter(|&s| cluster_fits(kernel, s) && tiles <= u64::from(resident(s)))
        .find(|&s| k % u64::from(s) == 0 && (k / u64::from(s)) % unit == 0)
        .filter(|&s| s == slices || cta_bytes(u64::from(s)) <= CLUSTER_CTA_BYTES)
        // k / s < k < 2^32
        .map(|s| (s, (k / u64::from(s)) as u32))
}

/// The parameters of the one launch of `problem` (resolved on buffers, parameters `p`) split as
/// `split` within clusters ([`Split::cluster`]): `S` batch items, item `s` reading A and B from
/// `k = s·kslice`, `kslice` deep (the slices of a persistent kernel divide K), and the call's own
/// C, scalars and flags, which the first slice's CTA applies.
pub(crate) fn cluster_params(p: &GemmParams, problem: &Problem, split: &Split) -> GemmParams {
    let (stride_a, stride_b) = slice_steps(p, problem, split.kslice);
    GemmParams {
        stride_a,
        stride_b,
        stride_c: 0,
        k: split.kslice,
        batch: split.slices,
        flags: p.flags | flags::CLUSTER_SPLIT,
        ..*p
    }
}

/// Elements of A and of B from one k-slice's start to the next, `kslice` deep (parameters `p`):
/// along a row of a k-contiguous operand, `kslice` rows down an M/N-contiguous one.
fn slice_steps(p: &GemmParams, problem: &Problem, kslice: u32) -> (u64, u64) {
    let ks = u64::from(kslice);
    let g = problem.gemm();
    (
        if g.trans_a { ks * p.lda } else { ks },
        if g.trans_b { ks } else { ks * p.ldb },
    )
}

/// Whether `bytes` keeps a 16-byte alignment.
fn aligned16(bytes: u64) -> bool {
    bytes % 16 == 0
}

/// The parameters of the one launch of `problem` (resolved on buffers, whose parameters are `p`,
/// from [`launch::params`](crate::launch::params)) split as `split`, with the workspace at
/// `workspace` (16-byte aligned; its counters first, then the slices, see the module docs) on a
/// device of `sm_count` SMs: the f32 twin over `S` batch items (slice `s` reads A and B from `k =
/// s·kslice`, writes workspace slice `s`), and the sum into C (by the tiles' last CTAs, with the
/// counters, unless `split.reduce` runs after the launch; the reduction kernel takes the same
/// parameters).
pub(crate) fn split_params(
    p: &GemmParams,
    problem: &Problem,
    split: &Split,
    workspace: u64,
    sm_count: u32,
) -> GemmParams {
    let ib = u64::from(problem.input().bytes());
    let (step_a, step_b) = slice_steps(p, problem, split.kslice);
    let ldw = workspace_ld(u64::from(p.n));
    let (a, b) = (problem.a().alignment, problem.b().alignment);
    let vec = |ok: bool, flag: u32| if ok { flag } else { 0 };
    // every slice's start keeps the operand's base alignment: the step is a multiple of 8 elements
    let keeps = |base_ld: bool, step: u64| base_ld && aligned16(step * ib);
    let out = match problem.output() {
        Elem::F16 => flags::OUT_F16,
        Elem::Bf16 => flags::OUT_BF16,
        Elem::F32 => 0,
    };
    let ob = u64::from(problem.output().bytes());
    // one vector access per group of 4 elements of C (16 bytes of f32, 8 of 16-bit elements)
    let vec_c = p.c % (4 * ob) == 0 && p.ldc % 4 == 0;
    GemmParams {
        c: workspace + counters_bytes(sm_count),
        ldc: ldw,
        stride_a: step_a,
        stride_b: step_b,
        stride_c: u64::from(p.m) * ldw,
        k: split.kslice,
        batch: split.slices,
        alpha: 1.0,
        beta: 0.0,
        flags: vec(keeps(a.base && a.ld, step_a), flags::VEC_A)
            | vec(keeps(b.base && b.ld, step_b), flags::VEC_B)
            | flags::VEC_C
            | flags::BETA_ZERO,
        split: SplitTail {
            c: p.c,
            ldc: p.ldc,
            counters: if split.reduce.is_some() { 0 } else { workspace },
            // ≤ kslice, a u32
            last_k: split.last_k(u64::from(p.k)) as u32,
            flags: out | vec(vec_c, flags::VEC_C) | (p.flags & flags::BETA_ZERO),
            alpha: p.alpha,
            beta: p.beta,
        },
        ..*p
    }
}

#[cfg(test)]
mod tests;
