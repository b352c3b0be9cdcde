#!/usr/bin/env bash
# Builds LAMMPS with the ML-SNAP and ML-IAP packages from Debian's own source package (Debian's
# `lmp` lacks both): the independent reference the SNAP and ML-IAP models are checked against.
# Not run by CI — the reference numbers it prints are committed as test data; this script
# regenerates them. Needs root for the deb-src entry (once), cmake and g++ (and libopenmpi-dev for an
# MPI build, which `bench md --potential snap --threads 1,2` needs); 2–3 minutes on 2 cores.
#   scripts/build-lammps-ml.sh            → prints the path of the built lmp
# The build is cached under ${PENSTOCK_LAMMPS_ML:-$HOME/.cache/penstock/lammps-ml}.
set -euo pipefail
cache="${PENSTOCK_LAMMPS_ML:-$HOME/.cache/penstock/lammps-ml}"
lmp="$cache/build/lmp"
if [ -x "$lmp" ]; then
  echo "$lmp"
  exit 0
fi
mkdir -p "$cache"
if ! grep -rqs "^Types: deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
  cat > /etc/apt/sources.list.d/penstock-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -q >/dev/null
fi
if [ ! -d "$cache/src" ]; then
  if ! ls -d "$cache"/lammps-[0-9]* >/dev/null 2>&1; then
    (cd "$cache" && apt-get source -q lammps >/dev/null 2>&1)
  fi
  mv "$(find "$cache" -mindepth 1 -maxdepth 1 -type d -name 'lammps-[0-9]*' | head -1)" "$cache/src"
fi
mkdir -p "$cache/build"
cd "$cache/build"
# with MPI (mpirun -np 2, as the other `bench md` peers run) when Open MPI's headers are installed
# (Debian's libopenmpi-dev; the runtime lammps pulls in has none), else serial
if command -v mpicxx >/dev/null; then mpi=(-DBUILD_MPI=yes); else mpi=(-DBUILD_MPI=no -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON); fi
cmake -S "$cache/src/cmake" -B . -DCMAKE_BUILD_TYPE=Release -DPKG_ML-SNAP=yes -DPKG_ML-IAP=yes -DMLIAP_ENABLE_PYTHON=no \
  -DPKG_MANYBODY=yes "${mpi[@]}" -DBUILD_OMP=no >/dev/null
make -j"$(nproc)" lmp >/dev/null 2>&1
echo "$lmp"
