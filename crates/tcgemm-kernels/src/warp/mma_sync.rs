//! `mma.sync.aligned.m16n8k16` kinds and their `ldmatrix` fragment loads.
//!
//! A warp owns `MI×NI` m16n8 accumulator tiles. Per 16-deep k step it loads MI A fragments
//! (`ldmatrix.x4` each) and NI B fragments (`ldmatrix.x4` per pair of n8 tiles), `.trans` for an
//! operand kept r-contiguous in shared memory, then issues MI·NI MMAs.
//!
//! Shared operand tiles of 16-bit elements: k-contiguous `smem[r][BK]`, r-contiguous `smem[k][R]`,
//! unpadded and XOR-swizzled; fragment offsets from [`crate::warp::mma_sync_layout`].

use crate::arch::convert::f16_to_f32;
use crate::arch::ldmatrix::{shared_to_reg_x4, shared_to_reg_x4_trans};
use crate::arch::mma::{
    mma_m16n8k16_row_col_f16_f16_f16_f16, mma_m16n8k16_row_col_f32_bf16_bf16_f32,
    mma_m16n8k16_row_col_f32_f16_f16_f32,
};
pub use crate::warp::mma_sync_layout::{lane_offsets, OperandTile};

/// An `m16n8k16` MMA kind: the inputs and the accumulator it multiplies into.
pub trait MmaM16n8k16 {
    /// One m16n8 accumulator tile in registers.
    type Acc: Copy;
    /// The zero accumulator.
    const ZERO: Self::Acc;
    /// `d += a·b` (m16n8k16).
    ///
    /// # Safety
    /// Warp-convergent.
    unsafe fn mma(d: &mut Self::Acc, a: [u32; 4], b: [u32; 2]);
    /// The accumulator tile as f32 `c[0..4]` (fragment order of the C map in `arch::mma`).
    fn acc_f32(d: &Self::Acc) -> [f32; 4];
}

/// f16 inputs, f32 accumulation.
pub struct MmaF16F32;
/// bf16 inputs, f32 accumulation.
pub struct MmaBf16F32;
/// f16 inputs, f16 accumulation (`mma…f16.f16.f16.f16`): half the accumulator registers, but every
/// partial sum is rounded to 11 significant bits and overflows beyond 65504 (docs/precision.md).
pub struct MmaF16F16;

impl MmaM16n8k16 for MmaF16F32 {
    type Acc = [f32; 4];
    const ZERO: [f32; 4] = [0.0; 4];
    #[inline(always)]
    unsafe fn mma(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f32_f16_f16_f32(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[f32; 4]) -> [f32; 4] {
        *d
    }
}

impl MmaM16n8k16 for MmaBf16F32 {
    type Acc = [f32; 4];
    const ZERO: [f32; 4] = [0.0; 4];
    #[inline(always)]
    unsafe fn mma(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f32_bf16_bf16_f32(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[f32; 4]) -> [f32; 4] {
        *d
    }
}

impl MmaM16n8k16 for MmaF16F16 {
    type Acc = [u32; 2];
    const ZERO: [u32; 2] = [0; 2];
    #[inline(always)]
    unsafe fn mma(d: &mut [u32; 2], a: [u32; 4], b: [u32; 2]) {
        mma_m16n8k16_row_col_f16_f16_f16_f16(d, a, b)
    }
    #[inline(always)]
    fn acc_f32(d: &[u32; 2]) -> [f32; 4] {
        [
            f16_to_f32(d[0] as u16),
            f16_to_f32((d[0] >> 16) as u16),
            f16_to_f32(d[1] as u16),
            f16_to_f32((d[1] >> 16) as u16),
        ]
    }
}

/// `ldmatrix.x4` of the four 8×8 matrices whose rows this lane addresses at shared address `at` of
/// `tile`: `.trans` where the tile is r-contiguous.
///
/// # Safety
/// Warp-convergent; `at` as [`lane_offsets`] and [`OperandTile::step`] give it.
#[inline(always)]
pub unsafe fn ldmatrix_x4(tile: OperandTile, at: u32) -> [u32; 4] {
    if tile.k_contig {
        shared_to_reg_x4(at)
    } else {
        shared_to_reg_x4_trans(at)
    }
}

/// Loads `$af: [[u32; 4]; MI]`, the A fragments (m16 tiles from the warp's first row) of k step
/// `$kk` of the A tile `$a` ([`OperandTile`]) at shared address `$ta`; `$la` is the lane's A
/// offset from [`lane_offsets`].
///
/// A macro rather than a function so the multistage mainloop's single-buffered path keeps these
/// loads in its own body: as a call, the compiler orders that mainloop's instructions differently.
macro_rules! load_a_fragments {
    ($af:expr, $ta:expr, $a:expr, $la:expr, $kk:expr) => {
        for (i, f) in $af.iter_mut().enumerate() {
            *f = $crate::warp::mma_sync::ldmatrix_x4($a, $ta + $a.step($la, i as u32 * 16, $kk));
        }
    };
}

/// Loads `$bf: [[u32; 2]; $ni]`, the B fragments (n8 tiles from the warp's first column, two per
/// `ldmatrix.x4`) of k step `$kk` of the B tile `$b` at shared address `$tb`; `$lb` is the lane's
/// B offset from [`lane_offsets`], and the reason for a macro as for [`load_a_fragments!`].
macro_rules! load_b_fragments {
    ($bf:expr, $tb:expr, $b:expr, $lb:expr, $kk:expr; $ni:ident) => {
        let mut j = 0;
        while j < $ni {
            // regs: b0, b1 of n-tile j, then b0, b1 of n-tile j+1
            let r = $crate::warp::mma_sync::ldmatrix_x4($b, $tb + $b.step($lb, j as u32 * 8, $kk));
            $bf[j] = [r[0], r[1]];
            $bf[j + 1] = [r[2], r[3]];
            j += 2;
        }
    };
}

pub(crate) use {load_a_fragments, load_b_fragments};

/// Loads the A fragments (`MI` m16 tiles) and B fragments (`NI` n8 tiles) of k step `kk` of the
/// stage at `stage` (the A tile, then the B tile at `a_bytes`), with `ldmatrix.x4` (`.trans` for
/// operands kept r-contiguous); `(la, lb)` from [`lane_offsets`].
///
/// # Safety
/// Warp-convergent; `stage` holds both tiles in the layout of [`OperandTile`].
#[inline(always)]
pub unsafe fn load_fragments<const MI: usize, const NI: usize>(
    af: &mut [[u32; 4]; MI],
    bf: &mut [[u32; 2]; NI],
    stage: u32,
    a_bytes: u32,
    (a, b): (OperandTile, OperandTile),
    (la, lb): (u32, u32),
    kk: u32,
) {
    let tb = stage + a_bytes;
    load_a_fragments!(af, stage, a, la, kk);
    load_b_fragments!(bf, tb, b, lb, kk; NI);
}
