/// Interatomic potentials behind the `Model` interface: Lennard-Jones and Morse.
package dev.penstock.atoms.potential;
