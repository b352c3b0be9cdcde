/// Velocity Verlet (NVE) and Langevin BAOAB (NVT) with keyed random draws: the kicks, drifts and
/// noise the device stages' batch kernels run per system (`CpuRelaxKernels`).
package dev.penstock.atoms.integrate;
