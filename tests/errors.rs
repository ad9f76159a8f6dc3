//! One test per row of docs/errors.md not covered elsewhere (argument validation is in
//! `tests/validation.rs`): CPU ones, and GPU ones (rejections that need a `Context`) that skip
//! without a GPU like every GPU test.

use std::panic::catch_unwind;
use tcgemm::{Context, Error, Gemm, Precision};
use tcgemm_testkit::*;

#[test]
fn overflowing_c_item_of_a_batched_call_is_argument_c() {
    // batch > 1: one C item, (m−1)·ldc + n, overflows before the batch stride is even looked at.
    let g = Gemm::new(2, 1, 1).ldc(usize::MAX).batch(2);
    assert_invalid(
        validate_no_panic(&g, usize::MAX, usize::MAX, usize::MAX),
        "c",
        "one C item",
    );
    // batch 1: the same C fails in required_lens instead.
    let g = g.batch(1);
    assert_invalid(
        validate_no_panic(&g, usize::MAX, usize::MAX, usize::MAX),
        "c",
        "C spans",
    );
    assert_invalid(required_lens_no_panic(&g), "c", "overflows usize");
}

#[test]
fn overflowing_spans_name_the_operand() {
    let max = usize::MAX;
    for (g, what, needle) in [
        // (rows−1)·ld + cols overflows
        (Gemm::new(2, 1, 1).lda(max), "a", "A spans"),
        (Gemm::new(1, 1, 2).trans_a(true).lda(max), "a", "A spans"),
        (Gemm::new(1, 1, 2).ldb(max), "b", "B spans"),
        (Gemm::new(1, 2, 1).trans_b(true).ldb(max), "b", "B spans"),
        // stride·(batch−1) overflows
        (
            Gemm::new(1, 1, 1).batch(3).stride_a(max / 2 + 1),
            "a",
            "A spans",
        ),
        (
            Gemm::new(1, 1, 1).batch(3).stride_b(max / 2 + 1),
            "b",
            "B spans",
        ),
        (
            Gemm::new(1, 1, 1).batch(3).stride_c(max / 2 + 1),
            "c",
            "C spans",
        ),
        // C is checked first, then A, then B
        (Gemm::new(2, 1, 1).lda(max).ldc(max), "c", "C spans"),
        (Gemm::new(2, 1, 2).lda(max).ldb(max), "a", "A spans"),
    ] {
        assert_invalid(required_lens_no_panic(&g), what, needle);
        assert_invalid(validate_no_panic(&g, max, max, max), what, needle);
    }
    // A and B unreferenced (alpha == 0): their spans cannot overflow the call.
    let g = Gemm::new(2, 1, 1).lda(max).alpha(0.0);
    assert_eq!(required_lens_no_panic(&g).unwrap(), (0, 0, 2));
}

#[test]
fn missing_driver_library_is_no_device() {
    // SAFETY: only tries to dlopen the CUDA driver library by its usual names.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        println!(
            "skipped: a CUDA driver library is present (this row needs a machine without one)"
        );
        return;
    }
    for r in [
        catch_unwind(|| Context::new(0).map(|_| ())).expect("Context::new panicked"),
        catch_unwind(|| Context::new(usize::MAX).map(|_| ())).expect("Context::new panicked"),
        catch_unwind(|| Context::device_count().map(|_| ())).expect("device_count panicked"),
    ] {
        match r {
            Err(Error::NoDevice(why)) => {
                assert!(why.contains("CUDA driver library"), "{why}")
            }
            other => panic!("expected Error::NoDevice, got {other:?}"),
        }
    }
}

#[test]
fn missing_ordinal_is_no_device() {
    let Some(_ctx) = gpu() else { return };
    let count = Context::device_count().expect("device_count with a GPU");
    for ordinal in [count, usize::MAX] {
        match Context::new(ordinal) {
            Err(Error::NoDevice(why)) => assert!(why.contains("does not exist"), "{why}"),
            other => panic!("Context::new({ordinal}): expected Error::NoDevice, got {other:?}"),
        }
    }
}

