//! Hopper (sm_90a) GEMM threadblock: TMA loads into a ring of shared-memory stages completing on
//! `mbarrier`s, warp-specialized (one producer warpgroup, two consumer warpgroups), `wgmma` from
//! shared-memory descriptors, accumulators in registers.
//!
//! Block tile 128×256×64 (16-bit inputs), any layout: a K-major operand (A not transposed, B
//! transposed) arrives as one TMA box of 128-byte rows; an MN-major one as boxes of 64 MN-elements ×
//! 64 k-rows, and `wgmma` reads it transposed (its descriptor steps 1024 B per 8 k-rows and one box
//! per 64 MN-elements):
//! - warpgroup 0 (producer) lowers its registers to 40 with `setmaxnreg`; one thread waits for a
//!   stage to be free (`empty[s]`), announces its bytes on `full[s]` and issues two TMA box copies;
//! - warpgroups 1 and 2 (consumers) raise theirs to 232; consumer `c` owns rows `64c..64c+64` of
//!   the tile: per k-tile it waits on `full[s]`, issues four `wgmma.m64n256k16` (one per 16-deep
//!   slice, the descriptor's start address stepping 32 bytes inside the 128-byte swizzle row),
//!   commits, waits until only this group is pending, and releases the previous k-tile's stage
//!   (`empty`), whose `wgmma`s have now completed.
//!
//! TF32 (128×256×32): `wgmma .tf32` reads K-major operands only. An MN-major TF32 operand arrives
//! as unswizzled 32×32 blocks completing on a third barrier `loaded[s]`; warps 1–3 of the producer
//! (56 registers in these kernels, consumers 224) transpose each block in place into the K-major
//! swizzled layout, fence it for the async proxy and arrive on `full[s]`.
//!
//! Epilogue (`epilogue_wide`): 16-byte stores straight from the accumulators, after a shuffle
//! inside each quad of lanes.
//!
//! Tails: TMA fills out-of-range rows and k with zeros; the epilogue stores only in-range elements.
//!
//! Persistent: the host launches at most one CTA per SM; CTA `b` computes work items (output tile ×
//! batch item) `b, b + grid, …`, and the stage ring runs on across items, so the producer loads
//! the next item while the consumers store the last.
//!
//! Shared memory: the dynamic base rounded up to 1024 bytes (128-byte swizzle atoms), then
//! `STAGES × (A 128×128 B + B 256×128 B)`, then the `full`, `empty` and `loaded` barriers.

use super::mma16::{epilogue, Input16};
use super::{batch_bases, raster::tile_of_block};
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    ld_global_f32, ld_global_v4_f32, st_global_f32, st_global_u16, st_global_v4_f32,
    st_global_v4_u32,
};
use crate::arch::index::grid_dim_x;
use crate::arch::mbarrier;
use crate::arch::smem::{base, ld_shared_u32, st_shared_v4_u32};
use crate::arch::sync::{shfl_xor, sync_threads, sync_warp};
use crate::arch::tma;
use crate::arch::wgmma;
use crate::params::{flags, GemmParams};

/// Block tile rows.
pub const BM: u32 = 128;
/// Block tile columns.
pub const BN: u32 = 256;
/// Bytes of a k-tile row: one 128-byte swizzle row (64 16-bit or 32 tf32 elements).
pub const ROW_BYTES: u32 = 128;
/// Bytes of one stage: the A box (128 rows) and the B box (256 rows) of 128-byte rows.
pub const STAGE_BYTES: u32 = (BM + BN) * ROW_BYTES;
/// k-rows of a k-tile of an MN-major operand (16-bit elements only).
pub const BK16: u32 = 64;
/// Elements along M or N of one TMA box of an MN-major operand (128 bytes: the swizzle width).
pub const MN_BOX: u32 = 64;
/// Bytes of one MN-major box: `MN_BOX` elements × `BK16` k-rows.
pub const MN_BOX_BYTES: u32 = MN_BOX * BK16 * 2;
/// Threads: three warpgroups.
pub const THREADS: u32 = 384;

