package dev.penstock.quantum;

import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;

/// Rows of classical features to encode: `rows()` rows of `rowLength()` values of `dtype()`
/// (f32 or f64). `read` runs on I/O threads, several at once, each for its own rows.
public interface RowSource {
    long rows();

    int rowLength();

    DType dtype();

    /// Copies rows `[first, first + count)` into `dst` (C order, little-endian).
    void read(long first, int count, MemorySegment dst) throws Exception;

    /// Whether reads must come in row order, one at a time (a streaming decoder such as a
    /// Parquet reader, which has decoding threads of its own); the pipeline then reads with one
    /// I/O thread.
    default boolean sequential() {
        return false;
    }
}
