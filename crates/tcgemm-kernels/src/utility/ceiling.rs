//! Instruction-ceiling microkernels: each thread (or warp) issues only the multiply-accumulate
//! instruction a GEMM path is built on, from registers, in 8 independent accumulator chains, so the
//! measured rate is the peak this GPU gives that instruction (the ceiling each GEMM kernel's figures
//! are compared with). `CeilingParams`: `trips` loop trips; each trip issues [`UNROLL`]·8
//! instructions per thread (FFMA) or per warp (MMA). Results are summed into `out[global thread]` so
//! no work is dead.

#[cfg(target_arch = "nvptx64")]
use {
    crate::arch::convert::fma_rn_f32,
    crate::arch::global::{st_global_f32, to_global},
    crate::arch::mma::{
        mma_m16n8k16_row_col_f32_bf16_bf16_f32, mma_m16n8k16_row_col_f32_f16_f16_f32,
        mma_m16n8k8_row_col_f32_tf32_tf32_f32,
    },
    crate::params::CeilingParams,
};

/// Rounds of 8 instructions per loop trip.
pub const UNROLL: u32 = 4;
/// Threads per block of every ceiling kernel.
pub const THREADS: u32 = 256;

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store(p: &CeilingParams, tid: u32, bid: u32, v: f32) {
    st_global_f32(
        to_global(p.out) + (bid as u64 * THREADS as u64 + tid as u64) * 4,
        v,
    );
}

/// `fma.rn.f32` only: 8 chains per thread, `v = v·x + y`.
///
/// # Safety
/// `p.out` holds one f32 per launched thread.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn ffma(p: &CeilingParams, tid: u32, bid: u32) {
    let (x, y) = (p.x, p.y);
    let mut a = [0.0f32; 8];
    for (j, v) in a.iter_mut().enumerate() {
        *v = (tid + j as u32) as f32 * 1e-3;
    }
    let mut i = 0;
    while i < p.trips {
        for _ in 0..UNROLL {
            for v in a.iter_mut() {
                *v = fma_rn_f32(*v, x, y);
            }
        }
        i += 1;
    }
    store(p, tid, bid, a.iter().sum());
}

/// An MMA ceiling body `$name` issuing `$mma`, operands derived from the seed.
macro_rules! mma_ceiling {
    ($(#[$doc:meta])* $name:ident, $mma:path) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `p.out` holds one f32 per launched thread.
        #[cfg(target_arch = "nvptx64")]
        #[inline(always)]
        pub unsafe fn $name(p: &CeilingParams, tid: u32, bid: u32) {
            let seed = p.seed ^ tid;
            let a = [seed, seed ^ 0x3c00_3c00, seed.rotate_left(7), seed.rotate_left(13)];
            let b = [seed.rotate_left(3), seed.rotate_left(11)];
            let mut acc = [[0.0f32; 4]; 8];
            let mut i = 0;
            while i < p.trips {
                for _ in 0..UNROLL {
                    for d in acc.iter_mut() {
                        $mma(d, a, b);
                    }
                }
                i += 1;
            }
            let mut s = 0.0f32;
            for d in acc.iter() {
                s += d[0] + d[1] + d[2] + d[3];
            }
            store(p, tid, bid, s);
        }
    };
}

mma_ceiling!(/// `mma.sync.m16n8k8` tf32 → f32 only: 8 accumulator tiles per warp.
    mma_tf32, mma_m16n8k8_row_col_f32_tf32_tf32_f32);
mma_ceiling!(/// `mma.sync.m16n8k16` f16 → f32 only: 8 accumulator tiles per warp.
    mma_f16, mma_m16n8k16_row_col_f32_f16_f16_f32);
mma_ceiling!(/// `mma.sync.m16n8k16` bf16 → f32 only: 8 accumulator tiles per warp.
    mma_bf16, mma_m16n8k16_row_col_f32_bf16_bf16_f32);