/// Repeats `$body` with `$j: u32` bound to each listed value (a loop LLVM does not fully unroll
/// would index the accumulator array in local memory).
macro_rules! unroll {
    ($j:ident in [$($n:literal),*] $body:block) => {
        $({
            let $j: u32 = $n;
            $body
        })*
    };
}

/// Rows (and k) of one in-place transpose block of a staged TF32 operand: 32 × 32 f32, 4 KiB.
pub const TBLOCK: u32 = 32;
/// Threads that transpose staged TF32 operands: warps 1–3 of the producer warpgroup (warp 0's
/// first thread issues the copies).
pub const TRANSPOSERS: u32 = 96;

/// Dynamic shared memory of a configuration with `stages` stages: 1024 bytes of alignment slack,
/// the stages, and three 8-byte barriers per stage (`full`, `empty`, `loaded`).
pub const fn smem_bytes(stages: u32) -> u32 {
    1024 + stages * STAGE_BYTES + stages * 24
}

/// Transposes, in place and by one warp, a 32×32 block of an MN-major TF32 operand as TMA left it
/// (an unswizzled box of 32 rows × 32 k: element `(r, k)` at `4·(32·k + r)`) into the K-major
/// layout of TMA's 128-byte swizzle (row `r` at `128·r`, 16-byte chunk `k/4` at position
/// `(k/4) ^ (r % 8)`). Both layouts fill the same 4 KiB. Lane `l` reads row `l` (32 word loads; a
/// warp load is one 128-byte k-row: conflict-free), the warp synchronizes, and lane `l` writes row
/// `l` as 8 16-byte chunks (eight consecutive rows land in eight chunk positions: conflict-free).
///
/// # Safety
/// Warp-convergent; `blk` is a 1024-byte-aligned shared block the caller's barriers give to this
/// warp alone.
#[inline(always)]
unsafe fn transpose_block_tf32(blk: u32, lane: u32) {
    let v: [u32; 32] = core::array::from_fn(|k| ld_shared_u32(blk + 128 * k as u32 + 4 * lane));
    sync_warp();
    let (row, x) = (blk + 128 * lane, lane & 7);
    unroll!(c in [0, 1, 2, 3, 4, 5, 6, 7] {
        let w = 4 * c as usize;
        st_shared_v4_u32(row + ((c ^ x) << 4), [v[w], v[w + 1], v[w + 2], v[w + 3]]);
    });
}

/// One round of the quad's 4×4 word transpose: lanes `q` and `q ^ MASK` exchange the words whose
/// segment bit `MASK` differs from their lane bit (afterwards word `s` of lane `q` is
/// `M[q ^ (d & MASK)][s ^ (d & MASK)]`, `d = q ^ s`; rounds with masks 2 and 1 give `M[s][q]`).
///
/// # Safety
/// Warp-convergent (a shuffle).
#[inline(always)]
unsafe fn quad_swap<const MASK: u32>(x: &mut [u32; 4], q: u32) {
    let hi = q & MASK != 0;
    let m = MASK as usize;
    unroll!(s in [0, 1, 2, 3] {
        let s = s as usize;
        if s & m == 0 {
            let y = shfl_xor::<MASK>(if hi { x[s] } else { x[s | m] });
            if hi {
                x[s] = y;
            } else {
                x[s | m] = y;
            }
        }
    });
}

