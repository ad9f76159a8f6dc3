//! Global → shared copies of operand tiles, by policy.
//!
//! An operand tile is `R × BK` (R = rows of the block tile along M for A, along N for B). In memory
//! the operand is either *k-contiguous* (A not transposed, B transposed: element `(r, k)` at
//! `r·ld + k`) or *r-contiguous* (A transposed, B not transposed: `(r, k)` at `k·ld + r`). The
//! policies keep the memory's contiguous dimension contiguous in shared memory, padded
//! (k-contiguous → `smem[r][BK + KPAD]`, r-contiguous → `smem[k][R + RPAD]`), except the
//! transposing one, which stores a k-contiguous operand r-contiguous. Every copy zero-fills what
//! lies past the matrix edge and falls back to narrower accesses where the host says 16-byte access
//! is not allowed.
//!
//! The 16-bit `mma.sync` kernels keep their tiles unpadded and XOR-swizzled instead
//! ([`swizzled`]): 16-byte chunk `c` of a 128-byte line is stored at `c ^ (row % 8)`, so that a
//! quarter-warp's `cp.async` line and the eight rows an `ldmatrix` matrix reads each hit eight
//! distinct 16-byte bank groups. The multistage TF32 kernels do the same for their k-contiguous
//! tiles (`per_chunk`'s `SWIZZLE_K`) and pad their r-contiguous ones.
//!
//! - `per_chunk` (device code): `cp.async`, each 16-byte chunk's coordinates, predicate and address
//!   recomputed every k-tile (few live registers; 32-bit elements); without 16-byte access, one
//!   element per thread and copy, a warp's 32 consecutive. The seed (padded) and multistage
//!   (k-contiguous tiles swizzled) TF32 kernels.
//! - `precomputed` (device code): `cp.async`, every per-thread address, stride and predicate
//!   computed once per block, so an interior k-tile costs one add and one `cp.async` per chunk (any
//!   element width). The multistage 16-bit kernels, the CUDA-core kernels' M/N-contiguous operands.
//! - `transposing` (device code): `cp.async` of single f32 elements from a k-contiguous operand
//!   into an r-contiguous tile (`smem[k][R + RPAD]`), addresses computed once per block. The
//!   CUDA-core 128×128 kernels, whose thread tiles read both operands along M/N.
//! - `swizzled_rows` (sm_90a): global → registers → shared into the 128-byte-swizzled rows that
//!   `wgmma` reads (what TMA writes), for operands TMA cannot map. The warp-specialized kernels of
//!   the `LdgWarpSpecialized` family.

/// Byte offset `o` of an unpadded tile whose rows are `row_bytes` long (a power of two, at least
/// 32), swizzled: bits 4–6 (the 16-byte chunk within a 128-byte line) XORed with the row index
/// modulo 8. A bijection on the tile that keeps every 16-byte chunk whole and every 128-byte line
/// in place; rows that differ by a multiple of 8 share one XOR pattern, so offsets 8 rows apart stay
/// a fixed stride apart.
///
/// ```
/// use tcgemm_kernels::threadblock::global_to_shared::swizzled;
/// // 64-byte rows: row 1 holds the second half of line 0, its chunks XORed with 1
/// assert_eq!(swizzled(64, 64), 64 ^ (1 << 4));
/// // the eight rows of one ldmatrix matrix at chunk 0 land on eight distinct chunks of their lines
/// let mut chunks: Vec<u32> = (0..8).map(|r| (swizzled(r * 512, 512) >> 4) & 7).collect();
/// chunks.sort();
/// assert_eq!(chunks, (0..8).collect::<Vec<_>>());
/// ```
#[inline(always)]
pub const fn swizzled(o: u32, row_bytes: u32) -> u32 {
    o ^ (((o / row_bytes) & 7) << 4)
}

#[cfg(target_arch = "nvptx64")]
pub mod per_chunk;
#[cfg(target_arch = "nvptx64")]
pub mod precomputed;
#[cfg(target_feature = "sm_90a")]
pub mod swizzled_rows;
#[cfg(target_arch = "nvptx64")]
pub mod transposing;
