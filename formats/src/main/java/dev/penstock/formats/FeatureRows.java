package dev.penstock.formats;

import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;

/// Feature rows a reader hands out by index — `rows()` rows of `rowLength()` values of
/// `dtype()` — any rows, in any order, from any number of threads (`Hdf5Rows`, `ArrowRows`).
public interface FeatureRows extends AutoCloseable {
    /// Rows in the input.
    long rows();

    /// Values per row.
    int rowLength();

    /// The values' type as read (F32 or F64).
    DType dtype();

    /// Copies rows `[first, first + count)` into `dst` as `dtype()` values, C order.
    void read(long first, int count, MemorySegment dst);

    @Override
    void close();
}
