/// Atomic systems: positions, velocities, forces, masses, numbers, cell and periodicity.
package dev.penstock.atoms.system;
