//! The one tile-configuration vocabulary of tcgemm, shared by the kernels, the PTX builder and the host.
//!
//! Every kernel entry point has one record in [`KERNELS`] (produced from its one line in the
//! [`catalog`](crate::catalog)) with its systematic name (the PTX symbol, the dispatch key, the
//! benchmark id and the test name), its tile shapes, and its launch shape. The builder writes
//! `.maxntid`/`.minnctapersm` from `threads`/`min_blocks_per_sm`; the host derives the grid, block
//! and dynamic shared memory from the same record.

pub use crate::catalog::KERNELS;

/// A PTX module tcgemm builds. Each kernel has one home module ([`KernelSpec::target`]); the
/// `sm_90` module carries second builds of some `sm_80` kernels ([`KernelSpec::built_in`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `sm_80` PTX: CUDA-core and `mma.sync` kernels. Runs (JIT-compiled) on every device ≥ 8.0.
    Sm80,
    /// `sm_90` PTX: the `sm_80` module's TF32 `mma.sync` kernels built for sm_90, where one
    /// `cvt.rn.tf32.f32` rounds an operand (two instructions and predicate spills before sm_90),
    /// and the split-K reduction, which waits there for the launch it follows
    /// (`griddepcontrol.wait`). Devices ≥ 9.0 run these in place of the `sm_80` module's copies.
    Sm90,
    /// `sm_90a` PTX: Hopper kernels (`wgmma`, TMA, `mbarrier`). Runs only on compute capability 9.0.
    Sm90a,
}

impl Target {
    /// Every target, in build and load order (a kernel built in two modules is taken from the
    /// later one where both load).
    pub const ALL: [Target; 3] = [Target::Sm80, Target::Sm90, Target::Sm90a];

    /// The `-C target-cpu` / `ptxas -arch` name.
    pub const fn cpu(self) -> &'static str {
        match self {
            Target::Sm80 => "sm_80",
            Target::Sm90 => "sm_90",
            Target::Sm90a => "sm_90a",
        }
    }

    /// File name of the module's PTX (in `ptx/` of the repository and in the build's `OUT_DIR`).
    pub const fn ptx_file(self) -> &'static str {
        match self {
            Target::Sm80 => "tcgemm_sm80.ptx",
            Target::Sm90 => "tcgemm_sm90.ptx",
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
    /// TF32 `wgmma` whose f32 accumulation restarts every k-tile, each k-tile's sum then added into
    /// registers with `add.rn.f32`: the tensor core's accumulation truncates at every step, an
    /// error that grows like `k` (docs/precision.md), and `Precision::Tf32x3` sums three times `k`.
    MmaTf32x3,
}