/// Stores a consumer's 64×256 accumulator tile `C = alpha·d (+ beta·C)` 16 bytes per store.
///
/// Thread `(g, q)` (`g` = lane/4, `q` = lane%4) holds, for each 8-column block `j`, columns
/// `8j + 2q, +1` of rows `row0` and `row0 + 8`. f32 output: lanes `q` and `q ^ 1` swap one pair
/// (two `shfl`), so the even lane holds 4 consecutive columns of row `row0` and the odd one 4 of
/// row `row0 + 8`. 16-bit output (beta = 0): the quad transposes its packed words of two blocks
/// (two butterfly rounds, four `shfl`), so each lane holds 8 consecutive columns of one row and
/// block. Out-of-range columns of a tail are stored element by element; rows beyond `m` not at
/// all. C's base, `ldc` and batch stride are 16-byte aligned (the TMA kernels' dispatch rule).
///
/// # Safety
/// Warp-convergent (the shuffles); `gc` is batch item's C, valid for the problem in `p`.
#[inline(always)]
unsafe fn epilogue_wide<T: Input16, const OUT_F32: bool>(
    p: &GemmParams,
    d: &[f32; 128],
    gc: u64,
    row0: u32,
    col0: u32,
    q: u32,
) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let es: u64 = if OUT_F32 { 4 } else { 2 };
    let at = |row: u32, col: u32| gc.wrapping_add((row as u64 * p.ldc + col as u64) * es);
    if OUT_F32 {
        let odd = q & 1 != 0;
        // unrolled: `d` must stay in registers
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] {
            let i = 4 * j as usize;
            let y = [
                d[i] * p.alpha,
                d[i + 1] * p.alpha,
                d[i + 2] * p.alpha,
                d[i + 3] * p.alpha,
            ];
            // even lanes send row0 + 8's pair, odd lanes row0's
            let (s0, s1) = if odd { (y[0], y[1]) } else { (y[2], y[3]) };
            let r0 = f32::from_bits(shfl_xor::<1>(s0.to_bits()));
            let r1 = f32::from_bits(shfl_xor::<1>(s1.to_bits()));
            let (row, col, mut v) = if odd {
                (row0 + 8, col0 + 8 * j + 2 * q - 2, [r0, r1, y[2], y[3]])
            } else {
                (row0, col0 + 8 * j + 2 * q, [y[0], y[1], r0, r1])
            };
            let addr = at(row, col);
            if row >= p.m || col >= p.n {
                // nothing of this block in range
            } else if col + 4 <= p.n {
                if !beta_zero {
                    let c = ld_global_v4_f32(addr);
                    unroll!(e in [0, 1, 2, 3] {
                        let e = e as usize;
                        v[e] = fma_rn_f32(p.beta, c[e], v[e]);
                    });
                }
                st_global_v4_f32(addr, v);
            } else {
                unroll!(e in [0, 1, 2, 3] {
                    if col + e < p.n {
                        let a = addr + u64::from(e) * 4;
                        let mut x = v[e as usize];
                        if !beta_zero {
                            x = fma_rn_f32(p.beta, ld_global_f32(a), x);
                        }
                        st_global_f32(a, x);
                    }
                });
            }
        });
    } else {
        unroll!(j2 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            // segment s: row row0 + 8·(s & 1) of block 2·j2 + (s >> 1); this lane's word of it
            let mut x: [u32; 4] = core::array::from_fn(|s| {
                let i = 4 * (2 * j2 as usize + (s >> 1)) + 2 * (s & 1);
                T::pack(d[i] * p.alpha, d[i + 1] * p.alpha)
            });
            // M[lane][seg] → M[seg][lane]: swap where lane and segment bits differ, bit 1 then 0
            quad_swap::<2>(&mut x, q);
            quad_swap::<1>(&mut x, q);
            // now x[w] is word w (columns 2w, 2w + 1) of segment q
            let (row, col) = (row0 + 8 * (q & 1), col0 + 8 * (2 * j2 + (q >> 1)));
            let addr = at(row, col);
            if row >= p.m || col >= p.n {
                // nothing of this block in range
            } else if col + 8 <= p.n {
                st_global_v4_u32(addr, x);
            } else {
                unroll!(e in [0, 1, 2, 3, 4, 5, 6, 7] {
                    if col + e < p.n {
                        let w = x[(e / 2) as usize] >> (16 * (e % 2));
                        st_global_u16(addr + u64::from(e) * 2, w as u16);
                    }
                });
            }
        });
    }
}

