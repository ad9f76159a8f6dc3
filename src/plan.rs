//! [`Plan`]: the kernel a call runs and its launch shape.

use crate::error::{invalid, Error, Result};
use crate::problem::Problem;
use crate::splitk::{self, Split};
use crate::staging::Staged;
use crate::tail::Tail;
use tcgemm_kernels::config::{KernelSpec, KERNELS};

/// How a call runs: the kernel and its launch shape. Returned by [`Context::plan`](crate::Context::plan),
/// [`Context::plan_for`](crate::Context::plan_for) and by [`Context::gemm`](crate::Context::gemm)
/// (the plan it ran), all from the same code, so they agree.
///
/// The grid's x covers the `m×n` output tiles of the kernel's block tile; batch item
/// `z = ctaid.y + ctaid.z·nctaid.y` (y up to 65535, z for larger batches). Persistent kernels
/// (the Hopper TMA kernels) instead take `(min(tiles·batch, SMs), 1, 1)`. A call with no output
/// (`m`, `n` or `batch` zero) plans a grid with a zero extent and launches nothing.
///
/// A call split along K ([`Plan::split`], [`Split::is_split`]) runs `kernel` (then the f32-output
/// kernel of the dispatched one's tile) once over the k-slices as a batch (`grid.1` = the
/// slices); the last CTA to finish each output tile sums its slices into C, or, for large tiles,
/// [`Split::reduce`] after the launch. A persistent kernel may instead run each tile's slices as
/// one thread-block cluster ([`Split::cluster`]: the call's own kernel, one CTA per tile and
/// slice, the first slice's CTA summing and storing C). See `src/splitk.rs` for the model. A
/// persistent kernel whose work items leave its last wave short shares out the k-tiles of its last
/// items instead ([`Plan::stream_k`], one CTA per SM; `src/streamk.rs`).
///
/// ```no_run
/// use tcgemm::{Context, Gemm};
/// let ctx = Context::new(0)?;
/// let plan = ctx.plan::<f32, f32>(&Gemm::new(1000, 500, 64))?;
/// println!("{} grid {:?} block {:?} smem {}", plan.kernel.name, plan.grid, plan.block, plan.smem_bytes);
/// # Ok::<(), tcgemm::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// The kernel.
    pub kernel: &'static KernelSpec,
    /// Grid, in blocks.
    pub grid: (u32, u32, u32),
    /// Block, in threads.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: u32,
    /// The split along K: `slices == 1` when the call runs in one pass.
    pub split: Split,
    /// Stream-K (persistent kernels): the work items, last in the kernel's order, whose k-tiles
    /// its CTAs share out in equal pieces (`src/streamk.rs`); 0 when every item runs whole.
    pub stream_k: u32,
    /// The operands copied into the context's staging buffer, packed with rows on 128-byte
    /// lines, because they are not 16-byte aligned (or, on Hopper, their rows are off 32-byte
    /// sectors), so that `kernel` runs the call at its aligned speed (`src/staging.rs`).
    pub staged: Staged,
    /// A [`Precision::Tf32x3`](crate::Precision::Tf32x3) call: A and B were split into TF32 parts
    /// in the context's staging buffer (three times as long along K), and `kernel`, a TF32
    /// kernel, ran the product over them (its first chunk of K, where the parts exceed the
    /// staging limit; `src/tf32x3.rs`).
    pub tf32x3: bool,
    /// A tail launch: the call's last rows of tiles, split along K, run after this plan's launch,
    /// which then computes only the rows above them (a kernel of one block per tile whose last
    /// round of blocks the call would leave short; `src/tail.rs`).
    pub tail: Option<Tail>,
}

/// Largest grid x dimension CUDA accepts.
const MAX_GRID_X: u64 = i32::MAX as u64;
/// Largest grid y dimension CUDA accepts.
const MAX_GRID_Y: usize = 65535;

