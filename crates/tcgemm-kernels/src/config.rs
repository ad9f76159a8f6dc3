//! The one tile-configuration vocabulary of tcgemm, shared by the kernels, the PTX builder and the host.
//!
//! Every kernel entry point is listed once in [`KERNELS`] with its systematic name (the PTX symbol, the
//! dispatch key, the benchmark id and the test name), its tile shapes, and its launch shape. The builder
//! writes `.maxntid`/`.minnctapersm` from `threads`/`min_blocks_per_sm`; the host derives the grid,
//! block and dynamic shared memory from the same record.

/// A PTX module tcgemm builds. Each kernel lives in exactly one module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `sm_80` PTX: CUDA-core and `mma.sync` kernels. Runs (JIT-compiled) on every device ≥ 8.0.
    Sm80,
    /// `sm_90a` PTX: Hopper kernels (`wgmma`, TMA, `mbarrier`). Runs only on compute capability 9.0.
    Sm90a,
}

impl Target {
    /// Every target, in build order.
    pub const ALL: [Target; 2] = [Target::Sm80, Target::Sm90a];

    /// The `-C target-cpu` / `ptxas -arch` name.
    pub const fn cpu(self) -> &'static str {
        match self {
            Target::Sm80 => "sm_80",
            Target::Sm90a => "sm_90a",
        }
    }

    /// File name of the module's PTX (in `ptx/` of the repository and in the build's `OUT_DIR`).
    pub const fn ptx_file(self) -> &'static str {
        match self {
            Target::Sm80 => "tcgemm_sm80.ptx",
            Target::Sm90a => "tcgemm_sm90a.ptx",
        }
    }
}

/// Element type of an operand in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
}

impl Elem {
    /// Size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Elem::F32 => 4,
            Elem::F16 | Elem::Bf16 => 2,
        }
    }
}

/// The instruction that does the multiply-accumulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Math {
    /// `fma.rn.f32` on CUDA cores.
    Ffma,
    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` (inputs rounded with `cvt.rna.tf32.f32`).
    MmaTf32,
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`.
    MmaF16F32,
    /// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16` (f16 accumulation).
    MmaF16F16,
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
    MmaBf16F32,
}

/// `M×N×K` extents of a block tile, warp tile or instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmShape {
    /// Rows.
    pub m: u32,
    /// Columns.
    pub n: u32,
    /// Depth.
    pub k: u32,
}

impl GemmShape {
    /// Shorthand constructor.
    pub const fn new(m: u32, n: u32, k: u32) -> Self {
        GemmShape { m, n, k }
    }
}

/// The mechanism of a kernel. Everything that depends on "how the kernel works" (its module, its
/// parameter block, whether it is persistent, which calls it can take) is a method here, so no
/// caller tests a kernel's name, module or shape to learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// FP32 on CUDA cores: `fma.rn.f32`, a per-thread register tile, a two-stage shared-memory
    /// pipeline. Any alignment.
    CudaCore,
    /// The seed TF32 `mma.sync` kernel (seed 000), kept as the named baseline.
    MmaSyncSeed,
    /// `mma.sync` tensor cores fed by a `cp.async` multistage shared-memory pipeline (TF32, FP16,
    /// BF16). Any alignment: narrower copies where 16-byte ones are not allowed.
    MmaSyncMultistage,
    /// sm_90a: TMA loads into an `mbarrier` stage ring, `wgmma` consumers, one producer and two
    /// consumer warpgroups, persistent (one CTA per SM). Needs TMA's alignment.
    TmaWarpSpecialized,
    /// An instruction-ceiling microbenchmark (never dispatched; takes [`CeilingParams`](crate::params::CeilingParams)).
    Ceiling,
    /// An element-wise conversion (never dispatched; takes [`ConvertParams`](crate::params::ConvertParams)).
    Convert,
}

