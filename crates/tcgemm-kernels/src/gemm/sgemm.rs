//! CUDA-core SGEMM threadblock: `128×128×8` block tile, 256 threads, 8×8 f32 accumulators per thread,
//! two shared-memory stages with register-staged prefetch (global loads of tile `k+1` are in flight
//! while tile `k` is multiplied).
//!
//! Thread mapping. Warps form a 4 (M) × 2 (N) grid of `32×64` warp tiles. In a warp, lane
//! `l = 8·lrow + lcol` owns rows `{16·s + 4·lrow + i}` and columns `{32·s + 4·lcol + j}` (s ∈ {0,1},
//! i, j ∈ 0..4) of the warp tile: each `ld.shared.v4` of A touches 4 distinct 16-byte words and each
//! one of B 8 — one shared-memory wavefront each, no bank conflicts.
//!
//! Shared layout per stage: A as `BK × (128+4)` (k-major, so an A row fragment is contiguous), then B
//! as `BK × (128+4)`. The 4-float pad breaks the 2-way bank conflict of the transposing stores.
//!
//! Operand loads: each thread moves 4 elements of A and 4 of B per k-tile. An operand whose k index is
//! contiguous in memory (A not transposed, B transposed) loads 4 consecutive k of one row and stores
//! them transposed; an operand contiguous along M/N loads 4 consecutive rows of one k and stores them
//! as one vector. 16-byte loads are used when the host's `VEC_*` flag says base, ld and batch stride
//! allow them and the 4 elements are in bounds; otherwise predicated scalar loads fill zeros.

use super::{batch_bases, raster::tile_of_block};
use crate::arch::convert::fma_rn_f32;
use crate::arch::global::{
    ld_global_f32, ld_global_nc_f32, ld_global_nc_v4_f32, ld_global_v4_f32, st_global_f32,
    st_global_v4_f32,
};
use crate::arch::smem::{base, ld_shared_v4_f32, st_shared_f32, st_shared_v4_f32};
use crate::arch::sync::sync_threads;
use crate::params::{flags, GemmParams};

/// Block tile rows.
pub const BM: u32 = 128;
/// Block tile columns.
pub const BN: u32 = 128;
/// Block tile depth.
pub const BK: u32 = 8;
/// Floats per shared row (128 + 4 pad).
const SROW: u32 = 132;
/// Bytes of one operand tile in shared memory.
const TILE_BYTES: u32 = BK * SROW * 4;
/// Bytes of one pipeline stage (A tile then B tile).
const STAGE_BYTES: u32 = 2 * TILE_BYTES;
/// Dynamic shared memory the kernel needs (2 stages); must equal `config::KernelSpec::smem_bytes`.
pub const SMEM_BYTES: u32 = 2 * STAGE_BYTES;
const _: () = assert!(SMEM_BYTES == crate::config::SGEMM_SMEM);

/// One thread's share of an operand's tile loads (global → registers → shared).
struct OperandLoader {
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

impl OperandLoader {
    /// `base`: global address of the operand's batch item; `r0`: tile origin along M (A) or N (B);
    /// `rows`: m or n.
    #[inline(always)]
    fn new(base: u64, ld: u64, k_contig: bool, r0: u32, rows: u32, tid: u32, vec: bool) -> Self {
        if k_contig {
            // element (r, k) at base + (r·ld + k)·4; thread: row tid/2, k offset (tid%2)·4
            let r = tid / 2;
            let k_off = (tid % 2) * 4;
            let row = r0 + r;
            OperandLoader {
                addr: base.wrapping_add((row as u64 * ld + k_off as u64) * 4),
                step: BK as u64 * 4,
                k_contig,
                k_off,
                rows_left: (row < rows) as i32,
                vec,
                smem_off: (k_off * SROW + r) * 4,
            }
        } else {
            // element (r, k) at base + (k·ld + r)·4; thread: k offset tid/32, rows (tid%32)·4 ..+4
            let k_off = tid / 32;
            let r = (tid % 32) * 4;
            let row = r0 + r;
            OperandLoader {
                addr: base.wrapping_add((k_off as u64 * ld + row as u64) * 4),
                step: BK as u64 * ld * 4,
                k_contig,
                k_off,
                rows_left: rows as i32 - row as i32,
                vec,
                smem_off: (k_off * SROW + r) * 4,
            }
        }
    }

