//! Element types tcgemm multiplies: `f32`, [`half::f16`] and [`half::bf16`].

use cudarc::driver::DeviceRepr;
use tcgemm_kernels::config::Elem;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A type that can be an operand of a tcgemm GEMM. Sealed: implemented for `f32`, [`half::f16`] and
/// [`half::bf16`] only, because only those have kernels.
///
/// ```
/// use tcgemm::{Elem, Element};
/// assert_eq!(<f32 as Element>::ELEM, Elem::F32);
/// assert_eq!(<half::f16 as Element>::ELEM, Elem::F16);
/// assert_eq!(<half::bf16 as Element>::ELEM, Elem::Bf16);
/// ```
pub trait Element: DeviceRepr + Copy + Send + Sync + 'static + sealed::Sealed {
    /// The kernel table's name for this type.
    ///
    /// ```
    /// use tcgemm::Element;
    /// assert_eq!(<f32 as Element>::ELEM.bytes(), 4);
    /// ```
    const ELEM: Elem;
}

impl Element for f32 {
    const ELEM: Elem = Elem::F32;
}

impl Element for half::f16 {
    const ELEM: Elem = Elem::F16;
}

impl Element for half::bf16 {
    const ELEM: Elem = Elem::Bf16;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elem_sizes_match_rust_sizes() {
        fn check<T: Element>() {
            assert_eq!(T::ELEM.bytes() as usize, core::mem::size_of::<T>());
        }
        check::<f32>();
        check::<half::f16>();
        check::<half::bf16>();
    }
}
