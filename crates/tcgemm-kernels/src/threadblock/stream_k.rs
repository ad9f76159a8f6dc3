//! The work schedule of the persistent kernels ([`Schedule`]): whole work items dealt out in
//! turn, then, under stream-K ([`StreamK`](crate::params::StreamK)), the k-tiles of the last items
//! cut into one equal piece per CTA; and the hand-over of a piece's partial tile from the CTA
//! that computed it to the CTA that stores the item ([`store_partial`], [`add_partial`]).
//!
//! Pieces run in reverse CTA order (CTA `b` takes piece `grid − 1 − b`), so an item's first
//! k-tiles, and with them its store, fall to the highest CTA index among those sharing it, and a
//! CTA only ever waits for CTAs of lower index. CTAs start in index order, so those are running
//! or done: the wait ends whatever the number of SMs the launch actually gets. A piece ends where
//! its CTA's sequence ends, so a CTA has at most one partial (its first stream-K unit, which
//! starts inside an item) and finishes at most one item it shares (its last unit).
//!
//! Compiled on the host too: the schedule is plain arithmetic, unit-tested there.

/// One unit of work: k-tiles `k_begin..k_end` of work item `item`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Work item (output tile × batch item) in the launch's order.
    pub item: u32,
    /// First k-tile.
    pub k_begin: u32,
    /// One past the last k-tile.
    pub k_end: u32,
}

/// What a CTA does with the accumulators of a [`Unit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// All of the item's k-tiles: store C.
    Whole,
    /// The item's first k-tiles, the rest computed by other CTAs: add their partials, store C.
    Finisher,
    /// Later k-tiles of an item: store the partial tile for the finisher.
    Partial,
}

/// Where a CTA is in its sequence of units ([`Schedule::next`]).
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    /// Next whole item dealt to this CTA.
    w: u32,
    /// Next stream-K k-tile of this CTA's piece.
    u: u32,
}

/// The units of CTA `bid` of a persistent launch of `grid` CTAs over `work` items of `ktiles`
/// k-tiles each, the k-tiles of the last `items` of them shared out
/// ([`StreamK`](crate::params::StreamK)).
///
/// ```
/// use tcgemm_kernels::threadblock::stream_k::{Role, Schedule, Unit};
/// // 3 items of 4 k-tiles on 2 CTAs, the last 1 item shared: CTA 0 takes item 0 whole, then
/// // k-tiles 2..4 of item 2; CTA 1 item 1 whole, then k-tiles 0..2 of item 2, which it stores
/// let s0 = Schedule::new(3, 4, 1, 2, 0);
/// let mut c = s0.start();
/// assert_eq!(s0.next(&mut c), Some(Unit { item: 0, k_begin: 0, k_end: 4 }));
/// let u = s0.next(&mut c).unwrap();
/// assert_eq!((u, s0.role(u)), (Unit { item: 2, k_begin: 2, k_end: 4 }, Role::Partial));
/// assert_eq!(s0.next(&mut c), None);
/// let s1 = Schedule::new(3, 4, 1, 2, 1);
/// let mut c = s1.start();
/// s1.next(&mut c);
/// let u = s1.next(&mut c).unwrap();
/// assert_eq!((u, s1.role(u)), (Unit { item: 2, k_begin: 0, k_end: 2 }, Role::Finisher));
/// assert_eq!(s1.peers(u), 1); // CTA 0's partial
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    ktiles: u32,
    grid: u32,
    bid: u32,
    /// Items before this are dealt whole.
    dp_end: u32,
    /// Stream-K k-tiles in all (`items · ktiles`; k-tile `u` is k-tile `u mod ktiles` of item
    /// `dp_end + u / ktiles`).
    total: u32,
    /// This CTA's piece: index and stream-K k-tiles `sk_begin..sk_end`.
    piece: u32,
    sk_begin: u32,
    sk_end: u32,
}

