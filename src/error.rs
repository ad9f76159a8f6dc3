//! The one error type of tcgemm.

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

/// Everything that can go wrong in tcgemm.
///
/// Each message says what to change: a bad argument names the argument and the bound it broke, an
/// unsupported call names the missing combination, a missing device says why none was usable.
///
/// ```
/// use tcgemm::{Error, Gemm};
/// let err = Gemm::new(4, 4, 4).lda(2).validate(16, 16, 16).unwrap_err();
/// assert!(matches!(err, Error::InvalidArgument { what: "lda", .. }));
/// assert!(err.to_string().contains("lda"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The call is well formed but cannot run on this device or context: the kernels this build
    /// has for it are not loaded here (a Hopper-only kernel on another GPU, `force_sm80`), a
    /// transpose combination without a kernel, or a device older than Ampere. (An element type or
    /// precision combination this build does not implement at all is an
    /// [`Error::InvalidArgument`] that lists the combinations that exist.)
    ///
    /// ```
    /// let e = tcgemm::Error::Unsupported("f16 -> f16 with trans_a=true".into());
    /// assert!(e.to_string().starts_with("unsupported: "));
    /// ```
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An argument is out of range; `what` names it and `why` says which bound it broke.
    ///
    /// ```
    /// let e = tcgemm::Error::InvalidArgument { what: "ldc", why: "ldc = 3 is smaller than n = 4".into() };
    /// assert_eq!(e.to_string(), "invalid argument `ldc`: ldc = 3 is smaller than n = 4");
    /// ```
    #[error("invalid argument `{what}`: {why}")]
    InvalidArgument {
        /// The argument (field of [`Gemm`](crate::Gemm), buffer `a`/`b`/`c`, `kernel`, ...).
        what: &'static str,
        /// What is wrong and what it must satisfy.
        why: String,
    },
    /// No CUDA driver library, no device, or a device ordinal that does not exist.
    ///
    /// ```
    /// let e = tcgemm::Error::NoDevice("libcuda.so was not found".into());
    /// assert!(e.to_string().contains("libcuda"));
    /// ```
    #[error("no usable CUDA device: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    ///
    /// ```
    /// fn takes_result(r: tcgemm::Result<()>) -> bool {
    ///     matches!(r, Err(tcgemm::Error::Driver(_)))
    /// }
    /// assert!(!takes_result(Ok(())));
    /// ```
    #[error("CUDA driver error: {0}")]
    Driver(DriverError),
    /// The device ran out of memory (`CUDA_ERROR_OUT_OF_MEMORY` from any driver call, e.g. an
    /// allocation through [`Context::alloc_zeros`](crate::Context::alloc_zeros)). The context stays
    /// usable: free memory and retry.
    ///
    /// ```
    /// let e = tcgemm::Error::OutOfMemory("allocating 1 TiB".into());
    /// assert!(e.to_string().starts_with("device out of memory"));
    /// ```
    #[error("device out of memory: {0}")]
    OutOfMemory(String),
}

impl From<DriverError> for Error {
    /// A driver error, with `CUDA_ERROR_OUT_OF_MEMORY` mapped to [`Error::OutOfMemory`].
    fn from(e: DriverError) -> Self {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            // (the code's name: Display would ask the driver, which may not be loaded)
            Error::OutOfMemory(format!("{:?}", e.0))
        } else {
            Error::Driver(e)
        }
    }
}

/// `Result` with [`Error`].
///
/// ```
/// fn check() -> tcgemm::Result<()> {
///     tcgemm::Gemm::new(2, 2, 2).validate(4, 4, 4)
/// }
/// assert!(check().is_ok());
/// ```
pub type Result<T> = core::result::Result<T, Error>;

/// Shorthand for an [`Error::InvalidArgument`].
pub(crate) fn invalid(what: &'static str, why: impl Into<String>) -> Error {
    Error::InvalidArgument {
        what,
        why: why.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_tells_what_to_change() {
        let e = invalid("lda", "lda = 1 is smaller than k = 4; pass lda >= 4");
        assert_eq!(
            e.to_string(),
            "invalid argument `lda`: lda = 1 is smaller than k = 4; pass lda >= 4"
        );
        assert_eq!(Error::Unsupported("x".into()).to_string(), "unsupported: x");
        assert!(Error::NoDevice("none".into()).to_string().contains("none"));
    }

    #[test]
    fn driver_out_of_memory_is_its_own_variant() {
        let oom = Error::from(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(matches!(oom, Error::OutOfMemory(_)), "{oom:?}");
        let other = Error::from(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE));
        assert!(matches!(other, Error::Driver(_)), "{other:?}");
    }

    #[test]
    fn error_is_send_sync() {
        fn assert_send_sync<T: Send + Sync + 'static>() {}
        assert_send_sync::<Error>();
    }
}
