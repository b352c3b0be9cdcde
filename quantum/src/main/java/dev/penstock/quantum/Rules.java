package dev.penstock.quantum;

/// The input rules of each encoding, shared by the scalar and SIMD paths. Each check returns
/// null for a good row or the rule broken, in words.
final class Rules {
    private Rules() {
    }

    static String check(Encoding e, int qubits, double[] x, int len) {
        long n = qubits;
        long size = 1L << qubits;
        switch (e) {
            case AMPLITUDE -> {
                if (len == 0) {
                    return "amplitude encoding needs at least one value, got an empty row";
                }
                if (len > size) {
                    return "amplitude encoding of " + qubits + " qubits takes at most " + size + " values, got " + len;
                }
                String bad = nonFinite(x, len);
                if (bad != null) {
                    return bad;
                }
                boolean allZero = true;
                for (int i = 0; i < len && allZero; i++) {
                    allZero = x[i] == 0;
                }
                return allZero ? "amplitude encoding needs a non-zero norm, got a row of zeros" : null;
            }
            case ANGLE, PHASE, IQP_Z, IQP -> {
                long want = e.inputLength(qubits);
                if (len != want) {
                    return e.label() + " encoding of " + qubits + " qubits takes exactly " + want + " values, got " + len;
                }
                return nonFinite(x, len);
            }
            case BASIS -> {
                if (len != 1) {
                    return "basis encoding takes exactly 1 value (the index), got " + len;
                }
                double j = x[0];
                if (!Double.isFinite(j) || j != Math.rint(j) || j < 0 || j >= size) {
                    return "basis encoding of " + qubits + " qubits needs a whole index in [0, " + size + "), got " + j;
                }
                return null;
            }
            default -> throw new AssertionError(e);
        }
    }

    private static String nonFinite(double[] x, int len) {
        for (int i = 0; i < len; i++) {
            if (!Double.isFinite(x[i])) {
                return "value " + i + " is " + x[i] + "; every value must be finite";
            }
        }
        return null;
    }

    /// Index of pair (i, j), i < j, among the IQP parameters (after the n single ones).
    static int pairIndex(int n, int i, int j) {
        return n + i * (2 * n - i - 1) / 2 + (j - i - 1);
    }
}
