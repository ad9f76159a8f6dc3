//! Which kernel can compute which [`Problem`]: [`can_implement`] and the [`Reason`] it gives.
//!
//! Every rule is keyed on the kernel's [`Family`] (`needs_tma()`, `persistent()`) and its table
//! fields, never on its name or module. Dispatch filters candidates with [`can_implement`], the
//! error texts quote its [`Reason`], and [`Context::gemm_with_kernel`](crate::Context::gemm_with_kernel)
//! checks a kernel named by the caller with it.

use crate::problem::{Operand, OperandLayout, Problem, Signature};
use tcgemm_kernels::config::{Elem, Family, KernelSpec, Math, Role};

/// The part of an operand's addressing a rule is about.
///
/// ```
/// assert_eq!(tcgemm::OperandPart::LeadingDimension.to_string(), "leading dimension");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandPart {
    /// The address of batch item 0.
    Base,
    /// The distance between rows, `lda`/`ldb`/`ldc`.
    LeadingDimension,
    /// The distance between batch items, `stride_a`/`stride_b`/`stride_c`.
    BatchStride,
}

impl core::fmt::Display for OperandPart {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            OperandPart::Base => "base address",
            OperandPart::LeadingDimension => "leading dimension",
            OperandPart::BatchStride => "batch stride",
        })
    }
}

/// Why a kernel cannot compute a problem ([`can_implement`]) or cannot run it on a context
/// ([`Context::can_run`](crate::Context::can_run)). `Display` says what to change.
///
/// ```
/// use tcgemm::{Operand, OperandPart, Reason};
/// let r = Reason::Misaligned { operand: Operand::A, part: OperandPart::LeadingDimension, value: 257, elem_bytes: 4 };
/// assert!(r.to_string().starts_with("TMA kernels need 16-byte-aligned"));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// The kernel is a utility (a conversion or an instruction-ceiling microbenchmark).
    NotGemm {
        /// What the kernel is.
        role: Role,
    },
    /// The kernel multiplies other element types.
    ElementTypes {
        /// The kernel's `(input, output)`.
        kernel: (Elem, Elem),
        /// The problem's `(input, output)`.
        problem: (Elem, Elem),
    },
    /// The kernel takes other transposes.
    Layout {
        /// The kernel's `(trans_a, trans_b)`.
        kernel: (bool, bool),
        /// The problem's `(trans_a, trans_b)`.
        problem: (bool, bool),
    },
    /// The kernel's instruction is not one the problem's precision accepts.
    Math {
        /// The kernel's instruction.
        kernel: Math,
        /// The instructions the problem accepts.
        accepted: &'static [Math],
    },
    /// A TMA kernel, and a base address, leading dimension or batch stride that is not a whole
    /// multiple of 16 bytes.
    Misaligned {
        /// Which operand.
        operand: Operand,
        /// Which part of it.
        part: OperandPart,
        /// The address, or the leading dimension or stride in elements.
        value: u64,
        /// Bytes per element.
        elem_bytes: u32,
    },
    /// A TMA kernel, and rows or batch items of A or B 2⁴⁰ bytes or more apart (a tensor map's
    /// strides are below 2⁴⁰ bytes).
    TensorMapStride {
        /// Which operand.
        operand: Operand,
        /// Which part of it.
        part: OperandPart,
        /// The stride, in bytes.
        bytes: u128,
    },
    /// A persistent kernel, and a call that does not read A and B (`k == 0` or `alpha == 0`).
    NoProduct {
        /// The kernel's family.
        family: Family,
        /// The call's `k`.
        k: usize,
        /// The call's `alpha`.
        alpha: f32,
    },
    /// A persistent kernel, and 2³² or more work items (output tiles × batch items).
    TooManyWorkItems {
        /// The kernel's family.
        family: Family,
        /// The call's work items.
        work: u64,
    },
    /// The kernel is not loaded on this context (its module is not loaded, it is missing from the
    /// module, or it needs more shared memory than the device allows).
    NotLoaded {
        /// Why.
        why: String,
    },
}

/// How the text of a rule names the kernels it applies to.
fn kernels_of(family: Family) -> &'static str {
    if family.needs_tma() {
        "TMA kernels"
    } else {
        "persistent kernels"
    }
}

