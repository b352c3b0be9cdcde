#!/usr/bin/env bash
# Rehearses the GPU checks on a machine without a GPU, through the host emulation of the CUDA
# driver (cuda/src/test/cpp/hostcuda.cpp, built against the toolkit's cuda.h): builds the GPU
# bundle, runs its gpu-check.sh exactly as a GPU machine would, then `penstock encode --device
# cuda --timeline` and compares its states with `--device cpu` (and those of the same encode as a Flink job on
# GPU tasks), and checks the in-flight FIRE
# relaxation's and the fused fire + langevin + nve stage's agreement with CpuDevice
# (`inflight_cuda_max_rel_energy_diff`, `stages_cuda_max_rel_energy_diff`, step counts), and
# `simulate --device cuda` against `--device cpu` (the same stage histories, energies to 1e-10). It checks that everything runs
# (bindings, kernels' arithmetic, bundle, CLI); its speed figures are the emulation's, not a GPU's.
#   scripts/gpu-dry-run.sh            (needs g++ and CUDA_HOME/include/cuda.h; ~2 minutes)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
cuda_include="${CUDA_HOME:-/usr/local/cuda}/include"
cd "$root"
lib="$root/cuda/target/hostcuda/libhostcuda.so"
mkdir -p "$(dirname "$lib")"
g++ -std=c++20 -O2 -shared -fPIC -pthread -Icuda/src/test/cpp/stub -I"$cuda_include" -o "$lib" cuda/src/test/cpp/hostcuda.cpp
bash scripts/make-gpu-bundle.sh
export PENSTOCK_CUDA_DRIVER="$lib"
out="$root/target/dry-run"
rm -rf "$out" # this script's own outputs from an earlier run (encode --example never replaces a file)
mkdir -p "$out"
PENSTOCK_GPU_BENCH_QUICK=1 PENSTOCK_GPU_BENCH_TIMEOUT=900 target/gpu-bundle/gpu-check.sh | tee "$out/gpu-check.log"
# the in-flight relaxation through the emulated driver against CpuDevice: the same steps, energies to 1e-10
awk -F': ' '$1 == "inflight_cuda_max_rel_energy_diff" { d = $2 } $1 == "inflight_cuda_steps_differ" { s = $2 }
  END { ok = (d != "" && d + 0 <= 1e-10 && s == "0"); printf "dry_run_inflight: max rel energy diff %s, systems with other step counts %s: %s\n", d, s, ok ? "ok" : "FAILED"; exit !ok }' \
  "$out/gpu-check.log"
# the fused fire + langevin + nve device stage through the emulated driver against CpuDevice: the same steps, energies to 1e-10
awk -F': ' '$1 == "stages_cuda_max_rel_energy_diff" { d = $2 } $1 == "stages_cuda_steps_differ" { s = $2 }
  END { ok = (d != "" && d + 0 <= 1e-10 && s == "0"); printf "dry_run_stages: max rel energy diff %s, systems with other step counts %s: %s\n", d, s, ok ? "ok" : "FAILED"; exit !ok }' \
  "$out/gpu-check.log"
# one large LJ liquid (4,000 atoms in the quick run) on the GPU's Verlet lists against CpuDevice: the energy to 1e-10
awk -F': ' '$1 == "md_cuda_rel_energy_diff" { d = $2 }
  END { ok = (d != "" && d + 0 <= 1e-10); printf "dry_run_md: rel energy diff %s: %s\n", d, ok ? "ok" : "FAILED"; exit !ok }' \
  "$out/gpu-check.log"
./penstock encode --example 3000 --encoding amplitude --qubits 10 "$out/rows.npy" --device cuda --timeline "$out/timeline-cuda.png" \
  --out "$out/states-cuda.npy"
./penstock encode "$out/rows.npy" --encoding amplitude --qubits 10 --device cpu --out "$out/states-cpu.npy"
states() { # states NAME A.npy B.npy: the same shape, every amplitude within 1e-12 (NumPy)
  python3 - "$@" <<'PY'
import sys, numpy as np
name, x, y = sys.argv[1:4]
a, b = np.load(x), np.load(y)
diff = float(np.max(np.abs(a - b)))
print(f"dry_run_{name}: {a.shape} {a.dtype}, max |cuda - cpu| = {diff:.3g}")
sys.exit(0 if a.shape == b.shape and diff < 1e-12 else 1)
PY
}
states states "$out/states-cuda.npy" "$out/states-cpu.npy"
# the same encode as a Flink job whose tasks each open a GPU (--device cuda: task k on GPU k mod the GPUs seen)
./penstock encode "$out/rows.npy" --encoding amplitude --qubits 10 --runner flink --parallelism 2 --device cuda \
  --out "$out/states-flink-cuda.npy"
states flink_states "$out/states-flink-cuda.npy" "$out/states-cpu.npy"
# a stage pipeline on the device (a fused stage, then a chained one): simulate --device cuda (relax.cu's pair kernels) against
# --device cpu (the model over each system's rows): every system the same stage history, energies to 1e-10;
# the README's 24 systems, its four periodic boxes shorter than twice the cutoff (CUDA scans their images)
compare() { # compare NAME A.xyz B.xyz: the stage histories equal, energies to 1e-10 (Debian's python3-ase)
  /usr/bin/python3 - "$@" <<'PY'
import sys
from ase.io import read
name, x, y = sys.argv[1:4]
by = lambda frames: {f.info["id"]: f for f in frames}
a, b = by(read(x, ":")), by(read(y, ":"))
worst = max(abs(a[k].get_potential_energy() - b[k].get_potential_energy()) / abs(b[k].get_potential_energy()) for k in b)
same = a.keys() == b.keys() and all(a[k].info["stages"] == b[k].info["stages"] for k in b)
print(f"dry_run_{name}: {len(b)} systems, max rel energy diff {worst:.3g}, stage histories equal: {same}")
sys.exit(0 if same and worst <= 1e-10 else 1)
PY
}
for d in cuda cpu; do
  ./penstock simulate examples/argon-clusters.xyz --pipeline "fire(fmax=0.005) + nve(dt=5, steps=100) | nve(dt=5, steps=100)" \
    --potential "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)" --max-atoms 600 --device $d --out "$out/systems-$d.xyz"
done
compare simulate "$out/systems-cuda.xyz" "$out/systems-cpu.xyz"
# EAM on the device (eam.cu's passes over the batch, CudaEam): the README's copper nanoparticles, shortened, against --device cpu:
# every system the same stage history (steps per sub-stage), energies to 1e-10 (a full list per atom against the CPU's half list)
potentials="${PENSTOCK_POTENTIALS:-/usr/share/lammps/potentials}"
if [ -r "$potentials/Cu_u3.eam" ]; then
  for d in cuda cpu; do
    ./penstock simulate examples/copper-nanoparticles.xyz --pipeline "fire(fmax=0.01, steps=300) + langevin(T=600, dt=2, steps=100) | nve(dt=2, steps=50)" \
      --potential "eam(file=$potentials/Cu_u3.eam)" --max-atoms 1200 --device $d --out "$out/copper-$d.xyz" \
      || test $? -eq 6  # 6: written, some systems spent their FIRE budget (compared all the same)
  done
  compare eam "$out/copper-cuda.xyz" "$out/copper-cpu.xyz"
else
  echo "dry_run_eam: skipped ($potentials/Cu_u3.eam not found: apt-get install lammps-data)"
fi
echo "dry_run: passed (host emulation: figures above are not a GPU's)"
