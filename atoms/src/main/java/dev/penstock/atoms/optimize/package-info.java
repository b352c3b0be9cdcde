/// FIRE (ASE-exact and mass-weighted) and FIRE 2.0: the step arithmetic the device stages' batch
/// kernels run per system (`CpuRelaxKernels`), and the convergence rule they share.
package dev.penstock.atoms.optimize;
