//! Global → shared tile copies for 16-bit elements (f16, bf16), any layout, any tail.
//!
//! Same layouts as [`super::tile_io`]: a k-contiguous operand is kept as `smem[r][BK + PAD]`, an
//! r-contiguous one as `smem[k][R + PAD]` (PAD = 8 elements = 16 bytes: rows of 80 or 272 bytes put the
//! eight 16-byte rows an `ldmatrix` reads in eight distinct bank groups). Chunks are 8 elements
//! (16 bytes): `cp.async.cg … 16, src_bytes` zero-fills past the edge. When the host says 16-byte access
//! is not allowed, elements are moved one by one with `ld.global.nc.u16` + `st.shared.u16` (cp.async has
//! no 2-byte form); those complete before the barrier that publishes the stage.

use crate::arch::cp_async::global_to_shared_cg_16_zfill;
use crate::arch::global::ld_global_nc_u16;
use crate::arch::smem::st_shared_u16;

/// Geometry of one 16-bit operand's tile copy.
#[derive(Clone, Copy)]
pub struct TileCopy16 {
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

/// Shared byte offset of element `(r, k)` of a tile with `R` rows, depth `BK`, padding `PAD`.
#[inline(always)]
pub fn offset16<const R: u32, const BK: u32, const PAD: u32>(
    k_contig: bool,
    r: u32,
    k: u32,
) -> u32 {
    if k_contig {
        (r * (BK + PAD) + k) * 2
    } else {
        (k * (R + PAD) + r) * 2
    }
}

impl TileCopy16 {
    /// Issues this thread's copies of the k-tile starting at `k0` into the shared tile at `dst`.
    ///
    /// # Safety
    /// `dst` must be a shared tile of the documented layout that nobody reads until the copies are
    /// awaited and a barrier passed; the operand must cover all in-bounds elements.
    #[inline(always)]
    pub unsafe fn issue<const R: u32, const BK: u32, const PAD: u32>(
        &self,
        dst: u32,
        k0: u32,
        tid: u32,
        threads: u32,
    ) {
        let chunks = R * BK / 8;
        let mut c = tid;
        while c < chunks {
            let (r, kk) = if self.k_contig {
                (c / (BK / 8), (c % (BK / 8)) * 8)
            } else {
                ((c % (R / 8)) * 8, c / (R / 8))
            };
            let d = dst + offset16::<R, BK, PAD>(self.k_contig, r, kk);
            let gr = self.r0 + r;
            let gk = k0 + kk;
            let (off, left) = if self.k_contig {
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
            let left = if left > 8 { 8 } else { left };
            if self.vec {
                let src = if left == 0 {
                    self.base
                } else {
                    self.base.wrapping_add(off * 2)
                };
                global_to_shared_cg_16_zfill(d, src, left * 2);
            } else {
                let src = self.base.wrapping_add(off * 2);
                for e in 0..8u32 {
                    let v = if e < left {
                        ld_global_nc_u16(src + 2 * e as u64)
                    } else {
                        0
                    };
                    st_shared_u16(d + 2 * e, v);
                }
            }
            c += threads;
        }
    }
}
