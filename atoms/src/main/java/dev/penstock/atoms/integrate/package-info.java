/// Integrators: velocity Verlet (NVE) and Langevin BAOAB (NVT) with keyed random draws.
package dev.penstock.atoms.integrate;
