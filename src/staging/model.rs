//! The staging model ([`choose`]): a call stages when the copies cost less than they save, from
//! throughputs measured on the H200 (docs/unaligned-log.md, attempts 3, 3b, 8b, 11 and 13): the
//! call's time on the kernels that take it as it is against the copies plus the aligned call's
//! time, each the larger of its arithmetic, its memory traffic and a floor: for 16-bit calls a
//! cost per element of K; for TF32 calls with an unaligned A or B, the element-wise copies of the
//! busiest block's tiles on the kernel dispatch runs unstaged ([`Dispatched`]). An unaligned
//! 16-bit A or B streams as fast as the blocks of that kernel the SMs hold at once
//! ([`Dispatched::narrow_16_rate`]).

use super::{PackedCopy, Staged, Staging, MAX_SEGMENTS};
use crate::calls::{self, Cuts};
use crate::dispatch;
use crate::gemm::Precision;
use crate::problem::{Operand, OperandLayout, Problem};
use crate::rules::{off_sectors, tma_reads_off_sectors};
use tcgemm_kernels::config::{Family, KernelSpec, Math, KERNELS};
use tcgemm_kernels::utility::copy_rows;

/// Throughputs of the H200 behind [`choose`] (docs/unaligned-log.md, attempt 3).
pub(super) mod rate {
    /// Bytes per second a kernel streams its operands at, aligned (about 80% of the measured
    /// 4.2 TB/s copy bandwidth).
    pub const STREAM: f64 = 3.4e12;
    /// Bytes per second of a 16-bit operand read with element-wide loads (sm_80 kernels, rows
    /// not 16-byte aligned: 17–20% of the bandwidth floor on 1×50257×4096), where the kernel
    /// dispatch would run is not known ([`NARROW_16_PER_BLOCK`] where it is).
    pub const NARROW_16: f64 = 0.8e12;
    /// Bytes per second each block resident on an SM reads of a 16-bit operand with element-wide
    /// loads: latency-bound, so the operand streams as fast as the blocks the SMs hold at once.
    /// H200, the 16×128 f16 `mma.sync` tile unstaged (unaligned B, session 40,
    /// docs/unaligned-log.md attempt 18): 16×32001×4096, 251 blocks (two per SM), B's 262 MB at
    /// 0.87 TB/s (3.5 GB/s per block); 16×50257×4096, 393 blocks (three per SM, all resident),
    /// 412 MB at 1.27 TB/s (3.2 GB/s per block).
    pub const NARROW_16_PER_BLOCK: f64 = 3.3e9;
    /// The same for an f32 operand: as many loads per second, twice the bytes (128×32001×4096
    /// TF32 unstaged ran 94.8 TFLOPS, its 524 MB B read at ≥ 1.5 TB/s; docs/unaligned-log.md,
    /// attempt 11).
    pub const NARROW_32: f64 = 1.6e12;
    /// Seconds per element of K that the sm_80 kernels take on a 16-bit call with an unaligned
    /// A or B, however few its tiles: their element-wise copies are latency-bound (unstaged, one
    /// wave: 301×263×517 39 µs, 501³ 38.6 µs, 1921×1023×517 40.6 µs, 1001³ 60.6 µs; attempt 11).
    pub const NARROW_PER_K: f64 = 60e-9;
    /// The same for the aligned 16-bit kernels a staged call runs (1001³ f16 staged: 25 µs, 13
    /// of them the copies).
    pub const ALIGNED_PER_K: f64 = 12e-9;
    /// Bytes per second of the copy kernel, read and write counted: staged calls against their
    /// aligned twins in one run (docs/unaligned-log.md, attempt 8): 4095³ f16's three 33.5 MB
    /// copies 77 µs (2.6 TB/s), 128×32001×4096 f16's 270 MB 174 µs (3.1 TB/s), 64·512³ `+bs1`
    /// f16's three 33.5 MB copies 67 µs (3.0 TB/s).
    pub const COPY: f64 = 2.8e12;
    /// Seconds one copy launch adds (1001³ f16: three 2 MB copies cost 13.4 µs, 4.3 µs of which
    /// move bytes).
    pub const LAUNCH: f64 = 3e-6;
    /// f32 elements per second each block of an sm_80 TF32 kernel copies element by element
    /// (`ld.global` of 4 bytes) from an unaligned A or B: latency-bound, whatever the tile.
    /// With [`NARROW_32_TILE`], fitted (relative least squares) to 18 unstaged TF32 calls of one
    /// to four tiles per block slot (H200, docs/unaligned-log.md attempt 13;
    /// [`super::Dispatched::copy_time`]), its time over the measured: 0.8–1.3× on 33³ to 501³
    /// (16×128 tiles), 1001³ 0.96×, 2047³ 1.04×, 64·512³ `+bs1` 0.84×, 128×32001×4096 1.15×;
    /// split calls run slower than it says (64×4096² `+ld1` in 8 slices 0.59×: the reduction is
    /// not counted).
    pub const NARROW_32_PER_BLOCK: f64 = 3.9e9;
    /// Seconds each tile adds to those copies (fill, drain and the element-wise stores of C).
    pub const NARROW_32_TILE: f64 = 4.4e-6;
}

