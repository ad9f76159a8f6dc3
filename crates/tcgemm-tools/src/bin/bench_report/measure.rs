//! One case of the report: a (shape, path) measured through tcgemm's dispatch, through each
//! forced kernel that serves it, through cuBLAS and, for a shape that is not aligned and packed,
//! through tcgemm's dispatch on its aligned twin, interleaved.

use std::cell::Cell;
use std::time::Instant;

use cudarc::cublas::CudaBlas;
use half::{bf16, f16};
use tcgemm::{Context, KernelSpec, Plan};
use tcgemm_testkit::{blas, median, Path, Reference, Rng, Sets, Shape, TestElem, Timer};
use tcgemm_tools::err_text;

/// Timed rounds per case: at least, at most, and the GPU time aimed at (ms).
const MIN_REPS: usize = 5;
const MAX_REPS: usize = 100;
const CASE_BUDGET_MS: f64 = 1000.0;
/// After this long (s), every further case runs `MIN_REPS` rounds (keeps a slow run bounded).
const SLOW_AFTER_S: f64 = 360.0;

/// One implementation's figures on one case.
#[derive(Clone, Debug)]
pub struct Meas {
    pub ms: f64,
    /// Host time of one call (enqueueing only: the GPU is held behind a delay), median, µs.
    pub host_us: f64,
    pub tflops: f64,
    pub err: f64,
    pub reps: usize,
}

/// tcgemm's dispatch on a row's aligned twin ([`Shape::aligned_twin`]), timed in the same rounds
/// as the row: the speed the call would have if its operands were aligned.
#[derive(Clone, Debug)]
pub struct Twin {
    pub shape: Shape,
    /// The kernel dispatch picks for the twin.
    pub kernel: String,
    pub meas: Result<Meas, String>,
}

/// A line of the results table: dispatch's kernel, or a forced one, against cuBLAS (and, for a
/// shape that is not aligned and packed, against its aligned twin).
#[derive(Clone, Debug)]
pub struct Row {
    pub shape: Shape,
    pub path: Path,
    pub kernel: String,
    pub forced: bool,
    pub ours: Result<Meas, String>,
    pub blas: Result<Meas, String>,
    /// `None` for a shape that is its own aligned twin.
    pub twin: Option<Twin>,
}

/// An implementation of a case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Imp {
    Dispatch,
    Forced(&'static str),
    Cublas,
    /// Dispatch on the aligned twin, on the twin's buffers.
    AlignedTwin,
}

/// What every case shares.
pub struct Env<'a> {
    pub ctx: &'a Context,
    pub blas: Result<CudaBlas, String>,
    /// Kernels forced by name (`--kernels`).
    pub extras: Vec<&'static KernelSpec>,
    pub samples: usize,
    pub reps: Option<usize>,
    pub started: Instant,
    /// Buffer sets per case, for the method notes (fewest, most).
    pub sets_seen: Cell<(usize, usize)>,
    /// Timed rounds per case, for the method notes (fewest, most).
    pub reps_seen: Cell<(usize, usize)>,
}

/// Runs `imp` (not [`Imp::AlignedTwin`]: the twin is dispatch on the twin's sets) on set `s` of
/// `sets`, for their shape.
fn launch<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    imp: Imp,
    path: Path,
    sets: &mut Sets<I, O>,
    s: usize,
) -> Result<(), String> {
    let shape = sets.shape;
    let g = shape.gemm(path.precision());
    match imp {
        Imp::Dispatch | Imp::AlignedTwin => {
            let (a, b, mut c) = sets.views(s);
            env.ctx
                .gemm(&g, &a, &b, &mut c)
                .map(|_| ())
                .map_err(err_text)
        }
        Imp::Forced(name) => {
            let (a, b, mut c) = sets.views(s);
            env.ctx
                .gemm_with_kernel(name, &g, &a, &b, &mut c)
                .map(|_| ())
                .map_err(err_text)
        }
        Imp::Cublas => match &env.blas {
            Ok(h) => {
                // whole buffers: cuBLAS is handed the same views through the shape's offset
                let Sets { a, b, c, .. } = sets;
                let compute = path.cublas_compute();
                blas::gemm::<I, O>(h, env.ctx.stream(), compute, shape, &a[s], &b[s], &mut c[s])
            }
            Err(why) => Err(why.clone()),
        },
    }
}

