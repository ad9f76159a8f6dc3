//! Global → shared tile copies with `cp.async`, each chunk's coordinates, predicate and address
//! recomputed every k-tile: 32-bit elements, any layout, any tail, few live registers.
//!
//! Layouts as in [`super`]: k-contiguous → `smem[r][BK + KPAD]`, r-contiguous → `smem[k][R + RPAD]`;
//! with `SWIZZLE_K` the k-contiguous rows are unpadded (`KPAD` = 0) lines of 128 bytes whose chunks
//! are placed by [`swizzled`], so each 128-byte line of the operand lands in one 128-byte line of
//! shared memory. Every thread copies 16-byte chunks (4 elements along the contiguous dimension) with
//! `cp.async.cg … 16, src_bytes`, which zero-fills what lies past the matrix edge; when the host says
//! 16-byte access is not allowed (`vec == false`), each element goes with its own 4-byte
//! `cp.async.ca … 4, src_bytes`, a warp's 32 on 32 consecutive elements of a line.

use crate::arch::cp_async::{
    global_to_shared_ca_4_zfill, global_to_shared_cg_16, global_to_shared_cg_16_zfill,
};
use crate::arch::opaque::unhoisted;

use super::swizzled;

/// Geometry of one operand's tile copy.
#[derive(Clone, Copy)]
pub struct PerChunkCopy {
    /// Global address of the operand's batch item (element (0, 0)).
    pub base: u64,
    /// Leading dimension, elements.
    pub ld: u64,
    /// k index contiguous in memory.
    pub k_contig: bool,
    /// Tile origin along R (m0 or n0).
    pub r0: u32,
    /// Extent along R (m or n).
    pub rows: u32,
    /// Extent along K.
    pub k: u32,
    /// 16-byte copies allowed.
    pub vec: bool,
}

impl PerChunkCopy {
    /// Chunks per line of the tile (a line is a row if k-contiguous, a k index if r-contiguous)
    /// and the shared bytes of a line.
    #[inline(always)]
    fn line<const R: u32, const BK: u32, const KPAD: u32, const RPAD: u32>(&self) -> (u32, u32) {
        if self.k_contig {
            (BK / 4, (BK + KPAD) * 4)
        } else {
            (R / 4, (R + RPAD) * 4)
        }
    }

    /// Where byte `o` of a tile (lines of `line_bytes`, unpadded when swizzled) is placed: swizzled
    /// in a k-contiguous tile with `SWIZZLE_K`, else in place.
    #[inline(always)]
    fn place<const SWIZZLE_K: bool>(&self, o: u32, line_bytes: u32) -> u32 {
        if SWIZZLE_K && self.k_contig {
            swizzled(o, line_bytes)
        } else {
            o
        }
    }

    /// Whether a tile of `R` rows at this copy's origin may go through [`Self::issue_interior`]:
    /// 16-byte access allowed, every row inside the matrix, and the chunks of a `THREADS`-thread
    /// copy on whole lines (each thread keeps its position along the contiguous dimension). The
    /// same in every thread of the block, so a mainloop may branch on it around its barriers.
    #[inline(always)]
    pub fn interior<const R: u32, const BK: u32, const THREADS: u32>(&self) -> bool {
        let (per_line, _) = self.line::<R, BK, 0, 0>();
        THREADS.is_multiple_of(per_line)
            && (R * BK / 4).is_multiple_of(THREADS)
            && self.vec
            && self.r0 + R <= self.rows
    }

    /// Issues this thread's copies of the k-tile at `k0`, which lies inside K, into the shared
    /// tile at `dst`: one `cp.async.cg … 16` per chunk, addresses a fixed stride apart, no test,
    /// so that a mainloop made of these stays one basic block for ptxas to schedule.
    ///
    /// # Safety
    /// As [`Self::issue`], and [`Self::interior`] holds and `k0 + BK ≤ k`.
    #[inline(always)]
    pub unsafe fn issue_interior<
        const R: u32,
        const BK: u32,
        const KPAD: u32,
        const RPAD: u32,
        const THREADS: u32,
        const SWIZZLE_K: bool,
    >(
        &self,
        dst: u32,
        k0: u32,
        tid: u32,
    ) {
        // swizzled: a thread's chunks 8·j lines apart keep one XOR pattern, so they stay a fixed
        // stride apart
        const {
            assert!(
                !SWIZZLE_K
                    || (KPAD == 0 && BK * 4 == 128 && (THREADS / (BK / 4)).is_multiple_of(8))
            )
        };
        let (per_line, line_bytes) = self.line::<R, BK, KPAD, RPAD>();
        let (line, pos) = (tid / per_line, (tid % per_line) * 4);
        let off = if self.k_contig {
            (self.r0 + line) as u64 * self.ld + (k0 + pos) as u64
        } else {
            (k0 + line) as u64 * self.ld + (self.r0 + pos) as u64
        };
        let mut src = self.base.wrapping_add(off * 4);
        let mut d = dst + self.place::<SWIZZLE_K>(line * line_bytes + pos * 4, line_bytes);
        let lines = THREADS / per_line;
        for _ in 0..R * BK / 4 / THREADS {
            global_to_shared_cg_16(d, src);
            src = src.wrapping_add(lines as u64 * self.ld * 4);
            d += lines * line_bytes;
        }
    }

