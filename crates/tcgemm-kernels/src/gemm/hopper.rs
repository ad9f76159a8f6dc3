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
//! Tails: TMA fills out-of-range rows and k with zeros; the epilogue stores only in-range elements.
//!
//! Persistent: the host launches at most one CTA per SM; CTA `b` computes work items (output tile ×
//! batch item) `b, b + grid, …`, and the stage ring runs on across items, so the producer loads
//! the next item while the consumers store the last.
//!
//! Shared memory: the dynamic base rounded up to 1024 bytes (128-byte swizzle atoms), then
//! `STAGES × (A 128×128 B + B 256×128 B)`, then the `full` and `empty` barriers.

use super::mma16::{epilogue, Input16};
use super::{batch_bases, raster::tile_of_block};
use crate::arch::index::grid_dim_x;
use crate::arch::mbarrier;
use crate::arch::smem::{base, ld_shared_u32, st_shared_v4_u32};
use crate::arch::sync::{bar_sync_named, sync_threads};
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

/// Threads of the producer warpgroup that transpose staged TF32 operands (warps 1–3).
pub const TRANSPOSERS: u32 = 96;

/// Dynamic shared memory of a configuration with `stages` stages and `staging` staging slots of
/// `slot_bytes`: 1024 bytes of alignment slack, the stages, the staging slots, and the 8-byte
/// barriers (`full` and `empty` per stage, `staged` per slot).
pub const fn smem_bytes(stages: u32, staging: u32, slot_bytes: u32) -> u32 {
    1024 + stages * STAGE_BYTES + staging * slot_bytes + (2 * stages + staging) * 8
}

