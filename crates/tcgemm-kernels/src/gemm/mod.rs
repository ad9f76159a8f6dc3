//! Threadblock-level GEMM building blocks: grid rasterization, operand addressing, mainloops and
//! epilogues. Components take indices as arguments; only `kernels` reads `%tid`/`%ctaid`.

pub mod ceiling;
#[cfg(target_feature = "sm_90a")]
pub mod hopper;
pub mod mma16;
pub mod mma_tf32;
pub mod raster;
pub mod sgemm;
pub mod tf32_seed;
pub mod tile_io;
pub mod tile_loader;

use crate::params::GemmParams;

/// Where one block works: output tile origin and batch item.
#[derive(Clone, Copy)]
pub struct BlockTile {
    /// First row of the tile in C.
    pub m0: u32,
    /// First column of the tile in C.
    pub n0: u32,
}

/// Global-window addresses of batch item `z` of A, B (elements of `in_bytes`) and C (`out_bytes`).
#[inline(always)]
pub fn batch_bases(p: &GemmParams, z: u32, in_bytes: u64, out_bytes: u64) -> (u64, u64, u64) {
    let z = z as u64;
    (
        crate::arch::global::to_global(p.a).wrapping_add(z * p.stride_a * in_bytes),
        crate::arch::global::to_global(p.b).wrapping_add(z * p.stride_b * in_bytes),
        crate::arch::global::to_global(p.c).wrapping_add(z * p.stride_c * out_bytes),
    )
}
