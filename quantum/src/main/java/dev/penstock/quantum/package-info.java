/// Quantum state encodings of classical rows: amplitude, angle, basis, phase, IQP (REFERENCE §2).
package dev.penstock.quantum;
