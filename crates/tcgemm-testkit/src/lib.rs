//! tcgemm's test support, shared by the integration tests (`tests/`), the examples, the criterion
//! bench and the measuring tools (`crates/tcgemm-tools`). Dev-only: never published, never a
//! dependency of the library.
//!
//! Checking results:
//! - [`device`]: is there a GPU, a context on it or why not; the contexts a test binary shares
//!   ([`gpu`], [`gpu_sm80`], [`gpu_all`]), which skip (or fail under `TCGEMM_REQUIRE_GPU=1`).
//! - [`rng`]: PCG32 seeded from `TCGEMM_SEED` or the clock (printed with every failure), random
//!   non-zero operands.
//! - [`elem`]: [`TestElem`], what the tests need of `f32`, `f16` and `bf16`.
//! - [`problem`]: [`Problem`], a call with padded leading dimensions, batch strides and offset views.
//! - [`kernels`]: which kernel can run which call ([`kernel_can_run`]).
//! - [`reference`](mod@reference): the f64 [`Reference`], every entry or a sample.
//! - [`case`] and [`verify`]: a [`Case`] (operands with guards and poisoned C, run on the device)
//!   and its checks: untouched padding, every entry written, relative Frobenius error.
//! - [`tolerance`]: each path's tolerance, with its derivation.
//! - [`errors`]: tcgemm's typed errors ([`assert_invalid`], [`assert_unsupported`]) and `Gemm`'s
//!   validation in a panic guard.
//!
//! Measuring:
//! - [`path`] and [`shapes`]: the GEMM [`Path`]s and the benchmark [`Shape`]s (packed, or with
//!   [`Padding`]: longer leading dimensions, offset views, gaps between batch items), and their
//!   presets.
//! - [`sets`], [`timer`], [`ceiling`]: rotating buffer sets, CUDA-event timing behind a GPU-side
//!   delay, instruction ceilings.
//! - [`blas`]: cuBLAS, for the comparison.
//!
//! ```no_run
//! use tcgemm_testkit::{gpu_all, tol_16, Case, Problem, Rng};
//! let mut rng = Rng::for_test("example");
//! let case = Case::<half::f16, f32>::new("odd", Problem::new(129, 67, 45), &mut rng);
//! for (name, ctx) in gpu_all() {
//!     case.run_and_verify(name, ctx, tol_16::<f32>(45));
//! }
//! ```

#![deny(missing_docs)]

pub mod blas;
pub mod case;
pub mod ceiling;
pub mod device;
pub mod elem;
pub mod errors;
pub mod kernels;
pub mod path;
pub mod problem;
pub mod reference;
pub mod rng;
pub mod sets;
pub mod shapes;
pub mod timer;
pub mod tolerance;
pub mod verify;

#[doc(hidden)]
pub use half as __half;

pub use case::{gemm_on_bits, Case, DeviceCase, GUARD};
pub use device::{
    gpu, gpu_all, gpu_sm80, gpu_with_options, guarded, open, open_for, open_for_with, open_with,
    panic_text, probe_device, require_gpu, test_load_ptx, Open,
};
pub use elem::{bits_to_f64, TestElem};
pub use errors::{
    assert_invalid, assert_unsupported, invalid_parts, required_lens_no_panic, validate_no_panic,
};
pub use kernels::{
    kernel_can_run, kernel_filter_selects, kernel_precision, runs_by_name, selected_kernels,
};
pub use path::Path;
pub use problem::{lay, Layout, Problem, TRANS};
pub use reference::{
    operands_of_bits, sample_points, Operands, Point, Reference, FULL_REFERENCE_MAX_MACS, SAMPLES,
};
pub use rng::{random_elem, random_vec, seed, Rng};
pub use sets::{poison, written_outside, Sets};
pub use shapes::{all_shapes, Padding, Shape};
pub use timer::{median, Timer};
pub use tolerance::{
    tol_16, tol_acc16, tol_f32_acc, tol_fp32, tol_kernel, tol_out, tol_tf32x3, TOL_TF32_FRO, U_TF32,
};
pub use verify::{assert_same_bits, tf32_entry_errors, Report};