/// FLOP/s of `(aligned, A or B unaligned, only C unaligned)` calls on the tensor-core paths:
/// `hopper` with the sm_90a module loaded. FFMA is not staged: the CUDA-core kernels run unaligned
/// calls at their aligned speed (4095³ 41.5 against 42.7 TFLOPS).
fn flop_rates(math: Math, hopper: bool) -> Option<(f64, f64, f64)> {
    match (math, hopper) {
        (Math::Ffma, _) => None,
        (Math::MmaTf32 | Math::MmaTf32x3, true) => Some((350e12, 95e12, 130e12)),
        (Math::MmaTf32 | Math::MmaTf32x3, false) => Some((130e12, 78e12, 130e12)),
        (_, true) => Some((600e12, 85e12, 300e12)),
        (_, false) => Some((300e12, 74e12, 300e12)),
    }
}

/// Whether an operand needs staging: its base, leading dimension or batch stride is not a whole
/// number of 16-byte chunks.
fn misaligned(op: &OperandLayout) -> bool {
    !op.alignment.all()
}

/// Throughput of a TMA kernel reading an operand whose rows start off 32-byte sectors, as a
/// fraction of its speed on rows that start on them (H200, 128×256 and 128×192 kernels unstaged,
/// TFLOPS: f16 4096³ at `ld` 4104 582 against 771 packed and 720 at `ld` 4112, whose rows are on
/// sectors but off 128-byte lines; f16 3000³ 471 against 633 at `ld` 3008; TF32 4096³ at `ld` 4100
/// 289 against 421 packed and 411 at `ld` 4104; docs/hopper-log.md, "Rows off 32-byte sectors").
const OFF_SECTORS: f64 = 0.72;

/// Whether `problem` runs on a stream kernel ([`Family::CudaCoreStream`],
/// [`dispatch::streams`]): A or B not 16-byte aligned, at most as many
/// rows as the tallest one's tile of its input, a precision that accepts FFMA. Those kernels
/// read any alignment of A and B with aligned 16-byte loads, so copying an operand would only add
/// its traffic twice.
fn streamed(problem: &Problem) -> bool {
    let rows = KERNELS
        .iter()
        .filter(|k| k.family == Family::CudaCoreStream && k.input == problem.input())
        .map(|k| k.block.m)
        .max()
        .unwrap_or(0);
    (misaligned(problem.a()) || misaligned(problem.b()))
        && problem.gemm().m <= rows as usize
        && problem.maths().is_some_and(|ms| ms.contains(&Math::Ffma))
}

