//! Hopper (sm_90a) GEMM threadblock: TMA loads into a ring of shared-memory stages completing on
//! `mbarrier`s, warp-specialized (one producer warpgroup, two consumer warpgroups), `wgmma` from
//! shared-memory descriptors (`mma_k_tile`), accumulators in registers, persistent.
//!
//! The roles, tiles, schedules and shared layout (`tma_warp_specialized/design.md`):
#![doc = include_str!("tma_warp_specialized/design.md")]

mod layout;
#[cfg(target_feature = "sm_90a")]
mod widths;

#[cfg(target_feature = "sm_90a")]
pub(crate) use layout::MN_BOX;
pub use layout::{
    c_buffers, consumer_cols, shares_k_tiles, smem_bytes, smem_bytes_thread_copies,
    splits_in_clusters, threads, whole_c_chunks, C_CHUNK_BYTES, ROW_BYTES,
};
#[cfg(target_feature = "sm_90a")]
pub use widths::gemm;
#[cfg(target_feature = "sm_90a")]
use {
    super::{
        batch_bases,
        cluster_split::{self, partial_bytes},
        raster::tile_of_block,
        stream_k::{add_partial, store_partial, Role, Schedule},
    },
    crate::arch::cluster::{map_shared, sync_cluster},
    crate::arch::mbarrier,
    crate::arch::opaque::unhoisted,
    crate::arch::smem::base,
    crate::arch::sync::{arrive_named, sync_named, sync_threads},
    crate::arch::tma,
    crate::arch::wgmma,
    crate::config::GemmShape,
    crate::epilogue::{
        fragment::store_pairs,
        tma_store,
        wgmma::{store_pairs_transposed, store_rows, store_rows_transposed},
        OutputElem,
    },
    crate::params::{flags, GemmParams},
    crate::threadblock::global_to_shared::swizzled_rows::{load_stage, SwizzledOperand},
    crate::warp::wgmma::{mma_k_tile, tf32_register_a, WgmmaInput, ADD_SPAN, N128, SLICE_BYTES},
    crate::warp::wgmma_register_a::{fragment_row, load_k_tile},
    layout::{
        transpose_block_tf32, Stage, CONSUMER_ROWS, LDG_CONSUMER_REGS, LDG_PRODUCERS,
        LDG_PRODUCER_REGS, MN_BOX_BYTES, MN_SLICE_BYTES, PING_PONG_ORDER, SLICES, TBLOCK,
        TRANSPOSERS,
    },
};

/// [`gemm`] for a tile whose consumer threads hold `ACC` (= `WN / 2`, [`consumer_cols`]) f32
/// accumulators, `N8` (= `WN / 8`) blocks of 8 columns in the m16n8 fragment layout.
///
/// One function of more than 80 lines on purpose: split into calls, its parts are optimized apart
/// before they are inlined and the PTX changes (docs/ARCHITECTURE.md, "PTX identity").
///
/// # Safety
/// As [`gemm`].
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn gemm_with_accumulators<
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
    const ACC: usize,
    const N8: usize,