/// A shape's rotating buffer sets and the f64 reference of their inputs.
struct Operands<I, O> {
    sets: Sets<I, O>,
    reference: Reference,
}

impl<I: TestElem, O: TestElem> Operands<I, O> {
    fn new(env: &Env<'_>, shape: Shape) -> Result<Self, String> {
        let sets = Sets::<I, O>::new(env.ctx, shape, 0x7c3a_0001)?;
        let mut rng = Rng::new(0x5eed, 99);
        let reference = Reference::sampled_of_values(
            &shape.problem(),
            &sets.ha,
            &sets.hb,
            env.samples,
            &mut rng,
        );
        Ok(Operands { sets, reference })
    }
}

/// What a case's launches run on: the case's operands, and its aligned twin's when it has one.
struct Buffers<I, O> {
    case: Operands<I, O>,
    twin: Option<Operands<I, O>>,
}

impl<I: TestElem, O: TestElem> Buffers<I, O> {
    /// The operands `imp` runs on.
    fn of(&mut self, imp: Imp) -> Result<&mut Operands<I, O>, String> {
        match imp {
            Imp::AlignedTwin => self.twin.as_mut().ok_or_else(|| "no aligned twin".into()),
            _ => Ok(&mut self.case),
        }
    }

    /// Poisons C of set 0 of `imp`'s operands, runs `imp` once there and returns its sampled
    /// relative error (or that it wrote outside C's entries).
    fn check(&mut self, env: &Env<'_>, path: Path, imp: Imp) -> Result<f64, String> {
        let ops = self.of(imp)?;
        let run_once = &mut |sets: &mut Sets<I, O>, s| launch(env, imp, path, sets, s);
        ops.sets
            .checked_run(env.ctx.stream(), &ops.reference, run_once)
    }

    /// Runs `imp` on the set of its operands that launch number `n` uses.
    fn launch(&mut self, env: &Env<'_>, path: Path, imp: Imp, n: usize) -> Result<(), String> {
        let sets = &mut self.of(imp)?.sets;
        let s = n % sets.len();
        launch(env, imp, path, sets, s)
    }
}

/// The kernel column of a plan: the kernel, for a call split along K `/S` and the slice depth,
/// for a stream-K launch `+sk` and the items it shares out, for a tail launch `+tail` and its first
/// row and split, and for a staged call `+staged` and the operands copied.
fn kernel_label(plan: tcgemm::Result<Plan>) -> Result<String, String> {
    plan.map(|p| {
        let mut label = match p.split.slices {
            1 => p.kernel.name.to_string(),
            s => format!("{} /{s}x{}k", p.kernel.name, p.split.kslice),
        };
        if p.stream_k > 0 {
            label += &format!(" +sk{}", p.stream_k);
        }
        if let Some(t) = p.tail {
            label += &format!(" +tail{} /{}x{}k", t.row, t.split.slices, t.split.kslice);
        }
        let st = p.staged;
        if st.any() {
            let ops = [(st.a, "A"), (st.b, "B"), (st.c, "C")];
            let names: Vec<&str> = ops.iter().filter(|o| o.0).map(|o| o.1).collect();
            label += &format!(" +staged {}", names.join(","));
        }
        label
    })
    .map_err(err_text)
}

