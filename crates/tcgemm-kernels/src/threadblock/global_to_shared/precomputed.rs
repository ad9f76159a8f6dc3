//! Global → shared tile copies with `cp.async`, every per-thread address and predicate computed once
//! per block, so an interior k-tile costs each thread one 64-bit add, one 32-bit add and one
//! `cp.async.cg … 16` per 16-byte chunk.
//!
//! Layouts as in [`super`]: a k-contiguous operand (A not transposed, B transposed) is kept
//! as `smem[r][BK + KPAD]`, an r-contiguous one as `smem[k][R + RPAD]`, with elements of `EB` bytes
//! and 16-byte chunks of `16/EB` elements along the contiguous dimension; with `SWIZZLE` the rows
//! are unpadded and the chunks placed by [`swizzled`](super::swizzled). Thread `t` copies chunks
//! `t, t + THREADS, t + 2·THREADS, …`; because `THREADS` is a multiple of the chunks per shared row,
//! its chunks share their contiguous offset and differ by a fixed number of rows (k-contiguous) or
//! k indices (r-contiguous), i.e. by a fixed global and shared stride.
//!
//! Edges: the one-instruction path needs a k-tile fully inside K, every chunk's row inside the matrix
//! (k-contiguous) or 16/EB valid elements from the chunk on (r-contiguous), and 16-byte access
//! allowed by the host (`vec`). Otherwise each chunk goes with `cp.async … 16, src_bytes`
//! (zero-filling past the edge) or, without 16-byte alignment, element by element
//! (`cp.async.ca … 4` for 4-byte elements; `ld.global.nc.u16` + `st.shared.u16` for 2-byte ones).

use crate::arch::cp_async::{
    global_to_shared_ca_4_zfill, global_to_shared_cg_16, global_to_shared_cg_16_zfill,
};
use crate::arch::global::ld_global_nc_u16;
use crate::arch::smem::st_shared_u16;

/// One thread's share of an operand's tile copies.
#[derive(Clone, Copy)]
pub struct PrecomputedCopy {
    /// Global address of the operand's batch item (a valid address for reads of 0 bytes).
    base: u64,
    /// Global address of this thread's first chunk at k-tile 0.
    src0: u64,
    /// Global bytes between this thread's consecutive chunks.
    istep: u64,
    /// Global bytes per k-tile.
    kstep: u64,
    /// Shared byte offset of the first chunk within an operand tile.
    dst0: u32,
    /// Shared bytes between consecutive chunks.
    dstep: u32,
    /// The operand's k index is contiguous in memory.
    k_contig: bool,
    /// First chunk: global row (along M or N) and k offset within the tile.
    r: u32,
    kk: u32,
    /// Rows (k-contiguous) or k indices (r-contiguous) between consecutive chunks.
    step: u32,
    rows: u32,
    k: u32,
    vec: bool,
    /// Every chunk's rows are inside the matrix (see the module docs).
    rows_full: bool,
    /// The whole tile's rows are inside the matrix: the same in every thread of the block.
    tile_full: bool,
}

impl PrecomputedCopy {
    /// Per-thread state for an `R × BK` operand tile at row `r0` of an operand with `rows` rows,
    /// inner dimension `k` and leading dimension `ld` (elements of `EB` bytes), stored padded or
    /// (`SWIZZLE`, no padding) swizzled.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn new<
        const R: u32,
        const BK: u32,
        const KPAD: u32,
        const RPAD: u32,
        const THREADS: u32,
        const EB: u32,
        const SWIZZLE: bool,
    >(
        base: u64,
        ld: u64,
        k_contig: bool,
        r0: u32,
        rows: u32,
        k: u32,
        vec: bool,
        tid: u32,
    ) -> Self {
        let epc = 16 / EB;
        let eb = EB as u64;
        // every chunk has exactly one owner, and a thread's chunks share their contiguous offset
        const { assert!((R * BK / (16 / EB)).is_multiple_of(THREADS)) };
        const {
            assert!(THREADS.is_multiple_of(BK / (16 / EB)) && THREADS.is_multiple_of(R / (16 / EB)))
        };
        // swizzled: unpadded, and a thread's chunks 8·j rows apart keep one XOR pattern, so they
        // stay `dstep` apart
        const {
            assert!(
                !SWIZZLE
                    || (KPAD == 0
                        && RPAD == 0
                        && (THREADS / (BK / (16 / EB))).is_multiple_of(8)
                        && (THREADS / (R / (16 / EB))).is_multiple_of(8))
            )
        };
        let place = |o: u32, row_bytes: u32| {
            if SWIZZLE {
                super::swizzled(o, row_bytes)
            } else {
                o
            }
        };
        let per_thread = R * BK / epc / THREADS;
        let tile_full = r0 + R <= rows;
        if k_contig {
            let per_row = BK / epc;
            let (r, kk) = (r0 + tid / per_row, (tid % per_row) * epc);
            let step = THREADS / per_row;
            let last = r + (per_thread - 1) * step;
            PrecomputedCopy {
                base,
                src0: base.wrapping_add((r as u64 * ld + kk as u64) * eb),
                istep: step as u64 * ld * eb,
                kstep: BK as u64 * eb,
                dst0: place(((tid / per_row) * (BK + KPAD) + kk) * EB, BK * EB),
                dstep: step * (BK + KPAD) * EB,
                k_contig,
                r,
                kk,
                step,
                rows,
                k,
                vec,
                rows_full: last < rows,
                tile_full,
            }
        } else {
            let per_row = R / epc;
            let (kk, rr) = (tid / per_row, (tid % per_row) * epc);
            let r = r0 + rr;
            let step = THREADS / per_row;
            PrecomputedCopy {
                base,
                src0: base.wrapping_add((kk as u64 * ld + r as u64) * eb),
                istep: step as u64 * ld * eb,
                kstep: BK as u64 * ld * eb,
                dst0: place((kk * (R + RPAD) + rr) * EB, R * EB),
                dstep: step * (R + RPAD) * EB,
                k_contig,
                r,
                kk,
                step,
                rows,
                k,
                vec,
                rows_full: r + epc <= rows,
                tile_full,
            }
        }
    }

