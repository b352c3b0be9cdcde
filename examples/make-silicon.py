#!/usr/bin/python3
# Writes examples/silicon.xyz: the systems of the README's silicon example. 8 periodic diamond
# silicon boxes of 64 atoms (4 of them with a vacancy, 63 atoms) at lattice constants around
# 5.43 Å, every atom displaced by up to 0.1 Å (fixed seed). Run: /usr/bin/python3 examples/make-silicon.py (Debian python3-ase)
import numpy as np
from ase.build import bulk
from ase.io import write

rng = np.random.default_rng(5)
systems = []
for k in range(8):
    a = bulk('Si', 'diamond', a=5.40 + 0.01 * k, cubic=True).repeat((2, 2, 2))
    if k % 2 == 1:
        del a[int(rng.integers(len(a)))]
    a.positions += rng.uniform(-0.1, 0.1, a.positions.shape)
    a.info['id'] = k
    systems.append(a)
write('examples/silicon.xyz', systems, format='extxyz')
print(len(systems), 'systems,', sum(len(a) for a in systems), 'atoms')
