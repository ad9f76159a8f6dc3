//! The shared-memory layout of the warp-specialized body's tiles (one 128-byte swizzle row per
//! operand row and k-tile, the ring of stages, the boxes of MN-major operands) and the launch
//! shape that follows from it: threads, dynamic shared memory, named barriers, each consumer's
//! share of the tile, which bodies stream k; and the in-place transpose of a staged TF32 block.

use crate::config::GemmShape;
#[cfg(target_feature = "sm_90a")]
use {
    crate::arch::smem::{ld_shared_u32, st_shared_v4_u32},
    crate::arch::sync::sync_warp,
    crate::warp::wgmma::SLICE_BYTES,
};

/// Bytes of a k-tile row: one 128-byte swizzle row (the SW128 layout TMA writes and `wgmma` reads).
pub const ROW_BYTES: u32 = 128;
/// Elements along M or N of one TMA box of an MN-major operand (128 bytes: the swizzle width).
#[cfg(target_feature = "sm_90a")]
pub(crate) const MN_BOX: u32 = 64;
/// k-rows of a k-tile of an MN-major operand (16-bit elements only).
#[cfg(target_feature = "sm_90a")]
pub(super) const BK16: u32 = ROW_BYTES / 2;
/// Bytes of one MN-major box: `MN_BOX` elements × `BK16` k-rows.
#[cfg(target_feature = "sm_90a")]
pub(super) const MN_BOX_BYTES: u32 = MN_BOX * BK16 * 2;
/// `wgmma`s per k-tile: one per [`SLICE_BYTES`] of the row.
#[cfg(target_feature = "sm_90a")]
pub(super) const SLICES: u32 = ROW_BYTES / SLICE_BYTES;
/// Bytes between the slices of an MN-major box: 16 k-rows (a slice of 16-bit k) of 128 bytes.
#[cfg(target_feature = "sm_90a")]
pub(super) const MN_SLICE_BYTES: u32 = SLICE_BYTES / 2 * ROW_BYTES;
/// Rows of a consumer warpgroup's share of the tile (`wgmma.m64`).
#[cfg(target_feature = "sm_90a")]
pub(super) const CONSUMER_ROWS: u32 = 64;
/// Rows (and k) of one in-place transpose block of a staged TF32 operand: 32 × 32 f32, 4 KiB.
#[cfg(target_feature = "sm_90a")]
pub(super) const TBLOCK: u32 = 32;
/// Threads that transpose staged TF32 operands: warps 1–3 of the producer warpgroup (warp 0's
/// first thread issues the copies).
#[cfg(target_feature = "sm_90a")]
pub(super) const TRANSPOSERS: u32 = 96;

/// Named barriers that order the ping-pong consumers' k-loops: the consumer of a CTA's work unit
/// `u + 1` waits (`bar.sync`) until the consumer of unit `u` has waited for all of that unit's
/// k-tiles (`bar.arrive`, both consumers' 256 threads counted). Without it a consumer would wait
/// for a k-tile of its next unit while the ring is more than one fill behind, and an `mbarrier`
/// parity wait cannot tell those fills apart (a unit of as many k-tiles as stages reads another
/// unit's stage). One barrier per direction, `PING_PONG_ORDER + c` for consumer `c`'s arrivals:
/// on one barrier a consumer's next arrival could land in the use the other has not yet synced
/// on, and complete it without that consumer (1000 items of 64³ never returned). Barriers 1–3
/// are the consumers' own and the cluster split's.
#[cfg(target_feature = "sm_90a")]
pub(super) const PING_PONG_ORDER: u32 = 4;

/// Producer threads of the thread-copy kernels: the whole producer warpgroup.
#[cfg(target_feature = "sm_90a")]
pub(super) const LDG_PRODUCERS: u32 = 128;
/// Registers of the thread-copy kernels' producer and consumer warpgroups (`m64n128`
/// consumers): 128·168 + 256·168 = 384·168, the CTA's budget. A producer holding two batches of
/// 8 rows in flight spilled 20–80 B at 152 (`nt`, `tt`); the consumers fit in 168.
#[cfg(target_feature = "sm_90a")]
pub(super) const LDG_PRODUCER_REGS: u32 = 168;
#[cfg(target_feature = "sm_90a")]
pub(super) const LDG_CONSUMER_REGS: u32 = 168;

/// One stage of the ring of a `BM×BN` tile: the A box, then the B box, of [`ROW_BYTES`] rows.
#[cfg(target_feature = "sm_90a")]
pub(super) struct Stage<const BM: u32, const BN: u32>;