    /// Issues this thread's copies of k-tile `kt` (origin `k0 = kt·BK`) into the shared tile at
    /// `dst`. `R`, `BK`, the paddings and the thread count are compile-time constants.
    ///
    /// # Safety
    /// `dst` must point at a shared tile of the layout described in the module docs that nobody reads
    /// until the copies are awaited and a barrier passed; the operand must cover all in-bounds elements.
    #[inline(always)]
    pub unsafe fn issue<
        const R: u32,
        const BK: u32,
        const KPAD: u32,
        const RPAD: u32,
        const THREADS: u32,
        const SWIZZLE_K: bool,
    >(
        &self,
        dst: u32,
        k0: u32,
        tid: u32,
    ) {
        const { assert!(!SWIZZLE_K || (KPAD == 0 && BK * 4 == 128)) };
        if !self.vec {
            return self.issue_words::<R, BK, KPAD, RPAD, THREADS, SWIZZLE_K>(dst, k0, tid);
        }
        let chunks = R * BK / 4;
        let mut c = tid;
        while c < chunks {
            // (r, kk): first element of this chunk in tile coordinates; `run` = contiguous index
            let (r, kk, s_off) = if self.k_contig {
                let per_row = BK / 4;
                let r = c / per_row;
                let kk = (c % per_row) * 4;
                let o = (r * (BK + KPAD) + kk) * 4;
                (r, kk, self.place::<SWIZZLE_K>(o, (BK + KPAD) * 4))
            } else {
                let per_row = R / 4;
                let kk = c / per_row;
                let r = (c % per_row) * 4;
                (r, kk, (kk * (R + RPAD) + r) * 4)
            };
            let gr = self.r0 + r;
            let gk = k0 + kk;
            let (off, left) = if self.k_contig {
                // valid elements along k from gk, 0 if the row is outside
                let left = if gr < self.rows && gk < self.k {
                    self.k - gk
                } else {
                    0
                };
                (gr as u64 * self.ld + gk as u64, left)
            } else {
                let left = if gk < self.k && gr < self.rows {
                    self.rows - gr
                } else {
                    0
                };
                (gk as u64 * self.ld + gr as u64, left)
            };
            let left = if left > 4 { 4 } else { left };
            // out-of-range chunks read nothing; give them the always-valid base address
            let src = if left == 0 {
                self.base
            } else {
                self.base.wrapping_add(off * 4)
            };
            global_to_shared_cg_16_zfill(dst + s_off, src, left * 4);
            c += THREADS;
        }
    }

    /// [`Self::issue`] where 16-byte access is not allowed: each element by its own
    /// `cp.async.ca … 4, src_bytes` (0 past the matrix edge: zero-filled), consecutive threads on
    /// consecutive elements of a line, so that a warp's copy reads 128 contiguous bytes and writes
    /// 32 distinct banks (a thread per 16-byte chunk, as the 16-byte copies are placed, copying its
    /// four elements one by one would read four times the sectors and write four times the
    /// wavefronts: docs/unaligned-log.md, attempt 15).
    ///
    /// # Safety
    /// As [`Self::issue`].
    #[inline(always)]
    unsafe fn issue_words<
        const R: u32,
        const BK: u32,
        const KPAD: u32,
        const RPAD: u32,
        const THREADS: u32,
        const SWIZZLE_K: bool,
    >(
        &self,
        dst: u32,
        k0: u32,
        tid: u32,
    ) {
        // every thread keeps one place along its lines
        const {
            assert!(THREADS.is_multiple_of(R) && THREADS.is_multiple_of(BK));
            assert!((R * BK).is_multiple_of(THREADS));
        };
        // elements along a line, and its bytes in shared memory
        let (chunks, line_bytes) = self.line::<R, BK, KPAD, RPAD>();
        let len = chunks * 4;
        // computed here, not hoisted out of the mainloop (an address or predicate per element
        // held through it spills the 128×256 tiles)
        let tid = unhoisted(tid);
        let (pos, line0, lines) = (tid % len, tid / len, THREADS / len);
        // lines this copy may read (from the tile's first), whether its place along them is
        // inside the matrix, and its first element's offset; the next element is `lines` lines on
        let (line_lim, pos_ok, first) = if self.k_contig {
            let (gr, gk) = (self.r0 + line0, k0 + pos);
            (
                self.rows.saturating_sub(self.r0),
                gk < self.k,
                gr as u64 * self.ld + gk as u64,
            )
        } else {
            let (gr, gk) = (self.r0 + pos, k0 + line0);
            (
                self.k.saturating_sub(k0),
                gr < self.rows,
                gk as u64 * self.ld + gr as u64,
            )
        };
        let step = lines as u64 * self.ld * 4;
        let mut src = self.base.wrapping_add(first * 4);
        let mut d = dst + line0 * line_bytes + pos * 4;
        let mut line = line0;
        // a loop of pairs, its count hidden: unrolled whole (32 elements per thread in
        // the 128×256 tiles), the copies grow the k-tile's code past what LLVM unrolls around
        // them, and the fragment buffers it then indexes by a variable live in local memory
        let per_thread = R * BK / THREADS;
        let group = if per_thread.is_multiple_of(2) { 2 } else { 1 };
        let mut groups = unhoisted(per_thread / group);
        while groups > 0 {
            for _ in 0..group {
                let ok = pos_ok && line < line_lim;
                // elements past the edge read nothing; give them the always-valid base address
                let s = if ok { src } else { self.base };
                // swizzled, the chunk's place depends on the line (`lines` need not be a multiple
                // of 8 here)
                let at = if SWIZZLE_K && self.k_contig {
                    dst + swizzled(line * line_bytes + pos * 4, line_bytes)
                } else {
                    d
                };
                global_to_shared_ca_4_zfill(at, s, if ok { 4 } else { 0 });
                src = src.wrapping_add(step);
                d += lines * line_bytes;
                line += lines;
            }
            groups -= 1;
        }
    }
}
