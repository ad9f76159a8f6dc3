//! The parameter block every GEMM kernel takes by value, shared by host and device.
//!
//! Layout convention (row-major, like the host API): `C[m×n] = alpha·op(A)·op(B) + beta·C`.
//! - `op(A)` is `m×k`. Not transposed: A is stored `m×k` row-major with leading dimension `lda ≥ k`.
//!   Transposed: A is stored `k×m` row-major with `lda ≥ m`.
//! - `op(B)` is `k×n`. Not transposed: B is stored `k×n` row-major, `ldb ≥ n`. Transposed: `n×k`, `ldb ≥ k`.
//! - C is `m×n` row-major, `ldc ≥ n`.
//! - Batch item `z` starts at `a + z·stride_a` (elements), likewise B and C.

/// Bit flags in [`GemmParams::flags`]. (Bits 0 and 1 are unused: the transposes are part of the
/// kernel, fixed by its name.)
pub mod flags {
    /// A's base, `lda` and `stride_a` allow 16-byte vector loads.
    pub const VEC_A: u32 = 1 << 2;
    /// B's base, `ldb` and `stride_b` allow 16-byte vector loads.
    pub const VEC_B: u32 = 1 << 3;
    /// C's base, `ldc` and `stride_c` allow 16-byte vector stores.
    pub const VEC_C: u32 = 1 << 4;
    /// `beta == 0`: C is never read (NaN in C does not leak), as BLAS specifies.
    pub const BETA_ZERO: u32 = 1 << 5;
    /// TMA kernels: A's tensor map has a batch dimension (batch item `z` is coordinate `z`);
    /// otherwise every batch item reads item 0 (one batch item, or `stride_a == 0`).
    pub const TMA_BATCH_A: u32 = 1 << 6;
    /// TMA kernels: B's tensor map has a batch dimension.
    pub const TMA_BATCH_B: u32 = 1 << 7;
}

/// Kernel parameters, passed by value as the single kernel argument.
///
/// All addresses are device (generic-space) addresses; the kernel converts them to the global window.
/// Strides and leading dimensions are in elements of the operand's type.
///
/// ```
/// use tcgemm_kernels::params::GemmParams;
/// assert_eq!(core::mem::size_of::<GemmParams>(), 104);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GemmParams {
    /// Address of A (batch item 0).
    pub a: u64,
    /// Address of B (batch item 0).
    pub b: u64,
    /// Address of C (batch item 0); read when `beta != 0`, always written.
    pub c: u64,
    /// Leading dimension of A, in elements.
    pub lda: u64,
    /// Leading dimension of B, in elements.
    pub ldb: u64,
    /// Leading dimension of C, in elements.
    pub ldc: u64,
    /// Elements between consecutive batch items of A.
    pub stride_a: u64,
    /// Elements between consecutive batch items of B.
    pub stride_b: u64,
    /// Elements between consecutive batch items of C.
    pub stride_c: u64,
    /// Rows of `op(A)` and C.
    pub m: u32,
    /// Columns of `op(B)` and C.
    pub n: u32,
    /// Inner dimension.
    pub k: u32,
    /// Number of batch items (≥ 1).
    pub batch: u32,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of the prior C.
    pub beta: f32,
    /// Bit set of [`flags`].
    pub flags: u32,
    /// Tile rasterization: consecutive block indices walk `group_m` tile rows before moving along N
    /// (L2 reuse). 0 or 1 means plain row-by-row order.
    pub group_m: u32,
}

impl GemmParams {
    /// Number of output tiles of `bm×bn` along M and N.
    pub const fn tiles(&self, bm: u32, bn: u32) -> (u32, u32) {
        (self.m.div_ceil(bm), self.n.div_ceil(bn))
    }
}

/// An opaque, host-encoded TMA tensor map (`CUtensorMap`: 128 bytes). TMA needs it 64-byte aligned;
/// Rust's PTX kernel ABI allows at most 16, so the PTX builder raises the alignment of the TMA
/// kernels' parameter to 64 (`tcgemm-build`'s `add_launch_bounds`) and the offsets below are
/// multiples of 64.
///
/// ```
/// use tcgemm_kernels::params::TensorMap;
/// assert_eq!(core::mem::size_of::<TensorMap>(), 128);
/// ```
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TensorMap(pub [u64; 16]);

