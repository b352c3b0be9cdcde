#!/usr/bin/python3
"""ASE's FIRE on the `relax` workload (peer of `penstock bench relax`).

Reads the start of each cluster from an extended XYZ file written by Penstock (same positions),
relaxes it with ase.optimize.FIRE under LennardJones(sigma=1, epsilon=1, rc=100) to each fmax,
and prints `name: value` lines: steps, final energy and milliseconds per step. Timed as Penstock
times its side: the best of --repeat runs from the same start (the first warms caches up).

Run: /usr/bin/python3 benchmarks/peers/relax_ase.py START.extxyz [--fmax 1e-4,0.05] [--repeat 3]
"""
import argparse
import time

from ase.calculators.lj import LennardJones
from ase.io import read
from ase.optimize import FIRE


def main():
    p = argparse.ArgumentParser()
    p.add_argument("start")
    p.add_argument("--fmax", default="0.0001,0.05")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    for atoms in read(a.start, index=":", format="extxyz"):
        n = len(atoms)
        for fmax in [float(x) for x in a.fmax.split(",")]:
            dt = float("inf")
            for _ in range(max(1, a.repeat)):
                at = atoms.copy()
                at.calc = LennardJones(sigma=1.0, epsilon=1.0, rc=100.0)
                opt = FIRE(at, logfile=None)
                t0 = time.perf_counter()
                opt.run(fmax=fmax, steps=100000)
                dt = min(dt, time.perf_counter() - t0)
            steps = opt.get_number_of_steps()
            tag = f"lj{n}_fmax{fmax:g}"
            print(f"ase_steps_{tag}: {steps}")
            print(f"ase_energy_{tag}: {at.get_potential_energy()!r}")
            print(f"ase_ms_per_step_{tag}: {1e3 * dt / max(steps, 1):.4f}")


if __name__ == "__main__":
    main()
