//! Tensor maps for the Hopper (sm_90a) TMA kernels, encoded on the host with
//! `cuTensorMapEncodeTiled` for each call.
//!
//! A K-major operand (A not transposed, B transposed) is mapped `(k, rows, batch)` innermost first
//! with boxes `BK × BM` (A) or `BK × BN` (B); an MN-major one (A transposed, B not transposed)
//! `(rows, k, batch)` with boxes of 64 rows (128 bytes) × `BK`, several per tile. Strides are
//! `(ld, stride)` in bytes; every map uses the 128-byte swizzle the kernels' `wgmma` descriptors
//! expect. Elements outside the tensor arrive as zeros, so
//! tails need no special case. An operand without a batch dimension (one batch item, or a batch
//! stride of 0) gets a batch extent of 1 and the kernel reads item 0 for every `z`
//! (`flags::TMA_BATCH_A/B` say which).
//!
//! C gets a map too where the consumers may store it by TMA ([`stores_c_by_tma`]: `beta == 0`, and
//! C's base, `ldc`, batch stride and rows whole 16-byte pieces): `(n, m, batch)` with boxes of 128
//! bytes of columns × 64 rows, the 128-byte swizzle (`epilogue::tma_store` writes its chunks so);
//! TMA writes only the elements inside the map, so tails need no code there either.

use crate::error::{invalid, Result};
use cudarc::driver::sys::{
    cuTensorMapEncodeTiled, CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill,
    CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use tcgemm_kernels::config::{tma_staged, Elem, Family, KernelSpec, Math};
use tcgemm_kernels::params::{flags, GemmParams, TensorMap, TmaParams};
use tcgemm_kernels::threadblock::tma_warp_specialized::{consumer_cols, whole_c_chunks};

/// One operand's view for TMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OperandMap {
    /// Address of batch item 0.
    pub base: u64,
    /// Extent along k (innermost, contiguous).
    pub k: u64,
    /// Rows (m for A, n for B).
    pub rows: u64,
    /// Batch extent of the map (1 when the operand is shared by every batch item).
    pub batch: u64,
    /// Bytes between rows.
    pub row_bytes: u64,
    /// Bytes between batch items (meaningful when `batch > 1`).
    pub batch_bytes: u64,
    /// Box: elements along k, rows.
    pub box_k: u32,
    pub box_rows: u32,
    /// The operand is contiguous along its rows (A transposed, B not transposed): the map is
    /// `(rows, k, batch)` with boxes of 64 rows (128 bytes) × `box_k`.
    pub mn_major: bool,
    /// An MN-major TF32 operand the kernel transposes in shared memory
    /// ([`tma_staged`](tcgemm_kernels::config::tma_staged)): unswizzled boxes of 32 rows × 32 k.
    pub staged: bool,
}

impl OperandMap {
    /// The map of one operand (`a == true`: A) of `p`, the parameters as the kernel reads them
    /// (swapped for a kernel that [swaps](KernelSpec::swaps_ab) A and B), for a kernel with block
    /// tile `spec.block` and operands laid out as its [body](KernelSpec::body_layout) reads them.
    pub(crate) fn of(p: &GemmParams, spec: &KernelSpec, a: bool) -> Self {
        let eb = u64::from(spec.input.bytes());
        let (trans_a, trans_b) = spec.body_layout();
        let (base, ld, stride, rows, box_rows, mn_major) = if a {
            (p.a, p.lda, p.stride_a, p.m, spec.block.m, trans_a)
        } else {
            // (a pair of CTAs loads half of a K-major B's rows each, `Family::TmaPairs`)
            let box_n = spec.block.n / spec.family.cluster();
            (p.b, p.ldb, p.stride_b, p.n, box_n, !trans_b)
        };
        let staged = tma_staged(spec, a);
        let k = u64::from(p.k.max(1));
        let batched = p.batch > 1 && stride != 0;
        let row_bytes = ld * eb;
        OperandMap {
            base,
            // k == 0 (A and B unreferenced) still needs a valid map; the kernel issues no copy
            k,
            rows: u64::from(rows),
            batch: if batched { u64::from(p.batch) } else { 1 },
            row_bytes,
            batch_bytes: if batched {
                stride * eb
            } else if mn_major {
                row_bytes * k
            } else {
                row_bytes * u64::from(rows)
            },
            box_k: spec.block.k,
            // an MN-major box is one 128-byte swizzle row wide; a staged one is 32 rows, a block
            // the kernel transposes in place (unswizzled)
            box_rows: if staged {
                32
            } else if mn_major {
                128 / spec.input.bytes()
            } else {
                box_rows
            },
            mn_major,
            staged,
        }
    }

