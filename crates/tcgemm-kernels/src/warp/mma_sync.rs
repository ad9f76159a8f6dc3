//! `mma.sync.aligned.m16n8k16` kinds and their `ldmatrix` fragment loads.
//!
//! A warp owns `MI×NI` m16n8 accumulator tiles. Per 16-deep k step it loads MI A fragments
//! (`ldmatrix.x4` each) and NI B fragments (`ldmatrix.x4` per pair of n8 tiles), `.trans` for an
//! operand kept r-contiguous in shared memory, then issues MI·NI MMAs.
//!
//! Shared operand tiles of 16-bit elements: k-contiguous `smem[r][BK]`, r-contiguous `smem[k][R]`,
//! unpadded and XOR-swizzled ([`swizzled`]; see `threadblock::global_to_shared`).

use crate::arch::convert::f16_to_f32;
use crate::arch::mma::{
    mma_m16n8k16_row_col_f16_f16_f16_f16, mma_m16n8k16_row_col_f32_bf16_bf16_f32,
    mma_m16n8k16_row_col_f32_f16_f16_f32,
};
use crate::threadblock::global_to_shared::swizzled;

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

/// Byte offsets, within the A and B tiles, of the row this lane addresses in the first `ldmatrix`
/// of each operand at k step 0 (A fragment 0 at row `wm0`, B fragments 0–1 at column `wn0`), in
/// the unpadded swizzled layout of [`swizzled`]. The other fragments and k steps are a fixed XOR
/// or add away (`load_a_fragments!`, `load_b_fragments!`): steps along a tile row (k in a
/// k-contiguous tile, m or n in an r-contiguous one) stay inside the lane's 128-byte line and XOR
/// its chunk bits, which the lane's own offset leaves clear; steps of 16 rows keep the row's XOR
/// pattern and add.
///
/// ```
/// use tcgemm_kernels::warp::mma_sync::lane_offsets;
/// // lane 0 of the first warp reads row 0, k 0 of both tiles
/// assert_eq!(lane_offsets::<128, 256, 32>(true, false, 0, 0, 0), (0, 0));
/// // lane 9 (matrix 1, row 1) of a k-contiguous A: row 9 of 64-byte rows, chunk 0 XOR (9 % 8)
/// assert_eq!(lane_offsets::<128, 256, 32>(true, false, 0, 0, 9).0, (9 * 64) ^ (1 << 4));
/// ```
#[inline(always)]
pub fn lane_offsets<const BM: u32, const BN: u32, const BK: u32>(
    a_kc: bool,
    b_kc: bool,
    wm0: u32,
    wn0: u32,
    lane: u32,
) -> (u32, u32) {
    // matrix li = lane / 8 of an `ldmatrix.x4`, row lr = lane % 8 of it. A: M0 rows 0-7 k 0-7,
    // M1 rows 8-15 k 0-7, M2 rows 0-7 k 8-15, M3 rows 8-15 k 8-15. B: b0, b1 of n-tile j (k 0-7,
    // k 8-15), then b0, b1 of n-tile j + 1.
    let (li, lr) = (lane / 8, lane % 8);
    let a = if a_kc {
        swizzled((wm0 + lr + (li % 2) * 8) * BK * 2 + (li / 2) * 16, BK * 2)
    } else {
        swizzled(
            (lr + (li / 2) * 8) * BM * 2 + (wm0 + (li % 2) * 8) * 2,
            BM * 2,
        )
    };
    let b = if b_kc {
        swizzled((wn0 + lr + (li / 2) * 8) * BK * 2 + (li % 2) * 16, BK * 2)
    } else {
        swizzled(
            (lr + (li % 2) * 8) * BN * 2 + (wn0 + (li / 2) * 8) * 2,
            BN * 2,
        )
    };
    (a, b)
}

/// Loads `$af: [[u32; 4]; MI]`, the A fragments (m16 tiles from the warp's first row) of k step
/// `$kk` of the `$bm`-row A tile at `$ta`, with `ldmatrix.x4` (`.trans` unless `$a_kc`, A kept
/// k-contiguous); `$la` is the lane's A offset from [`lane_offsets`].
///
/// A macro rather than a function so the multistage mainloop's single-buffered path keeps these
/// loads in its own body: as a call, the compiler orders that mainloop's instructions differently.
macro_rules! load_a_fragments {
    ($af:expr, $ta:expr, $a_kc:expr, $la:expr, $kk:expr; $bm:ident, $bk:ident) => {
        for (i, f) in $af.iter_mut().enumerate() {
            let i = i as u32;
            *f = if $a_kc {
                // fragment i: 16 rows down; k step: k·2 bytes along the row
                $crate::arch::ldmatrix::shared_to_reg_x4(
                    $ta + (($la ^ ($kk * 2)) + i * 16 * $bk * 2),
                )
            } else {
                // fragment i: 16 elements along the row; k step: kk rows down
                $crate::arch::ldmatrix::shared_to_reg_x4_trans(
                    $ta + (($la ^ (i * 32)) + $kk * $bm * 2),
                )
            };
        }
    };
}

/// Loads `$bf: [[u32; 2]; $ni]`, the B fragments (n8 tiles from the warp's first column, two per
/// `ldmatrix.x4`) of k step `$kk` of the `$bn`-row B tile at `$tb` (`.trans` unless `$b_kc`);
/// `$lb` is the lane's B offset from [`lane_offsets`], and the reason for a macro as for
/// [`load_a_fragments!`].
macro_rules! load_b_fragments {
    ($bf:expr, $tb:expr, $b_kc:expr, $lb:expr, $kk:expr; $bn:ident, $bk:ident, $ni:ident) => {
        let mut j = 0;
        while j < $ni {
            let jn = j as u32;
            // regs: b0, b1 of n-tile j, then b0, b1 of n-tile j+1
            let r = if $b_kc {
                $crate::arch::ldmatrix::shared_to_reg_x4(
                    $tb + (($lb ^ ($kk * 2)) + jn * 8 * $bk * 2),
                )
            } else {
                $crate::arch::ldmatrix::shared_to_reg_x4_trans(
                    $tb + (($lb ^ (jn * 16)) + $kk * $bn * 2),
                )
            };
            $bf[j] = [r[0], r[1]];
            $bf[j + 1] = [r[2], r[3]];
            j += 2;
        }
    };
}

pub(crate) use {load_a_fragments, load_b_fragments};

/// Loads the A fragments (`MI` m16 tiles) and B fragments (`NI` n8 tiles) of k step `kk` of the
/// stage at `stage` (the `BM`-row A tile, then the `BN`-row B tile at `a_bytes`), with
/// `ldmatrix.x4` (`.trans` for operands kept r-contiguous); `(la, lb)` from [`lane_offsets`].
///
/// # Safety
/// Warp-convergent; `stage` holds both tiles in the layout above.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn load_fragments<
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const MI: usize,
    const NI: usize,
>(
    af: &mut [[u32; 4]; MI],
    bf: &mut [[u32; 2]; NI],
    stage: u32,
    a_bytes: u32,
    (a_kc, b_kc): (bool, bool),
    (la, lb): (u32, u32),
    kk: u32,
) {
    let ta = stage;
    let tb = stage + a_bytes;
    load_a_fragments!(af, ta, a_kc, la, kk; BM, BK);
    load_b_fragments!(bf, tb, b_kc, lb, kk; BN, BK, NI);
}
