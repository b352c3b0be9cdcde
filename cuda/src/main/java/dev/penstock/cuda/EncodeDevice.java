package dev.penstock.cuda;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import dev.penstock.memory.StagingPool;
import dev.penstock.observe.Timeline;
import dev.penstock.quantum.DeviceEncodePipeline;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.RowSink;
import dev.penstock.quantum.RowSource;

/// The device `encode --device auto|cpu|cuda[:N]` runs on — locally, or on each task of
/// `encode --runner flink` — : the CPU pipeline, or the device pipeline with the CUDA kernels and
/// pinned host buffers. `auto` takes `cuda:0` when the driver sees a GPU and says why not
/// otherwise.
///
/// Threading: one encode at a time; `close` once, after it.
public final class EncodeDevice implements AutoCloseable {
    private final CpuDevice cpu;
    private final CudaDevice cuda;
    private final java.util.function.Supplier<StagingPool.Backing> pinned; // one backing per pool: a pool frees its own
    private final EncodeKernels kernels;
    private final String note;

    private EncodeDevice(CpuDevice cpu, CudaDevice cuda, String note) {
        this.cpu = cpu;
        this.cuda = cuda;
        this.pinned = cuda == null ? null : cuda::pinned;
        this.kernels = cuda == null ? null : new EncodeKernels(cuda);
        this.note = note;
    }

    /// The device the option names; an `IllegalArgumentException` saying why when it cannot be used.
    public static EncodeDevice open(String option) {
        return open(option, 0);
    }

    /// `option` in lower case if it names a device — `cpu`, `auto`, `cuda` or `cuda:N` — else an
    /// `IllegalArgumentException` naming the option (checked before anything is read).
    public static String checked(String option) {
        String o = option == null ? "" : option.toLowerCase(java.util.Locale.ROOT);
        if (!o.matches("cpu|auto|cuda|cuda:\\d+")) {
            throw new IllegalArgumentException("option '--device': expected auto, cpu or cuda[:N], got '" + option + "'");
        }
        return o;
    }

    /// As `open(option)` for the `task`-th of several tasks sharing a machine (a Flink task):
    /// `cuda` without a number (and `auto` where there is a GPU) takes GPU `task` modulo the GPUs
    /// this machine's driver sees, so each task of a task manager with as many GPUs as slots gets
    /// its own; `cuda:N` names one GPU for every task.
    public static EncodeDevice open(String option, int task) {
        if (task < 0) {
            throw new IllegalArgumentException("task index must be ≥ 0, got " + task);
        }
        String o = checked(option);
        if (o.equals("cpu")) {
            return new EncodeDevice(new CpuDevice(), null, "cpu");
        }
        CudaDriver.Probe p = CudaDriver.probe();
        if (o.equals("auto") && !p.usable()) {
            return new EncodeDevice(new CpuDevice(), null, "auto: cpu (" + p.reason() + ")");
        }
        if (!p.usable()) {
            throw new IllegalArgumentException("option '--device': " + o + " is not available: " + p.reason());
        }
        int ordinal = o.startsWith("cuda:") ? Integer.parseInt(o.substring(5)) : task % Math.max(1, p.devices());
        String why = ordinal < p.devices() ? CudaDevice.unsupported(p, ordinal) : null;
        if (why != null && o.equals("auto")) {
            return new EncodeDevice(new CpuDevice(), null, "auto: cpu (" + why + ")");
        }
        if (why != null) {
            throw new IllegalArgumentException("option '--device': " + why);
        }
        return new EncodeDevice(null, CudaDevice.open(ordinal), o.equals("auto") ? "auto: cuda:" + ordinal
                : o.equals("cuda") && task > 0 ? "cuda:" + ordinal : o);
    }

    /// What was chosen, for the summary.
    public String description() {
        return cuda == null ? note : note + " — " + cuda.name();
    }

    /// Whether the encoding runs on a GPU (whose kernels take f64→c128, f32→c64 and f64→c64).
    public boolean isCuda() {
        return cuda != null;
    }

    /// Encodes `source` into `sink` as `cfg` says on this device, recording on `timeline` (may be
    /// null); the CUDA kernels encode float32 rows into c64 states only (else refused, saying so).
    public EncodeSummary run(RowSource source, RowSink sink, EncodePipeline.Config cfg, Timeline timeline) throws Exception {
        if (cuda == null) {
            return EncodePipeline.run(cpu, source, sink, cfg, timeline);
        }
        if (source.dtype() == DType.F32 && cfg.output() == DType.C128) {
            throw new IllegalArgumentException("option '--precision': the CUDA kernels encode float32 rows into c64 states only; "
                    + "use --precision f32 or float64 input");
        }
        String encoding = cfg.encoding().label();
        int qubits = cfg.qubits();
        return DeviceEncodePipeline.run(cuda, (compute, rows, count, states) -> kernels.encode((CudaStream) compute, encoding, rows,
                (int) rows.shape(1), qubits, states, count), pinned, source, sink, cfg, timeline);
    }

