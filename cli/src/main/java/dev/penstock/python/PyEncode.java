package dev.penstock.python;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
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
import java.util.List;

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
    /// maps too). The caller keeps that memory alive and unchanged during the call.
    public static Result array(long address, long count, int width, String dtype, String encoding, int qubits, String states,
                               String onBadRow, int rowsPerChunk, int ioThreads) throws Exception {
        try (Job job = job(RowSources.of(rows(address, count, width, dtype)), () -> { }, encoding, qubits, states, onBadRow, rowsPerChunk,
                ioThreads)) {
            return run(job);
        }
    }

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
