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
    /// Split-K ([`SplitTail::flags`](super::SplitTail::flags)): the call's C is f16.
    pub const OUT_F16: u32 = 1 << 8;
    /// Split-K ([`SplitTail::flags`](super::SplitTail::flags)): the call's C is bf16.
    pub const OUT_BF16: u32 = 1 << 9;
    /// Persistent kernels: a split along K whose `batch` k-slices of each output tile run as one
    /// thread-block cluster (CTA `b` is slice `b % batch` of tile `b / batch`); the first slice's
    /// CTA adds the others' partial tiles from their shared memory and stores C
    /// (`threadblock::cluster_split`).
    pub const CLUSTER_SPLIT: u32 = 1 << 10;
    /// TMA kernels (`beta == 0`): the consumers store C through shared memory with TMA bulk
    /// copies of [`TmaParams::map_c`](super::TmaParams::map_c) (`epilogue::tma_store`) instead of
    /// from their registers.
    pub const TMA_STORE_C: u32 = 1 << 11;
    /// 3xTF32 kernels (`Math::MmaTf32x3`): A and B hold each row's TF32 parts once, `[hi | lo]`,
    /// `k / 3` elements each, and k runs over three thirds of `k / 3` (a multiple of the k-tile):
    /// A's thirds read its parts hi, hi, lo and B's hi, lo, hi, so the product sums
    /// `hi·hi + hi·lo + lo·hi` (`utility::split_tf32` writes the parts; without the flag the
    /// operands hold the three thirds as they are read, as for any GEMM).
    pub const TF32X3_PARTS: u32 = 1 << 12;
}

/// Kernel parameters, passed by value as the single kernel argument.
///
/// All addresses are device (generic-space) addresses; the kernel converts them to the global window.
/// Strides and leading dimensions are in elements of the operand's type.
///
/// ```
/// use tcgemm_kernels::params::GemmParams;
/// assert_eq!(core::mem::size_of::<GemmParams>(), 168);
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
    /// Split-K: the reduction the kernel fuses after its tile (f32-output kernels only).
    pub split: SplitTail,
    /// Stream-K: the work items whose k-tiles the persistent kernels share out evenly
    /// (`items == 0` in every other launch).
    pub stream_k: StreamK,
}

impl GemmParams {
    /// Number of output tiles of `bm×bn` along M and N.
    pub const fn tiles(&self, bm: u32, bn: u32) -> (u32, u32) {
        (self.m.div_ceil(bm), self.n.div_ceil(bn))
    }