impl Math {
    /// Depth (k) of one instruction: 1 for FFMA, 8 for TF32 and 16 for 16-bit `mma.sync` (the
    /// `wgmma` forms tcgemm uses consume the same k per instruction).
    ///
    /// ```
    /// use tcgemm_kernels::config::Math;
    /// assert_eq!((Math::Ffma.instruction_k(), Math::MmaTf32.instruction_k()), (1, 8));
    /// ```
    pub const fn instruction_k(self) -> u32 {
        match self {
            Math::Ffma => 1,
            Math::MmaTf32 | Math::MmaTf32x3 => 8,
            Math::MmaF16F32 | Math::MmaF16F16 | Math::MmaBf16F32 => 16,
        }
    }
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
    /// FP32 on CUDA cores for few rows of C (LLM decode): `fma.rn.f32` from a `cp.async`
    /// multistage shared-memory pipeline; a block tile of a few rows, each warp's lanes own all
    /// its rows × a few columns and the warps split every k-tile into k-slices, summed through
    /// shared memory at the end. Any alignment.
    CudaCoreMultistage,
    /// CUDA cores for a few rows of C (LLM decode, `m` ≤ the tile's rows), f16 or bf16 inputs
    /// (the body also takes f32; the catalog declares none): B streamed from global memory into registers (16-byte chunks, realigned where
    /// they are not 16-byte aligned), A staged in shared memory as f32, `fma.rn.f32`. Any
    /// alignment.
    CudaCoreStream,
    /// The seed TF32 `mma.sync` kernel (seed 000), kept as the named baseline.
    MmaSyncSeed,
    /// `mma.sync` tensor cores fed by a `cp.async` multistage shared-memory pipeline (TF32, FP16,
    /// BF16). Any alignment: narrower copies where 16-byte ones are not allowed.
    MmaSyncMultistage,
    /// sm_90a: TMA loads into an `mbarrier` stage ring, `wgmma` consumers, one producer and two
    /// consumer warpgroups, persistent (one CTA per SM). Needs TMA's alignment.
    TmaWarpSpecialized,
    /// sm_90a: the [`TmaWarpSpecialized`](Family::TmaWarpSpecialized) body for a TF32 A stored
    /// M-major (`tn`, `tt`): TMA writes A's boxes as it writes a 16-bit M-major operand, and the
    /// consumers load their fragments of A into registers for `wgmma` (A from registers) instead
    /// of the producer transposing A in shared memory (`warp::wgmma_register_a`). In `nn` (B
    /// stored N-major, A K-major) the kernel swaps the operands ([`KernelSpec::swaps_ab`]): it
    /// computes `Cᵀ = op(B)ᵀ·op(A)ᵀ`, a `tt` product whose register operand is B, and stores its
    /// tile transposed. Needs TMA's alignment.
    TmaRegisterA,
    /// sm_90a: the [`TmaWarpSpecialized`](Family::TmaWarpSpecialized) body on 64-row tiles whose
    /// two consumer warpgroups each compute whole tiles, taking the CTA's work units in turn
    /// (ping-pong): one consumer's epilogue runs while the other's `wgmma`s do, where a 64-row
    /// tile of [`TmaWarpSpecialized`](Family::TmaWarpSpecialized) splits its columns between
    /// both. For many short work units (small batched items, small k). No stream-K. Needs TMA's
    /// alignment.
    TmaPingPong,
    /// sm_90a: the [`TmaWarpSpecialized`](Family::TmaWarpSpecialized) body (128-row tiles) in
    /// thread-block clusters of two CTAs along x, each work unit two tiles one above the other
    /// that read the same columns of B: each CTA loads its own A and half of B's stage, which TMA
    /// multicasts into both (`.multicast::cluster`), so a CTA reads `BM + BN / 2` rows per k-tile
    /// from L2 instead of `BM + BN`. A stage is refilled once both CTAs' consumers have released
    /// it (one arrival per consumer warp on each CTA's barrier). No stream-K. Needs TMA's
    /// alignment.
    TmaPairs,
    /// sm_90a: the [`TmaWarpSpecialized`](Family::TmaWarpSpecialized) body with a producer
    /// warpgroup that copies the operands by threads (`ld.global` into registers, then
    /// `st.shared` into the same 128-byte-swizzled stages), persistent. Any alignment of A and B
    /// (whole elements); 16-bit operands in every layout, TF32 with both operands K-major.
    LdgWarpSpecialized,
    /// An instruction-ceiling microbenchmark (never dispatched; takes [`CeilingParams`](crate::params::CeilingParams)).
    Ceiling,
    /// An element-wise conversion (never dispatched; takes [`ConvertParams`](crate::params::ConvertParams)).
    Convert,
    /// A strided copy of a matrix's elements, bits unchanged (never dispatched; takes
    /// [`CopyParams`](crate::params::CopyParams)): stages operands that are not 16-byte aligned.
    CopyRows,
    /// The split of f32 operands into TF32 high parts and residuals, three parts along K (never
    /// dispatched; takes [`SplitParams`](crate::params::SplitParams)): `Precision::Tf32x3`.
    SplitTf32,
    /// The split-K reduction `C = alpha·Σ_s W[s] + beta·C` over the f32 slices of a split launch
    /// without counters (never dispatched; run by the host after the slices, with the slices'
    /// own [`GemmParams`](crate::params::GemmParams)).
    SplitkReduce,
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
    /// [`CopyParams`](crate::params::CopyParams).
    Copy,
    /// [`SplitParams`](crate::params::SplitParams).
    Split,
}

impl Family {
    /// The module that carries the family's kernels.
    pub const fn target(self) -> Target {
        match self {
            Family::TmaWarpSpecialized
            | Family::TmaRegisterA
            | Family::TmaPingPong
            | Family::TmaPairs
            | Family::LdgWarpSpecialized => Target::Sm90a,
            _ => Target::Sm80,
        }
    }

    /// GEMM or utility.
    pub const fn role(self) -> Role {
        match self {
            Family::Ceiling => Role::Ceiling,
            Family::Convert => Role::Convert,
            Family::CopyRows => Role::Copy,
            Family::SplitTf32 => Role::Split,
            Family::SplitkReduce => Role::SplitkReduce,
            _ => Role::Gemm,
        }
    }