/// The parameter block an entry point takes by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamsKind {
    /// [`GemmParams`](crate::params::GemmParams).
    Gemm,
    /// [`TmaParams`](crate::params::TmaParams): A's and B's tensor maps, then `GemmParams`.
    Tma,
    /// [`CeilingParams`](crate::params::CeilingParams).
    Ceiling,
    /// [`ConvertParams`](crate::params::ConvertParams).
    Convert,
}

impl Family {
    /// The module that carries the family's kernels.
    pub const fn target(self) -> Target {
        match self {
            Family::TmaWarpSpecialized => Target::Sm90a,
            _ => Target::Sm80,
        }
    }

    /// GEMM or utility.
    pub const fn role(self) -> Role {
        match self {
            Family::Ceiling => Role::Ceiling,
            Family::Convert => Role::Convert,
            _ => Role::Gemm,
        }
    }

    /// The kernel's single by-value argument.
    pub const fn params(self) -> ParamsKind {
        match self {
            Family::TmaWarpSpecialized => ParamsKind::Tma,
            Family::Ceiling => ParamsKind::Ceiling,
            Family::Convert => ParamsKind::Convert,
            _ => ParamsKind::Gemm,
        }
    }

    /// One CTA per SM walking the work items (`tile + z·tiles`), instead of one CTA per tile.
    pub const fn persistent(self) -> bool {
        matches!(self, Family::TmaWarpSpecialized)
    }

    /// Operands arrive through TMA tensor maps: 16-byte-aligned bases, leading dimensions and
    /// batch strides are required.
    pub const fn needs_tma(self) -> bool {
        matches!(self, Family::TmaWarpSpecialized)
    }
}

/// What an entry point is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A GEMM kernel: dispatch may choose it.
    Gemm,
    /// An instruction-ceiling microbenchmark (see [`ceiling_flops_per_trip`]): never dispatched.
    /// `GemmParams::k` is the loop trip count, `c` receives one f32 per thread.
    Ceiling,
    /// An element-wise conversion `input → output` (`a` → `c`, `stride_a` elements): never dispatched.
    Convert,
}

/// Multiply-accumulate instructions per loop trip of a ceiling kernel: per thread for FFMA, per
/// warp for MMA (8 chains, 4 rounds).
pub const CEILING_INSTR_PER_TRIP: u64 = 8 * 4;

/// FLOPs one block of a ceiling kernel performs per loop trip.
pub const fn ceiling_flops_per_trip(math: Math, threads: u32) -> u64 {
    let per_instr: u64 = match math {
        Math::Ffma => 2,
        Math::MmaTf32 => 2 * 16 * 8 * 8,
        Math::MmaF16F32 | Math::MmaBf16F32 | Math::MmaF16F16 => 2 * 16 * 8 * 16,
    };
    let issuers = match math {
        Math::Ffma => threads as u64,
        _ => threads as u64 / 32,
    };
    issuers * CEILING_INSTR_PER_TRIP * per_instr
}

/// One kernel entry point and everything needed to launch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelSpec {
    /// PTX symbol, dispatch key, bench id and test name.
    pub name: &'static str,
    /// The mechanism: which body, which module, which parameter block, which launch rules.
    pub family: Family,
    /// Element type of A and B.
    pub input: Elem,
    /// Element type of C.
    pub output: Elem,
    /// Multiply-accumulate instruction.
    pub math: Math,
    /// A stored transposed (`k×m` row-major).
    pub trans_a: bool,
    /// B stored transposed (`n×k` row-major).
    pub trans_b: bool,
    /// Block tile.
    pub block: GemmShape,
    /// Warp tile (per-thread micro-tile for CUDA-core kernels: `m×n` per thread, `k` = 1).
    pub warp: GemmShape,
    /// Shared-memory pipeline stages.
    pub stages: u32,
    /// Threads per block (1-D blocks).
    pub threads: u32,
    /// Blocks per SM the kernel is built for (`.minnctapersm`).
    pub min_blocks_per_sm: u32,
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: u32,
    /// Dispatch preference among kernels that can run the same call: the highest rank wins.
    /// Baselines kept for comparison (e.g. the seed TF32 kernel) have a lower rank.
    pub rank: u32,
}

