//! One case of the report: a (shape, path) measured through tcgemm's dispatch, through each
//! forced kernel that serves it, and through cuBLAS, interleaved.

use std::cell::Cell;
use std::time::Instant;

use cudarc::cublas::CudaBlas;
use half::{bf16, f16};
use tcgemm::{Context, KernelSpec};
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

/// A line of the results table: dispatch's kernel, or a forced one, against cuBLAS.
#[derive(Clone, Debug)]
pub struct Row {
    pub shape: Shape,
    pub path: Path,
    pub kernel: String,
    pub forced: bool,
    pub ours: Result<Meas, String>,
    pub blas: Result<Meas, String>,
}

/// An implementation of a case.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Imp {
    Dispatch,
    Forced(&'static str),
    Cublas,
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

fn launch<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    imp: Imp,
    (path, shape): (Path, Shape),
    sets: &mut Sets<I, O>,
    s: usize,
) -> Result<(), String> {
    let g = shape.gemm(path.precision());
    match imp {
        Imp::Dispatch => {
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

/// Poisons C of set 0, runs `imp` once there and returns its sampled relative error.
fn check<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    imp: Imp,
    case: (Path, Shape),
    sets: &mut Sets<I, O>,
    reference: &Reference,
) -> Result<f64, String> {
    sets.checked_run(env.ctx.stream(), reference, &mut |sets, s| {
        launch(env, imp, case, sets, s)
    })
}

/// The rows of a case before measuring (dispatch's first, then one per forced kernel that serves
/// it) and the implementations to run.
fn planned_rows<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    shape: Shape,
    path: Path,
) -> (Vec<Row>, Vec<Imp>) {
    let plan = env
        .ctx
        .plan::<I, O>(&shape.gemm(path.precision()))
        // a call split along K: the slices' kernel, then `/S` and the slice depth
        .map(|p| match p.split.slices {
            1 => p.kernel.name.to_string(),
            s => format!("{} /{s}x{}k", p.kernel.name, p.split.kslice),
        })
        .map_err(err_text);
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
    (rows, imps)
}

/// Puts `r` where `imp`'s result goes: its own row, or the cuBLAS column of every row.
fn set_result(rows: &mut [Row], imp: Imp, r: Result<Meas, String>) {
    let row = match imp {
        Imp::Dispatch => Some(0),
        Imp::Forced(name) => rows.iter().position(|r| r.forced && r.kernel == name),
        Imp::Cublas => None,
    };
    match row {
        Some(i) => rows[i].ours = r,
        None => rows.iter_mut().for_each(|row| row.blas = r.clone()),
    }
}

/// Speed: interleaved rounds (one launch of each implementation in `order`, each on the next
/// buffer set), two warm-up rounds, then enough rounds for about [`CASE_BUDGET_MS`] of GPU time.
/// Returns every launch's device time and host time (µs), in launch order, and the timed rounds.
fn timed_rounds<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    timer: &mut Timer<'_>,
    case: (Path, Shape),
    sets: &mut Sets<I, O>,
    order: &[Imp],
) -> Result<(Vec<f64>, Vec<f64>, usize), String> {
    let (n, nsets) = (order.len(), sets.len());
    let mut next = 0usize;
    let mut host_us: Vec<f64> = Vec::new();
    let mut timed = |timer: &mut Timer<'_>, rounds: usize| {
        host_us.clear();
        timer.each(rounds * n, &mut |j| {
            let s = next % nsets;
            next += 1;
            let t0 = Instant::now();
            let r = launch(env, order[j % n], case, sets, s);
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

/// Measures one (shape, path): the dispatch row first, then one row per forced kernel.
fn run_case<I: TestElem, O: TestElem>(
    env: &Env<'_>,
    timer: &mut Timer<'_>,
    shape: Shape,
    path: Path,
) -> Vec<Row> {
    let (mut rows, imps) = planned_rows::<I, O>(env, shape, path);
    if imps.is_empty() {
        return rows;
    }
    let mut sets = match Sets::<I, O>::new(env.ctx, shape, 0x7c3a_0001) {
        Ok(s) => s,
        Err(e) => {
            for &imp in &imps {
                set_result(&mut rows, imp, Err(format!("setup: {e}")));
            }
            return rows;
        }
    };
    let (lo, hi) = env.sets_seen.get();
    env.sets_seen.set((lo.min(sets.len()), hi.max(sets.len())));
    let mut rng = Rng::new(0x5eed, 99);
    let problem = shape.problem();
    let reference =
        Reference::sampled_of_values(&problem, &sets.ha, &sets.hb, env.samples, &mut rng);

    // Accuracy, one implementation at a time; failures drop out of the timing.
    let mut active: Vec<(Imp, f64)> = Vec::new();
    for &imp in &imps {
        match check(env, imp, (path, shape), &mut sets, &reference) {
            Ok(err) => active.push((imp, err)),
            Err(e) => set_result(&mut rows, imp, Err(e)),
        }
    }
    if active.is_empty() {
        return rows;
    }
    let order: Vec<Imp> = active.iter().map(|a| a.0).collect();
    match timed_rounds(env, timer, (path, shape), &mut sets, &order) {
        Ok((times, host_us, reps)) => {
            let (lo, hi) = env.reps_seen.get();
            env.reps_seen.set((lo.min(reps), hi.max(reps)));
            for (i, &(imp, err)) in active.iter().enumerate() {
                let mine: Vec<f64> = times.iter().skip(i).step_by(order.len()).copied().collect();
                let ms = median(&mine);
                let host: Vec<f64> = host_us
                    .iter()
                    .skip(i)
                    .step_by(order.len())
                    .copied()
                    .collect();
                let tflops = shape.flops() as f64 / (ms * 1e-3) / 1e12;
                set_result(
                    &mut rows,
                    imp,
                    Ok(Meas {
                        ms,
                        host_us: median(&host),
                        tflops,
                        err,
                        reps,
                    }),
                );
            }
        }
        Err(e) => {
            for &(imp, _) in &active {
                set_result(&mut rows, imp, Err(format!("timing: {e}")));
            }
        }
    }
    rows
}

/// [`run_case`] with the element types of `path`.
pub fn run_path(env: &Env<'_>, timer: &mut Timer<'_>, shape: Shape, path: Path) -> Vec<Row> {
    match path {
        Path::Fp32 | Path::Tf32 => run_case::<f32, f32>(env, timer, shape, path),
        Path::F16 => run_case::<f16, f16>(env, timer, shape, path),
        Path::F16F32 => run_case::<f16, f32>(env, timer, shape, path),
        Path::Bf16 => run_case::<bf16, bf16>(env, timer, shape, path),
    }
}