    /// The kernel's single by-value argument.
    pub const fn params(self) -> ParamsKind {
        match self {
            Family::TmaWarpSpecialized
            | Family::TmaRegisterA
            | Family::TmaPingPong
            | Family::TmaPairs => ParamsKind::Tma,
            Family::Ceiling => ParamsKind::Ceiling,
            Family::Convert => ParamsKind::Convert,
            Family::CopyRows => ParamsKind::Copy,
            Family::SplitTf32 => ParamsKind::Split,
            _ => ParamsKind::Gemm,
        }
    }

    /// One CTA per SM walking the work items (`tile + z·tiles`), instead of one CTA per tile.
    pub const fn persistent(self) -> bool {
        matches!(
            self,
            Family::TmaWarpSpecialized
                | Family::TmaRegisterA
                | Family::TmaPingPong
                | Family::TmaPairs
                | Family::LdgWarpSpecialized
        )
    }

    /// Operands arrive through TMA tensor maps: 16-byte-aligned bases, leading dimensions and
    /// batch strides are required.
    pub const fn needs_tma(self) -> bool {
        matches!(
            self,
            Family::TmaWarpSpecialized
                | Family::TmaRegisterA
                | Family::TmaPingPong
                | Family::TmaPairs
        )
    }

    /// CTAs per thread-block cluster of the family's launches (1: no clusters; a split within
    /// clusters sets its own).
    pub const fn cluster(self) -> u32 {
        match self {
            Family::TmaPairs => 2,
            _ => 1,
        }
    }
}

/// What an entry point is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A GEMM kernel: dispatch may choose it.
    Gemm,
    /// An instruction-ceiling microbenchmark (see [`ceiling_flops_per_trip`]): never dispatched.
    /// Takes a [`CeilingParams`](crate::params::CeilingParams): `trips` loop trips, `out` receives
    /// one f32 per thread.
    Ceiling,
    /// An element-wise conversion `input → output`: never dispatched. Takes a
    /// [`ConvertParams`](crate::params::ConvertParams) (`src` → `dst`, `len` elements).
    Convert,
    /// A strided copy of `input`-sized elements, bits unchanged: never dispatched; the host runs it
    /// to stage an operand that is not 16-byte aligned. Takes a
    /// [`CopyParams`](crate::params::CopyParams).
    Copy,
    /// The TF32 split of `Precision::Tf32x3`'s operands: never dispatched; the host runs it
    /// before the TF32 product. Takes a [`SplitParams`](crate::params::SplitParams).
    Split,
    /// The split-K reduction of a split launch's f32 slices into C: never dispatched; the host runs
    /// it after the slices when their tiles are too large for the fused tail. Takes the slices'
    /// [`GemmParams`](crate::params::GemmParams).
    SplitkReduce,
}

/// Multiply-accumulate instructions per loop trip of a ceiling kernel: per thread for FFMA, per
/// warp for MMA (8 chains, [`UNROLL`](crate::utility::ceiling::UNROLL) rounds).
pub const CEILING_INSTR_PER_TRIP: u64 = 8 * crate::utility::ceiling::UNROLL as u64;

