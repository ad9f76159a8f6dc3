//! GPU access: whether a CUDA device is there, a context on it or why there is none, and the
//! contexts the tests share.
//!
//! - [`open`] / [`open_with`]: a tcgemm [`Context`], or [`Open::NoGpu`] (no driver library, no
//!   device, or one older than compute capability 8.0) or [`Open::Broken`] (a device is there but
//!   tcgemm failed on it). Never panics: tools and benches turn the answer into an exit status.
//! - [`gpu`] / [`gpu_sm80`] / [`gpu_all`]: one context per test binary, or `None` after printing
//!   `skipped: no CUDA GPU (<why>)`. With `TCGEMM_REQUIRE_GPU=1` a missing GPU panics instead, so a
//!   GPU run cannot pass by skipping; a broken device always panics.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use tcgemm::{Context, ContextOptions, Error};

/// Why no context was made.
///
/// ```no_run
/// use tcgemm_testkit::{open, Open};
/// let code = match open(0) {
///     Ok(_ctx) => 0,
///     Err(Open::NoGpu(_)) => 2,
///     Err(Open::Broken(_)) => 1,
/// };
/// ```
#[derive(Clone, Debug)]
pub enum Open {
    /// No usable CUDA GPU (no driver library, no device, or one older than compute capability 8.0).
    NoGpu(String),
    /// A GPU is there but tcgemm failed on it.
    Broken(String),
}

/// The text of a panic payload.
///
/// ```
/// let p = std::panic::catch_unwind(|| panic!("boom")).unwrap_err();
/// assert_eq!(tcgemm_testkit::panic_text(&*p), "boom");
/// ```
pub fn panic_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_string()
    }
}

/// Runs `f`, turning a panic (e.g. a cudarc symbol missing from an old library) into an error.
///
/// ```
/// let r: Result<(), String> = tcgemm_testkit::guarded("x", || panic!("no symbol"));
/// assert_eq!(r.unwrap_err(), "x panicked: no symbol");
/// ```
pub fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(format!("{what} panicked: {}", panic_text(&*p))),
    }
}

/// Whether a CUDA device is present, judged without tcgemm: the device count, or why there is none.
///
/// ```
/// match tcgemm_testkit::probe_device() {
///     Ok(n) => println!("{n} device(s)"),
///     Err(why) => println!("no GPU: {why}"),
/// }
/// ```
pub fn probe_device() -> Result<usize, String> {
    // SAFETY: only tries to dlopen the CUDA driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("the CUDA driver library (libcuda) could not be loaded".into());
    }
    match catch_unwind(cudarc::driver::CudaContext::device_count) {
        Ok(Ok(n)) if n > 0 => Ok(n as usize),
        Ok(Ok(_)) => Err("the driver reports 0 devices".into()),
        Ok(Err(e)) => Err(format!("cuDeviceGetCount failed: {e}")),
        Err(p) => Err(format!("cuDeviceGetCount panicked: {}", panic_text(&*p))),
    }
}

/// A tcgemm context on `device` with default options, or why there is none. Never panics.
///
/// ```no_run
/// match tcgemm_testkit::open(0) {
///     Ok(ctx) => println!("{}", ctx.capabilities().name),
///     Err(tcgemm_testkit::Open::NoGpu(why) | tcgemm_testkit::Open::Broken(why)) => eprintln!("{why}"),
/// }
/// ```
pub fn open(device: usize) -> Result<Context, Open> {
    open_with(device, None)
}