/// The input type of a Hopper kernel: element size and its `wgmma`. A k-tile is one 128-byte row
/// per operand row (`128 / EB` elements) and four `wgmma`s of 32 bytes of k each.
pub trait WgmmaInput {
    /// Element bytes.
    const EB: u32;
    /// Whether the `wgmma` form can read MN-major operands (the 16-bit forms; tf32 cannot).
    const MN_MAJOR_OK: bool;
    /// The type the epilogue converts a 16-bit output with (unused for f32 output).
    type Out: Input16;
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

/// `WgmmaInput` for a 16-bit input type whose `wgmma` is `$f`.
macro_rules! wgmma_input16 {
    ($t:ty, $f:path) => {
        impl WgmmaInput for $t {
            const EB: u32 = 2;
            const MN_MAJOR_OK: bool = true;
            type Out = $t;
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

wgmma_input16!(super::mma16::F16, wgmma::m64n256k16_f32_f16::<TA, TB>);
wgmma_input16!(super::mma16::Bf16, wgmma::m64n256k16_f32_bf16::<TA, TB>);

/// TF32 inputs: f32 bit patterns read by `wgmma … .tf32` (K-major operands only).
pub struct Tf32;

impl WgmmaInput for Tf32 {
    const EB: u32 = 4;
    const MN_MAJOR_OK: bool = false;
    type Out = super::mma16::F16;
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

/// Computes the block's work items. `maps` is the generic address of the kernel's `TmaParams` (A's
/// tensor map at +0, B's at +128).
///
/// A TF32 operand stored MN-major (which `wgmma .tf32` cannot read) is *staged*: TMA writes it as
/// unswizzled 32×32 blocks into the stage and completes on `loaded[s]`; warps 1–3 of the producer
/// warpgroup transpose the blocks in place into the K-major swizzled layout (what TMA writes for a
/// K-major operand), fence them for the async proxy and arrive on `full[s]`.
///
/// # Safety
/// Launched with [`THREADS`] threads, `smem_bytes(STAGES)` of dynamic shared memory, the
/// host-derived persistent grid, validated parameters and tensor maps encoded for them (as
/// `tcgemm`'s `tma` module does for this kernel's `config::KERNELS` record).
#[inline(always)]
pub unsafe fn hopper_gemm<
    T: WgmmaInput,
    const OUT_F32: bool,
    const TRANS_A: bool,
    const TRANS_B: bool,
    const STAGES: u32,
>(
    p: &GemmParams,
    maps: u64,
    tid: u32,
    bid: u32,
) {
    const { assert!(smem_bytes(STAGES) == crate::config::hopper_smem(STAGES)) };
    // staged operands: MN-major ones the wgmma form cannot read
    let stage_a = TRANS_A && !T::MN_MAJOR_OK;
    let stage_b = !TRANS_B && !T::MN_MAJOR_OK;
    // what the consumers' wgmma sees: MN-major only if loaded as such
    let mn_a = TRANS_A && !stage_a;
    let mn_b = !TRANS_B && !stage_b;
    let staged = stage_a || stage_b;
    // k ≥ 1: dispatch sends calls that do not read A and B (k = 0 or alpha = 0) to sm_80 kernels
    // k elements per k-tile: one 128-byte row
    let bk = ROW_BYTES / T::EB;
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    let tiles = tiles_m * tiles_n;
    // work item w = z·tiles + tile; CTA `bid` takes w = bid, bid + grid, … (the host launches at most
    // one CTA per SM and checks that tiles·batch fits 32 bits)
    let work = tiles * p.batch;
    let grid = grid_dim_x();
    let item = |w: u32| {
        let z = w / tiles;
        (
            tile_of_block(w - z * tiles, tiles_m, tiles_n, p.group_m, BM, BN),
            z,
        )
    };
    let smem = (base() + 1023) & !1023;
    let bars = smem + STAGES * STAGE_BYTES;
    let full = |s: u32| bars + 8 * s;
    let empty = |s: u32| bars + 8 * (STAGES + s);
    let loaded = |s: u32| bars + 8 * (2 * STAGES + s);
    let a_tile = |s: u32| smem + s * STAGE_BYTES;
    let b_tile = |s: u32| smem + s * STAGE_BYTES + BM * ROW_BYTES;
    let ktiles = p.k.div_ceil(bk);
    let wg = tid / 128;

    if tid == 0 {
        for s in 0..STAGES {
            // staged: the copies complete `loaded`, the transposers arrive on `full`
            mbarrier::init(full(s), if staged { TRANSPOSERS } else { 1 });
            mbarrier::init(loaded(s), 1);
            // every consumer thread arrives once per k-tile
            mbarrier::init(empty(s), 256);
        }
        mbarrier::fence_init();
    }
    sync_threads();

    if wg == 0 {
        // the transposers hold a 32-word block row: more than the plain producer's 40 registers
        if staged {
            wgmma::setmaxnreg_dec::<56>();
        } else {
            wgmma::setmaxnreg_dec::<40>();
        }
        if tid == 0 {
            let (map_a, map_b) = (maps, maps + 128);
            tma::prefetch_map(map_a);
            tma::prefetch_map(map_b);
            // k-tiles issued so far: the ring's stage and phase run on across work items, so the
            // next item's first stages load while the consumers store the previous item
            let mut it = 0u32;
            let mut w = bid;
            while w < work {
                let (tile, z) = item(w);
                let za = if p.flags & flags::TMA_BATCH_A != 0 {
                    z
                } else {
                    0
                };
                let zb = if p.flags & flags::TMA_BATCH_B != 0 {
                    z
                } else {
                    0
                };
                let mut kt = 0;
                while kt < ktiles {
                    let s = it % STAGES;
                    // a fresh barrier's "previous phase" counts as complete: round 0 passes at once
                    mbarrier::wait_parity(empty(s), ((it / STAGES) & 1) ^ 1);
                    let bar = if staged { loaded(s) } else { full(s) };
                    mbarrier::arrive_expect_tx(bar, STAGE_BYTES);
                    let k0 = kt * bk;
                    if stage_a {
                        // M-major TF32 A: 32×32 blocks, transposed in place by the transposers
                        for j in 0..BM / TBLOCK {
                            let (dst, m) =
                                (a_tile(s) + j * TBLOCK * ROW_BYTES, tile.m0 + j * TBLOCK);
                            tma::global_to_shared_3d(dst, map_a, m, k0, za, bar);
                        }
                    } else if TRANS_A {
                        // M-major A: boxes of 64 m × 64 k
                        for j in 0..BM / MN_BOX {
                            let (dst, m) = (a_tile(s) + j * MN_BOX_BYTES, tile.m0 + j * MN_BOX);
                            tma::global_to_shared_3d(dst, map_a, m, k0, za, bar);
                        }
                    } else {
                        tma::global_to_shared_3d(a_tile(s), map_a, k0, tile.m0, za, bar);
                    }
                    if stage_b {
                        // N-major TF32 B: 32×32 blocks, transposed in place by the transposers
                        for j in 0..BN / TBLOCK {
                            let (dst, n) =
                                (b_tile(s) + j * TBLOCK * ROW_BYTES, tile.n0 + j * TBLOCK);
                            tma::global_to_shared_3d(dst, map_b, n, k0, zb, bar);
                        }
                    } else if TRANS_B {
                        tma::global_to_shared_3d(b_tile(s), map_b, k0, tile.n0, zb, bar);
                    } else {
                        // N-major B: boxes of 64 n × 64 k
                        for j in 0..BN / MN_BOX {
                            let (dst, n) = (b_tile(s) + j * MN_BOX_BYTES, tile.n0 + j * MN_BOX);
                            tma::global_to_shared_3d(dst, map_b, n, k0, zb, bar);
                        }
                    }
                    kt += 1;
                    it += 1;
                }
                w += grid;
            }
        } else if staged && tid >= 32 {
            // transposer warp x = 0..3 takes the staged blocks x, x + 3, … of each stage (A's
            // blocks first, then B's)
            let (x, lane) = (tid / 32 - 1, tid % 32);
            let blocks_a = if stage_a { BM / TBLOCK } else { 0 };
            let blocks = blocks_a + if stage_b { BN / TBLOCK } else { 0 };
            let total = ktiles * work.saturating_sub(bid).div_ceil(grid);
            let mut it = 0u32;
            while it < total {
                let s = it % STAGES;
                mbarrier::wait_parity(loaded(s), (it / STAGES) & 1);
                let mut b = x;
                while b < blocks {
                    let blk = if b < blocks_a {
                        a_tile(s) + b * TBLOCK * ROW_BYTES
                    } else {
                        b_tile(s) + (b - blocks_a) * TBLOCK * ROW_BYTES
                    };
                    transpose_block_tf32(blk, lane);
                    b += TRANSPOSERS / 32;
                }
                // this thread's generic-proxy writes before the consumers' wgmma (async proxy)
                tma::fence_proxy_async_shared();
                mbarrier::arrive(full(s));
                it += 1;
            }
        }
    } else {
        // 128·40 + 256·232 or 128·56 + 256·224 registers: within the 64 Ki of the SM
        if staged {
            wgmma::setmaxnreg_inc::<224>();
        } else {
            wgmma::setmaxnreg_inc::<232>();
        }
        let c = wg - 1;
        let mut d = [0.0f32; 128];
        let mut it = 0u32;
        let mut w = bid;
        while w < work {
            // k-tiles `first..end` of the ring belong to this item
            let (first, end) = (it, it + ktiles);
            while it < end {
                let s = it % STAGES;
                mbarrier::wait_parity(full(s), (it / STAGES) & 1);
                // consumer c's 64 rows: 64 K-major rows of 128 B, or the c-th M-major box
                let a0 = a_tile(s) + c * 64 * ROW_BYTES;
                let b0 = b_tile(s);
                wgmma::fence();
                for kk in 0..4 {
                    // a 32-byte slice of k: 32 bytes along a K-major row, or 16 rows (2048 B) of
                    // an MN-major box
                    let da = if mn_a {
                        wgmma::desc_mn_major_sw128(a0 + kk * 2048, MN_BOX_BYTES)
                    } else {
                        wgmma::desc_k_major_sw128(a0 + kk * 32)
                    };
                    let db = if mn_b {
                        wgmma::desc_mn_major_sw128(b0 + kk * 2048, MN_BOX_BYTES)
                    } else {
                        wgmma::desc_k_major_sw128(b0 + kk * 32)
                    };
                    let acc = it > first || kk > 0;
                    // wgmma's transpose bits say "MN-major"
                    match (mn_a, mn_b) {
                        (false, false) => T::wgmma::<false, false>(&mut d, da, db, acc),
                        (false, true) => T::wgmma::<false, true>(&mut d, da, db, acc),
                        (true, false) => T::wgmma::<true, false>(&mut d, da, db, acc),
                        (true, true) => T::wgmma::<true, true>(&mut d, da, db, acc),
                    }
                }
                wgmma::commit_group();
                // the previous k-tile's group has completed: its stage may be refilled
                wgmma::wait_group::<1>();
                if it > first {
                    mbarrier::arrive(empty((it - 1) % STAGES));
                }
                it += 1;
            }
            wgmma::wait_group::<0>();
            // the item's last stage is free too: the producer may run ahead into the next item
            mbarrier::arrive(empty((it - 1) % STAGES));
            // (recomputed here, so it is not live across the k-loop)
            let (tile, z) = item(w);
            let (_, _, gc) = batch_bases(p, z, u64::from(T::EB), if OUT_F32 { 4 } else { 2 });
            let t = tid % 128;
            let row0 = tile.m0 + c * 64 + (t / 32) * 16 + (t % 32) / 4;
            if OUT_F32 || p.flags & flags::BETA_ZERO != 0 {
                epilogue_wide::<T::Out, OUT_F32>(p, &d, gc, row0, tile.n0, t % 4);
            } else {
                // a 16-bit C to read: the FP16 path's paired epilogue, which widens C exactly
                let acc: [[[f32; 4]; 32]; 1] = [core::array::from_fn(|j| {
                    [d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]]
                })];
                epilogue::<T::Out, OUT_F32, 1, 32>(p, &acc, gc, row0, tile.n0 + 2 * (t % 4));
            }
            w += grid;
        }
    }
}
