# Sourced by the prepared GPU calls of docs/attempts/ (`source docs/attempts/gpu-call.sh BUNDLE`),
# from the repository root on the device machine: prints the GPU into $OUT/summary.txt, unpacks
# bundle/BUNDLE into /tmp/y and sets the environment the test and bench binaries run in.
set -uo pipefail
t0=$SECONDS
# log LINE: LINE and the seconds since the call began, printed and kept in $OUT/summary.txt
log() { echo "$1 at $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"; }
# time_left S: whether fewer than S seconds of the call have passed
time_left() { [ $((SECONDS - t0)) -lt "$1" ]; }
# decode_shapes: the decode rows (16-128) on six weight shapes, `nn` and `nt`, comma-separated
decode_shapes() {
  local s="" m nk l
  for m in 16 32 64 96 128; do for nk in 1536x4096 1536x8192 4096x4096 4096x14336 14336x4096 28672x8192; do
    for l in "" :nt; do s="$s,${m}x${nk}${l}"; done
  done; done
  echo "${s#,}"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/summary.txt"
mkdir -p /tmp/y && tar -xJf "bundle/$1" -C /tmp/y
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} TCGEMM_REQUIRE_GPU=1