#[cfg(target_feature = "sm_90a")]
impl<const BM: u32, const BN: u32> Stage<BM, BN> {
    /// Bytes of A's box (`BM` rows): B's starts here.
    pub(super) const A_BYTES: u32 = BM * ROW_BYTES;
    /// Bytes of the stage.
    pub(super) const BYTES: u32 = (BM + BN) * ROW_BYTES;
}

/// Dynamic shared memory of a `block` tile with `stages` stages fed by TMA: 1024 bytes of
/// alignment slack, the stages (`(m + n)` rows of [`ROW_BYTES`]), both consumers' buffers for
/// storing C by TMA ([`c_buffers`] chunks of [`C_CHUNK_BYTES`] each), and three 8-byte barriers per
/// stage (`full`, `empty`, and `loaded` for TF32 operands transposed in place, see
/// `config::tma_staged`).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::tma_warp_specialized::smem_bytes};
/// // two chunk buffers per consumer
/// assert_eq!(smem_bytes(GemmShape::new(128, 256, 64), 4), 1024 + 4 * 48 * 1024 + 32768 + 96);
/// assert_eq!(smem_bytes(GemmShape::new(128, 128, 64), 6), 1024 + 6 * 32 * 1024 + 32768 + 144);
/// // one: five stages of 40 KiB leave no room for more in 227 KiB
/// assert_eq!(smem_bytes(GemmShape::new(128, 192, 64), 5), 1024 + 5 * 40 * 1024 + 16384 + 120);
/// ```
pub const fn smem_bytes(block: GemmShape, stages: u32) -> u32 {
    smem_bytes_thread_copies(block, stages) + 2 * c_buffers(block, stages) * C_CHUNK_BYTES
}

/// [`smem_bytes`] of the thread-copy kernels (`LdgWarpSpecialized`), which store C from their
/// registers (C need not suit TMA): no buffers for C.
///
/// ```
/// use tcgemm_kernels::config::GemmShape;
/// use tcgemm_kernels::threadblock::tma_warp_specialized::smem_bytes_thread_copies as bytes;
/// assert_eq!(bytes(GemmShape::new(128, 128, 64), 6), 1024 + 6 * 32 * 1024 + 144);
/// ```
pub const fn smem_bytes_thread_copies(block: GemmShape, stages: u32) -> u32 {
    1024 + stages * (block.m + block.n) * ROW_BYTES + stages * 24
}

/// Bytes of one chunk buffer for storing C by TMA (`epilogue::tma_store`): 64 rows (a consumer's)
/// × one 128-byte swizzle row.
pub const C_CHUNK_BYTES: u32 = 64 * ROW_BYTES;

/// The most dynamic shared memory a block may have (sm_90: 227 KiB).
const SMEM_LIMIT: u32 = 227 * 1024;

/// Chunk buffers of each consumer for storing C by TMA: two (one written while the bulk copy of
/// the other reads it) where they fit beside the stages, else one.
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::tma_warp_specialized::c_buffers};
/// assert_eq!(c_buffers(GemmShape::new(128, 256, 64), 4), 2);
/// assert_eq!(c_buffers(GemmShape::new(128, 192, 64), 5), 1);
/// ```
pub const fn c_buffers(block: GemmShape, stages: u32) -> u32 {
    if smem_bytes_thread_copies(block, stages) + 4 * C_CHUNK_BYTES <= SMEM_LIMIT {
        2
    } else {
        1
    }
}

/// Threads: one producer warpgroup and two consumer warpgroups, whatever the tile (`_warp`, a
/// consumer's share of it, is the catalog's record only).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::tma_warp_specialized::threads};
/// assert_eq!(threads(GemmShape::new(128, 256, 64), GemmShape::new(64, 256, 16)), 384);
/// assert_eq!(threads(GemmShape::new(64, 128, 64), GemmShape::new(64, 128, 16)), 384);
/// ```
pub const fn threads(_block: GemmShape, _warp: GemmShape) -> u32 {
    3 * 128
}

/// Columns of a consumer warpgroup's share of a `bm × bn` tile: two consumers, each `wgmma.m64`,
/// take 64 rows each of a 128-row tile (`bn` columns) or half the columns of a 64-row one; a
/// ping-pong consumer (`ping_pong`: 64-row tiles, the two consumers on alternate work units) takes
/// the whole tile.
///
/// ```
/// use tcgemm_kernels::threadblock::tma_warp_specialized::consumer_cols;
/// assert_eq!(consumer_cols(128, 256, false), 256);
/// assert_eq!(consumer_cols(64, 256, false), 128);
/// assert_eq!(consumer_cols(64, 128, false), 64);
/// assert_eq!(consumer_cols(64, 128, true), 128);
/// ```
pub const fn consumer_cols(bm: u32, bn: u32, ping_pong: bool) -> u32 {
    if ping_pong {
        bn
    } else {
        bm * bn / 128
    }
}

