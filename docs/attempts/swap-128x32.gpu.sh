#!/usr/bin/env bash
# The GPU call prepared for docs/attempts/swap-128x32.patch with ring-depth.patch on top (sessions
# 78 and 79; refused in both). Run from the repository root on the device machine, with
# bundle/b78d.tar.xz holding release builds of that tree: `test-every` (tests/every_kernel.rs),
# `bench_report`, and `bench_report_b` (the same with the 128x32 tile admitted: the
# `Family::TmaWarpSpecialized if spec.swaps_ab() && spec.block.n == 32 => false` arm of
# `admission::admits` removed and its rates set to 40).
# Steps: the 32-wide tile at 16, 8 and 4 stages forced; the 128x32 tile forced beside the 32-wide
# one; every_kernel and memcheck on the 128x32 kernels; dispatch without (a) and with (b) the
# 128x32 tile, alternated, while time allows.
source docs/attempts/gpu-call.sh b78d.tar.xz
B=/tmp/y/bench_report
S=""
for m in 32 128; do for n in 1536 4096; do for k in 1024 4096 8192; do S="$S,${m}x${n}x${k}"; done; done; done
K=""
for s in 16 8 4; do K="$K,f16_f16_nn_swap_64x32x64_w64x32_s${s}_tma_pp"; done
timeout 100 $B --paths f16 --reps 5 --samples 64 --shapes "${S#,}" --kernels "${K#,}" --out /tmp/st > /dev/null 2> "$OUT/stages.log"
log "stages exit $?"
S=""
for m in 32 64 96 128; do for n in 1536 4096; do for k in 1024 4096 8192; do for l in "" :nt; do S="$S,${m}x${n}x${k}${l}"; done; done; done; done
K=""
for l in nn nt; do K="$K,f16_f16_${l}_swap_64x32x64_w64x32_s16_tma_pp,f16_f16_${l}_swap_128x32x64_w64x32_s10_tma"; done
timeout 100 $B --paths f16 --reps 5 --samples 64 --shapes "${S#,}" --kernels "${K#,}" --out /tmp/qk > /dev/null 2> "$OUT/f128.log"
log "forced exit $?"
TCGEMM_KERNEL_FILTER=swap_128x32 timeout 90 /tmp/y/test-every --test-threads=1 every_kernel > "$OUT/t-every.log" 2>&1
log "every_kernel exit $?: $(grep 'test result' "$OUT/t-every.log" | tail -1)"
TCGEMM_KERNEL_FILTER=swap_128x32 timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck \
  /tmp/y/test-every --test-threads=1 --exact every_kernel_tail_and_full_shape > "$OUT/s-memcheck.log" 2>&1
log "memcheck exit $?: $(grep -E 'ERROR SUMMARY|test result' "$OUT/s-memcheck.log" | tr '\n' ' ')"
S=$(decode_shapes)
for r in a1 b1 a2 b2; do
  time_left 400 || { log "ab $r skipped"; continue; }
  B=/tmp/y/bench_report; [ "${r:0:1}" = b ] && B=/tmp/y/bench_report_b
  timeout 100 $B --paths f16,bf16 --reps 5 --samples 64 --shapes "$S" --out /tmp/ab-$r > /dev/null 2> "$OUT/ab-$r.log"
  log "ab $r exit $?"
done