impl core::fmt::Display for Reason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Reason::NotGemm { role } => {
                let (what, see) = match role {
                    Role::Convert => ("an element-wise conversion", "Context::convert"),
                    Role::Copy => (
                        "a strided copy",
                        "Context::gemm, which stages operands that are not 16-byte aligned with it",
                    ),
                    Role::Split => (
                        "the TF32 split of operands",
                        "Context::gemm with Precision::Tf32x3, which runs it",
                    ),
                    Role::SplitkReduce => (
                        "the split-K reduction",
                        "Context::gemm, which runs it after a call split along K",
                    ),
                    _ => (
                        "an instruction-ceiling microbenchmark",
                        "Context::instruction_ceiling",
                    ),
                };
                write!(f, "{what}, not a GEMM kernel; see {see}")
            }
            Reason::ElementTypes { kernel, problem } => write!(
                f,
                "multiplies {:?} -> {:?} but the buffers are {:?} -> {:?}; \
                 pick a kernel with matching element types (see Context::kernels)",
                kernel.0, kernel.1, problem.0, problem.1
            ),
            Reason::Layout { kernel, problem } => write!(
                f,
                "takes trans_a={}, trans_b={} but the call has trans_a={}, trans_b={}; \
                 pick the kernel for this layout",
                kernel.0, kernel.1, problem.0, problem.1
            ),
            Reason::Math { kernel, accepted } => write!(
                f,
                "computes with {kernel:?} but the call's precision accepts {accepted:?}; \
                 choose another Precision or another kernel"
            ),
            Reason::Misaligned {
                operand,
                part,
                value,
                elem_bytes,
            } => {
                write!(
                    f,
                    "TMA kernels need 16-byte-aligned base addresses, leading dimensions and batch strides; "
                )?;
                match part {
                    OperandPart::Base => write!(f, "{operand}'s base address {value:#x} is not"),
                    _ => write!(
                        f,
                        "{operand}'s {part} of {value} elements ({} bytes) is not a multiple of 16 bytes",
                        u128::from(*value) * u128::from(*elem_bytes)
                    ),
                }
            }
            Reason::TensorMapStride {
                operand,
                part,
                bytes,
            } => write!(
                f,
                "TMA kernels need rows and batch items of A and B less than 2^40 bytes apart \
                 (a tensor map's strides); {operand}'s {part} is {bytes} bytes"
            ),
            Reason::NoProduct { family, k, alpha } => write!(
                f,
                "{} need k ≥ 1 with alpha ≠ 0 (they always read A and B); this call has k = {k}, alpha = {alpha}",
                kernels_of(*family)
            ),
            Reason::TooManyWorkItems { family, work } => write!(
                f,
                "{} need fewer than 2^32 output tiles × batch items (they count them in 32 bits); \
                 this call has {work}",
                kernels_of(*family)
            ),
            Reason::NotLoaded { why } => f.write_str(why),
        }
    }
}

impl std::error::Error for Reason {}

/// Whether `kernel` computes `problem` correctly: a GEMM kernel with the problem's element types
/// and transposes, an instruction the problem's precision accepts (any, before
/// [`Problem::resolve_precision`]), and the rules of its [`Family`]:
///
/// - `needs_tma()`: 16-byte-aligned base addresses, leading dimensions and (with several batch
///   items) batch strides of A, B and C; rows and batch items of A and B less than 2⁴⁰ bytes apart.
/// - `persistent()`: a call that reads A and B (`k ≥ 1`, `alpha ≠ 0`) and fewer than 2³² work items.
///
/// Whether the kernel is loaded is the context's business ([`Context::can_run`](crate::Context::can_run));
/// the launch grid's limits are the call's ([`Plan`](crate::Plan)).
///
/// # Errors
/// The first rule broken, as a [`Reason`].
///
/// ```
/// use tcgemm::{can_implement, Elem, Gemm, Operand, OperandPart, Problem, Reason};
/// use tcgemm_kernels::config::KERNELS;
/// let tma = KERNELS
///     .iter()
///     .find(|k| k.family.needs_tma() && (k.input, k.output) == (Elem::F16, Elem::F32) && !k.trans_a && !k.trans_b)
///     .unwrap();
/// let g = Gemm::new(256, 256, 64);
/// let problem = |g: &Gemm| Problem::assume_aligned::<half::f16, f32>(g);
/// assert!(can_implement(tma, &problem(&g)?).is_ok());
/// assert!(matches!(can_implement(tma, &problem(&g.alpha(0.0))?), Err(Reason::NoProduct { .. })));
/// // lda = 68 halves = 136 bytes
/// let r = can_implement(tma, &problem(&g.lda(68))?).unwrap_err();
/// assert!(matches!(r, Reason::Misaligned { operand: Operand::A, part: OperandPart::LeadingDimension, .. }));
/// # Ok::<(), tcgemm::Error>(())
/// ```
pub fn can_implement(kernel: &KernelSpec, problem: &Problem) -> Result<(), Reason> {
    check_signature(kernel, problem.signature())?;
    check_operands(kernel, problem)
}

/// The rules that need no buffers: role, element types, transposes and math.
pub(crate) fn check_signature(kernel: &KernelSpec, sig: &Signature) -> Result<(), Reason> {
    if kernel.role() != Role::Gemm {
        return Err(Reason::NotGemm {
            role: kernel.role(),
        });
    }
    if (kernel.input, kernel.output) != (sig.input, sig.output) {
        return Err(Reason::ElementTypes {
            kernel: (kernel.input, kernel.output),
            problem: (sig.input, sig.output),
        });
    }
    if (kernel.trans_a, kernel.trans_b) != (sig.trans_a, sig.trans_b) {
        return Err(Reason::Layout {
            kernel: (kernel.trans_a, kernel.trans_b),
            problem: (sig.trans_a, sig.trans_b),
        });
    }
    match sig.maths {
        Some(accepted) if !accepted.contains(&kernel.math) => Err(Reason::Math {
            kernel: kernel.math,
            accepted,
        }),
        _ => Ok(()),
    }
}

