//! Thread-issued copies of a `wgmma` stage (sm_90a) for operands TMA cannot map: any base address,
//! leading dimension and batch stride that keeps elements aligned to their size.
//!
//! A stage is what TMA would have written (see `tma_warp_specialized`): rows of 128 bytes, the
//! 16-byte chunk `c` of row `r` at position `c ^ (r % 8)` (the 128-byte swizzle), A's `BM` rows
//! then B's `BN`. Each row holds 128 contiguous bytes of one stored row of the operand: k of one
//! M/N row for a K-major operand, or 64 M/N elements of one k-row for an MN-major operand (whose
//! tile is boxes of 64 M/N × 64 k, row `r` = box `r / 64`, k-row `r % 64`).
//!
//! The producer warpgroup copies 16 rows at a time, 8 lanes per row, lane `c` writing chunk `c`.
//! A row starting `s` bytes past a 16-byte boundary spans 9 aligned chunks: lane `c` loads aligned
//! chunk `c` (`ld.global.v4`), takes chunk `c + 1` from its neighbour (`shfl.down` within the 8
//! lanes) and funnel-shifts the 32 bytes by `s` (word selects, then `shf.r.wrap` for the
//! half-word). Lane 7 needs chunk 8: the 8 lanes of a group load the ninth chunks of the group's 8
//! rows in flight, one each, and lane 7 takes its row's with `shfl.idx`. Bytes past the matrix (k or M/N tails, rows beyond the
//! operand) become zeros.
//!
//! Memory safety of the aligned loads: a chunk is loaded only if it holds a byte of the row's
//! in-range elements, so it starts at or after the 16-byte boundary below the operand's first
//! element (inside the allocation: device allocations start 256-byte aligned) and, if it would
//! reach past the operand's last element (`end`), it is read element by element up to `end`. The
//! bytes a chunk holds outside the row (the gap between rows, the neighbouring rows) are read and
//! dropped.
//!
//! [`ROWS_IN_FLIGHT`] rows per thread are in flight at once (two batches of 8 loads of 16 bytes,
//! plus one ninth chunk each): the first rows' loads of a stage are issued before the producer
//! waits for the stage to be free.

use crate::arch::convert::funnel_shift_right;
use crate::arch::global::{ld_global_u16, ld_global_u32, ld_global_v4_u32};
use crate::arch::mbarrier;
use crate::arch::smem::st_shared_v4_u32;
use crate::arch::sync::{shfl_down1_in8, shfl_idx_in8};
// the stage layout the TMA producer writes: rows of 128 bytes, MN-major boxes of 64 elements
use crate::threadblock::tma_warp_specialized::{MN_BOX, ROW_BYTES};

/// Rows copied by the producer warpgroup at once: 128 threads, 8 lanes per row.
pub const ROWS_PER_PASS: u32 = 16;
/// Rows each producer thread has in flight: two batches of 8 rows' loads are issued before any is
/// stored ([`load_stage`]).
pub const ROWS_IN_FLIGHT: u32 = 16;

/// One operand of a batch item as the producer threads read it: `outer` stored rows of `ld_bytes`,
/// each `inner` elements in range.
#[derive(Clone, Copy)]
pub struct SwizzledOperand {
    /// Global address of element `(0, 0)` of the batch item.
    base: u64,
    /// Bytes between stored rows.
    ld_bytes: u64,
    /// Stored rows: M or N (K-major), K (MN-major).
    outer: u32,
    /// Elements of a stored row in range: K (K-major), M or N (MN-major).
    inner: u32,
    /// First byte past the batch item's last element.
    end: u64,
    /// Stored rows run along k (a stage row is 64 M/N elements of one k).
    mn_major: bool,
    /// Element bytes (2 or 4).
    eb: u32,
}

/// A stage row's load in lane `c`: aligned chunk `c`, and `valid << 8 | shift` (the row's bytes in
/// range, 0..=128, and its offset past a 16-byte boundary).
#[derive(Clone, Copy)]
pub struct Fetched {
    lo: [u32; 4],
    meta: u32,
}

impl SwizzledOperand {
    /// The operand at `base` (the batch item's global address) with `outer` stored rows of `inner`
    /// in-range elements of `eb` bytes (2 or 4), `ld` elements apart; `outer, inner ≥ 1`.
    #[inline(always)]
    pub fn new(base: u64, ld: u64, outer: u32, inner: u32, mn_major: bool, eb: u32) -> Self {
        let ld_bytes = ld * u64::from(eb);
        let end = base + u64::from(outer - 1) * ld_bytes + u64::from(inner) * u64::from(eb);
        SwizzledOperand {
            base,
            ld_bytes,
            outer,
            inner,
            end,
            mn_major,
            eb,
        }
    }

