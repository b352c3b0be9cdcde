package dev.penstock.cuda;

import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.StagingPool;
import dev.penstock.transfer.ChunkSource;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferStats;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/// The `gpu` workload (BENCHMARKS.md), on `cuda:0`, each figure against its baseline in the
/// same run:
///
/// - host→device copy peak: one 256 MiB copy from pinned memory (best of 3); the same from
///   pageable (plain native) memory;
/// - the `TransferEngine` (pinned staging, 8 MiB chunks, 4 slots, 1 GiB, the read-every-byte
///   kernel): GB/s and `ratio_transfer_vs_peak` (target ≥ 0.8); the same from input registered
///   with `CudaDevice.pin` and copied where it lies (`ChunkSource.direct`, no staging copy);
/// - 16-qubit amplitude encoding end to end from host memory (rows through the engine, the
///   kernel on each chunk, states left on the device): vectors/s (target ≥ 80,000), from
///   pageable rows through pinned staging and from registered rows directly, each also as a
///   ratio to what the measured pinned copy peak allows (`encode16_copy_bound_vectors_per_s`);
/// - the kernel alone on device-resident rows: vectors/s (PyTorch's figure for the same work
///   comes from `benchmarks/peers/encode_torch_gpu.py`, run by `scripts/gpu-check.sh`).
///
/// Prints `name: value` lines last. Run: `./penstock bench gpu` (or `scripts/gpu-check.sh`).
public final class GpuBench {
    private static final long MIB = 1 << 20;
    private static final int QUBITS = 16;
    private static final long STATE = 1L << QUBITS;

    private final PrintStream out;

    /// A benchmark printing to `out`.
    public GpuBench(PrintStream out) {
        this.out = out;
    }

    /// Runs every figure; fails with the probe's reason when no GPU is usable.
    public Map<String, String> run() throws Exception {
        Map<String, String> f = new LinkedHashMap<>();
        try (CudaDevice device = CudaDevice.open(0)) {
            f.put("device", device.name());
            double pinned = copyPeak(device, true);
            double pageable = copyPeak(device, false);
            f.put("h2d_pinned_gbps", fmt(pinned));
            f.put("h2d_pageable_gbps", fmt(pageable));
            EncodeKernels kernels = new EncodeKernels(device);
            double transfer = transfer(device, kernels, false);
            f.put("transfer_gbps", fmt(transfer));
            f.put("ratio_transfer_vs_peak", fmt(transfer / pinned));
            double direct = transfer(device, kernels, true);
            f.put("transfer_direct_gbps", fmt(direct));
            f.put("ratio_transfer_direct_vs_peak", fmt(direct / pinned));
            // the bus bounds an end-to-end encoding: rows of 2^16 float64 cannot arrive faster than this
            double bound = pinned * 1e9 / (STATE * 8);
            f.put("encode16_copy_bound_vectors_per_s", String.format(Locale.ROOT, "%.0f", bound));
            double staged = encodeEndToEnd(device, kernels, false);
            f.put("encode16_end_to_end_vectors_per_s", String.format(Locale.ROOT, "%.0f", staged));
            f.put("ratio_encode16_end_to_end_vs_copy_bound", fmt(staged / bound));
            double registered = encodeEndToEnd(device, kernels, true);
            f.put("encode16_end_to_end_registered_vectors_per_s", String.format(Locale.ROOT, "%.0f", registered));
            f.put("ratio_encode16_end_to_end_registered_vs_copy_bound", fmt(registered / bound));
            f.put("encode16_kernel_vectors_per_s", String.format(Locale.ROOT, "%.0f", encodeKernelOnly(device, kernels)));
        }
        out.println("(PyTorch's kernel-only figure: /usr/bin/python3 benchmarks/peers/encode_torch_gpu.py)");
        return f;
    }

    private static String fmt(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }

    /// GB/s of one 256 MiB host→device copy, best of 3.
    private double copyPeak(CudaDevice device, boolean pinnedSource) {
        long bytes = 256 * MIB;
        try (BlockArena dev = device.newArena("peak"); Arena host = Arena.ofShared(); PinnedBacking pinned = device.pinned()) {
            MemorySegment src = pinnedSource ? pinned.allocate(bytes, 4096) : host.allocate(bytes, 4096);
            src.fill((byte) 1);
            Block from = Block.wrap(src, DType.U8, null, bytes);
            Block to = dev.allocate(DType.U8, bytes);
            CudaStream s = (CudaStream) device.newStream("peak");
            double best = 0;
            for (int i = 0; i < 3; i++) {
                long t0 = System.nanoTime();
                s.copy(from, to);
                s.synchronize();
                best = Math.max(best, bytes / ((System.nanoTime() - t0) / 1e9) / 1e9);
            }
            out.printf(Locale.ROOT, "host->device 256 MiB from %s memory: %.2f GB/s%n", pinnedSource ? "pinned" : "pageable", best);
            return best;
        }
    }