#[test]
fn precisions_the_inputs_do_not_have_are_invalid() {
    use half::{bf16, f16};
    let Some(ctx) = gpu() else { return };
    let g = Gemm::new(64, 64, 64);
    let tf32 = g.precision(Precision::Tf32);
    let f16acc = g.precision(Precision::F16Accumulate);
    assert_invalid(ctx.plan::<f16, f32>(&tf32), "precision", "f32 inputs only");
    assert_invalid(
        ctx.plan::<bf16, bf16>(&tf32),
        "precision",
        "f32 inputs only",
    );
    assert_invalid(
        ctx.plan::<f32, f32>(&f16acc),
        "precision",
        "f16 inputs only",
    );
    assert_invalid(
        ctx.plan::<bf16, f32>(&f16acc),
        "precision",
        "f16 inputs only",
    );
    // gemm checks it first, before the (here far too short) buffers.
    let s = ctx.stream();
    let a = s.alloc_zeros::<f16>(1).unwrap();
    let b = s.alloc_zeros::<f16>(1).unwrap();
    let mut c = s.alloc_zeros::<f32>(1).unwrap();
    assert_invalid(
        ctx.gemm::<f16, f32, _, _, _>(&tf32, &a, &b, &mut c),
        "precision",
        "f32 inputs only",
    );
}

#[test]
fn type_and_precision_combinations_without_a_kernel_are_invalid() {
    use half::{bf16, f16};
    let Some(ctx) = gpu() else { return };
    let g = Gemm::new(64, 64, 64);
    // no kernel for these element types at all (the message lists those that exist)
    let types = "element types";
    assert_invalid(
        ctx.plan::<bf16, f16>(&g),
        types,
        "no kernel for these element types",
    );
    assert_invalid(
        ctx.plan::<f16, bf16>(&g),
        types,
        "no kernel for these element types",
    );
    assert_invalid(ctx.plan::<f32, f16>(&g), types, "no kernel for F32 -> F16");
    // f16 accumulation exists only with f16 output
    assert_invalid(
        ctx.plan::<f16, f32>(&g.precision(Precision::F16Accumulate)),
        "precision",
        "choose another Precision",
    );
    // gemm: the same, with buffers that fit
    let s = ctx.stream();
    let a = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let b = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let mut c = s.alloc_zeros::<f16>(64 * 64).unwrap();
    assert_invalid(
        ctx.gemm::<f32, f16, _, _, _>(&g, &a, &b, &mut c),
        types,
        "no kernel for F32 -> F16",
    );
}

#[test]
fn plans_beyond_the_launch_grid_are_invalid() {
    let Some(ctx) = gpu() else { return };
    // Exact FP32 runs on the sm_80 kernels (one CTA per 128×128 tile): validate accepts both calls.
    let max = i32::MAX as usize;
    let tiles = Gemm::new(max, max, 1).precision(Precision::Exact);
    assert_invalid(ctx.plan::<f32, f32>(&tiles), "m, n", "output tiles");
    let batch = Gemm::new(1, 1, 1)
        .batch(65535 * 65535 + 1)
        .precision(Precision::Exact);
    assert_invalid(ctx.plan::<f32, f32>(&batch), "batch", "grid");
}