impl Plan {
    /// The launch shape of GEMM kernel `kernel` for `problem` on a device with `sm_count` SMs.
    ///
    /// Persistent kernels: one CTA per SM (at most one per work item), each looping over work
    /// items `tile + z·tiles`; [`can_implement`](crate::can_implement) keeps them to calls whose
    /// tiles·batch fits 32 bits.
    pub(crate) fn for_kernel(
        kernel: &'static KernelSpec,
        problem: &Problem,
        sm_count: u32,
    ) -> Result<Plan> {
        let (bm, bn) = (kernel.c_tile().m, kernel.c_tile().n);
        if bm == 0 || bn == 0 || kernel.threads == 0 {
            return Err(Error::Unsupported(format!(
                "kernel table entry `{}` has an empty block tile or no threads; fix its KernelSpec",
                kernel.name
            )));
        }
        let g = problem.gemm();
        let tiles = problem.tiles(kernel.c_tile());
        if tiles > MAX_GRID_X {
            return Err(invalid(
                "m, n",
                format!(
                    "{}×{} needs more than {MAX_GRID_X} output tiles of {bm}×{bn} for kernel `{}`; split the call along m or n",
                    g.m, g.n, kernel.name
                ),
            ));
        }
        if kernel.family.persistent() {
            // one CTA per work unit (`KernelSpec::unit_tile`), or one cluster of `size` CTAs
            // (`Family::cluster`), up to the SMs
            let size = kernel.family.cluster();
            let work = problem.work_items(kernel.unit_tile());
            // ≤ sm_count, so it fits u32
            let ctas = work.min(u64::from((sm_count / size).max(1))) as u32 * size;
            return Ok(Plan::with_grid(kernel, (ctas, 1, 1), kernel.smem_bytes).unsplit(g.k));
        }
        // Batch item z = ctaid.y + ctaid.z·nctaid.y: y up to 65535, z for the rest (the kernels
        // return early for z ≥ batch, so the last z slice may overshoot).
        let batch_y = g.batch.min(MAX_GRID_Y);
        let batch_z = if batch_y == 0 {
            0
        } else {
            g.batch.div_ceil(batch_y)
        };
        if batch_z > MAX_GRID_Y {
            return Err(invalid(
                "batch",
                format!(
                    "{} batch items exceed the grid's {}·{} limit; split the call",
                    g.batch, MAX_GRID_Y, MAX_GRID_Y
                ),
            ));
        }
        // All fit in u32: tiles ≤ i32::MAX, batch_y and batch_z ≤ 65535.
        let grid = (tiles as u32, batch_y as u32, batch_z.max(1) as u32);
        Ok(Plan::with_grid(kernel, grid, kernel.smem_bytes).unsplit(g.k))
    }

    /// This plan, one pass over all of `k`.
    fn unsplit(self, k: usize) -> Plan {
        Plan {
            split: Split::none(u32::try_from(k).unwrap_or(u32::MAX)),
            ..self
        }
    }

