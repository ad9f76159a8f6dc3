//! Split-K inside a thread-block cluster, for the persistent `wgmma` kernels
//! (`params::flags::CLUSTER_SPLIT`): the `S` k-slices of one output tile are the `S` CTAs of one
//! cluster. Each CTA of slices `1..S` leaves its partial tile in its own shared memory
//! ([`store_partial`]); the CTA of slice 0 adds them to its accumulators in slice order, read
//! across the cluster ([`add_partials`]), and stores C with the call's epilogue. One launch, no
//! workspace and no reduction kernel; the sum's order is fixed, so results are bitwise
//! reproducible.
//!
//! A partial overwrites the CTA's stage ring (its only work item is done, and both consumer
//! warpgroups have passed a barrier after their last `wgmma`): consumer warpgroup `c`'s thread `t`
//! puts its `j`-th 4 accumulators at `16·(128·(ACC/4)·c + 128·j + t)`, so a warp's 16-byte stores
//! and loads cover 512 consecutive bytes.

#[cfg(target_feature = "sm_90a")]
use super::stream_k::add_groups;
#[cfg(target_feature = "sm_90a")]
use crate::arch::{
    cluster::{ld_cluster_v4_f32, map_shared, sync_cluster},
    smem::st_shared_v4_f32,
    sync::sync_named,
};

/// Threads of a consumer warpgroup.
const GROUP: u32 = 128;

/// Bytes of shared memory the partial tile of a CTA of two consumer warpgroups of `acc` f32
/// accumulators per thread takes (within the stage ring, checked where the kernel is built).
///
/// ```
/// use tcgemm_kernels::threadblock::cluster_split::partial_bytes;
/// assert_eq!(partial_bytes(32), 32 * 1024);
/// ```
pub const fn partial_bytes(acc: usize) -> u32 {
    2 * GROUP * acc as u32 * 4
}

/// Consumer warpgroup `c`'s thread `t`, of the CTA of k-slice `slice` of `slices`, with its
/// accumulators `d`: slices `1..` store their partials ([`store_partial`]), slice 0 adds them in
/// slice order ([`add_partials`]) between two cluster barriers, which every other thread of the
/// cluster also passes (the producers after their last copy). Returns whether this CTA stores C
/// (slice 0).
///
/// # Safety
/// Launched as clusters of `slices` CTAs, CTA rank = slice; every `wgmma` and copy of this
/// warpgroup has completed; `smem` is the stage ring's base, of at least
/// [`partial_bytes`]`(ACC)` bytes; named barrier 3 belongs to the two consumer warpgroups.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn gather<const ACC: usize>(
    smem: u32,
    slice: u32,
    slices: u32,
    c: u32,
    t: u32,
    d: &mut [f32; ACC],
) -> bool {
    if slice > 0 {
        // both warpgroups' last `wgmma`s have read the stages the partial overwrites
        sync_named(3, 2 * GROUP);
        store_partial(smem, c, t, d);
    }
    // the partials are stored; then slice 0 has added them (the others may exit)
    sync_cluster();
    if slice == 0 {
        add_partials(smem, slices, c, t, d);
    }
    sync_cluster();
    slice == 0
}

/// Address of thread `t`'s first 16 bytes of consumer warpgroup `c`'s partial at `smem`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
fn slot<const ACC: usize>(smem: u32, c: u32, t: u32) -> u32 {
    smem + c * GROUP * ACC as u32 * 4 + 16 * t
}

/// Consumer warpgroup `c`'s thread `t` leaves its accumulators `d` at `smem` (the stage ring's
/// base) for the cluster's CTA 0.
///
/// # Safety
/// The CTA's stages are no longer read or written (every `wgmma` of both consumer warpgroups and
/// every copy into them has completed); `smem` has [`partial_bytes`]`(ACC)` bytes.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn store_partial<const ACC: usize>(smem: u32, c: u32, t: u32, d: &[f32; ACC]) {
    let base = slot::<ACC>(smem, c, t);
    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                  23, 24, 25, 26, 27, 28, 29, 30, 31] {
        let j = j as usize;
        if j < ACC / 4 {
            let v = [d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]];
            st_shared_v4_f32(base + 16 * GROUP * j as u32, v);
        }
    });
}

/// 16-byte loads of a peer's partial one thread has in flight at once.
#[cfg(target_feature = "sm_90a")]
const IN_FLIGHT: usize = 8;

/// Consumer warpgroup `c`'s thread `t` of the cluster's CTA 0 adds the partials of CTAs
/// `1..slices` (in that order) to its accumulators `d`.
///
/// # Safety
/// Launched as clusters of `slices` CTAs of this kernel; each CTA `1..slices` has stored its
/// partial ([`store_partial`]) at `smem`, and a cluster barrier orders those stores before this
/// call; none of them exits before a later cluster barrier.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
unsafe fn add_partials<const ACC: usize>(
    smem: u32,
    slices: u32,
    c: u32,
    t: u32,
    d: &mut [f32; ACC],
) {
    let local = slot::<ACC>(smem, c, t);
    let mut r = 1;
    while r < slices {
        let base = map_shared(local, r);
        add_groups::<ACC, IN_FLIGHT>(d, |j| ld_cluster_v4_f32(base + 16 * GROUP * j as u32));
        r += 1;
    }
}
