//! Tensor Memory Accelerator copies (`cp.async.bulk.tensor`, sm_90): one thread moves a whole tile
//! described by a host-encoded tensor map, completing on an `mbarrier` with transaction bytes.

use core::arch::asm;

/// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes` — copies the box
/// at coordinates `(c0, c1, c2)` (innermost first, in elements) of the tensor map at generic address
/// `tmap` to shared address `dst`, and signals `mbar` with the box's bytes. Elements outside the
/// tensor are filled with zeros.
///
/// # Safety
/// `tmap` must be the generic address of a valid, 64-byte-aligned tensor map in kernel parameter,
/// constant or global memory; `dst` must be a shared tile of the box's size with the alignment the
/// map's swizzle needs (1024 bytes for 128-byte swizzle); `mbar` must expect these bytes.
#[inline(always)]
pub unsafe fn global_to_shared_3d(dst: u32, tmap: u64, c0: u32, c1: u32, c2: u32, mbar: u32) {
    asm!(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{0}], [{1}, {{{2}, {3}, {4}}}], [{5}];",
        in(reg32) dst, in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) c2, in(reg32) mbar,
        options(nostack)
    );
}

/// [`global_to_shared_3d`] multicast: the box lands at shared address `dst` of every CTA of the
/// cluster whose rank's bit is set in `mask`, each signalling its own barrier at address `mbar`
/// (`.multicast::cluster`).
///
/// # Safety
/// As [`global_to_shared_3d`], in every CTA of `mask`: launched as a cluster holding them, each
/// running with the same shared layout, its barrier at `mbar` expecting these bytes, and the
/// destination free in each (their consumers have released it).
#[inline(always)]
pub unsafe fn global_to_shared_3d_multicast(
    dst: u32,
    tmap: u64,
    (c0, c1, c2): (u32, u32, u32),
    mbar: u32,
    mask: u16,
) {
    asm!(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{0}], [{1}, {{{2}, {3}, {4}}}], [{5}], {6};",
        in(reg32) dst, in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) c2, in(reg32) mbar,
        in(reg16) mask, options(nostack)
    );
}

/// `prefetch.tensormap [tmap];` — brings a tensor map into the descriptor cache.
///
/// # Safety
/// `tmap` as in [`global_to_shared_3d`].
#[inline(always)]
pub unsafe fn prefetch_map(tmap: u64) {
    asm!("prefetch.tensormap [{0}];", in(reg64) tmap, options(nostack));
}

/// `fence.proxy.async.shared::cta;` — orders this thread's generic-proxy shared-memory accesses with
/// later async-proxy (TMA, `wgmma`) accesses.
///
/// # Safety
/// None.
#[inline(always)]
pub unsafe fn fence_proxy_async_shared() {
    asm!("fence.proxy.async.shared::cta;", options(nostack));
}

/// `cp.async.bulk.tensor.3d.global.shared::cta.bulk_group` — copies the shared tile at `src` to the
/// box at coordinates `(c0, c1, c2)` (innermost first, in elements) of the tensor map at generic
/// address `tmap`, as one bulk async-group member ([`bulk_commit_group`] closes the group). Elements
/// of the box outside the tensor are not written.
///
/// # Safety
/// `tmap` as in [`global_to_shared_3d`], describing a global tensor the kernel may write; `src` a
/// shared tile of the box's size, aligned as the map's swizzle needs (1024 bytes for 128-byte
/// swizzle), whose writes by generic-proxy stores were fenced ([`fence_proxy_async_shared`]) and
/// ordered before this call; it must not be written again until the group's reads are done
/// ([`bulk_wait_group_read`]).
#[inline(always)]
pub unsafe fn shared_to_global_3d(tmap: u64, c0: u32, c1: u32, c2: u32, src: u32) {
    asm!(
        "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [{0}, {{{1}, {2}, {3}}}], [{4}];",
        in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) c2, in(reg32) src,
        options(nostack)
    );
}

/// `cp.async.bulk.commit_group;` — closes this thread's bulk async-group of the bulk copies issued
/// since the last commit.
///
/// # Safety
/// None.
#[inline(always)]
pub unsafe fn bulk_commit_group() {
    asm!("cp.async.bulk.commit_group;", options(nostack));
}

/// `cp.async.bulk.wait_group.read N;` — waits until at most `N` of this thread's bulk async-groups
/// still read their shared-memory sources (their global writes may still be under way).
///
/// # Safety
/// None.
#[inline(always)]
pub unsafe fn bulk_wait_group_read<const N: u32>() {
    asm!("cp.async.bulk.wait_group.read {0};", const N, options(nostack));
}

/// `cp.async.bulk.wait_group N;` — waits until at most `N` of this thread's bulk async-groups are
/// incomplete (their writes performed).
///
/// # Safety
/// None.
#[inline(always)]
pub unsafe fn bulk_wait_group<const N: u32>() {
    asm!("cp.async.bulk.wait_group {0};", const N, options(nostack));
}
