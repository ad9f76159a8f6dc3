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

use crate::error::{invalid, Result};
use cudarc::driver::sys::{
    cuTensorMapEncodeTiled, CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill,
    CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use tcgemm_kernels::config::{tma_staged, Elem, KernelSpec, Math};
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
            (p.b, p.ldb, p.stride_b, p.n, spec.block.n, !trans_b)
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
            (Elem::F16, _) => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            (Elem::Bf16, _) => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            (Elem::F32, Math::MmaTf32 | Math::MmaTf32x3) => {
                CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
            }
            (Elem::F32, _) => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
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
        let strides: [u64; 2] = [self.row_bytes, self.batch_bytes];
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
                if self.staged {
                    CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE
                } else {
                    CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B
                },
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

/// The kernel argument of a TMA kernel for the call's parameters `p`: both tensor maps plus the
/// parameters as the kernel reads them (with the batch flags set; [swapped](GemmParams::swapped)
/// for a kernel that [swaps](KernelSpec::swaps_ab) A and B).
pub(crate) fn tma_params(p: GemmParams, spec: &KernelSpec) -> Result<TmaParams> {
    let mut p = if spec.swaps_ab() { p.swapped() } else { p };
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
        p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcgemm_kernels::config::{Family, KERNELS};

    fn spec() -> &'static KernelSpec {
        KERNELS
            .iter()
            .find(|k| k.family.needs_tma() && !k.trans_a && k.trans_b)
            .unwrap()
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

    /// One 100×130×70 item, lda 104, ldb 136.
    fn packed_100x130x70() -> GemmParams {
        GemmParams {
            lda: 104,
            ldb: 136,
            m: 100,
            n: 130,
            k: 70,
            batch: 1,
            ..GemmParams::default()
        }
    }

    #[test]
    fn mn_major_operands_get_64_wide_boxes() {
        let p = packed_100x130x70();
        let nns: Vec<&KernelSpec> = KERNELS
            .iter()
            .filter(|k| k.family.needs_tma() && !k.trans_a && !k.trans_b && k.input == Elem::F16)
            .collect();
        // the 128×256 and the 128×128 tiles
        assert!(nns.iter().any(|k| k.block.n == 256) && nns.iter().any(|k| k.block.n == 128));
        for nn in nns {
            let b = OperandMap::of(&p, nn, false);
            assert!(b.mn_major);
            assert_eq!((b.box_rows, b.box_k), (64, nn.block.k), "{}", nn.name);
            assert_eq!((b.row_bytes, b.batch_bytes), (272, 272 * 70));
            assert!(!OperandMap::of(&p, nn, true).mn_major);
            assert!(!b.staged);
        }
    }

    #[test]
    fn k_major_boxes_span_the_tile() {
        let p = packed_100x130x70();
        for nt in KERNELS
            .iter()
            .filter(|k| k.family.needs_tma() && !k.trans_a && k.trans_b)
        {
            let (a, b) = (OperandMap::of(&p, nt, true), OperandMap::of(&p, nt, false));
            assert!(!a.mn_major && !b.mn_major, "{}", nt.name);
            // one box of the tile's rows, one 128-byte swizzle row of k
            assert_eq!(
                (a.box_rows, a.box_k),
                (nt.block.m, nt.block.k),
                "{}",
                nt.name
            );
            assert_eq!(
                (b.box_rows, b.box_k),
                (nt.block.n, nt.block.k),
                "{}",
                nt.name
            );
            assert_eq!(b.box_k * nt.input.bytes(), 128, "{}", nt.name);
        }
    }

    /// TF32 MN-major operands are staged as 32×32 blocks, except A of the register-sourced
    /// kernels, which arrives as one 128-byte row of m (32 elements) × 32 k, swizzled.
    #[test]
    fn tf32_mn_major_operands_are_staged_as_32x32_blocks() {
        let p = packed_100x130x70();
        for spec in KERNELS
            .iter()
            .filter(|k| k.family.needs_tma() && k.input == Elem::F32)
        {
            let (a, b) = (
                OperandMap::of(&p, spec, true),
                OperandMap::of(&p, spec, false),
            );
            let register_a = spec.family == Family::TmaRegisterA;
            let (trans_a, trans_b) = spec.body_layout();
            assert_eq!(
                (a.staged, b.staged),
                (trans_a && !register_a, !trans_b),
                "{}",
                spec.name
            );
            for (m, rows) in [(a, spec.block.m), (b, spec.block.n)] {
                // staged or read into registers: 32 MN-elements; K-major: the tile's rows
                let want = if m.mn_major { 32 } else { rows };
                assert_eq!((m.box_rows, m.box_k), (want, 32), "{}", spec.name);
            }
            assert_eq!(a.mn_major, trans_a, "{}", spec.name);
            assert_eq!(b.mn_major, b.staged, "{}", spec.name);
        }
    }

    /// A kernel that swaps A and B maps the call's B (N-major, `ldb`) as its M-major A, boxes of
    /// one 128-byte row, and the call's A as its K-major B, boxes of the tile's 128 rows.
    #[test]
    fn swapping_kernels_map_b_as_their_a() {
        let p = GemmParams {
            a: 0x1000,
            b: 0x2000,
            flags: flags::VEC_A,
            ..packed_100x130x70()
        };
        for nn in KERNELS.iter().filter(|k| k.swaps_ab()) {
            assert!(!nn.trans_a && !nn.trans_b, "{}", nn.name);
            let s = p.swapped();
            assert_eq!(s.flags, flags::VEC_B);
            let (a, b) = (OperandMap::of(&s, nn, true), OperandMap::of(&s, nn, false));
            assert_eq!(
                (a.base, a.rows, a.row_bytes),
                (0x2000, 130, 136 * 4),
                "{}",
                nn.name
            );
            assert!(a.mn_major && !a.staged, "{}", nn.name);
            assert_eq!((a.box_rows, a.box_k), (32, 32), "{}", nn.name);
            assert_eq!(
                (b.base, b.rows, b.row_bytes),
                (0x1000, 100, 104 * 4),
                "{}",
                nn.name
            );
            assert!(!b.mn_major && !b.staged, "{}", nn.name);
            assert_eq!((b.box_rows, b.box_k), (nn.block.n, 32), "{}", nn.name);
        }
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

    #[test]
    fn encode_refusal_is_an_invalid_tensor_map() {
        // docs/errors.md: the driver's tensor-map encoder refuses the operand (here a base address
        // that is not 16-byte aligned, and rows more than 2^40 bytes apart). Needs the driver library
        // (no device): skipped without it.
        // SAFETY: only tries to dlopen the CUDA driver library by its usual names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            println!("skipped: no CUDA driver library");
            return;
        }
        // SAFETY: a driver library loads (checked above), so `culib` returns cudarc's handle to it
        // without panicking.
        let lib = unsafe { cudarc::driver::sys::culib() };
        // SAFETY: looks the symbol up without calling it; the typed pointer is discarded.
        if unsafe { lib.get::<unsafe extern "C" fn()>(b"cuTensorMapEncodeTiled") }.is_err() {
            println!("skipped: the CUDA driver lacks cuTensorMapEncodeTiled");
            return;
        }
        let p = GemmParams {
            a: 0x1000,
            b: 0x2000,
            lda: 72,
            ldb: 136,
            m: 100,
            n: 130,
            k: 70,
            batch: 1,
            ..GemmParams::default()
        };
        let s = spec();
        for bad in [
            GemmParams { a: 0x1004, ..p },
            GemmParams { lda: 1 << 40, ..p },
        ] {
            match OperandMap::of(&bad, s, true).encode(s) {
                Err(crate::Error::InvalidArgument { what, why }) => {
                    assert_eq!(what, "tensor map", "{why}");
                    assert!(why.contains("cuTensorMapEncodeTiled refused"), "{why}");
                }
                Err(other) => panic!("expected InvalidArgument, got {other:?}"),
                Ok(_) => panic!("a map for {bad:?} was encoded"),
            }
        }
    }
}
