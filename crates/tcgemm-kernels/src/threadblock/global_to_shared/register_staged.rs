//! Global → registers → shared copies of f32 operand tiles, 4 elements per thread per k-tile.
//!
//! The caller loads k-tile `t+1` into registers ([`RegisterStagedCopy::load`]) before multiplying
//! tile `t` and stores it into the other shared stage afterwards ([`RegisterStagedCopy::store`]), so
//! the global loads are in flight during the multiply. Both operands are kept r-contiguous in shared
//! memory (`smem[k][R + PAD]`), so a thread's 4 consecutive rows (or columns)
//! of one k are one 16-byte shared load.
//!
//! Thread mapping of an `R × BK` tile (`R·BK = 4·THREADS`): an operand whose k index is contiguous
//! in memory (A not transposed, B transposed) gives each thread 4 consecutive k of one row
//! (`BK/4` threads per row), stored transposed; an operand contiguous along M/N gives each thread 4
//! consecutive rows of one k (`R/4` threads per k), stored as one vector. 16-byte loads are used
//! when the host's `VEC_*` flag says base, ld and batch stride allow them and the 4 elements are in
//! bounds; otherwise predicated scalar loads fill zeros.

use crate::arch::global::{ld_global_nc_f32, ld_global_nc_v4_f32};
use crate::arch::smem::{st_shared_f32, st_shared_v4_f32};

/// One thread's share of an `R × BK` operand tile kept in shared rows of `R + PAD` floats.
pub struct RegisterStagedCopy<const R: u32, const BK: u32, const PAD: u32> {
    /// Global address of this thread's first element at k-tile 0.
    addr: u64,
    /// Bytes to advance per k-tile.
    step: u64,
    /// The operand's k index is the contiguous one.
    k_contig: bool,
    /// k offset of this thread's elements within the k-tile.
    k_off: u32,
    /// k-contiguous: this thread's row exists. M/N-contiguous: elements left in the row from here.
    rows_left: i32,
    /// 16-byte loads allowed.
    vec: bool,
    /// Byte offset of this thread's first element within a shared operand tile.
    smem_off: u32,
}

impl<const R: u32, const BK: u32, const PAD: u32> RegisterStagedCopy<R, BK, PAD> {
    /// `base`: global address of the operand's batch item; `r0`: tile origin along M (A) or N (B);
    /// `rows`: m or n; `ld`: leading dimension (elements).
    #[inline(always)]
    pub fn new(
        base: u64,
        ld: u64,
        k_contig: bool,
        r0: u32,
        rows: u32,
        tid: u32,
        vec: bool,
    ) -> Self {
        if k_contig {
            // element (r, k) at base + (r·ld + k)·4; thread: row tid/(BK/4), k offset (tid%(BK/4))·4
            let r = tid / (BK / 4);
            let k_off = (tid % (BK / 4)) * 4;
            let row = r0 + r;
            RegisterStagedCopy {
                addr: base.wrapping_add((row as u64 * ld + k_off as u64) * 4),
                step: BK as u64 * 4,
                k_contig,
                k_off,
                rows_left: (row < rows) as i32,
                vec,
                smem_off: (k_off * (R + PAD) + r) * 4,
            }
        } else {
            // element (r, k) at base + (k·ld + r)·4; thread: k offset tid/(R/4), rows (tid%(R/4))·4 ..+4
            let k_off = tid / (R / 4);
            let r = (tid % (R / 4)) * 4;
            let row = r0 + r;
            RegisterStagedCopy {
                addr: base.wrapping_add((k_off as u64 * ld + row as u64) * 4),
                step: BK as u64 * ld * 4,
                k_contig,
                k_off,
                rows_left: rows as i32 - row as i32,
                vec,
                smem_off: (k_off * (R + PAD) + r) * 4,
            }
        }
    }

    /// Loads this thread's 4 elements of k-tile `kt` (zeros outside the matrix), then advances to
    /// k-tile `kt + 1` (tiles are loaded in order).
    ///
    /// # Safety
    /// The operand's extents (validated by the host) must cover every in-bounds element.
    #[inline(always)]
    pub unsafe fn load(&mut self, kt: u32, k: u32) -> [f32; 4] {
        let addr = self.addr;
        self.addr = self.addr.wrapping_add(self.step);
        let kbase = kt * BK + self.k_off;
        if self.k_contig {
            if self.rows_left <= 0 {
                return [0.0; 4];
            }
            if self.vec && kbase + 4 <= k {
                return ld_global_nc_v4_f32(addr);
            }
            // elements left along k from kbase (k ≥ 1; kbase may be past it)
            let left = k.saturating_sub(kbase);
            load4_pred(addr, left)
        } else {
            if kbase >= k {
                return [0.0; 4];
            }
            if self.vec && self.rows_left >= 4 {
                return ld_global_nc_v4_f32(addr);
            }
            let left = if self.rows_left > 0 {
                self.rows_left as u32
            } else {
                0
            };
            load4_pred(addr, left)
        }
    }

    /// Stores the 4 loaded elements into the shared operand tile at `tile`.
    ///
    /// # Safety
    /// `tile` must be a shared tile of `BK` rows of `R + PAD` floats no thread reads until the next
    /// barrier.
    #[inline(always)]
    pub unsafe fn store(&self, tile: u32, v: [f32; 4]) {
        let at = tile + self.smem_off;
        if self.k_contig {
            for (q, x) in v.iter().enumerate() {
                st_shared_f32(at + q as u32 * (R + PAD) * 4, *x);
            }
        } else {
            st_shared_v4_f32(at, v);
        }
    }
}

/// Loads the first `min(left, 4)` of 4 consecutive f32 at `addr` with scalar loads; zeros the rest.
///
/// # Safety
/// The first `min(left, 4)` elements must be readable.
#[inline(always)]
unsafe fn load4_pred(addr: u64, left: u32) -> [f32; 4] {
    let at = |q: u32| {
        if q < left {
            ld_global_nc_f32(addr + 4 * q as u64)
        } else {
            0.0
        }
    };
    [at(0), at(1), at(2), at(3)]
}