    /// The parameters of `Cᵀ = op(B)ᵀ·op(A)ᵀ` as a kernel that swaps A and B reads them
    /// ([`KernelSpec::swaps_ab`](crate::config::KernelSpec::swaps_ab)): A and B exchanged
    /// (addresses, leading dimensions, batch strides and their flags) and `m` with `n`; C, `k`
    /// and the rest as they are (the kernel stores its tile of `Cᵀ` transposed, into C as laid
    /// out). Swapping twice gives the parameters back.
    ///
    /// ```
    /// use tcgemm_kernels::params::{flags, GemmParams};
    /// let p = GemmParams { a: 1, b: 2, lda: 30, ldb: 50, m: 10, n: 50, k: 30,
    ///                      flags: flags::VEC_A | flags::BETA_ZERO, ..GemmParams::default() };
    /// let s = p.swapped();
    /// assert_eq!((s.a, s.b, s.lda, s.ldb, s.m, s.n, s.k), (2, 1, 50, 30, 50, 10, 30));
    /// assert_eq!(s.flags, flags::VEC_B | flags::BETA_ZERO);
    /// assert_eq!(s.swapped(), p);
    /// ```
    pub const fn swapped(self) -> GemmParams {
        let pairs = [
            (flags::VEC_A, flags::VEC_B),
            (flags::TMA_BATCH_A, flags::TMA_BATCH_B),
        ];
        let mut f = self.flags;
        let mut i = 0;
        while i < pairs.len() {
            let (fa, fb) = pairs[i];
            f &= !(fa | fb);
            if self.flags & fa != 0 {
                f |= fb;
            }
            if self.flags & fb != 0 {
                f |= fa;
            }
            i += 1;
        }
        GemmParams {
            a: self.b,
            b: self.a,
            lda: self.ldb,
            ldb: self.lda,
            stride_a: self.stride_b,
            stride_b: self.stride_a,
            m: self.n,
            n: self.m,
            flags: f,
            ..self
        }
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

/// The single kernel argument of the TMA (sm_90a) kernels: the tensor maps of A, B and C, then the
/// usual [`GemmParams`]. Kernels read the maps in place, in kernel-parameter memory (TMA needs them
/// there, in constant or in global memory, 64-byte aligned).
///
/// ```
/// use tcgemm_kernels::params::TmaParams;
/// assert_eq!(core::mem::size_of::<TmaParams>(), 560);
/// assert_eq!(core::mem::offset_of!(TmaParams, map_b), 128);
/// assert_eq!(core::mem::offset_of!(TmaParams, map_c), 256);
/// assert_eq!(core::mem::offset_of!(TmaParams, p), 384);
/// ```
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TmaParams {
    /// A's tensor map: dimensions (k, rows of op(A), batch), box (BK, BM, 1), 128-byte swizzle.
    pub map_a: TensorMap,
    /// B's tensor map: dimensions (k, columns of op(B), batch), box (BK, BN, 1), 128-byte swizzle.
    pub map_b: TensorMap,
    /// C's tensor map, read only under [`flags::TMA_STORE_C`]: dimensions (n, m, batch), box
    /// (128 bytes of columns, 64 rows, 1), 128-byte swizzle.
    pub map_c: TensorMap,
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

/// The single kernel argument of the strided copy kernels: for every batch item `z < batch`, row
/// `r < rows` and column `c < cols`,
/// `dst[z·dst_stride + r·dst_ld + c] = src[z·src_stride + r·src_ld + c]` (in elements).
///
/// ```
/// use tcgemm_kernels::params::CopyParams;
/// assert_eq!(core::mem::size_of::<CopyParams>(), 72);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CopyParams {
    /// Address of the source's item 0.
    pub src: u64,
    /// Address of the destination's item 0.
    pub dst: u64,
    /// Rows per item.
    pub rows: u64,
    /// Elements per row.
    pub cols: u64,
    /// Source leading dimension, in elements.
    pub src_ld: u64,
    /// Destination leading dimension, in elements.
    pub dst_ld: u64,
    /// Source batch stride, in elements.
    pub src_stride: u64,
    /// Destination batch stride, in elements.
    pub dst_stride: u64,
    /// Batch items.
    pub batch: u64,
}

/// The single kernel argument of the TF32 split kernel (`config::Family::SplitTf32`): `batch`
/// items of a `width × k` f32 operand (stored K-major, `src[w·src_ld + k]`, or MN-major,
/// `src[k·src_ld + w]`), each element `x` written K-major as `parts` parts `part_stride` elements
/// apart along the destination's rows (`dst[w·dst_ld + part·part_stride + k]`): its TF32 high part
/// `hi` first, then `hi` or its TF32-rounded residual `lo` (`lo` in part `low_part`). Each part's
/// row is written up to `written_k` (≥ `k`), zeros after `k`.
///
/// ```
/// use tcgemm_kernels::params::SplitParams;
/// assert_eq!(core::mem::size_of::<SplitParams>(), 104);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitParams {
    /// Address of the source's item 0.
    pub src: u64,
    /// Address of the destination's item 0.
    pub dst: u64,
    /// The operand's extent other than k (`m` for A, `n` for B).
    pub width: u64,
    /// Elements along k.
    pub k: u64,
    /// Elements written along k in each part (`k`, or more: zeros after `k`).
    pub written_k: u64,
    /// Source leading dimension, in elements.
    pub src_ld: u64,
    /// Destination leading dimension, in elements.
    pub dst_ld: u64,
    /// Source batch stride, in elements.
    pub src_stride: u64,
    /// Destination batch stride, in elements.
    pub dst_stride: u64,
    /// Batch items.
    pub batch: u64,
    /// Elements between the destination's parts along a row.
    pub part_stride: u64,
    /// Parts written: 2 (`[hi | lo]`) or 3 (`hi`, then `hi` or `lo` twice).
    pub parts: u32,
    /// The part (1 or 2, below `parts`) that holds the residual.
    pub low_part: u32,
    /// The source is stored K-major (1) or MN-major (0).
    pub src_k_major: u32,
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

/// Largest f32 partial products of one output tile (`rows · columns · slices · 4` bytes, rows and
/// columns inside C) that the tile's last CTA sums itself; above it the host runs the split-K
/// reduction kernel after the slices. Measured on the H200 (docs/decode-log.md, session 6): the
/// fused tail beat the separate kernel at 32 KiB (8×4096×4096 f16, 16×128 tile, 8 slices: 0.92×
/// cuBLAS against 0.87×), tied at 64 KiB and lost above (32 rows, 128 KiB: 0.76× against 0.79×;
/// 128×256 tiles, 1 MiB: 0.38× against 0.62×): one CTA reads its tile's slices at about 60 GB/s.
pub const FUSED_TAIL_BYTES: u64 = 32 << 10;

/// The reduction of a launch split along K ([`GemmParams::split`]; all zero, `c == 0`, in every
/// other launch). A split launch runs the kernel of f32 output over `batch` k-slices (batch item
/// `s` is slice `s`: `k` deep, `last_k` for the last one), each writing its f32 partial tile into
/// the workspace `W[s]` (`GemmParams::c`, `ldc`, `stride_c`). With `counters`, the CTA that
/// finishes a tile last, counted on the tile's counter, sums that tile's slices in slice order into
/// the call's C: `C[i,j] = alpha·(Σ_{s<batch} W[s][i,j]) + beta·C[i,j]`, converted to C's element
/// with round to nearest even, and sets the counter back to zero; without, the split-K reduction
/// kernel computes the same sums after the launch (see [`FUSED_TAIL_BYTES`]). One order of
/// additions and integer counters only: the result is bitwise reproducible.
///
/// Flags ([`flags`]) of the call's C: `BETA_ZERO` (C is not read), `VEC_C` (C's base and `ldc`
/// allow one vector access per group of 4 elements: 16 bytes of f32, 8 bytes of 16-bit elements),
/// and C's element ([`flags::OUT_F16`], [`flags::OUT_BF16`]; neither: f32).
///
/// ```
/// use tcgemm_kernels::params::SplitTail;
/// assert_eq!(core::mem::size_of::<SplitTail>(), 40);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitTail {
    /// Address of the call's C (0: the launch is not split).
    pub c: u64,
    /// Leading dimension of the call's C, in elements.
    pub ldc: u64,
    /// Address of the tiles' arrival counters: one `u32` per output tile (the block index), zero
    /// before the launch and left zero after it. 0: the CTAs do not reduce; the split-K reduction
    /// kernel runs after the launch, with the same parameters.
    pub counters: u64,
    /// Depth of the last slice (batch item `batch − 1`), in `1..=k`.
    pub last_k: u32,
    /// Bit set of [`flags`] for the call's C (`BETA_ZERO`, `VEC_C`, `OUT_F16`, `OUT_BF16`).
    pub flags: u32,
    /// Scale of the sum.
    pub alpha: f32,
    /// Scale of the prior C.
    pub beta: f32,
}

/// Stream-K schedule of a persistent launch ([`GemmParams::stream_k`]; all zero when off). Of the
/// launch's `W` work items (output tile × batch item), the first `W − items` are whole items
/// dealt out in turn (CTA `b` takes `b, b + grid, …`); the k-tiles of the last `items` are one
/// range cut into `grid` equal, contiguous pieces, CTA `b` taking piece `grid − 1 − b`. A CTA
/// whose piece starts inside an item (a *partial*) stores its accumulators to its slot of
/// `partials` and raises its flag; the CTA holding the item's first k-tiles (the *finisher*, a
/// higher CTA index: its piece comes earlier) waits for the flags of the pieces after its own,
/// adds their partials in k order, sets the flags back to zero and stores C. One order of
/// additions (fixed by the grid and `items`), integer flags only: the result is bitwise
/// reproducible.
///
/// ```
/// use tcgemm_kernels::params::StreamK;
/// assert_eq!(core::mem::size_of::<StreamK>(), 24);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StreamK {
    /// Address of the flags: one `u32` per consumer warpgroup of each CTA (`2·grid`), zero
    /// before the launch and left zero after it.
    pub flags: u64,
    /// Address of the partial tiles: one slot of `BM·BN` f32 per CTA, 16-byte aligned.
    pub partials: u64,
    /// Work items, at the end of the launch's order, whose k-tiles are shared out (0: none).
    pub items: u32,
    /// Padding to 8 bytes.
    pub _pad: u32,
}
