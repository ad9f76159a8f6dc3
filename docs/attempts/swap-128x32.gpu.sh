# The GPU call prepared for docs/attempts/swap-128x32.patch in session 78 (refused there): run from the
# repository root on the device machine, with bundle/b78d.tar.xz holding test-every (tests/every_kernel.rs)
# and bench_report of the patched build (release).
# Session 78, call 3: the swapped 128x32 cooperative tile (b): every_kernel on it, memcheck and
# racecheck; forced beside the swapped 64x32 ping-pong tile (main's kernels, b's binary) on 64-128
# rows; then per-instruction stall samples of the 64x32 tile and cuBLAS's kernel.
set -uo pipefail
t0=$SECONDS
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); echo "$GPU" | tee $OUT/summary.txt
mkdir -p /tmp/y && tar -xJf bundle/b78d.tar.xz -C /tmp/y
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} TCGEMM_REQUIRE_GPU=1 TCGEMM_KERNEL_FILTER=swap_128x32
timeout 90 /tmp/y/test-every --test-threads=1 every_kernel > $OUT/t-every.log 2>&1
rc=$?
echo "every_kernel exit $rc: $(grep 'test result' $OUT/t-every.log | tail -1) at $((SECONDS-t0)) s" | tee -a $OUT/summary.txt
[ $rc -eq 0 ] || { grep -E "panicked|mismatch" -A3 $OUT/t-every.log | head -20; exit 0; }
for tool in memcheck racecheck; do
  timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool $tool /tmp/y/test-every --test-threads=1 --exact every_kernel_tail_and_full_shape > $OUT/s-$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' $OUT/s-$tool.log | tr '\n' ' ') at $((SECONDS-t0)) s" | tee -a $OUT/summary.txt
done
unset TCGEMM_KERNEL_FILTER
B=/tmp/y/bench_report
S=""
for m in 32 64 96 128; do for n in 1536 4096; do for k in 1024 4096 8192; do for l in "" :nt; do S="$S,${m}x${n}x${k}${l}"; done; done; done; done
S="${S#,}"
K=""
for l in nn nt; do K="$K,f16_f16_${l}_swap_64x32x64_w64x32_s16_tma_pp,f16_f16_${l}_swap_128x32x64_w64x32_s10_tma"; done
K="${K#,}"
timeout 100 $B --paths f16 --reps 5 --samples 64 --shapes $S --kernels $K --out /tmp/qk > /dev/null 2> $OUT/f128.log
echo "forced exit $? at $((SECONDS-t0)) s" | tee -a $OUT/summary.txt
N=/usr/local/cuda/bin/ncu
timeout 60 $N --clock-control none --section SourceCounters -k regex:swap_64x32 --launch-count 1 --page source --print-source sass --csv $B --paths f16 --reps 1 --samples 2 --shapes 128x1536x4096 --kernels f16_f16_nn_swap_64x32x64_w64x32_s16_tma_pp --out /tmp/n > $OUT/sass-ours.csv 2> $OUT/sass-ours.err
echo "sass ours exit $? at $((SECONDS-t0)) s" | tee -a $OUT/summary.txt
timeout 60 $N --clock-control none --section SourceCounters -k regex:nvjet --launch-skip 1 --launch-count 1 --page source --print-source sass --csv $B --paths f16 --reps 1 --samples 2 --shapes 128x1536x4096 --kernels f16_f16_nn_swap_64x32x64_w64x32_s16_tma_pp --out /tmp/n > $OUT/sass-cublas.csv 2> $OUT/sass-cublas.err
echo "sass cublas exit $? at $((SECONDS-t0)) s" | tee -a $OUT/summary.txt
cd $OUT && tar -cJf logs.tar.xz *.log *.csv *.err && rm -f *.log *.csv *.err; ls -la
