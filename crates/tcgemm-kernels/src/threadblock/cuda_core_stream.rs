//! CUDA-core GEMM for a few rows of C that streams B from global memory straight into registers:
//! LLM decode (`m` ≤ 8), where each element of B (the weights) is read once for `2·m` flops, so
//! the call is bound by reading B and the kernel's job is to keep enough of it in flight.
//!
//! A block (8 warps) computes a `BM × BN` tile of C over the item's whole `k` (split-K, run by the
//! host as batch items, gives every SM blocks when the tiles are few). A is staged in shared memory
//! as f32 (`[m][k]`, zeros past `m` and `k`), `A_FLOATS / BM` k at a time; B never touches shared
//! memory: each lane loads 16-byte chunks of B (`V` = 8 16-bit or 4 f32 elements), `U` loads in
//! flight, widens them exactly to f32 and accumulates with `fma.rn.f32` (products exact, sums in
//! f32: at least the accuracy of the tensor-core paths with f32 accumulation).
//!
//! Thread mapping, by B's layout:
//! - **K-major B** (`nt`, `tt`: row `n` of B is contiguous along k): warp `w` owns the `R = BN/8`
//!   columns `n0 + w·R..`; its lanes step along k, lane `l` taking k `l·V..l·V+V` of every
//!   `32·V`-deep step, for `U` steps × `R` rows per batch of loads. The 32 lanes' sums of each
//!   (row, column) are added by a butterfly of shuffles (the same association in every lane).
//! - **N-major B** (`nn`, `tn`: row `k` of B is contiguous along n): warp `w` owns the rows
//!   `k ≡ w (mod 8)`, `U` rows per batch of loads. Eight rows of any leading dimension span a
//!   multiple of 16 bytes, and the tile's first column `n0` is a multiple of `BN = 31·V` (496
//!   bytes): all of a warp's rows start the tile the same `shift` elements past a 16-byte
//!   boundary. Lane `l` reads the row's `l`-th aligned chunk from the one holding column `n0`:
//!   the warp's window of `32·V` columns from `n0 − shift` holds the tile's `BN` columns at any
//!   shift, each load one aligned 16-byte access, nothing realigned. Each lane keeps its window
//!   columns that lie in the tile in the warp's partial tile in shared memory, and the 8 warps'
//!   partial tiles are added in warp order. (The tile had 32 chunks, each lane realigning its
//!   columns from two aligned loads: 1×50257×4096 f16 at 0.43× its aligned twin's speed on the
//!   same kernel; docs/unaligned-log.md, attempt 9.)
//!
//! Any alignment of A and B: a chunk of a K-major B or A whose start is not 16-byte aligned is
//! read as the two aligned chunks that hold it and realigned with funnel shifts (the shift is the
//! same for every lane of a row); chunks that would reach past the operand, and the tails of
//! rows, are read element by element. Every sum has a fixed order: results are bitwise
//! reproducible. Rows past `m`, columns past `n` are never stored.

use crate::config::GemmShape;
#[cfg(target_arch = "nvptx64")]
use {
    super::{batch_bases, raster::tile_of_block},
    crate::arch::convert::{bf16_to_f32, f16_to_f32, fma_rn_f32, funnel_shift_right},
    crate::arch::global::{ld_global_nc_u16, ld_global_nc_u32, ld_global_nc_v4_u32, to_global},
    crate::arch::smem::{base, ld_shared_f32, ld_shared_v4_f32, st_shared_f32, st_shared_v4_f32},
    crate::arch::sync::{sync_threads, warp_sum},
    crate::epilogue::{segment::store_segment, OutputElem},
    crate::params::GemmParams,
};

/// Threads of every stream kernel: 8 warps.
pub const THREADS: u32 = 256;
/// Warps of a block.
const WARPS: u32 = THREADS / 32;
/// 16-byte chunks of columns in the tile of an N-major B: one fewer than a warp's lanes, each of
/// which reads one aligned chunk of a row, so that the tile's columns lie in the warp's window
/// however far past a 16-byte boundary its rows start.
pub const N_MAJOR_CHUNKS: u32 = 31;
/// f32 of A a block stages at once, all its rows together (32 KiB).
const A_FLOATS: u32 = 8192;

