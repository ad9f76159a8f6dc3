//! One operand of a [`Problem`](super::Problem): its layout, address and 16-byte alignment.

use tcgemm_kernels::config::Elem;

/// One of a GEMM's three operands.
///
/// ```
/// use tcgemm::Operand;
/// assert_eq!(Operand::B.to_string(), "B");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The left input, `op(A)` is `m×k`.
    A,
    /// The right input, `op(B)` is `k×n`.
    B,
    /// The output, `m×n`.
    C,
}

impl core::fmt::Display for Operand {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Operand::A => "A",
            Operand::B => "B",
            Operand::C => "C",
        })
    }
}

/// Which parts of an operand's addressing are whole multiples of 16 bytes: the rule for 16-byte
/// vector accesses and for TMA tensor maps.
///
/// ```
/// use tcgemm::{Gemm, Problem};
/// // lda = 12 f32 = 48 bytes; ldb = 6 f32 = 24 bytes
/// let p = Problem::assume_aligned::<f32, f32>(&Gemm::new(8, 6, 12))?;
/// assert!(p.a().alignment.all());
/// assert!(p.b().alignment.base && !p.b().alignment.ld);
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// The base address (assumed aligned when planning without buffers).
    pub base: bool,
    /// The leading dimension, in bytes.
    pub ld: bool,
    /// The batch stride, in bytes (true with one batch item: the stride is never used).
    pub stride: bool,
}

impl Alignment {
    /// All three parts: the operand allows 16-byte accesses everywhere.
    ///
    /// ```
    /// let a = tcgemm::Alignment { base: true, ld: true, stride: false };
    /// assert!(!a.all());
    /// ```
    pub fn all(self) -> bool {
        self.base && self.ld && self.stride
    }
}

/// Whether `elems` elements of `elem` are a whole number of 16-byte chunks (the one statement of
/// the 16-byte rule).
pub(super) fn multiple_of_16_bytes(elems: u64, elem: Elem) -> bool {
    elems
        .checked_mul(u64::from(elem.bytes()))
        .is_some_and(|b| b % 16 == 0)
}

/// One operand as the call addresses it.
///
/// ```
/// use tcgemm::{Gemm, Operand, Problem};
/// let p = Problem::assume_aligned::<half::f16, f32>(&Gemm::new(4, 8, 16).trans_a(true))?;
/// let a = p.a();
/// assert_eq!((a.operand, a.ld, a.stride, a.len), (Operand::A, 4, 64, 64));
/// assert_eq!(a.base, None); // planned without buffers
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandLayout {
    /// Which operand.
    pub operand: Operand,
    /// Element type.
    pub elem: Elem,
    /// Effective leading dimension, in elements ([`Gemm::lda_or_packed`](crate::Gemm::lda_or_packed) and the like).
    pub ld: usize,
    /// Effective batch stride, in elements ([`Gemm::stride_a_or_packed`](crate::Gemm::stride_a_or_packed) and the like).
    pub stride: usize,
    /// Elements the buffer holds (the required length when planning without buffers).
    pub len: usize,
    /// Device address of batch item 0; `None` when planning without buffers.
    pub base: Option<u64>,
    /// 16-byte alignment of the base, leading dimension and batch stride.
    pub alignment: Alignment,
}

impl OperandLayout {
    /// The layout of `operand` with these effective sizes, its base not yet known (assumed
    /// aligned).
    pub(super) fn new(
        operand: Operand,
        elem: Elem,
        ld: usize,
        stride: usize,
        len: usize,
        batch: usize,
    ) -> Self {
        OperandLayout {
            operand,
            elem,
            ld,
            stride,
            len,
            base: None,
            alignment: Alignment {
                base: true,
                ld: multiple_of_16_bytes(ld as u64, elem),
                stride: batch <= 1 || multiple_of_16_bytes(stride as u64, elem),
            },
        }
    }

    /// The same layout from `elems` elements into the buffer on (`elems` less than `len`): a view
    /// with the same leading dimension and batch stride.
    pub(super) fn skip(self, elems: usize) -> Self {
        let shift_aligned = multiple_of_16_bytes(elems as u64, self.elem);
        let bytes = elems as u64 * u64::from(self.elem.bytes());
        let view = OperandLayout {
            len: self.len - elems,
            alignment: Alignment {
                base: self.alignment.base && shift_aligned,
                ..self.alignment
            },
            ..self
        };
        match self.base {
            Some(base) => view.at(base + bytes),
            None => view,
        }
    }

    /// The same layout with its base at `base`.
    pub(super) fn at(self, base: u64) -> Self {
        OperandLayout {
            base: Some(base),
            alignment: Alignment {
                base: base % 16 == 0,
                ..self.alignment
            },
            ..self
        }
    }
}
