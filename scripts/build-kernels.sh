#!/usr/bin/env bash
# Compiles cuda/src/main/cuda/*.cu into PTX for the cuda module's resources (the driver
# JIT-compiles PTX, so machines without the CUDA toolkit can load them) and checks the PTX with
# ptxas for sm_90 (H100/H200). Needs nvcc (CUDA 12.x/13.x). Run from anywhere; commit the result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/cuda/src/main/resources/dev/penstock/cuda"
mkdir -p "$out"
for cu in "$root"/cuda/src/main/cuda/*.cu; do
  name="$(basename "$cu" .cu)"
  flags=()
  # relax.cu must round as the JVM does (CpuRelaxKernels, bit for bit): no fused multiply-adds
  [ "$name" = relax ] && flags=(-fmad=false)
  nvcc -ptx -arch=compute_90 -O3 -std=c++17 "${flags[@]}" -o "$out/$name.ptx" "$cu"
  ptxas -arch=sm_90 -o /dev/null "$out/$name.ptx"
  echo "built $out/$name.ptx ($(wc -c < "$out/$name.ptx") bytes; ptxas sm_90 ok)"
done
