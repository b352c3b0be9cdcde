package dev.penstock.cli;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.quantum.RowSource;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/// Input files as `RowSource`s for the encode pipeline.
final class Inputs {
    private Inputs() {
    }

    /// An open input: its rows and what to close.
    interface Opened extends AutoCloseable {
        RowSource source();

        @Override
        void close() throws IOException;
    }

    /// A `.npy` `[rows, values]` f32/f64 array, memory-mapped; reads run on any I/O thread.
    static Opened npy(Path file, CommandSpec spec) throws IOException {
        NpyFile in = NpyFile.open(file);
        if (in.shape().length != 2 || (in.dtype() != DType.F32 && in.dtype() != DType.F64)) {
            in.close();
            throw new ParameterException(spec.commandLine(), "INPUT " + file + ": expected [rows, values] of f32 or f64, found "
                    + in.dtype().label() + Arrays.toString(in.shape()));
        }
        Block rows = in.block();
        RowSource source = new RowSource() {
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
                long rowBytes = rows.shape(1) * rows.dtype().byteSize();
                MemorySegment.copy(rows.segment(), first * rowBytes, dst, 0, count * rowBytes);
            }
        };
        return new Opened() {
            @Override
            public RowSource source() {
                return source;
            }

            @Override
            public void close() {
                in.close();
            }
        };
    }

    /// A Parquet file's numeric `columns` (all if empty) as float64 rows, read in order.
    static Opened parquet(Path file, List<String> columns) throws IOException {
        ParquetRows rows = ParquetRows.open(file, columns);
        RowSource source = new RowSource() {
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
                return true;
            }

            @Override
            public synchronized void read(long first, int count, MemorySegment dst) {
                if (first != rows.delivered()) {
                    throw new IllegalStateException(file + ": rows requested out of order (" + first + ", expected "
                            + rows.delivered() + ")");
                }
                long rowBytes = 8L * rows.rowLength();
                int done = 0;
                while (done < count) {
                    int k = rows.next(dst.asSlice(done * rowBytes), count - done);
                    if (k == 0) {
                        throw new IllegalStateException(file + ": the file ended at row " + rows.delivered() + " but its metadata says "
                                + rows.rows() + " rows");
                    }
                    done += k;
                }
            }
        };
        return new Opened() {
            @Override
            public RowSource source() {
                return source;
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }
}
