/// Quantum state encodings of classical rows: amplitude, angle, basis, phase, IQP (docs/definitions.md).
package dev.penstock.quantum;
