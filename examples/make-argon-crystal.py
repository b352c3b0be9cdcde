#!/usr/bin/env python3
"""Writes one periodic argon crystal for Penstock's large-system figures (PERFORMANCE.md):
CELLS^3 fcc cells of 5.26 A (4 atoms each), every atom off its site by up to 0.1 A along each
axis (seeded), in a cube, as extended XYZ (ASE reads it). Standard library only.

    python3 examples/make-argon-crystal.py target/argon-crystal.xyz [CELLS=10]
"""
import os
import random
import sys

out = sys.argv[1]
cells = int(sys.argv[2]) if len(sys.argv) > 2 else 10
a = 5.26
side = a * cells
rnd = random.Random(3)
sites = [(0, 0, 0), (0, 0.5, 0.5), (0.5, 0, 0.5), (0.5, 0.5, 0)]
atoms = []
for x in range(cells):
    for y in range(cells):
        for z in range(cells):
            for u, v, w in sites:
                atoms.append(tuple((c + s) * a + rnd.uniform(-0.1, 0.1) for c, s in ((x, u), (y, v), (z, w))))
tmp = out + ".tmp"
with open(tmp, "w") as f:
    f.write(f"{len(atoms)}\n")
    f.write(f'Lattice="{side} 0.0 0.0 0.0 {side} 0.0 0.0 0.0 {side}" Properties=species:S:1:pos:R:3 pbc="T T T"\n')
    for p in atoms:
        f.write("Ar %.8f %.8f %.8f\n" % p)
os.replace(tmp, out)
