#!/usr/bin/env bash
# Prepares target/gpu-bundle/ for a GPU machine without Java, Maven or network: a jlink'd
# Java 25 runtime, the cuda module with its test classes and test dependencies, the PyTorch
# peer and gpu-check.sh. Copy the folder over and run ./gpu-check.sh there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
out="$root/target/gpu-bundle"
cd "$root"
./mvnw -q -B -DskipTests install -pl cuda -am
rm -rf "$out"
mkdir -p "$out/lib"
# the test classpath, less what the GPU checks never load (Parquet/Zarr readers of the
# quantum module's inputs, AssertJ's proxy generator)
./mvnw -q -B dependency:copy-dependencies -pl cuda -DincludeScope=test -DoutputDirectory="$out/lib" \
  -DexcludeGroupIds=dev.hardwood,com.github.luben,org.xerial.snappy,org.apache.parquet,org.apache.hadoop,net.bytebuddy,org.locationtech.jts
cp cuda/target/penstock-cuda-*-SNAPSHOT.jar "$out/lib/" # not its -sources/-javadoc jars
"$JAVA_HOME/bin/jar" cf "$out/lib/penstock-cuda-tests.jar" -C cuda/target/test-classes .
# every module the jars use (jdeps), so nothing is missing only when a rare path runs (a missing
# jdk.jfr failed the pump's slow path in the dry run), plus java.logging and jdk.unsupported.
# arrow-format and flatbuffers-java (java.base only) are left out of the analysis: arrow-format's
# module-info requires flatbuffers as a module, which jdeps then fails to resolve on a class path.
jars=()
for j in "$out"/lib/*.jar; do
  case "$(basename "$j")" in arrow-format-*|flatbuffers-java-*) ;; *) jars+=("$j") ;; esac
done
modules="$("$JAVA_HOME/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 -cp "$out/lib/*" "${jars[@]}" \
  2>/dev/null | tail -1)"
case "$modules" in java.base*) ;; *) echo "jdeps did not list the modules: $modules" >&2; exit 1 ;; esac
echo "runtime modules: $modules,java.logging,jdk.unsupported"
"$JAVA_HOME/bin/jlink" --add-modules "$modules,java.logging,jdk.unsupported" \
  --strip-debug --no-header-files --no-man-pages --compress zip-6 --output "$out/runtime"
cp scripts/gpu-check.sh benchmarks/peers/encode_torch_gpu.py "$out/"
# LAMMPS's model files SnapStageGpuTest and EamStageGpuTest read (gpu-check.sh points PENSTOCK_LAMMPS_POTENTIALS here)
mkdir -p "$out/lammps-potentials"
for f in Ta06A W_2940_2017_2 Mo_Chen_PRM2017 Cu_Zuo_JPCA2020.quadratic InP_JCPA2020; do
  cp /usr/share/lammps/potentials/$f.snap* "$out/lammps-potentials/"
done
for f in Ta06A W.quadratic WBe_Wood_PRB2019; do cp /usr/share/lammps/potentials/$f.mliap* "$out/lammps-potentials/"; done
cp /usr/share/lammps/potentials/Ta06A.nn.mliap* /usr/share/lammps/potentials/Cu.nn.mliap.model /usr/share/lammps/potentials/Cu.snap.mliap.descriptor \
  "$out/lammps-potentials/"
for f in Cu_u3.eam CuNi.eam.alloy CuZr_mm.eam.fs Si.tersoff; do cp /usr/share/lammps/potentials/$f "$out/lammps-potentials/"; done
du -sh "$out" "$out/runtime" "$out/lib"
tar -C "$root/target" -czf "$root/target/gpu-bundle.tar.gz" gpu-bundle && du -h "$root/target/gpu-bundle.tar.gz"