/// `problem` (resolved on buffers) as an exact FP32 call where that is faster than TF32: a call
/// whose first math is TF32 (`Precision::Tf32`, or `Default` with TF32 allowed), whose A or B is
/// not 16-byte aligned, and which an f32 stream kernel takes as exact FP32 ([`dispatch::streams`]:
/// at most its rows, in its layouts). The stream kernels read an unaligned weight as it lies with
/// aligned 16-byte loads; the TF32 kernels copy it element by element, or through a staged copy
/// (twice its traffic more), and are faster from 5 rows on. H200, same run as cuBLAS, TFLOPS
/// exact against TF32 unstaged on the 16- or 32-row `mma.sync` tile (docs/unaligned-log.md,
/// attempts 6 and 14): 1×32001×4096 1.92 (stream) / 0.55 (staged), 4×32001×4096 7.24 (stream) /
/// 6.42; but on the CUDA-core tiles 8×32001×4096 11.6 / 12.8, 16×32001×4096 18.4 / 25.5,
/// 16×50257×4096 14.8 / 20.7, 32×32001×4096 28.0 / 37.9. `None`: the call runs as asked.
pub(crate) fn exact_instead(problem: &Problem) -> Option<Problem> {
    let tf32_first = problem.maths()?.first() == Some(&Math::MmaTf32);
    let unaligned = misaligned(problem.a()) || misaligned(problem.b());
    if !(tf32_first && unaligned && problem.reads_ab()) {
        return None;
    }
    // FP32 inputs always resolve to `Exact` (FFMA)
    let exact = problem.with_precision(Precision::Exact).ok()?;
    let streamed = |k: &KernelSpec| {
        k.family == Family::CudaCoreStream
            && dispatch::streams(k, &exact)
            && crate::can_implement(k, &exact).is_ok()
    };
    KERNELS.iter().any(streamed).then_some(exact)
}