    /// Encodes the map for the operands of `spec`.
    ///
    /// F32 operands of a TF32 kernel are mapped as `TFLOAT32`: TMA rounds each element to TF32
    /// (to nearest, ties to even: measured, not documented by NVIDIA) on its way to shared
    /// memory, where `wgmma … .tf32` would otherwise drop the low 13 bits of the f32 pattern
    /// (truncation). `tests/tf32.rs` (`every_kernel_rounds_inputs_to_nearest`) checks the rule
    /// bit for bit; docs/precision.md states it for every path.
    pub(crate) fn encode(&self, spec: &KernelSpec) -> Result<TensorMap> {
        let dtype = match (spec.input, spec.math) {
            (Elem::F32, Math::MmaTf32 | Math::MmaTf32x3) => {
                CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
            }
            (elem, _) => data_type(elem),
        };
        let (dims, boxes): ([u64; 3], [u32; 3]) = if self.mn_major {
            (
                [self.rows, self.k, self.batch],
                [self.box_rows, self.box_k, 1],
            )
        } else {
            (
                [self.k, self.rows, self.batch],
                [self.box_k, self.box_rows, 1],
            )
        };
        let swizzle = if self.staged {
            CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE
        } else {
            CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B
        };
        let strides = [self.row_bytes, self.batch_bytes];
        encode_3d(dtype, self.base, dims, strides, boxes, swizzle, || {
            format!("{self:?}")
        })
    }
}

/// The tensor-map type of elements `elem` as stored (f32 as `FLOAT32`).
fn data_type(elem: Elem) -> CUtensorMapDataType {
    match elem {
        Elem::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        Elem::Bf16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        Elem::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    }
}

