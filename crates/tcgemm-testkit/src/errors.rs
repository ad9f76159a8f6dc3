//! Checking tcgemm's typed errors: the argument an `InvalidArgument` names, an `Unsupported`
//! message, and `Gemm`'s validation run inside a panic guard (tcgemm never panics on user input,
//! so a panic is a failure of its own). Used by `tests/validation.rs` and `tests/errors.rs`.

use std::fmt::Debug;
use std::panic::catch_unwind;
use tcgemm::{Error, Gemm};

/// `what` and `why` of an `InvalidArgument` (whose `why` must not be empty); panics naming `ctx`
/// and the result otherwise.
///
/// ```
/// use tcgemm_testkit::invalid_parts;
/// let r = tcgemm::Gemm::new(2, 2, 2).lda(1).validate(4, 4, 4);
/// assert_eq!(invalid_parts(r, "lda 1").0, "lda");
/// ```
pub fn invalid_parts<T: Debug>(r: tcgemm::Result<T>, ctx: &str) -> (&'static str, String) {
    match r {
        Err(Error::InvalidArgument { what, why }) => {
            assert!(!why.is_empty(), "{ctx}: empty explanation");
            (what, why)
        }
        other => panic!("{ctx}: expected Error::InvalidArgument, got {other:?}"),
    }
}

/// Asserts an `InvalidArgument` naming `what` whose explanation contains `needle`.
///
/// ```
/// use tcgemm_testkit::assert_invalid;
/// assert_invalid(tcgemm::Gemm::new(2, 2, 2).validate(3, 4, 4), "a", "");
/// ```
#[track_caller]
pub fn assert_invalid<T: Debug>(r: tcgemm::Result<T>, what: &str, needle: &str) {
    let (w, why) = invalid_parts(r, &format!("expected `{what}`"));
    assert_eq!(w, what, "{why}");
    assert!(why.contains(needle), "expected '{needle}' in: {why}");
}

/// Asserts an `Unsupported` error whose message contains `needle`.
///
/// ```
/// use tcgemm_testkit::assert_unsupported;
/// let r: tcgemm::Result<()> = Err(tcgemm::Error::Unsupported("no kernel".into()));
/// assert_unsupported(r, "kernel");
/// ```
#[track_caller]
pub fn assert_unsupported<T: Debug>(r: tcgemm::Result<T>, needle: &str) {
    match r {
        Err(Error::Unsupported(why)) => {
            assert!(why.contains(needle), "expected '{needle}' in: {why}")
        }
        other => panic!("expected Error::Unsupported, got {other:?}"),
    }
}

/// [`Gemm::validate`] in a panic guard: a panic fails the test with the call.
///
/// ```
/// assert!(tcgemm_testkit::validate_no_panic(&tcgemm::Gemm::new(2, 2, 2), 4, 4, 4).is_ok());
/// ```
pub fn validate_no_panic(g: &Gemm, a: usize, b: usize, c: usize) -> tcgemm::Result<()> {
    catch_unwind(|| g.validate(a, b, c))
        .unwrap_or_else(|_| panic!("validate({a}, {b}, {c}) panicked for {g:?}"))
}

/// [`Gemm::required_lens`] in a panic guard.
///
/// ```
/// let lens = tcgemm_testkit::required_lens_no_panic(&tcgemm::Gemm::new(2, 3, 4)).unwrap();
/// assert_eq!(lens, (8, 12, 6));
/// ```
pub fn required_lens_no_panic(g: &Gemm) -> tcgemm::Result<(usize, usize, usize)> {
    catch_unwind(|| g.required_lens())
        .unwrap_or_else(|_| panic!("required_lens panicked for {g:?}"))
}
