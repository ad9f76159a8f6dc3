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
//! - [`per_chunk`]: `cp.async`, each 16-byte chunk's coordinates, predicate and address recomputed
//!   every k-tile (few live registers; 32-bit elements). The seed and multistage TF32 kernels.
//! - [`precomputed`]: `cp.async`, every per-thread address, stride and predicate computed once per
//!   block, so an interior k-tile costs one add and one `cp.async` per chunk (any element width).
//!   The multistage 16-bit kernels, the CUDA-core kernels' M/N-contiguous operands.
//! - [`transposing`]: `cp.async` of single f32 elements from a k-contiguous operand into an
//!   r-contiguous tile (`smem[k][R + RPAD]`), addresses computed once per block. The CUDA-core
//!   128×128 kernels, whose thread tiles read both operands along M/N.
//! - [`swizzled_rows`] (sm_90a): global → registers → shared into the 128-byte-swizzled rows that
//!   `wgmma` reads (what TMA writes), for operands TMA cannot map. The warp-specialized kernels of
//!   the `LdgWarpSpecialized` family.

pub mod per_chunk;
pub mod precomputed;
#[cfg(target_feature = "sm_90a")]
pub mod swizzled_rows;
pub mod transposing;
