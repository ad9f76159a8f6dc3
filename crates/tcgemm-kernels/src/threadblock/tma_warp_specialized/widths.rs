//! The body's entry ([`gemm`]): the checks on its constants, and the instance of the body
//! ([`gemm_with_accumulators`]) for the consumers' `wgmma` width.

use super::layout::CONSUMER_ROWS;
use super::{consumer_cols, gemm_with_accumulators};
use crate::epilogue::OutputElem;
use crate::params::GemmParams;
use crate::warp::wgmma::{accumulators, n8_blocks, WgmmaInput, N128, N144, N192, N256, N32, N64};

/// Computes the block's work items. `maps` reads the generic address of the kernel's `TmaParams`
/// (A's tensor map at +0, B's at +128, C's at +256), called where a map is used.
///
/// # Safety
/// Launched with [`threads`](super::threads) threads, [`smem_bytes`](super::smem_bytes) of dynamic
/// shared memory, a persistent grid
/// (at most one CTA per SM) whose size `grid_dim` returns, validated parameters and tensor maps
/// encoded for them (as `tcgemm`'s `tma` module does for this kernel's `config::KERNELS` record).
/// `grid_dim` is the entry point's reader of `%nctaid.x`, called where the work loop needs it.
#[inline(always)]
pub unsafe fn gemm<
    T: WgmmaInput,
    O: OutputElem,
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const STAGES: u32,
    const LDG: bool,
    const REG_A: bool,
    const SWAP_AB: bool,
    const PING_PONG: bool,
    const PAIRS: bool,
>(
    p: &GemmParams,
    maps: impl Fn() -> u64,
    tid: u32,
    bid: u32,
    grid_dim: impl FnOnce() -> u32,
) {
    // The accumulators' array lengths (`WN / 2` f32, `WN / 8` fragment columns, `WN` the width of
    // a consumer's share, `consumer_cols`) cannot be computed from `BM` and `BN` inside a generic
    // body (no generic constant expressions): each `wgmma` width has its body instance, its
    // lengths computed here from constants. `WN` is a constant: one arm is code, the others are
    // removed.
    const {
        assert!(
            BM == 2 * CONSUMER_ROWS || BM == CONSUMER_ROWS,
            "tiles of 128 or 64 rows"
        )
    };
    const {
        assert!(
            consumer_cols(BM, BN, PING_PONG) == N256
                || consumer_cols(BM, BN, PING_PONG) == N192
                || consumer_cols(BM, BN, PING_PONG) == N144
                || consumer_cols(BM, BN, PING_PONG) == N128
                || consumer_cols(BM, BN, PING_PONG) == N64
                || consumer_cols(BM, BN, PING_PONG) == N32,
            "wgmma widths: m64n256, m64n192, m64n144, m64n128, m64n64, m64n32"
        )
    };
    // B's MN-major boxes are 64 columns wide: a width that is not a multiple of 64 reads a
    // K-major B (`nt`, `tt`) through the TMA copy
    const { assert!(BN.is_multiple_of(64) || (TRANS_B && !LDG && !REG_A)) };
    // ping-pong: 64-row tiles of TMA-fed consumers, each a whole tile, no shared k-tiles
    const { assert!(!PING_PONG || (BM == CONSUMER_ROWS && !LDG && !REG_A)) };
    // thread copies next to `m64n128` consumers of 128-row tiles only (the register split of
    // `LDG_CONSUMER_REGS`, the row split of `load_stage`)
    const { assert!(!LDG || (BM == 2 * CONSUMER_ROWS && BN == N128)) };
    // the body for consumers `wgmma.m64n$w` wide
    macro_rules! body {
        ($w:expr) => {
            gemm_with_accumulators::<
                T,
                O,
                TRANS_A,
                TRANS_B,
                BM,
                BN,
                STAGES,
                LDG,
                REG_A,
                SWAP_AB,
                PING_PONG,
                PAIRS,
                { accumulators($w) },
                { n8_blocks($w) },
            >(p, maps, tid, bid, grid_dim)
        };
    }
    match consumer_cols(BM, BN, PING_PONG) {
        N256 => body!(N256),
        N192 => body!(N192),
        N144 => body!(N144),
        N128 => body!(N128),
        N32 => body!(N32),
        _ => body!(N64),
    }
}