/// The staging of `problem` (resolved to its precision) on a device with the sm_90a module
/// (`hopper`) or not, within `limit` bytes of staging buffer: every operand that is not 16-byte
/// aligned, and on Hopper an A or B that TMA would read off 32-byte sectors ([`off_sectors`]).
/// `None` when the call runs as it is: nothing to stage, no product (`k == 0` or `alpha == 0`),
/// FFMA, a call the stream kernels take ([`streamed`]), a call whose only misfits are rows off
/// sectors that dispatch runs on tiles in pairs sharing B ([`Family::TmaPairs`], which read them
/// at full speed), or copies that would cost more than they save (the module comment).
/// `dispatched`: how dispatch runs a problem (asked of a call with A or B off sectors, and of a
/// TF32 call with an unaligned A or B and of its staged twin).
pub(crate) fn choose(
    problem: &Problem,
    hopper: bool,
    limit: u64,
    dispatched: impl Fn(&Problem) -> Option<Dispatched>,
) -> Option<Staging> {
    let (a, b, c) = (problem.a(), problem.b(), problem.c());
    let g = problem.gemm();
    let ab_misaligned = misaligned(a) || misaligned(b);
    // rows off 32-byte sectors slow TMA only (sm_80's cp.async is not measured to care), and the
    // tiles alone: not the pairs sharing B, which dispatch runs such a call on where it can
    let runs_on_pairs = || {
        tma_reads_off_sectors(problem)
            && dispatched(problem).is_some_and(|d| d.spec.family == Family::TmaPairs)
    };
    let paired = hopper && runs_on_pairs();
    let off = |op: &OperandLayout| hopper && !paired && off_sectors(op, g.batch);
    let staged = Staged {
        a: misaligned(a) || off(a),
        b: misaligned(b) || off(b),
        c: misaligned(c),
    };
    if !problem.reads_ab() || !staged.any() || streamed(problem) {
        return None;
    }
    let math = *problem.maths()?.first()?;
    let (aligned_rate, ab_rate, c_rate) = flop_rates(math, hopper)?;
    let staging = Staging::new(problem, staged);
    let too_wide = staging
        .copies
        .iter()
        .any(|c| c.cols.div_ceil(copy_rows::SEGMENT) > MAX_SEGMENTS);
    if staging.bytes > limit || too_wide {
        return None;
    }
    let flops = 2.0 * g.m as f64 * g.n as f64 * g.k as f64 * g.batch as f64;
    // each operand's traffic, one way
    let traffic = |op: &OperandLayout| PackedCopy::new(g, op, 0).bytes();
    // a 16-bit A or B read element by element: as fast as the blocks of the kernel dispatch runs
    // unstaged that the SMs hold at once
    let narrow_16 = if ab_misaligned && problem.input().bytes() == 2 {
        dispatched(problem).map_or(rate::NARROW_16, |d| d.narrow_16_rate(problem))
    } else {
        rate::NARROW_16
    };
    let stream_time = |op: &OperandLayout, staged: bool| {
        let rate = match op.elem.bytes() {
            _ if !misaligned(op) || staged || op.operand == Operand::C => rate::STREAM,
            2 => narrow_16,
            _ => rate::NARROW_32,
        };
        traffic(op) / rate
    };
    let memory = |staged: bool| -> f64 { [a, b, c].iter().map(|op| stream_time(op, staged)).sum() };
    let direct_rate = if ab_misaligned {
        ab_rate
    } else if misaligned(c) {
        c_rate
    } else {
        aligned_rate * OFF_SECTORS
    };
    // the latency of a k-step bounds a 16-bit call of few tiles, far more with A or B unaligned
    // (`floor_k`: the elements of K it counts, none for other inputs)
    let floor_k = if problem.input().bytes() == 2 {
        g.k as f64
    } else {
        0.0
    };
    let direct_floor = match problem.input().bytes() {
        _ if !ab_misaligned => 0.0,
        2 => floor_k * rate::NARROW_PER_K,
        _ => narrow_32_floor(problem, &staging, dispatched),
    };
    let direct = (flops / direct_rate).max(memory(false)).max(direct_floor);
    let aligned = (flops / aligned_rate)
        .max(memory(true))
        .max(floor_k * rate::ALIGNED_PER_K);
    let copies = staging
        .copies
        .iter()
        .map(|c| {
            // A and B in; C out, and in when read
            let ways = if c.operand == Operand::C && problem.reads_c() {
                2.0
            } else {
                1.0
            };
            ways * (2.0 * c.bytes() / rate::COPY + rate::LAUNCH)
        })
        .sum::<f64>();
    (copies + aligned < direct).then_some(staging)
}

/// How dispatch runs a call: its kernel, the k-slices it is split into and the blocks of it one SM
/// holds at once, on a device of `sms` SMs. A call with an unaligned A or B runs on the sm_80
/// kernels, whose element-wise copies bound it ([`Dispatched::copy_time`] for TF32,
/// [`Dispatched::narrow_16_rate`] for 16-bit inputs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dispatched {
    pub spec: &'static KernelSpec,
    pub slices: u32,
    /// Percent of the SMs its grid keeps busy ([`dispatch::fill_percent`]).
    pub fill: u32,
    pub sms: u32,
    /// Blocks of `spec` one SM holds at once (at least its `min_blocks_per_sm`).
    pub resident: u32,
}

impl Dispatched {
    /// The plan dispatch makes for `problem` on `sms` SMs with the kernels `loaded` says are, cut
    /// as `cuts` allows, with the blocks per SM `resident` says the device holds and the clusters
    /// of `s` CTAs `resident_clusters(s)` says it holds at once; `None` when no kernel takes it.
    pub(crate) fn of(
        problem: &Problem,
        sms: u32,
        cuts: Cuts,
        loaded: impl Fn(&KernelSpec) -> bool,
        resident: impl Fn(&KernelSpec) -> u32,
        resident_clusters: impl Fn(u32) -> u32,
    ) -> Option<Dispatched> {
        let cut = |s: &KernelSpec| calls::cut(s, problem, sms, cuts, &loaded, &resident_clusters);
        let spec = dispatch::select(KERNELS, problem, Some(sms), &loaded, cut)?;
        let chosen = cut(spec);
        Some(Dispatched {
            spec,
            slices: chosen.slices,
            fill: dispatch::fill_percent(spec, problem, sms, chosen),
            sms,
            resident: resident(spec).max(spec.min_blocks_per_sm).max(1),
        })
    }

