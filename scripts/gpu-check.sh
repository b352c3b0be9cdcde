#!/usr/bin/env bash
# Runs Penstock's GPU checks on a machine with an NVIDIA GPU and no Java, Maven or network:
# from the folder scripts/make-gpu-bundle.sh prepared (a jlink'd Java 25 runtime + the jars).
#   1. the cuda-tagged tests (Device contract on the GPU, every encoding kernel vs the CPU
#      reference), 2. the gpu benchmark, 3. PyTorch's figure for the same kernel work.
# Prints `name: value` lines; stops everything after 8 minutes.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
java="$here/runtime/bin/java"
export PENSTOCK_LAMMPS_POTENTIALS="$here/lammps-potentials"
flags=(--enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp "$here/lib/*")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
timeout 300 "$java" "${flags[@]}" dev.penstock.cuda.GpuTestMain; tests=$?
log="$(mktemp)"
# the benchmark's limit: 150 s on a GPU; the host emulation (scripts/gpu-dry-run.sh) runs its kernels on the CPU and sets more
timeout "${PENSTOCK_GPU_BENCH_TIMEOUT:-150}" "$java" "${flags[@]}" dev.penstock.cuda.GpuBench | tee "$log"; bench=${PIPESTATUS[0]}
if [ -x /usr/bin/python3 ]; then timeout 60 /usr/bin/python3 "$here/encode_torch_gpu.py" | tee -a "$log"; fi
# the peer's figure and ours from the same run: kernel-only ratio (target >= 1.0)
awk -F': ' '$1 == "encode16_kernel_vectors_per_s" { p = $2 } $1 == "torch_encode16_kernel_vectors_per_s" { t = $2 }
  END { if (p + 0 > 0 && t + 0 > 0) printf "ratio_encode16_kernel_vs_torch: %.3f\n", p / t }' "$log"
rm -f "$log"
echo "gpu_check_tests_exit: $tests"
echo "gpu_check_bench_exit: $bench"
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
