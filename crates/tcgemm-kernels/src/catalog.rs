//! The catalog: every kernel tcgemm builds, declared once.
//!
//! Each line of the list below is one kernel shape, expanded over the layouts it names (`nn`:
//! neither operand transposed, `nt`: B transposed, `tn`: A transposed, `tt`: both; `nn_swap`,
//! `nt_swap`: `nn`, `nt` computed as `Cᵀ = Bᵀ·Aᵀ`, `config::KernelSpec::swaps_ab`). From the
//! same line come
//! - the kernel's record in [`KERNELS`] (host and device): its name by its family's name rule,
//!   element types and instruction from the precision, the launch shape (threads from the family's
//!   rule, dynamic shared memory from the body's own `smem_bytes`), blocks per SM and rank;
//! - on `nvptx64`, its `extern "ptx-kernel"` entry point (exported under the same name, in the PTX
//!   module of its family, and of the `sm_90` module where `KernelSpec::built_in` says so), whose
//!   body's const generics are derived from that record.
//!
//! Columns of a GEMM line: family; precision (`{input}_{output}`, `tf32`, `f32` for FFMA,
//! `f16_f16_acc16` for f16 accumulation); block tile `M x N x K`; warp tile `M x N` (the per-thread
//! tile for the CUDA-core families; the warp tile's k is the instruction's); `st`: pipeline stages;
//! `b/SM`: blocks per SM the kernel is built for (`.minnctapersm`; a layout may override it as
//! `layout:blocks`); `rank`: dispatch preference (highest wins among kernels that can run a call);
//! the layouts. The rules are in `catalog/rules.rs`; docs/ARCHITECTURE.md says where to add a shape.
//!
//! ```
//! use tcgemm_kernels::config::{find_kernel, Family};
//! let k = find_kernel("f16_f32_tn_128x256x32_w64x64_s4").unwrap();
//! assert_eq!(k.family, Family::MmaSyncMultistage);
//! assert!(k.trans_a && !k.trans_b);
//! assert_eq!((k.block.n, k.warp.n, k.warp.k, k.threads), (256, 64, 16, 256));
//! ```

use crate::config::KernelSpec;

pub(crate) mod rules;