impl KernelSpec {
    /// The module that carries it.
    pub const fn target(&self) -> Target {
        self.family.target()
    }

    /// GEMM kernel or utility.
    pub const fn role(&self) -> Role {
        self.family.role()
    }
}

/// Dynamic shared memory of the FP32 SGEMM kernels: 2 stages × (A, B) × `8 × (128+4)` floats.
/// The device code asserts its layout needs exactly this.
pub const SGEMM_SMEM: u32 = 2 * 2 * 8 * (128 + 4) * 4;

/// Dynamic shared memory of the TF32 seed kernels: 2 stages × (A, B) × the larger operand layout,
/// `128 × (16+4)` (k-contiguous) or `16 × (128+4)` (contiguous along M/N) floats.
pub const TF32_SEED_SMEM: u32 = 2 * 2 * max_u32(128 * (16 + 4), 16 * (128 + 4)) * 4;

const fn max_u32(a: u32, b: u32) -> u32 {
    if a > b {
        a
    } else {
        b
    }
}

const fn sgemm(name: &'static str, trans_a: bool, trans_b: bool) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::CudaCore,
        input: Elem::F32,
        output: Elem::F32,
        math: Math::Ffma,
        trans_a,
        trans_b,
        block: GemmShape::new(128, 128, 8),
        warp: GemmShape::new(8, 8, 1),
        stages: 2,
        threads: 256,
        // 2 blocks/SM caps registers at 128. The `tn` variant (both operands contiguous along M/N, so
        // both carry 64-bit k-strides) needs 141 and spills 24 B under that cap: it runs 1 block/SM.
        min_blocks_per_sm: if trans_a && !trans_b { 1 } else { 2 },
        smem_bytes: SGEMM_SMEM,
        rank: 10,
    }
}

const fn tf32_seed(name: &'static str, trans_a: bool, trans_b: bool) -> KernelSpec {
    KernelSpec {
        block: GemmShape::new(128, 128, 16),
        warp: GemmShape::new(32, 64, 8),
        stages: 2,
        smem_bytes: TF32_SEED_SMEM,
        family: Family::MmaSyncSeed,
        // the baseline: only taken when asked for by name
        rank: 1,
        ..mma_tf32_128x128(name, trans_a, trans_b)
    }
}

/// Dynamic shared memory of the 16-bit `mma.sync` kernels: per stage, the larger of the two operand
/// layouts (`R×(BK+8)` or `BK×(R+8)` elements) for A and for B. Mirrors `gemm::mma16::smem_bytes`.
///
/// ```
/// use tcgemm_kernels::config::mma16_smem;
/// // 4 stages of a 128×256×32 tile; k-contiguous rows of 32 + 8 halves are the larger layout
/// assert_eq!(mma16_smem(128, 256, 32, 4), 4 * (128 + 256) * (32 + 8) * 2);
/// ```
pub const fn mma16_smem(bm: u32, bn: u32, bk: u32, stages: u32) -> u32 {
    const fn tile(r: u32, bk: u32) -> u32 {
        max_u32(r * (bk + 8) * 2, bk * (r + 8) * 2)
    }
    stages * (tile(bm, bk) + tile(bn, bk))
}

const fn mma16_128x128(
    name: &'static str,
    input: Elem,
    output: Elem,
    math: Math,
    trans_a: bool,
    trans_b: bool,
) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::MmaSyncMultistage,
        input,
        output,
        math,
        trans_a,
        trans_b,
        block: GemmShape::new(128, 128, 32),
        warp: GemmShape::new(64, 32, 16),
        stages: 4,
        threads: 256,
        min_blocks_per_sm: 2,
        smem_bytes: mma16_smem(128, 128, 32, 4),
        rank: 10,
    }
}