/// Whether a consumer's share of C, `consumer_cols` columns (its [`consumer_cols`]) of
/// `out_bytes`-byte elements, is whole chunks of 128 bytes of columns, the box of C's tensor map:
/// only such shares are stored by TMA (`epilogue::tma_store`); an `m64n144` consumer's (288 or 576
/// bytes), and an `m64n32` consumer's of a 16-bit C (64 bytes), store C from their registers.
///
/// ```
/// use tcgemm_kernels::threadblock::tma_warp_specialized::whole_c_chunks;
/// assert!(whole_c_chunks(192, 2) && whole_c_chunks(64, 4) && whole_c_chunks(32, 4));
/// assert!(!whole_c_chunks(144, 2) && !whole_c_chunks(144, 4) && !whole_c_chunks(32, 2));
/// ```
// (`%` as elsewhere in the kernels: `is_multiple_of` adds a zero-divisor test where not folded)
#[allow(clippy::manual_is_multiple_of)]
pub const fn whole_c_chunks(consumer_cols: u32, out_bytes: u32) -> bool {
    (consumer_cols * out_bytes) % 128 == 0
}

/// Whether a kernel of this body shares out the k-tiles of its last work items (stream-K,
/// `stream_k::Schedule`): not the thread copies (`ldg`: their producer's registers are all taken
/// by loads in flight; with the schedule's state it spilled 4–104 B), nor the ping-pong tiles
/// (`ping_pong`: each unit has one consumer, whose partial tile the schedule's exchange, by
/// consumer index, does not place), nor the 256-wide register-A consumers of a B transposed in
/// shared memory (`reg_a`, `bn`, B stored N-major: `!trans_b`; the `tn` body, at 224 registers:
/// with the schedule's state ptxas 12.9 spilled 16 B and the tile ran 0.90–0.92× as fast on calls
/// that do not share, H200, docs/hopper-log.md session 60).
///
/// ```
/// use tcgemm_kernels::threadblock::tma_warp_specialized::shares_k_tiles;
/// assert!(shares_k_tiles(false, false, false, false, 256));
/// // register-A: `tt` at 256 wide, `tn` at 128, not `tn` at 256
/// assert!(shares_k_tiles(false, false, true, true, 256));
/// assert!(shares_k_tiles(false, false, true, false, 128));
/// assert!(!shares_k_tiles(false, false, true, false, 256));
/// // thread copies, ping-pong
/// assert!(!shares_k_tiles(true, false, false, true, 128));
/// assert!(!shares_k_tiles(false, true, false, true, 128));
/// ```
pub const fn shares_k_tiles(
    ldg: bool,
    ping_pong: bool,
    reg_a: bool,
    trans_b: bool,
    bn: u32,
) -> bool {
    !ldg && !ping_pong && !(reg_a && !trans_b && bn == 256)
}

/// Whether a kernel of this body that [shares k-tiles](shares_k_tiles) also adds the k-slices of
/// a split within thread-block clusters (`cluster_split`): not the 256-wide register-A consumers
/// (`reg_a`, `bn`: with the cluster's adds beside the stream-K schedule, ptxas 12.9 spilled 16 B
/// stores and 20 B loads in `tt`; none without).
///
/// ```
/// use tcgemm_kernels::threadblock::tma_warp_specialized::splits_in_clusters;
/// assert!(splits_in_clusters(false, 256) && splits_in_clusters(true, 128));
/// assert!(!splits_in_clusters(true, 256));
/// ```
pub const fn splits_in_clusters(reg_a: bool, bn: u32) -> bool {
    !(reg_a && bn == 256)
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
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(super) unsafe fn transpose_block_tf32(blk: u32, lane: u32) {
    let v: [u32; 32] = core::array::from_fn(|k| ld_shared_u32(blk + 128 * k as u32 + 4 * lane));
    sync_warp();
    let (row, x) = (blk + 128 * lane, lane & 7);
    unroll!(c in [0, 1, 2, 3, 4, 5, 6, 7] {
        let w = 4 * c as usize;
        st_shared_v4_u32(row + ((c ^ x) << 4), [v[w], v[w + 1], v[w + 2], v[w + 3]]);
    });
}
