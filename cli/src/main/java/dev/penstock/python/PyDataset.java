package dev.penstock.python;

import dev.penstock.data.Dataset;
import dev.penstock.data.PrepContext;
import dev.penstock.formats.FeatureRows;
import dev.penstock.formats.arrow.ArrowRows;
import dev.penstock.formats.hdf5.Hdf5Rows;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.random.RandomGenerator;

/// The map-style datasets of the Python package's `penstock.data`: `rows(path)` (each row of an
/// `.npy`, Arrow IPC or HDF5 table a sample) and `files(paths)` (each `.npy` file a sample), with
/// transforms that run on the loader's I/O threads — conversion to `dtype`, normalisation by a
/// given mean and standard deviation per feature (the last axis), and a random subsample of
/// `subsample` points (the first axis) drawn from the sample's own generator, so the same for any
/// worker count and resume point. Host samples come from a pool and go back to it.
public final class PyDataset implements Dataset<Block, Block>, AutoCloseable {
    private final String name;
    private final FeatureRows table;       // rows(...)
    private final List<Path> files;        // files(...)
    private final List<dev.penstock.formats.npy.NpyHeader> headers; // each file's, read once
    private final long size;
    private final long[] sampleShape;      // of a stored sample, before the subsample
    private final DType dtype;
    private final double[] mean;
    private final double[] std;
    private final int subsample;
    private final HostArena arena = Memory.newSharedArena("penstock.data");
    private final Queue<Block> free = new ConcurrentLinkedQueue<>();

    private PyDataset(String name, FeatureRows table, List<Path> files, List<dev.penstock.formats.npy.NpyHeader> headers, long size,
                      long[] sampleShape, String dtype, double[] mean, double[] std, int subsample) {
        this.name = name;
        this.headers = headers;
        this.table = table;
        this.files = files;
        this.size = size;
        this.sampleShape = sampleShape;
        this.dtype = switch (dtype) {
            case "float32" -> DType.F32;
            case "float64" -> DType.F64;
            default -> throw new IllegalArgumentException("dtype must be float32 or float64, got " + dtype);
        };
        int features = (int) sampleShape[sampleShape.length - 1];
        if (mean != null && mean.length != 1 && mean.length != features || std != null && std.length != 1 && std.length != features) {
            throw new IllegalArgumentException(name + ": mean and std take 1 or " + features + " values (one per feature)");
        }
        if (std != null) {
            for (double s : std) {
                if (!(s > 0)) {
                    throw new IllegalArgumentException(name + ": std must be positive, got " + s);
                }
            }
        }
        if (subsample < 0 || subsample > sampleShape[0]) {
            throw new IllegalArgumentException(name + ": subsample must be in [1, " + sampleShape[0] + "] points, got " + subsample);
        }
        this.mean = mean;
        this.std = std;
        this.subsample = subsample;
    }

    /// Each row of the table at `path` (`.npy` `[rows, values]`, Arrow IPC with `columns`, HDF5
    /// with `dataset`) a sample of `values` numbers.
    public static PyDataset rows(String path, List<String> columns, String dataset, String dtype, double[] mean, double[] std,
                                 int subsample) throws Exception {
        Path file = PyEncode.existing(path);
        String n = file.getFileName().toString();
        FeatureRows rows;
        if (n.endsWith(".npy")) {
            rows = new NpyRows(NpyFile.open(file), file);
        } else if (n.endsWith(".arrow") || n.endsWith(".feather") || n.endsWith(".arrows")) {
            rows = ArrowRows.open(file, columns);
        } else if (n.endsWith(".h5") || n.endsWith(".hdf5")) {
            rows = Hdf5Rows.open(file, dataset);
        } else {
            throw new IllegalArgumentException(path + ": rows() reads .npy, Arrow IPC (.arrow, .feather, .arrows) and HDF5 (.h5, .hdf5) "
                    + "tables");
        }
        try {
            return new PyDataset(path, rows, null, null, rows.rows(), new long[] {rows.rowLength()}, dtype, mean, std, subsample);
        } catch (RuntimeException e) {
            rows.close();
            throw e;
        }
    }