const fn mma16_128x256(
    name: &'static str,
    input: Elem,
    output: Elem,
    math: Math,
    trans_a: bool,
    trans_b: bool,
) -> KernelSpec {
    KernelSpec {
        block: GemmShape::new(128, 256, 32),
        warp: GemmShape::new(64, 64, 16),
        stages: 4,
        // 64×64 warp tiles: 128 accumulators, ~235 registers, so 1 block/SM. The default for
        // large problems: interleaved with cuBLAS on the H200 it beats the 128×128 family by 8%
        // at 4096³ and 8192³ (kernel-log.md); dispatch falls back to 128×128 and 64×64 tiles
        // where these would leave SMs idle or compute padding.
        min_blocks_per_sm: 1,
        smem_bytes: mma16_smem(128, 256, 32, 4),
        rank: 20,
        ..mma16_128x128(name, input, output, math, trans_a, trans_b)
    }
}

const fn ceiling(name: &'static str, input: Elem, math: Math) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::Ceiling,
        input,
        output: Elem::F32,
        math,
        trans_a: false,
        trans_b: false,
        block: GemmShape::new(1, 1, 1),
        warp: GemmShape::new(1, 1, 1),
        stages: 1,
        threads: 256,
        min_blocks_per_sm: 2,
        smem_bytes: 0,
        rank: 0,
    }
}

/// Dynamic shared memory of the multistage TF32 kernels: per stage the larger operand layout
/// (`R×(32+4)` or `32×(R+8)` floats) for A and for B. Mirrors `gemm::mma_tf32::smem_bytes`.
///
/// ```
/// use tcgemm_kernels::config::mma_tf32_smem;
/// // k-contiguous rows of 32 + 4 floats are the larger layout
/// assert_eq!(mma_tf32_smem(128, 128, 3), 3 * 2 * 128 * (32 + 4) * 4);
/// ```
pub const fn mma_tf32_smem(bm: u32, bn: u32, stages: u32) -> u32 {
    const fn tile(r: u32) -> u32 {
        max_u32(r * (32 + 4) * 4, 32 * (r + 8) * 4)
    }
    stages * (tile(bm) + tile(bn))
}

const fn mma_tf32_128x256(name: &'static str, trans_a: bool, trans_b: bool) -> KernelSpec {
    KernelSpec {
        block: GemmShape::new(128, 256, 32),
        warp: GemmShape::new(64, 64, 8),
        stages: 3,
        min_blocks_per_sm: 1,
        smem_bytes: mma_tf32_smem(128, 256, 3),
        rank: 20,
        ..mma_tf32_128x128(name, trans_a, trans_b)
    }
}

const fn mma_tf32_128x128(name: &'static str, trans_a: bool, trans_b: bool) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::MmaSyncMultistage,
        input: Elem::F32,
        output: Elem::F32,
        math: Math::MmaTf32,
        trans_a,
        trans_b,
        block: GemmShape::new(128, 128, 32),
        warp: GemmShape::new(64, 32, 8),
        stages: 3,
        threads: 256,
        min_blocks_per_sm: 2,
        smem_bytes: mma_tf32_smem(128, 128, 3),
        rank: 10,
    }
}

const fn convert(name: &'static str, input: Elem, output: Elem) -> KernelSpec {
    KernelSpec {
        family: Family::Convert,
        input,
        output,
        min_blocks_per_sm: 4,
        ..ceiling(name, input, Math::Ffma)
    }
}

const fn mma16_64x64(
    name: &'static str,
    input: Elem,
    output: Elem,
    math: Math,
    trans_a: bool,
    trans_b: bool,
) -> KernelSpec {
    KernelSpec {
        block: GemmShape::new(64, 64, 32),
        warp: GemmShape::new(16, 32, 16),
        stages: 4,
        min_blocks_per_sm: 4,
        smem_bytes: mma16_smem(64, 64, 32, 4),
        // For small and batched problems: dispatch takes it where larger tiles would be mostly
        // padding or leave SMs idle.
        rank: 3,
        ..mma16_128x128(name, input, output, math, trans_a, trans_b)
    }
}