    /// Global address and in-range bytes of row `x` of this operand's stage tile, for the tile at
    /// `o0` along M/N and the k-tile at `k0`.
    #[inline(always)]
    fn row(&self, x: u32, o0: u32, k0: u32) -> (u64, u32) {
        let eb = self.eb;
        let (outer, inner0) = if self.mn_major {
            (k0 + x % MN_BOX, o0 + MN_BOX * (x / MN_BOX))
        } else {
            (o0 + x, k0)
        };
        let addr = self.base + u64::from(outer) * self.ld_bytes + u64::from(inner0) * u64::from(eb);
        let valid = if outer < self.outer {
            // (≤ 2^32 elements of ≤ 4 bytes: no overflow in u64)
            (u64::from(self.inner.saturating_sub(inner0)) * u64::from(eb)).min(ROW_BYTES as u64)
        } else {
            0
        };
        (addr, valid as u32)
    }

    /// Issues the load of aligned chunk `c` (0..=8) of row `x` (see [`row`](Self::row)) if it
    /// holds a byte in range, else zeros; and the row's `valid << 8 | shift`.
    ///
    /// # Safety
    /// The operand describes memory of one allocation per the module docs.
    #[inline(always)]
    pub unsafe fn fetch(&self, x: u32, o0: u32, k0: u32, c: u32) -> Fetched {
        let (addr, valid) = self.row(x, o0, k0);
        let shift = (addr % 16) as u32;
        let at = addr - u64::from(shift) + 16 * u64::from(c);
        let lo = if at < addr + u64::from(valid) {
            load_chunk(at, self.end, self.eb)
        } else {
            [0; 4]
        };
        Fetched {
            lo,
            meta: valid << 8 | shift,
        }
    }
}

/// The 16 bytes at the 16-byte-aligned `at`: one load, or below `end` element by element (the rest
/// zeros) when the chunk reaches past `end`.
///
/// # Safety
/// `[at, min(at + 16, end))` is readable global memory; `end` is a multiple of `eb` (2 or 4).
// `%` as measured: `is_multiple_of` adds a zero-divisor test to the PTX
#[allow(clippy::manual_is_multiple_of)]
#[inline(always)]
unsafe fn load_chunk(at: u64, end: u64, eb: u32) -> [u32; 4] {
    if at + 16 <= end {
        return ld_global_v4_u32(at);
    }
    let mut w = [0u32; 4];
    // byte offset of each element in the chunk (no division by `eb`: the loop unrolls to literals)
    unroll!(b in [0, 2, 4, 6, 8, 10, 12, 14] {
        let a = at + u64::from(b);
        if b % eb == 0 && a + u64::from(eb) <= end {
            let i = (b / 4) as usize;
            if eb == 4 {
                w[i] = ld_global_u32(a);
            } else {
                w[i] |= u32::from(ld_global_u16(a)) << (8 * (b % 4));
            }
        }
    });
    w
}

/// Lane `c`'s 16 bytes of its row (chunk `c`, bytes past the row's range zeroed) from the row's
/// loads in the lane's group of 8 (`f`: chunk `c`) and the row's ninth chunk, which lane `u` of the
/// group holds in `ninth`.
///
/// # Safety
/// Warp-convergent (shuffles).
#[inline(always)]
pub unsafe fn assemble(f: &Fetched, ninth: &[u32; 4], u: u32, c: u32) -> [u32; 4] {
    let lo = f.lo;
    let next = [
        shfl_down1_in8(lo[0]),
        shfl_down1_in8(lo[1]),
        shfl_down1_in8(lo[2]),
        shfl_down1_in8(lo[3]),
    ];
    let ninth = [
        shfl_idx_in8(ninth[0], u),
        shfl_idx_in8(ninth[1], u),
        shfl_idx_in8(ninth[2], u),
        shfl_idx_in8(ninth[3], u),
    ];
    let hi = if c == 7 { ninth } else { next };
    let (shift, valid) = (f.meta & 0xff, f.meta >> 8);
    let v = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
    // words shift / 4 .. shift / 4 + 4 of the 32 bytes (two selects), then the half-word shift
    let q = shift / 4;
    let mut by2 = [0u32; 6];
    unroll!(i in [0, 1, 2, 3, 4, 5] {
        let i = i as usize;
        by2[i] = if q & 2 != 0 { v[i + 2] } else { v[i] };
    });
    let mut by1 = [0u32; 5];
    unroll!(i in [0, 1, 2, 3, 4] {
        let i = i as usize;
        by1[i] = if q & 1 != 0 { by2[i + 1] } else { by2[i] };
    });
    let bits = 8 * (shift % 4);
    // bytes of chunk c in range: 0..=16, a multiple of the element size (2 or 4)
    let valid = valid.saturating_sub(16 * c).min(16);
    let mut out = [0u32; 4];
    unroll!(i in [0, 1, 2, 3] {
        let w = funnel_shift_right(by1[i as usize], by1[i as usize + 1], bits);
        out[i as usize] = if valid >= 4 * i + 4 {
            w
        } else if valid >= 4 * i + 2 {
            w & 0xffff
        } else {
            0
        };
    });
    out
}