>(
    p: &GemmParams,
    maps: impl Fn() -> u64,
    tid: u32,
    bid: u32,
    grid_dim: impl FnOnce() -> u32,
) {
    // two consumer warpgroups of `wgmma.m64nWN` (the register split below is for three
    // warpgroups): of a 128-row tile each takes 64 rows, of a 64-row tile half the columns. `WN`
    // is `2·ACC` (`gemm` instantiates this body for every width and calls the one whose `ACC` is
    // `accumulators(consumer_cols(BM, BN, PING_PONG))`: the others are never called)
    let wn = 2 * ACC as u32;
    // register-sourced A: the fragment rows of two 64-row consumers
    const { assert!(!REG_A || BM == 2 * CONSUMER_ROWS) };
    // thread copies write the K-major or MN-major swizzled rows the wgmma form reads (no staging)
    const { assert!(!LDG || T::MN_MAJOR_OK || (!TRANS_A && TRANS_B)) };
    // register-sourced A: an M-major TF32 A, with TMA (the case the staged transpose serves)
    // (f32 output: `store_rows` is the only writer that takes its permuted rows)
    const { assert!(!REG_A || (TRANS_A && !T::MN_MAJOR_OK && !LDG && O::IS_F32)) };
    // swapped: a tile of Cᵀ, stored transposed from registers: the permuted rows of
    // register-sourced A (f32 output), or the TMA-fed consumers' rows (of a 128-row tile, or a
    // ping-pong consumer's whole 64-row tile)
    const { assert!(!SWAP_AB || REG_A || !LDG) };
    // pairs: TMA-fed cooperative consumers of unswapped tiles, each CTA of a cluster of two along
    // x taking one 128-row half of a `2·BM × BN` work unit (rank r: rows r·BM..), loading its own A
    // and half of the B both read, multicast into both
    // (and no operand transposed in shared memory: B's halves go straight to the wgmma layout)
    const { assert!(!PAIRS || (!LDG && !REG_A && !PING_PONG && !SWAP_AB && BM == 2 * CONSUMER_ROWS)) };
    const { assert!(!PAIRS || T::MN_MAJOR_OK || (!TRANS_A && TRANS_B)) };
    let rank = if PAIRS { bid % 2 } else { 0 };
    // staged operands: MN-major ones the wgmma form cannot read (A unless read into registers)
    let stage_a = TRANS_A && !T::MN_MAJOR_OK && !REG_A;
    let stage_b = !TRANS_B && !T::MN_MAJOR_OK;
    // what the consumers' wgmma sees: MN-major only if loaded as such
    let mn_a = TRANS_A && !stage_a;
    let mn_b = !TRANS_B && !stage_b;
    let staged = stage_a || stage_b;
    // k ≥ 1: dispatch sends calls that do not read A and B (k = 0 or alpha = 0) to sm_80 kernels
    // k elements per k-tile: one 128-byte row
    let bk = ROW_BYTES / T::EB;
    // (pairs: tile rows of the pairs' `2·BM`-row units)
    let (tiles_m, tiles_n) = p.tiles(if PAIRS { 2 * BM } else { BM }, BN);
    let tiles = tiles_m * tiles_n;
    // work item w = z·tiles + tile; CTA `bid` takes w = bid, bid + grid, …, then its stream-K
    // piece (the host launches at most one CTA per SM and checks that tiles·batch fits 32 bits)
    let work = tiles * p.batch;
    let grid = grid_dim();
    // pairs: cluster `bid / 2` takes the units a CTA of a grid of `grid / 2` would
    let (grid, unit_bid) = if PAIRS {
        (grid / 2, bid / 2)
    } else {
        (grid, bid)
    };
    // split within clusters (kernels whose registers take the partials' adds): CTA w is k-slice
    // `w % batch` of tile `w / batch`
    let clustered = !PAIRS
        && shares_k_tiles(LDG, PING_PONG, REG_A, TRANS_B, BN)
        && splits_in_clusters(REG_A, BN)
        && p.flags & flags::CLUSTER_SPLIT != 0;
    let item = |w: u32| {
        let w = if clustered {
            (w % p.batch) * tiles + w / p.batch
        } else {
            w
        };
        let z = w / tiles;
        let mut tile = tile_of_block(w - z * tiles, tiles_m, tiles_n, p.group_m, BM, BN);
        if PAIRS {
            // unit row u: tile rows 2u (rank 0) and 2u + 1 (rank 1)
            tile.m0 = 2 * tile.m0 + rank * BM;
        }
        (tile, z)
    };
    let smem = (base() + 1023) & !1023;
    // the stages, each consumer's buffers for storing C by TMA (none under thread copies; computed
    // from `unhoisted` values in each epilogue, so that its chunk addresses hold no registers
    // through the mainloop), the barriers
    const { assert!(tma_store::CHUNK_BYTES == C_CHUNK_BYTES) };
    let c_buffers = if LDG {
        0
    } else {
        c_buffers(GemmShape::new(BM, BN, 0), STAGES)
    };
    let c_bufs = |c: u32| {
        let consumer = unhoisted(c) * c_buffers * C_CHUNK_BYTES;
        unhoisted(smem) + STAGES * Stage::<BM, BN>::BYTES + consumer
    };
    let bars = smem + STAGES * Stage::<BM, BN>::BYTES + 2 * c_buffers * C_CHUNK_BYTES;
    let full = |s: u32| bars + 8 * s;
    let empty = |s: u32| bars + 8 * (STAGES + s);
    let loaded = |s: u32| bars + 8 * (2 * STAGES + s);
    let a_tile = |s: u32| smem + s * Stage::<BM, BN>::BYTES;
    let b_tile = |s: u32| smem + s * Stage::<BM, BN>::BYTES + Stage::<BM, BN>::A_BYTES;
    let ktiles = p.k.div_ceil(bk);
    // (no stream-K where the registers do not allow it: the schedule's state is then constant)
    let sk_items = if !PAIRS && shares_k_tiles(LDG, PING_PONG, REG_A, TRANS_B, BN) {
        p.stream_k.items
    } else {
        0
    };
    let sched = Schedule::new(work, ktiles, sk_items, grid, unit_bid);
    let wg = tid / 128;

    if tid == 0 {
        for s in 0..STAGES {
            // staged: the copies complete `loaded`, the transposers arrive on `full`; thread
            // copies: every producer thread arrives
            let arrivals = if LDG {
                LDG_PRODUCERS
            } else if staged {
                TRANSPOSERS
            } else {
                1
            };
            mbarrier::init(full(s), arrivals);
            mbarrier::init(loaded(s), 1);
            // every thread of the k-tile's consumers arrives once; pairs: one thread of each
            // consumer warp of both CTAs (a stage is refilled in both at once)
            let consumers = if PAIRS {
                2 * 8
            } else if PING_PONG {
                128
            } else {
                256
            };
            mbarrier::init(empty(s), consumers);
        }
        mbarrier::fence_init();
    }
    // pairs: the other CTA's copies and arrivals reach this one's barriers after their `init`
    if PAIRS {
        sync_cluster();
    } else {
        sync_threads();
    }
    // a consumer warpgroup's release of stage `s` (after its `wgmma`s that read it completed);
    // pairs: lane 0 of each warp, on both CTAs' barriers (`%` as the body writes it elsewhere)
    #[allow(clippy::manual_is_multiple_of)]
    let release = |s: u32| {
        if PAIRS {
            if tid % 32 == 0 {
                mbarrier::arrive(empty(s));
                mbarrier::arrive_cluster(map_shared(empty(s), rank ^ 1));
            }
        } else {
            mbarrier::arrive(empty(s));
        }
    };

    if wg == 0 {
        // the transposers hold a 32-word block row, thread copies two batches of 8 rows' loads:
        // more than the plain producer's 40 registers (the thread copies' 168 is the kernel's
        // whole per-thread budget, so their `setmaxnreg` pair leaves the counts as they are)
        if LDG {
            wgmma::setmaxnreg_dec::<LDG_PRODUCER_REGS>();
        } else if staged {
            wgmma::setmaxnreg_dec::<56>();
        } else {
            wgmma::setmaxnreg_dec::<40>();
        }
        if LDG {
            // every producer thread copies its rows of each stage, then arrives on `full`
            let mut it = 0u32;
            let mut cur = sched.start();
            while let Some(unit) = sched.next(&mut cur) {
                let (tile, z) = item(unit.item);
                let (ga, gb, _) = batch_bases(p, z, u64::from(T::EB), O::BYTES);
                // stored rows and their in-range elements: A is m×k (k×m transposed), B k×n (n×k)
                let (a_rows, a_len) = if TRANS_A { (p.k, p.m) } else { (p.m, p.k) };
                let (b_rows, b_len) = if TRANS_B { (p.n, p.k) } else { (p.k, p.n) };
                let a = SwizzledOperand::new(ga, p.lda, a_rows, a_len, TRANS_A, T::EB);
                let b = SwizzledOperand::new(gb, p.ldb, b_rows, b_len, !TRANS_B, T::EB);
                let mut kt = unit.k_begin;
                while kt < unit.k_end {
                    let s = it % STAGES;
                    let parity = ((it / STAGES) & 1) ^ 1;
                    let at = (tile.m0, tile.n0, kt * bk);
                    // (the thread copies' one tile, 128×128 = BM×BN, asserted in `gemm`: named
                    // by constants so the other tiles' bodies, where this branch is dead, do not
                    // instantiate a copy the row split cannot do)
                    load_stage::<{ 2 * CONSUMER_ROWS }, N128>(
                        &a,
                        &b,
                        a_tile(s),
                        at,
                        tid,
                        empty(s),
                        parity,
                    );
                    // this thread's generic-proxy writes before the consumers' wgmma (async proxy)
                    tma::fence_proxy_async_shared();
                    mbarrier::arrive(full(s));
                    kt += 1;
                    it += 1;
                }
            }
        } else if tid == 0 {
            let map_a = maps();
            let map_b = map_a + 128;
            tma::prefetch_map(map_a);
            tma::prefetch_map(map_b);
            // k-tiles issued so far: the ring's stage and phase run on across work items, so the
            // next item's first stages load while the consumers store the previous item
            let mut it = 0u32;
            let mut cur = sched.start();
            while let Some(unit) = sched.next(&mut cur) {
                let (tile, z) = item(unit.item);
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
                let mut kt = unit.k_begin;
                while kt < unit.k_end {
                    let s = it % STAGES;
                    // a fresh barrier's "previous phase" counts as complete: round 0 passes at once
                    mbarrier::wait_parity(empty(s), ((it / STAGES) & 1) ^ 1);
                    let bar = if staged { loaded(s) } else { full(s) };
                    mbarrier::arrive_expect_tx(bar, Stage::<BM, BN>::BYTES);
                    let k0 = kt * bk;
                    // 3xTF32 parts written once (`flags::TF32X3_PARTS`): rows `[hi | lo]` of
                    // `k / 3` each; A's thirds of k read hi, hi, lo, B's hi, lo, hi
                    let (ka, kb) = if T::ADD_K_TILES && p.flags & flags::TF32X3_PARTS != 0 {
                        let third = p.k / 3;
                        let ka = if k0 >= third { k0 - third } else { k0 };
                        let kb = if k0 >= 2 * third { k0 - 2 * third } else { k0 };
                        (ka, kb)
                    } else {
                        (k0, k0)
                    };
                    if stage_a {
                        // M-major TF32 A: 32×32 blocks, transposed in place by the transposers
                        for j in 0..BM / TBLOCK {
                            let (dst, m) =
                                (a_tile(s) + j * TBLOCK * ROW_BYTES, tile.m0 + j * TBLOCK);
                            tma::global_to_shared_3d(dst, map_a, m, ka, za, bar);
                        }
                    } else if TRANS_A {
                        // M-major A: boxes of one 128-byte row of m (64 16-bit, 32 tf32) × the
                        // k-tile's k-rows
                        let (box_m, box_bytes) = (ROW_BYTES / T::EB, ROW_BYTES * bk);
                        for j in 0..BM / box_m {
                            let (dst, m) = (a_tile(s) + j * box_bytes, tile.m0 + j * box_m);
                            tma::global_to_shared_3d(dst, map_a, m, ka, za, bar);
                        }
                    } else {
                        tma::global_to_shared_3d(a_tile(s), map_a, ka, tile.m0, za, bar);
                    }
                    if stage_b {
                        // N-major TF32 B: 32×32 blocks, transposed in place by the transposers
                        for j in 0..BN / TBLOCK {
                            let (dst, n) =
                                (b_tile(s) + j * TBLOCK * ROW_BYTES, tile.n0 + j * TBLOCK);
                            tma::global_to_shared_3d(dst, map_b, n, kb, zb, bar);
                        }
                    } else if PAIRS && TRANS_B {
                        // half of the pair's K-major B rows (the map's box), into both CTAs
                        let half = BN / 2;
                        let (dst, n) = (b_tile(s) + rank * half * ROW_BYTES, tile.n0 + rank * half);
                        tma::global_to_shared_3d_multicast(dst, map_b, (kb, n, zb), bar, 0b11);
                    } else if TRANS_B {
                        tma::global_to_shared_3d(b_tile(s), map_b, kb, tile.n0, zb, bar);
                    } else {
                        // N-major B: boxes of 64 n × 64 k (pairs: every other one, into both CTAs)
                        for j in 0..BN / MN_BOX {
                            let (dst, n) = (b_tile(s) + j * MN_BOX_BYTES, tile.n0 + j * MN_BOX);
                            if !PAIRS {
                                tma::global_to_shared_3d(dst, map_b, n, kb, zb, bar);
                            } else if j % 2 == rank {
                                let at = (n, kb, zb);
                                tma::global_to_shared_3d_multicast(dst, map_b, at, bar, 0b11);
                            }
                        }
                    }
                    kt += 1;
                    it += 1;
                }
            }
        } else if staged && tid >= 32 {
            // transposer warp x = 0..3 takes the staged blocks x, x + 3, … of each stage (A's
            // blocks first, then B's)
            let (x, lane) = (tid / 32 - 1, tid % 32);
            let blocks_a = if stage_a { BM / TBLOCK } else { 0 };
            let blocks = blocks_a + if stage_b { BN / TBLOCK } else { 0 };
            let total = sched.ktiles_total();
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
        if clustered {
            // the consumers' two cluster barriers
            sync_cluster();
            sync_cluster();
        }
    } else {
        // 128·40 + 256·232 or 128·56 + 256·224 registers: exactly the CTA's 384·168 (ptxas gives a
        // kernel with `setmaxnreg` the whole budget of `.maxntid 384` at one CTA per SM: 168).
        // The same split for every width: a 128×128 or 64×128 consumer (64 or 32 accumulators)
        // needs fewer (ptxas fits the 128×128 kernel in 122–128 registers without the split), but
        // registers it leaves free serve nobody: shared memory admits one CTA per SM, and
        // transposers holding two blocks (88/208) measured no faster (hopper-log.md).
        if LDG {
            wgmma::setmaxnreg_inc::<LDG_CONSUMER_REGS>();
        } else if staged {
            wgmma::setmaxnreg_inc::<224>();
        } else {
            wgmma::setmaxnreg_inc::<232>();
        }
        let c = wg - 1;
        // consumer c's share of the tile: rows 64c.. (128-row tiles), columns wn·c.. (64 rows), or
        // all of it (ping-pong: consumer c takes the CTA's work units c, c + 2, …)
        let (c_rows, c_cols) = if PING_PONG {
            (0, 0)
        } else if BM == 2 * CONSUMER_ROWS {
            (c * CONSUMER_ROWS, 0)
        } else {
            (0, c * wn)
        };
        // C through shared memory and TMA bulk copies (`beta == 0`, C suits TMA: the host's
        // `flags::TMA_STORE_C`; register-sourced A's rows paired, its swapped tile of Cᵀ
        // transposed), except from shares that are not whole chunks (`m64n144`), nor the other
        // swapped tiles
        let tma_store = !LDG
            && (!SWAP_AB || REG_A)
            && whole_c_chunks(consumer_cols(BM, BN, PING_PONG), O::BYTES as u32)
            && p.flags & flags::TMA_STORE_C != 0;
        let mut d = [0.0f32; ACC];
        // the sum of the k-tiles' accumulations where the tensor core's own is restarted every
        // k-tile (`WgmmaInput::ADD_K_TILES`; otherwise unused and removed)
        let mut sum = [0.0f32; ACC];
        let mut it = 0u32;
        // ping-pong: the CTA's work units so far (the other consumer's pass this one by)
        let mut units = 0u32;
        let mut cur = sched.start();
        while let Some(unit) = sched.next(&mut cur) {
            // k-tiles `first..end` of the ring belong to this unit
            let (first, end) = (it, it + (unit.k_end - unit.k_begin));
            if PING_PONG {
                units += 1;
                if (units - 1) % 2 != c {
                    it = end;
                    continue;
                }
                // the unit before this one: its consumer (the other) has waited for all of its
                // k-tiles
                if units > 1 {
                    sync_named(PING_PONG_ORDER + (1 - c), 256);
                }
            }
            // what follows the k-loop, decided before it (one value live across it)
            let peers = sched.peers(unit);
            let partial = sched.role(unit) == Role::Partial;
            while it < end {
                let s = it % STAGES;
                mbarrier::wait_parity(full(s), (it / STAGES) & 1);
                // consumer c's 64 rows: 64 K-major rows of 128 B, or the c-th M-major box (A from
                // registers: its two 4 KiB boxes of M-major A); its wn columns of B: wn K-major
                // rows of 128 B, or wn / 64 N-major boxes of 64 × 128 B
                let a0 = a_tile(s) + c_rows * ROW_BYTES;
                let b0 = b_tile(s) + c_cols * ROW_BYTES;
                if REG_A {
                    // B is K-major here: as stored in `tt`, transposed in place in `tn`. The
                    // fragment loads must not rewrite registers that pending `wgmma`s read (PTX
                    // leaves it undefined), so the previous k-tile's group is waited for first:
                    // this consumer's `wgmma`s do not overlap its own loads (the other consumer's
                    // keep the tensor cores busy meanwhile). Two register sets in turn with
                    // `wait_group::<1>` made ptxas serialize every `wgmma` (C7513).
                    wgmma::wait_group::<0>();
                    if it > first {
                        release((it - 1) % STAGES);
                    }
                    let row = fragment_row((tid % 128) / 32, (tid % 32) / 4);
                    let a = load_k_tile(a0, row, tid % 4);
                    wgmma::fence();
                    unroll!(kk in [0, 1, 2, 3] {
                        let db = wgmma::desc_k_major_sw128(b0 + kk * SLICE_BYTES);
                        tf32_register_a(&mut d, a[kk as usize], db, it > first || kk > 0);
                    });
                    wgmma::commit_group();
                } else if T::ADD_K_TILES {
                    // spans of ADD_SPAN k-tiles accumulate in the tensor core from zero; at a
                    // span's end its sum is added into `sum` (round to nearest)
                    let (at, first_span) = (it - first, it - first < ADD_SPAN);
                    mma_k_tile!(T, &mut d, a0, b0, mn_a, mn_b, at % ADD_SPAN != 0; SLICES, MN_SLICE_BYTES, MN_BOX_BYTES);
                    if at % ADD_SPAN == ADD_SPAN - 1 || it + 1 == end {
                        wgmma::wait_group::<0>();
                        if it > first {
                            release((it - 1) % STAGES);
                        }
                        let mut j = 0;
                        while j < ACC {
                            sum[j] = if first_span { d[j] } else { sum[j] + d[j] };
                            j += 1;
                        }
                    } else {
                        wgmma::wait_group::<1>();
                        if it > first {
                            release((it - 1) % STAGES);
                        }
                    }
                } else {
                    mma_k_tile!(T, &mut d, a0, b0, mn_a, mn_b, it > first; SLICES, MN_SLICE_BYTES, MN_BOX_BYTES);
                    // the previous k-tile's group has completed: its stage may be refilled
                    wgmma::wait_group::<1>();
                    if it > first {
                        release((it - 1) % STAGES);
                    }
                }
                it += 1;
            }
            wgmma::wait_group::<0>();
            // the unit's last stage is free too: the producer may run ahead into the next unit
            release((it - 1) % STAGES);
            // ping-pong: the next unit's consumer may start waiting for its k-tiles
            if PING_PONG && sched.next(&mut { cur }).is_some() {
                arrive_named(PING_PONG_ORDER + c, 256);
            }
            if T::ADD_K_TILES {
                d = sum;
            }
            let t = tid % 128;
            if partial {
                store_partial(&p.stream_k, bid, c, t, &d);
                continue;
            }
            if clustered {
                const { assert!(partial_bytes(ACC) <= STAGES * Stage::<BM, BN>::BYTES) };
                // the first slice's CTA adds the other slices' partials, then stores C
                if !cluster_split::gather(smem, item(unit.item).1, p.batch, c, t, &mut d) {
                    continue;
                }
            }
            // a finisher's peers: the CTAs just below it, in k order
            let mut i = 0;
            while i < peers {
                add_partial(&p.stream_k, bid - 1 - i, c, t, &mut d);
                i += 1;
            }
            // (recomputed here, so it is not live across the k-loop)
            let (tile, z) = item(unit.item);
            let (_, _, gc) = batch_bases(p, z, u64::from(T::EB), O::BYTES);
            // register-sourced A: the permuted rows of `fragment_row`, the pair adjacent
            let row0 = if REG_A {
                tile.m0 + c_rows + fragment_row(t / 32, (t % 32) / 4)
            } else {
                tile.m0 + c_rows + (t / 32) * 16 + (t % 32) / 4
            };
            let col0 = tile.n0 + c_cols;
            // TMA kernels' C is 16-byte aligned (their dispatch rule); thread-copy kernels check
            // (`%` as measured: `is_multiple_of` adds a zero-divisor test to the PTX)
            #[allow(clippy::manual_is_multiple_of)]
            let aligned_c = !LDG || (gc | (p.ldc * O::BYTES)) % 16 == 0;
            if tma_store {
                // C's map has a batch dimension only where C's items are apart
                let zc = if p.stride_c == 0 { 0 } else { z };
                let at = (col0, tile.m0 + c_rows, zc);
                let map_c = || maps() + 256;
                let bufs = (c_bufs(c), c_buffers);
                if SWAP_AB {
                    // C's columns are Cᵀ's rows
                    let at = (tile.m0 + c_rows, col0, zc);
                    tma_store::store_tile_transposed::<ACC>(&d, p.alpha, map_c, bufs, 1 + c, t, at);
                } else {
                    tma_store::store_tile::<O, ACC, REG_A>(&d, p.alpha, map_c, bufs, 1 + c, t, at);
                }
            } else if SWAP_AB && REG_A {
                store_rows_transposed::<ACC>(p, &d, gc, row0, col0, t % 32);
            } else if SWAP_AB {
                store_pairs_transposed::<O, ACC>(p, &d, gc, row0, col0, t % 32);
            } else if aligned_c && (O::IS_F32 || p.flags & flags::BETA_ZERO != 0) {
                if REG_A {
                    store_rows::<O, ACC, 1>(p, &d, gc, row0, col0, t % 4);
                } else {
                    store_rows::<O, ACC, 8>(p, &d, gc, row0, col0, t % 4);
                }
            } else {
                // a 16-bit C to read (the fragment writer widens C exactly), or an unaligned C
                let acc: [[[f32; 4]; N8]; 1] = [core::array::from_fn(|j| {
                    [d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]]
                })];
                store_pairs::<O, 1, N8>(p, &acc, gc, row0, col0 + 2 * (t % 4));
            }
        }
        if tma_store {
            // the bulk copies read this CTA's shared memory: complete before it ends
            tma_store::drain(tid % 128);
        }
    }
    if PAIRS {
        // the other CTA's last arrivals on this one's barriers land before either ends
        sync_cluster();
    }
}
