//! Writer of a consumer warpgroup's `wgmma` accumulators through shared memory and TMA (sm_90a,
//! `beta == 0`, `flags::TMA_STORE_C`): the `64×WN` share of the tile goes out in chunks of 64 rows
//! × one 128-byte row of columns (64 16-bit or 32 f32 elements), each a box of C's tensor map
//! (`TmaParams::map_c`, 128-byte swizzle), stored by one bulk copy
//! (`cp.async.bulk.tensor … bulk_group`) while the consumer goes on to its next work unit.
//!
//! Thread `(w, g, q)` (warp `w` of the warpgroup, `g` = lane/4, `q` = lane%4) holds, for each
//! 8-column block `j`, columns `8j + 2q, +1` of rows `16w + g` and `+ 8` as `d[4j..4j+4]` (with A
//! from registers, TF32: rows `fragment_row(w, g)` and the next one; swapped, a tile of `Cᵀ`
//! that [`store_tile_transposed`] writes as C). A chunk
//! lands in one of the consumer's buffers of 8 KiB (two, taken in turn; one where the tile's
//! stages leave room for no more), laid out as TMA's 128-byte swizzle reads it: row `r` at
//! `128·r`, its 16-byte piece `x` at position `x ^ (r % 8)`. 16-bit output goes in by
//! `stmatrix.x4` (four 8×8 blocks per instruction, the accumulator fragment's own layout), f32
//! output by 8-byte stores; both are free of bank conflicts (eight consecutive rows put a piece in
//! eight positions).
//!
//! Per chunk: the warpgroup's first thread waits until the bulk copy that last read the buffer
//! (two chunks ago, or the last one with a single buffer; at a tile's first chunk every earlier
//! copy, a mainloop ago) is done reading it; a named barrier; every thread writes its part and
//! fences its writes for the async proxy; the barrier again; the first thread issues the copy and
//! commits it as a bulk group. TMA writes only the box's elements inside the tensor, so tails need
//! no code, but it writes whole 16-byte pieces of a row: C's rows must be whole pieces (the host's
//! rule). [`drain`] waits for every copy before the kernel ends.

use super::OutputElem;
use crate::arch::opaque::unhoisted;
use crate::arch::smem::st_shared_v2_f32;
use crate::arch::stmatrix::reg_to_shared_x4;
use crate::arch::sync::sync_named;
use crate::arch::tma;
use crate::warp::wgmma_register_a::fragment_row;

/// Rows of a chunk: a consumer's share of the tile (`wgmma.m64`).
const CHUNK_ROWS: u32 = 64;
/// Bytes of a chunk: [`CHUNK_ROWS`] rows of one 128-byte swizzle row.
pub const CHUNK_BYTES: u32 = CHUNK_ROWS * 128;

