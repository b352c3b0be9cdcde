package dev.penstock.cli;

import dev.penstock.cuda.CudaDevice;
import dev.penstock.cuda.CudaDriver;
import dev.penstock.cuda.CudaStream;
import dev.penstock.cuda.EncodeKernels;
import dev.penstock.cuda.PinnedBacking;
import dev.penstock.device.CpuDevice;
import dev.penstock.memory.DType;
import dev.penstock.observe.Timeline;
import dev.penstock.quantum.DeviceEncodePipeline;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.RowSink;
import dev.penstock.quantum.RowSource;

/// The device `encode --device auto|cpu|cuda[:N]` runs on: the CPU pipeline, or the device
/// pipeline with the CUDA kernels and pinned host buffers. `auto` takes `cuda:0` when the driver
/// sees a GPU and says why not otherwise.
final class EncodeDevice implements AutoCloseable {
    private final CpuDevice cpu;
    private final CudaDevice cuda;
    private final PinnedBacking pinned;
    private final EncodeKernels kernels;
    private final String note;

    private EncodeDevice(CpuDevice cpu, CudaDevice cuda, String note) {
        this.cpu = cpu;
        this.cuda = cuda;
        this.pinned = cuda == null ? null : cuda.pinned();
        this.kernels = cuda == null ? null : new EncodeKernels(cuda);
        this.note = note;
    }

    /// The device the option names; an `IllegalArgumentException` saying why when it cannot be used.
    static EncodeDevice open(String option) {
        String o = option.toLowerCase(java.util.Locale.ROOT);
        if (o.equals("cpu")) {
            return new EncodeDevice(new CpuDevice(), null, "cpu");
        }
        CudaDriver.Probe p = CudaDriver.probe();
        if (o.equals("auto")) {
            return p.usable() ? new EncodeDevice(null, CudaDevice.open(0), "auto: cuda:0")
                    : new EncodeDevice(new CpuDevice(), null, "auto: cpu (" + p.reason() + ")");
        }
        if (o.equals("cuda") || o.matches("cuda:\\d+")) {
            int ordinal = o.equals("cuda") ? 0 : Integer.parseInt(o.substring(5));
            if (!p.usable()) {
                throw new IllegalArgumentException("option '--device': " + o + " is not available: " + p.reason());
            }
            return new EncodeDevice(null, CudaDevice.open(ordinal), o);
        }
        throw new IllegalArgumentException("option '--device': expected auto, cpu or cuda[:N], got '" + option + "'");
    }

    /// What was chosen, for the summary.
    String description() {
        return cuda == null ? note : note + " — " + cuda.name();
    }

    /// Whether the encoding runs on a GPU (whose kernels take f64→c128, f32→c64 and f64→c64).
    boolean isCuda() {
        return cuda != null;
    }

    EncodeSummary run(RowSource source, RowSink sink, EncodePipeline.Config cfg, Timeline timeline) throws Exception {
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

    @Override
    public void close() {
        if (cpu != null) {
            cpu.close();
        }
        if (cuda != null) {
            pinned.close();
            cuda.close();
        }
    }
}