/// FLOPs one block of a ceiling kernel performs per loop trip.
pub const fn ceiling_flops_per_trip(math: Math, threads: u32) -> u64 {
    let per_instr: u64 = match math {
        Math::Ffma => 2,
        Math::MmaTf32 | Math::MmaTf32x3 => 2 * 16 * 8 * 8,
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
    /// Declared in the catalog's layout `nn_swap` or `nt_swap`: the kernel computes
    /// `Cᵀ = op(B)ᵀ·op(A)ᵀ` ([`swaps_ab`](Self::swaps_ab), which also holds for every `nn`
    /// kernel of the [`TmaRegisterA`](Family::TmaRegisterA) family).
    pub swap_ab: bool,
}

impl KernelSpec {
    /// Its home module: the one every device that runs it loads.
    pub const fn target(&self) -> Target {
        self.family.target()
    }

    /// Whether module `t` carries it: its home module, and the `sm_90` module too for the `sm_80`
    /// module's TF32 `mma.sync` kernels (not the seed, which keeps `cvt.rna.tf32.f32` everywhere)
    /// and for the split-K reduction kernel (which waits there for the split launch it follows as
    /// a programmatic dependent launch).
    ///
    /// ```
    /// use tcgemm_kernels::config::{find_kernel, Target};
    /// let k = find_kernel("tf32_nn_swap_128x256x32_w64x64_s3").unwrap();
    /// assert!(k.built_in(Target::Sm80) && k.built_in(Target::Sm90) && !k.built_in(Target::Sm90a));
    /// let seed = find_kernel("tf32_nn_128x128x16_w32x64_s2_seed").unwrap();
    /// assert!(!seed.built_in(Target::Sm90));
    /// let reduce = find_kernel("splitk_reduce").unwrap();
    /// assert!(reduce.built_in(Target::Sm80) && reduce.built_in(Target::Sm90));
    /// ```
    pub fn built_in(&self, t: Target) -> bool {
        match t {
            Target::Sm90 => {
                (self.family == Family::MmaSyncMultistage && self.math == Math::MmaTf32)
                    || self.family == Family::SplitkReduce
            }
            _ => self.target() == t,
        }
    }

    /// GEMM kernel or utility.
    pub const fn role(&self) -> Role {
        self.family.role()
    }

    /// The kernel computes `Cᵀ = op(B)ᵀ·op(A)ᵀ`: its body reads the call's B as its A and the
    /// call's A as its B (the host exchanges them, and `m` with `n`, in the parameters it passes:
    /// `GemmParams::swapped`), and stores its tile of `Cᵀ` transposed, into C as the call laid
    /// it out. Two kinds of kernel swap:
    /// - every [`TmaRegisterA`](Family::TmaRegisterA) kernel in `nn`: the swap turns the N-major
    ///   B into the M-major operand it reads into registers;
    /// - the kernels the catalog declares in the layouts `nn_swap` and `nt_swap`
    ///   ([`swap_ab`](Self::swap_ab)). The TF32 `mma.sync` 128×256 tile in `nn`, whose body reads
    ///   an N-major B with one shared load per fragment register, while the swapped product reads
    ///   the call's B as an M-major A (8-byte row pairs) and the call's A as a K-major B
    ///   (`ldmatrix`; docs/kernel-log.md, session 42): its tile of C is 256×128, beside the
    ///   unswapped kernel's 128×256, and dispatch picks between them by padding and rank. The
    ///   16-bit 32-wide ping-pong tile in `nn` and `nt` (docs/decode-log.md, sessions 68–70): a
    ///   tile of 32 rows × 64 columns of C, where the unswapped `nt` tile computes 64 rows for a
    ///   decode call's at most 32.
    ///
    /// ```
    /// use tcgemm_kernels::config::find_kernel;
    /// let nn = find_kernel("tf32_nn_128x256x32_w64x256_s4_tma_areg").unwrap();
    /// assert!(nn.swaps_ab());
    /// assert_eq!(nn.body_layout(), (true, true));
    /// assert_eq!((nn.c_tile().m, nn.c_tile().n), (256, 128));
    /// assert!(!find_kernel("tf32_tt_128x256x32_w64x256_s4_tma_areg").unwrap().swaps_ab());
    /// let nn = find_kernel("tf32_nn_swap_128x256x32_w64x64_s3").unwrap();
    /// assert!(nn.swaps_ab() && nn.body_layout() == (true, true));
    /// assert!(!find_kernel("tf32_nn_128x256x32_w64x64_s3").unwrap().swaps_ab());
    /// let nt = find_kernel("f16_f16_nt_swap_64x32x64_w64x32_s16_tma_pp").unwrap();
    /// assert!(nt.swaps_ab() && nt.body_layout() == (false, true));
    /// assert_eq!((nt.c_tile().m, nt.c_tile().n), (32, 64));
    /// ```
    pub const fn swaps_ab(&self) -> bool {
        self.swap_ab
            || (matches!(self.family, Family::TmaRegisterA) && !self.trans_a && !self.trans_b)
    }

    /// `(trans_a, trans_b)` of the operands as the kernel's body reads them: the call's layout,
    /// or for a kernel that [swaps](KernelSpec::swaps_ab) A and B, `(!trans_b, !trans_a)` (the
    /// call's B stored transposed is its A stored as is).
    pub const fn body_layout(&self) -> (bool, bool) {
        if self.swaps_ab() {
            (!self.trans_b, !self.trans_a)
        } else {
            (self.trans_a, self.trans_b)
        }
    }

    /// Whether the kernel shares the k-tiles of its last work items out among its CTAs
    /// (stream-K, [`StreamK`](crate::params::StreamK)): the persistent kernels whose registers
    /// allow it ([`tma_warp_specialized::shares_k_tiles`](crate::threadblock::tma_warp_specialized::shares_k_tiles)).
    ///
    /// ```
    /// use tcgemm_kernels::config::find_kernel;
    /// assert!(find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma").unwrap().streams_k());
    /// assert!(!find_kernel("f16_f16_nt_128x128x64_w64x128_s6_ldg").unwrap().streams_k());
    /// ```
    pub const fn streams_k(&self) -> bool {
        self.family.persistent()
            && self.family.cluster() == 1
            && crate::threadblock::tma_warp_specialized::shares_k_tiles(
                matches!(self.family, Family::LdgWarpSpecialized),
                matches!(self.family, Family::TmaPingPong),
                matches!(self.family, Family::TmaRegisterA),
                self.body_layout().1,
                self.block.n,
            )
    }

    /// Whether the kernel adds the k-slices of a split within thread-block clusters (the host's
    /// `flags::CLUSTER_SPLIT`): a kernel that [streams k](KernelSpec::streams_k) whose registers
    /// also allow the cluster's adds
    /// ([`tma_warp_specialized::splits_in_clusters`](crate::threadblock::tma_warp_specialized::splits_in_clusters)).
    ///
    /// ```
    /// use tcgemm_kernels::config::find_kernel;
    /// assert!(find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma").unwrap().splits_in_clusters());
    /// let tt = find_kernel("tf32_tt_128x256x32_w64x256_s4_tma_areg").unwrap();
    /// assert!(tt.streams_k() && !tt.splits_in_clusters());
    /// ```
    pub const fn splits_in_clusters(&self) -> bool {
        self.streams_k()
            && crate::threadblock::tma_warp_specialized::splits_in_clusters(
                matches!(self.family, Family::TmaRegisterA),
                self.block.n,
            )
    }

    /// The tile of the call's C one work item (or CTA) covers: the block tile, or its transpose
    /// for a kernel that [swaps](KernelSpec::swaps_ab) A and B (rows of its tile are columns of
    /// C). Tile counts, padding and waves are counted on it.
    pub const fn c_tile(&self) -> GemmShape {
        if self.swaps_ab() {
            GemmShape::new(self.block.n, self.block.m, self.block.k)
        } else {
            self.block
        }
    }

    /// The part of the call's C one work unit covers: the [`c_tile`](Self::c_tile), or for a
    /// kernel of clusters ([`Family::cluster`]) that many tiles stacked along its rows, one per
    /// CTA of the cluster (`Family::TmaPairs`: two). Persistent launches count their work in units.
    ///
    /// ```
    /// use tcgemm_kernels::config::find_kernel;
    /// let pairs = find_kernel("f16_f16_nt_128x256x64_w64x256_s4_tma_x2").unwrap();
    /// assert_eq!((pairs.unit_tile().m, pairs.unit_tile().n), (256, 256));
    /// ```
    pub const fn unit_tile(&self) -> GemmShape {
        let tile = self.c_tile();
        GemmShape::new(tile.m * self.family.cluster(), tile.n, tile.k)
    }
}

/// Whether the body's operand A (`a`) or B of a TMA kernel ([`KernelSpec::body_layout`]: after
/// a [swap](KernelSpec::swaps_ab), A is the call's B) is transposed in shared memory: a TF32
/// operand stored MN-major (A transposed, B not transposed), except A in the
/// [`TmaRegisterA`](Family::TmaRegisterA) kernels, whose consumers read it into registers. Its
/// tensor map is unswizzled with boxes of 32 rows × 32 k, which the kernel's producer warpgroup
/// transposes in place.
///
/// ```
/// use tcgemm_kernels::config::{find_kernel, tma_staged};
/// let nn = find_kernel("tf32_nn_128x256x32_w64x256_s4_tma").unwrap();
/// assert!(!tma_staged(nn, true) && tma_staged(nn, false));
/// let tn = find_kernel("tf32_tn_128x256x32_w64x256_s4_tma_areg").unwrap();
/// assert!(!tma_staged(tn, true) && tma_staged(tn, false));
/// let nn = find_kernel("tf32_nn_128x256x32_w64x256_s4_tma_areg").unwrap();
/// assert!(!tma_staged(nn, true) && !tma_staged(nn, false));
/// ```
pub const fn tma_staged(spec: &KernelSpec, a: bool) -> bool {
    let (trans_a, trans_b) = spec.body_layout();
    spec.family.needs_tma()
        && matches!(spec.input, Elem::F32)
        && if a {
            trans_a && !matches!(spec.family, Family::TmaRegisterA)
        } else {
            !trans_b
        }
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
