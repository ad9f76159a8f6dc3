//! `wgmma` kinds and the issue of one k-tile (sm_90a).
//!
//! Operands are in shared memory in the 128-byte swizzle (SW128) layout TMA writes. A k-tile is
//! one swizzle row per operand row and one `wgmma` per 32 bytes of k. A K-major operand is
//! addressed by stepping the descriptor's start address 32 bytes inside the swizzle row; an
//! MN-major one (boxes of one swizzle row of MN-elements × k-rows, 16-bit elements) by stepping 16
//! k-rows per `wgmma`, with the leading byte offset one box apart.

use crate::arch::wgmma;

/// Bytes of k one `wgmma` consumes (k16 of 16-bit elements, k8 of tf32).
pub const SLICE_BYTES: u32 = 32;

/// N of `wgmma.m64n256`, the wide instruction a consumer warpgroup can issue.
pub const N256: u32 = 256;
/// N of `wgmma.m64n192`.
pub const N192: u32 = 192;
/// N of `wgmma.m64n144` (K-major B only: the MN-major boxes are 64 wide).
pub const N144: u32 = 144;
/// N of `wgmma.m64n128`.
pub const N128: u32 = 128;
/// N of `wgmma.m64n64`.
pub const N64: u32 = 64;
/// N of `wgmma.m64n32`, the narrowest a consumer issues (a ping-pong consumer's 64×32 tile; K-major
/// B only: the MN-major boxes are 64 wide).
pub const N32: u32 = 32;

/// f32 accumulators per thread of a `wgmma.m64nN` with f32 accumulation: `N / 2` (64×N over the
/// warpgroup's 128 threads).
pub const fn accumulators(n: u32) -> usize {
    n as usize / 2
}

/// Blocks of 8 columns of a `wgmma.m64nN` accumulator (m16n8 fragment columns): `N / 8`.
pub const fn n8_blocks(n: u32) -> usize {
    n as usize / 8
}

/// k-tiles whose `wgmma` accumulation a 3xTF32 consumer adds into its registers at once
/// ([`WgmmaInput::ADD_K_TILES`], `threadblock::tma_warp_specialized`): 4 (128 k, 16 steps of the tensor core's truncating sum) keeps
/// 3xTF32's error at exact FP32's (docs/f32-log.md); each span ends in a wait for all of the
/// consumer's `wgmma`s, which 1 k-tile paid on every k-tile. Measured on the H200 (session 15): 2
/// k-tiles gave 0.6 of 4's error at 0.91× its speed (4096³); offsetting the two consumers' spans
/// by half a span, so that they do not wait at the same k-tile, gained nothing; two accumulator
/// sets in turn made ptxas serialize every `wgmma` (C7520).
pub const ADD_SPAN: u32 = 4;

/// The input kind of a `wgmma` with f32 accumulators: element size and the instruction.
pub trait WgmmaInput {
    /// Element bytes.
    const EB: u32;
    /// Whether the `wgmma` form can read MN-major operands (the 16-bit forms; tf32 cannot).
    const MN_MAJOR_OK: bool;
    /// Whether the consumers restart the `wgmma` accumulation every k-tile and add each k-tile's
    /// sum into registers of their own (`add.rn.f32`), instead of accumulating all of k in the
    /// tensor core, whose accumulation truncates at every step ([`WgmmaTf32x3`]).
    const ADD_K_TILES: bool = false;
    /// `d (+)= A·B` for one 64×N×(32 bytes of k) slice with `ACC = N / 2` accumulators per thread:
    /// `m64n256` (`ACC` = 128), `m64n192` (96), `m64n144` (72), `m64n128` (64), `m64n64` (32) or
    /// `m64n32` (16);
    /// `TA`/`TB`: operand MN-major.
    ///
    /// # Safety
    /// As [`wgmma::m64n256k16_f32_f16`].
    unsafe fn wgmma<const TA: bool, const TB: bool, const ACC: usize>(
        d: &mut [f32; ACC],
        da: u64,
        db: u64,
        accumulate: bool,
    );
}

/// f16 inputs.
pub struct WgmmaF16;
/// bf16 inputs.
pub struct WgmmaBf16;
/// TF32 inputs: f32 bit patterns read by `wgmma … .tf32` (K-major operands only).
pub struct WgmmaTf32;
/// TF32 inputs as [`WgmmaTf32`], each k-tile's sum added into f32 registers
/// ([`WgmmaInput::ADD_K_TILES`]): the products of `Precision::Tf32x3`.
pub struct WgmmaTf32x3;