/// Dynamic shared memory of the Hopper TMA kernels with `stages` stages: 1024 bytes of alignment
/// slack, `stages × (128 + 256) × 128` bytes of tiles, three 8-byte barriers per stage (`full`,
/// `empty`, and `loaded` for TF32 operands transposed in place, see [`tma_staged`]). Mirrors
/// `gemm::hopper::smem_bytes`.
///
/// ```
/// use tcgemm_kernels::config::hopper_smem;
/// assert_eq!(hopper_smem(4), 1024 + 4 * 48 * 1024 + 96);
/// ```
pub const fn hopper_smem(stages: u32) -> u32 {
    1024 + stages * (128 + 256) * 128 + stages * 24
}

/// A Hopper (sm_90a) kernel: TMA + `mbarrier` + `wgmma`, warp-specialized (one producer and two
/// consumer warpgroups), 128×256 tiles of 128-byte k-rows (k = 64 for 16-bit inputs), 4 stages,
/// any layout.
const fn hopper(
    name: &'static str,
    input: Elem,
    output: Elem,
    math: Math,
    trans_a: bool,
    trans_b: bool,
) -> KernelSpec {
    KernelSpec {
        name,
        family: Family::TmaWarpSpecialized,
        input,
        output,
        math,
        trans_a,
        trans_b,
        // one 128-byte swizzle row of k per tile row; wgmma k is 32 bytes
        block: GemmShape::new(128, 256, 128 / input.bytes()),
        warp: GemmShape::new(64, 256, 32 / input.bytes()),
        stages: 4,
        threads: 384,
        min_blocks_per_sm: 1,
        smem_bytes: hopper_smem(4),
        rank: 30,
    }
}

/// A Hopper TF32 kernel: as [`hopper`] with 32-deep k-tiles; an operand stored MN-major (which
/// `wgmma .tf32` cannot read) is transposed in shared memory (see [`tma_staged`]).
const fn hopper_tf32(name: &'static str, trans_a: bool, trans_b: bool) -> KernelSpec {
    hopper(name, Elem::F32, Elem::F32, Math::MmaTf32, trans_a, trans_b)
}

/// Whether operand A (`a`) or B of a TMA kernel is transposed in shared memory: a TF32 operand
/// stored MN-major (A transposed, B not transposed). Its tensor map is unswizzled with boxes of
/// 32 rows × 32 k, which the kernel's producer warpgroup transposes in place.
///
/// ```
/// use tcgemm_kernels::config::{find_kernel, tma_staged};
/// let nn = find_kernel("tf32_nn_128x256x32_w64x256_s4_tma").unwrap();
/// assert!(!tma_staged(nn, true) && tma_staged(nn, false));
/// ```
pub const fn tma_staged(spec: &KernelSpec, a: bool) -> bool {
    uses_tma_params(spec)
        && matches!(spec.input, Elem::F32)
        && if a { spec.trans_a } else { !spec.trans_b }
}

