package dev.penstock.python;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeResult;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.RowSources;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/// What the Python package's `penstock.encode` calls: rows from a NumPy array (its memory, read in
/// place) or a file, through the same `EncodePipeline` as `penstock encode` (so the same states,
/// bit for bit), into memory Python then views without a copy.
///
/// The states live in an automatic arena: they are freed when Python drops the last array over
/// them (the `ByteBuffer` handed out keeps the memory alive).
public final class PyEncode {
    private PyEncode() {
    }

    /// One encode's result.
    ///
    /// @param states    `[written, stateSize]` complex states, row-major, native byte order
    /// @param written   states written (the rows kept)
    /// @param stateSize amplitudes a state
    /// @param keptRows  the input row of each state (int64, native order), ascending
    /// @param skipped   rows left out under skip, each "row N: rule"
    public record Result(ByteBuffer states, long written, int stateSize, ByteBuffer keptRows, List<String> skipped) {
    }

    /// A pipeline run to make: its rows, what to close after, and its settings.
    record Job(RowSource source, AutoCloseable input, EncodePipeline.Config config) implements AutoCloseable {
        int stateSize() {
            return 1 << config.qubits();
        }

        @Override
        public void close() throws Exception {
            input.close();
        }
    }

    /// Encodes the row-major `[count, width]` table of `dtype` (`float32` or `float64`) values at
    /// native address `address` (a NumPy array's data, read in place: read-only arrays and memory
    /// maps too) into the `[count, 2^qubits]` states at `out` (a NumPy array's data, written in
    /// place: no copy either way), the rows split over every core, each row by `Encoder` as
    /// `penstock encode` encodes it (the same bits). Kept rows are written in order from state 0;
    /// the input row of each goes to `kept` (int64). Returns the states written. The caller keeps
    /// the three arrays alive and does not touch them during the call.
    ///
    /// @throws EncodingException the first bad row, under `fail`
    public static long array(long address, long count, int width, String dtype, String encoding, int qubits, String states,
                             String onBadRow, long out, long kept) throws Exception {
        Block in = rows(address, count, width, dtype);
        Job job = job(RowSources.of(in), () -> { }, encoding, qubits, states, onBadRow, 1024, 1);
        EncodePipeline.Config c = job.config();
        long rowBytes = (long) job.stateSize() * c.output().byteSize();
        MemorySegment target = MemorySegment.ofAddress(out).reinterpret(count * rowBytes);
        MemorySegment rows = MemorySegment.ofAddress(kept).reinterpret(count * 8);
        int parts = (int) Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), count / MIN_ROWS_A_PART));
        long[] written = new long[parts];
        List<List<EncodingException>> skipped = new ArrayList<>();
        List<Future<?>> done = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            long from = count * p / parts;
            long to = count * (p + 1) / parts;
            int part = p;
            skipped.add(List.of());
            Callable<Void> work = () -> {
                Encoder encoder = Encoder.of(c.encoding(), c.qubits());
                Block into = Block.wrap(target.asSlice(from * rowBytes, (to - from) * rowBytes), c.output(), target, to - from,
                        job.stateSize());
                EncodeResult r = encoder.encodeBatch(in.slice(from, to), into, from, c.policy());
                written[part] = r.rowsWritten();
                skipped.set(part, r.skipped());
                return null;
            };
            if (p < parts - 1) {
                done.add(POOL.submit(work));
            } else { // the last part on the calling thread
                CompletableFuture<Void> here = new CompletableFuture<>();
                try {
                    here.complete(work.call());
                } catch (Exception | Error e) {
                    here.completeExceptionally(e);
                }
                done.add(here);
            }
        }
        EncodingException first = null;
        for (Future<?> f : done) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof EncodingException bad) {
                    first = first == null || bad.row() < first.row() ? bad : first; // the first in input order
                } else {
                    throw e.getCause() instanceof Exception x ? x : new IllegalStateException(e.getCause());
                }
            }
        }
        if (first != null) {
            throw first;
        }
        // each part's kept states from its own first row: closed up in order (copy is memmove-safe)
        long at = 0;
        long k = 0;
        for (int p = 0; p < parts; p++) {
            long from = count * p / parts;
            long to = count * (p + 1) / parts;
            if (at != from && written[p] > 0) {
                MemorySegment.copy(target, from * rowBytes, target, at * rowBytes, written[p] * rowBytes);
            }
            at += written[p];
            int s = 0;
            List<EncodingException> bad = skipped.get(p);
            for (long r = from; r < to; r++) {
                if (s < bad.size() && bad.get(s).row() == r) {
                    s++;
                } else {
                    rows.setAtIndex(ValueLayout.JAVA_LONG, k++, r);
                }
            }
        }
        return at;
    }

    /// The GPUs `onDevice` has opened, by option (`cuda`, `cuda:N`): one context each for the
    /// process's life.
    private static final java.util.Map<String, dev.penstock.cuda.EncodeDevice> DEVICES = new java.util.concurrent.ConcurrentHashMap<>();

    /// As `array`, with the states encoded on GPU `device` (`cuda` or `cuda:N`) and left in its
    /// memory: the rows are checked here (each encoding's rules, as every path checks them) and
    /// the good ones copied to the GPU and encoded there. The input row of each state goes to
    /// `kept` (int64, `count` of room). Close the result to free the states.
    ///
    /// @throws EncodingException the first bad row, under `fail`
    public static dev.penstock.cuda.EncodeDevice.Resident onDevice(long address, long count, int width, String dtype, String encoding,
                                                                    int qubits, String states, String onBadRow, String device,
                                                                    long kept) throws Exception {
        Block in = rows(address, count, width, dtype);
        Job job = job(RowSources.of(in), () -> { }, encoding, qubits, states, onBadRow, 1024, 1);
        EncodePipeline.Config c = job.config();
        String option = dev.penstock.cuda.EncodeDevice.checked(device);
        if (!option.startsWith("cuda")) {
            throw new IllegalArgumentException("device must be 'cpu', 'cuda' or 'cuda:N', got '" + device + "'");
        }
        MemorySegment keptRows = MemorySegment.ofAddress(kept).reinterpret(count * 8);
        double[] row = new double[width];
        long good = 0;
        for (long r = 0; r < count; r++) {
            for (int i = 0; i < width; i++) {
                row[i] = in.dtype() == DType.F32 ? in.getFloat(r * width + i) : in.getDouble(r * width + i);
            }
            String broken = c.encoding().brokenRule(c.qubits(), row, width);
            if (broken != null) {
                if (c.policy() == dev.penstock.quantum.BadRowPolicy.FAIL) {
                    throw new EncodingException(r, broken);
                }
                continue;
            }
            keptRows.setAtIndex(ValueLayout.JAVA_LONG, good++, r);
        }
        dev.penstock.cuda.EncodeDevice gpu = DEVICES.computeIfAbsent(option, dev.penstock.cuda.EncodeDevice::open);
        if (good == count) {
            return gpu.encodeResident(in, c.encoding(), c.qubits(), c.output());
        }
        try (Arena compact = Arena.ofConfined()) { // the good rows together: the device reads them in one copy
            long rowBytes = (long) width * in.dtype().byteSize();
            MemorySegment rows = compact.allocate(Math.max(1, good * rowBytes), 8);
            for (long k = 0; k < good; k++) {
                MemorySegment.copy(in.segment(), keptRows.getAtIndex(ValueLayout.JAVA_LONG, k) * rowBytes, rows, k * rowBytes, rowBytes);
            }
            return gpu.encodeResident(Block.wrap(rows, in.dtype(), rows, good, width), c.encoding(), c.qubits(), c.output());
        }
    }

    /// The fewest rows worth a part of their own (a hand-off to a pool thread costs microseconds).
    private static final long MIN_ROWS_A_PART = 64;
    /// Daemon threads for `array`'s parts (never keeping the interpreter from exiting).
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "penstock-encode-part");
        t.setDaemon(true);
        return t;
    });

    /// Encodes the rows of `path` (`.npy`, Parquet, Arrow IPC, HDF5) as `penstock encode` reads them:
    /// `columns` for tables (empty: the default choice), `dataset` for HDF5 (null: the only one).
    public static Result file(String path, List<String> columns, String dataset, String encoding, int qubits, String states,
                              String onBadRow, int rowsPerChunk, int ioThreads) throws Exception {
        EncodeInputs.Opened opened = EncodeInputs.open(existing(path), columns, dataset, "skip".equals(onBadRow));
        try (Job job = job(opened.source(), opened, encoding, qubits, states, onBadRow, rowsPerChunk, ioThreads)) {
            return run(job);
        }
    }

    /// `path`, which must exist.
    static Path existing(String path) throws NoSuchFileException {
        Path file = Path.of(path);
        if (!Files.exists(file)) {
            throw new NoSuchFileException(path, null, "no such file");
        }
        return file;
    }

    /// The `[count, width]` table at `address`, as a block (no copy).
    static Block rows(long address, long count, int width, String dtype) {
        DType in = switch (dtype) {
            case "float32" -> DType.F32;
            case "float64" -> DType.F64;
            default -> throw new IllegalArgumentException("x must be float32 or float64, got " + dtype);
        };
        if (count < 1 || width < 1) {
            throw new IllegalArgumentException("x must be 2-D with at least one row and one column, got (" + count + ", " + width + ")");
        }
        MemorySegment rows = MemorySegment.ofAddress(address).reinterpret(count * width * in.byteSize());
        return Block.wrap(rows, in, rows, count, width);
    }

    /// The run of `source` with these options, checked as `penstock encode` checks them (a row
    /// width the encoding can never take is refused before any row is read).
    static Job job(RowSource source, AutoCloseable input, String encoding, int qubits, String states, String onBadRow, int rowsPerChunk,
                   int ioThreads) {
        Encoding enc = Encoding.parse(encoding);
        DType out = switch (states) {
            case "complex64" -> DType.C64;
            case "complex128" -> DType.C128;
            default -> throw new IllegalArgumentException("dtype must be complex64 or complex128, got " + states);
        };
        BadRowPolicy policy = switch (onBadRow) {
            case "fail" -> BadRowPolicy.FAIL;
            case "skip" -> BadRowPolicy.SKIP;
            default -> throw new IllegalArgumentException("on_bad_row must be 'fail' or 'skip', got '" + onBadRow + "'");
        };
        long need = enc.inputLength(qubits);
        boolean exact = enc != Encoding.AMPLITUDE;
        if (source.rows() > 0 && (exact ? source.rowLength() != need : source.rowLength() > need)) {
            throw new IllegalArgumentException("the rows have " + source.rowLength() + " values, and " + enc.label() + " on " + qubits
                    + " qubits takes " + (exact ? "exactly " : "at most ") + need);
        }
        return new Job(source, input, new EncodePipeline.Config(enc, qubits, out, rowsPerChunk, 3, ioThreads, policy));
    }

    private static Result run(Job job) throws Exception {
        RowSource source = job.source();
        long rowBytes = (long) job.stateSize() * job.config().output().byteSize();
        MemorySegment target = Arena.ofAuto().allocate(Math.max(1, source.rows() * rowBytes), 64);
        long[] at = {0};
        EncodeSummary summary;
        try (CpuDevice device = new CpuDevice()) {
            summary = EncodePipeline.run(device, source, block -> {
                MemorySegment.copy(block.segment(), 0, target, at[0], block.byteSize());
                at[0] += block.byteSize();
            }, job.config());
        }
        long written = summary.rowsWritten();
        MemorySegment kept = Arena.ofAuto().allocate(Math.max(8, written * 8), 8);
        List<EncodingException> skipped = summary.skipped();
        long k = 0;
        int s = 0;
        for (long r = 0; r < summary.rowsRead(); r++) {
            if (s < skipped.size() && skipped.get(s).row() == r) {
                s++;
            } else {
                kept.setAtIndex(ValueLayout.JAVA_LONG, k++, r);
            }
        }
        return new Result(view(target, written * rowBytes), written, job.stateSize(), view(kept, written * 8),
                skipped.stream().map(EncodingException::getMessage).toList());
    }

    private static ByteBuffer view(MemorySegment segment, long bytes) {
        return segment.asSlice(0, bytes).asByteBuffer().order(ByteOrder.nativeOrder());
    }
}
