package dev.penstock.quantum;

import dev.penstock.device.VectorSupport;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/// Encodes classical rows into quantum state vectors: float32 rows into complex64 states,
/// float64 rows into complex128 (or either into either), one row or a batch at a time.
///
/// An encoder holds its scratch buffers: one per thread. The `simd` choice picks
/// `VectorKernels` or the reference `ScalarKernels`; both compute the same states to rounding
/// (tested against each other to 1e-13 and against independent formulas). A JVM without the
/// Vector API (`VectorSupport`) always gets the scalar kernels, said once in the log.
public final class Encoder {
    /// The largest qubit count (the original's limit): 2^30 amplitudes per state.
    public static final int MAX_QUBITS = 30;

    private final Encoding encoding;
    private final int qubits;
    private final int size;
    private final Kernels kernels;
    private final boolean simd;
    private double[] x = new double[0];
    private float[] xf = new float[0];
    private final double[] re;
    private final double[] im;
    private final double[] stats = new double[2];
    private final double[] nextStats = new double[2];
    private long statsReadyFor = -1; // row whose stats the previous write computed

    private Encoder(Encoding encoding, int qubits, boolean simd) {
        if (qubits < 1 || qubits > MAX_QUBITS) {
            throw new IllegalArgumentException("qubits must be in [1, " + MAX_QUBITS + "], got " + qubits);
        }
        if (encoding == Encoding.IQP && encoding.inputLength(qubits) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("iqp encoding of " + qubits + " qubits needs too many parameters");
        }
        this.encoding = encoding;
        this.qubits = qubits;
        this.size = 1 << qubits;
        this.simd = simd && VectorSupport.orFallBack("the encoder");
        this.kernels = this.simd ? VectorKernels.INSTANCE : ScalarKernels.INSTANCE;
        this.re = new double[size];
        this.im = new double[size];
    }

    /// An encoder of `encoding` on `qubits` qubits, SIMD path (the scalar one without the Vector API).
    public static Encoder of(Encoding encoding, int qubits) {
        return new Encoder(encoding, qubits, true);
    }

    /// An encoder on the SIMD path (`simd`) or the scalar reference path.
    public static Encoder of(Encoding encoding, int qubits, boolean simd) {
        return new Encoder(encoding, qubits, simd);
    }

    /// The encoding.
    public Encoding encoding() {
        return encoding;
    }

    /// Number of qubits n.
    public int qubits() {
        return qubits;
    }

    /// Amplitudes per state, N = 2^n.
    public int stateSize() {
        return size;
    }

    /// Encodes `row[0 … len)` into row `outRow` of `out` (`[rows, N]`, c64 or c128).
    ///
    /// @throws EncodingException naming `globalRow` and the rule, if the row is bad
    public void encode(double[] row, int len, Block out, long outRow, long globalRow) {
        String broken = Rules.check(encoding, qubits, row, len);
        if (broken != null) {
            throw new EncodingException(globalRow, broken);
        }
        compute(row, len);
        write(out, outRow);
    }

    /// Encodes every row of `in` (`[rows, L]`, f32 or f64) into `out` (`[rows, N]`, c64 or c128).
    /// Good rows are written in order from output row 0; under `SKIP` bad rows are listed and
    /// left out, under `FAIL` the first bad row throws (rows before it are written).
    public EncodeResult encodeBatch(Block in, Block out, long firstGlobalRow, BadRowPolicy policy) {
        checkShapes(in, out);
        long rows = in.shape(0);
        int len = (int) in.shape(1);
        ensureScratch(len);
        List<EncodingException> skipped = new ArrayList<>();
        long written = 0;
        boolean fastAmplitude = encoding == Encoding.AMPLITUDE && simd && len >= 1 && len <= size;
        statsReadyFor = -1;
        for (long r = 0; r < rows; r++) {
            if (fastAmplitude && amplitudeFastPath(in, r, rows, len, out, written)) {
                written++;
                continue;
            }
            statsReadyFor = -1;
            readRow(in, r, len);
            String broken = Rules.check(encoding, qubits, x, len);
            if (broken != null) {
                EncodingException e = new EncodingException(firstGlobalRow + r, broken);
                if (policy == BadRowPolicy.FAIL) {
                    throw e;
                }
                skipped.add(e);
                continue;
            }
            compute(x, len);
            write(out, written++);
        }
        return new EncodeResult(rows, written, List.copyOf(skipped));
    }