/// Threads of a stream kernel ([`THREADS`], whatever the tile).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_stream::threads};
/// assert_eq!(threads(GemmShape::new(8, 32, 64), GemmShape::new(8, 4, 1)), 256);
/// ```
pub const fn threads(_block: GemmShape, _warp: GemmShape) -> u32 {
    THREADS
}

/// Depth of the chunk of A a `bm`-row tile stages at once: [`A_FLOATS`]` / bm`.
///
/// ```
/// use tcgemm_kernels::threadblock::cuda_core_stream::a_chunk;
/// assert_eq!((a_chunk(1), a_chunk(8)), (8192, 1024));
/// ```
pub const fn a_chunk(bm: u32) -> u32 {
    A_FLOATS / bm
}

/// Dynamic shared memory: the larger of A's chunk and the 8 warps' partial `BM × BN` tiles (the
/// N-major layout sums them at the end, over the chunk's space).
///
/// ```
/// use tcgemm_kernels::{config::GemmShape, threadblock::cuda_core_stream::smem_bytes};
/// assert_eq!(smem_bytes(GemmShape::new(1, 248, 64), 8), 32 * 1024);
/// assert_eq!(smem_bytes(GemmShape::new(8, 248, 64), 4), 8 * 8 * 248 * 4);
/// ```
pub const fn smem_bytes(block: GemmShape, _stages: u32) -> u32 {
    let partials = WARPS * block.m * block.n * 4;
    if partials > A_FLOATS * 4 {
        partials
    } else {
        A_FLOATS * 4
    }
}

/// Element `j` of a 16-byte chunk of `IN_BYTES`-byte elements, widened to f32 exactly.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn element<const IN_BYTES: u32, const IN_BF16: bool>(w: &[u32; 4], j: usize) -> f32 {
    if IN_BYTES == 4 {
        f32::from_bits(w[j])
    } else {
        let h = (w[j / 2] >> (16 * (j % 2))) as u16;
        if IN_BF16 {
            bf16_to_f32(h)
        } else {
            f16_to_f32(h)
        }
    }
}

/// The 16 bytes at `shift` (0..16) bytes into the 32 bytes `lo ‖ hi`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn realign(lo: [u32; 4], hi: [u32; 4], shift: u32) -> [u32; 4] {
    let w = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
    let (q, bits) = (shift / 4, 8 * (shift % 4));
    // t[i] = w[i + q]: selects, not an indexed array (which would live in local memory)
    let mut t = [0u32; 5];
    for (i, ti) in t.iter_mut().enumerate() {
        *ti = match q {
            0 => w[i],
            1 => w[i + 1],
            2 => w[i + 2],
            _ => w[i + 3],
        };
    }
    let mut out = [0u32; 4];
    for (i, o) in out.iter_mut().enumerate() {
        *o = funnel_shift_right(t[i], t[i + 1], bits);
    }
    out
}

/// A 16-byte chunk of elements as loaded ([`fetch`]): the aligned chunk `lo` at or below it and,
/// where the chunk is not 16-byte aligned (`shift` bytes past `lo`'s start), the next one, `hi`.
/// [`settle`] realigns it: after the loads of a whole batch are issued, so that no load waits for
/// another's data.
#[cfg(target_arch = "nvptx64")]
#[derive(Clone, Copy)]
struct Fetched {
    lo: [u32; 4],
    hi: [u32; 4],
    shift: u32,
}

#[cfg(target_arch = "nvptx64")]
impl Fetched {
    const ZERO: Fetched = Fetched {
        lo: [0; 4],
        hi: [0; 4],
        shift: 0,
    };
}

