//! Strided matrix copies (`config::Family::CopyRows`): `batch` items of `rows × cols` elements from
//! one layout (leading dimension, batch stride, base) into another. The host stages an operand
//! whose base, leading dimension or batch stride is not a multiple of 16 bytes into a packed,
//! aligned copy (and a staged C back into the caller's), so the GEMM runs on the kernels that need
//! 16-byte alignment (`src/staging.rs`).
//!
//! Parameters (`CopyParams`). Block `y` takes the `y`-th segment of 32·`UNROLL` elements of every
//! row; one warp per row, grid-stride along x over the `batch · rows` rows. Each lane moves
//! elements `lane + 32·j` of its segment, all loads issued before the stores. Accesses are one
//! element wide (2 or 4 bytes): coalesced across the warp whatever the alignment of either side.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::global::{
        ld_global_nc_u16, ld_global_nc_u32, st_global_u16, st_global_u32, to_global,
    },
    crate::params::CopyParams,
};

/// Threads per block of the copy kernels.
pub const THREADS: u32 = 256;

/// Elements a lane loads before storing them.
pub const UNROLL: usize = 16;

/// Elements of a row one block `y` index covers (a warp's segment).
pub const SEGMENT: u64 = 32 * UNROLL as u64;

/// Copies `p.batch` items of `p.rows × p.cols` elements of `BYTES` (2 or 4) bytes each.
///
/// # Safety
/// Every element of the source layout lies in a readable buffer that no thread writes during the
/// kernel, every element of the destination layout in a writable one, the two do not overlap, and
/// both are aligned to `BYTES`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn copy<const BYTES: u32>(p: &CopyParams, tid: u32, bid: u32, grid: u32, seg: u32) {
    let (src, dst) = (to_global(p.src), to_global(p.dst));
    let bytes = u64::from(BYTES);
    let warps = u64::from(THREADS / 32);
    let lane = u64::from(tid % 32);
    let rows_total = p.batch * p.rows;
    let step_rows = u64::from(grid) * warps;
    let mut row = u64::from(bid) * warps + u64::from(tid / 32);
    let c0 = u64::from(seg) * SEGMENT;
    if row >= rows_total || p.rows == 0 || c0 >= p.cols {
        return;
    }
    // (item, r) of `row`, advanced by `step_rows` without dividing again
    let (mut item, mut r) = (row / p.rows, row % p.rows);
    let (step_items, step_r) = (step_rows / p.rows, step_rows % p.rows);
    // the lane's first element of the segment, and how many of its UNROLL elements lie in the row
    let c = c0 + lane;
    let valid = if c < p.cols {
        (p.cols - c).div_ceil(32).min(UNROLL as u64) as usize
    } else {
        0
    };
    // bytes between a lane's consecutive elements
    let step = 32 * bytes;
    while row < rows_total {
        // the lane's element j is `j·step` bytes past these: constant offsets from one address
        let s_lane = src + (item * p.src_stride + r * p.src_ld + c) * bytes;
        let d_lane = dst + (item * p.dst_stride + r * p.dst_ld + c) * bytes;
        let mut v = [0u32; UNROLL];
        let mut j = 0;
        while j < UNROLL {
            if j < valid {
                let at = s_lane + j as u64 * step;
                v[j] = if BYTES == 2 {
                    u32::from(ld_global_nc_u16(at))
                } else {
                    ld_global_nc_u32(at)
                };
            }
            j += 1;
        }
        let mut j = 0;
        while j < UNROLL {
            if j < valid {
                let at = d_lane + j as u64 * step;
                if BYTES == 2 {
                    st_global_u16(at, v[j] as u16);
                } else {
                    st_global_u32(at, v[j]);
                }
            }
            j += 1;
        }
        row += step_rows;
        item += step_items;
        r += step_r;
        if r >= p.rows {
            r -= p.rows;
            item += 1;
        }
    }
}
