#!/usr/bin/python3
# Writes examples/copper-nanoparticles.xyz: the systems of the README's copper example.
# 16 free copper nanoparticles (icosahedra, decahedra and truncated octahedra, 7-309 atoms)
# built by ASE at copper's lattice constant, every atom displaced by up to 0.1 Å (fixed seed).
# Run: /usr/bin/python3 examples/make-copper.py (Debian python3-ase)
import numpy as np
from ase.cluster import Decahedron, Icosahedron, Octahedron
from ase.io import write

rng = np.random.default_rng(11)
systems = []
for k in range(16):
    shape = k % 3
    size = k // 3
    if shape == 0:
        a = Icosahedron('Cu', noshells=2 + size % 4, latticeconstant=3.615)
    elif shape == 1:
        a = Decahedron('Cu', p=2 + size % 3, q=1 + size % 2, r=0, latticeconstant=3.615)
    else:
        a = Octahedron('Cu', length=3 + size % 3, cutoff=size % 2, latticeconstant=3.615)
    a.center(vacuum=0.0)
    a.cell = [0, 0, 0]
    a.pbc = False
    a.positions += rng.uniform(-0.1, 0.1, a.positions.shape)
    a.info['id'] = k
    systems.append(a)
write('examples/copper-nanoparticles.xyz', systems, format='extxyz')
print(len(systems), 'systems,', sum(len(a) for a in systems), 'atoms')