impl Schedule {
    /// The schedule of CTA `bid` (`< grid`); `items ≤ work` (more counts as `work`), and
    /// `items · ktiles` fits 32 bits (the host's rule).
    #[inline(always)]
    pub fn new(work: u32, ktiles: u32, items: u32, grid: u32, bid: u32) -> Schedule {
        let items = if items < work { items } else { work };
        let piece = grid - 1 - bid;
        let mut s = Schedule {
            ktiles,
            grid,
            bid,
            dp_end: work - items,
            total: items * ktiles,
            piece,
            sk_begin: 0,
            sk_end: 0,
        };
        s.sk_begin = s.piece_start(piece);
        s.sk_end = s.piece_start(piece + 1);
        s
    }

    /// First stream-K k-tile of piece `r` (`≤ grid`): `⌊r · total / grid⌋`.
    #[inline(always)]
    fn piece_start(&self, r: u32) -> u32 {
        (u64::from(r) * u64::from(self.total) / u64::from(self.grid)) as u32
    }

    /// The cursor before this CTA's first unit.
    #[inline(always)]
    pub fn start(&self) -> Cursor {
        Cursor {
            w: self.bid,
            u: self.sk_begin,
        }
    }

    /// This CTA's next unit, advancing `c`; `None` after the last.
    #[inline(always)]
    pub fn next(&self, c: &mut Cursor) -> Option<Unit> {
        if c.w < self.dp_end {
            let unit = Unit {
                item: c.w,
                k_begin: 0,
                k_end: self.ktiles,
            };
            c.w += self.grid;
            return Some(unit);
        }
        if c.u < self.sk_end {
            let i = c.u / self.ktiles;
            let k_begin = c.u - i * self.ktiles;
            let left = self.sk_end - c.u;
            let k_end = if left < self.ktiles - k_begin {
                k_begin + left
            } else {
                self.ktiles
            };
            c.u += k_end - k_begin;
            return Some(Unit {
                item: self.dp_end + i,
                k_begin,
                k_end,
            });
        }
        None
    }

    /// k-tiles this CTA computes in all (the transposers' count).
    #[inline(always)]
    pub fn ktiles_total(&self) -> u32 {
        let whole = self.dp_end.saturating_sub(self.bid).div_ceil(self.grid);
        whole * self.ktiles + (self.sk_end - self.sk_begin)
    }

    /// What this CTA does with `unit`'s accumulators.
    #[inline(always)]
    pub fn role(&self, unit: Unit) -> Role {
        if unit.k_begin > 0 {
            Role::Partial
        } else if unit.k_end < self.ktiles {
            Role::Finisher
        } else {
            Role::Whole
        }
    }

    /// The partials a finisher adds (0 for other roles): those of the pieces after its own that
    /// start inside `unit`'s item. The `i`-th, in k order, is CTA `bid − 1 − i`'s.
    #[inline(always)]
    pub fn peers(&self, unit: Unit) -> u32 {
        if self.role(unit) != Role::Finisher {
            return 0;
        }
        let item_end = (unit.item - self.dp_end + 1) * self.ktiles;
        let mut r = self.piece + 1;
        while r < self.grid && self.piece_start(r) < item_end {
            r += 1;
        }
        r - self.piece - 1
    }
}

#[cfg(target_feature = "sm_90a")]
use crate::arch::{
    global::{
        ld_acquire_gpu_u32, ld_global_cg_v4_f32, st_global_v4_f32, st_relaxed_gpu_u32,
        st_release_gpu_u32, to_global,
    },
    sync::{fence_acq_rel_gpu, sync_named},
};
#[cfg(target_feature = "sm_90a")]
use crate::params::StreamK;

/// Threads of a consumer warpgroup, which hands its partial over on its own.
#[cfg(target_feature = "sm_90a")]
const GROUP: u32 = 128;
/// 16-byte loads of a partial one finisher thread has in flight at once (`4·IN_FLIGHT`
/// registers beside its accumulators).
#[cfg(target_feature = "sm_90a")]
const IN_FLIGHT: usize = 16;

/// Address of the slot of CTA `cta`'s consumer warpgroup `c` (of two, `ACC` f32 per thread):
/// thread `t`'s `j`-th 4 accumulators at `16·(128·j + t)` (coalesced across the warpgroup).
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
fn slot<const ACC: usize>(sk: &StreamK, cta: u32, c: u32) -> u64 {
    to_global(sk.partials) + u64::from(2 * cta + c) * u64::from(GROUP) * ACC as u64 * 4
}

