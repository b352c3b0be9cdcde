package dev.penstock.formats.hdf5;

import dev.penstock.formats.FeatureRows;
import dev.penstock.io.BadInputException;
import dev.penstock.memory.DType;
import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/// The rows of a 2-D numeric dataset of an HDF5 file (as h5py, PyTables or HDF5 itself write
/// them: contiguous or chunked, compressed or not), read a block of rows at a time — the
/// dataset is never loaded whole. `float32` data stays float32, `float64` float64; integer data
/// is read as float64 (exact up to 2^53). Reads use jHDF, a pure-Java reader.
///
/// The dataset is the one named (`/group/name`), or, when none is, the file's only 2-D numeric
/// dataset; a file with none or several, a missing dataset, one of another rank or type, or a
/// damaged file is refused with one line naming the file and the dataset.
///
/// Chunks that were never written hold the dataset's fill value, as h5py and HDF5 read them
/// (jHDF reads them as zeros): at open, a chunked dataset whose fill value is not zero lists its
/// missing chunks, and `read` writes the fill value into their rows.
///
/// Threading: `read` may be called from several threads; calls take turns.
public final class Hdf5Rows implements FeatureRows {
    private final Path file;
    private final HdfFile hdf;
    private final Dataset dataset;
    private final long rows;
    private final int width;
    private final DType dtype;
    private final Class<?> javaType;
    /// Origins `{row, column}` of the chunks never written, when the fill value is not zero, in
    /// row order.
    private final List<long[]> unwritten;
    private final int[] chunk;
    private final double fill;

    private Hdf5Rows(Path file, HdfFile hdf, Dataset dataset) {
        this.file = file;
        this.hdf = hdf;
        this.dataset = dataset;
        long[] dims = dataset.getDimensionsAsLong();
        this.rows = dims[0];
        this.width = Math.toIntExact(dims[1]);
        this.javaType = dataset.getJavaType();
        this.dtype = javaType == float.class ? DType.F32 : DType.F64;
        this.fill = dataset.getFillValue() instanceof Number n ? n.doubleValue() : 0;
        if (dataset instanceof io.jhdf.api.dataset.ChunkedDataset c && Double.doubleToRawLongBits(fill) != 0) {
            this.chunk = c.getChunkDimensions();
            this.unwritten = unwritten(c, chunk, rows, width);
        } else {
            this.chunk = null;
            this.unwritten = List.of();
        }
    }

    /// The origins of `c`'s chunks that were never written (jHDF has no chunk at their offset).
    private static List<long[]> unwritten(io.jhdf.api.dataset.ChunkedDataset c, int[] chunk, long rows, int width) {
        List<long[]> out = new ArrayList<>();
        for (long r = 0; r < rows; r += chunk[0]) {
            for (int col = 0; col < width; col += chunk[1]) {
                try {
                    c.getRawChunkBuffer(new int[] {Math.toIntExact(r), col});
                } catch (io.jhdf.exceptions.HdfException missing) {
                    out.add(new long[] {r, col});
                }
            }
        }
        return out;
    }