/// Calls `$n256` (`m64n256`), `$n192` (`m64n192`), `$n144` (`m64n144`), `$n128` (`m64n128`),
/// `$n64` (`m64n64`) or `$n32` (`m64n32`) with `$d: &mut [f32; ACC]` seen as the array of that
/// instruction, then `$args`; `ACC` (128, 96, 72, 64, 32 or 16) is the const generic of the
/// function the macro is expanded in.
macro_rules! by_width {
    (
        $d:ident, $n256:expr, $n192:expr, $n144:expr, $n128:expr, $n64:expr, $n32:expr,
        $($args:expr),+
    ) => {{
        const {
            assert!(
                ACC == 128 || ACC == 96 || ACC == 72 || ACC == 64 || ACC == 32 || ACC == 16,
                "wgmma widths: n256 (128 accumulators), n192 (96), n144 (72), n128 (64), n64 (32), \
                 n32 (16)"
            )
        };
        if ACC == 128 {
            // SAFETY: `[f32; ACC]` is `[f32; 128]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 128]>() };
            $n256(d, $($args),+)
        } else if ACC == 96 {
            // SAFETY: `[f32; ACC]` is `[f32; 96]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 96]>() };
            $n192(d, $($args),+)
        } else if ACC == 72 {
            // SAFETY: `[f32; ACC]` is `[f32; 72]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 72]>() };
            $n144(d, $($args),+)
        } else if ACC == 64 {
            // SAFETY: `[f32; ACC]` is `[f32; 64]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 64]>() };
            $n128(d, $($args),+)
        } else if ACC == 16 {
            // SAFETY: `[f32; ACC]` is `[f32; 16]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 16]>() };
            $n32(d, $($args),+)
        } else {
            // SAFETY: `[f32; ACC]` is `[f32; 32]` on this branch (same type, same borrow).
            let d = unsafe { &mut *$d.as_mut_ptr().cast::<[f32; 32]>() };
            $n64(d, $($args),+)
        }
    }};
}

/// `WgmmaInput` for a 16-bit input kind whose `wgmma`s are `$n256`, `$n192`, `$n144`, `$n128`,
/// `$n64` and `$n32`.
macro_rules! wgmma_input16 {
    ($t:ty, $n256:path, $n192:path, $n144:path, $n128:path, $n64:path, $n32:path) => {
        impl WgmmaInput for $t {
            const EB: u32 = 2;
            const MN_MAJOR_OK: bool = true;
            #[inline(always)]
            unsafe fn wgmma<const TA: bool, const TB: bool, const ACC: usize>(
                d: &mut [f32; ACC],
                da: u64,
                db: u64,
                accumulate: bool,
            ) {
                by_width!(d, $n256, $n192, $n144, $n128, $n64, $n32, da, db, accumulate)
            }
        }
    };
}

wgmma_input16!(
    WgmmaF16,
    wgmma::m64n256k16_f32_f16::<TA, TB>,
    wgmma::m64n192k16_f32_f16::<TA, TB>,
    wgmma::m64n144k16_f32_f16::<TA, TB>,
    wgmma::m64n128k16_f32_f16::<TA, TB>,
    wgmma::m64n64k16_f32_f16::<TA, TB>,
    wgmma::m64n32k16_f32_f16::<TA, TB>
);
wgmma_input16!(
    WgmmaBf16,
    wgmma::m64n256k16_f32_bf16::<TA, TB>,
    wgmma::m64n192k16_f32_bf16::<TA, TB>,
    wgmma::m64n144k16_f32_bf16::<TA, TB>,
    wgmma::m64n128k16_f32_bf16::<TA, TB>,
    wgmma::m64n64k16_f32_bf16::<TA, TB>,
    wgmma::m64n32k16_f32_bf16::<TA, TB>
);

impl WgmmaInput for WgmmaTf32 {
    const EB: u32 = 4;
    const MN_MAJOR_OK: bool = false;
    #[inline(always)]
    unsafe fn wgmma<const TA: bool, const TB: bool, const ACC: usize>(
        d: &mut [f32; ACC],
        da: u64,
        db: u64,
        accumulate: bool,
    ) {
        by_width!(
            d,
            wgmma::m64n256k8_f32_tf32,
            wgmma::m64n192k8_f32_tf32,
            wgmma::m64n144k8_f32_tf32,
            wgmma::m64n128k8_f32_tf32,
            wgmma::m64n64k8_f32_tf32,
            wgmma::m64n32k8_f32_tf32,
            da,
            db,
            accumulate
        )
    }
}

