package dev.penstock.cli;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.Encoding;
import java.nio.file.Path;

/// The input `encode --example N` writes: deterministic float64 rows, value j of row r =
/// sin(0.01·j·(r mod 97 + 1)) + 1.5 (never all zero; for basis, r mod 2). The same formula
/// recognises an example written before, so the default example path is rewritten only when it
/// holds one, never a user's file.
final class ExampleRows {
    private ExampleRows() {
    }

    /// Whether `file` is an example `write` made (its first rows follow the formula).
    static boolean isExample(Path file) {
        try (NpyFile f = NpyFile.open(file)) {
            long[] shape = f.shape();
            if (f.dtype() != DType.F64 || shape.length != 2 || shape[1] < 1) {
                return false;
            }
            Block b = f.block();
            for (long r = 0; r < Math.min(2, shape[0]); r++) {
                for (long j = 0; j < shape[1]; j++) {
                    double v = b.getDouble(r * shape[1] + j);
                    if (v != value(r, j, Encoding.AMPLITUDE) && v != value(r, j, Encoding.BASIS)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (RuntimeException | java.io.IOException e) {
            return false;
        }
    }

    private static double value(long row, long j, Encoding enc) {
        return enc == Encoding.BASIS ? row % (1L << 20) % 2 : Math.sin(0.01 * j * (row % 97 + 1)) + 1.5;
    }

    /// Writes `rows` example rows of `len` values to `file` (atomically).
    static void write(Path file, long rows, int len, Encoding enc, java.io.PrintStream info, boolean progressLine) throws Exception {
        Progress progress = Progress.start(rows, progressLine); // a large example takes seconds: say how far it is
        try (AutoCloseable line = progress::stop; HostArena arena = Memory.newConfinedArena("example"); NpyWriter w = NpyWriter.open(file, DType.F64, len)) {
            int chunk = 1024;
            Block b = arena.allocate(DType.F64, chunk, len);
            for (long first = 0; first < rows; first += chunk) {
                int n = (int) Math.min(chunk, rows - first);
                for (int r = 0; r < n; r++) {
                    for (int j = 0; j < len; j++) {
                        b.setDouble((long) r * len + j, value(first + r, j, enc));
                    }
                }
                w.append(b.slice(0, n));
                progress.advance(n);
            }
            w.commit();
        }
        info.printf("wrote %d example rows of %d values to %s%n", rows, len, file);
    }
}