/// Copies one k-tile (at `k0`) of the tile at `(m0, n0)` into the stage at `stage`: A's `BM` rows
/// from `a`, then B's `BN` from `b`, by producer thread `t` (0..128), [`ROWS_IN_FLIGHT`] rows in
/// flight per thread. Waits on `empty` (phase `parity`) after issuing the first rows' loads,
/// before writing.
///
/// # Safety
/// Called by all 128 threads of the producer warpgroup together; `stage` is a 1024-byte-aligned
/// stage of `(BM + BN)·128` bytes that `empty` guards; the operands as in [`SwizzledOperand::fetch`].
#[allow(clippy::manual_is_multiple_of)]
#[inline(always)]
pub unsafe fn load_stage<const BM: u32, const BN: u32>(
    a: &SwizzledOperand,
    b: &SwizzledOperand,
    stage: u32,
    (m0, n0, k0): (u32, u32, u32),
    t: u32,
    empty: u32,
    parity: u32,
) {
    const { assert!(BM % ROWS_PER_PASS == 0 && ((BM + BN) / ROWS_PER_PASS) % (ROWS_IN_FLIGHT / 2) == 0) };
    let (group, c) = (t / 8, t % 8);
    let passes = (BM + BN) / ROWS_PER_PASS;
    let row = |pass: u32| ROWS_PER_PASS * pass + group;
    // chunk `chunk` of the group's row of pass `pass`
    let fetch = |pass: u32, chunk: u32| {
        let r = row(pass);
        if r < BM {
            a.fetch(r, m0, k0, chunk)
        } else {
            b.fetch(r - BM, n0, k0, chunk)
        }
    };
    // the loads of passes `first..first + 8` (unrolled: they stay in registers, all in flight),
    // and the ninth chunks of the group's 8 rows, one per lane: lane `c` loads row `c`'s (macros,
    // not closures: a closure called three times was left out of line, its arrays on the stack)
    macro_rules! batch {
        ($first:expr) => {{
            let first = $first;
            let f = [
                fetch(first, c),
                fetch(first + 1, c),
                fetch(first + 2, c),
                fetch(first + 3, c),
                fetch(first + 4, c),
                fetch(first + 5, c),
                fetch(first + 6, c),
                fetch(first + 7, c),
            ];
            (f, fetch(first + c, 8).lo)
        }};
    }
    macro_rules! store {
        ($first:expr, $batch:expr) => {{
            let (first, (f, ninth)) = ($first, $batch);
            unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7] {
                let r = row(first + u);
                let words = assemble(&f[u as usize], &ninth, u, c);
                st_shared_v4_u32(stage + ROW_BYTES * r + ((c ^ (r % 8)) << 4), words);
            });
        }};
    }
    let half = ROWS_IN_FLIGHT / 2;
    let mut first = 0;
    while first < passes {
        // two batches of 8 rows in flight before either is stored; a single batch where one is
        // left (24 passes: the 128×256 instance the TMA kernels compile in their untaken
        // thread-copy branch; no thread-copy kernel has that tile)
        let b0 = batch!(first);
        if first + half < passes {
            let b1 = batch!(first + half);
            if first == 0 {
                mbarrier::wait_parity(empty, parity);
            }
            store!(first, b0);
            store!(first + half, b1);
            first += ROWS_IN_FLIGHT;
        } else {
            if first == 0 {
                mbarrier::wait_parity(empty, parity);
            }
            store!(first, b0);
            first += half;
        }
    }
}