    /// GB/s of 1 GiB through the engine with the read-every-byte kernel, from pageable input
    /// through pinned staging, or from registered input directly.
    private double transfer(CudaDevice device, EncodeKernels kernels, boolean registered) throws Exception {
        long total = 1024 * MIB;
        long chunk = 8 * MIB;
        try (Arena host = Arena.ofShared(); BlockArena dev = device.newArena("sum");
             StagingPool pool = StagingPool.withBacking("pinned staging", 4, chunk, device.pinned());
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 4), pool)) {
            MemorySegment in = host.allocate(total, 4096);
            in.fill((byte) 3);
            Block sum = dev.allocate(DType.I64, 1);
            TransferStats st;
            try (AutoCloseable pin = registered ? device.pin(in) : null) {
                st = engine.run(total, registered ? ChunkSource.direct(in) : ChunkSource.of(in),
                        (TransferEngine.DeviceKernel) (compute, k, data) -> kernels.readAll((CudaStream) compute, data, sum));
            }
            double gbps = total / (st.wallNs() / 1e9) / 1e9;
            out.printf(Locale.ROOT, "TransferEngine, 1 GiB, 8 MiB chunks, %s, read kernel: %.2f GB/s (copies %.0f ms, kernels %.0f ms, "
                    + "wall %.0f ms)%n", registered ? "registered input copied directly" : "pinned staging", gbps, st.copyNs() / 1e6,
                    st.kernelNs() / 1e6, st.wallNs() / 1e6);
            return gbps;
        }
    }

    /// 16-qubit amplitude states per second from host rows (f64 [rows, 65536]) to device states:
    /// pageable rows through pinned staging, or registered rows copied directly.
    private double encodeEndToEnd(CudaDevice device, EncodeKernels kernels, boolean registered) throws Exception {
        int rowsPerChunk = 32;
        long rowBytes = STATE * 8;
        long chunk = rowsPerChunk * rowBytes;
        int rows = 4096;
        long total = rows * rowBytes;
        try (Arena host = Arena.ofShared(); BlockArena dev = device.newArena("states");
             StagingPool pool = StagingPool.withBacking("pinned staging", 4, chunk, device.pinned());
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 4), pool)) {
            MemorySegment in = host.allocate(total, 4096);
            for (long i = 0; i < total / 8; i++) {
                in.setAtIndex(ValueLayout.JAVA_DOUBLE, i, Math.sin(i * 1e-3) + 2);
            }
            Block states = dev.allocate(DType.C128, rowsPerChunk, STATE);
            TransferStats st;
            try (AutoCloseable pin = registered ? device.pin(in) : null) {
                st = engine.run(total, registered ? ChunkSource.direct(in) : ChunkSource.of(in),
                        (TransferEngine.DeviceKernel) (compute, k, data) -> {
                            long r = data.byteSize() / rowBytes;
                            Block rowsBlock = Block.wrap(data.segment(), DType.F64, null, r, STATE);
                            kernels.encode((CudaStream) compute, "amplitude", rowsBlock, (int) STATE, QUBITS, states, (int) r);
                        });
            }
            double v = rows / (st.wallNs() / 1e9);
            out.printf(Locale.ROOT, "amplitude, 16 qubits, end to end from %s host memory: %.0f vectors/s (host reads %.0f ms, copies "
                    + "%.0f ms, kernels %.0f ms, wall %.0f ms)%n", registered ? "registered" : "pageable", v, st.readNs() / 1e6,
                    st.copyNs() / 1e6, st.kernelNs() / 1e6, st.wallNs() / 1e6);
            return v;
        }
    }

    /// 16-qubit amplitude states per second with the rows already on the device.
    private double encodeKernelOnly(CudaDevice device, EncodeKernels kernels) {
        int rows = 256;
        try (BlockArena dev = device.newArena("kernel only"); Arena host = Arena.ofShared()) {
            Block in = dev.allocate(DType.F64, rows, STATE);
            Block outStates = dev.allocate(DType.C128, rows, STATE);
            MemorySegment h = host.allocate(rows * STATE * 8, 4096);
            h.fill((byte) 0x3f);
            CudaStream s = (CudaStream) device.newStream("kernel only");
            s.copy(Block.wrap(h, DType.F64, null, rows, STATE), in);
            kernels.encode(s, "amplitude", in, (int) STATE, QUBITS, outStates, rows);
            s.synchronize(); // warm-up (and JIT of the PTX)
            int reps = 20;
            long t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                kernels.encode(s, "amplitude", in, (int) STATE, QUBITS, outStates, rows);
            }
            s.synchronize();
            double v = (double) rows * reps / ((System.nanoTime() - t0) / 1e9);
            out.printf(Locale.ROOT, "amplitude, 16 qubits, kernel only: %.0f vectors/s%n", v);
            return v;
        }
    }

    /// Runs the benchmark and prints its figures (for the GPU machine's bundle).
    public static void main(String[] args) throws Exception {
        CudaDriver.Probe p = CudaDriver.probe();
        if (!p.usable()) {
            System.out.println("gpu_bench: not run: " + p.reason());
            System.exit(2);
        }
        new GpuBench(System.out).run().forEach((k, v) -> System.out.println(k + ": " + v));
    }
}
