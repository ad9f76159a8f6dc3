#!/usr/bin/env bash
# tcgemm GPU bundle runner, written by `cargo xtask gpu-bundle`. Needs CUDA at /usr/local/cuda; no Rust.
#
# usage: run.sh [MODE] [ARGS...]            (MODE defaults to `tests`)
#   tests    [ARGS...]       every test binary with --test-threads=1 ARGS (ARGS: a name filter, --ignored, ...)
#   sanitize [TOOL] [FILTER] [ARGS...]
#                            every test binary under compute-sanitizer --tool TOOL --error-exitcode 1;
#                            TOOL: memcheck (default), racecheck, synccheck, initcheck or all (the four in turn);
#                            FILTER: a libtest name filter (use one: sanitized runs are slow)
#   example  [NAME] [ARGS...]
#                            example NAME (gemm_demo, 01_first_gemm, ...) with ARGS; without NAME every
#                            example with ARGS
#   tool     [NAME] [ARGS...]
#                            measuring tool NAME (bench_report, kernel_sweep, tune, precision_study,
#                            f32_precision_study, launch_order) with ARGS,
#                            e.g. `run.sh tool bench_report --out $OUT`; without NAME every tool with ARGS
#   bench    [ARGS...]       every bench binary with --bench ARGS (ARGS: a criterion filter, ...)
#   ptxas                    CUDA's ptxas -v on the bundled PTX modules (ptx/*.ptx.gz: sm_80, sm_90a)
#   reliability              every test binary, then memcheck, racecheck, synccheck and initcheck over
#                            every GEMM kernel of every module (every_kernel: a tail and a full-tile
#                            shape each), the instruction-ceiling and the conversion kernels; any
#                            sanitizer report fails the run
#   all      [ARGS...]       tests with ARGS, then ptxas, examples, tools and benches
#   list                     the binaries in this bundle
# Each run is logged to $OUT/<mode>-<binary>.log when OUT is set, else to logs/ beside this script.
# The last line is "N passed, M failed" (libtest counts summed; a binary without libtest counts is one
# test; a failing exit status counts as a failure); the exit status is non-zero when M > 0.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CUDA=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TCGEMM_REQUIRE_GPU=1
LOGS=${OUT:-$HERE/logs}
mkdir -p "$LOGS"
SANITIZER=${COMPUTE_SANITIZER:-$CUDA/bin/compute-sanitizer}
passed=0
failed=0
# The bundle keeps its binaries in one xz archive (size limit of the transfer); unpack it once.
if [ -f "$HERE/binaries.tar.xz" ]; then
  tar -xJf "$HERE/binaries.tar.xz" -C "$HERE" && rm -f "$HERE/binaries.tar.xz"
fi

# bins DIR: the executables in DIR, sorted.
bins() {
  local f
  for f in "$HERE/$1"/*; do
    [ -f "$f" ] && [ -x "$f" ] && printf '%s\n' "$f"
  done
}

# run_one LOGNAME CMD...: runs CMD, logs it, adds its counts to the totals.
run_one() {
  local log="$LOGS/$1.log"
  shift
  echo "=== $*"
  "$@" </dev/null 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} p=0 f=0 seen=0 a b
  while read -r a b; do
    p=$((p + a))
    f=$((f + b))
    seen=1
  done < <(sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$log")
  if [ "$seen" = 0 ]; then
    if [ "$rc" = 0 ]; then p=1; else f=1; fi
  elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    f=1
  fi
  passed=$((passed + p))
  failed=$((failed + f))
  echo "=== $(basename "$log" .log): exit $rc, $p passed, $f failed"
}

run_tests() {
  local b
  while read -r b; do
    run_one "tests-$(basename "$b")" "$b" --test-threads=1 "$@"
  done < <(bins tests)
}

run_sanitize() {
  local tool=${1:-memcheck}
  [ $# -gt 0 ] && shift
  local tools=("$tool") t b
  [ "$tool" = all ] && tools=(memcheck racecheck synccheck initcheck)
  if [ ! -x "$SANITIZER" ]; then
    echo "compute-sanitizer not found at $SANITIZER (set COMPUTE_SANITIZER)"
    failed=$((failed + 1))
    return
  fi
  for t in "${tools[@]}"; do
    case "$t" in
      memcheck | racecheck | synccheck | initcheck) ;;
      *)
        echo "unknown sanitizer tool '$t' (memcheck, racecheck, synccheck, initcheck, all)"
        failed=$((failed + 1))
        return
        ;;
    esac
    while read -r b; do
      # Only binaries with a test matching the filter: one whose every test is filtered out makes
      # no CUDA call, and compute-sanitizer reports that as an error.
      if [ $# -gt 0 ] && ! "$b" --list "$@" 2>/dev/null | grep -q ': test$'; then
        continue
      fi
      # the filter in the log's name: several filtered runs of one binary keep their own logs
      run_one "sanitize-$t-$(basename "$b")${1:+-$1}" "$SANITIZER" --tool "$t" --error-exitcode 1 \
        "$b" --test-threads=1 "$@"
    done < <(bins tests)
  done
}

# run_named DIR KIND [NAME] [ARGS...]: binary DIR/NAME with ARGS when NAME is one, else every
# binary of DIR with all the arguments.
run_named() {
  local dir=$1 kind=$2 b
  shift 2
  if [ $# -gt 0 ] && [ -x "$HERE/$dir/$1" ]; then
    b=$1
    shift
    run_one "$kind-$b" "$HERE/$dir/$b" "$@"
    return
  fi
  while read -r b; do
    run_one "$kind-$(basename "$b")" "$b" "$@"
  done < <(bins "$dir")
}

run_benches() {
  local b
  while read -r b; do
    run_one "bench-$(basename "$b")" "$b" --bench "$@"
  done < <(bins benches)
}

run_ptxas() {
  local f arch name ptx
  for f in "$HERE"/ptx/*.ptx "$HERE"/ptx/*.ptx.gz; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .gz)
    name=${name%.ptx}
    case "$name" in
      *sm90a*) arch=sm_90a ;;
      *) arch=sm_80 ;;
    esac
    ptx=$f
    if [ "${f%.gz}" != "$f" ]; then
      ptx="$LOGS/$name.ptx"
      gzip -dc "$f" >"$ptx"
    fi
    run_one "ptxas-$name" "$CUDA/bin/ptxas" "-arch=$arch" -v "$ptx" -o /dev/null
  done
}

mode=${1:-tests}
[ $# -gt 0 ] && shift
case "$mode" in
  tests) run_tests "$@" ;;
  sanitize) run_sanitize "$@" ;;
  example | examples) run_named examples example "$@" ;;
  tool | tools) run_named tools tool "$@" ;;
  bench | benches) run_benches "$@" ;;
  ptxas) run_ptxas ;;
  reliability)
    run_tests
    run_sanitize all every_kernel_tail_and_full_shape
    run_sanitize all every_ceiling_kernel_runs
    run_sanitize all f32_to_16_and_back_bitwise
    ;;
  all)
    run_tests "$@"
    run_ptxas
    run_named examples example
    run_named tools tool
    run_benches
    ;;
  list)
    for d in tests examples tools benches; do bins "$d"; done
    exit 0
    ;;
  -h | --help | help)
    sed -n '2,26p' "$0"
    exit 0
    ;;
  *)
    echo "unknown mode '$mode'; run.sh help"
    failed=1
    ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