/// The context of a program (a tool or an example) on `device`, or, after printing
/// `<program>: no usable CUDA GPU (device N): <why>` to stderr, the exit status 2 that the
/// programs give for "no GPU".
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     let ctx = match tcgemm_testkit::open_for("my_tool", 0) {
///         Ok(ctx) => ctx,
///         Err(code) => return code,
///     };
///     println!("{}", ctx.capabilities().name);
///     std::process::ExitCode::SUCCESS
/// }
/// ```
pub fn open_for(program: &str, device: usize) -> Result<Context, std::process::ExitCode> {
    open_for_with(program, device, None)
}

/// [`open_for`] with `opts` (`None`: [`Context::new`]).
///
/// ```no_run
/// let opts = tcgemm::ContextOptions { stream_k: false, ..Default::default() };
/// let ctx = tcgemm_testkit::open_for_with("my_tool", 0, Some(opts));
/// ```
pub fn open_for_with(
    program: &str,
    device: usize,
    opts: Option<ContextOptions>,
) -> Result<Context, std::process::ExitCode> {
    open_with(device, opts).map_err(|(Open::NoGpu(why) | Open::Broken(why))| {
        eprintln!("{program}: no usable CUDA GPU (device {device}): {why}");
        std::process::ExitCode::from(2)
    })
}

/// [`open`] with `opts` (`None`: [`Context::new`]).
///
/// ```no_run
/// let opts = tcgemm::ContextOptions { force_sm80: true, ..Default::default() };
/// let ctx = tcgemm_testkit::open_with(0, Some(opts));
/// ```
pub fn open_with(device: usize, opts: Option<ContextOptions>) -> Result<Context, Open> {
    let n = probe_device().map_err(Open::NoGpu)?;
    let made = catch_unwind(|| match opts {
        None => Context::new(device),
        Some(o) => Context::with_options(device, o),
    });
    match made {
        Ok(Ok(ctx)) => Ok(ctx),
        // No usable device after all (e.g. older than compute capability 8.0): like no GPU.
        Ok(Err(e @ (Error::NoDevice(_) | Error::Unsupported(_)))) => Err(Open::NoGpu(format!(
            "device {device} is not usable: {e}"
        ))),
        Ok(Err(e)) => Err(Open::Broken(format!(
            "{n} CUDA device(s) present but creating the tcgemm context on device {device} failed: {e}"
        ))),
        Err(p) => Err(Open::Broken(format!(
            "{n} CUDA device(s) present but creating the tcgemm context on device {device} \
             panicked: {}",
            panic_text(&*p)
        ))),
    }
}

/// `TCGEMM_REQUIRE_GPU=1`: a missing GPU fails the test (or bench) instead of skipping it.
///
/// ```
/// let _strict: bool = tcgemm_testkit::require_gpu();
/// ```
pub fn require_gpu() -> bool {
    std::env::var("TCGEMM_REQUIRE_GPU").is_ok_and(|v| v.trim() == "1")
}

static GPU: OnceLock<Result<Context, Open>> = OnceLock::new();
static GPU_SM80: OnceLock<Result<Context, Open>> = OnceLock::new();

/// Says once per test binary, where a CI log shows it, that its GPU tests skipped: libtest
/// captures `println!` of passing tests, a direct write to the process's stderr is not captured.
fn tell_skipped(why: &str) {
    static TOLD: std::sync::Once = std::sync::Once::new();
    TOLD.call_once(|| {
        use std::io::Write as _;
        let exe = std::env::current_exe().ok();
        let name = exe
            .as_deref()
            .and_then(|p| p.file_stem())
            .map_or_else(|| "tests".into(), |s| s.to_string_lossy().into_owned());
        // cargo names test binaries `<test>-<hash>`
        let name = name.rsplit_once('-').map_or(name.as_str(), |(t, _)| t).to_string();
        let _ = writeln!(
            std::io::stderr(),
            "{name}: GPU tests skipped: no CUDA GPU ({why}); TCGEMM_REQUIRE_GPU=1 makes this a failure"
        );
    });
}

/// `TCGEMM_TEST_LOAD_PTX=1`: the test contexts load every module from its PTX (compiled by the
/// driver) instead of the machine code shipped for the device, so the whole suite can run on the
/// fallback path that newer architectures take.
///
/// ```
/// let _ptx: bool = tcgemm_testkit::test_load_ptx();
/// ```
pub fn test_load_ptx() -> bool {
    std::env::var("TCGEMM_TEST_LOAD_PTX").is_ok_and(|v| v.trim() == "1")
}

/// `opts` (or the defaults) with [`test_load_ptx`] applied.
fn with_test_image(opts: Option<ContextOptions>) -> Option<ContextOptions> {
    if !test_load_ptx() {
        return opts;
    }
    Some(ContextOptions {
        load_ptx: true,
        ..opts.unwrap_or_default()
    })
}

fn shared(
    cell: &'static OnceLock<Result<Context, Open>>,
    opts: Option<ContextOptions>,
) -> Option<&'static Context> {
    let sm80 = opts.as_ref().is_some_and(|o| o.force_sm80);
    let opts = with_test_image(opts);
    let made = cell.get_or_init(|| {
        let made = open_with(0, opts);
        if let Ok(ctx) = &made {
            let caps = ctx.capabilities();
            println!(
                "tcgemm test context: {} (sm {:?}, {} SMs){}{}",
                caps.name,
                caps.compute_capability,
                caps.sm_count,
                if sm80 { ", force_sm80" } else { "" },
                if test_load_ptx() { ", PTX" } else { "" }
            );
        }
        made
    });
    match made {
        Ok(ctx) => Some(ctx),
        Err(Open::Broken(why)) => panic!("{why}"),
        Err(Open::NoGpu(why)) => {
            if require_gpu() {
                panic!("TCGEMM_REQUIRE_GPU=1 but no CUDA GPU is usable: {why}");
            }
            println!("skipped: no CUDA GPU ({why})");
            tell_skipped(why);
            None
        }
    }
}