impl WgmmaInput for WgmmaTf32x3 {
    const EB: u32 = WgmmaTf32::EB;
    const MN_MAJOR_OK: bool = WgmmaTf32::MN_MAJOR_OK;
    const ADD_K_TILES: bool = true;
    #[inline(always)]
    unsafe fn wgmma<const TA: bool, const TB: bool, const ACC: usize>(
        d: &mut [f32; ACC],
        da: u64,
        db: u64,
        accumulate: bool,
    ) {
        // SAFETY: as this function's contract.
        unsafe { WgmmaTf32::wgmma::<TA, TB, ACC>(d, da, db, accumulate) }
    }
}

/// `d (+)= A·B` for one 64×N×k8 TF32 slice with A from registers (the thread's fragment `a`, see
/// [`wgmma_register_a`](super::wgmma_register_a)) and B K-major at descriptor `db`: `m64n256`
/// (`ACC` = 128), `m64n192` (96), `m64n144` (72), `m64n128` (64), `m64n64` (32) or `m64n32` (16).
///
/// # Safety
/// As [`wgmma::m64n256k8_f32_tf32_rs`].
#[inline(always)]
pub unsafe fn tf32_register_a<const ACC: usize>(
    d: &mut [f32; ACC],
    a: [u32; 4],
    db: u64,
    accumulate: bool,
) {
    by_width!(
        d,
        wgmma::m64n256k8_f32_tf32_rs,
        wgmma::m64n192k8_f32_tf32_rs,
        wgmma::m64n144k8_f32_tf32_rs,
        wgmma::m64n128k8_f32_tf32_rs,
        wgmma::m64n64k8_f32_tf32_rs,
        wgmma::m64n32k8_f32_tf32_rs,
        a,
        db,
        accumulate
    )
}

/// Issues the `wgmma`s of one k-tile with the kind `$t`: `$slices` slices of [`SLICE_BYTES`] of k
/// (one swizzle row), accumulators `$d: [f32; ACC]` (128 for `m64n256`, 96 for `m64n192`, 72 for
/// `m64n144`, 64 for `m64n128`, 32 for `m64n64`, 16 for `m64n32`), A's 64 rows at `$a0`, B's
/// `2·ACC` rows (or columns) at `$b0`; `$mn_a`/`$mn_b`: the operand is MN-major in shared memory,
/// in boxes `$mn_box_bytes` apart, whose 16 k-rows of a slice are `$mn_slice_bytes` apart.
/// `$accumulate`: add to `$d` (else the first slice overwrites it). Fenced before, committed as
/// one group after.
///
/// A macro rather than a function so the consumer's k-loop keeps these instructions in its own
/// body: as a call, the compiler orders the consumer's instructions differently.
macro_rules! mma_k_tile {
    (
        $t:ty, $d:expr, $a0:expr, $b0:expr, $mn_a:expr, $mn_b:expr, $accumulate:expr;
        $slices:expr, $mn_slice_bytes:expr, $mn_box_bytes:expr
    ) => {
        $crate::arch::wgmma::fence();
        for kk in 0..$slices {
            // a slice of k: 32 bytes along a K-major row, or 16 k-rows of an MN-major box
            let da = if $mn_a {
                $crate::arch::wgmma::desc_mn_major_sw128($a0 + kk * $mn_slice_bytes, $mn_box_bytes)
            } else {
                $crate::arch::wgmma::desc_k_major_sw128($a0 + kk * $crate::warp::wgmma::SLICE_BYTES)
            };
            let db = if $mn_b {
                $crate::arch::wgmma::desc_mn_major_sw128($b0 + kk * $mn_slice_bytes, $mn_box_bytes)
            } else {
                $crate::arch::wgmma::desc_k_major_sw128($b0 + kk * $crate::warp::wgmma::SLICE_BYTES)
            };
            let acc = $accumulate || kk > 0;
            // wgmma's transpose bits say "MN-major"
            match ($mn_a, $mn_b) {
                (false, false) => <$t>::wgmma::<false, false, _>($d, da, db, acc),
                (false, true) => <$t>::wgmma::<false, true, _>($d, da, db, acc),
                (true, false) => <$t>::wgmma::<true, false, _>($d, da, db, acc),
                (true, true) => <$t>::wgmma::<true, true, _>($d, da, db, acc),
            }
        }
        $crate::arch::wgmma::commit_group();
    };
}

pub(crate) use mma_k_tile;