    /// Loads this thread's 4 elements of k-tile `kt` (zeros outside the matrix), then advances to
    /// k-tile `kt + 1` (tiles are loaded in order).
    ///
    /// # Safety
    /// The operand's extents (validated by the host) must cover every in-bounds element.
    #[inline(always)]
    unsafe fn load(&mut self, kt: u32, k: u32) -> [f32; 4] {
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
    /// `tile` must be a shared tile of `TILE_BYTES` no thread reads until the next barrier.
    #[inline(always)]
    unsafe fn store(&self, tile: u32, v: [f32; 4]) {
        let at = tile + self.smem_off;
        if self.k_contig {
            for (q, x) in v.iter().enumerate() {
                st_shared_f32(at + q as u32 * SROW * 4, *x);
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

/// Computes the block's output tile of batch item `z`.
///
/// # Safety
/// Must be launched with 256 threads, `SMEM_BYTES` of dynamic shared memory, the grid the host
/// derives from `config::KERNELS`, and `p` validated by the host (buffers cover every element).
#[inline(always)]
pub unsafe fn sgemm<const TRANS_A: bool, const TRANS_B: bool>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let smem = base();
    let warp = tid / 32;
    let lane = tid % 32;
    let a_row0 = (warp / 2) * 32 + (lane / 8) * 4;
    let b_col0 = (warp % 2) * 64 + (lane % 8) * 4;
    let ktiles = p.k.div_ceil(BK);

    {
        let (ga, gb, gc) = batch_bases(p, z, 4, 4);
        let mut la = OperandLoader::new(
            ga,
            p.lda,
            !TRANS_A,
            tile.m0,
            p.m,
            tid,
            p.flags & flags::VEC_A != 0,
        );
        let mut lb = OperandLoader::new(
            gb,
            p.ldb,
            TRANS_B,
            tile.n0,
            p.n,
            tid,
            p.flags & flags::VEC_B != 0,
        );

        let mut acc = [[0.0f32; 8]; 8];
        if ktiles > 0 {
            let va = la.load(0, p.k);
            let vb = lb.load(0, p.k);
            la.store(smem, va);
            lb.store(smem + TILE_BYTES, vb);
            sync_threads();
            let mut kt = 0;
            while kt < ktiles {
                let cur = smem + (kt & 1) * STAGE_BYTES;
                let next = smem + ((kt + 1) & 1) * STAGE_BYTES;
                let has_next = kt + 1 < ktiles;
                let (mut na, mut nb) = ([0.0f32; 4], [0.0f32; 4]);
                if has_next {
                    na = la.load(kt + 1, p.k);
                    nb = lb.load(kt + 1, p.k);
                }
                multiply_tile(&mut acc, cur, a_row0, b_col0);
                if has_next {
                    la.store(next, na);
                    lb.store(next + TILE_BYTES, nb);
                }
                sync_threads();
                kt += 1;
            }
        }
        epilogue(p, &acc, gc, tile.m0 + a_row0, tile.n0 + b_col0);
    }
}

/// `acc += A_tile · B_tile` for one shared stage: per k, two 4-float A fragments and two 4-float B
/// fragments, 64 FMAs.
#[inline(always)]
unsafe fn multiply_tile(acc: &mut [[f32; 8]; 8], stage: u32, a_row0: u32, b_col0: u32) {
    for kk in 0..BK {
        let a_at = stage + kk * SROW * 4 + a_row0 * 4;
        let b_at = stage + TILE_BYTES + kk * SROW * 4 + b_col0 * 4;
        let a0 = ld_shared_v4_f32(a_at);
        let a1 = ld_shared_v4_f32(a_at + 16 * 4);
        let b0 = ld_shared_v4_f32(b_at);
        let b1 = ld_shared_v4_f32(b_at + 32 * 4);
        let a = [a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3]];
        let b = [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]];
        for i in 0..8 {
            for j in 0..8 {
                acc[i][j] = fma_rn_f32(a[i], b[j], acc[i][j]);
            }
        }
    }
}

/// `C = alpha·acc + beta·C` for this thread's 8×8 (rows `row0 + {16s + i}`, columns
/// `col0 + {32s + j}`); C is not read when `BETA_ZERO`.
#[inline(always)]
unsafe fn epilogue(p: &GemmParams, acc: &[[f32; 8]; 8], gc: u64, row0: u32, col0: u32) {
    let beta_zero = p.flags & flags::BETA_ZERO != 0;
    let vec = p.flags & flags::VEC_C != 0;
    for (i, acc_row) in acc.iter().enumerate() {
        let row = row0 + (i as u32 / 4) * 16 + i as u32 % 4;
        if row >= p.m {
            continue;
        }
        let row_addr = gc.wrapping_add(row as u64 * p.ldc * 4);
        for s in 0..2u32 {
            let col = col0 + s * 32;
            let addr = row_addr.wrapping_add(col as u64 * 4);
            let mut v = [0.0f32; 4];
            for (q, x) in v.iter_mut().enumerate() {
                *x = p.alpha * acc_row[s as usize * 4 + q];
            }
            if vec && col + 4 <= p.n {
                if !beta_zero {
                    let c = ld_global_v4_f32(addr);
                    for q in 0..4 {
                        v[q] = fma_rn_f32(p.beta, c[q], v[q]);
                    }
                }
                st_global_v4_f32(addr, v);
            } else {
                for (q, x) in v.iter().enumerate() {
                    if col + (q as u32) < p.n {
                        let at = addr + 4 * q as u64;
                        let mut y = *x;
                        if !beta_zero {
                            y = fma_rn_f32(p.beta, ld_global_f32(at), y);
                        }
                        st_global_f32(at, y);
                    }
                }
            }
        }
    }
}
