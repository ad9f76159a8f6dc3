//! [`Context::convert`]: element-wise conversion between f32 and the 16-bit types on the GPU.

use crate::context::Context;
use crate::element::Element;
use crate::error::{invalid, Result};
use crate::launch;
use crate::plan::Plan;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use tcgemm_kernels::config::{Elem, KernelSpec, Role, KERNELS};
use tcgemm_kernels::params::ConvertParams;

/// The conversion kernel `input -> output`.
///
/// # Errors
/// `InvalidArgument` `element types` for a pair without one, naming the pairs that exist.
fn conversion(input: Elem, output: Elem) -> Result<&'static KernelSpec> {
    let converts = || KERNELS.iter().filter(|k| k.role() == Role::Convert);
    converts()
        .find(|k| k.input == input && k.output == output)
        .ok_or_else(|| {
            let pairs: Vec<String> = converts()
                .map(|k| format!("{:?} -> {:?}", k.input, k.output))
                .collect();
            invalid(
                "element types",
                format!(
                    "no conversion {input:?} -> {output:?}; tcgemm converts {}",
                    pairs.join(", ")
                ),
            )
        })
}

/// The parameters of a conversion of `len` elements from `src` to `dst`: 16-byte vector
/// accesses (groups of 4 elements) when both addresses allow them.
fn convert_params(src: u64, dst: u64, len: usize, input: Elem, output: Elem) -> ConvertParams {
    // Vector groups of 4: 16 bytes of f32 and 8 bytes of 16-bit elements.
    let (sa, da) = (4 * u64::from(input.bytes()), 4 * u64::from(output.bytes()));
    let vector = src % sa == 0 && dst % da == 0;
    ConvertParams {
        src,
        dst,
        len: len as u64,
        vector: u32::from(vector),
        _pad: 0,
    }
}

/// Blocks of a conversion of `len` elements: one group of 4 per thread, at most
/// `min_blocks_per_sm` blocks per SM (the kernel strides over the rest), at least one.
fn convert_blocks(spec: &KernelSpec, len: usize, sm_count: u32) -> u32 {
    let groups = len.div_ceil(4 * spec.threads.max(1) as usize);
    let blocks = (sm_count as usize * spec.min_blocks_per_sm as usize)
        .min(groups)
        .max(1);
    // ≤ sm_count · min_blocks_per_sm, a u32 product
    blocks as u32
}

impl Context {
    /// Converts `src` element-wise into `dst` on the GPU, asynchronously on the context's stream:
    /// f32 → f16 or bf16 (round to nearest even; beyond the range → ±inf, NaN stays NaN, subnormals
    /// kept) and f16 or bf16 → f32 (exact). So f32 data can take the 16-bit tensor-core path.
    /// Converts `src.len()` elements; `dst` may be longer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument): `element types` for a type pair
    /// without a conversion (the message lists those that exist), `dst` when it is shorter than
    /// `src`, `src`/`dst` for a buffer on another device.
    ///
    /// ```no_run
    /// use tcgemm::Context;
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let x = s.clone_htod(&vec![1.5f32; 1000])?;
    /// let mut h = s.alloc_zeros::<half::f16>(1000)?;
    /// ctx.convert(&x, &mut h)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn convert<S, D, A, B>(&self, src: &A, dst: &mut B) -> Result<()>
    where
        S: Element,
        D: Element,
        A: DevicePtr<S>,
        B: DevicePtrMut<D>,
    {
        let spec = conversion(S::ELEM, D::ELEM)?;
        let n = src.len();
        if dst.len() < n {
            return Err(invalid(
                "dst",
                format!("holds {} elements but src has {n}", dst.len()),
            ));
        }
        self.check_buffer("src", src)?;
        self.check_buffer("dst", dst)?;
        if n == 0 {
            return Ok(());
        }
        let func = self.function(spec, "conversion kernel")?;
        let (ps, _read) = src.device_ptr(self.stream());
        let (pd, _write) = dst.device_ptr_mut(self.stream());
        let p = convert_params(ps, pd, n, S::ELEM, D::ELEM);
        let blocks = convert_blocks(spec, n, self.capabilities().sm_count);
        let plan = Plan::with_grid(spec, (blocks, 1, 1), 0);
        // SAFETY: conversion kernels take one `ConvertParams` and touch only `src[0..len]` (read)
        // and `dst[0..len]` (write); `src` holds `n` elements and `dst` at least `n`; `vector` is
        // set only when both addresses have the vector alignment; the guards live across the
        // launch on this context's stream.
        unsafe { launch::launch(self.cuda(), self.stream().cu_stream(), func, &plan, &p) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn conversions_exist_both_ways() {
        for (i, o) in [
            (Elem::F32, Elem::F16),
            (Elem::F32, Elem::Bf16),
            (Elem::F16, Elem::F32),
            (Elem::Bf16, Elem::F32),
        ] {
            let k = conversion(i, o).unwrap();
            assert_eq!(
                k.family.params(),
                tcgemm_kernels::config::ParamsKind::Convert
            );
        }
    }

    #[test]
    fn other_pairs_are_invalid_and_name_those_that_exist() {
        for (i, o) in [(Elem::F32, Elem::F32), (Elem::F16, Elem::Bf16)] {
            match conversion(i, o) {
                Err(Error::InvalidArgument { what, why }) => {
                    assert_eq!(what, "element types", "{why}");
                    assert!(why.contains("no conversion"), "{why}");
                    assert!(
                        why.contains("F32 -> F16") && why.contains("Bf16 -> F32"),
                        "{why}"
                    );
                }
                other => panic!("{i:?} -> {o:?}: expected InvalidArgument, got {other:?}"),
            }
        }
    }

    #[test]
    fn params_map_the_old_fields() {
        // src = a, dst = c, len = stride_a, vector = VEC_A && VEC_C (HELPERS.md)
        let p = convert_params(0x1000, 0x2008, 1000, Elem::F32, Elem::F16);
        assert_eq!((p.src, p.dst, p.len, p.vector), (0x1000, 0x2008, 1000, 1));
        // f32 source off a 16-byte boundary; f16 destination off an 8-byte one
        assert_eq!(
            convert_params(0x1004, 0x2000, 8, Elem::F32, Elem::F16).vector,
            0
        );
        assert_eq!(
            convert_params(0x1000, 0x2004, 8, Elem::F32, Elem::F16).vector,
            0
        );
        assert_eq!(
            convert_params(0x1008, 0x2010, 8, Elem::F16, Elem::F32).vector,
            1
        );
    }

    #[test]
    fn blocks_cover_the_groups_up_to_the_resident_limit() {
        let k = conversion(Elem::F32, Elem::F16).unwrap();
        let per_block = 4 * k.threads as usize;
        assert_eq!(convert_blocks(k, 1, 132), 1);
        assert_eq!(convert_blocks(k, 3 * per_block, 132), 3);
        assert_eq!(
            convert_blocks(k, usize::MAX / 2, 132),
            132 * k.min_blocks_per_sm
        );
    }
}