/// Every kernel entry point tcgemm builds.
pub const KERNELS: &[KernelSpec] = &[
    sgemm("sgemm_nn_128x128x8_t8x8_s2", false, false),
    sgemm("sgemm_nt_128x128x8_t8x8_s2", false, true),
    sgemm("sgemm_tn_128x128x8_t8x8_s2", true, false),
    sgemm("sgemm_tt_128x128x8_t8x8_s2", true, true),
    tf32_seed("tf32_nn_128x128x16_w32x64_s2_seed", false, false),
    tf32_seed("tf32_nt_128x128x16_w32x64_s2_seed", false, true),
    tf32_seed("tf32_tn_128x128x16_w32x64_s2_seed", true, false),
    tf32_seed("tf32_tt_128x128x16_w32x64_s2_seed", true, true),
    mma16_128x128(
        "f16_f32_nn_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_128x128(
        "f16_f32_nt_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_128x128(
        "f16_f32_tn_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_128x128(
        "f16_f32_tt_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_128x128(
        "f16_f16_nn_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_128x128(
        "f16_f16_nt_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_128x128(
        "f16_f16_tn_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_128x128(
        "f16_f16_tt_128x128x32_w64x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_128x128(
        "bf16_f32_nn_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_128x128(
        "bf16_f32_nt_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_128x128(
        "bf16_f32_tn_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_128x128(
        "bf16_f32_tt_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        true,
    ),
    mma16_128x128(
        "bf16_bf16_nn_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_128x128(
        "bf16_bf16_nt_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_128x128(
        "bf16_bf16_tn_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_128x128(
        "bf16_bf16_tt_128x128x32_w64x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        true,
    ),
    mma16_128x256(
        "f16_f32_nn_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_128x256(
        "f16_f32_nt_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_128x256(
        "f16_f32_tn_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_128x256(
        "f16_f32_tt_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_128x256(
        "f16_f16_nn_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_128x256(
        "f16_f16_nt_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_128x256(
        "f16_f16_tn_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_128x256(
        "f16_f16_tt_128x256x32_w64x64_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_128x256(
        "bf16_f32_nn_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_128x256(
        "bf16_f32_nt_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_128x256(
        "bf16_f32_tn_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_128x256(
        "bf16_f32_tt_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        true,
    ),
    mma16_128x256(
        "bf16_bf16_nn_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_128x256(
        "bf16_bf16_nt_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_128x256(
        "bf16_bf16_tn_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_128x256(
        "bf16_bf16_tt_128x256x32_w64x64_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        true,
    ),
    mma_tf32_128x256("tf32_nn_128x256x32_w64x64_s3", false, false),
    mma_tf32_128x256("tf32_nt_128x256x32_w64x64_s3", false, true),
    mma_tf32_128x256("tf32_tn_128x256x32_w64x64_s3", true, false),
    mma_tf32_128x256("tf32_tt_128x256x32_w64x64_s3", true, true),
    mma_tf32_128x128("tf32_nn_128x128x32_w64x32_s3", false, false),
    mma_tf32_128x128("tf32_nt_128x128x32_w64x32_s3", false, true),
    mma_tf32_128x128("tf32_tn_128x128x32_w64x32_s3", true, false),
    mma_tf32_128x128("tf32_tt_128x128x32_w64x32_s3", true, true),
    mma16_128x128(
        "f16_f16_nn_128x128x32_w64x32_s4_acc16",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F16,
        false,
        false,
    ),
    mma16_128x128(
        "f16_f16_nt_128x128x32_w64x32_s4_acc16",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F16,
        false,
        true,
    ),
    mma16_128x128(
        "f16_f16_tn_128x128x32_w64x32_s4_acc16",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F16,
        true,
        false,
    ),
    mma16_128x128(
        "f16_f16_tt_128x128x32_w64x32_s4_acc16",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F16,
        true,
        true,
    ),
    mma16_64x64(
        "f16_f32_nn_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_64x64(
        "f16_f32_nt_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_64x64(
        "f16_f32_tn_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_64x64(
        "f16_f32_tt_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_64x64(
        "f16_f16_nn_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        false,
    ),
    mma16_64x64(
        "f16_f16_nt_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        true,
    ),
    mma16_64x64(
        "f16_f16_tn_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        false,
    ),
    mma16_64x64(
        "f16_f16_tt_64x64x32_w16x32_s4",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        true,
    ),
    mma16_64x64(
        "bf16_f32_nn_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_64x64(
        "bf16_f32_nt_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_64x64(
        "bf16_f32_tn_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_64x64(
        "bf16_f32_tt_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        true,
    ),
    mma16_64x64(
        "bf16_bf16_nn_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        false,
    ),
    mma16_64x64(
        "bf16_bf16_nt_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        true,
    ),
    mma16_64x64(
        "bf16_bf16_tn_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        false,
    ),
    mma16_64x64(
        "bf16_bf16_tt_64x64x32_w16x32_s4",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        true,
    ),
    hopper(
        "f16_f32_nn_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        false,
    ),
    hopper(
        "f16_f32_nt_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        false,
        true,
    ),
    hopper(
        "f16_f32_tn_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        false,
    ),
    hopper(
        "f16_f32_tt_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F32,
        Math::MmaF16F32,
        true,
        true,
    ),
    hopper(
        "f16_f16_nn_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        false,
    ),
    hopper(
        "f16_f16_nt_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        false,
        true,
    ),
    hopper(
        "f16_f16_tn_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        false,
    ),
    hopper(
        "f16_f16_tt_128x256x64_w64x256_s4_tma",
        Elem::F16,
        Elem::F16,
        Math::MmaF16F32,
        true,
        true,
    ),
    hopper(
        "bf16_f32_nn_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        false,
    ),
    hopper(
        "bf16_f32_nt_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        false,
        true,
    ),
    hopper(
        "bf16_f32_tn_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        false,
    ),
    hopper(
        "bf16_f32_tt_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::F32,
        Math::MmaBf16F32,
        true,
        true,
    ),
    hopper(
        "bf16_bf16_nn_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        false,
    ),
    hopper(
        "bf16_bf16_nt_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        false,
        true,
    ),
    hopper(
        "bf16_bf16_tn_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        false,
    ),
    hopper(
        "bf16_bf16_tt_128x256x64_w64x256_s4_tma",
        Elem::Bf16,
        Elem::Bf16,
        Math::MmaBf16F32,
        true,
        true,
    ),
    hopper_tf32("tf32_nn_128x256x32_w64x256_s4_tma", false, false),
    hopper_tf32("tf32_nt_128x256x32_w64x256_s4_tma", false, true),
    hopper_tf32("tf32_tn_128x256x32_w64x256_s4_tma", true, false),
    hopper_tf32("tf32_tt_128x256x32_w64x256_s4_tma", true, true),
    ceiling("ceiling_ffma_f32", Elem::F32, Math::Ffma),
    ceiling("ceiling_mma_m16n8k8_tf32", Elem::F32, Math::MmaTf32),
    ceiling("ceiling_mma_m16n8k16_f16", Elem::F16, Math::MmaF16F32),
    ceiling("ceiling_mma_m16n8k16_bf16", Elem::Bf16, Math::MmaBf16F32),
    convert("convert_f32_to_f16", Elem::F32, Elem::F16),
    convert("convert_f32_to_bf16", Elem::F32, Elem::Bf16),
    convert("convert_f16_to_f32", Elem::F16, Elem::F32),
    convert("convert_bf16_to_f32", Elem::Bf16, Elem::F32),
];

/// Whether a kernel takes a [`TmaParams`](crate::params::TmaParams) (the sm_90a TMA kernels) instead
/// of a bare [`GemmParams`](crate::params::GemmParams).
///
/// ```
/// use tcgemm_kernels::config::{find_kernel, uses_tma_params};
/// assert!(!uses_tma_params(find_kernel("sgemm_nn_128x128x8_t8x8_s2").unwrap()));
/// ```
pub const fn uses_tma_params(spec: &KernelSpec) -> bool {
    matches!(spec.family.params(), ParamsKind::Tma)
}

/// Looks a kernel up by its name.
///
/// ```
/// assert!(tcgemm_kernels::config::find_kernel("no_such_kernel").is_none());
/// ```
pub fn find_kernel(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.name == name)
}

/// Rows of tiles walked before moving along N when rasterizing the grid (L2 reuse).
pub const DEFAULT_GROUP_M: u32 = 8;