    /// Opens `dataset` of `file` (null: the file's only 2-D numeric dataset).
    ///
    /// @throws BadInputException naming the file (and dataset) when it is not an HDF5 file, is
    ///                           damaged, or the dataset is missing, not 2-D or not numeric
    public static Hdf5Rows open(Path file, String dataset) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString());
        }
        HdfFile hdf;
        try {
            hdf = new HdfFile(file);
        } catch (RuntimeException e) {
            throw new BadInputException(file, file + ": not a readable HDF5 file (" + why(e) + ")", e);
        }
        try {
            Dataset d = dataset == null ? only(file, hdf) : named(file, hdf, dataset);
            check(file, d);
            return new Hdf5Rows(file, hdf, d);
        } catch (BadInputException e) {
            hdf.close();
            throw e;
        } catch (RuntimeException e) {
            hdf.close();
            throw new BadInputException(file, file + ": damaged HDF5 file (" + why(e) + ")", e);
        }
    }

    private static String why(RuntimeException e) {
        Throwable t = e;
        while (t.getCause() != null && t.getMessage() == null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    private static Dataset named(Path file, HdfFile hdf, String path) {
        Node n;
        try {
            n = hdf.getByPath(path);
        } catch (RuntimeException e) {
            n = null;
        }
        if (!(n instanceof Dataset d)) {
            List<String> found = candidates(hdf);
            throw new BadInputException(file, file + ": no dataset '" + path + "'" + (n != null ? " (it is a group)" : "")
                    + (found.isEmpty() ? "; the file has no 2-D numeric dataset" : "; its 2-D numeric datasets: " + String.join(", ", found)));
        }
        return d;
    }

    private static Dataset only(Path file, HdfFile hdf) {
        List<String> found = candidates(hdf);
        if (found.size() != 1) {
            throw new BadInputException(file, file + (found.isEmpty() ? ": no 2-D numeric dataset in the file"
                    : ": " + found.size() + " 2-D numeric datasets (" + String.join(", ", found) + "); name one with --dataset"));
        }
        return (Dataset) hdf.getByPath(found.getFirst());
    }

    /// Every dataset of `file`, a line each: its path, shape and element type, and whether
    /// `encode` can read it (a 2-D numeric dataset).
    public static List<String> describe(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        for (DatasetInfo d : datasets(file)) {
            out.add(d.path() + " " + (d.shape().length == 0 ? "()" : Arrays.toString(d.shape())) + " " + d.type()
                    + (d.readable() ? "" : " (not a 2-D numeric dataset: not read by encode)"));
        }
        return out;
    }

    /// One dataset of a file: its path, shape (empty: a scalar), Java element type and whether
    /// `encode` can read it (2-D, numeric, not empty).
    public record DatasetInfo(String path, long[] shape, String type, boolean readable) {
        @Override
        public String toString() {
            return "DatasetInfo[" + path + " " + Arrays.toString(shape) + " " + type + (readable ? "" : ", not readable by encode") + "]";
        }
    }

    /// Every dataset of `file`, in the file's order (groups walked depth first).
    public static List<DatasetInfo> datasets(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString());
        }
        try (HdfFile hdf = new HdfFile(file)) {
            List<DatasetInfo> out = new ArrayList<>();
            describe(hdf, out);
            return out;
        } catch (BadInputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BadInputException(file, file + ": not a readable HDF5 file (" + why(e) + ")", e);
        }
    }

    private static void describe(Group g, List<DatasetInfo> out) {
        for (Node n : g) {
            if (n instanceof Dataset d) {
                boolean readable = !d.isScalar() && !d.isEmpty() && d.getDimensions().length == 2 && numeric(d.getJavaType());
                out.add(new DatasetInfo(d.getPath(), d.isScalar() ? new long[0] : d.getDimensionsAsLong(), d.getJavaType().getSimpleName(), readable));
            } else if (n instanceof Group child) {
                describe(child, out);
            }
        }
    }

    /// The paths of the 2-D numeric datasets under `g`, in the file's order.
    private static List<String> candidates(Group g) {
        List<String> out = new ArrayList<>();
        for (Node n : g) {
            if (n instanceof Dataset d) {
                if (!d.isScalar() && !d.isEmpty() && d.getDimensions().length == 2 && numeric(d.getJavaType())) {
                    out.add(d.getPath());
                }
            } else if (n instanceof Group child) {
                out.addAll(candidates(child));
            }
        }
        return out;
    }

    private static boolean numeric(Class<?> t) {
        return t == double.class || t == float.class || t == long.class || t == int.class || t == short.class || t == byte.class;
    }

    private static void check(Path file, Dataset d) {
        String name = file + ": dataset " + d.getPath();
        if (d.isScalar() || d.getDimensions().length != 2) {
            throw new BadInputException(file, name + ": expected a 2-D [rows, values] dataset, found shape "
                    + (d.isScalar() ? "() (a scalar)" : Arrays.toString(d.getDimensionsAsLong())));
        }
        if (d.isCompound() || d.isVariableLength() || !numeric(d.getJavaType())) {
            throw new BadInputException(file, name + ": expected numbers (float or integer), found " + d.getDataType().getClass().getSimpleName()
                    .replace("DataType", "").toLowerCase(java.util.Locale.ROOT) + " data");
        }
    }

    /// The file.
    public Path file() {
        return file;
    }

    /// The dataset's path in the file.
    public String dataset() {
        return dataset.getPath();
    }

    /// Rows in the dataset.
    @Override
    public long rows() {
        return rows;
    }

    /// Values per row.
    @Override
    public int rowLength() {
        return width;
    }

    /// F32 for float32 data, F64 for float64 and integer data.
    @Override
    public DType dtype() {
        return dtype;
    }

    /// Copies rows `[first, first + count)` into `dst` as `dtype()` values, C order.
    ///
    /// @throws BadInputException naming the file, dataset and rows when they cannot be read
    @Override
    public synchronized void read(long first, int count, MemorySegment dst) {
        if (first < 0 || count < 0 || first + count > rows) {
            throw new IndexOutOfBoundsException("rows [" + first + ", " + (first + count) + ") of " + rows);
        }
        if (count == 0 || width == 0) {
            return;
        }
        Object data;
        try {
            data = dataset.getData(new long[] {first, 0}, new int[] {count, width});
        } catch (RuntimeException e) {
            throw new BadInputException(file, file + ": dataset " + dataset.getPath() + ", rows " + first + "–" + (first + count - 1)
                    + ": cannot be read (" + why(e) + ")", e);
        }
        long rowBytes = (long) width * dtype.byteSize();
        for (int r = 0; r < count; r++) {
            Object row = ((Object[]) data)[r];
            long at = r * rowBytes;
            switch (row) {
                case double[] v -> MemorySegment.copy(v, 0, dst, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, width);
                case float[] v -> MemorySegment.copy(v, 0, dst, ValueLayout.JAVA_FLOAT_UNALIGNED, at, width);
                case long[] v -> {
                    for (int c = 0; c < width; c++) {
                        dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8L * c, v[c]);
                    }
                }
                case int[] v -> {
                    for (int c = 0; c < width; c++) {
                        dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8L * c, v[c]);
                    }
                }
                case short[] v -> {
                    for (int c = 0; c < width; c++) {
                        dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8L * c, v[c]);
                    }
                }
                case byte[] v -> {
                    for (int c = 0; c < width; c++) {
                        dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + 8L * c, v[c]);
                    }
                }
                default -> throw new BadInputException(file, file + ": dataset " + dataset.getPath() + ": unexpected row type "
                        + row.getClass().getSimpleName());
            }
        }
        for (long[] u : unwritten) { // in row order: the chunks past this read end the loop
            if (u[0] >= first + count) {
                break;
            }
            if (u[0] + chunk[0] > first) {
                fillUnwritten(u, first, count, dst, rowBytes);
            }
        }
    }

    /// Writes the fill value into the part of unwritten chunk `origin` that rows
    /// `[first, first + count)` cover.
    private void fillUnwritten(long[] origin, long first, int count, MemorySegment dst, long rowBytes) {
        long from = Math.max(first, origin[0]);
        long to = Math.min(first + count, origin[0] + chunk[0]);
        int colTo = (int) Math.min(width, origin[1] + chunk[1]);
        for (long r = from; r < to; r++) {
            for (int c = (int) origin[1]; c < colTo; c++) {
                long at = (r - first) * rowBytes + (long) c * dtype.byteSize();
                if (dtype == DType.F32) {
                    dst.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) fill);
                } else {
                    dst.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, fill);
                }
            }
        }
    }

    @Override
    public void close() {
        hdf.close();
    }
}