/// `cuTensorMapEncodeTiled` of a rank-3 map at `base` (dimensions and boxes innermost first, the
/// two outer strides in bytes, unit element strides, L2 promotion of 128 bytes); a refusal is an
/// invalid "tensor map" naming `what()`.
///
/// L2 promotion 128 bytes, not 256: the same on rows that start on 32-byte sectors, faster on rows
/// that do not (H200, same call, 128×256 kernels, TFLOPS with 256 → 128 bytes: 4096³ f16 `ld` 4104
/// 490 → 582, 3000³ f16 410 → 471, 4096³ TF32 `ld` 4100 238 → 289; 4096³ f16 769 → 771, TF32 423
/// → 421; none and 64 bytes as 128; docs/hopper-log.md, "Rows off 32-byte sectors").
fn encode_3d(
    dtype: CUtensorMapDataType,
    base: u64,
    dims: [u64; 3],
    strides: [u64; 2],
    boxes: [u32; 3],
    swizzle: CUtensorMapSwizzle,
    what: impl FnOnce() -> String,
) -> Result<TensorMap> {
    let elem_strides: [u32; 3] = [1, 1, 1];
    let mut map = CUtensorMap { opaque: [0; 16] };
    // SAFETY: every pointer is to a local array of the length the rank (3) implies; the driver
    // only reads them and writes `map`. The base address is the tensor's device address, which
    // the driver records without dereferencing.
    let r = unsafe {
        cuTensorMapEncodeTiled(
            &mut map,
            dtype,
            3,
            base as *mut core::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            elem_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    if r != CUresult::CUDA_SUCCESS {
        return Err(invalid(
            "tensor map",
            format!("cuTensorMapEncodeTiled refused {}: {r:?}", what()),
        ));
    }
    Ok(TensorMap(map.opaque))
}

/// Whether the consumers of `spec` store C by TMA for `p` (the parameters as the kernel reads
/// them): a TMA-fed body whose consumers hold rows of C, or (register-sourced A) of a swapped tile
/// of Cᵀ, whose writer transposes it (not the other swapped tiles, nor the thread copies), in
/// whole chunks of 128 bytes of columns (not `m64n144`), `beta == 0` (a bulk copy cannot add
/// `beta·C`), and C where TMA can write it: base, `ldc` and batch stride in bytes multiples of 16
/// (the TMA kernels' dispatch rule asks as much, the f32 slices of a split along K have it too),
/// each under 2⁴⁰, and rows of a whole number of 16-byte pieces ([`c_extent`]'s columns): a bulk
/// store writes whole 16-byte pieces of a row, past the row's end where it ends inside one (seen
/// on the H200: f32 C, `n` = 507, column 507 written).
pub(crate) fn stores_c_by_tma(p: &GemmParams, spec: &KernelSpec) -> bool {
    let eb = u64::from(spec.output.bytes());
    let fits = |bytes: u64| bytes % 16 == 0 && bytes < 1 << 40;
    let ping_pong = spec.family == Family::TmaPingPong;
    let share = consumer_cols(spec.block.m, spec.block.n, ping_pong);
    let (columns, _) = c_extent(p, spec);
    matches!(
        spec.family,
        Family::TmaWarpSpecialized | Family::TmaPingPong | Family::TmaPairs | Family::TmaRegisterA
    ) && (!spec.swaps_ab() || spec.family == Family::TmaRegisterA)
        && whole_c_chunks(share, spec.output.bytes())
        && p.flags & flags::BETA_ZERO != 0
        && p.c % 16 == 0
        && (u64::from(columns) * eb) % 16 == 0
        && fits(p.ldc * eb)
        && fits(p.stride_c * eb)
}

/// C's columns and rows from the parameters as `spec`'s kernel reads them: `(n, m)`, or `(m, n)`
/// where it computes `Cᵀ` ([swapped](KernelSpec::swaps_ab) parameters).
fn c_extent(p: &GemmParams, spec: &KernelSpec) -> (u32, u32) {
    if spec.swaps_ab() {
        (p.m, p.n)
    } else {
        (p.n, p.m)
    }
}

/// C's map for [`stores_c_by_tma`]: `(columns, rows, batch)` of C ([`c_extent`]), boxes of 128
/// bytes of columns × 64 rows, 128-byte swizzle; a batch extent of 1 where C's items are not apart
/// (`stride_c == 0`: one batch item, or the k-slices of a cluster split, which store the same C),
/// as the kernel then stores at batch coordinate 0.
fn c_map(p: &GemmParams, spec: &KernelSpec) -> Result<TensorMap> {
    let eb = u64::from(spec.output.bytes());
    let batch = if p.stride_c == 0 {
        1
    } else {
        u64::from(p.batch)
    };
    let (columns, rows) = c_extent(p, spec);
    let row_bytes = p.ldc * eb;
    // (a batch stride of 0 still needs a valid one: one past the last row)
    let batch_bytes = if p.stride_c == 0 {
        row_bytes * u64::from(rows)
    } else {
        p.stride_c * eb
    };
    let dims = [u64::from(columns), u64::from(rows), batch];
    let boxes = [128 / spec.output.bytes(), 64, 1];
    encode_3d(
        data_type(spec.output),
        p.c,
        dims,
        [row_bytes, batch_bytes],
        boxes,
        CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        || format!("C of {p:?}"),
    )
}

/// The kernel argument of a TMA kernel for the call's parameters `p`: the tensor maps plus the
/// parameters as the kernel reads them (with the batch flags set; [swapped](GemmParams::swapped)
/// for a kernel that [swaps](KernelSpec::swaps_ab) A and B). With `store_c` (the context's
/// [`ContextOptions::tma_store`](crate::ContextOptions::tma_store)), C's map too and
/// `flags::TMA_STORE_C` where [`stores_c_by_tma`] allows it.
pub(crate) fn tma_params(p: GemmParams, spec: &KernelSpec, store_c: bool) -> Result<TmaParams> {
    let mut p = if spec.swaps_ab() { p.swapped() } else { p };
    let map_c = if store_c && stores_c_by_tma(&p, spec) {
        p.flags |= flags::TMA_STORE_C;
        c_map(&p, spec)?
    } else {
        TensorMap::default()
    };
    let ma = OperandMap::of(&p, spec, true);
    let mb = OperandMap::of(&p, spec, false);
    if ma.batch > 1 {
        p.flags |= flags::TMA_BATCH_A;
    }
    if mb.batch > 1 {
        p.flags |= flags::TMA_BATCH_B;
    }
    Ok(TmaParams {
        map_a: ma.encode(spec)?,
        map_b: mb.encode(spec)?,
        map_c,
        p,
    })
}

#[cfg(test)]
mod tests;