/// The single kernel argument of the TMA (sm_90a) kernels: the tensor maps of A and B, then the
/// usual [`GemmParams`]. Kernels read the maps in place, in kernel-parameter memory (TMA needs them
/// there, in constant or in global memory, 64-byte aligned).
///
/// ```
/// use tcgemm_kernels::params::TmaParams;
/// assert_eq!(core::mem::size_of::<TmaParams>(), 368);
/// assert_eq!(core::mem::offset_of!(TmaParams, map_b), 128);
/// assert_eq!(core::mem::offset_of!(TmaParams, p), 256);
/// ```
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TmaParams {
    /// A's tensor map: dimensions (k, rows of op(A), batch), box (BK, BM, 1), 128-byte swizzle.
    pub map_a: TensorMap,
    /// B's tensor map: dimensions (k, columns of op(B), batch), box (BK, BN, 1), 128-byte swizzle.
    pub map_b: TensorMap,
    /// Everything else.
    pub p: GemmParams,
}

/// The single kernel argument of the element-wise conversion kernels: `dst[i] = convert(src[i])`
/// for `i < len`.
///
/// ```
/// use tcgemm_kernels::params::ConvertParams;
/// assert_eq!(core::mem::size_of::<ConvertParams>(), 32);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConvertParams {
    /// Address of the source elements.
    pub src: u64,
    /// Address of the destination elements.
    pub dst: u64,
    /// Number of elements.
    pub len: u64,
    /// Source and destination allow 16-byte vector accesses (1) or not (0).
    pub vector: u32,
    /// Padding to 8 bytes.
    pub _pad: u32,
}

/// The single kernel argument of the instruction-ceiling kernels.
///
/// ```
/// use tcgemm_kernels::params::CeilingParams;
/// assert_eq!(core::mem::size_of::<CeilingParams>(), 24);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CeilingParams {
    /// Address of the output: one f32 per launched thread (keeps every chain live).
    pub out: u64,
    /// Loop trips; each trip issues `8 × UNROLL` instructions per thread (FFMA) or per warp (MMA).
    pub trips: u32,
    /// Seed of the operand values (MMA ceilings).
    pub seed: u32,
    /// FFMA ceiling: the multiplier and addend of every chain.
    pub x: f32,
    /// FFMA ceiling: the addend.
    pub y: f32,
}

/// The single kernel argument of the split-K reduction kernels
/// (`config::Family::SplitkReduce`): `C[i,j] = alpha·(Σ_{s<slices} W[s][i,j]) + beta·C[i,j]`,
/// summed in slice order (bitwise reproducible), converted to C's element with round to nearest
/// even. `W[s][i,j]` is the f32 at `workspace + (s·slice_stride + i·ldw + j)·4`.
///
/// Flags ([`flags`]): `BETA_ZERO` (C is not read), `VEC_C` (C's base and `ldc` allow one vector
/// access per group of 4 elements: 16 bytes of f32, 8 bytes of 16-bit elements). The workspace is
/// always read 16 bytes at a time: its base is 16-byte aligned and `ldw`, `slice_stride` are
/// multiples of 4.
///
/// ```
/// use tcgemm_kernels::params::SplitkReduceParams;
/// assert_eq!(core::mem::size_of::<SplitkReduceParams>(), 64);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitkReduceParams {
    /// Address of slice 0 of the f32 workspace.
    pub workspace: u64,
    /// Address of C.
    pub c: u64,
    /// Elements (f32) between consecutive slices of the workspace, a multiple of 4.
    pub slice_stride: u64,
    /// Leading dimension of the workspace, in elements, a multiple of 4 and ≥ `n`.
    pub ldw: u64,
    /// Leading dimension of C, in elements.
    pub ldc: u64,
    /// Rows of C.
    pub m: u32,
    /// Columns of C.
    pub n: u32,
    /// Number of slices summed (≥ 1).
    pub slices: u32,
    /// Scale of the sum.
    pub alpha: f32,
    /// Scale of the prior C.
    pub beta: f32,
    /// Bit set of [`flags`] (`BETA_ZERO`, `VEC_C`).
    pub flags: u32,
}
