#!/usr/bin/env bash
# The GPU call prepared for docs/attempts/warp-release.patch (session 79; no GPU could be started).
# Run from the repository root on the device machine, with bundle/wr.tar.xz holding release builds:
# `test-every`, `test-half`, `test-tf32`, `test-streamk`, `test-splitk` (tests/*.rs) and
# `bench_report_b` with the patch applied, and `bench_report_a` of main.
# Steps: every kernel on its tail and full shapes; racecheck, synccheck and memcheck on one kernel
# of each kind of consumer (ping-pong, cooperative, thread copies, register A, staged TF32, the
# swapped 32-wide tile); the test binaries whose kernels share k-tiles; then main (a) against the
# patch (b), alternated a b a b, on the decode rows, the squares and the 32-wide tile forced.
source docs/attempts/gpu-call.sh wr.tar.xz
timeout 150 /tmp/y/test-every --test-threads=1 every_kernel > "$OUT/t-every.log" 2>&1
log "every_kernel exit $?: $(grep 'test result' "$OUT/t-every.log" | tail -1)"
F="f16_f16_nt_64x32x64_w64x32_s16_tma_pp,f16_f16_nt_swap_64x32x64_w64x32_s16_tma_pp"
F="$F,f16_f16_nn_128x256x64_w64x256_s4_tma,bf16_f32_tn_128x128x64_w64x128_s6_ldg"
# (the last name also selects its register-A twin, `..._tma_areg`)
F="$F,tf32_nn_128x128x32_w64x128_s6_tma"
for tool in racecheck synccheck memcheck; do
  TCGEMM_KERNEL_FILTER=$F timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool $tool \
    /tmp/y/test-every --test-threads=1 --exact every_kernel_tail_and_full_shape > "$OUT/s-$tool.log" 2>&1
  log "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$OUT/s-$tool.log" | tr '\n' ' ')"
done
for t in half tf32 streamk splitk; do
  timeout 100 /tmp/y/test-$t --test-threads=4 > "$OUT/t-$t.log" 2>&1
  log "$t exit $?: $(grep 'test result' "$OUT/t-$t.log" | tail -1)"
done
S="$(decode_shapes),2048,4096,8192,3000,4096:nt"
K="f16_f16_nn_swap_64x32x64_w64x32_s16_tma_pp,f16_f16_nt_swap_64x32x64_w64x32_s16_tma_pp"
for r in a1 b1 a2 b2; do
  time_left 450 || { log "ab $r skipped"; continue; }
  timeout 110 /tmp/y/bench_report_${r:0:1} --paths f16,bf16 --reps 5 --samples 64 --shapes "$S" \
    --kernels "$K" --out /tmp/ab-$r > /dev/null 2> "$OUT/ab-$r.log"
  log "ab $r exit $?"
done