/// Loads the first `valid` (≤ `V`) elements from `addr` on, zeros after them. All `V` wanted: one
/// aligned 16-byte load, or the two aligned chunks that hold them when those end by `end` (the
/// first byte past the operand). Otherwise element by element (`shift` 0).
///
/// # Safety
/// `addr` is `IN_BYTES`-aligned, its first `valid` elements lie in the operand, and the operand
/// ends at `end`; the 16-byte chunk below `addr` lies in the operand's allocation (allocations
/// start 256-byte aligned).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn fetch<const IN_BYTES: u32>(addr: u64, valid: u32, end: u64) -> Fetched {
    let v = 16 / IN_BYTES;
    let down = addr & !15;
    let shift = (addr - down) as u32;
    if valid >= v && (shift == 0 || down + 32 <= end) {
        let lo = ld_global_nc_v4_u32(down);
        let hi = if shift == 0 {
            [0; 4]
        } else {
            ld_global_nc_v4_u32(down + 16)
        };
        return Fetched { lo, hi, shift };
    }
    let mut w = [0u32; 4];
    if IN_BYTES == 4 {
        for (j, wj) in w.iter_mut().enumerate() {
            if (j as u32) < valid {
                *wj = ld_global_nc_u32(addr + 4 * j as u64);
            }
        }
    } else {
        for j in 0..8u32 {
            if j < valid {
                let h = ld_global_nc_u16(addr + 2 * j as u64) as u32;
                w[(j / 2) as usize] |= h << (16 * (j % 2));
            }
        }
    }
    Fetched {
        lo: w,
        hi: [0; 4],
        shift: 0,
    }
}

/// The aligned 16-byte chunk at `chunk` of a row of an N-major B, holding the row's columns
/// `col..col + V` (`col` may be negative: the columns before the tile's first, which the window's
/// first lane holds). One load when the chunk ends by `end` (the first byte past the operand); else
/// element by element, the columns in `0..n` only, zeros for the others.
///
/// # Safety
/// `chunk` is 16-byte aligned and not below the 16-byte boundary at or below the operand's first
/// element (so where it ends by `end` it lies in the operand's allocation: allocations start
/// 256-byte aligned), and the row's columns `0..n` among `col..col + V` lie in the operand.
// The element-wise read is written out here and in `fetch`: one helper shared by both (element
// `j` where a closure says) moved ptxas's register allocation, and `f32_tn_1x124…_stream`
// spilled 24 B for sm_90 at its 64 registers (session 35).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn window_chunk<const IN_BYTES: u32>(chunk: u64, col: i64, n: u32, end: u64) -> [u32; 4] {
    if chunk + 16 <= end {
        return ld_global_nc_v4_u32(chunk);
    }
    let inside = |j: u32| (0..i64::from(n)).contains(&(col + i64::from(j)));
    let mut w = [0u32; 4];
    if IN_BYTES == 4 {
        for (j, wj) in w.iter_mut().enumerate() {
            if inside(j as u32) {
                *wj = ld_global_nc_u32(chunk + 4 * j as u64);
            }
        }
    } else {
        for j in 0..8u32 {
            if inside(j) {
                let h = ld_global_nc_u16(chunk + 2 * u64::from(j)) as u32;
                w[(j / 2) as usize] |= h << (16 * (j % 2));
            }
        }
    }
    w
}

/// The chunk [`fetch`] loaded, realigned.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn settle(f: &Fetched) -> [u32; 4] {
    if f.shift == 0 {
        f.lo
    } else {
        realign(f.lo, f.hi, f.shift)
    }
}

/// One past the last byte of an operand stored `rows × cols` (row-major, leading dimension `ld`)
/// in every one of `batch` items `stride` elements apart, from its global address `g`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn operand_end(g: u64, rows: u32, cols: u32, ld: u64, stride: u64, batch: u32, bytes: u64) -> u64 {
    let last = (batch.max(1) - 1) as u64 * stride
        + (rows.max(1) - 1) as u64 * ld
        + (cols.max(1) - 1) as u64;
    g + (last + 1) * bytes
}