/// Flag of CTA `cta`'s consumer warpgroup `c`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
fn flag(sk: &StreamK, cta: u32, c: u32) -> u64 {
    to_global(sk.flags) + 4 * u64::from(2 * cta + c)
}

/// Consumer warpgroup `c` (thread `t` of 128) of CTA `cta` stores its accumulators `d` to its
/// slot and raises its flag. Every thread of the warpgroup calls it.
///
/// # Safety
/// `sk` holds the host's stream-K workspace (a slot per CTA, the flags zero); the warpgroup's
/// `wgmma`s have completed; named barrier `1 + c` belongs to this warpgroup.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn store_partial<const ACC: usize>(
    sk: &StreamK,
    cta: u32,
    c: u32,
    t: u32,
    d: &[f32; ACC],
) {
    let base = slot::<ACC>(sk, cta, c) + 16 * u64::from(t);
    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                  23, 24, 25, 26, 27, 28, 29, 30, 31] {
        let j = j as usize;
        if j < ACC / 4 {
            let v = [d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]];
            st_global_v4_f32(base + (16 * GROUP) as u64 * j as u64, v);
        }
    });
    // the warpgroup's stores, then one release at GPU scope (cumulative over the barrier)
    sync_named(1 + c, GROUP);
    if t == 0 {
        st_release_gpu_u32(flag(sk, cta, c), 1);
    }
}

/// Consumer warpgroup `c` (thread `t` of 128) waits for the flag of CTA `peer`'s warpgroup `c`,
/// sets it back to zero and adds that partial to its accumulators `d`. Every thread of the
/// warpgroup calls it.
///
/// # Safety
/// As [`store_partial`]; `peer` stores a partial of the same tile in this launch
/// ([`Schedule::peers`]).
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub unsafe fn add_partial<const ACC: usize>(
    sk: &StreamK,
    peer: u32,
    c: u32,
    t: u32,
    d: &mut [f32; ACC],
) {
    if t == 0 {
        let f = flag(sk, peer, c);
        while ld_acquire_gpu_u32(f) == 0 {}
        // this launch writes that slot once: the flag is free for the next launch
        st_relaxed_gpu_u32(f, 0);
    }
    sync_named(1 + c, GROUP);
    fence_acq_rel_gpu();
    let base = slot::<ACC>(sk, peer, c) + 16 * u64::from(t);
    // IN_FLIGHT loads issued before their adds: one at a time, each waits out an L2 round trip
    // (measured: ~15 µs per finisher of a 128×256 tile)
    add_groups::<ACC, IN_FLIGHT>(d, |j| {
        ld_global_cg_v4_f32(base + (16 * GROUP) as u64 * j as u64)
    });
}

/// Adds a partial tile to accumulators `d`: its `ACC / 4` groups of 4 f32, group `j` read by
/// `load(j)`, `N` loads issued before their adds (a last batch of fewer groups is cut short:
/// `j < ACC / 4`, constant). Used by stream-K's hand-over and by the split within clusters
/// (`cluster_split`).
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn add_groups<const ACC: usize, const N: usize>(
    d: &mut [f32; ACC],
    load: impl Fn(usize) -> [f32; 4],
) {
    unroll!(g in [0, 1, 2, 3, 4, 5, 6, 7] {
        let j0 = g as usize * N;
        if j0 < ACC / 4 {
            let v: [[f32; 4]; N] = core::array::from_fn(|i| {
                if j0 + i < ACC / 4 {
                    load(j0 + i)
                } else {
                    [0.0; 4]
                }
            });
            for (i, v) in v.iter().enumerate() {
                let j = j0 + i;
                if j < ACC / 4 {
                    d[4 * j] += v[0];
                    d[4 * j + 1] += v[1];
                    d[4 * j + 2] += v[2];
                    d[4 * j + 3] += v[3];
                }
            }
        }
    });
}