    private CudaStream residentStream; // the stream of encodeResident and Resident.copyTo

    /// States encoded into this GPU's memory and left there (the Python package's
    /// `device="cuda"`, handed on as DLPack): `rows` — native host memory, `[count, width]`
    /// float32 or float64 rows already checked (`Encoding.brokenRule`) — copied to the device and
    /// encoded there into `[count, 2^qubits]` states of `out`; the device's copy of the rows freed.
    /// Returns when the states are complete. Close the result to free them.
    public synchronized Resident encodeResident(Block rows, dev.penstock.quantum.Encoding encoding, int qubits, DType out) {
        if (cuda == null) {
            throw new IllegalStateException("encodeResident needs a CUDA device, this is " + note);
        }
        if (rows.dtype() == DType.F32 && out == DType.C128) {
            throw new IllegalArgumentException("the CUDA kernels encode float32 rows into complex64 states only; use dtype complex64 "
                    + "or float64 rows");
        }
        int count = (int) rows.shape(0);
        int width = (int) rows.shape(1);
        if (residentStream == null) {
            residentStream = (CudaStream) cuda.newStream("resident encode");
        }
        BlockArena states = cuda.newArena("resident states");
        try (BlockArena input = cuda.newArena("resident rows")) {
            Block onDevice = input.allocate(rows.dtype(), Math.max(1, count), width);
            Block result = states.allocate(out, Math.max(1, count), 1L << qubits);
            if (count > 0) {
                residentStream.copy(rows, onDevice.slice(0, count));
                kernels.encode(residentStream, encoding.label(), onDevice, width, qubits, result, count);
            }
            residentStream.synchronize();
            return new Resident(result.segment().address(), count, 1 << qubits, out, cuda.ordinal(), states, this);
        } catch (RuntimeException e) {
            states.close();
            throw e;
        }
    }

    /// States in a GPU's memory: `count` rows of `stateSize` amplitudes of `dtype`, row-major at
    /// device address `address` on GPU `ordinal`; `close` frees them (once; later calls do nothing).
    public static final class Resident implements AutoCloseable {
        private final long address;
        private final long count;
        private final int stateSize;
        private final DType dtype;
        private final int ordinal;
        private final BlockArena memory;
        private final EncodeDevice device;
        private boolean closed;

        Resident(long address, long count, int stateSize, DType dtype, int ordinal, BlockArena memory, EncodeDevice device) {
            this.address = address;
            this.count = count;
            this.stateSize = stateSize;
            this.dtype = dtype;
            this.ordinal = ordinal;
            this.memory = memory;
            this.device = device;
        }

        public long address() {
            return address;
        }

        public long count() {
            return count;
        }

        public int stateSize() {
            return stateSize;
        }

        /// `complex64` or `complex128`.
        public String dtype() {
            return dtype == DType.C64 ? "complex64" : "complex128";
        }

        public int ordinal() {
            return ordinal;
        }

        /// Bytes the states take.
        public long byteSize() {
            return count * stateSize * dtype.byteSize();
        }

        /// Copies the states into native host memory `host` (at least `byteSize()` bytes),
        /// returning when done.
        public void copyTo(long host) {
            synchronized (device) {
                if (closed) {
                    throw new IllegalStateException("the states were freed");
                }
                if (count == 0) {
                    return;
                }
                MemorySegment dst = MemorySegment.ofAddress(host).reinterpret(byteSize());
                Block from = Block.wrap(MemorySegment.ofAddress(address).reinterpret(byteSize()), dtype, memory, count, stateSize);
                device.residentStream.copy(from, Block.wrap(dst, dtype, dst, count, stateSize));
                device.residentStream.synchronize();
            }
        }

        public boolean isClosed() {
            synchronized (device) {
                return closed;
            }
        }

        @Override
        public void close() {
            synchronized (device) {
                if (!closed) {
                    closed = true;
                    memory.close();
                }
            }
        }
    }

    @Override
    public void close() {
        if (cpu != null) {
            cpu.close();
        }
        if (cuda != null) {
            cuda.close();
        }
    }
}