    /// This plan split along K where the model (`src/splitk.rs`) says so: for a call of one batch
    /// item that reads A and B, with few output tiles and a long K,
    /// whose f32-output twin (and, for a tile too large for the fused sum, the reduction kernel)
    /// `loaded` accepts. Otherwise `self` unchanged.
    pub(crate) fn split_k(
        self,
        problem: &Problem,
        sm_count: u32,
        loaded: impl Fn(&KernelSpec) -> bool,
        resident_clusters: impl Fn(u32) -> u32,
    ) -> Plan {
        let Some(twin) = splitk::f32_twin(self.kernel, KERNELS).filter(|t| loaded(t)) else {
            return self;
        };
        let Some((slices, kslice)) = splitk::choose(twin, problem, sm_count) else {
            return self;
        };
        let g = problem.gemm();
        // tiles < SMs here, so grid x fits u32
        let tiles = problem.tiles(twin.c_tile()) as u32;
        if let Some((slices, kslice)) =
            splitk::cluster_split(self.kernel, problem, slices, resident_clusters)
        {
            // one CTA per (tile, slice), the call's own kernel: its epilogue stores C
            let split = Split {
                slices,
                kslice,
                cluster: true,
                ..Split::none(kslice)
            };
            let grid = (tiles * slices, 1, 1);
            return Plan {
                split,
                ..Plan::with_grid(self.kernel, grid, self.kernel.smem_bytes)
            };
        }
        let ldw = splitk::workspace_ld(g.n as u64);
        let reduce = if splitk::fused(twin, problem, slices) {
            None
        } else {
            let Some(r) = splitk::reduction(KERNELS).filter(|r| loaded(r)) else {
                return self;
            };
            Some(r)
        };
        let split = Split {
            slices,
            kslice,
            workspace_bytes: splitk::counters_bytes(sm_count)
                + u64::from(slices) * g.m as u64 * ldw * 4,
            reduce,
            cluster: false,
        };
        // one batch item (grid y) per slice, or for a persistent kernel one CTA per work item
        // (tile, slice) up to the SMs
        let grid = if twin.family.persistent() {
            ((tiles * slices).min(sm_count.max(1)), 1, 1)
        } else {
            (tiles, slices, 1)
        };
        Plan {
            split,
            ..Plan::with_grid(twin, grid, twin.smem_bytes)
        }
    }

    /// This plan (of a persistent kernel) with the k-tiles of its last `items` work items shared
    /// out among one CTA per SM (stream-K, [`crate::streamk::choose`]'s answer).
    pub(crate) fn with_stream_k(self, items: u32, sm_count: u32) -> Plan {
        Plan {
            grid: (sm_count.max(1), 1, 1),
            stream_k: items,
            ..self
        }
    }

    /// `kernel` on a grid of `grid` blocks of its `threads`, with `smem_bytes` of dynamic shared
    /// memory (utilities: conversions and ceilings take 0).
    pub(crate) fn with_grid(
        kernel: &'static KernelSpec,
        grid: (u32, u32, u32),
        smem_bytes: u32,
    ) -> Plan {
        Plan {
            kernel,
            grid,
            block: (kernel.threads, 1, 1),
            smem_bytes,
            split: Split::none(0),
            stream_k: 0,
            staged: Staged::NONE,
            tf32x3: false,
            tail: None,
        }
    }

