#!/usr/bin/python3
# Writes examples/argon-clusters.xyz: the systems of the README's `simulate` example, and
# examples/argon-free-clusters.xyz: its 20 free clusters alone (the `simulate --device` example).
# 20 free argon clusters (icosahedra and octahedra, 13-147 atoms) and 4 periodic fcc boxes
# of 108 atoms, every atom displaced by up to 0.15 Å (fixed seed). Run: /usr/bin/python3 examples/make-argon.py (Debian python3-ase)
import numpy as np
from ase.build import bulk
from ase.cluster import Icosahedron, Octahedron
from ase.io import write

rng = np.random.default_rng(7)
systems = []
for k in range(20):
    if k % 2 == 0:
        a = Icosahedron('Ar', noshells=2 + (k // 2) % 3, latticeconstant=5.26)
    else:
        a = Octahedron('Ar', length=3 + (k // 2) % 3, latticeconstant=5.26)
    a.center(vacuum=0.0)
    a.cell = [0, 0, 0]
    a.pbc = False
    systems.append(a)
for k in range(4):
    a = bulk('Ar', 'fcc', a=5.26 + 0.05 * k, cubic=True).repeat((3, 3, 3))
    systems.append(a)
for i, a in enumerate(systems):
    a.positions += rng.uniform(-0.15, 0.15, a.positions.shape)
    a.info['id'] = i
write('examples/argon-clusters.xyz', systems, format='extxyz')
print(len(systems), 'systems,', sum(len(a) for a in systems), 'atoms')
# the 20 free clusters alone: what `simulate --device` runs (free systems only, for now)
free = [a for a in systems if not a.pbc.any()]
write('examples/argon-free-clusters.xyz', free, format='extxyz')
print(len(free), 'free clusters,', sum(len(a) for a in free), 'atoms')
