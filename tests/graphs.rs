//! CUDA graphs: `Context::gemm` calls captured with cudarc's stream capture on the context's
//! stream (`CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`, as serving frameworks capture decode loops)
//! launch nothing while captured, and every replay writes the bits of the direct call: decode
//! calls split along K (the workspace is the context's, allocated once), a short-wave call that
//! streams k on Hopper (the same workspace), unsplit calls on the sm_80 and the Hopper kernels (a
//! 64-row `nn` decode call on the swapped 32×64 ping-pong tile), f16, bf16, tf32 and fp32.
//!
//! As cudarc's own graph tests do, the test turns off cudarc's per-buffer event tracking: with
//! it on, a buffer last written before the capture makes the capture wait on uncaptured work
//! (`CUDA_ERROR_STREAM_CAPTURE_ISOLATION`), whatever library launches the work.
//!
//! Needs a CUDA GPU (see `tcgemm_testkit::gpu`: skipped without one unless `TCGEMM_REQUIRE_GPU=1`).

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use half::{bf16, f16};
use tcgemm::{Context, Precision};
use tcgemm_testkit::*;

/// At most this many multiply-adds get a full reference; above it the reference samples entries.
const REFERENCE_MACS: u128 = 1 << 26;

/// The tests share the context's stream, and while one captures it no other may use it (CUDA
/// refuses work on a capturing stream, or the capture fails): one path at a time.
static STREAM: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Captures one call of `p`, checks that capturing ran nothing, then replays the graph three
/// times, each replay after C is restored, each giving the direct call's bits.
fn replays<I: TestElem, O: TestElem>(ctx: &Context, rng: &mut Rng, p: Problem) {
    let g = p.gemm();
    let plan = ctx.plan::<I, O>(&g).expect("plan");
    let label = format!(
        "graph {}->{} {g:?} on {} S={} stream-K items={}",
        I::NAME,
        O::NAME,
        plan.kernel.name,
        plan.split.slices,
        plan.stream_k
    );
    let case = Case::<I, O>::with_reference_limit(label, p, rng, REFERENCE_MACS);
    let stream = ctx.stream();
    let mut dev = case.upload(stream);
    case.launch(ctx, &mut dev, None).expect("direct call");
    let direct = case.download(stream, &dev);

    case.reset_c(stream, &mut dev);
    let before = case.download(stream, &dev);
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .expect("begin capture");
    let captured = case.launch(ctx, &mut dev, None);
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    captured.unwrap_or_else(|e| panic!("gemm during capture: {e}; {}", case.describe()));
    let graph = graph
        .unwrap_or_else(|e| panic!("end capture: {e:?}; {}", case.describe()))
        .expect("a graph with the call's launches");
    assert!(
        case.download(stream, &dev) == before,
        "capturing ran the call: {}",
        case.describe()
    );
    for i in 0..3 {
        case.reset_c(stream, &mut dev);
        graph.launch().expect("graph launch");
        let replayed = case.download(stream, &dev);
        assert!(
            replayed == direct,
            "replay {i} differs from the direct call: {}",
            case.describe()
        );
    }
}

/// Decode calls (split along K where the model splits them), a short-wave call (81 tiles of
/// 128×128 or 54 of 128×192: stream-K on Hopper) and a large call on each path.
fn path<I: TestElem, O: TestElem>(precision: Precision) {
    let Some(ctx) = gpu() else { return };
    let _stream = STREAM
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: every buffer of this test binary is used on the context's stream alone, in order.
    unsafe { ctx.cuda().disable_event_tracking() };
    let mut rng = Rng::for_test(&format!("graphs {}->{} {precision:?}", I::NAME, O::NAME));
    for (m, n, k, tb) in [
        (1, 4096, 4096, false),
        (16, 4096, 4096, true),
        (64, 4096, 4096, false),
        (7, 1000, 4099, false),
        (1024, 1024, 512, true),
        (1152, 1152, 4096, false),
    ] {
        let p = Problem::new(m, n, k).trans(false, tb).precision(precision);
        replays::<I, O>(ctx, &mut rng, p);
    }
}

#[test]
fn f16_calls_replay_from_a_graph() {
    path::<f16, f16>(Precision::Default);
}

#[test]
fn bf16_calls_replay_from_a_graph() {
    path::<bf16, bf16>(Precision::Default);
}

#[test]
fn tf32_calls_replay_from_a_graph() {
    path::<f32, f32>(Precision::Tf32);
}

#[test]
fn fp32_calls_replay_from_a_graph() {
    path::<f32, f32>(Precision::Exact);
}

/// 3xTF32: the direct call grows the staging buffer that holds the TF32 parts, so the captured
/// call needs no allocation.
#[test]
fn tf32x3_calls_replay_from_a_graph() {
    path::<f32, f32>(Precision::Tf32x3);
}