    /// This plan (of the rows of C above the tail, `top`) followed by the tail launch
    /// `tail_plan` (split along K).
    pub(crate) fn with_tail(self, top: &Problem, tail_plan: &Plan) -> Plan {
        Plan {
            tail: Some(Tail {
                // top's rows < m, a u32 after validation
                row: top.gemm().m as u32,
                kernel: tail_plan.kernel,
                grid: tail_plan.grid,
                split: tail_plan.split,
            }),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::Gemm;
    use crate::test_support::{any_math, leak};
    use tcgemm_kernels::config::{Elem, GemmShape, KERNELS};

    fn spec() -> KernelSpec {
        KERNELS[0]
    }

    fn plan(k: &'static KernelSpec, g: &Gemm) -> Result<Plan> {
        Plan::for_kernel(k, &any_math(g, k.input, k.output), 132)
    }

    #[test]
    fn plan_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Plan>();
    }

    #[test]
    fn plan_grid() {
        let k = leak(spec());
        let (bm, bn) = (k.block.m as usize, k.block.n as usize);
        let g = Gemm::new(2 * bm + 1, 3 * bn, 17);
        let p = plan(k, &g).unwrap();
        assert_eq!(p.grid, (3 * 3, 1, 1));
        assert_eq!(p.block, (k.threads, 1, 1));
        assert_eq!(p.smem_bytes, k.smem_bytes);
        assert_eq!(plan(k, &g.batch(7)).unwrap().grid.1, 7);
        let big = plan(k, &g.batch(1_000_000)).unwrap().grid;
        assert_eq!((big.1, big.2), (65535, 16)); // 65535·16 ≥ 1e6 > 65535·15
        assert!(plan(k, &g.batch(65535 * 65535 + 1)).is_err());
        assert_eq!(plan(k, &Gemm::new(1, 1, 1)).unwrap().grid, (1, 1, 1));
        assert_eq!(plan(k, &Gemm::new(0, 5, 1)).unwrap().grid.0, 0);
        assert_eq!(plan(k, &Gemm::new(5, 5, 1).batch(0)).unwrap().grid.1, 0);
    }

    #[test]
    fn persistent_plans_take_one_cta_per_sm() {
        let tma = KERNELS
            .iter()
            .find(|k| k.family.persistent())
            .expect("the table has persistent kernels");
        let (bm, bn) = (tma.block.m as usize, tma.block.n as usize);
        // 4·2 tiles × 3 batch items = 24 work items: fewer than the SMs, one CTA each
        let g = Gemm::new(4 * bm, 2 * bn, 64).batch(3);
        assert_eq!(plan(tma, &g).unwrap().grid, (24, 1, 1));
        // more work items than SMs: one CTA per SM
        let big = Gemm::new(40 * bm, 40 * bn, 64);
        assert_eq!(plan(tma, &big).unwrap().grid, (132, 1, 1));
        // no output: nothing launches
        assert_eq!(plan(tma, &Gemm::new(0, bn, 64)).unwrap().grid.0, 0);
        // other kernels: one CTA per tile, batch items over y and z
        let k = leak(spec());
        let (kbm, kbn) = (k.block.m as usize, k.block.n as usize);
        let g80 = Gemm::new(4 * kbm, 2 * kbn, 64).batch(3);
        assert_eq!(plan(k, &g80).unwrap().grid, (8, 3, 1));
    }

    #[test]
    fn plan_rejects_too_many_tiles() {
        let small = leak(KernelSpec {
            block: GemmShape::new(16, 16, 8),
            ..spec()
        });
        let big = crate::gemm::MAX_DIM;
        let e = plan(small, &Gemm::new(big, big, 1)).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { what: "m, n", .. }),
            "{e}"
        );
        // Exactly at the limit is fine: i32::MAX tiles of 1×1.
        let unit = leak(KernelSpec {
            block: GemmShape::new(1, 1, 1),
            ..spec()
        });
        assert_eq!(
            plan(unit, &Gemm::new(big, 1, 1)).unwrap().grid.0,
            i32::MAX as u32
        );
        assert!(plan(unit, &Gemm::new(big, 2, 1)).is_err());
    }

    #[test]
    fn plan_rejects_broken_spec() {
        let empty = leak(KernelSpec {
            block: GemmShape::new(0, 128, 8),
            ..spec()
        });
        assert!(matches!(
            plan(empty, &Gemm::new(4, 4, 4)),
            Err(Error::Unsupported(_))
        ));
    }

    #[test]
    fn plan_rejects_batches_beyond_the_grid() {
        // docs/errors.md: a batch the sm_80 grid (y·z ≤ 65535²) cannot cover; validate accepts it
        // (≤ u32::MAX), so the plan is where it is refused.
        let k = leak(spec());
        assert!(!k.family.persistent());
        assert_eq!(k.input, Elem::F32);
        let most = 65535usize * 65535;
        let g = Gemm::new(1, 1, 1).batch(most + 1);
        assert_eq!(plan(k, &g.batch(most)).unwrap().grid, (1, 65535, 65535));
        match plan(k, &g) {
            Err(Error::InvalidArgument { what, why }) => {
                assert_eq!(what, "batch", "{why}");
                assert!(why.contains("split the call"), "{why}");
            }
            other => panic!("expected InvalidArgument {{ what: \"batch\" }}, got {other:?}"),
        }
    }
}
