/// Geometry optimisers: FIRE in ASE-exact mode.
package dev.penstock.atoms.optimize;