    /// Encodes each row of `rows` into a complex128 state, failing on the first bad row
    /// (`EncodingException` naming it and the rule). The rows must all have the same length.
    public States encode(double[][] rows) {
        return encode(rows, BadRowPolicy.FAIL);
    }

    /// Encodes each row of `rows` into a complex128 state; under `SKIP` bad rows are left out
    /// (`States.skipped()`, `States.keptRows()`). The rows must all have the same length.
    public States encode(double[][] rows, BadRowPolicy policy) {
        int width = width(rows.length, i -> rows[i].length);
        return encodeCopy(DType.F64, rows.length, width, policy, in -> {
            for (int r = 0; r < rows.length; r++) {
                MemorySegment.copy(rows[r], 0, in.segment(), ValueLayout.JAVA_DOUBLE, (long) r * width * 8, width);
            }
        });
    }

    /// Encodes each row of `rows` into a complex64 state, as `encode(double[][], BadRowPolicy)`.
    public States encode(float[][] rows, BadRowPolicy policy) {
        int width = width(rows.length, i -> rows[i].length);
        return encodeCopy(DType.F32, rows.length, width, policy, in -> {
            for (int r = 0; r < rows.length; r++) {
                MemorySegment.copy(rows[r], 0, in.segment(), ValueLayout.JAVA_FLOAT, (long) r * width * 4, width);
            }
        });
    }

    /// Encodes the row-major `[rows, width]` table in `rows` (float32 or float64 values in native
    /// byte order, `dtype` F32 or F64) into complex64 or complex128 states. A native segment is
    /// read in place; a heap one is copied first.
    public States encode(MemorySegment rows, DType dtype, int width, BadRowPolicy policy) {
        if (dtype != DType.F32 && dtype != DType.F64) {
            throw new IllegalArgumentException("dtype must be F32 or F64, got " + dtype);
        }
        long rowBytes = (long) width * dtype.byteSize();
        if (width < 1 || rows.byteSize() % rowBytes != 0) {
            throw new IllegalArgumentException("width " + width + " does not divide a segment of " + rows.byteSize() + " bytes into "
                    + dtype + " rows");
        }
        long count = rows.byteSize() / rowBytes;
        if (rows.isNative()) {
            return encodeInto(Block.wrap(rows, dtype, rows, count, width), policy);
        }
        return encodeCopy(dtype, count, width, policy, in -> MemorySegment.copy(rows, 0, in.segment(), 0, rows.byteSize()));
    }

    private static int width(int count, java.util.function.IntUnaryOperator length) {
        if (count == 0) {
            throw new IllegalArgumentException("rows is empty");
        }
        int width = length.applyAsInt(0);
        for (int r = 1; r < count; r++) {
            if (length.applyAsInt(r) != width) {
                throw new IllegalArgumentException("rows[" + r + "] has " + length.applyAsInt(r) + " values, rows[0] has " + width
                        + " (the rows must all have the same length)");
            }
        }
        return width;
    }

    private States encodeCopy(DType dtype, long count, int width, BadRowPolicy policy, java.util.function.Consumer<Block> fill) {
        try (HostArena staging = Memory.newConfinedArena("encode input")) {
            Block in = staging.allocate(dtype, count, width);
            fill.accept(in);
            return encodeInto(in, policy);
        }
    }

