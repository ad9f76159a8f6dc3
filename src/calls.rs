//! The GEMM calls of a [`Context`]: [`Context::plan`], [`Context::plan_for`], [`Context::gemm`] and
//! [`Context::gemm_with_kernel`].
//!
//! Each resolves one [`Problem`] at its top (precision, then the lengths, then the buffers'
//! device and addresses), picks or checks the kernel against it, and launches from it.

use crate::context::Context;
use crate::dispatch::{self, KSplit};
use crate::element::Element;
use crate::error::{invalid, Result};
use crate::gemm::Gemm;
use crate::launch;
use crate::plan::Plan;
use crate::problem::{peek_addresses, Addresses, Problem, Route, Signature};
use crate::rules::{check_operands, check_signature, Reason};
use crate::splitk;
use crate::streamk;
use crate::tail;
use crate::tf32x3;
use cudarc::driver::sys::CUstream;
use cudarc::driver::{CudaFunction, DevicePtr, DevicePtrMut, DeviceSlice};
use tcgemm_kernels::config::{find_kernel, KernelSpec, ParamsKind, KERNELS};

/// Which cuts along K a call may take: split-K ([`Plan::split`]), stream-K ([`Plan::stream_k`]).
/// Both use the context's workspace, so only calls on the context's stream take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cuts {
    pub split_k: bool,
    pub stream_k: bool,
}

impl Cuts {
    /// Neither (a launch on the caller's stream).
    pub(crate) const NONE: Cuts = Cuts {
        split_k: false,
        stream_k: false,
    };
}

/// How a call would cut `problem` along K on `spec` on `sms` SMs (as [`Context::plan_problem`]
/// does): stream-K where `cuts` allows and [`streamk::choose`] says so, else the k-slices of
/// [`splitk::choose`] on the kernel's f32 twin where `cuts` allows and `loaded` says the twin is
/// (1: no split), as many as the launch runs: fewer where the slices run within clusters of
/// fewer CTAs ([`splitk::cluster_split`], with `resident_clusters(s)` clusters of `s` CTAs held
/// at once), so that dispatch's time model prices the schedule that runs; the fill counts the
/// slices the model wants ([`KSplit::spread`]).
pub(crate) fn cut(
    spec: &KernelSpec,
    problem: &Problem,
    sms: u32,
    cuts: Cuts,
    loaded: impl Fn(&KernelSpec) -> bool,
    resident_clusters: impl Fn(u32) -> u32,
) -> KSplit {
    if cuts.stream_k && streamk::choose(spec, problem, sms).is_some() {
        return KSplit {
            slices: 1,
            stream_k: true,
            ..KSplit::NONE
        };
    }
    if cuts.split_k {
        if let Some(tail_rows) = tail::choose(spec, problem, sms, &loaded) {
            return KSplit {
                tail_rows,
                ..KSplit::NONE
            };
        }
    }
    // the cheap kernel-independent test first: most calls have enough tiles
    if !cuts.split_k || !splitk::may_split(problem, problem.tiles(spec.c_tile()), sms) {
        return KSplit::NONE;
    }
    let spread = splitk::f32_twin(spec, KERNELS)
        .filter(|t| loaded(t))
        .and_then(|t| splitk::choose(t, problem, sms))
        .map_or(1, |(slices, _)| slices);
    let cluster = splitk::cluster_split(spec, problem, spread, &resident_clusters);
    KSplit {
        slices: cluster.map_or(spread, |(s, _)| s),
        spread,
        cluster: cluster.is_some(),
        stream_k: false,
        ..KSplit::NONE
    }
}

/// The argument error for a kernel named by the caller that cannot compute the call.
fn kernel_refused(spec: &KernelSpec, why: Reason) -> crate::Error {
    invalid("kernel", format!("kernel `{}`: {why}", spec.name))
}