/// Stores `C = alpha·d` of the warpgroup's accumulators `d` (see the module docs; `ACC` = 128, 96,
/// 64, 32 or 16 for `m64n256`, `m64n192`, `m64n128`, `m64n64`, `m64n32` (f32 C only): shares of
/// whole chunks,
/// `threadblock::tma_warp_specialized::whole_c_chunks`) as the box of C's map at column `col0`,
/// row `row0`, batch coordinate `z` and the boxes to its right. `(bufs, buffers)`: the consumer's
/// shared memory (1024-byte aligned) and how many chunk buffers of [`CHUNK_BYTES`] it holds (2 or
/// 1; a constant); `barrier` a named barrier of its 128 threads alone, and `t` the thread's index
/// in the warpgroup. `PAIRED_ROWS`: the accumulators of a register-sourced A
/// (`warp::wgmma_register_a`, f32 output only), whose thread holds rows `fragment_row(w, g)` and
/// the next one in place of `16w + g` and `+ 8`.
///
/// # Safety
/// Executed convergently by all 128 threads of one warpgroup. `map_c` returns the generic address
/// of C's tensor map (called by the issuing thread where it issues), encoded for `O` with boxes of
/// 128 bytes × 64 rows and the 128-byte swizzle over rows of whole 16-byte pieces; `bufs` is
/// shared memory no other thread touches.
#[inline(always)]
pub unsafe fn store_tile<O: OutputElem, const ACC: usize, const PAIRED_ROWS: bool>(
    d: &[f32; ACC],
    alpha: f32,
    map_c: impl Fn() -> u64,
    (bufs, buffers): (u32, u32),
    barrier: u32,
    t: u32,
    (col0, row0, z): (u32, u32, u32),
) {
    // (72, `m64n144`, is instantiated but never called: its share is not whole chunks; nor is 16,
    // `m64n32`, with a 16-bit C: 64 bytes of columns)
    const {
        assert!(
            ACC == 128 || ACC == 96 || ACC == 72 || ACC == 64 || ACC == 32 || ACC == 16,
            "wgmma widths: m64n256, m64n192, m64n144, m64n128, m64n64, m64n32"
        )
    };
    const {
        assert!(
            !PAIRED_ROWS || O::IS_F32,
            "register-sourced A: TF32, f32 output"
        )
    };
    // columns per chunk, and chunks of the warpgroup's 64 × 2·ACC share
    let cols = 128 / O::BYTES as u32;
    let chunks = 2 * ACC as u32 / cols;
    // (computed here, not before the caller's mainloop)
    let t = unhoisted(t);
    let (w, lane) = (t / 32, t % 32);
    // The thread's address in a buffer at its first 16-byte piece; piece `x` of the same row is
    // then at `at ^ 16·x` (the row is 128-byte aligned, the swizzle an XOR of the piece index).
    // 16-bit output, `stmatrix.x4` over the blocks `jj`, `jj + 1` (even `jj`) of a chunk: lane `l`
    // gives row `l % 8` of matrix `l / 8` (8 rows down for matrices 1 and 3, block `jj + 1` for 2
    // and 3), its piece `(jj + (l / 16) % 2) ^ (l % 8)`. f32 output: row `16w + l / 4` and 8 below
    // it, piece `(2·jj + q / 2) ^ (l / 4)` of block `jj` (`q` = `l % 4`), 8 bytes in for odd `q`.
    // Paired rows `r`, `r + 1` (`r` even): row `r`'s place as above (piece `(q / 2) ^ (r % 8)`);
    // row `r + 1` is a row further and its piece's lowest bit flipped (`q / 2`, as `r` is even),
    // which `^ 32·jj` leaves alone: `128 + 16` ahead for `q < 2`, `128 − 16` for the others.
    let at = if PAIRED_ROWS {
        let (r, q) = (fragment_row(w, lane / 4), lane % 4);
        128 * r + 16 * ((q / 2) ^ (r % 8)) + 8 * (q & 1)
    } else if O::IS_F32 {
        let (g, q) = (lane / 4, lane % 4);
        128 * (16 * w + g) + 16 * ((q / 2) ^ g) + 8 * (q & 1)
    } else {
        let r = lane % 8;
        128 * (16 * w + r + 8 * ((lane / 8) & 1)) + 16 * (((lane / 16) & 1) ^ r)
    };
    let place = |ch: u32| (col0 + ch * cols, row0, z);
    let write = |ch: u32, buf: u32| {
        if O::IS_F32 {
            unroll!(jj in [0, 1, 2, 3] {
                let i = 4 * (4 * ch + jj) as usize;
                let a = buf ^ (32 * jj);
                st_shared_v2_f32(a, [d[i] * alpha, d[i + 1] * alpha]);
                // the second row: 8 below, or (paired rows) the next one
                let a2 = if PAIRED_ROWS {
                    a + 144 - 32 * ((lane % 4) / 2)
                } else {
                    a + 8 * 128
                };
                st_shared_v2_f32(a2, [d[i + 2] * alpha, d[i + 3] * alpha]);
            });
        } else {
            unroll!(jj in [0, 2, 4, 6] {
                let i = 4 * (8 * ch + jj) as usize;
                let v = [
                    O::pack(d[i] * alpha, d[i + 1] * alpha),
                    O::pack(d[i + 2] * alpha, d[i + 3] * alpha),
                    O::pack(d[i + 4] * alpha, d[i + 5] * alpha),
                    O::pack(d[i + 6] * alpha, d[i + 7] * alpha),
                ];
                reg_to_shared_x4(buf ^ (16 * jj), v);
            });
        }
    };
    store_chunks(
        chunks,
        (bufs, buffers),
        at,
        (barrier, t),
        map_c,
        place,
        write,
    );
}