/// Transposes one staged k-tile of an MN-major TF32 operand (`ROWS` rows of 32 k, stored
/// k-row by k-row: element `(r, k)` at `src + 4·(k·ROWS + r)`) into the K-major layout TMA's
/// 128-byte swizzle gives (`dst + 128·r`, 16-byte chunk `k/4` at position `(k/4) ^ (r % 8)`).
/// Thread `t` of the [`TRANSPOSERS`] does units `t, t + 96, …`; a unit is one 16-byte chunk:
/// four conflict-free word loads (a warp reads 32 consecutive rows of one k) and one
/// conflict-free 16-byte store (eight consecutive rows land in eight different chunk positions).
///
/// # Safety
/// `src`/`dst` are 1024-byte-aligned shared tiles of `ROWS × 128` bytes; the caller orders the
/// accesses with the stage's barriers.
#[inline(always)]
unsafe fn transpose_tf32<const ROWS: u32>(src: u32, dst: u32, t: u32) {
    let mut u = t;
    while u < ROWS * 8 {
        let (r, c) = (u % ROWS, u / ROWS);
        let from = src + 4 * (4 * c * ROWS + r);
        let v = [
            ld_shared_u32(from),
            ld_shared_u32(from + 4 * ROWS),
            ld_shared_u32(from + 8 * ROWS),
            ld_shared_u32(from + 12 * ROWS),
        ];
        st_shared_v4_u32(dst + 128 * r + ((c ^ (r & 7)) << 4), v);
        u += TRANSPOSERS;
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
/// `STAGING` is the number of staging slots for TF32 operands stored MN-major (0 otherwise): TMA
/// loads such an operand's k-tile unswizzled into a slot, warps 1–3 of the producer warpgroup
/// transpose it into the stage's K-major swizzled tile (the layout TMA would have written), fence
/// it for the async proxy and arrive on `full[s]`, and warp 1's first thread refills the slot.
///
/// # Safety
/// Launched with [`THREADS`] threads, `smem_bytes(STAGES, STAGING, slot)` of dynamic shared memory,
/// the host-derived persistent grid, validated parameters and tensor maps encoded for them (as
/// `tcgemm`'s `tma` module does for this kernel's `config::KERNELS` record).
#[inline(always)]
pub unsafe fn hopper_gemm<
    T: WgmmaInput,
    const OUT_F32: bool,
    const TRANS_A: bool,
    const TRANS_B: bool,
    const STAGES: u32,
    const STAGING: u32,
>(
    p: &GemmParams,
    maps: u64,
    tid: u32,
    bid: u32,
) {
    // operands that go through a staging slot: MN-major ones the wgmma form cannot read
    let stage_a = TRANS_A && !T::MN_MAJOR_OK;
    let stage_b = !TRANS_B && !T::MN_MAJOR_OK;
    // what the consumers' wgmma sees: MN-major only if loaded as such
    let mn_a = TRANS_A && !stage_a;
    let mn_b = !TRANS_B && !stage_b;
    let staged = stage_a || stage_b;
    // bytes of A's and B's parts of a staging slot
    let slot_a = if stage_a { BM * ROW_BYTES } else { 0 };
    let slot_b = if stage_b { BN * ROW_BYTES } else { 0 };
    const {
        let slot = crate::config::hopper_staging_slot_bytes(TRANS_A, TRANS_B);
        let slot = if T::MN_MAJOR_OK { 0 } else { slot };
        assert!(
            smem_bytes(STAGES, STAGING, slot) == crate::config::hopper_smem(STAGES, STAGING, slot)
        );
        // a staged layout needs two slots (one loading while one is transposed); others none
        assert!((slot == 0) == (STAGING == 0) && STAGING != 1);
    };
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
    let batch_a = |z: u32| {
        if p.flags & flags::TMA_BATCH_A != 0 {
            z
        } else {
            0
        }
    };
    let batch_b = |z: u32| {
        if p.flags & flags::TMA_BATCH_B != 0 {
            z
        } else {
            0
        }
    };
    let smem = (base() + 1023) & !1023;
    let stg = |j: u32| smem + STAGES * STAGE_BYTES + j * (slot_a + slot_b);
    let bars = smem + STAGES * STAGE_BYTES + STAGING * (slot_a + slot_b);
    let full = |s: u32| bars + 8 * s;
    let empty = |s: u32| bars + 8 * (STAGES + s);
    let slot_full = |j: u32| bars + 8 * (2 * STAGES + j);
    let a_tile = |s: u32| smem + s * STAGE_BYTES;
    let b_tile = |s: u32| smem + s * STAGE_BYTES + BM * ROW_BYTES;
    let ktiles = p.k.div_ceil(bk);
    let wg = tid / 128;
    let (map_a, map_b) = (maps, maps + 128);

    if tid == 0 {
        for s in 0..STAGES {
            // the TMA thread's arrival (with the bytes), plus each transposer's
            mbarrier::init(full(s), 1 + if staged { TRANSPOSERS } else { 0 });
            // every consumer thread arrives once per k-tile
            mbarrier::init(empty(s), 256);
        }
        for j in 0..STAGING {
            mbarrier::init(slot_full(j), 1);
        }
        mbarrier::fence_init();
    }
    sync_threads();

    if wg == 0 {
        wgmma::setmaxnreg_dec::<40>();
        if tid == 0 {
            tma::prefetch_map(map_a);
            tma::prefetch_map(map_b);
            // k-tiles issued so far: the ring's stage and phase run on across work items, so the
            // next item's first stages load while the consumers store the previous item
            let mut it = 0u32;
            let mut w = bid;
            // the stage's bytes this thread's copies deliver (staged operands arrive separately)
            let bytes = STAGE_BYTES - slot_a - slot_b;
            while w < work {
                let (tile, z) = item(w);
                let (za, zb) = (batch_a(z), batch_b(z));
                let mut kt = 0;
                while kt < ktiles {
                    let s = it % STAGES;
                    // a fresh barrier's "previous phase" counts as complete: round 0 passes at once
                    mbarrier::wait_parity(empty(s), ((it / STAGES) & 1) ^ 1);
                    mbarrier::arrive_expect_tx(full(s), bytes);
                    let k0 = kt * bk;
                    if stage_a {
                        // transposed into the stage by the transposers
                    } else if TRANS_A {
                        // M-major A: boxes of 64 m × 64 k
                        for j in 0..BM / MN_BOX {
                            let (dst, m) = (a_tile(s) + j * MN_BOX_BYTES, tile.m0 + j * MN_BOX);
                            tma::global_to_shared_3d(dst, map_a, m, k0, za, full(s));
                        }
                    } else {
                        tma::global_to_shared_3d(a_tile(s), map_a, k0, tile.m0, za, full(s));
                    }
                    if stage_b {
                        // transposed into the stage by the transposers
                    } else if TRANS_B {
                        tma::global_to_shared_3d(b_tile(s), map_b, k0, tile.n0, zb, full(s));
                    } else {
                        // N-major B: boxes of 64 n × 64 k
                        for j in 0..BN / MN_BOX {
                            let (dst, n) = (b_tile(s) + j * MN_BOX_BYTES, tile.n0 + j * MN_BOX);
                            tma::global_to_shared_3d(dst, map_b, n, k0, zb, full(s));
                        }
                    }
                    kt += 1;
                    it += 1;
                }
                w += grid;
            }
        } else if staged && tid >= 32 {
            let t = tid - 32;
            // Slot loads run STAGING k-tiles ahead of the transposes; `(lw, lkt)` is the next
            // k-tile to load (thread t = 0 issues them).
            let (mut lw, mut lkt) = (bid, 0u32);
            let load = |j: u32, w: u32, kt: u32| {
                let (tile, z) = item(w);
                let (dst, k0, bar) = (stg(j), kt * bk, slot_full(j));
                mbarrier::arrive_expect_tx(bar, slot_a + slot_b);
                // the whole tile's rows × 32 k in one unswizzled box, k-row by k-row
                if stage_a {
                    tma::global_to_shared_3d(dst, map_a, tile.m0, k0, batch_a(z), bar);
                }
                if stage_b {
                    tma::global_to_shared_3d(dst + slot_a, map_b, tile.n0, k0, batch_b(z), bar);
                }
            };
            let next = |lw: &mut u32, lkt: &mut u32| {
                *lkt += 1;
                if *lkt == ktiles {
                    *lkt = 0;
                    *lw += grid;
                }
            };
            if t == 0 {
                let mut j = 0;
                while j < STAGING && lw < work {
                    load(j, lw, lkt);
                    next(&mut lw, &mut lkt);
                    j += 1;
                }
            }
            // k-tiles of this CTA's work items (the host's grid has bid < work)
            let total = ktiles * work.saturating_sub(bid).div_ceil(grid);
            let mut it = 0u32;
            while it < total {
                let (s, j) = (it % STAGES, it % STAGING);
                mbarrier::wait_parity(slot_full(j), (it / STAGING) & 1);
                mbarrier::wait_parity(empty(s), ((it / STAGES) & 1) ^ 1);
                if stage_a {
                    transpose_tf32::<BM>(stg(j), a_tile(s), t);
                }
                if stage_b {
                    transpose_tf32::<BN>(stg(j) + slot_a, b_tile(s), t);
                }
                // the stage's generic-proxy writes before the consumers' wgmma (async proxy)
                tma::fence_proxy_async_shared();
                mbarrier::arrive(full(s));
                // every transposer is done reading slot j: refill it
                bar_sync_named::<1, TRANSPOSERS>();
                if t == 0 && lw < work {
                    load(j, lw, lkt);
                    next(&mut lw, &mut lkt);
                }
                it += 1;
            }
        }
    } else {
        wgmma::setmaxnreg_inc::<232>();
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
            let acc: [[[f32; 4]; 32]; 1] = [core::array::from_fn(|j| {
                [d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]]
            })];
            let t = tid % 128;
            epilogue::<T::Out, OUT_F32, 1, 32>(
                p,
                &acc,
                gc,
                tile.m0 + c * 64 + (t / 32) * 16 + (t % 32) / 4,
                tile.n0 + 2 * (t % 4),
            );
            w += grid;
        }
    }
}