impl Context {
    /// The kernel dispatch picks for `problem`: the best loaded kernel that
    /// [`can_implement`](crate::can_implement) it, counting how each would cut the call along K
    /// with the `cuts` the call may take (split-K slices or stream-K, [`dispatch::select`]); the
    /// pick remembered for the same call where the context has one ([`dispatch::memo`]).
    pub(crate) fn select(&self, problem: &Problem, cuts: Cuts) -> Result<&'static KernelSpec> {
        self.picks.get_or_search(problem, cuts, || {
            let sms = self.capabilities().sm_count;
            let usable = |s: &KernelSpec| self.is_loaded(s);
            let cut = |s: &KernelSpec| self.cut(s, problem, sms, cuts);
            dispatch::select(KERNELS, problem, Some(sms), usable, cut).ok_or_else(|| {
                dispatch::no_kernel_error(KERNELS, problem.signature(), |s| {
                    self.why_unusable(s, problem)
                })
            })
        })
    }

    /// Which kernel [`Context::gemm`] would run for `g` with `I` inputs and `O` output, and its
    /// launch shape; launches nothing. Assumes buffers aligned like fresh allocations: a view at
    /// an unaligned offset may steer `gemm` away from a kernel that needs alignment, so
    /// [`Context::plan_for`] (with the buffers) is the one that names the kernel `gemm` will run.
    ///
    /// # Errors
    /// As [`Context::gemm`], without the buffer checks.
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let plan = ctx.plan::<f32, f32>(&Gemm::new(4096, 4096, 4096).trans_b(true))?;
    /// assert!(plan.kernel.trans_b);
    /// # Ok::<(), tcgemm::Error>(())
    /// ```
    pub fn plan<I: Element, O: Element>(&self, g: &Gemm) -> Result<Plan> {
        let g = &tf32x3::resolve(g);
        let sig = dispatch::signature(KERNELS, g, I::ELEM, O::ELEM, self.allow_tf32())?;
        let problem = Problem::resolve(g, sig, g.required_lens()?)?;
        self.plan_dispatched(&problem)
    }

    /// Which kernel [`Context::gemm`] runs for `g` on these buffers, and its launch shape;
    /// launches nothing. Unlike [`Context::plan`] it sees the buffers' addresses, so a view at an
    /// offset that is not 16-byte aligned reports the kernel that really runs. For a call with no
    /// output it plans a grid with a zero extent (and `gemm` launches nothing).
    ///
    /// # Errors
    /// As [`Context::gemm`].
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let g = Gemm::new(256, 256, 256);
    /// let a = s.alloc_zeros::<half::f16>(1 + 256 * 256)?;
    /// let b = s.alloc_zeros::<half::f16>(256 * 256)?;
    /// let c = s.alloc_zeros::<f32>(256 * 256)?;
    /// // A starts 2 bytes into its allocation: no TMA kernel can read it
    /// let plan = ctx.plan_for::<half::f16, f32>(&g, &a.slice(1..), &b, &c)?;
    /// assert!(!plan.kernel.family.needs_tma());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn plan_for<I: Element, O: Element>(
        &self,
        g: &Gemm,
        a: &impl DevicePtr<I>,
        b: &impl DevicePtr<I>,
        c: &impl DevicePtr<O>,
    ) -> Result<Plan> {
        let g = &tf32x3::resolve(g);
        let sig = dispatch::signature(KERNELS, g, I::ELEM, O::ELEM, self.allow_tf32())?;
        let mut problem = Problem::resolve(g, sig, (a.len(), b.len(), c.len()))?;
        if !problem.is_empty() {
            self.check_buffers(a, b, c)?;
            problem = problem.at(peek_addresses(a, b, c));
        }
        self.plan_dispatched(&problem)
    }

    /// The plan [`Context::gemm`] runs for `problem`: a 3xTF32 call's on its operands' TF32 parts
    /// ([`Context::plan_tf32x3`]); staged where [`Context::staging_for`] says
    /// so (the staged operands packed and aligned; a call whose buffer would grow during a graph
    /// capture runs unstaged instead, which a plan does not foresee), on the kernel dispatch picks.
    fn plan_dispatched(&self, problem: &Problem) -> Result<Plan> {
        let problem = &match problem.route() {
            Route::Tf32x3(p) => return self.plan_tf32x3(&p),
            Route::Dispatch(p) => p,
        };
        if let Some(staging) = self.staging_for(problem) {
            let staged = staging.problem(problem, None)?;
            let spec = self.select(&staged, self.cuts())?;
            let plan = self.plan_problem(spec, &staged, self.cuts())?;
            return Ok(Plan {
                staged: staging.staged,
                ..plan
            });
        }
        let spec = self.select(problem, self.cuts())?;
        self.plan_problem(spec, problem, self.cuts())
    }

    /// Enqueues `C = alpha·op(A)·op(B) + beta·C` (batched as `g` says) on [`Context::stream`] with
    /// the kernel dispatch picks for these buffers ([`Context::plan_for`]); returns the [`Plan`]
    /// it launched without waiting for the GPU, or `None` when `m`, `n` or `batch` is zero (nothing
    /// is launched).
    ///
    /// `g` is checked against the buffers' lengths first ([`Gemm::validate`]). With `k == 0` or
    /// `alpha == 0` A and B are not read and the kernel computes `C = beta·C`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a precision the inputs do not
    /// have, element types or a precision no kernel implements (the message lists those that
    /// exist), a description that does not fit the buffers, or a buffer of another device;
    /// [`Error::Unsupported`](crate::Error::Unsupported) when no kernel loaded on this context
    /// serves the call; [`Error::Driver`](crate::Error::Driver) when the launch fails.
    ///
    /// ```no_run
    /// use half::f16;
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// // C (f32, 64×32) = A (f16, stored 128×64, i.e. transposed) · B (f16, 128×32), 8 times.
    /// let g = Gemm::new(64, 32, 128).trans_a(true).batch(8);
    /// let (la, lb, lc) = g.required_lens()?;
    /// let a = s.clone_htod(&vec![f16::ONE; la])?;
    /// let b = s.clone_htod(&vec![f16::ONE; lb])?;
    /// let mut c = s.alloc_zeros::<f32>(lc)?;
    /// let plan = ctx.gemm(&g, &a, &b, &mut c)?.expect("a call with output launches");
    /// println!("ran {}", plan.kernel.name);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gemm<I, O, A, B, C>(&self, g: &Gemm, a: &A, b: &B, c: &mut C) -> Result<Option<Plan>>
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let g = &tf32x3::resolve(g);
        let sig = dispatch::signature(KERNELS, g, I::ELEM, O::ELEM, self.allow_tf32())?;
        let problem = Problem::resolve(g, sig, (a.len(), b.len(), c.len()))?;
        if problem.is_empty() {
            return Ok(None);
        }
        self.check_buffers(a, b, c)?;
        self.with_addresses(a, b, c, |addrs| {
            let problem = match problem.at(addrs).route() {
                // SAFETY: as below.
                Route::Tf32x3(p) => return unsafe { self.launch_tf32x3(&p) }.map(Some),
                Route::Dispatch(p) => p,
            };
            if let Some(staging) = self.staging_for(&problem) {
                // SAFETY: as below.
                if let Some(plan) = unsafe { self.launch_staged(&staging, &problem) }? {
                    return Ok(Some(plan));
                }
            }
            let spec = self.select(&problem, self.cuts())?;
            let stream = self.stream().cu_stream();
            // SAFETY: `problem` was validated against these buffers, whose stream guards
            // `with_addresses` holds across the launch on this context's stream.
            unsafe { self.launch_problem(spec, &problem, stream, self.cuts()) }.map(Some)
        })
    }

    /// [`Context::gemm`] with the kernel named `kernel` instead of the one dispatch picks (tests
    /// and benchmarks). `g.precision` is ignored: the kernel's math is used. The call is never
    /// split into k-slices; a persistent kernel shares out its k-tiles (stream-K,
    /// [`Plan::stream_k`]) where [`Context::gemm`] would.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) `kernel` when no kernel has that
    /// name, or it is not a GEMM kernel, or its element types or transposes differ from the call's
    /// (checked first), or a rule of its family refuses the call (the message says which,
    /// [`can_implement`](crate::can_implement)); [`Error::Unsupported`](crate::Error::Unsupported)
    /// when it is not runnable on this context (module not loaded, missing from the module, too
    /// much shared memory); otherwise as [`Context::gemm`].
    ///
    /// ```no_run
    /// use tcgemm::{Context, Gemm};
    /// let ctx = Context::new(0)?;
    /// let s = ctx.stream();
    /// let a = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let b = s.clone_htod(&vec![1.0f32; 64 * 64])?;
    /// let mut c = s.alloc_zeros::<f32>(64 * 64)?;
    /// let name = ctx.plan::<f32, f32>(&Gemm::new(64, 64, 64))?.kernel.name;
    /// ctx.gemm_with_kernel(name, &Gemm::new(64, 64, 64), &a, &b, &mut c)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gemm_with_kernel<I, O, A, B, C>(
        &self,
        kernel: &str,
        g: &Gemm,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<Option<Plan>>
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let spec = find_kernel(kernel).ok_or_else(|| {
            invalid(
                "kernel",
                format!("no kernel named `{kernel}` in this build; Context::kernels() lists the runnable ones"),
            )
        })?;
        let sig = Signature::any_math(g, I::ELEM, O::ELEM);
        check_signature(spec, &sig).map_err(|why| kernel_refused(spec, why))?;
        self.require_loaded(spec)?;
        let problem = Problem::resolve(g, sig, (a.len(), b.len(), c.len()))?;
        if problem.is_empty() {
            return Ok(None);
        }
        self.check_buffers(a, b, c)?;
        self.with_addresses(a, b, c, |addrs| {
            let problem = problem.at(addrs);
            check_operands(spec, &problem).map_err(|why| kernel_refused(spec, why))?;
            let stream = self.stream().cu_stream();
            // the named kernel runs as named: never split into slices (a persistent kernel still
            // shares out its k-tiles where the context allows stream-K)
            let cuts = Cuts {
                split_k: false,
                ..self.cuts()
            };
            // SAFETY: as in `gemm`.
            unsafe { self.launch_problem(spec, &problem, stream, cuts) }.map(Some)
        })
    }

    /// Checks that A, B and C live on this context's device.
    fn check_buffers<T, U>(
        &self,
        a: &impl DeviceSlice<T>,
        b: &impl DeviceSlice<T>,
        c: &impl DeviceSlice<U>,
    ) -> Result<()> {
        self.check_buffer("a", a)?;
        self.check_buffer("b", b)?;
        self.check_buffer("c", c)
    }

    /// Runs `f` with the device addresses of A, B and C. The stream guards cudarc returns with
    /// them live until `f` (which launches) has returned, so they record the kernel's reads of A
    /// and B and its write of C for cross-stream ordering.
    fn with_addresses<I, O, A, B, C, R>(
        &self,
        a: &A,
        b: &B,
        c: &mut C,
        f: impl FnOnce(Addresses) -> R,
    ) -> R
    where
        I: Element,
        O: Element,
        A: DevicePtr<I>,
        B: DevicePtr<I>,
        C: DevicePtrMut<O>,
    {
        let stream = self.stream();
        let (pa, _read_a) = a.device_ptr(stream);
        let (pb, _read_b) = b.device_ptr(stream);
        let (pc, _write_c) = c.device_ptr_mut(stream);
        f(Addresses {
            a: pa,
            b: pb,
            c: pc,
        })
    }

    /// The cuts along K this context's options allow on its own stream.
    pub(crate) fn cuts(&self) -> Cuts {
        Cuts {
            split_k: self.split_k(),
            stream_k: self.stream_k(),
        }
    }

    /// The launch shape of `spec` for `problem`, cut along K where `cuts` allows and the models
    /// say so: stream-K on a persistent kernel whose waves the call leaves short
    /// ([`streamk::choose`], [`Plan::with_stream_k`]), else split-K ([`Plan::split_k`]). Dispatch
    /// ([`Context::select`]) already weighed the cut against the other kernels.
    pub(crate) fn plan_problem(
        &self,
        spec: &'static KernelSpec,
        problem: &Problem,
        cuts: Cuts,
    ) -> Result<Plan> {
        let sms = self.capabilities().sm_count;
        let plan = Plan::for_kernel(spec, problem, sms)?;
        if cuts.stream_k {
            if let Some(items) = streamk::choose(spec, problem, sms) {
                return Ok(plan.with_stream_k(items, sms));
            }
        }
        if !cuts.split_k {
            return Ok(plan);
        }
        if let Some(rows) = tail::choose(spec, problem, sms, |s| self.is_loaded(s)) {
            let (top, tail) = tail::parts(spec, problem, u64::from(rows));
            let tail_plan = Plan::for_kernel(spec, &tail, sms)?.split_k(
                &tail,
                sms,
                |s| self.is_loaded(s),
                |s| self.resident_clusters(s),
            );
            if tail_plan.split.is_split() {
                return Ok(Plan::for_kernel(spec, &top, sms)?.with_tail(&top, &tail_plan));
            }
        }
        Ok(plan.split_k(
            problem,
            sms,
            |s| self.is_loaded(s),
            |s| self.resident_clusters(s),
        ))
    }

    /// How a call would cut `problem` along K on `spec` ([`cut`]) with this context's kernels.
    fn cut(&self, spec: &KernelSpec, problem: &Problem, sms: u32, cuts: Cuts) -> KSplit {
        cut(
            spec,
            problem,
            sms,
            cuts,
            |t| self.is_loaded(t),
            |s| self.resident_clusters(s),
        )
    }

    /// Plans and launches GEMM kernel `spec` for `problem` (resolved on buffers, not empty) on
    /// `stream`; cut along K where `cuts` allows and the models say so (then `stream` must be the
    /// context's stream, where the workspace is ordered).
    ///
    /// # Safety
    /// `problem`'s addresses point into live device buffers of this context that it was validated
    /// against, which stay allocated and are not written by anyone else until the kernel
    /// completes; `stream` is a live stream of this context.
    pub(crate) unsafe fn launch_problem(
        &self,
        spec: &'static KernelSpec,
        problem: &Problem,
        stream: CUstream,
        cuts: Cuts,
    ) -> Result<Plan> {
        let plan = self.plan_problem(spec, problem, cuts)?;
        // SAFETY: as this function's contract; the plan is `plan_problem`'s for `problem` and
        // `cuts`.
        unsafe { self.launch_plan(plan, problem, stream) }
    }

    /// Launches `plan` ([`Context::plan_problem`]'s for `problem`) on `stream`.
    ///
    /// # Safety
    /// As [`Context::launch_problem`], with the `cuts` the plan was made with.
    pub(crate) unsafe fn launch_plan(
        &self,
        plan: Plan,
        problem: &Problem,
        stream: CUstream,
    ) -> Result<Plan> {
        let func = self.function(plan.kernel, "kernel")?;
        if plan.stream_k > 0 {
            // SAFETY: as this function's contract; stream-K plans only come with `cuts.stream_k`,
            // which only `gemm` and `gemm_with_kernel` pass, with the context's stream.
            unsafe { self.launch_stream_k(func, &plan, problem) }?;
            return Ok(plan);
        }
        if let Some(t) = plan.tail {
            let (top, tail) = tail::at_row(problem, t.row as usize);
            let tail_plan = t.plan();
            let tail_func = self.function(t.kernel, "kernel")?;
            // SAFETY: the two launches compute disjoint rows of C (views of the call's buffers
            // inside its validated extents), in order on the context's stream: tail plans only
            // come with `cuts.split_k`, which only `gemm` passes, with the context's stream.
            unsafe {
                launch::launch_gemm(self.cuda(), stream, func, &plan, &top, self.tma_store())?;
                self.launch_split(tail_func, &tail_plan, &tail)?;
            }
            return Ok(plan);
        }
        if plan.split.is_split() {
            // SAFETY: as this function's contract; split plans only come with `cuts.split_k`,
            // which only `gemm` passes, with the context's stream.
            unsafe { self.launch_split(func, &plan, problem) }?;
            return Ok(plan);
        }
        // SAFETY: `func` is the entry point named `plan.kernel.name`, loaded in this context; the
        // caller's contract covers the buffers and the stream.
        unsafe {
            launch::launch_gemm(self.cuda(), stream, func, &plan, problem, self.tma_store())
        }?;
        Ok(plan)
    }

    /// Enqueues a stream-K launch on the context's stream while holding the workspace (its flags
    /// and partial tiles).
    ///
    /// # Safety
    /// As [`Context::launch_problem`]; `func` is `plan.kernel`'s loaded entry point, a persistent
    /// kernel.
    unsafe fn launch_stream_k(
        &self,
        func: &CudaFunction,
        plan: &Plan,
        problem: &Problem,
    ) -> Result<()> {
        let sms = self.capabilities().sm_count;
        let (_ws, addr) = self
            .workspace
            .at_least(self, streamk::workspace_bytes(plan.kernel, sms))?;
        let params = streamk::params(launch::params(problem)?, plan.stream_k, addr, sms);
        let tma = crate::tma::tma_params(params, plan.kernel, self.tma_store())?;
        // SAFETY: as `launch_gemm` for A, B and C; the CTAs (one per SM, `plan.grid`) write and
        // read only their flags and partial tiles inside the workspace, which holds
        // `workspace_bytes`, on the context's stream while the workspace lock is held.
        unsafe { launch::launch(self.cuda(), self.stream().cu_stream(), func, plan, &tma) }
    }

    /// Enqueues a split call on the context's stream: within thread-block clusters
    /// ([`Split::cluster`](crate::Split::cluster)), one launch of the call's own kernel whose
    /// clusters sum their slices in shared memory; otherwise, holding the workspace, one launch of
    /// the f32 twin over the slices, whose last CTA per tile sums the tile's slices into C, or
    /// which the reduction kernel follows.
    ///
    /// # Safety
    /// As [`Context::launch_problem`]; `func` is `plan.kernel`'s loaded entry point.
    unsafe fn launch_split(
        &self,
        func: &CudaFunction,
        plan: &Plan,
        problem: &Problem,
    ) -> Result<()> {
        let p = launch::params(problem)?;
        let stream = self.stream();
        let (cuda, cu) = (self.cuda(), stream.cu_stream());
        if plan.split.cluster {
            let params = splitk::cluster_params(&p, problem, &plan.split);
            let tma = crate::tma::tma_params(params, plan.kernel, self.tma_store())?;
            // SAFETY: slice s reads A and B inside the call's validated extents (k in
            // [s·kslice, (s+1)·kslice), the slices dividing k) and the first slice's CTA of each
            // tile writes C's m×n, as an unsplit launch of the kernel does.
            return unsafe { launch::launch(cuda, cu, func, plan, &tma) };
        }
        let (_ws, addr) = self.workspace.at_least(self, plan.split.workspace_bytes)?;
        let sms = self.capabilities().sm_count;
        let params = splitk::split_params(&p, problem, &plan.split, addr, sms);
        // SAFETY: slice s reads A and B inside the call's validated extents (k in
        // [s·kslice, min((s+1)·kslice, k))) and writes only its slice of the workspace, which
        // holds `workspace_bytes` (the counters of the call's tiles, then the slices); the last
        // CTA of each tile, or the reduction after the launch, reads the slices and writes C's
        // m×n. On the context's stream, in this order, while the workspace lock is held.
        unsafe {
            if plan.kernel.family.params() == ParamsKind::Tma {
                // the slices are the TMA kernel's batch items: its maps step along k per item
                let tma = crate::tma::tma_params(params, plan.kernel, self.tma_store())?;
                launch::launch(cuda, cu, func, plan, &tma)?;
            } else {
                launch::launch(cuda, cu, func, plan, &params)?;
            }
            if let Some(reduce) = plan.split.reduce {
                let reduce_fn = self.function(reduce, "split-K reduction kernel")?;
                let blocks = splitk::reduce_blocks(reduce, p.m, p.n, sms);
                let rplan = Plan::with_grid(reduce, (blocks, 1, 1), 0);
                if self.programmatic_launch() {
                    // the sm_90 build, which waits for the slices (`Context::programmatic_launch`)
                    launch::launch_dependent(cuda, cu, reduce_fn, &rplan, &params)?;
                } else {
                    launch::launch(cuda, cu, reduce_fn, &rplan, &params)?;
                }
            }
            Ok(())
        }
    }
}
