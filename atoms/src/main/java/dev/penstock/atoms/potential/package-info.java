/// Interatomic potentials behind the `Model` interface: Lennard-Jones and Morse, and the
/// materials of LAMMPS's potential files (EAM, Stillinger–Weber, Tersoff).
package dev.penstock.atoms.potential;
