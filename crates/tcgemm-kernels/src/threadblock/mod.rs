//! Threadblock level: grid rasterization, global → shared copies and the mainloop of each kernel
//! family, which ends in the `epilogue`. Components take `tid`, the block index
//! and the batch item as arguments; only [`kernels`](crate#modules) entry points read `%tid`/`%ctaid`.
//!
//! Each family's module is compiled on the host too, for the rules the kernel table is computed
//! with: its `smem_bytes` (the dynamic shared memory its body lays out) and its `threads`.
//! - [`cuda_core`]: FP32 on CUDA cores, `cp.async` multistage pipeline, fragments double-buffered;
//! - [`cuda_core_multistage`]: FP32 on CUDA cores for few rows of C, `cp.async` multistage
//!   pipeline, warps splitting each k-tile;
//! - [`cuda_core_stream`]: CUDA cores for a few rows of C (f16 and bf16 inputs), B streamed from
//!   global memory into registers, A staged in shared memory;
//! - [`mma_sync_seed`]: the seed TF32 kernel, kept as the named baseline;
//! - [`mma_sync_multistage`]: 16-bit `mma.sync`, `cp.async` multistage pipeline;
//! - [`mma_sync_multistage_tf32`]: TF32 `mma.sync`, `cp.async` multistage pipeline;
//! - [`tma_warp_specialized`]: sm_90a, TMA + `mbarrier` ring + `wgmma`, warp-specialized, persistent;
//!   its work schedule (whole items, stream-K pieces) is [`stream_k`], its split along K within a
//!   thread-block cluster [`cluster_split`].

pub mod cluster_split;
pub mod cuda_core;
pub mod cuda_core_multistage;
pub mod cuda_core_stream;
pub mod global_to_shared;
pub mod mma_sync_multistage;
pub mod mma_sync_multistage_tf32;
pub mod mma_sync_seed;
#[cfg(target_arch = "nvptx64")]
pub mod raster;
pub mod stream_k;
pub mod tma_warp_specialized;

use crate::config::GemmShape;

/// Warps of an `mma.sync` block tile of `warp`-sized warp tiles: (along M, along N).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::warp_grid};
/// assert_eq!(warp_grid(GemmShape::new(128, 256, 32), GemmShape::new(64, 64, 16)), (2, 4));
/// ```
pub const fn warp_grid(block: GemmShape, warp: GemmShape) -> (u32, u32) {
    (block.m / warp.m, block.n / warp.n)
}

/// Threads of an `mma.sync` block tile: 32 per warp of [`warp_grid`].
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::mma_sync_threads};
/// assert_eq!(mma_sync_threads(GemmShape::new(64, 64, 32), GemmShape::new(16, 32, 16)), 256);
/// ```
pub const fn mma_sync_threads(block: GemmShape, warp: GemmShape) -> u32 {
    let (wm, wn) = warp_grid(block, warp);
    wm * wn * 32
}

/// `m16n8` accumulator tiles of a warp tile: (along M, along N).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::m16n8_tiles};
/// assert_eq!(m16n8_tiles(GemmShape::new(64, 32, 16)), (4, 4));
/// ```
pub const fn m16n8_tiles(warp: GemmShape) -> (usize, usize) {
    ((warp.m / 16) as usize, (warp.n / 8) as usize)
}

/// Where one block works: output tile origin.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
pub struct BlockTile {
    /// First row of the tile in C.
    pub m0: u32,
    /// First column of the tile in C.
    pub n0: u32,
}

/// Global-window addresses of batch item `z` of A, B (elements of `in_bytes`) and C (`out_bytes`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn batch_bases(
    p: &crate::params::GemmParams,
    z: u32,
    in_bytes: u64,
    out_bytes: u64,
) -> (u64, u64, u64) {
    let z = z as u64;
    (
        crate::arch::global::to_global(p.a).wrapping_add(z * p.stride_a * in_bytes),
        crate::arch::global::to_global(p.b).wrapping_add(z * p.stride_b * in_bytes),
        crate::arch::global::to_global(p.c).wrapping_add(z * p.stride_c * out_bytes),
    )
}

/// Bytes of an `r × bk` operand tile of `elem_bytes`-byte elements in shared memory, in the larger
/// of its two layouts (`r` rows of `bk + kpad`, or `bk` rows of `r + rpad`; see `global_to_shared`),
/// so one stage size
/// serves either operand layout.
///
/// ```
/// use tcgemm_kernels::threadblock::operand_tile_bytes;
/// assert_eq!(operand_tile_bytes(128, 32, 8, 8, 2), 128 * 40 * 2);
/// assert_eq!(operand_tile_bytes(16, 64, 8, 8, 2), 64 * 24 * 2);
/// ```
pub const fn operand_tile_bytes(r: u32, bk: u32, kpad: u32, rpad: u32, elem_bytes: u32) -> u32 {
    let kc = r * (bk + kpad) * elem_bytes;
    let rc = bk * (r + rpad) * elem_bytes;
    if kc > rc {
        kc
    } else {
        rc
    }
}
