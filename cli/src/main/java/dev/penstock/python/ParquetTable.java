package dev.penstock.python;

import dev.penstock.formats.FeatureRows;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/// A Parquet table's rows by index: read in place where its pages allow (uncompressed PLAIN),
/// else decoded once, whole, into memory (float64) when the dataset is made.
final class ParquetTable implements FeatureRows {
    private final dev.penstock.formats.parquet.ParquetRows rows;
    private final MemorySegment decoded; // null: read in place
    private final java.lang.foreign.Arena memory;

    private ParquetTable(dev.penstock.formats.parquet.ParquetRows rows, MemorySegment decoded, java.lang.foreign.Arena memory) {
        this.rows = rows;
        this.decoded = decoded;
        this.memory = memory;
    }

    static ParquetTable open(Path file, List<String> columns) throws java.io.IOException {
        var rows = dev.penstock.formats.parquet.ParquetRows.open(file, columns);
        if (rows.readsInPlace()) {
            return new ParquetTable(rows, null, null);
        }
        java.lang.foreign.Arena memory = java.lang.foreign.Arena.ofShared();
        try {
            long rowBytes = (long) rows.rowLength() * Double.BYTES;
            MemorySegment all = memory.allocate(Math.max(1, rows.rows() * rowBytes), 8);
            long at = 0;
            for (int k; (k = rows.next(all.asSlice(at * rowBytes), 4096)) > 0; ) {
                at += k;
            }
            if (at != rows.rows()) {
                throw new dev.penstock.io.BadInputException(file, file + ": row " + at + ": the data ends before the "
                        + rows.rows() + " rows its metadata announces");
            }
            return new ParquetTable(rows, all, memory);
        } catch (RuntimeException e) {
            memory.close();
            rows.close();
            throw e;
        }
    }

    @Override
    public long rows() {
        return rows.rows();
    }

    @Override
    public int rowLength() {
        return rows.rowLength();
    }

    @Override
    public DType dtype() {
        return DType.F64;
    }

    @Override
    public void read(long first, int count, MemorySegment dst) {
        if (decoded == null) {
            rows.read(first, count, dst);
            return;
        }
        long rowBytes = (long) rows.rowLength() * Double.BYTES;
        MemorySegment.copy(decoded, first * rowBytes, dst, 0, count * rowBytes);
    }

    @Override
    public void close() {
        try {
            rows.close();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            if (memory != null) {
                memory.close();
            }
        }
    }
}
