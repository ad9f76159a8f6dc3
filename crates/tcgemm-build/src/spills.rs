//! The kernels allowed to spill or keep a stack frame, and why ([`SPILLS_ALLOWED`]): every other
//! kernel's `ptxas -v` report must show neither ([`crate::ptxas`] reads the reports).
//!
//! This file depends only on `tcgemm_kernels`, so the host crate's `tests/ptxas_report.rs`
//! includes it with `#[path]`, beside `ptxas.rs`.

use tcgemm_kernels::config::{Elem, Family, KernelSpec, Math};

/// Kernels allowed to spill, and why (measured, or read in the SASS where no such device is here).
#[derive(Clone, Copy, Debug)]
pub struct SpillAllowance {
    /// Which kernels (by their records: names live in the catalog only).
    pub kernel: fn(&KernelSpec) -> bool,
    /// How many kernels of the catalog `kernel` names (a test checks it, so an allowance never
    /// covers a kernel added later by accident).
    pub count: usize,
    /// Most bytes of spill stores, of spill loads and of stack frame, each (ptxas versions differ).
    pub max_bytes: u32,
    /// Why the spill is kept: what it was measured against.
    pub why: &'static str,
}

/// The kernels allowed to spill: every other one must have neither spills nor a stack frame.
pub const SPILLS_ALLOWED: &[SpillAllowance] = &[
    SpillAllowance {
        kernel: |k| {
            k.family == Family::CudaCore
                && (k.block.m, k.block.n) == (128, 128)
                && !k.trans_a
                && k.trans_b
        },
        count: 1,
        max_bytes: 16,
        why: "the 128x128 tile's 2 blocks/SM cap registers at 128, and `nt` copies both operands \
              element by element (two `TransposingCopy` states): ptxas 12.9 for sm_80 stores one \
              value (the thread's tile offset, for the epilogue) before the k-loop and loads it \
              once after it (SASS: 1 STL, 1 LDL per thread); for sm_86, sm_89 and sm_90 it does \
              not spill, nor do the other CUDA-core layouts and tiles",
    },
    SpillAllowance {
        kernel: |k| tf32_w64x64(k) && k.block.n == 256 && k.trans_a && k.trans_b,
        count: 1,
        max_bytes: 16,
        why: "the TF32 128x256 `tt` tile (A stored M-major, its fragment pairs 8-byte loads of \
              permuted rows; fragments double-buffered, 254 registers): ptxas 12.9 spills 8 B on \
              sm_80 to sm_89, none on sm_90, stored once and reloaded once per k-tile (as before \
              the k-contiguous tiles were swizzled, when it spilled 32 B there and 8 B on sm_90; \
              docs/kernel-log.md, sessions 41 and 45). Measured faster than the single-buffered \
              loop without spills: 166.3 against 112.6-127.1 TFLOPS at 4096^3 (H200, session \
              21). The `nn`, `tn` and `nn_swap` 128x256 tiles no longer spill",
    },
    SpillAllowance {
        kernel: |k| tf32_w64x64(k) && k.block.n == 256 && k.swap_ab,
        count: 1,
        max_bytes: 16,
        why: "the TF32 128x256 `nn_swap` tile as the `sm_90` module builds it (one \
              `cvt.rn.tf32.f32` per operand; 254 registers): ptxas 12.9 spills 16 B, two 64-bit \
              copy addresses (SASS: 2 `STL.64` at the top of the steady loop, 2 `LDL.64` before \
              their copies, per k-tile of 128 `HMMA` in 399 instructions, against 617 without \
              a spill in the `sm_80` module's build). Measured against that build: 1.13x at \
              4096^3, 1.08x at 8192^3 (H200, docs/kernel-log.md, sessions 61 and 63)",
    },
    SpillAllowance {
        kernel: |k| tf32_w64x64(k) && k.block.n == 128 && k.trans_a && !k.trans_b,
        count: 1,
        max_bytes: 16,
        why: "the TF32 128x128 `tn` tile on 64x64 warp tiles (4 warps, 2 blocks/SM, fragments \
              double-buffered, 255 registers; both operands r-contiguous): ptxas 12.9 spills 8 B \
              on every architecture (SASS, sm_90: 1 `STL.64` + 1 `LDL.64` per k-tile). Measured \
              faster than the same tile on 64x32 warp tiles (8 warps, 128 registers, no spill; \
              kept for element-wise copies): 1.28-1.49x at 3072^3 in every layout, both forced \
              in one run (H200; docs/kernel-log.md, session 43). Its `tt` and `nn_swap` \
              siblings no longer spill since the k-contiguous tiles are swizzled (session 45)",
    },
    SpillAllowance {
        kernel: |k| tf32_w64x64(k) && k.block.n == 128 && !k.trans_a && k.trans_b,
        count: 1,
        max_bytes: 16,
        why: "the TF32 128x128 `nt` tile on 64x64 warp tiles (both operands k-contiguous, \
              swizzled; 255 registers): ptxas 12.9 spills 12 B stores, 16 B loads on sm_80 to \
              sm_89 since the swizzle (none before), none on sm_90, which the H200 runs. SASS \
              (sm_80): 2 `STL` + 2 `LDL` per k-tile in the 584-instruction steady loop of 128 \
              `HMMA`, none in the others. Not measured on an sm_80 device (none here); the \
              swizzle's gain was measured on the H200 (docs/kernel-log.md, session 45)",
    },
    SpillAllowance {
        kernel: |k| {
            k.family == Family::MmaSyncMultistage
                && k.math != Math::MmaTf32
                && (k.warp.m, k.warp.n, k.block.k) == (64, 64, 64)
        },
        count: 2,
        max_bytes: 96,
        why: "the 64-deep 16-bit `nt` 128x256 tiles (f16 and bf16 C; 64x64 warp tiles, \
              fragments double-buffered, 254 registers): ptxas 12.9 spills 48 B stores, 96 B \
              loads on sm_80 to sm_89, none on sm_90. SASS (sm_80): 6 `STL`, 12 `LDL` per k-tile \
              in the loop of edge k-tiles (bounded or element-wise copies), none in the steady \
              loop or the last k-tiles' (no copies). Measured 1.10-1.14x the unspilled 32-deep \
              tile on every `nt` row of the force_sm80 suite (2048^3 to 8192^3, prefill shapes) \
              on the H200, which runs the sm_90 code (docs/kernel-log.md, session 44)",
    },
    SpillAllowance {
        kernel: |k| k.math == Math::MmaTf32x3 && k.block.n == 192,
        count: 1,
        max_bytes: 64,
        why: "the 128x192 3xTF32 tile's consumers hold 2 x 96 accumulators of their 232 \
              registers: ptxas 12.9 spilled 44 B (24 B loads, 28 B stack) of tile counts and \
              schedule state, stored and reloaded once per work item, none in the k-loop (SASS); \
              with the epilogue that stores C by TMA compiled in, 20 B stores, 40 B loads, 16 B \
              stack (not disassembled). The tile runs up to 1.3x the unspilled 128x128 one \
              (H200; docs/f32-log.md)",
    },
    SpillAllowance {
        kernel: |k| k.math == Math::MmaTf32x3 && k.block.n == 128 && k.block.m == 128,
        count: 1,
        max_bytes: 16,
        why: "the 128x128 3xTF32 tile's consumers hold 2 x 64 accumulators: with the epilogue \
              that stores C by TMA compiled in, ptxas 12.9 spills 4 B (12 B loads, 8 B stack); \
              without that branch it does not (docs/hopper-log.md, session 28)",
    },
    SpillAllowance {
        kernel: |k| stream(k) && k.input == Elem::F32 && k.block.m == 1 && !k.trans_a,
        count: 1,
        max_bytes: 80,
        why: "the f32 `nn` 1x124 stream tile at 4 blocks/SM (64 registers, so that 406 tiles of \
              a 50257-column weight fit one wave): ptxas 12.9 spills 48-64 B (sm_80 to sm_90). \
              The SASS (sm_90) stores 9 values before the loops and loads them in the staging of \
              A by 16-byte pieces, once per pass of the outer loop (8192 k of A), none in the \
              k-loop; the `tn` tile, whose A is read element by element, does not spill. \
              Measured at 96% of the bandwidth floor on 1x50257x4096 (docs/unaligned-log.md, \
              attempt 10)",
    },
    SpillAllowance {
        kernel: |k| {
            stream(k) && (k.block.m, k.block.n) == (4, 32) && k.trans_a && k.output != Elem::F32
        },
        count: 2,
        max_bytes: 8,
        why: "the 16-bit-output `tt` 4x32 stream tiles: ptxas 12.9 spills 4 B in their sm_86 \
              and sm_89 code only; the SASS (sm_86) stores one value before the k-loop and loads \
              it once after it (docs/kernel-log.md, session 33)",
    },
    SpillAllowance {
        kernel: |k| {
            stream(k) && (k.block.m, k.block.n) == (4, 32) && k.trans_a && k.output == Elem::F32
        },
        count: 2,
        max_bytes: 32,
        why: "the f32-output `tt` 4x32 stream tiles: ptxas 12.9 spills 28 B in their sm_86 and \
              sm_89 code only (the sm_80 and sm_90 code of the same PTX, which the H200 runs, \
              does not); the SASS (sm_86) stores 7 values before the loops and loads 6 of them \
              once per pass of the outer loop, none in the inner k-loop. Not measured: no sm_86 \
              or sm_89 device here (docs/kernel-log.md, session 33)",
    },
    SpillAllowance {
        kernel: |k| {
            k.family == Family::CudaCoreMultistage
                && (k.block.m, k.block.n) == (32, 128)
                && k.trans_a
                && !k.trans_b
        },
        count: 1,
        max_bytes: 32,
        why: "the FP32 32x128 `tn` tile (256 threads, 2 blocks/SM: 128 registers): ptxas 12.9 \
              spills 28 B in its sm_86 and sm_89 code only (the sm_80 and sm_90 code, which the \
              H200 runs, does not); the SASS (sm_86) loads 3 of the values in the k-loop. At \
              1 block/SM (as `nn`, `nt`) it would not spill, but that bound is one for every \
              architecture, and the tile's H200 speed was measured at 2. Not measured on an \
              sm_86 or sm_89 device (none here; docs/kernel-log.md, session 33)",
    },
    SpillAllowance {
        kernel: |k| k.family == Family::TmaRegisterA && k.block.n == 128 && k.trans_a && k.trans_b,
        count: 1,
        max_bytes: 16,
        why: "the TF32 register-A 128x128 `tt` tile since it stores C by TMA (its rows paired in \
              `epilogue::tma_store`): ptxas 12.9 (sm_90a) keeps an 8 B stack frame, 4 B of spill \
              stores, 12 B of loads; the SASS stores one value of the work schedule once, before \
              the warpgroups part, and reloads it once per work unit in the schedule's code (3 \
              `LDL`s), none in the k-loop. Its `nn` and `tn` siblings and the 128x192 and 128x256 \
              tiles do not spill. Measured (H200, same run, C from registers against by TMA): \
              1280^3 `tt` 165.7 against 167.0 TFLOPS; the store by TMA 1.16-1.26x on small-k \
              `tt` calls (docs/hopper-log.md, session 51)",
    },
];

/// The CUDA-core stream kernels (`Family::CudaCoreStream`).
fn stream(k: &KernelSpec) -> bool {
    k.family == Family::CudaCoreStream
}

/// The TF32 `mma.sync` multistage tiles on 64×64 warp tiles (128×256 and 128×128), one per layout.
fn tf32_w64x64(k: &KernelSpec) -> bool {
    k.family == Family::MmaSyncMultistage
        && k.math == Math::MmaTf32
        && (k.warp.m, k.warp.n) == (64, 64)
}