#[test]
fn buffers_of_another_device_are_rejected() {
    let Some(ctx) = gpu() else { return };
    let count = Context::device_count().expect("device_count with a GPU");
    if count < 2 {
        println!("skipped: needs 2 CUDA devices, {count} visible");
        return;
    }
    let other = match Context::new(1) {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: device 1 is not usable: {e}");
            return;
        }
    };
    let g = Gemm::new(8, 8, 8);
    let (s, o) = (ctx.stream(), other.stream());
    let a = s.alloc_zeros::<f32>(64).unwrap();
    let b = s.alloc_zeros::<f32>(64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64).unwrap();
    let fa = o.alloc_zeros::<f32>(64).unwrap();
    let fb = o.alloc_zeros::<f32>(64).unwrap();
    let mut fc = o.alloc_zeros::<f32>(64).unwrap();
    assert_invalid(
        ctx.gemm(&g, &fa, &b, &mut c),
        "a",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm(&g, &a, &fb, &mut c),
        "b",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm(&g, &a, &b, &mut fc),
        "c",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.gemm_with_kernel("sgemm_nn_128x128x16_t8x8_s3", &g, &fa, &b, &mut c),
        "a",
        "allocated in the context of device 1",
    );
    // An empty call references no buffer, so where they live does not matter.
    ctx.gemm(&Gemm::new(0, 8, 8), &fa, &fb, &mut fc).unwrap();
    // Conversions and instruction ceilings check their buffers too.
    let mut h = s.alloc_zeros::<half::f16>(64).unwrap();
    let mut fh = o.alloc_zeros::<half::f16>(64).unwrap();
    assert_invalid(
        ctx.convert(&fa, &mut h),
        "src",
        "allocated in the context of device 1",
    );
    assert_invalid(
        ctx.convert(&a, &mut fh),
        "dst",
        "allocated in the context of device 1",
    );
    let threads = 256 * ctx.capabilities().sm_count as usize;
    let mut fout = o.alloc_zeros::<f32>(threads).unwrap();
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::Ffma, 1, 1, &mut fout),
        "out",
        "allocated in the context of device 1",
    );
}

#[test]
fn kernels_forced_by_name_are_checked_against_the_call() {
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let g = Gemm::new(8, 8, 8);
    let a = s.alloc_zeros::<f32>(64).unwrap();
    let b = s.alloc_zeros::<f32>(64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64).unwrap();
    let mut run = |name: &str, g: &Gemm| ctx.gemm_with_kernel(name, g, &a, &b, &mut c);
    assert_invalid(run("no_such_kernel", &g), "kernel", "no kernel named");
    assert_invalid(
        run("f16_f32_nn_128x128x32_w64x32_s4", &g),
        "kernel",
        "matching element types",
    );
    assert_invalid(
        run("sgemm_nt_128x128x16_t8x8_s3", &g),
        "kernel",
        "for this layout",
    );
    assert_invalid(run("ceiling_ffma_f32", &g), "kernel", "not a GEMM kernel");
    assert_invalid(run("convert_f32_to_f16", &g), "kernel", "not a GEMM kernel");
    // The name is checked before the buffers: a valid name with short buffers fails on them.
    assert_invalid(
        run("sgemm_nn_128x128x16_t8x8_s3", &Gemm::new(9, 8, 8)),
        "a",
        "buffer A holds 64",
    );
}

/// A TMA (sm_90a) kernel of the table taking f32 inputs and output.
fn tma_f32_kernel() -> &'static tcgemm::KernelSpec {
    tcgemm_kernels::config::KERNELS
        .iter()
        .find(|k| {
            k.family.needs_tma() && k.input == tcgemm::Elem::F32 && k.output == tcgemm::Elem::F32
        })
        .expect("the table has f32 TMA kernels")
}

#[test]
fn kernel_not_runnable_on_the_context_is_unsupported() {
    // force_sm80: the sm_90a module is not loaded, whatever the device.
    let Some(ctx) = gpu_sm80() else { return };
    let k = tma_f32_kernel();
    let g = Gemm::new(64, 64, 64).trans_a(k.trans_a).trans_b(k.trans_b);
    let s = ctx.stream();
    let a = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let b = s.alloc_zeros::<f32>(64 * 64).unwrap();
    let mut c = s.alloc_zeros::<f32>(64 * 64).unwrap();
    assert_unsupported(
        ctx.gemm_with_kernel(k.name, &g, &a, &b, &mut c),
        "cannot run on this context",
    );
}

