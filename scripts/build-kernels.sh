#!/usr/bin/env bash
# Compiles cuda/src/main/cuda/*.cu into PTX for the cuda module's resources (the driver
# JIT-compiles PTX forward, so machines without the CUDA toolkit can load them on any GPU from the
# target up) and checks the PTX with ptxas for the oldest target, sm_75 (Turing: the oldest nvcc 13
# builds; CudaDevice refuses older GPUs by name), and sm_90 (H100/H200). Needs nvcc 13 (the PTX's
# ISA 9.0 needs a CUDA 13 driver, which CudaDevice checks). Run from anywhere; commit the result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/cuda/src/main/resources/dev/penstock/cuda"
mkdir -p "$out"
for cu in "$root"/cuda/src/main/cuda/*.cu; do
  name="$(basename "$cu" .cu)"
  flags=()
  # relax.cu must round as the JVM does (CpuRelaxKernels, bit for bit): no fused multiply-adds
  [ "$name" = relax ] && flags=(-fmad=false)
  nvcc -ptx -arch=compute_75 -O3 -std=c++17 "${flags[@]}" -o "$out/$name.ptx" "$cu"
  ptxas -arch=sm_75 -o /dev/null "$out/$name.ptx"
  ptxas -arch=sm_90 -o /dev/null "$out/$name.ptx"
  echo "built $out/$name.ptx ($(wc -c < "$out/$name.ptx") bytes; ptxas sm_75 and sm_90 ok)"
done