/// The rows of a case before measuring (dispatch's first, then one per forced kernel that serves
/// it) and the implementations to run. Dispatch's kernel is the one for buffers aligned like
/// fresh allocations; [`run_case`] asks again with the buffers.
fn planned_rows<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    shape: Shape,
    path: Path,
) -> (Vec<Row>, Vec<Imp>) {
    let plan = kernel_label(env.ctx.plan::<I, O>(&shape.gemm(path.precision())));
    let twin = (!shape.is_aligned_packed()).then(|| {
        let twin = shape.aligned_twin();
        let plan = kernel_label(env.ctx.plan::<I, O>(&twin.gemm(path.precision())));
        (twin, plan)
    });
    let mut imps: Vec<Imp> = Vec::new();
    let mut rows = vec![Row {
        shape,
        path,
        kernel: plan.as_ref().map_or("–".to_string(), |k| k.to_string()),
        forced: false,
        ours: Err(plan.as_ref().err().cloned().unwrap_or_default()),
        blas: Err(match &env.blas {
            Ok(_) => "not run".into(),
            Err(why) => format!("cuBLAS unavailable: {why}"),
        }),
        twin: twin.as_ref().map(|(shape, plan)| Twin {
            shape: *shape,
            kernel: plan.as_ref().map_or("–".to_string(), |k| k.to_string()),
            meas: Err(plan.as_ref().err().cloned().unwrap_or("not run".into())),
        }),
    }];
    if plan.is_ok() {
        imps.push(Imp::Dispatch);
    }
    for spec in env.extras.iter().filter(|s| path.runs(s, &shape)) {
        imps.push(Imp::Forced(spec.name));
        rows.push(Row {
            kernel: spec.name.to_string(),
            forced: true,
            ours: Err("not run".into()),
            ..rows[0].clone()
        });
    }
    if env.blas.is_ok() {
        imps.push(Imp::Cublas);
    }
    if twin.is_some_and(|(_, plan)| plan.is_ok()) && !imps.is_empty() {
        imps.push(Imp::AlignedTwin);
    }
    (rows, imps)
}

/// Puts `r` where `imp`'s result goes: its own row, or the cuBLAS or twin column of every row.
fn set_result(rows: &mut [Row], imp: Imp, r: Result<Meas, String>) {
    let row = match imp {
        Imp::Dispatch => Some(0),
        Imp::Forced(name) => rows.iter().position(|r| r.forced && r.kernel == name),
        Imp::Cublas | Imp::AlignedTwin => None,
    };
    match (row, imp) {
        (Some(i), _) => rows[i].ours = r,
        (None, Imp::AlignedTwin) => rows
            .iter_mut()
            .filter_map(|row| row.twin.as_mut())
            .for_each(|twin| twin.meas = r.clone()),
        (None, _) => rows.iter_mut().for_each(|row| row.blas = r.clone()),
    }
}

/// Speed: interleaved rounds (one launch of each implementation in `order`, each on the next
/// buffer set of its operands), two warm-up rounds, then enough rounds for about
/// [`CASE_BUDGET_MS`] of GPU time. Returns every launch's device time and host time (µs), in
/// launch order, and the timed rounds.
fn timed_rounds<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    timer: &mut Timer<'_>,
    path: Path,
    buffers: &mut Buffers<I, O>,
    order: &[Imp],
) -> Result<(Vec<f64>, Vec<f64>, usize), String> {
    let n = order.len();
    let mut next = 0usize;
    let mut host_us: Vec<f64> = Vec::new();
    let mut timed = |timer: &mut Timer<'_>, rounds: usize| {
        host_us.clear();
        timer.each(rounds * n, &mut |j| {
            let launch_number = next;
            next += 1;
            let t0 = Instant::now();
            let r = buffers.launch(env, path, order[j % n], launch_number);
            host_us.push(t0.elapsed().as_secs_f64() * 1e6);
            r
        })
    };
    let warm = timed(timer, 2)?;
    let round_ms: f64 = warm[n..].iter().sum();
    let reps = match env.reps {
        Some(r) => r,
        None if env.started.elapsed().as_secs_f64() > SLOW_AFTER_S => MIN_REPS,
        None => ((CASE_BUDGET_MS / round_ms.max(1e-3)) as usize).clamp(MIN_REPS, MAX_REPS),
    };
    let times = timed(timer, reps)?;
    Ok((times, host_us, reps))
}