#[test]
fn named_tma_kernel_refuses_calls_outside_its_rules() {
    let Some(ctx) = gpu() else { return };
    let k = tma_f32_kernel();
    if !ctx.kernels().iter().any(|r| r.name == k.name) {
        println!(
            "skipped: {} is not runnable here (needs a Hopper GPU)",
            k.name
        );
        return;
    }
    let g = Gemm::new(256, 256, 64)
        .trans_a(k.trans_a)
        .trans_b(k.trans_b);
    // alpha == 0 (A and B unreferenced) and a leading dimension of A that is not 16 bytes.
    for call in [g.alpha(0.0), g.lda(g.lda_or_packed() + 1)] {
        let s = ctx.stream();
        let (la, lb, lc) = call.required_lens().unwrap();
        let a = s.alloc_zeros::<f32>(la.max(1)).unwrap();
        let b = s.alloc_zeros::<f32>(lb.max(1)).unwrap();
        let mut c = s.alloc_zeros::<f32>(lc).unwrap();
        assert_invalid(
            ctx.gemm_with_kernel(k.name, &call, &a, &b, &mut c),
            "kernel",
            "TMA kernels need",
        );
        // dispatch itself takes an sm_80 kernel for the same call
        ctx.gemm(&call, &a, &b, &mut c).unwrap();
    }
    ctx.stream().synchronize().unwrap();
}

#[test]
fn instruction_ceiling_arguments_are_checked() {
    let Some(ctx) = gpu() else { return };
    let mut out = ctx.stream().alloc_zeros::<f32>(16).unwrap();
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::MmaF16F16, 1, 1, &mut out),
        "math",
        "no instruction-ceiling kernel",
    );
    let ffma = tcgemm::Math::Ffma;
    assert_invalid(
        ctx.instruction_ceiling(ffma, 0, 1, &mut out),
        "blocks_per_sm, trips",
        "at least 1",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, 1, 0, &mut out),
        "blocks_per_sm, trips",
        "at least 1",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, u32::MAX, 1, &mut out),
        "blocks_per_sm",
        "too many blocks",
    );
    // 4096 · SMs blocks × 2^32 trips × 2^20 FLOPs per block and trip: more than u64 counts.
    assert_invalid(
        ctx.instruction_ceiling(tcgemm::Math::MmaF16F32, 4096, u32::MAX, &mut out),
        "trips",
        "u64::MAX FLOPs",
    );
    assert_invalid(
        ctx.instruction_ceiling(ffma, 1, 1, &mut out),
        "out",
        "holds 16 f32",
    );
}

#[test]
fn alloc_zeros_of_an_overflowing_length_is_invalid() {
    let Some(ctx) = gpu() else { return };
    assert_invalid(ctx.alloc_zeros::<f32>(usize::MAX), "len", "overflow usize");
    assert_invalid(
        ctx.alloc_zeros::<f32>(usize::MAX / 4 + 1),
        "len",
        "overflow usize",
    );
}

#[test]
fn rejected_calls_launch_nothing() {
    // Validation happens before anything is enqueued: C keeps its contents after each refusal.
    let Some(ctx) = gpu() else { return };
    let s = ctx.stream();
    let g = Gemm::new(8, 8, 8);
    let a = s.clone_htod(&[1.0f32; 64]).unwrap();
    let b = s.clone_htod(&[1.0f32; 64]).unwrap();
    let mut c = s.clone_htod(&[7.0f32; 63]).unwrap();
    assert_invalid(ctx.gemm(&g, &a, &b, &mut c), "c", "buffer C holds 63");
    assert_invalid(
        ctx.gemm(&g.stride_c(0).batch(2), &a, &b, &mut c),
        "stride_c",
        "overlap",
    );
    assert_invalid(
        ctx.gemm_with_kernel("sgemm_nt_128x128x16_t8x8_s3", &g, &a, &b, &mut c),
        "kernel",
        "for this layout",
    );
    assert_eq!(s.clone_dtoh(&c).unwrap(), vec![7.0f32; 63]);
}
