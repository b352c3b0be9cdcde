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
/// `.npy`, Parquet, Arrow IPC or HDF5 table a sample) and `files(paths)` (each `.npy` file or Zarr
/// array a sample; of one shape, or of several — "ragged", collated as a list), with transforms
/// that run on the loader's I/O threads — conversion to `dtype`, normalisation by a given mean and
/// standard deviation per feature (the last axis), and a random subsample of `subsample` points
/// (the first axis) drawn from the sample's own generator, so the same for any worker count and
/// resume point. Host samples come from a pool and go back to it.
public final class PyDataset implements Dataset<Block, Block>, AutoCloseable {
    private final String name;
    private final FeatureRows table;       // rows(...)
    private final List<StoredArray> files;      // files(...)
    private final boolean ragged;          // files of several shapes, no subsample: batches are lists
    private final long size;
    private final long[] sampleShape;      // of a stored sample, before the subsample
    private final DType dtype;
    private final double[] mean;
    private final double[] std;
    private final int subsample;
    private final HostArena arena = Memory.newSharedArena("penstock.data");
    private final Queue<Block> free = new ConcurrentLinkedQueue<>();
    // ragged samples: blocks of 2^k elements, one queue per k; a handed-out view's address finds its block
    private final java.util.Map<Integer, Queue<Block>> freeBySize = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<Long, Block> viewed = new java.util.concurrent.ConcurrentHashMap<>();

    private PyDataset(String name, FeatureRows table, List<StoredArray> files, boolean ragged, long size,
                      long[] sampleShape, String dtype, double[] mean, double[] std, int subsample) {
        this.name = name;
        this.ragged = ragged;
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
        if (features < 0 && (mean != null && mean.length != 1 || std != null && std.length != 1)) {
            throw new IllegalArgumentException(name + ": mean and std take 1 value for samples of several lengths");
        }
        if (features >= 0 && (mean != null && mean.length != 1 && mean.length != features
                || std != null && std.length != 1 && std.length != features)) {
            throw new IllegalArgumentException(name + ": mean and std take 1 or " + features + " values (one per feature)");
        }
        if (std != null) {
            for (double s : std) {
                if (!(s > 0)) {
                    throw new IllegalArgumentException(name + ": std must be positive, got " + s);
                }
            }
        }
        if (subsample < 0 || subsample > 0 && subsample > sampleShape[0]) {
            throw new IllegalArgumentException(name + ": subsample must be in [1, " + sampleShape[0] + "] points, got " + subsample);
        }
        this.mean = mean;
        this.std = std;
        this.subsample = subsample;
    }

    /// Each row of the table at `path` (`.npy` `[rows, values]`, Parquet or Arrow IPC with
    /// `columns`, HDF5 with `dataset`) a sample of `values` numbers.
    public static PyDataset rows(String path, List<String> columns, String dataset, String dtype, double[] mean, double[] std,
                                 int subsample) throws Exception {
        Path file = PyEncode.existing(path);
        String n = file.getFileName().toString();
        FeatureRows rows;
        if (n.endsWith(".npy")) {
            rows = new NpyRows(NpyFile.open(file), file);
        } else if (n.endsWith(".parquet") || n.endsWith(".pq")) {
            rows = ParquetTable.open(file, columns);
        } else if (n.endsWith(".arrow") || n.endsWith(".feather") || n.endsWith(".arrows")) {
            rows = ArrowRows.open(file, columns);
        } else if (n.endsWith(".h5") || n.endsWith(".hdf5")) {
            rows = Hdf5Rows.open(file, dataset);
        } else {
            throw new IllegalArgumentException(path + ": rows() reads .npy, Parquet (.parquet), Arrow IPC (.arrow, .feather, .arrows) "
                    + "and HDF5 (.h5, .hdf5) tables");
        }
        try {
            return new PyDataset(path, rows, null, false, rows.rows(), new long[] {rows.rowLength()}, dtype, mean, std, subsample);
        } catch (RuntimeException e) {
            rows.close();
            throw e;
        }
    }