    /// Bytes per second the kernel reads a 16-bit operand at with element-wide loads: its blocks
    /// the SMs hold at once ([`Dispatched::resident`] each, at most the call's blocks) at
    /// [`rate::NARROW_16_PER_BLOCK`] each, at most [`rate::STREAM`].
    pub(crate) fn narrow_16_rate(&self, problem: &Problem) -> f64 {
        let blocks = problem
            .work_items(self.spec.c_tile())
            .saturating_mul(u64::from(self.slices.max(1)));
        let held = u64::from(self.sms.max(1)) * u64::from(self.resident);
        (blocks.min(held) as f64 * rate::NARROW_16_PER_BLOCK).min(rate::STREAM)
    }

    /// Seconds the busiest block slot takes over its tiles when each tile of `BM×BN` copies
    /// `BM + BN` elements per element of its k-slice at [`rate::NARROW_32_PER_BLOCK`], plus
    /// [`rate::NARROW_32_TILE`] each. The blocks are spread over the SMs' `min_blocks_per_sm`
    /// slots each, and blocks sharing an SM do not slow each other (the copies are
    /// latency-bound): the busiest slot runs `⌈tiles · slices / (SMs · slots)⌉` tiles.
    pub(crate) fn copy_time(&self, problem: &Problem) -> f64 {
        let tile = self.spec.c_tile();
        let slices = u64::from(self.slices.max(1));
        let slots = u64::from(self.sms.max(1)) * u64::from(self.spec.min_blocks_per_sm.max(1));
        let items = problem.work_items(tile).saturating_mul(slices);
        let chain = (problem.gemm().k as u64).div_ceil(slices);
        let elements = chain as f64 * f64::from(tile.m + tile.n);
        items.div_ceil(slots) as f64 * (elements / rate::NARROW_32_PER_BLOCK + rate::NARROW_32_TILE)
    }
}

/// The direct time's floor of a TF32 call with an unaligned A or B: its copies on the kernel it
/// runs unstaged ([`Dispatched::copy_time`]) where staged it would run on a persistent (`wgmma`)
/// kernel keeping at least [`dispatch::PERSISTENT_FILL_PERCENT`] of the SMs busy (half: the fill
/// from which dispatch counts such kernels as filling them), whose speed the model's flop rates
/// count; none where staged it would run on an sm_80 kernel or on fewer SMs, latency-bound on few
/// tiles too, so the flop rates alone weigh the two. H200: aligned twins on the sm_80 tiles at
/// 0.64–0.83× the unstaged time on 33³ to 501³; staged onto the TF32 64×64 ping-pong tile from a
/// quarter of a wave (40–65 tiles, 255–501 deep, every layout) 0.53–0.80× the unstaged speed,
/// the copies (about 13 µs) costing more than the aligned twin's 1.35× faster kernel saves
/// (docs/hopper-log.md, session 49).
fn narrow_32_floor(
    problem: &Problem,
    staging: &Staging,
    dispatched: impl Fn(&Problem) -> Option<Dispatched>,
) -> f64 {
    let staged = staging.problem(problem, None).ok();
    let onto_wgmma = staged
        .and_then(|s| dispatched(&s))
        .is_some_and(|d| d.spec.family.persistent() && d.fill >= dispatch::PERSISTENT_FILL_PERCENT);
    if !onto_wgmma {
        return 0.0;
    }
    dispatched(problem).map_or(0.0, |d| d.copy_time(problem))
}