    private States encodeInto(Block in, BadRowPolicy policy) {
        HostArena arena = Memory.newSharedArena("states");
        try {
            Block out = arena.allocate(in.dtype() == DType.F32 ? DType.C64 : DType.C128, in.shape(0), size);
            return new States(arena, out, encodeBatch(in, out, 0, policy));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /// Encodes row `r` straight from the input segment into output row `outRow` (two passes,
    /// no scratch arrays). Returns false for a row the general path must look at (a bad row,
    /// whose rule that path names).
    private boolean amplitudeFastPath(Block in, long r, long rows, int len, Block out, long outRow) {
        boolean f32 = in.dtype() == DType.F32;
        long rowBytesIn = len * (long) in.dtype().byteSize();
        long offset = r * rowBytesIn;
        if (statsReadyFor != r) {
            AmplitudeFastPath.amplitudeStats(in.segment(), offset, len, f32, stats);
        } else {
            stats[0] = nextStats[0];
            stats[1] = nextStats[1];
        }
        statsReadyFor = -1;
        double max = stats[0];
        if (!Double.isFinite(max) || max < Double.MIN_NORMAL) {
            return false; // bad rows, and subnormal rows (1 / max overflows): the general path divides by max
        }
        double a;
        double b;
        if (max > 1e-150 && max < 1e150) {
            a = 1;
            b = 1 / Math.sqrt(stats[1]); // no overflow or underflow possible in Σ x²
        } else {
            a = 1 / max;
            b = 1 / Math.sqrt(AmplitudeFastPath.amplitudeScaledSum(in.segment(), offset, len, f32, a));
        }
        long rowBytes = (long) size * out.dtype().byteSize();
        if (r + 1 < rows) {
            AmplitudeFastPath.amplitudeWriteThenStats(in.segment(), offset, len, f32, a, b, size, out.segment(), outRow * rowBytes,
                    out.dtype() == DType.C64, offset + rowBytesIn, nextStats);
            statsReadyFor = r + 1;
        } else {
            AmplitudeFastPath.amplitudeWrite(in.segment(), offset, len, f32, a, b, size, out.segment(), outRow * rowBytes,
                    out.dtype() == DType.C64);
        }
        return true;
    }

    private void checkShapes(Block in, Block out) {
        if (in.rank() != 2 || (in.dtype() != DType.F32 && in.dtype() != DType.F64) || !in.isContiguous()) {
            throw new IllegalArgumentException("input must be a contiguous [rows, values] f32 or f64 block, got " + in);
        }
        if (out.rank() != 2 || out.shape(1) != size || (out.dtype() != DType.C64 && out.dtype() != DType.C128)
                || !out.isContiguous() || out.shape(0) < in.shape(0)) {
            throw new IllegalArgumentException("output must be a contiguous [" + in.shape(0) + "+, " + size
                    + "] c64 or c128 block, got " + out);
        }
    }

    private void ensureScratch(int len) {
        if (x.length < len) {
            x = new double[len];
            xf = new float[len];
        }
    }

    private void readRow(Block in, long r, int len) {
        MemorySegment s = in.segment();
        if (in.dtype() == DType.F64) {
            MemorySegment.copy(s, ValueLayout.JAVA_DOUBLE, r * len * 8L, x, 0, len);
        } else {
            MemorySegment.copy(s, ValueLayout.JAVA_FLOAT, r * len * 4L, xf, 0, len);
            for (int i = 0; i < len; i++) {
                x[i] = xf[i];
            }
        }
    }

    private void compute(double[] row, int len) {
        switch (encoding) {
            case AMPLITUDE -> kernels.amplitude(row, len, size, re, im);
            case ANGLE -> kernels.angle(row, qubits, re, im);
            case BASIS -> kernels.basis((long) row[0], size, re, im);
            case PHASE -> kernels.phase(row, qubits, re, im);
            case IQP -> kernels.iqp(row, qubits, true, re, im);
            case IQP_Z -> kernels.iqp(row, qubits, false, re, im);
        }
    }

    private void write(Block out, long outRow) {
        boolean single = out.dtype() == DType.C64;
        long rowBytes = (long) size * out.dtype().byteSize();
        kernels.write(re, im, size, out.segment(), outRow * rowBytes, single);
    }
}
