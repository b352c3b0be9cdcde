package dev.penstock.quantum;

import dev.penstock.formats.FeatureRows;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;

/// `RowSource`s over the formats Penstock reads.
public final class RowSources {
    private RowSources() {
    }

    /// The rows of a `[rows, values]` f32/f64 block (for example a memory-mapped `.npy` array);
    /// reads may run on any number of I/O threads at once.
    public static RowSource of(Block rows) {
        if (rows.rank() != 2 || (rows.dtype() != DType.F32 && rows.dtype() != DType.F64) || !rows.isContiguous()) {
            throw new IllegalArgumentException("expected contiguous [rows, values] of f32 or f64, got " + rows);
        }
        long rowBytes = rows.shape(1) * rows.dtype().byteSize();
        return new RowSource() {
            @Override
            public long rows() {
                return rows.shape(0);
            }

            @Override
            public int rowLength() {
                return (int) rows.shape(1);
            }

            @Override
            public DType dtype() {
                return rows.dtype();
            }

            @Override
            public void read(long first, int count, MemorySegment dst) {
                MemorySegment.copy(rows.segment(), first * rowBytes, dst, 0, count * rowBytes);
            }
        };
    }

    /// The selected columns of a Parquet file as float64 rows: any rows from any I/O thread when
    /// its pages are read in place (`ParquetRows.readsInPlace`), else in order (sequential).
    public static RowSource of(ParquetRows rows) {
        long rowBytes = 8L * rows.rowLength();
        boolean inOrder = !rows.readsInPlace();
        return new RowSource() {
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
            public boolean sequential() {
                return inOrder;
            }

            @Override
            public void read(long first, int count, MemorySegment dst) {
                if (inOrder) {
                    readInOrder(first, count, dst);
                } else {
                    rows.read(first, count, dst);
                }
            }

            private synchronized void readInOrder(long first, int count, MemorySegment dst) {
                if (first != rows.delivered()) {
                    throw new IllegalStateException(rows.file() + ": rows requested out of order (" + first + ", expected "
                            + rows.delivered() + ")");
                }
                int done = 0;
                while (done < count) {
                    int k = rows.next(dst.asSlice(done * rowBytes), count - done);
                    if (k == 0) {
                        throw new IllegalStateException(rows.file() + ": the file ended at row " + rows.delivered()
                                + " but its metadata says " + rows.rows() + " rows");
                    }
                    done += k;
                }
            }
        };
    }

    /// The rows of a reader that hands them out by index (`FeatureRows`: HDF5, Arrow IPC); reads
    /// may run on any number of I/O threads at once (the reader makes them take turns if it must).
    public static RowSource of(FeatureRows rows) {
        return new RowSource() {
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
                return rows.dtype();
            }

            @Override
            public void read(long first, int count, MemorySegment dst) {
                rows.read(first, count, dst);
            }
        };
    }

    /// Rows `[first, first + count)` of `source` as rows `[0, count)`: a range encoded on its own
    /// (the Flink encode's tasks). `source` must not be sequential (a streaming decoder cannot
    /// start in the middle).
    public static RowSource slice(RowSource source, long first, long count) {
        if (source.sequential()) {
            throw new IllegalArgumentException("a sequential row source cannot be read from row " + first);
        }
        if (first < 0 || count < 0 || first + count > source.rows()) {
            throw new IllegalArgumentException("rows [" + first + ", " + (first + count) + ") are not within the " + source.rows() + " rows");
        }
        return new RowSource() {
            @Override
            public long rows() {
                return count;
            }

            @Override
            public int rowLength() {
                return source.rowLength();
            }

            @Override
            public DType dtype() {
                return source.dtype();
            }

            @Override
            public void read(long from, int n, java.lang.foreign.MemorySegment dst) throws Exception {
                source.read(first + from, n, dst);
            }
        };
    }
}