    /// Each `.npy` file a sample (1-D or 2-D; every file the same shape, unless `subsample`
    /// makes them so: 2-D files of any number of points, the same width).
    public static PyDataset files(List<String> paths, String dtype, double[] mean, double[] std, int subsample) throws Exception {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("files() needs at least one .npy file");
        }
        List<Path> files = new java.util.ArrayList<>();
        List<dev.penstock.formats.npy.NpyHeader> headers = new java.util.ArrayList<>();
        long[] shape = null;
        long fewest = Long.MAX_VALUE;
        for (String p : paths) {
            Path f = PyEncode.existing(p);
            try (NpyFile npy = NpyFile.open(f)) {
                long[] s = npy.shape();
                if (s.length < 1 || s.length > 2 || (npy.dtype() != DType.F32 && npy.dtype() != DType.F64)) {
                    throw new IllegalArgumentException(p + ": a sample is a 1-D or 2-D float32 or float64 array, got " + npy.dtype().label()
                            + java.util.Arrays.toString(s));
                }
                if (shape == null) {
                    shape = s;
                } else if (subsample > 0 ? s.length != shape.length || s[s.length - 1] != shape[shape.length - 1]
                        : !java.util.Arrays.equals(s, shape)) {
                    throw new IllegalArgumentException(p + ": shape " + java.util.Arrays.toString(s) + ", but " + paths.getFirst()
                            + " has " + java.util.Arrays.toString(shape) + (subsample > 0 ? "" : " (subsample= makes point clouds of "
                            + "any size one shape)"));
                }
                fewest = Math.min(fewest, s[0]);
                headers.add(npy.header());
            }
            files.add(f);
        }
        long[] stored = shape.clone();
        stored[0] = fewest; // the subsample is checked against the smallest sample
        return new PyDataset(paths.getFirst() + (paths.size() > 1 ? " …" : ""), null, List.copyOf(files), List.copyOf(headers), files.size(),
                stored, dtype, mean, std, subsample);
    }

    @Override
    public long size() {
        return size;
    }

    /// The shape of one sample as the loader hands it out.
    public long[] shape() {
        long[] s = sampleShape.clone();
        if (subsample > 0) {
            s[0] = subsample;
        }
        return s;
    }

    @Override
    public Block loadHost(long index, RandomGenerator rng) throws Exception {
        try {
            if (table != null) {
                Scratch w = SCRATCH.get();
                int width = (int) sampleShape[0];
                long bytes = (long) width * table.dtype().byteSize();
                MemorySegment row = w.row(bytes);
                table.read(index, 1, row);
                Block values = Block.wrap(row, table.dtype(), row, width);
                return fill(values, new long[] {width}, rng, w);
            }
            // one positional read of the array's bytes (the header was read when the dataset was
            // made): no mapping to make and unmap per sample, which would cost every thread a handshake
            var header = headers.get((int) index);
            Scratch w = SCRATCH.get();
            java.nio.ByteBuffer data = w.buffer(header.dataBytes());
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(files.get((int) index))) {
                long at = header.dataOffset();
                while (data.hasRemaining()) {
                    int n = ch.read(data, at);
                    if (n < 0) {
                        throw new java.io.EOFException("the file ends at byte " + at + ", its header promised "
                                + (header.dataOffset() + header.dataBytes()));
                    }
                    at += n;
                }
            }
            MemorySegment bytes = MemorySegment.ofBuffer(data.flip());
            return fill(Block.wrap(bytes, header.dtype(), bytes, Block.elementCount(header.shape())), header.shape(), rng, w);
        } catch (Exception e) {
            throw new IllegalArgumentException((table != null ? name + ": row " : files.get((int) index) + ": sample ") + index + ": "
                    + e.getMessage(), e);
        }
    }

    /// The sample of stored `values` (shape `shape`: 1-D, or points × features): `subsample`
    /// points drawn with `rng` (a partial Fisher–Yates shuffle; only those are read), each value
    /// normalised and converted into a pooled host block.
    private Block fill(Block values, long[] shape, RandomGenerator rng, Scratch w) {
        int width = shape.length == 1 ? 1 : (int) shape[1];
        int points = (int) shape[0];
        int rowsOut = subsample > 0 ? subsample : points;
        int[] pick = null;
        if (subsample > 0) {
            int[] order = w.order(points);
            int[] swapped = w.swapped(subsample);
            for (int i = 0; i < subsample; i++) {
                int j = i + rng.nextInt(points - i);
                swapped[i] = j;
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            pick = order;
        }
        Block b = take(shape());
        boolean f32 = values.dtype() == DType.F32;
        for (int r = 0; r < rowsOut; r++) {
            int src = pick == null ? r : pick[r];
            for (int c = 0; c < width; c++) {
                long k = (long) src * width + c;
                int feature = shape.length == 1 ? src : c;
                double v = f32 ? values.getFloat(k) : values.getDouble(k);
                if (mean != null) {
                    v -= mean[mean.length == 1 ? 0 : feature];
                }
                if (std != null) {
                    v /= std[std.length == 1 ? 0 : feature];
                }
                long at = (long) r * width + c;
                if (dtype == DType.F32) {
                    b.setFloat(at, (float) v);
                } else {
                    b.setDouble(at, v);
                }
            }
        }
        if (pick != null) { // the swaps undone, last first: the identity again for the next sample
            int[] swapped = w.swapped(subsample);
            for (int i = subsample - 1; i >= 0; i--) {
                int j = swapped[i];
                int t = pick[i];
                pick[i] = pick[j];
                pick[j] = t;
            }
        }
        return b;
    }

    /// One I/O thread's working memory, reused sample after sample.
    private static final class Scratch {
        private MemorySegment row = MemorySegment.NULL;
        private java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(0);
        private int[] order = new int[0];
        private int[] swapped = new int[0];

        MemorySegment row(long bytes) {
            if (row.byteSize() < bytes) {
                row = java.lang.foreign.Arena.ofAuto().allocate(bytes, 8);
            }
            return row.asSlice(0, bytes);
        }

        /// A cleared direct buffer of `bytes` bytes, native order.
        java.nio.ByteBuffer buffer(long bytes) {
            if (buffer.capacity() < bytes) {
                buffer = java.nio.ByteBuffer.allocateDirect((int) bytes).order(java.nio.ByteOrder.nativeOrder());
            }
            return buffer.clear().limit((int) bytes);
        }

        /// 0, 1, …, n − 1 (and beyond): the identity, as every draw leaves it once undone.
        int[] order(int n) {
            if (order.length < n) {
                order = new int[n];
                for (int i = 0; i < n; i++) {
                    order[i] = i;
                }
            }
            return order;
        }

        /// Room for where each of `n` draws swapped to.
        int[] swapped(int n) {
            if (swapped.length < n) {
                swapped = new int[n];
            }
            return swapped;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private Block take(long[] shape) {
        Block b = free.poll();
        if (b != null) {
            return b;
        }
        synchronized (arena) {
            return arena.allocate(dtype, shape);
        }
    }

    @Override
    public long hostBytes(Block host) {
        return host.byteSize();
    }

    @Override
    public long expectedHostBytes(long index) {
        return Block.elementCount(shape()) * dtype.byteSize();
    }

    @Override
    public Block consume(Block host, PrepContext ctx) {
        return host; // the CPU device: host memory is device memory; collation copies it
    }

    @Override
    public void releaseHost(Block host) {
        free.add(host);
    }

    @Override
    public void close() {
        if (table != null) {
            table.close();
        }
        arena.close();
    }

    /// A `.npy` `[rows, values]` table read by index from its mapping.
    private record NpyRows(NpyFile npy, Path file) implements FeatureRows {
        NpyRows {
            if (npy.shape().length != 2 || (npy.dtype() != DType.F32 && npy.dtype() != DType.F64)) {
                String what = npy.dtype().label() + java.util.Arrays.toString(npy.shape());
                npy.close();
                throw new IllegalArgumentException(file + ": rows() reads a [rows, values] float32 or float64 array, got " + what);
            }
        }

        @Override
        public long rows() {
            return npy.shape()[0];
        }

        @Override
        public int rowLength() {
            return (int) npy.shape()[1];
        }

        @Override
        public DType dtype() {
            return npy.dtype();
        }

        @Override
        public void read(long first, int count, MemorySegment dst) {
            long rowBytes = (long) rowLength() * npy.dtype().byteSize();
            MemorySegment.copy(npy.block().segment(), first * rowBytes, dst, 0, count * rowBytes);
        }

        @Override
        public void close() {
            npy.close();
        }
    }
}
