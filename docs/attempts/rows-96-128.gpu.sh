#!/usr/bin/env bash
# The GPU call prepared for the decode rows' worst calls (session 81, docs/decode-log.md "Next"):
# 96 and 128 rows × 1536 × 8192, where dispatch takes the 128×192 tile split 8 ways and runs
# 0.56–0.60× cuBLAS (H100), which runs a 128×32 tile split along K (session 78). No patch: main's
# `bench_report` in bundle/main.tar.xz (`cargo build --release -p tcgemm-tools --bin bench_report`).
# Steps: the calls through dispatch beside cuBLAS; then ncu (`--clock-control none`) on one call of
# each: our slices' kernel and the reduction kernel against cuBLAS's kernels, with their duration,
# bytes from DRAM and L2, and issue and tensor-pipe activity, to say whether the slices or the
# reduction or neither sets the 31 µs against cuBLAS's 18.
source docs/attempts/gpu-call.sh main.tar.xz
B=/tmp/y/bench_report
S="96x1536x8192,96x1536x8192:nt,128x1536x8192,128x1536x8192:nt,64x1536x8192"
timeout 60 $B --paths f16 --reps 5 --samples 64 --shapes "$S" --out /tmp/d > /dev/null 2> "$OUT/dispatch.log"
log "dispatch exit $?"
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__inst_executed.sum"
M="$M,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
for s in 96x1536x8192 128x1536x8192; do
  time_left 300 || { log "ncu $s skipped"; continue; }
  timeout 120 /usr/local/cuda/bin/ncu --clock-control none --metrics "$M" \
    -k 'regex:128x192|reduce|nvjet|sm90' --launch-count 8 --csv \
    $B --paths f16 --reps 1 --samples 16 --shapes "$s" > "$OUT/ncu-$s.csv" 2> "$OUT/ncu-$s.log"
  log "ncu $s exit $?"
done
