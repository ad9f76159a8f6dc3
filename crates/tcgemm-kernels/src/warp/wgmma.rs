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

/// Columns of one `m64n256` accumulator in `m16n8` fragment columns (256 / 8): each thread holds
/// `N8_FRAGMENTS` column pairs of its warp's 16 rows, laid out as `mma.sync`'s m16n8 fragments.
pub const N8_FRAGMENTS: usize = 256 / 8;

/// The input kind of a `wgmma` with f32 accumulators: element size and the instruction.
pub trait WgmmaInput {
    /// Element bytes.
    const EB: u32;
    /// Whether the `wgmma` form can read MN-major operands (the 16-bit forms; tf32 cannot).
    const MN_MAJOR_OK: bool;
    /// `d (+)= A·B` for one 64×256×(32 bytes of k) slice; `TA`/`TB`: operand MN-major.
    ///
    /// # Safety
    /// As [`wgmma::m64n256k16_f32_f16`].
    unsafe fn wgmma<const TA: bool, const TB: bool>(
        d: &mut [f32; 128],
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

/// `WgmmaInput` for a 16-bit input kind whose `wgmma` is `$f`.
macro_rules! wgmma_input16 {
    ($t:ty, $f:path) => {
        impl WgmmaInput for $t {
            const EB: u32 = 2;
            const MN_MAJOR_OK: bool = true;
            #[inline(always)]
            unsafe fn wgmma<const TA: bool, const TB: bool>(
                d: &mut [f32; 128],
                da: u64,
                db: u64,
                accumulate: bool,
            ) {
                $f(d, da, db, accumulate)
            }
        }
    };
}

wgmma_input16!(WgmmaF16, wgmma::m64n256k16_f32_f16::<TA, TB>);
wgmma_input16!(WgmmaBf16, wgmma::m64n256k16_f32_bf16::<TA, TB>);

impl WgmmaInput for WgmmaTf32 {
    const EB: u32 = 4;
    const MN_MAJOR_OK: bool = false;
    #[inline(always)]
    unsafe fn wgmma<const TA: bool, const TB: bool>(
        d: &mut [f32; 128],
        da: u64,
        db: u64,
        accumulate: bool,
    ) {
        wgmma::m64n256k8_f32_tf32(d, da, db, accumulate)
    }
}

/// Issues the `wgmma`s of one k-tile with the kind `$t`: `$slices` slices of [`SLICE_BYTES`] of k
/// (one swizzle row), accumulators `$d: [f32; 128]`, A's 64 rows at `$a0`, B's tile at `$b0`;
/// `$mn_a`/`$mn_b`: the operand is MN-major in shared memory, in boxes `$mn_box_bytes` apart,
/// whose 16 k-rows of a slice are `$mn_slice_bytes` apart. `$accumulate`: add to `$d` (else the
/// first slice overwrites it). Fenced before, committed as one group after.
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
                (false, false) => <$t>::wgmma::<false, false>($d, da, db, acc),
                (false, true) => <$t>::wgmma::<false, true>($d, da, db, acc),
                (true, false) => <$t>::wgmma::<true, false>($d, da, db, acc),
                (true, true) => <$t>::wgmma::<true, true>($d, da, db, acc),
            }
        }
        $crate::arch::wgmma::commit_group();
    };
}

pub(crate) use mma_k_tile;
