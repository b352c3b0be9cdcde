/// Reading and writing atomic systems: extended XYZ, compatible with ASE.
package dev.penstock.atoms.io;
