package dev.penstock.quantum;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/// The input row of each state written: every row of the input in order, less the skipped ones.
public final class KeptRows {
    private static final int BLOCK = 65_536;
    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private KeptRows() {
    }

    /// Where blocks of row indices go: `count` little-endian int64 values in `data`.
    @FunctionalInterface
    public interface Appender {
        void append(MemorySegment data, long count) throws IOException;
    }

    /// Writes the indices of `rows` input rows not in `skipped` (in any order), ascending.
    public static void write(long rows, List<EncodingException> skipped, Appender out) throws IOException {
        write(rows, skipped.stream().mapToLong(EncodingException::row).toArray(), out);
    }

    /// Writes the indices of `rows` input rows not in `skippedRows` (in any order), ascending.
    public static void write(long rows, long[] skippedRows, Appender out) throws IOException {
        long[] bad = java.util.Arrays.stream(skippedRows).sorted().distinct().toArray();
        // bytes, not long[]: a heap segment must be over a byte[] to become a ByteBuffer for writing
        MemorySegment buf = MemorySegment.ofArray(new byte[BLOCK * Long.BYTES]);
        int n = 0;
        int b = 0;
        for (long r = 0; r < rows; r++) {
            if (b < bad.length && bad[b] == r) {
                b++;
                continue;
            }
            buf.setAtIndex(INT64, n++, r);
            if (n == BLOCK) {
                out.append(buf, n);
                n = 0;
            }
        }
        if (n > 0) {
            out.append(buf, n);
        }
    }
}
