//! Tensor maps for the Hopper (sm_90a) TMA kernels, encoded on the host with
//! `cuTensorMapEncodeTiled` for each call.
//!
//! Both operands are read K-major: A (not transposed) as `rows = m`, B (transposed, `n×k`) as
//! `rows = n`. Each map is three-dimensional, `(k, rows, batch)` innermost first, with strides
//! `(ld, stride)` in bytes; boxes are `BK × BM × 1` (A) and `BK × BN × 1` (B) with the 128-byte
//! swizzle the kernels' `wgmma` descriptors expect. Elements outside the tensor arrive as zeros, so
//! tails need no special case. An operand without a batch dimension (one batch item, or a batch
//! stride of 0) gets a batch extent of 1 and the kernel reads item 0 for every `z`
//! (`flags::TMA_BATCH_A/B` say which).

use crate::error::{invalid, Result};
use cudarc::driver::sys::{
    cuTensorMapEncodeTiled, CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill,
    CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use tcgemm_kernels::config::{Elem, KernelSpec};
use tcgemm_kernels::params::{flags, GemmParams, TensorMap, TmaParams};

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
}

impl OperandMap {
    /// The map of one operand of `p` (`a == true`: A) for a kernel with block tile `spec.block`.
    pub(crate) fn of(p: &GemmParams, spec: &KernelSpec, a: bool) -> Self {
        let eb = u64::from(spec.input.bytes());
        let (base, ld, stride, rows, box_rows) = if a {
            (p.a, p.lda, p.stride_a, p.m, spec.block.m)
        } else {
            (p.b, p.ldb, p.stride_b, p.n, spec.block.n)
        };
        let batched = p.batch > 1 && stride != 0;
        let row_bytes = ld * eb;
        OperandMap {
            base,
            // k == 0 (A and B unreferenced) still needs a valid map; the kernel issues no copy
            k: u64::from(p.k.max(1)),
            rows: u64::from(rows),
            batch: if batched { u64::from(p.batch) } else { 1 },
            row_bytes,
            batch_bytes: if batched {
                stride * eb
            } else {
                row_bytes * u64::from(rows)
            },
            box_k: spec.block.k,
            box_rows,
        }
    }

    /// Encodes the map for elements of type `elem`.
    pub(crate) fn encode(&self, elem: Elem) -> Result<TensorMap> {
        let dtype = match elem {
            Elem::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            Elem::Bf16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            Elem::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        };
        let dims: [u64; 3] = [self.k, self.rows, self.batch];
        let strides: [u64; 2] = [self.row_bytes, self.batch_bytes];
        let boxes: [u32; 3] = [self.box_k, self.box_rows, 1];
        let elem_strides: [u32; 3] = [1, 1, 1];
        let mut map = CUtensorMap { opaque: [0; 16] };
        // SAFETY: every pointer is to a local array of the length the rank (3) implies; the driver
        // only reads them and writes `map`. The base address is the operand's device address, which
        // the driver records without dereferencing.
        let r = unsafe {
            cuTensorMapEncodeTiled(
                &mut map,
                dtype,
                3,
                self.base as *mut core::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                elem_strides.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if r != CUresult::CUDA_SUCCESS {
            return Err(invalid(
                "tensor map",
                format!("cuTensorMapEncodeTiled refused {self:?}: {r:?}"),
            ));
        }
        Ok(TensorMap(map.opaque))
    }
}

/// The kernel argument of a TMA kernel: both tensor maps plus `p` (with the batch flags set).
pub(crate) fn tma_params(p: GemmParams, spec: &KernelSpec) -> Result<TmaParams> {
    let ma = OperandMap::of(&p, spec, true);
    let mb = OperandMap::of(&p, spec, false);
    let mut p = p;
    if ma.batch > 1 {
        p.flags |= flags::TMA_BATCH_A;
    }
    if mb.batch > 1 {
        p.flags |= flags::TMA_BATCH_B;
    }
    Ok(TmaParams {
        map_a: ma.encode(spec.input)?,
        map_b: mb.encode(spec.input)?,
        p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcgemm_kernels::config::{uses_tma_params, KERNELS};

    fn spec() -> &'static KernelSpec {
        KERNELS.iter().find(|k| uses_tma_params(k)).unwrap()
    }

    #[test]
    fn operand_maps_follow_the_params() {
        let p = GemmParams {
            a: 0x1000,
            b: 0x2000,
            lda: 72,
            ldb: 136,
            stride_a: 72 * 100,
            stride_b: 0,
            m: 100,
            n: 130,
            k: 70,
            batch: 3,
            ..GemmParams::default()
        };
        let s = spec();
        let a = OperandMap::of(&p, s, true);
        assert_eq!((a.k, a.rows, a.batch), (70, 100, 3));
        assert_eq!((a.row_bytes, a.batch_bytes), (144, 14400));
        assert_eq!((a.box_k, a.box_rows), (s.block.k, s.block.m));
        // a zero batch stride shares B across the batch: no batch dimension
        let b = OperandMap::of(&p, s, false);
        assert_eq!((b.rows, b.batch, b.row_bytes), (130, 1, 272));
        assert_eq!(b.box_rows, s.block.n);
    }

    #[test]
    fn k_zero_still_gives_a_valid_extent() {
        let p = GemmParams {
            m: 1,
            n: 1,
            k: 0,
            batch: 1,
            lda: 8,
            ldb: 8,
            ..GemmParams::default()
        };
        assert_eq!(OperandMap::of(&p, spec(), true).k, 1);
    }
}
