package dev.penstock.quantum;

import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.hdf5.Hdf5Rows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.parquet.ParquetRows;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/// Input files as `RowSource`s for the encode pipeline: `.npy`, Parquet, Arrow IPC and HDF5,
/// opened the same way by `penstock encode` and by the Flink encode job's tasks.
public final class EncodeInputs {
    private EncodeInputs() {
    }

    /// An open input: its rows and what to close.
    public interface Opened extends AutoCloseable {
        RowSource source();

        /// Rows the reader let through as bad (NaN) for skip-and-report, with why (input row → reason).
        default Map<Long, String> problems() {
            return Map.of();
        }

        /// What of the file is read, for the user: `columns a, b, c` (Parquet, Arrow), `dataset /x`
        /// (HDF5); empty for a `.npy`, which is read whole.
        default String read() {
            return "";
        }

        @Override
        void close() throws IOException;
    }

    /// Opens `file` by its name: `.parquet`, `.arrow`/`.feather`/`.arrows`, `.h5`/`.hdf5`, else
    /// `.npy`; `columns` for Parquet and Arrow (empty: the default), `dataset` for HDF5 (null: the
    /// only one), `skipBad` for Parquet's ragged lists.
    public static Opened open(Path file, List<String> columns, String dataset, boolean skipBad) throws IOException {
        String name = file.getFileName().toString();
        if (name.endsWith(".parquet")) {
            return parquet(file, columns, skipBad);
        }
        if (name.endsWith(".arrow") || name.endsWith(".feather") || name.endsWith(".arrows")) {
            return arrow(file, columns);
        }
        if (name.endsWith(".h5") || name.endsWith(".hdf5")) {
            return hdf5(file, dataset);
        }
        return npy(file);
    }

    /// A `.npy` `[rows, values]` f32/f64 array, memory-mapped; reads run on any I/O thread.
    ///
    /// @throws IllegalArgumentException naming the file, its dtype and shape when it is not that
    public static Opened npy(Path file) throws IOException {
        NpyFile in = NpyFile.open(file);
        if (in.shape().length != 2 || (in.dtype() != DType.F32 && in.dtype() != DType.F64)) {
            in.close();
            throw new IllegalArgumentException("INPUT " + file + ": expected [rows, values] of f32 or f64, found "
                    + in.dtype().label() + Arrays.toString(in.shape()));
        }
        return opened(RowSources.of(in.block()), in::close, "");
    }

    /// A Parquet file's numeric `columns` (all if empty) as float64 rows, read in order; with
    /// `skipBad`, a ragged list row is a bad row (skipped and reported), not the end of the run.
    public static Opened parquet(Path file, List<String> columns, boolean skipBad) throws IOException {
        return parquet(file, columns, skipBad, null);
    }

    /// As `parquet`, reading only row groups `groups` (null: all): a range of a Flink encode.
    public static Opened parquet(Path file, List<String> columns, boolean skipBad, dev.penstock.formats.parquet.ParquetRowGroups groups)
            throws IOException {
        ParquetRows rows = ParquetRows.open(file, columns, groups);
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
            public String read() {
                return columnsRead(rows.columnNames(), rows.leftOutColumns());
            }

            @Override
            public void close() throws IOException {
                rows.close();
            }
        };
    }

    /// A 2-D numeric dataset of an HDF5 file (`dataset`, or null: the file's only one), read a
    /// block of rows at a time.
    public static Opened hdf5(Path file, String dataset) throws IOException {
        Hdf5Rows rows = Hdf5Rows.open(file, dataset);
        return opened(RowSources.of(rows), rows::close, "dataset " + rows.dataset());
    }

    /// An Arrow IPC file (`.arrow`, `.feather`) or stream (`.arrows`): its numeric `columns` (all
    /// if empty) or one fixed-size-list column as float64 rows, read from any I/O thread.
    public static Opened arrow(Path file, List<String> columns) throws IOException {
        ArrowRows rows = ArrowRows.open(file, columns);
        return opened(RowSources.of(rows), rows::close, columnsRead(rows.columnNames(), rows.leftOutColumns()));
    }

    /// `source`, closed by `closer` (which throws nothing), reading `read` of its file.
    private static Opened opened(RowSource source, Runnable closer, String read) {
        return new Opened() {
            @Override
            public RowSource source() {
                return source;
            }

            @Override
            public String read() {
                return read;
            }

            @Override
            public void close() {
                closer.run();
            }
        };
    }

    /// "columns a, b", and the numeric columns the default choice left out.
    private static String columnsRead(List<String> names, List<String> leftOut) {
        return "columns " + String.join(", ", names) + (leftOut.isEmpty() ? "" : " (not read: " + String.join(", ", leftOut)
                + "; the default reads a table's one list column, else its float columns, else its integer ones)");
    }
}