/// The case's buffers: its own operands and, when `imps` times the aligned twin, the twin's.
/// A twin that cannot be set up drops out (its error goes to the twin column).
fn buffers<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    shape: Shape,
    imps: &mut Vec<Imp>,
    rows: &mut [Row],
) -> Result<Buffers<I, O>, String> {
    let case = Operands::new(env, shape)?;
    let (lo, hi) = env.sets_seen.get();
    let n = case.sets.len();
    env.sets_seen.set((lo.min(n), hi.max(n)));
    let twin = if imps.contains(&Imp::AlignedTwin) {
        match Operands::new(env, shape.aligned_twin()) {
            Ok(t) => Some(t),
            Err(e) => {
                set_result(rows, Imp::AlignedTwin, Err(format!("setup: {e}")));
                imps.retain(|&imp| imp != Imp::AlignedTwin);
                None
            }
        }
    } else {
        None
    };
    Ok(Buffers { case, twin })
}

/// Measures one (shape, path): the dispatch row first, then one row per forced kernel.
fn run_case<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    timer: &mut Timer<'_>,
    shape: Shape,
    path: Path,
) -> Vec<Row> {
    let (mut rows, mut imps) = planned_rows::<I, O>(env, shape, path);
    if imps.is_empty() {
        return rows;
    }
    let mut buffers = match buffers::<I, O>(env, shape, &mut imps, &mut rows) {
        Ok(b) => b,
        Err(e) => {
            for &imp in &imps {
                set_result(&mut rows, imp, Err(format!("setup: {e}")));
            }
            return rows;
        }
    };
    // the kernel dispatch picks for these buffers: a view at an unaligned offset can steer it
    if imps.contains(&Imp::Dispatch) {
        let g = shape.gemm(path.precision());
        let (a, b, c) = buffers.case.sets.views(0);
        if let Ok(kernel) = kernel_label(env.ctx.plan_for::<I, O>(&g, &a, &b, &c)) {
            rows[0].kernel = kernel;
        }
    }

    // Accuracy, one implementation at a time; failures drop out of the timing.
    let mut active: Vec<(Imp, f64)> = Vec::new();
    for &imp in &imps {
        match buffers.check(env, path, imp) {
            Ok(err) => active.push((imp, err)),
            Err(e) => set_result(&mut rows, imp, Err(e)),
        }
    }
    if active.is_empty() {
        return rows;
    }
    let order: Vec<Imp> = active.iter().map(|a| a.0).collect();
    match timed_rounds(env, timer, path, &mut buffers, &order) {
        Ok(timing) => record(env, &mut rows, &active, timing),
        Err(e) => {
            for &(imp, _) in &active {
                set_result(&mut rows, imp, Err(format!("timing: {e}")));
            }
        }
    }
    rows
}

/// Puts the figures of every implementation in `active` (with its error) into `rows`, from the
/// interleaved launch times of [`timed_rounds`].
fn record(
    env: &Env<'_>,
    rows: &mut [Row],
    active: &[(Imp, f64)],
    (times, host_us, reps): (Vec<f64>, Vec<f64>, usize),
) {
    let (lo, hi) = env.reps_seen.get();
    env.reps_seen.set((lo.min(reps), hi.max(reps)));
    let n = active.len();
    let every_nth =
        |v: &[f64], i: usize| -> Vec<f64> { v.iter().skip(i).step_by(n).copied().collect() };
    for (i, &(imp, err)) in active.iter().enumerate() {
        let ms = median(&every_nth(&times, i));
        let shape = match imp {
            Imp::AlignedTwin => rows[0].shape.aligned_twin(),
            _ => rows[0].shape,
        };
        let tflops = shape.flops() as f64 / (ms * 1e-3) / 1e12;
        let meas = Meas {
            ms,
            host_us: median(&every_nth(&host_us, i)),
            tflops,
            err,
            reps,
        };
        set_result(rows, imp, Ok(meas));
    }
}

/// [`run_case`] with the element types of `path`.
pub fn run_path(env: &Env<'_>, timer: &mut Timer<'_>, shape: Shape, path: Path) -> Vec<Row> {
    match path {
        Path::Fp32 | Path::Tf32 | Path::Tf32x3 => run_case::<f32, f32>(env, timer, shape, path),
        Path::F16 => run_case::<f16, f16>(env, timer, shape, path),
        Path::F16F32 => run_case::<f16, f32>(env, timer, shape, path),
        Path::Bf16 => run_case::<bf16, bf16>(env, timer, shape, path),
    }
}
