package dev.penstock.quantum;

import java.lang.foreign.MemorySegment;

/// One implementation of every encoding's arithmetic on split real/imaginary arrays of N = 2^n
/// doubles. Inputs have passed `Rules.check`. Two implementations: `ScalarKernels` (the
/// reference) and `VectorKernels` (`jdk.incubator.vector`), tested against each other.
interface Kernels {
    void amplitude(double[] x, int len, int size, double[] re, double[] im);

    void angle(double[] x, int n, double[] re, double[] im);

    void basis(long j, int size, double[] re, double[] im);

    void phase(double[] x, int n, double[] re, double[] im);

    /// IQP; with `pairs` false the pair terms are left out (iqp-z).
    void iqp(double[] x, int n, boolean pairs, double[] re, double[] im);

    /// Writes `size` complex values interleaved (re, im) at `offset` of `out`, as float pairs
    /// (`complex64`) or double pairs (`complex128`).
    void write(double[] re, double[] im, int size, MemorySegment out, long offset, boolean singlePrecision);
}