/// Stages A's rows `m0..m0+BM` × k `kc0..kc0+a_chunk(BM)` of the batch item at `ga` into shared
/// memory at `smem` as f32 `[m][k]`, zeros past `m` and `k`.
///
/// # Safety
/// As [`gemm`]; every thread of the block calls it, between barriers.
#[cfg(target_arch = "nvptx64")]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn stage_a<const IN_BYTES: u32, const IN_BF16: bool, const TRANS_A: bool, const BM: u32>(
    p: &GemmParams,
    ga: u64,
    a_end: u64,
    m0: u32,
    kc0: u32,
    smem: u32,
    tid: u32,
) {
    let ib = IN_BYTES as u64;
    let v = 16 / IN_BYTES;
    let kc = a_chunk(BM);
    // batches of 4 loads, then their stores (A's loads come from L2; more in flight would cost
    // registers the accumulators hold)
    if TRANS_A {
        // A stored k × m: element by element, consecutive threads along m
        let mut h = 0;
        while h < A_FLOATS / THREADS {
            let mut x = [0.0f32; 4];
            unroll!(i in [0, 1, 2, 3] {
                let e = tid + (h + i) * THREADS;
                let (row, k) = (m0 + e % BM, kc0 + e / BM);
                if row < p.m && k < p.k {
                    let at = ga + (k as u64 * p.lda + row as u64) * ib;
                    let bits = if IN_BYTES == 4 {
                        ld_global_nc_u32(at)
                    } else {
                        ld_global_nc_u16(at) as u32
                    };
                    x[i as usize] = element::<IN_BYTES, IN_BF16>(&[bits, 0, 0, 0], 0);
                }
            });
            unroll!(i in [0, 1, 2, 3] {
                let e = tid + (h + i) * THREADS;
                st_shared_f32(smem + ((e % BM) * kc + e / BM) * 4, x[i as usize]);
            });
            h += 4;
        }
    } else {
        // A stored m × k: 16-byte pieces of V elements, consecutive threads along k
        let pieces_per_row = kc / v;
        let mut h = 0;
        while h < A_FLOATS / v / THREADS {
            let mut w = [Fetched::ZERO; 4];
            unroll!(i in [0, 1, 2, 3] {
                let e = tid + (h + i) * THREADS;
                let (row, k) = (m0 + e / pieces_per_row, kc0 + e % pieces_per_row * v);
                let valid = if row < p.m && k < p.k { (p.k - k).min(v) } else { 0 };
                let at = ga + (row as u64 * p.lda + k as u64) * ib;
                w[i as usize] = fetch::<IN_BYTES>(at, valid, a_end);
            });
            unroll!(i in [0, 1, 2, 3] {
                let e = tid + (h + i) * THREADS;
                let at = smem + ((e / pieces_per_row) * kc + e % pieces_per_row * v) * 4;
                let wi = &settle(&w[i as usize]);
                unroll!(g in [0, 4] {
                    if g < v {
                        let f = [
                            element::<IN_BYTES, IN_BF16>(wi, g as usize),
                            element::<IN_BYTES, IN_BF16>(wi, g as usize + 1),
                            element::<IN_BYTES, IN_BF16>(wi, g as usize + 2),
                            element::<IN_BYTES, IN_BF16>(wi, g as usize + 3),
                        ];
                        st_shared_v4_f32(at + g * 4, f);
                    }
                });
            });
            h += 4;
        }
    }
}

/// Computes the block's output tile of batch item `z` (see the module docs).
///
/// `O`: C's element; `IN_BYTES`, `IN_BF16`: the inputs' element (2 bytes: f16 or bf16; 4: f32);
/// `U`: loads in flight per lane (steps along k for a K-major B, rows for an N-major one).
///
/// One function on purpose, its loops written out by `unroll!` (a register array indexed in a
/// loop LLVM leaves rolled lives in local memory).
///
/// # Safety
/// Launched with [`THREADS`] threads, [`smem_bytes`] of dynamic shared memory, the host-derived
/// grid and validated parameters.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm<
    O: OutputElem,
    const IN_BYTES: u32,
    const IN_BF16: bool,
    const TRANS_A: bool,
    const TRANS_B: bool,
    const BM: u32,
    const BN: u32,
    const U: u32,
