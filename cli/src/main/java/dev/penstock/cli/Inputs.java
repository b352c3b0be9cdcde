package dev.penstock.cli;

import dev.penstock.formats.FeatureRows;
import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.hdf5.Hdf5Rows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.memory.DType;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.RowSources;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/// Input files as `RowSource`s for the encode pipeline.
final class Inputs {
    private Inputs() {
    }

    /// An open input: its rows and what to close.
    interface Opened extends AutoCloseable {
        RowSource source();

        /// Rows the reader let through as bad (NaN) for skip-and-report, with why (input row → reason).
        default Map<Long, String> problems() {
            return Map.of();
        }

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
        return opened(RowSources.of(in.block()), in::close);
    }

    /// A Parquet file's numeric `columns` (all if empty) as float64 rows, read in order; with
    /// `skipBad`, a ragged list row is a bad row (skipped and reported), not the end of the run.
    static Opened parquet(Path file, List<String> columns, boolean skipBad) throws IOException {
        ParquetRows rows = ParquetRows.open(file, columns);
        if (skipBad) {
            rows.raggedRowsAsBad();
        }
        RowSource source = RowSources.of(rows);
        return new Opened() {
            @Override
            public RowSource source() {
                return source;
            }

            @Override
            public Map<Long, String> problems() {
                return rows.raggedRows();
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }

    /// A 2-D numeric dataset of an HDF5 file (`dataset`, or null: the file's only one), read a
    /// block of rows at a time.
    static Opened hdf5(Path file, String dataset) throws IOException {
        return opened(Hdf5Rows.open(file, dataset));
    }

    /// An Arrow IPC file (`.arrow`, `.feather`) or stream (`.arrows`): its numeric `columns` (all
    /// if empty) or one fixed-size-list column as float64 rows, read from any I/O thread.
    static Opened arrow(Path file, List<String> columns) throws IOException {
        return opened(ArrowRows.open(file, columns));
    }

    private static Opened opened(FeatureRows rows) {
        return opened(RowSources.of(rows), rows::close);
    }

    /// `source`, closed by `closer` (which throws nothing).
    private static Opened opened(RowSource source, Runnable closer) {
        return new Opened() {
            @Override
            public RowSource source() {
                return source;
            }

            @Override
            public void close() {
                closer.run();
            }
        };
    }
}
