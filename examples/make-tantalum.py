#!/usr/bin/python3
# Writes examples/tantalum.xyz: the systems of docs/atomistics.md's machine-learned potential example. 6
# periodic bcc tantalum boxes of 54 atoms (3 of them with a vacancy, 53 atoms) at lattice constants
# around 3.31 Å, every atom displaced by up to 0.1 Å, and 2 free clusters of 15 atoms (fixed seed).
# Run: /usr/bin/python3 examples/make-tantalum.py (Debian python3-ase)
import numpy as np
from ase.build import bulk
from ase.io import write

rng = np.random.default_rng(73)
systems = []
for k in range(6):
    a = bulk('Ta', 'bcc', a=3.30 + 0.01 * k, cubic=True).repeat((3, 3, 3))
    if k % 2 == 1:
        del a[int(rng.integers(len(a)))]
    a.positions += rng.uniform(-0.1, 0.1, a.positions.shape)
    a.info['id'] = k
    systems.append(a)
for k in range(6, 8):
    a = bulk('Ta', 'bcc', a=3.316, cubic=True).repeat((2, 2, 2))
    a = a[[i for i in range(len(a)) if np.linalg.norm(a.positions[i] - a.positions.mean(axis=0)) < 3.2]]
    a.positions += rng.uniform(-0.1, 0.1, a.positions.shape)
    a.pbc = False
    a.cell = None
    a.info['id'] = k
    systems.append(a)
write('examples/tantalum.xyz', systems, format='extxyz')
print(len(systems), 'systems,', sum(len(a) for a in systems), 'atoms')