    /// The whole tile lies inside the matrix and may be copied 16 bytes at a time: a k-tile inside
    /// K can go through [`Self::issue_interior`]. The same in every thread of the block, so a
    /// mainloop may branch on it around its barriers (`bar.sync` wants a warp's threads at the
    /// same instruction).
    #[inline(always)]
    pub fn interior(&self) -> bool {
        self.vec && self.tile_full
    }

    /// Issues this thread's copies of k-tile `kt`, which lies inside K, into the operand tile at
    /// shared address `tile`: one `cp.async.cg … 16` per chunk and no branch, so that a mainloop
    /// made of these stays one basic block for ptxas to schedule.
    ///
    /// # Safety
    /// As [`Self::issue`], and [`Self::interior`] holds and `(kt + 1)·BK ≤ k`.
    #[inline(always)]
    pub unsafe fn issue_interior<const R: u32, const BK: u32, const THREADS: u32, const EB: u32>(
        &self,
        tile: u32,
        kt: u32,
    ) {
        let src = self.src0.wrapping_add(kt as u64 * self.kstep);
        self.chunks_16::<R, BK, THREADS, EB>(src, tile + self.dst0);
    }

    /// This thread's chunks of a k-tile inside K and the matrix, 16 bytes each, the first from
    /// global `src` to shared `dst`.
    ///
    /// # Safety
    /// As [`Self::issue_interior`], with `src` and `dst` this thread's first chunk of that k-tile.
    #[inline(always)]
    unsafe fn chunks_16<const R: u32, const BK: u32, const THREADS: u32, const EB: u32>(
        &self,
        mut src: u64,
        mut dst: u32,
    ) {
        for _ in 0..R * BK / (16 / EB) / THREADS {
            global_to_shared_cg_16(dst, src);
            src = src.wrapping_add(self.istep);
            dst += self.dstep;
        }
    }

    /// Issues this thread's copies of k-tile `kt` into the operand tile at shared address `tile`.
    ///
    /// # Safety
    /// `tile` must be an operand tile of the documented layout that nobody reads until the copies
    /// are awaited and a barrier passed; the operand must cover every in-bounds element.
    #[inline(always)]
    pub unsafe fn issue<const R: u32, const BK: u32, const THREADS: u32, const EB: u32>(
        &self,
        tile: u32,
        kt: u32,
    ) {
        let epc = 16 / EB;
        let per_thread = R * BK / epc / THREADS;
        let k0 = kt * BK;
        // (the addresses before the test: so ordered, ptxas allocates the CUDA-core 128×128
        // tiles' FFMA stream 6% faster in `nn` and `tt`; docs/kernel-log.md, session 25)
        let mut src = self.src0.wrapping_add(kt as u64 * self.kstep);
        let mut dst = tile + self.dst0;
        if self.vec && self.rows_full && k0 + BK <= self.k {
            self.chunks_16::<R, BK, THREADS, EB>(src, dst);
            return;
        }
        for i in 0..per_thread {
            let (r, kk) = if self.k_contig {
                (self.r + i * self.step, self.kk)
            } else {
                (self.r, self.kk + i * self.step)
            };
            let gk = k0 + kk;
            let left = if r >= self.rows || gk >= self.k {
                0
            } else if self.k_contig {
                self.k - gk
            } else {
                self.rows - r
            };
            let left = if left > epc { epc } else { left };
            if self.vec {
                let s = if left == 0 { self.base } else { src };
                global_to_shared_cg_16_zfill(dst, s, left * 16 / epc);
            } else if EB == 4 {
                for e in 0..4u32 {
                    let ok = e < left;
                    let s = if ok { src + 4 * e as u64 } else { self.base };
                    global_to_shared_ca_4_zfill(dst + 4 * e, s, if ok { 4 } else { 0 });
                }
            } else {
                for e in 0..8u32 {
                    let v = if e < left {
                        ld_global_nc_u16(src + 2 * e as u64)
                    } else {
                        0
                    };
                    st_shared_u16(dst + 2 * e, v);
                }
            }
            src = src.wrapping_add(self.istep);
            dst += self.dstep;
        }
    }
}