>(
    p: &GemmParams,
    tid: u32,
    bid: u32,
    z: u32,
) {
    const { assert!(IN_BYTES == 2 || IN_BYTES == 4) };
    const { assert!(BM == 1 || BM == 2 || BM == 4 || BM == 8) };
    const { assert!(U >= 1 && U <= 8) };
    // N-major: a window of one 16-byte chunk per lane holds the tile's 31 chunks of columns at
    // any shift; K-major: 4 columns per warp
    const { assert!(TRANS_B || BN == N_MAJOR_CHUNKS * (16 / IN_BYTES)) };
    const { assert!(!TRANS_B || BN == 4 * WARPS) };
    // a chunk of A holds whole warp steps along k
    const { assert!(a_chunk(BM).is_multiple_of(32 * (16 / IN_BYTES))) };
    let (tiles_m, tiles_n) = p.tiles(BM, BN);
    if bid >= tiles_m * tiles_n || z >= p.batch {
        return;
    }
    let tile = tile_of_block(bid, tiles_m, tiles_n, p.group_m, BM, BN);
    let ib = IN_BYTES as u64;
    let (ga, gb, gc) = batch_bases(p, z, ib, O::BYTES);
    // the last batch item is the deepest-placed; split-K's last slice is `split.last_k` deep
    let k_last = if p.split.c != 0 { p.split.last_k } else { p.k };
    let (a_rows, a_cols) = if TRANS_A {
        (k_last, p.m)
    } else {
        (p.m, k_last)
    };
    let (b_rows, b_cols) = if TRANS_B {
        (p.n, k_last)
    } else {
        (k_last, p.n)
    };
    let a_end = operand_end(
        to_global(p.a),
        a_rows,
        a_cols,
        p.lda,
        p.stride_a,
        p.batch,
        ib,
    );
    let b_end = operand_end(
        to_global(p.b),
        b_rows,
        b_cols,
        p.ldb,
        p.stride_b,
        p.batch,
        ib,
    );
    let v = 16 / IN_BYTES;
    let kc = a_chunk(BM);
    let smem = base();
    let warp = tid / 32;
    let lane = tid % 32;
    let mut acc = [[0.0f32; 8]; 8];

    if TRANS_B {
        // K-major B: warp `warp` owns columns n_w..n_w+4, lanes step along k
        let n_w = tile.n0 + warp * 4;
        let step = 32 * v;
        let mut kc0 = 0;
        while kc0 < p.k {
            sync_threads();
            stage_a::<IN_BYTES, IN_BF16, TRANS_A, BM>(p, ga, a_end, tile.m0, kc0, smem, tid);
            sync_threads();
            let depth = (p.k - kc0).min(kc);
            let steps = depth.div_ceil(step);
            let mut s = 0;
            while s < steps {
                let mut b = [[Fetched::ZERO; 4]; 8];
                unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7] {
                    if u < U {
                        let kl = (s + u) * step + lane * v;
                        unroll!(r in [0, 1, 2, 3] {
                            let n = n_w + r;
                            let valid = if n < p.n && kl < depth { (depth - kl).min(v) } else { 0 };
                            let at = gb + (n as u64 * p.ldb + (kc0 + kl) as u64) * ib;
                            b[u as usize][r as usize] = fetch::<IN_BYTES>(at, valid, b_end);
                        });
                    }
                });
                unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7] {
                    if u < U && s + u < steps {
                        let kl = (s + u) * step + lane * v;
                        let bu = [
                            settle(&b[u as usize][0]),
                            settle(&b[u as usize][1]),
                            settle(&b[u as usize][2]),
                            settle(&b[u as usize][3]),
                        ];
                        unroll!(m in [0, 1, 2, 3, 4, 5, 6, 7] {
                            if m < BM {
                                let at = smem + (m * kc + kl) * 4;
                                let mut a = [0.0f32; 8];
                                unroll!(g in [0, 4] {
                                    if g < v {
                                        let x = ld_shared_v4_f32(at + g * 4);
                                        a[g as usize..g as usize + 4].copy_from_slice(&x);
                                    }
                                });
                                unroll!(r in [0, 1, 2, 3] {
                                    let c = &mut acc[m as usize][r as usize];
                                    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
                                        if j < v {
                                            let bj = element::<IN_BYTES, IN_BF16>(&bu[r as usize], j as usize);
                                            *c = fma_rn_f32(a[j as usize], bj, *c);
                                        }
                                    });
                                });
                            }
                        });
                    }
                });
                s += U;
            }
            kc0 += kc;
        }
        // the 32 lanes' sums by a butterfly (every lane ends with the same total); lane m stores
        // row m's 4 columns
        unroll!(m in [0, 1, 2, 3, 4, 5, 6, 7] {
            if m < BM {
                let mut seg = [0.0f32; 4];
                unroll!(r in [0, 1, 2, 3] {
                    seg[r as usize] = warp_sum(acc[m as usize][r as usize]);
                });
                if lane == m {
                    store_segment::<O>(p, seg, gc, tile.m0 + m, n_w);
                }
            }
        });
    } else {
        // N-major B: warp `warp` the rows k ≡ warp (mod 8), whose first columns `tile.n0` lie
        // `shift` elements past a 16-byte boundary, the same for all of them; lane `lane` reads the
        // aligned chunk `lane` of each, columns `col..col + V` of the warp's window
        let first = gb + (u64::from(warp) * p.ldb + u64::from(tile.n0)) * ib;
        let shift = ((first & 15) / ib) as u32;
        // may be negative: columns before the tile, which the window's first lane reads and drops
        let col = tile.n0 as i64 + i64::from(lane * v) - i64::from(shift);
        let mut kc0 = 0;
        while kc0 < p.k {
            sync_threads();
            stage_a::<IN_BYTES, IN_BF16, TRANS_A, BM>(p, ga, a_end, tile.m0, kc0, smem, tid);
            sync_threads();
            let depth = (p.k - kc0).min(kc);
            let mut kl = warp;
            while kl < depth {
                let mut b = [[0u32; 4]; 8];
                unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7] {
                    let r = kl + WARPS * u;
                    if u < U && r < depth {
                        let row = gb + (u64::from(kc0 + r) * p.ldb + u64::from(tile.n0)) * ib;
                        let chunk = (row & !15) + u64::from(lane) * 16;
                        b[u as usize] = window_chunk::<IN_BYTES>(chunk, col, p.n, b_end);
                    }
                });
                unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7] {
                    let r = kl + WARPS * u;
                    if u < U && r < depth {
                        let bu = &b[u as usize];
                        unroll!(m in [0, 1, 2, 3, 4, 5, 6, 7] {
                            if m < BM {
                                let a = ld_shared_f32(smem + (m * kc + r) * 4);
                                unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
                                    if j < v {
                                        let c = &mut acc[m as usize][j as usize];
                                        *c = fma_rn_f32(a, element::<IN_BYTES, IN_BF16>(bu, j as usize), *c);
                                    }
                                });
                            }
                        });
                    }
                });
                kl += WARPS * U;
            }
            kc0 += kc;
        }
        // the warps' partial tiles [warp][m][BN] (each lane's window columns inside the tile),
        // over A's chunk, then summed in warp order
        sync_threads();
        unroll!(m in [0, 1, 2, 3, 4, 5, 6, 7] {
            if m < BM {
                unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
                    // the window's column `lane·V + j` (below 32·V = BN + V): the tile's column
                    // `at − shift` when that lies in 0..BN
                    let at = lane * v + j;
                    if j < v && at >= shift && at - shift < BN {
                        let to = smem + ((warp * BM + m) * BN + at - shift) * 4;
                        st_shared_f32(to, acc[m as usize][j as usize]);
                    }
                });
            }
        });
        sync_threads();
        let mut e = tid;
        while e < BM * BN / 4 {
            let (m, c) = (e / (BN / 4), 4 * (e % (BN / 4)));
            let at = smem + (m * BN + c) * 4;
            let mut sum = ld_shared_v4_f32(at);
            let mut w = 1;
            while w < WARPS {
                let x = ld_shared_v4_f32(at + w * (BM * BN * 4));
                for q in 0..4 {
                    sum[q] += x[q];
                }
                w += 1;
            }
            store_segment::<O>(p, sum, gc, tile.m0 + m, tile.n0 + c);
            e += THREADS;
        }
    }
}