/// [`store_tile`] for a swapped register-sourced A (`Cᵀ = Bᵀ·Aᵀ`, f32 output): the consumer's
/// `64×2·ACC` share of a tile of `Cᵀ` is a `2·ACC×64` share of C, stored transposed as chunks of
/// 64 rows × 32 columns of C (`ch / 2`: the rows, `Cᵀ`'s columns `64·(ch / 2)..`; `ch % 2`: the
/// columns, `Cᵀ`'s rows `32·(ch % 2)..`). Thread `(w, g, q)` holds `Cᵀ` rows `r =
/// fragment_row(w, g)` and `r + 1` of columns `8j + 2q, +1`: C's rows `8j + 2q, +1` at columns
/// `r, r + 1`, two 8-byte stores per block `j` into the chunk of columns `r / 32`: only the two
/// warps holding a chunk's columns (`2·(ch % 2)` and the next) write it, and a warp's store (four
/// rows `2q`, or `2q + 1`, by its eight column pairs) meets every bank twice: two wavefronts, no
/// conflicts. `(col0, row0, z)`: C's column of the share's first `Cᵀ` row, C's row of its first
/// `Cᵀ` column, the batch coordinate.
///
/// # Safety
/// As [`store_tile`]; `map_c` is C's own map (its columns are the swapped problem's `m`).
#[inline(always)]
pub unsafe fn store_tile_transposed<const ACC: usize>(
    d: &[f32; ACC],
    alpha: f32,
    map_c: impl Fn() -> u64,
    (bufs, buffers): (u32, u32),
    barrier: u32,
    t: u32,
    (col0, row0, z): (u32, u32, u32),
) {
    // chunks: 2·ACC rows of C in 64-row blocks, 64 columns in two halves of 32
    let chunks = 2 * ACC as u32 / 32;
    let t = unhoisted(t);
    let (w, lane) = (t / 32, t % 32);
    let (g, q) = (lane / 4, lane % 4);
    let r = fragment_row(w, g);
    // the thread's place in a chunk at row `row` (column `r % 32`, swizzled by the row)
    let at = |row: u32| 128 * row + 16 * (((r % 32) / 4) ^ (row % 8)) + 4 * (r % 4);
    let (even, odd) = (at(2 * q), at(2 * q + 1));
    // chunk `ch`: C's columns `col0 + 32·(ch % 2)..`, rows `row0 + 64·(ch / 2)..`
    let place = |ch: u32| (col0 + 32 * (ch % 2), row0 + 64 * (ch / 2), z);
    let write = |ch: u32, buf: u32| {
        if r / 32 == ch % 2 {
            unroll!(jl in [0, 1, 2, 3, 4, 5, 6, 7] {
                let i = 4 * (8 * (ch / 2) + jl) as usize;
                let row8 = buf + 1024 * jl;
                st_shared_v2_f32(row8 + even, [d[i] * alpha, d[i + 2] * alpha]);
                st_shared_v2_f32(row8 + odd, [d[i + 1] * alpha, d[i + 3] * alpha]);
            });
        }
    };
    store_chunks(
        chunks,
        (bufs, buffers),
        0,
        (barrier, t),
        map_c,
        place,
        write,
    );
}

/// The chunk protocol of [`store_tile`] and [`store_tile_transposed`] (module docs): for each of
/// the `chunks` (≤ 8; a constant after inlining) chunks `ch`, its buffer (`ch % buffers` of
/// `bufs`) free again, `write(ch, buf)` by every thread (`buf`: the buffer's address plus the
/// thread's offset `at`), the bulk copy of the buffer to C's box at `place(ch)` (column, row,
/// batch coordinate). `barrier`: the warpgroup's named barrier; `t`: the thread's index in it.
///
/// # Safety
/// As [`store_tile`]; `write` writes only the chunk's buffer.
#[inline(always)]
unsafe fn store_chunks(
    chunks: u32,
    (bufs, buffers): (u32, u32),
    at: u32,
    (barrier, t): (u32, u32),
    map_c: impl Fn() -> u64,
    place: impl Fn(u32) -> (u32, u32, u32),
    write: impl Fn(u32, u32),
) {
    // unrolled, guarded by the chunk count (a constant): the accumulators must stay in registers
    unroll!(ch in [0, 1, 2, 3, 4, 5, 6, 7] {
        if ch < chunks {
            // (`unhoisted`: each chunk computes its addresses from this anew, rather than the
            // compiler keeping eight of them in registers for the next chunk in the buffer)
            let buf = unhoisted(bufs + (ch % buffers) * CHUNK_BYTES + at);
            if t == 0 {
                // the copy that last read this buffer has read it: two chunks ago (the last one
                // with a single buffer), or at the tile's first chunk any earlier one (a tile may
                // have an odd count of chunks)
                if ch == 0 || buffers == 1 {
                    tma::bulk_wait_group_read::<0>();
                } else {
                    tma::bulk_wait_group_read::<1>();
                }
            }
            sync_named(barrier, 128);
            write(ch, buf);
            // this thread's generic-proxy writes before the bulk copy (async proxy) reads them
            tma::fence_proxy_async_shared();
            sync_named(barrier, 128);
            if t == 0 {
                let (x, y, z) = place(ch);
                tma::shared_to_global_3d(map_c(), x, y, z, buf - at);
                tma::bulk_commit_group();
            }
        }
    });
}

/// Waits until the warpgroup's bulk copies of C are complete, before the kernel ends and its shared
/// memory is released: called by the threads of each consumer warpgroup that stored with
/// [`store_tile`] or [`store_tile_transposed`] (`t`: the index in the warpgroup; only the first
/// thread issued copies, so only it waits).
///
/// # Safety
/// None beyond the bulk copies' own contract.
#[inline(always)]
pub unsafe fn drain(t: u32) {
    if t == 0 {
        tma::bulk_wait_group::<0>();
    }
}
