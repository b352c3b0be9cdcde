package dev.penstock.quantum;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/// The encodings of docs/definitions.md (n qubits, N = 2^n; qubit k is bit k of the index, LSB first).
public enum Encoding {
    /// ψ_i = x_i / ‖x‖₂ for i < len(x), 0 up to N; 1 ≤ len(x) ≤ N values.
    AMPLITUDE("amplitude"),
    /// ψ_i = ∏_k (bit_k(i) ? sin x_k : cos x_k); exactly n values.
    ANGLE("angle"),
    /// ψ = e_j for one whole j in [0, N).
    BASIS("basis"),
    /// ψ_b = 2^(−n/2) · exp(i Σ_k x_k b_k); exactly n values.
    PHASE("phase"),
    /// ψ_z = 2^(−n) Σ_x exp(iθ(x)) (−1)^popcount(x & z), θ(x) = Σ_i d_i x_i + Σ_{i<j} d_p(i,j) x_i x_j;
    /// n + n(n−1)/2 values.
    IQP("iqp"),
    /// As `IQP` without the pair terms; n values.
    IQP_Z("iqp-z");

    private final String label;

    Encoding(String label) {
        this.label = label;
    }

    /// The rule `row` (its first `len` values) breaks for this encoding at `qubits` qubits, in
    /// words; null for a good row. What every path checks before encoding a row (for a device
    /// whose kernels do not check, the host checks with this).
    public String brokenRule(int qubits, double[] row, int len) {
        return Rules.check(this, qubits, row, len);
    }

    /// The name used in options: `amplitude`, `iqp-z`, …
    public String label() {
        return label;
    }

    /// How many values a row must have for `qubits` qubits (for amplitude: the most it may have).
    public long inputLength(int qubits) {
        long n = qubits;
        return switch (this) {
            case AMPLITUDE -> 1L << qubits;
            case ANGLE, PHASE, IQP_Z -> n;
            case BASIS -> 1;
            case IQP -> n + n * (n - 1) / 2;
        };
    }

    /// Parses a label; fails naming the value and the choices.
    public static Encoding parse(String label) {
        String l = label.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Encoding e : values()) {
            if (e.label.equals(l)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown encoding '" + label + "'; expected one of "
                + Arrays.stream(values()).map(Encoding::label).collect(Collectors.joining(", ")));
    }
}