/// The default context on device 0 (shared by all tests of a binary), or `None` after printing a
/// skip line. Panics when `TCGEMM_REQUIRE_GPU=1` and there is no GPU, and on a broken device.
///
/// ```no_run
/// let Some(ctx) = tcgemm_testkit::gpu() else { return };
/// println!("{}", ctx.capabilities().name);
/// ```
pub fn gpu() -> Option<&'static Context> {
    shared(&GPU, None)
}

/// A context on device 0 with `force_sm80`, so the Ampere code path runs on Hopper too.
///
/// ```no_run
/// if let Some(c80) = tcgemm_testkit::gpu_sm80() {
///     assert!(!c80.capabilities().hopper);
/// }
/// ```
pub fn gpu_sm80() -> Option<&'static Context> {
    shared(
        &GPU_SM80,
        Some(ContextOptions {
            force_sm80: true,
            allow_tf32: None,
            ..Default::default()
        }),
    )
}

/// A fresh (uncached) context on device 0 with `opts` (and [`test_load_ptx`]); `None` (after the
/// skip line) without a GPU.
///
/// ```no_run
/// let opts = tcgemm::ContextOptions { allow_tf32: Some(false), ..Default::default() };
/// let ctx = tcgemm_testkit::gpu_with_options(opts);
/// ```
pub fn gpu_with_options(opts: ContextOptions) -> Option<Context> {
    gpu()?;
    let opts = with_test_image(Some(opts)).unwrap_or_default();
    let shown = format!("{opts:?}");
    match catch_unwind(|| Context::with_options(0, opts)) {
        Ok(Ok(ctx)) => Some(ctx),
        Ok(Err(e)) => panic!("Context::with_options(0, {shown}) failed: {e}"),
        Err(p) => panic!(
            "Context::with_options(0, {shown}) panicked: {}",
            panic_text(&*p)
        ),
    }
}

/// The default context and the `force_sm80` one, named (the same code path below Hopper; cheap
/// either way since a case's reference is shared). Empty (after the skip line) without a GPU.
///
/// ```no_run
/// for (name, ctx) in tcgemm_testkit::gpu_all() {
///     println!("{name}: {:?}", ctx.capabilities().targets);
/// }
/// ```
pub fn gpu_all() -> Vec<(&'static str, &'static Context)> {
    let Some(ctx) = gpu() else { return Vec::new() };
    let mut v = vec![("default", ctx)];
    if let Some(c80) = gpu_sm80() {
        v.push(("force_sm80", c80));
    }
    v
}
