package dev.penstock.quantum;

import dev.penstock.memory.Block;
import dev.penstock.memory.HostArena;
import java.util.List;

/// States made by `Encoder.encode(double[][])` and its siblings: one state of `stateSize()`
/// complex amplitudes per kept row, in input order, in off-heap memory this object owns (closing
/// it frees them).
///
/// ```java
/// try (States states = Encoder.of(Encoding.AMPLITUDE, 2).encode(new double[][] {{3, 4}, {1, 1, 1, 1}})) {
///     double[] first = states.real(0);   // [0.6, 0.8, 0, 0]
/// }
/// ```
public final class States implements AutoCloseable {
    private final HostArena arena;
    private final Block block;
    private final EncodeResult result;

    States(HostArena arena, Block block, EncodeResult result) {
        this.arena = arena;
        this.block = block;
        this.result = result;
    }

    /// States held (the rows kept).
    public int count() {
        return (int) result.rowsWritten();
    }

    /// Amplitudes per state, 2^qubits.
    public int stateSize() {
        return (int) block.shape(1);
    }

    /// The states as one `[count(), stateSize()]` complex64 or complex128 block (interleaved real
    /// and imaginary parts), without a copy; valid until `close()`.
    public Block block() {
        return block.slice(0, result.rowsWritten());
    }

    /// Real part of amplitude `i` of state `row`.
    public double real(int row, int i) {
        return block.getReal(index(row, i));
    }

    /// Imaginary part of amplitude `i` of state `row`.
    public double imag(int row, int i) {
        return block.getImag(index(row, i));
    }

    /// The real parts of state `row`, copied into a new array.
    public double[] real(int row) {
        double[] out = new double[stateSize()];
        for (int i = 0; i < out.length; i++) {
            out[i] = real(row, i);
        }
        return out;
    }

    /// The imaginary parts of state `row`, copied into a new array.
    public double[] imag(int row) {
        double[] out = new double[stateSize()];
        for (int i = 0; i < out.length; i++) {
            out[i] = imag(row, i);
        }
        return out;
    }

    /// Input row of each state, ascending (every row when none was skipped).
    public long[] keptRows() {
        long[] kept = new long[count()];
        int s = 0;
        int k = 0;
        List<EncodingException> skipped = result.skipped();
        for (long r = 0; r < result.rowsRead(); r++) {
            if (s < skipped.size() && skipped.get(s).row() == r) {
                s++;
            } else {
                kept[k++] = r;
            }
        }
        return kept;
    }

    /// Rows left out under `BadRowPolicy.SKIP`, each with the rule it broke.
    public List<EncodingException> skipped() {
        return result.skipped();
    }

    private long index(int row, int i) {
        if (row < 0 || row >= count() || i < 0 || i >= stateSize()) {
            throw new IndexOutOfBoundsException("amplitude [" + row + ", " + i + "] of " + count() + " states of " + stateSize());
        }
        return (long) row * stateSize() + i;
    }

    /// Frees the states' memory.
    @Override
    public void close() {
        arena.close();
    }
}
