#!/usr/bin/env bash
# The GPU call prepared for docs/attempts/swap-128x32.patch (session 78; refused there). Run from the
# repository root on the device machine, with bundle/b78d.tar.xz holding `test-every`
# (tests/every_kernel.rs) and `bench_report`, both release builds with the patch applied.
# Steps: every_kernel on the 128x32 kernels, memcheck and racecheck; the 128x32 tile forced beside
# the swapped 32-wide ping-pong tile (same binary) on 32-128 rows; per-instruction stall samples
# of the 32-wide tile and of cuBLAS's kernel on 128x1536x4096.
set -uo pipefail
t0=$SECONDS
log() { echo "$1 at $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/summary.txt"
mkdir -p /tmp/y && tar -xJf bundle/b78d.tar.xz -C /tmp/y
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} TCGEMM_REQUIRE_GPU=1
B=/tmp/y/bench_report
TCGEMM_KERNEL_FILTER=swap_128x32 timeout 90 /tmp/y/test-every --test-threads=1 every_kernel > "$OUT/t-every.log" 2>&1
rc=$?
log "every_kernel exit $rc: $(grep 'test result' "$OUT/t-every.log" | tail -1)"
[ $rc -eq 0 ] || { grep -E "panicked|mismatch" -A3 "$OUT/t-every.log" | head -20; exit 0; }
for tool in memcheck racecheck; do
  TCGEMM_KERNEL_FILTER=swap_128x32 timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool $tool \
    /tmp/y/test-every --test-threads=1 --exact every_kernel_tail_and_full_shape > "$OUT/s-$tool.log" 2>&1
  log "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$OUT/s-$tool.log" | tr '\n' ' ')"
done
S=""
for m in 32 64 96 128; do for n in 1536 4096; do for k in 1024 4096 8192; do for l in "" :nt; do S="$S,${m}x${n}x${k}${l}"; done; done; done; done
K=""
for l in nn nt; do K="$K,f16_f16_${l}_swap_64x32x64_w64x32_s16_tma_pp,f16_f16_${l}_swap_128x32x64_w64x32_s10_tma"; done
timeout 100 $B --paths f16 --reps 5 --samples 64 --shapes "${S#,}" --kernels "${K#,}" --out /tmp/qk > /dev/null 2> "$OUT/f128.log"
log "forced exit $?"
# sass NAME REGEX SKIP: stall samples per SASS instruction of the (SKIP+1)-th launch matching REGEX
sass() {
  timeout 60 /usr/local/cuda/bin/ncu --clock-control none --section SourceCounters -k "regex:$2" \
    --launch-skip "$3" --launch-count 1 --page source --print-source sass --csv \
    $B --paths f16 --reps 1 --samples 2 --shapes 128x1536x4096 \
    --kernels f16_f16_nn_swap_64x32x64_w64x32_s16_tma_pp --out /tmp/n > "$OUT/sass-$1.csv" 2> "$OUT/sass-$1.err"
  log "sass $1 exit $?"
}
sass ours swap_64x32 0
sass cublas nvjet 1
cd "$OUT" && tar -cJf logs.tar.xz ./*.log ./*.csv ./*.err && rm -f ./*.log ./*.csv ./*.err