/// The rules of the kernel's family on the problem's operands and sizes.
pub(crate) fn check_operands(kernel: &KernelSpec, problem: &Problem) -> Result<(), Reason> {
    if kernel.family.needs_tma() {
        for operand in [problem.a(), problem.b()] {
            check_tma_reads(operand, problem.gemm().batch)?;
        }
        // C is written by threads, 16 bytes at a time: aligned, any strides
        check_tma_alignment(problem.c())?;
    }
    if kernel.family.persistent() {
        let g = problem.gemm();
        if !problem.reads_ab() {
            return Err(Reason::NoProduct {
                family: kernel.family,
                k: g.k,
                alpha: g.alpha,
            });
        }
        let work = problem.work_items(kernel.c_tile());
        if work > u64::from(u32::MAX) {
            return Err(Reason::TooManyWorkItems {
                family: kernel.family,
                work,
            });
        }
    }
    Ok(())
}

/// Whether TMA could read both A and B of `problem` (aligned bases, leading dimensions and batch
/// strides, strides below 2⁴⁰ bytes), whatever C is. Dispatch leaves such calls to other kernels
/// than the thread-copy ones ([`select`](crate::dispatch)): with 16-byte copies allowed, the sm_80
/// kernels' `cp.async` outran the thread copies (docs/unaligned-log.md).
pub(crate) fn tma_reads_ab(problem: &Problem) -> bool {
    [problem.a(), problem.b()]
        .into_iter()
        .all(|op| check_tma_reads(op, problem.gemm().batch).is_ok())
}

/// Whether TMA would read A or B of `problem` (which it can read, [`tma_reads_ab`]) off 32-byte
/// sectors ([`off_sectors`]): where the TMA tiles alone run at about 0.72 of their speed on rows
/// that start on sectors (the staging model's `OFF_SECTORS`), and the tiles in pairs sharing B
/// ([`Family::TmaPairs`]) do not.
pub(crate) fn tma_reads_off_sectors(problem: &Problem) -> bool {
    let batch = problem.gemm().batch;
    tma_reads_ab(problem)
        && [problem.a(), problem.b()]
            .into_iter()
            .any(|op| off_sectors(op, batch))
}

/// Bytes a row, base or batch item of an A or B must start on for TMA to read it at full speed.
const SECTOR: u64 = 32;

/// Whether TMA would read input `op` of a call with `batch` items off 32-byte sectors: 16-byte
/// aligned (so TMA takes it), but its rows, base or batch items do not start on sectors.
pub(crate) fn off_sectors(op: &OperandLayout, batch: usize) -> bool {
    let bytes = u64::from(op.elem.bytes());
    let on = |x: u64| x % SECTOR == 0;
    // a distance too large to count in bytes is left alone (counted as on sectors)
    let apart_on = |elems: usize| (elems as u64).checked_mul(bytes).is_none_or(on);
    let sectors = apart_on(op.ld) && op.base.is_none_or(on) && (batch <= 1 || apart_on(op.stride));
    op.operand != Operand::C && op.alignment.all() && !sectors
}

/// TMA can read the input operand `op` of a call with `batch` items: aligned, and strides a tensor
/// map can hold.
fn check_tma_reads(op: &OperandLayout, batch: usize) -> Result<(), Reason> {
    check_tma_alignment(op)?;
    check_tensor_map_strides(op, batch)
}

/// TMA reads whole 16-byte chunks: base, leading dimension and (batched) stride aligned.
fn check_tma_alignment(op: &OperandLayout) -> Result<(), Reason> {
    let misaligned = |part, value: u64| Reason::Misaligned {
        operand: op.operand,
        part,
        value,
        elem_bytes: op.elem.bytes(),
    };
    let al = op.alignment;
    if !al.base {
        return Err(misaligned(OperandPart::Base, op.base.unwrap_or(0)));
    }
    if !al.ld {
        return Err(misaligned(OperandPart::LeadingDimension, op.ld as u64));
    }
    if !al.stride {
        return Err(misaligned(OperandPart::BatchStride, op.stride as u64));
    }
    Ok(())
}

/// A tensor map's strides are below 2⁴⁰ bytes (a one-row operand can have any `ld`, but the map
/// still records it).
fn check_tensor_map_strides(op: &OperandLayout, batch: usize) -> Result<(), Reason> {
    let bytes = |elems: usize| (elems as u128) * u128::from(op.elem.bytes());
    let mut parts = vec![(OperandPart::LeadingDimension, bytes(op.ld))];
    if batch > 1 {
        parts.push((OperandPart::BatchStride, bytes(op.stride)));
    }
    match parts.into_iter().find(|&(_, b)| b >= 1 << 40) {
        Some((part, bytes)) => Err(Reason::TensorMapStride {
            operand: op.operand,
            part,
            bytes,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