    /// Each `.npy` file or Zarr array (a directory) a sample, 1-D or 2-D (points × features). Of one
    /// shape; or, with `subsample`, 2-D of any number of points and one width; or else of several
    /// shapes of one rank ("ragged": the loader hands a batch out as a list of its samples).
    public static PyDataset files(List<String> paths, String dtype, double[] mean, double[] std, int subsample) throws Exception {
        if (paths.isEmpty()) {
            throw new IllegalArgumentException("files() needs at least one .npy file or Zarr array");
        }
        List<StoredArray> files = new java.util.ArrayList<>();
        long[] shape = null;
        long[] stored = null;
        boolean ragged = false;
        for (String p : paths) {
            StoredArray f = StoredArray.open(PyEncode.existing(p));
            long[] s = f.shape();
            if (s.length < 1 || s.length > 2 || (f.dtype() != DType.F32 && f.dtype() != DType.F64)) {
                throw new IllegalArgumentException(p + ": a sample is a 1-D or 2-D float32 or float64 array, got " + f.dtype().label()
                        + java.util.Arrays.toString(s));
            }
            if (shape == null) {
                shape = s;
                stored = s.clone();
            } else if (s.length != shape.length || subsample > 0 && s.length == 2 && s[1] != shape[1]) {
                throw new IllegalArgumentException(p + ": shape " + java.util.Arrays.toString(s) + ", but " + paths.getFirst()
                        + " has " + java.util.Arrays.toString(shape) + (subsample > 0 ? " (a subsample takes points of one width)"
                        : " (samples of several shapes need one rank)"));
            } else if (!java.util.Arrays.equals(s, shape)) {
                ragged = subsample == 0;
                for (int d = 0; d < s.length; d++) {
                    stored[d] = stored[d] == s[d] ? s[d] : subsample > 0 && d == 0 ? Math.min(stored[0], s[0]) : -1;
                }
            }
            files.add(f);
        }
        return new PyDataset(paths.getFirst() + (paths.size() > 1 ? " …" : ""), null, List.copyOf(files), ragged, files.size(),
                stored, dtype, mean, std, subsample);
    }

    /// Whether the samples have several shapes (no subsample to make them one): `shape()` has
    /// -1 on the axes that differ, and the loader collates a batch as a list.
    public boolean ragged() {
        return ragged;
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
            StoredArray f = files.get((int) index);
            Scratch w = SCRATCH.get();
            java.nio.ByteBuffer data = w.buffer(f.bytes());
            f.read(data);
            MemorySegment bytes = MemorySegment.ofBuffer(data.flip());
            return fill(Block.wrap(bytes, f.dtype(), bytes, Block.elementCount(f.shape())), f.shape(), rng, w);
        } catch (Exception e) {
            throw new IllegalArgumentException((table != null ? name + ": row " : files.get((int) index).path() + ": sample ") + index
                    + ": " + e.getMessage(), e);
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
        long[] outShape = shape.clone();
        outShape[0] = rowsOut;
        Block b = take(ragged ? outShape : shape());
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
        if (ragged) {
            long n = Math.max(1, Block.elementCount(shape));
            int k = 64 - Long.numberOfLeadingZeros(n - 1); // 2^k ≥ n
            Block whole = freeBySize.computeIfAbsent(k, x -> new ConcurrentLinkedQueue<>()).poll();
            if (whole == null) {
                synchronized (arena) {
                    whole = arena.allocate(dtype, 1L << k);
                }
            }
            Block view = whole.slice(0, Block.elementCount(shape)).reshape(shape);
            viewed.put(view.segment().address(), whole);
            return view;
        }
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
        if (ragged) {
            return Block.elementCount(files.get((int) index).shape()) * dtype.byteSize();
        }
        return Block.elementCount(shape()) * dtype.byteSize();
    }

    @Override
    public Block consume(Block host, PrepContext ctx) {
        return host; // the CPU device: host memory is device memory; collation copies it
    }

    @Override
    public void releaseHost(Block host) {
        if (ragged) {
            Block whole = viewed.remove(host.segment().address());
            int k = 63 - Long.numberOfLeadingZeros(whole.elementCount());
            freeBySize.get(k).add(whole);
            return;
        }
        free.add(host);
    }

    @Override
    public void close() {
        if (table != null) {
            table.close();
        }
        arena.close();
    }
}
