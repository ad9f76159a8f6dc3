//! Global → shared copies of a k-contiguous f32 operand into an r-contiguous shared tile
//! (`smem[k][R + RPAD]`), one `cp.async.ca … 4` per element, every per-thread address and predicate
//! computed once per block.
//!
//! `cp.async` cannot transpose a 16-byte chunk, but it can place each 4-byte element on its own.
//! Thread `t` copies k indices `t % 8 + 8·j` (`j` in `0..BK/8`) of rows `t / 8 + i·THREADS/8`
//! (`i` in `0..8·R/THREADS`): per instruction a warp reads 4 rows × 8 consecutive floats (one
//! 32-byte sector each) and writes `4·k + r` (mod 32) = 32 distinct banks (rows `R + RPAD ≡ 4`
//! floats apart; ncu still counts one shared wavefront per 32-byte sector read, 4 per
//! instruction). A thread's k indices of one row are immediate offsets of one address, so an
//! interior k-tile costs one 64-bit add per row and one `cp.async` per element, with no registers
//! held while the copy is in flight.
//!
//! Edges: rows past the matrix and k past `k` are zero-filled (`src_bytes` 0, reading nothing).
//! f32 elements are 4-byte aligned in any view the host accepts, so there is no narrower fallback.

use crate::arch::cp_async::{global_to_shared_ca_4, global_to_shared_ca_4_zfill};

/// One thread's share of a k-contiguous operand's tile copies.
#[derive(Clone, Copy)]
pub struct TransposingCopy {
    /// Global address of the operand's batch item (a valid address for reads of 0 bytes).
    base: u64,
    /// Global address of this thread's first element at k-tile 0.
    src0: u64,
    /// Global bytes between this thread's rows (`THREADS/8` rows).
    istep: u64,
    /// Shared byte offset of the first element within an operand tile.
    dst0: u32,
    /// Global row (along M or N) and k offset within the tile of the first element (`t % 8`).
    r: u32,
    kk: u32,
    rows: u32,
    k: u32,
    /// Every element's row is inside the matrix.
    rows_full: bool,
}

impl TransposingCopy {
    /// Per-thread state for an `R × BK` tile at row `r0` of a k-contiguous operand with `rows`
    /// rows, inner dimension `k` and leading dimension `ld` (floats).
    #[inline(always)]
    pub fn new<const R: u32, const BK: u32, const RPAD: u32, const THREADS: u32>(
        base: u64,
        ld: u64,
        r0: u32,
        rows: u32,
        k: u32,
        tid: u32,
    ) -> Self {
        const { assert!(BK.is_multiple_of(8) && THREADS.is_multiple_of(32)) };
        const { assert!((8 * R).is_multiple_of(THREADS)) };
        let step = THREADS / 8;
        let (rr, kk) = (tid / 8, tid % 8);
        let r = r0 + rr;
        TransposingCopy {
            base,
            src0: base.wrapping_add((r as u64 * ld + kk as u64) * 4),
            istep: step as u64 * ld * 4,
            dst0: (kk * (R + RPAD) + rr) * 4,
            r,
            kk,
            rows,
            k,
            rows_full: r + (8 * R / THREADS - 1) * step < rows,
        }
    }

    /// Issues this thread's copies of k-tile `kt` into the operand tile at shared address `tile`.
    ///
    /// # Safety
    /// `tile` must be an `smem[BK][R + RPAD]` f32 tile that nobody reads until the copies are
    /// awaited and a barrier passed; the operand must cover every in-bounds element.
    #[inline(always)]
    pub unsafe fn issue<const R: u32, const BK: u32, const RPAD: u32, const THREADS: u32>(
        &self,
        tile: u32,
        kt: u32,
    ) {
        let step = THREADS / 8;
        let k0 = kt * BK;
        let mut src = self.src0.wrapping_add(k0 as u64 * 4);
        let mut dst = tile + self.dst0;
        // shared bytes between k indices 8 apart
        let kgroup = 8 * (R + RPAD) * 4;
        if self.rows_full && k0 + BK <= self.k {
            for _ in 0..8 * R / THREADS {
                for j in 0..BK / 8 {
                    global_to_shared_ca_4(dst + j * kgroup, src.wrapping_add(32 * j as u64));
                }
                src = src.wrapping_add(self.istep);
                dst += step * 4;
            }
            return;
        }
        for i in 0..8 * R / THREADS {
            let row_in = self.r + i * step < self.rows;
            for j in 0..BK / 8 {
                let ok = row_in && k0 + self.kk + 8 * j < self.k;
                let s = if ok {
                    src.wrapping_add(32 * j as u64)
                } else {
                    self.base
                };
                global_to_shared_ca_4_zfill(dst + j * kgroup, s, if ok { 4 } else { 0 });
            }
            src = src.wrapping_add(self.istep);
            dst += step * 4;
        }
    }
}