rules::catalog! {
    gemm {
        // family          precision     block           warp       st b/SM rank  layouts
        //
        // CUDA cores: 8×8 per thread, a 3-stage cp.async pipeline. 128×128: 2 blocks/SM of 256
        // threads (128 registers). 64×128: 3 blocks/SM of 128 threads (170 registers: at 4 blocks'
        // 128 the `nn`, `nt` and `tt` bodies spill), 32×128: 6 of 64; dispatch takes them where
        // the 128-row tile would be mostly padding (LLM decode and few-token prefill) or where
        // their waves are fuller (`dispatch::cost`). 128×64 and 64×64 (128 and 64 threads, as
        // 64×128 and 32×128): few columns of C (8192×64×8192, batches of 64×64 items), where
        // the 128-wide tiles would be half padding.
        CudaCore           f32           128 x 128 x 16    8 x   8   3    2   10  [nn nt tn tt],
        CudaCore           f32            64 x 128 x 16    8 x   8   3    3    9  [nn nt tn tt],
        CudaCore           f32            32 x 128 x 16    8 x   8   3    6    8  [nn nt tn tt],
        CudaCore           f32           128 x  64 x 16    8 x   8   3    3    9  [nn nt tn tt],
        CudaCore           f32            64 x  64 x 16    8 x   8   3    6    8  [nn nt tn tt],
        // CUDA cores, few rows of C (LLM decode, m ≤ 32: bound by reading B once). Per-thread tile
        // TM×TN over all of a warp's rows; 4 warps split each k-tile (8 k each). Ranks below the
        // 128×128 tile's, rising with BM: dispatch takes these where that tile is mostly padding,
        // and on equal padding the taller tile (B read once).
        CudaCoreMultistage f32             8 x 128 x 32    8 x   4   4    2    5  [nn nt tn tt],
        CudaCoreMultistage f32            16 x 128 x 32   16 x   4   4    2    6  [nn nt tn tt],
        CudaCoreMultistage f32            32 x 128 x 32   16 x   4   4    2    7  [nn:1 nt:1 tn tt],
        // CUDA cores, a few rows of C from 16-bit inputs streaming B into registers (LLM decode
        // with an unaligned A or B, m ≤ BM; docs/decode-log.md, "Stream kernels"). BN: 31 16-byte
        // chunks of columns where B is N-major (each warp sums all of them over its rows; its 32
        // lanes' aligned chunks hold them at any shift of B's rows), 4 columns per warp where B is
        // K-major; `st`: B loads in flight per lane (steps × the warp's 4 rows where K-major); the
        // 8-row tiles run 1 block/SM where 128 registers would spill. BK is split-K's unit only: A
        // is staged 8192 floats at a time. Dispatch takes them only where A or B is not 16-byte
        // aligned (`dispatch::streams`).
        CudaCoreStream     f16_f32_ffma    1 x 248 x 64    1 x 248   8    2    8  [nn tn],
        CudaCoreStream     f16_f32_ffma    1 x  32 x 64    1 x   4   2    2    8  [nt tt],
        CudaCoreStream     f16_f32_ffma    4 x 248 x 64    4 x 248   4    2    8  [nn tn],
        CudaCoreStream     f16_f32_ffma    4 x  32 x 64    4 x   4   1    2    8  [nt tt],
        CudaCoreStream     f16_f32_ffma    8 x 248 x 64    8 x 248   4    1    8  [nn tn],
        CudaCoreStream     f16_f32_ffma    8 x  32 x 64    8 x   4   1    2    8  [nt:1 tt:1],
        CudaCoreStream     f16_f16_ffma    1 x 248 x 64    1 x 248   8    2    8  [nn tn],
        CudaCoreStream     f16_f16_ffma    1 x  32 x 64    1 x   4   2    2    8  [nt tt],
        CudaCoreStream     f16_f16_ffma    4 x 248 x 64    4 x 248   4    2    8  [nn tn],
        CudaCoreStream     f16_f16_ffma    4 x  32 x 64    4 x   4   1    2    8  [nt tt],
        CudaCoreStream     f16_f16_ffma    8 x 248 x 64    8 x 248   4    1    8  [nn tn],
        CudaCoreStream     f16_f16_ffma    8 x  32 x 64    8 x   4   1    2    8  [nt:1 tt:1],
        CudaCoreStream     bf16_f32_ffma   1 x 248 x 64    1 x 248   8    2    8  [nn tn],
        CudaCoreStream     bf16_f32_ffma   1 x  32 x 64    1 x   4   2    2    8  [nt tt],
        CudaCoreStream     bf16_f32_ffma   4 x 248 x 64    4 x 248   4    2    8  [nn tn],
        CudaCoreStream     bf16_f32_ffma   4 x  32 x 64    4 x   4   1    2    8  [nt tt],
        CudaCoreStream     bf16_f32_ffma   8 x 248 x 64    8 x 248   4    1    8  [nn tn],
        CudaCoreStream     bf16_f32_ffma   8 x  32 x 64    8 x   4   1    2    8  [nt:1 tt:1],
        CudaCoreStream     bf16_bf16_ffma  1 x 248 x 64    1 x 248   8    2    8  [nn tn],
        CudaCoreStream     bf16_bf16_ffma  1 x  32 x 64    1 x   4   2    2    8  [nt tt],
        CudaCoreStream     bf16_bf16_ffma  4 x 248 x 64    4 x 248   4    2    8  [nn tn],
        CudaCoreStream     bf16_bf16_ffma  4 x  32 x 64    4 x   4   1    2    8  [nt tt],
        CudaCoreStream     bf16_bf16_ffma  8 x 248 x 64    8 x 248   4    1    8  [nn tn],
        CudaCoreStream     bf16_bf16_ffma  8 x  32 x 64    8 x   4   1    2    8  [nt:1 tt:1],
        // The same for f32 inputs (exact FP32, and TF32 calls of few rows with an unaligned A or B,
        // which run as exact FP32: `staging::exact_instead`), N-major B only (31 chunks of 4
        // columns; a K-major B is read by the CUDA-core tiles above): the 1-row tile at 4 blocks/SM
        // so that 50257 columns (406 tiles) fit one wave, 4 loads in flight per lane (as many
        // bytes in flight per SM as the 16-bit tile's 8 at 2 blocks/SM; 64 registers, the `nn`
        // tile spilling in A's staging: `SPILLS_ALLOWED`).
        CudaCoreStream     f32             1 x 124 x 64    1 x 124   4    4    8  [nn tn],
        CudaCoreStream     f32             4 x 124 x 64    4 x 124   4    2    8  [nn tn],
        // The seed TF32 kernel, kept as the named baseline: only taken when asked for by name.
        MmaSyncSeed        tf32          128 x 128 x 16   32 x  64   2    2    1  [nn nt tn tt],
        // 16-bit mma.sync, mid-size problems.
        MmaSyncMultistage  f16_f32       128 x 128 x 32   64 x  32   4    2   10  [nn nt tn tt],
        MmaSyncMultistage  f16_f16       128 x 128 x 32   64 x  32   4    2   10  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32      128 x 128 x 32   64 x  32   4    2   10  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16     128 x 128 x 32   64 x  32   4    2   10  [nn nt tn tt],
        // 64×64 warp tiles: 128 accumulators, ~235 registers, so 1 block/SM. The default for large
        // problems: interleaved with cuBLAS on the H200 it beats the 128×128 tiles by 8% at 4096³
        // and 8192³ (kernel-log.md); dispatch falls back to 128×128 and 64×64 tiles where these
        // would leave SMs idle or compute padding.
        MmaSyncMultistage  f16_f32       128 x 256 x 32   64 x  64   4    1   20  [nn nt tn tt],
        MmaSyncMultistage  f16_f16       128 x 256 x 32   64 x  64   4    1   20  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32      128 x 256 x 32   64 x  64   4    1   20  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16     128 x 256 x 32   64 x  64   4    1   20  [nn nt tn tt],
        MmaSyncMultistage  tf32          128 x 256 x 32   64 x  64   3    1   20  [nn nt tn tt],
        // `nt` with 16-bit C, 64 deep in 3 stages: both operands K-major, each tile row a whole
        // 128-byte line; 1.12–1.13× the 32-deep tile at 4096³ on the H200. Not `tt` (0.92×), nor
        // f32 C (1.0× at 4096³, 0.87× at 8192³): split-K runs the 32-deep f32-output twin
        // (`splitk::f32_twin`; docs/kernel-log.md, session 44).
        MmaSyncMultistage  f16_f16       128 x 256 x 64   64 x  64   3    1   21  [nt],
        MmaSyncMultistage  bf16_bf16     128 x 256 x 64   64 x  64   3    1   21  [nt],
        // TF32 `nn` as the swapped `tt` product (Cᵀ = Bᵀ·Aᵀ, a 256×128 tile of C): the call's B,
        // N-major, read as an M-major A in 8-byte row pairs instead of a word per fragment
        // register (docs/kernel-log.md, session 42). Ranked above the 128×256 `nn` tile, which
        // dispatch keeps where this one pads more (fewer than 256 rows of C).
        MmaSyncMultistage  tf32          128 x 256 x 32   64 x  64   3    1   21  [nn_swap],
        // 128×128 on 64×64 warp tiles (4 warps, fragments double-buffered): 1.3–1.5× the
        // 64×32-warp tile below with 16-byte copies; `nn` as the swapped `tt` product, as above.
        // With an operand copied element by element, dispatch takes the 64×32-warp tile, whose 8
        // warps issue the copies faster where the call is bound by them (docs/kernel-log.md,
        // session 43).
        MmaSyncMultistage  tf32          128 x 128 x 32   64 x  64   3    2   11  [nn_swap nt tn tt],
        MmaSyncMultistage  tf32          128 x 128 x 32   64 x  32   3    2   10  [nn nt tn tt],
        // f16 accumulation: only for `Precision::F16Accumulate`.
        MmaSyncMultistage  f16_f16_acc16 128 x 128 x 32   64 x  32   4    2   10  [nn nt tn tt],
        // Small and batched problems: dispatch takes these where larger tiles would be mostly
        // padding or leave SMs idle.
        MmaSyncMultistage  f16_f32        64 x  64 x 32   16 x  32   4    4    3  [nn nt tn tt],
        MmaSyncMultistage  f16_f16        64 x  64 x 32   16 x  32   4    4    3  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32       64 x  64 x 32   16 x  32   4    4    3  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16      64 x  64 x 32   16 x  32   4    4    3  [nn nt tn tt],
        // Few rows of C (LLM decode, M ≤ 64): 128 columns of B (the weights) per block, a
        // 64-deep k-tile; split-K gives every SM blocks (docs/decode-log.md). Ranked above the
        // 64×64 tile, which dispatch still prefers where it computes less padding: at M = 64 two
        // 32-row tiles (the weights read twice, the second time mostly from L2) measured
        // 0.47-0.64x cuBLAS on the H200, the 64×64 tile (4 KB of weights per stage) 0.41-0.58x.
        MmaSyncMultistage  f16_f32        16 x 128 x 64   16 x  32   4    2    4  [nn nt tn tt],
        MmaSyncMultistage  f16_f16        16 x 128 x 64   16 x  32   4    2    4  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32       16 x 128 x 64   16 x  32   4    2    4  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16      16 x 128 x 64   16 x  32   4    2    4  [nn nt tn tt],
        MmaSyncMultistage  tf32           16 x 128 x 32   16 x  32   4    2    4  [nn nt tn tt],
        // Three stages of TF32 tiles (60 KiB) let three blocks share an SM, as the 16-bit tiles'
        // four stages (72 KiB) do; the four-stage tile's 80 KiB fit two. Dispatch
        // takes it where it fills its busiest SM's last round of blocks better
        // (`dispatch::cost::last_round`: 1×50257×4096 TF32, 393 blocks, 1.58 → 1.86 TFLOPS).
        MmaSyncMultistage  tf32           16 x 128 x 32   16 x  32   3    3    4  [nn nt tn tt],
        MmaSyncMultistage  f16_f32        32 x 128 x 64   16 x  32   4    2    5  [nn nt tn tt],
        MmaSyncMultistage  f16_f16        32 x 128 x 64   16 x  32   4    2    5  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32       32 x 128 x 64   16 x  32   4    2    5  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16      32 x 128 x 64   16 x  32   4    2    5  [nn nt tn tt],
        MmaSyncMultistage  tf32           32 x 128 x 32   16 x  32   4    2    5  [nn nt tn tt],
        // M = 33…64: one 64-row tile reads the weights once (two 32-row tiles read them twice);
        // ranked above the 32-row tile, which dispatch keeps where it pads less (M ≤ 32).
        MmaSyncMultistage  f16_f32        64 x 128 x 64   32 x  32   4    2    6  [nn nt tn tt],
        MmaSyncMultistage  f16_f16        64 x 128 x 64   32 x  32   4    2    6  [nn nt tn tt],
        MmaSyncMultistage  bf16_f32       64 x 128 x 64   32 x  32   4    2    6  [nn nt tn tt],
        MmaSyncMultistage  bf16_bf16      64 x 128 x 64   32 x  32   4    2    6  [nn nt tn tt],
        MmaSyncMultistage  tf32           64 x 128 x 32   32 x  32   4    2    6  [nn nt tn tt],
        // sm_90a: one 128-byte swizzle row of k per tile row (k = 64 for 16-bit inputs, 32 for
        // tf32).
        TmaWarpSpecialized f16_f32       128 x 256 x 64   64 x 256   4    1   30  [nn nt tn tt],
        TmaWarpSpecialized f16_f16       128 x 256 x 64   64 x 256   4    1   30  [nn nt tn tt],
        TmaWarpSpecialized bf16_f32      128 x 256 x 64   64 x 256   4    1   30  [nn nt tn tt],
        TmaWarpSpecialized bf16_bf16     128 x 256 x 64   64 x 256   4    1   30  [nn nt tn tt],
        TmaWarpSpecialized tf32          128 x 256 x 32   64 x 256   4    1   30  [nn nt tn tt],
        // sm_90a, 128×192 tiles (m64n192: 96 accumulators per consumer thread), 5 stages of 40 KiB:
        // 0.88–0.92× the 128×256 tile's rate on whole waves, and whole waves where it has none
        // (3072³: 384 tiles, 2.9 waves; 128×256: 288, 2.2). Dispatch's time model
        // (`dispatch::cost`) weighs the waves against the rate; ranked with the 128×128 tiles,
        // ahead of them on equal time.
        TmaWarpSpecialized f16_f32       128 x 192 x 64   64 x 192   5    1   29  [nn nt tn tt],
        TmaWarpSpecialized f16_f16       128 x 192 x 64   64 x 192   5    1   29  [nn nt tn tt],
        TmaWarpSpecialized bf16_f32      128 x 192 x 64   64 x 192   5    1   29  [nn nt tn tt],
        TmaWarpSpecialized bf16_bf16     128 x 192 x 64   64 x 192   5    1   29  [nn nt tn tt],
        TmaWarpSpecialized tf32          128 x 192 x 32   64 x 192   5    1   29  [nn nt tn tt],
        // sm_90a, 128×144 tiles (m64n144: 72 accumulators per consumer thread), 5 stages of 34
        // KiB, B K-major only (`nt`, `tt`: B's MN-major boxes are 64 columns wide); C stored from
        // registers (a consumer's 144 columns are not whole 128-byte chunks of C's map). The tile
        // cuBLAS runs at 1536³ `nt` (`nvjet_sm90_hsh_144x128`): 1536³ is 12 × 11 = 132 tiles, one
        // wave, where 128×192's 96 leave 36 SMs idle (H200: 1.11–1.22× faster, 16-bit and TF32;
        // docs/hopper-log.md, session 48). TF32 `nt` only: TF32 `tt` reads A through registers
        // (`TmaRegisterA`), which this width does not have; the TMA-fed `tt` one ran 0.64–0.79×
        // the register-A tiles. 16-bit `nn` as the swapped product (`nn_swap`: a `tt` body, the
        // call's B its A; a 144×128 tile of C, cuBLAS's 1536³ `nn` tiling), stored transposed
        // from registers (`epilogue::wgmma::store_pairs_transposed`).
        TmaWarpSpecialized f16_f32       128 x 144 x 64   64 x 144   5    1   29  [nt tt nn_swap],
        TmaWarpSpecialized f16_f16       128 x 144 x 64   64 x 144   5    1   29  [nt tt nn_swap],
        TmaWarpSpecialized bf16_f32      128 x 144 x 64   64 x 144   5    1   29  [nt tt nn_swap],
        TmaWarpSpecialized bf16_bf16     128 x 144 x 64   64 x 144   5    1   29  [nt tt nn_swap],
        TmaWarpSpecialized tf32          128 x 144 x 32   64 x 144   5    1   29  [nt],
        // sm_90a, 128×128 tiles (m64n128: 64 accumulators per consumer thread, the same register
        // split): twice the tiles of 128×256, for calls whose 128×256 tiles would leave SMs idle;
        // ranked below, so dispatch takes them on better fill, less padding or a shorter model
        // time (0.78–0.82× the 128×256 tile's rate on whole waves). 6 stages of 32 KiB: the same
        // 192 KiB in flight (what hides TMA's latency at a given bandwidth) and the same
        // shared-memory carveout (196 KiB, 60 KiB left to L1) as the 128×256 tiles' 4 of 48 KiB;
        // a 7th fits (225 KiB of 227) but needs the 228 KiB carveout, leaving 28 KiB of L1.
        TmaWarpSpecialized f16_f32       128 x 128 x 64   64 x 128   6    1   29  [nn nt tn tt],
        TmaWarpSpecialized f16_f16       128 x 128 x 64   64 x 128   6    1   29  [nn nt tn tt],
        TmaWarpSpecialized bf16_f32      128 x 128 x 64   64 x 128   6    1   29  [nn nt tn tt],
        TmaWarpSpecialized bf16_bf16     128 x 128 x 64   64 x 128   6    1   29  [nn nt tn tt],
        TmaWarpSpecialized tf32          128 x 128 x 32   64 x 128   6    1   29  [nn nt tn tt],
        // sm_90a, 128×64 tiles (two `m64n64` consumers splitting the rows) for few columns of C
        // (N ≤ 64: bound by reading A once): the 128-row tiles above compute their columns past
        // 64 as padding; at 8192×64×8192 f16 the 64×64 `mma.sync` tile ran 0.56× cuBLAS, this
        // one 0.94× (TF32 1.03×; docs/hopper-log.md, "128×64 tiles"). 8 stages of 24 KiB: the
        // same 192 KiB in flight.
        // Ranked below the 64-row tiles, above every sm_80 tile: dispatch takes them where they
        // pad less or fill more, and in `nn` on equal items (their N-major B half as wide:
        // `dispatch::cost::steady_rate`).
        TmaWarpSpecialized f16_f32       128 x  64 x 64   64 x  64   8    1   27  [nn nt tn tt],
        TmaWarpSpecialized f16_f16       128 x  64 x 64   64 x  64   8    1   27  [nn nt tn tt],
        TmaWarpSpecialized bf16_f32      128 x  64 x 64   64 x  64   8    1   27  [nn nt tn tt],
        TmaWarpSpecialized bf16_bf16     128 x  64 x 64   64 x  64   8    1   27  [nn nt tn tt],
        TmaWarpSpecialized tf32          128 x  64 x 32   64 x  64   8    1   27  [nn nt tn tt],
        // sm_90a, swapped 128×32 tiles for decode rows (`nn_swap`, `nt_swap`: a tile of Cᵀ, 128
        // weight columns × 32 call rows; the two `m64n32` consumers split the weight columns): a
        // CTA receives 20 KiB per k-tile (the swapped 64×32 ping-pong tile 12), 10 stages; shares
        // k-tiles (stream-K, splits within clusters). cuBLAS's 8192-deep 96-row pick is this
        // geometry split along K (`nvjet_sm90_hsh_128x32_64x10_2x4_h_bz_splitK`). Candidates on
        // deep decode calls of few weight columns (`admission::few_weight_columns_deep`;
        // docs/decode-log.md, sessions 78, 80 and 81).
        TmaWarpSpecialized f16_f32       128 x  32 x 64   64 x  32  10    1   26  [nn_swap nt_swap],
        TmaWarpSpecialized f16_f16       128 x  32 x 64   64 x  32  10    1   26  [nn_swap nt_swap],
        TmaWarpSpecialized bf16_f32      128 x  32 x 64   64 x  32  10    1   26  [nn_swap nt_swap],
        TmaWarpSpecialized bf16_bf16     128 x  32 x 64   64 x  32  10    1   26  [nn_swap nt_swap],
        // sm_90a, 64-row tiles for few rows of C (LLM decode, 16 ≤ M ≤ 64: bound by reading B, the
        // weights, once): the two consumers split the tile's columns (`wgmma.m64n64` each);
        // split-K gives every SM blocks. Ranked below the 128-row tiles, above every sm_80 tile;
        // dispatch counts the rows of a call of 17 (TF32: 16) to 64 rows as free on it
        // (`dispatch::free_wgmma_rows`: 16 rows of 16-bit inputs run faster on the 16-row
        // `mma.sync` tile). A
        // 64×256 tile (`m64n128` consumers, 5 stages) measured no faster on the large decode layers
        // and 0.6–0.7× this one on the 4096-wide ones (half the tiles, twice the k-slices):
        // docs/decode-log.md, session 13.
        TmaWarpSpecialized f16_f32        64 x 128 x 64   64 x  64   8    1   28  [nn nt tn tt],
        TmaWarpSpecialized f16_f16        64 x 128 x 64   64 x  64   8    1   28  [nn nt tn tt],
        TmaWarpSpecialized bf16_f32       64 x 128 x 64   64 x  64   8    1   28  [nn nt tn tt],
        TmaWarpSpecialized bf16_bf16      64 x 128 x 64   64 x  64   8    1   28  [nn nt tn tt],
        TmaWarpSpecialized tf32           64 x 128 x 32   64 x  64   8    1   28  [nn nt tn tt],
        // sm_90a, ping-pong 64-row tiles: each consumer warpgroup computes whole tiles, the two
        // taking the CTA's work units in turn, so one's epilogue overlaps the other's `wgmma`s
        // (the cooperative tiles above store with both consumers at once). Dispatch takes them
        // for batched items of at most 128×128×128 (`dispatch::short_items`), and only there:
        // H200, same run, ours / cuBLAS, 1000 items of 64³ f16 0.87× (the 64×64 `mma.sync`
        // tile) → 0.96× (64×64), TF32 `nt` 0.81× → 0.99×; 256 of 128×128×128 f16 `nt` 0.83× →
        // 0.98× (64×128); on 512² items and single products of small k (8192²×64) they ran
        // 0.85–0.99× the cooperative 128×256 tile (docs/hopper-log.md, "Ping-pong"). No stream-K.
        TmaPingPong        f16_f32        64 x 128 x 64   64 x 128   8    1   26  [nn nt tn tt],
        TmaPingPong        f16_f16        64 x 128 x 64   64 x 128   8    1   26  [nn nt tn tt],
        TmaPingPong        bf16_f32       64 x 128 x 64   64 x 128   8    1   26  [nn nt tn tt],
        TmaPingPong        bf16_bf16      64 x 128 x 64   64 x 128   8    1   26  [nn nt tn tt],
        TmaPingPong        tf32           64 x 128 x 32   64 x 128   8    1   26  [nn nt tn tt],
        TmaPingPong        f16_f32        64 x  64 x 64   64 x  64  12    1   25  [nn nt tn tt],
        TmaPingPong        f16_f16        64 x  64 x 64   64 x  64  12    1   25  [nn nt tn tt],
        TmaPingPong        bf16_f32       64 x  64 x 64   64 x  64  12    1   25  [nn nt tn tt],
        TmaPingPong        bf16_bf16      64 x  64 x 64   64 x  64  12    1   25  [nn nt tn tt],
        TmaPingPong        tf32           64 x  64 x 32   64 x  64  12    1   25  [nn nt tn tt],
        // 64×32 ping-pong tiles (`wgmma.m64n32`) for LLM decode (M ≤ 64): 4096 columns are 128
        // tiles, a wave of CTAs each streaming its 32 columns of the weights over all of k, unsplit
        // (cuBLAS's `nvjet_sm90_hsh_64x32_64x16_1x2_h_bz_NNT`, issue 14). 16 stages of 12 KiB (64
        // KiB of B in flight); 16-bit inputs with a K-major B (`nt`, `tt`: B's MN-major boxes are
        // 64 columns wide), and `nn` and `nt` as the swapped products (`nn_swap`: the `tt` body,
        // the call's N-major B its A in one 64-column box; `nt_swap`: the `nt` body, the call's
        // n×k B its A; a 32×64 tile of C, stored transposed from registers, computes 32 rows where
        // the unswapped tile computes 64). H200: 64×4096×4096 `nt`/`tt` 1.05–1.06× the 64×128
        // tile split in two; H100, `nn_swap`: 64×4096×4096 1.09–1.19×, 32×8192×8192 1.04×,
        // 32×8192×28672 1.07× dispatch's picks before it; H100, `nt_swap`: 8–32 rows 1.02–1.36×
        // the unswapped `nt` tile in the same process (docs/decode-log.md, session 71); dispatch
        // takes them on decode rows only (`admission::decode_rows`: one wave, or swapped, of 8–32
        // rows, half of one).
        // The TF32 64×32×32 tile measured no faster than dispatch's TF32 picks (64×4096×4096 `nn`
        // 56.1 against 68.3 TFLOPS, `nt` 77.0 against 76.6) and is not built (docs/decode-log.md).
        TmaPingPong        f16_f32        64 x  32 x 64   64 x  32  16    1    2  [nt tt nn_swap nt_swap],
        TmaPingPong        f16_f16        64 x  32 x 64   64 x  32  16    1    2  [nt tt nn_swap nt_swap],
        TmaPingPong        bf16_f32       64 x  32 x 64   64 x  32  16    1    2  [nt tt nn_swap nt_swap],
        TmaPingPong        bf16_bf16      64 x  32 x 64   64 x  32  16    1    2  [nt tt nn_swap nt_swap],
        // TF32 swapped for `nt` (both operands K-major, as TF32's `wgmma` needs them): 16 stages of
        // 12 KiB, for `nt` decode calls of 1 to 32 rows (`admission::streams_few_rows`).
        TmaPingPong        tf32           64 x  32 x 32   64 x  32  16    1    2  [nt_swap],
        // sm_90a, the 128×256 and 128×192 tiles in clusters of two sharing B's loads (multicast):
        // per CTA a third (128×256) or 30% (128×192) less read from L2 per k-tile. Dispatch takes
        // them, in place of the same tiles alone, where TMA would read A or B off 32-byte sectors
        // (`dispatch::admission`): there L2 bounds the tiles alone (ncu, f16 3000³ `nt` on
        // 128×192: L2 82% busy, SMs 61%), and the pairs ran 1.23–1.31× faster, unstaged, than the
        // tiles alone on staged or unstaged operands (docs/hopper-log.md, session 50). From 8
        // waves of their units they are candidates on other calls too, ranked one above the
        // tiles alone: they ran 1.003–1.029× them there (16-bit 6144³–8192³ and prefill layers).
        // TF32 `nt` alike (its other layouts read A through registers, `TmaRegisterA`, which
        // has no pairs): forced at 6144³ and 8192³ they ran 1.002–1.007× the tiles alone
        // (docs/hopper-log.md, session 58).
        TmaPairs           f16_f32       128 x 256 x 64   64 x 256   4    1   31  [nn nt tn tt],
        TmaPairs           f16_f16       128 x 256 x 64   64 x 256   4    1   31  [nn nt tn tt],
        TmaPairs           bf16_f32      128 x 256 x 64   64 x 256   4    1   31  [nn nt tn tt],
        TmaPairs           bf16_bf16     128 x 256 x 64   64 x 256   4    1   31  [nn nt tn tt],
        TmaPairs           f16_f32       128 x 192 x 64   64 x 192   5    1   30  [nn nt tn tt],
        TmaPairs           f16_f16       128 x 192 x 64   64 x 192   5    1   30  [nn nt tn tt],
        TmaPairs           bf16_f32      128 x 192 x 64   64 x 192   5    1   30  [nn nt tn tt],
        TmaPairs           bf16_bf16     128 x 192 x 64   64 x 192   5    1   30  [nn nt tn tt],
        TmaPairs           tf32          128 x 256 x 32   64 x 256   4    1   31  [nt],
        TmaPairs           tf32          128 x 192 x 32   64 x 192   5    1   30  [nt],
        // sm_90a, the products of Precision::Tf32x3 (on TF32 parts of the operands, K three times
        // as long): the TF32 tiles above whose consumers add each span of k-tiles' accumulation
        // into registers of their own (`WgmmaInput::ADD_K_TILES`), so the tensor core's
        // truncating accumulation spans 128 k, not all of k. A consumer holds its accumulators
        // twice: 128×192 (`m64n192`, 2 × 96 of its 232 registers) is the widest tile that fits
        // (128×256 would need 2 × 128); it runs up to 1.3× the 128×128 tile on large products
        // (H200, docs/f32-log.md attempt 5c) and spills a few bytes outside its k-loop
        // (`tcgemm_build::spills::SPILLS_ALLOWED`). Under one wave of its tiles it gives way
        // (`dispatch::fill_percent`). Candidates for 3xTF32 calls alone (their own `Math`), whose
        // parts the split writes K-major (`nt`) in every layout: staged (producer-transposed)
        // `nn`/`tn`/`tt` ran 0.57–0.73× `nt` (docs/f32-log.md).
        TmaWarpSpecialized tf32x3        128 x 192 x 32   64 x 192   5    1   30  [nt],
        TmaWarpSpecialized tf32x3        128 x 128 x 32   64 x 128   6    1   29  [nt],
        TmaWarpSpecialized tf32x3         64 x 128 x 32   64 x  64   8    1   28  [nt],
        // sm_90a, TF32 with A stored M-major: the consumers read A into registers (`wgmma` with A
        // from registers) instead of the producer transposing it in shared memory
        // (docs/hopper-log.md). Ranked above the TMA kernels of the same tiles, which they beat
        // on every shape measured (H200: 128×256 `tt` 0.99–1.07× cuBLAS at 2048³–8192³ against
        // 0.84–0.88× staged; 128×128 `tt` 1.4–1.7× the staged 128×128); the staged `tn`/`tt`
        // stay as named baselines. In `nn` they swap A and B (`KernelSpec::swaps_ab`: B, stored
        // N-major, is the register operand) and store C transposed. Both tiles rank above both
        // staged tiles: where the 128×256 register-A tile leaves waves short (it has no stream-K,
        // `KernelSpec::streams_k`), the 128×128 one streams k and a staged 128×256 would too.
        TmaRegisterA       tf32          128 x 256 x 32   64 x 256   4    1   32  [nn tn tt],
        TmaRegisterA       tf32          128 x 192 x 32   64 x 192   5    1   31  [nn tn tt],
        TmaRegisterA       tf32          128 x 128 x 32   64 x 128   6    1   31  [nn tn tt],
        // sm_90a, operands TMA cannot map (a base, leading dimension or batch stride not a
        // multiple of 16 bytes): the 128×128 TMA tile, stages and consumers, the producer
        // warpgroup copying by threads (docs/unaligned-log.md). Ranked below the TMA kernels,
        // above sm_80's. (A 128×256 tile spilled 324–816 B: its consumers need more than the 192
        // registers a copying producer leaves them.)
        LdgWarpSpecialized f16_f32       128 x 128 x 64   64 x 128   6    1   24  [nn nt tn tt],
        LdgWarpSpecialized f16_f16       128 x 128 x 64   64 x 128   6    1   24  [nn nt tn tt],
        LdgWarpSpecialized bf16_f32      128 x 128 x 64   64 x 128   6    1   24  [nn nt tn tt],
        LdgWarpSpecialized bf16_bf16     128 x 128 x 64   64 x 128   6    1   24  [nn nt tn tt],
    }
    ceiling {
        // instruction        input  math        blocks/SM
        ffma_f32              f32    Ffma        2,
        mma_m16n8k8_tf32      f32    MmaTf32     2,
        mma_m16n8k16_f16      f16    MmaF16F32   2,
        mma_m16n8k16_bf16     bf16   MmaBf16F32  2,
    }
    convert {
        // from  to     blocks/SM
        f32      f16    4,
        f32      bf16   4,
        f16      f32    4,
        bf16     f32    4,
    }
    copy {
        // element size  blocks/SM
        f16              8,
        f32              8,
    }
    split {
        // f32 operands into TF32 parts (Precision::Tf32x3)   blocks/SM
        tf32x3                                                8,
    }
    splitk {
        // after a split launch whose tiles' slices are too large for the fused tail
        reduce 4,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::KERNELS;
    use crate::config::{find_kernel, Family, Role};
    use std::format;

    #[test]
    fn names_are_unique() {
        for (i, k) in KERNELS.iter().enumerate() {
            assert!(
                KERNELS[..i].iter().all(|o| o.name != k.name),
                "{} twice",
                k.name
            );
        }
    }

    #[test]
    fn names_carry_layout_and_shapes() {
        for k in KERNELS.iter().filter(|k| k.role() == Role::Gemm) {
            let layout = match (k.trans_a, k.trans_b) {
                (false, false) => "_nn_",
                (false, true) => "_nt_",
                (true, false) => "_tn_",
                (true, true) => "_tt_",
            };
            let (b, w) = (k.block, k.warp);
            let tile = if matches!(k.family, Family::CudaCore | Family::CudaCoreMultistage) {
                "t"
            } else {
                "w"
            };
            let shapes = format!(
                "_{}x{}x{}_{tile}{}x{}_s{}",
                b.m, b.n, b.k, w.m, w.n, k.stages
            );
            assert!(k.name.contains(layout), "{}", k.name);
            assert!(k.name.contains(&shapes), "{} lacks {shapes}", k.name);
        }
    }

    #[test]
    fn launch_shapes_are_launchable() {
        for k in KERNELS {
            assert!(k.threads % 32 == 0 && k.threads <= 1024, "{}", k.name);
            assert!(k.smem_bytes <= 227 * 1024, "{}", k.name);
            assert!(k.min_blocks_per_sm >= 1, "{}", k.name);
            if k.role() == Role::Gemm {
                let (b, w) = (k.block, k.warp);
                assert!(
                    b.m % w.m == 0 && b.n % w.n == 0 && b.k % w.k == 0,
                    "{}",
                    k.name
                );
            }
        }
    }

    #[test]
    fn a_layout_overrides_the_blocks_per_sm_of_its_line() {
        let blocks = |name| find_kernel(name).map(|k| k.min_blocks_per_sm);
        assert_eq!(blocks("sgemm_nn_32x128x32_t16x4_s4"), Some(1));
        assert_eq!(blocks("sgemm_tn_32x128x32_t16x4_s4"), Some(2));
    }

    #[test]
    fn every_family_is_declared() {
        let count = |f: Family| KERNELS.iter().filter(|k| k.family == f).count();
        assert_eq!(count(Family::CudaCore), 20);
        assert_eq!(count(Family::CudaCoreMultistage), 12);
        assert_eq!(count(Family::MmaSyncSeed), 4);
        assert_eq!(count(Family::MmaSyncMultistage), 131);
        assert_eq!(count(Family::TmaWarpSpecialized), 124);
        assert_eq!(count(Family::TmaRegisterA), 9);
        assert_eq!(count(Family::TmaPingPong), 57);
        assert_eq!(count(Family::TmaPairs), 34);
        assert_eq!(count(Family::LdgWarpSpecialized), 16);
        assert_eq!((count(Family::Ceiling), count(Family::Convert)), (4, 4));
        assert_eq!(count(Family::CopyRows), 2);
        assert_eq!(count(Family::SplitTf32), 1);
        assert_eq!(count(Family::SplitkReduce), 1);
    }
}
