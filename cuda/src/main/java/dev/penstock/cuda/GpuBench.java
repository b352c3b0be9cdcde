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

/// The `gpu` workload (docs/workloads.md), on `cuda:0`, each figure against its baseline in the
/// same run:
///
/// - host→device copy peak: one 256 MiB copy from pinned memory (best of 3); the same from
///   pageable (plain native) memory;
/// - the `TransferEngine` (8 MiB chunks, 4 slots, 1 GiB, the read-every-byte kernel) from three
///   inputs: pageable memory through pinned staging filled by one thread
///   (`ratio_transfer_vs_peak`, target ≥ 0.8), the same with the fill split over `FILL_PARTS`
///   threads, and memory registered with `CudaDevice.pin` copied where it lies
///   (`ChunkSource.direct`, no staging copy); median of 5 runs after a warm-up;
/// - 16-qubit amplitude encoding end to end from host memory (4,096 rows through the engine,
///   the kernel on each 32-row chunk, states left on the device): vectors/s (target ≥ 80,000)
///   from the same three inputs, each also as a ratio to what the measured pinned copy peak
///   allows (`encode16_copy_bound_vectors_per_s`); median of 5 runs after a warm-up;
/// - the kernel alone on device-resident rows: vectors/s (PyTorch's figure for the same work
///   comes from `benchmarks/peers/encode_torch_gpu.py`, run by `scripts/gpu-check.sh`).
/// - the in-flight FIRE relaxation of the `inflight` clusters through one `fire` device stage on
///   the GPU, against the same stage on every CPU core (what `simulate` runs there): systems/s,
///   atom-steps/s, and the agreement
///   (`inflight_cuda_max_rel_energy_diff`, `inflight_cuda_steps_differ`; see `InflightGpu`).
/// - the same clusters through one fused device stage `fire + langevin + nve` on the GPU and on
///   every CPU core: wall times, their ratio, and the agreement (`stages_cuda_max_rel_energy_diff`,
///   `stages_cuda_steps_differ`; see `StagesGpu`).
/// - one LJ liquid of 32,000 atoms (bench/in.lj's) through 100 NVE steps of a device stage on the
///   GPU (Verlet lists from bins) and on every CPU core: atom-steps/s, their ratio and the
///   agreement (`md_cuda_rel_energy_diff`; see `MdGpu`).
///
/// Prints `name: value` lines last. Run: `./penstock bench gpu` (or `scripts/gpu-check.sh`).
public final class GpuBench {
    private static final long MIB = 1 << 20;
    private static final int QUBITS = 16;
    private static final long STATE = 1L << QUBITS;
    /// `PENSTOCK_GPU_BENCH_QUICK` set: tiny sizes and one run each, to check that every path
    /// runs (the dry run on the driver emulation); its figures mean nothing.
    static final boolean QUICK = System.getenv("PENSTOCK_GPU_BENCH_QUICK") != null;
    private static final long ROWS = QUICK ? 64 : 4096; // 2 GiB of float64 rows
    private static final long TRANSFER_BYTES = (QUICK ? 64 : 1024) * MIB;

    private final PrintStream out;

    /// A benchmark printing to `out`.
    public GpuBench(PrintStream out) {
        this.out = out;
    }

    /// Where the engine's input comes from.
    enum Input {
        /// pageable memory, one host thread filling pinned staging
        PAGEABLE("pageable, 1-thread fill"),
        /// pageable memory, the staging fill split over `FILL_PARTS` threads
        PAGEABLE_PARALLEL("pageable, parallel fill"),
        /// memory registered with `CudaDevice.pin`, copied where it lies
        REGISTERED("registered, copied directly");

        final String label;

        Input(String label) {
            this.label = label;
        }

        ChunkSource source(MemorySegment in) {
            return switch (this) {
                case PAGEABLE -> ChunkSource.of(in);
                case PAGEABLE_PARALLEL -> ChunkSource.of(in, FILL_PARTS);
                case REGISTERED -> ChunkSource.direct(in);
            };
        }
    }

    /// Threads a parallel staging fill uses: half the cores, at most 8.
    static final int FILL_PARTS = Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));
    private static final int RUNS = QUICK ? 1 : 5;
    private static final String[] KEYS = {"", "_parallel_fill", "_registered"};

    /// Runs every figure; fails with the probe's reason when no GPU is usable.
    public Map<String, String> run() throws Exception {
        Map<String, String> f = new LinkedHashMap<>();
        try (CudaDevice device = CudaDevice.open(0); Arena host = Arena.ofShared()) {
            f.put("device", device.name());
            double pinned = copyPeak(device, true);
            double pageable = copyPeak(device, false);
            f.put("h2d_pinned_gbps", fmt(pinned));
            f.put("h2d_pageable_gbps", fmt(pageable));
            EncodeKernels kernels = new EncodeKernels(device);
            if (QUICK) {
                out.println("quick run (PENSTOCK_GPU_BENCH_QUICK): small sizes, one run each; the figures are not measurements");
            }
            MemorySegment bytes = host.allocate(TRANSFER_BYTES, 4096);
            bytes.fill((byte) 3);
            for (Input input : Input.values()) {
                double gbps = transfer(device, kernels, bytes, input);
                String key = KEYS[input.ordinal()];
                f.put("transfer" + key + "_gbps", fmt(gbps));
                f.put("ratio_transfer" + key + "_vs_peak", fmt(gbps / pinned));
            }
            // the bus bounds an end-to-end encoding: rows of 2^16 float64 cannot arrive faster than this
            double bound = pinned * 1e9 / (STATE * 8);
            f.put("encode16_copy_bound_vectors_per_s", String.format(Locale.ROOT, "%.0f", bound));
            MemorySegment rows = host.allocate(ROWS * STATE * 8, 4096);
            for (long i = 0; i < rows.byteSize() / 8; i++) {
                rows.setAtIndex(ValueLayout.JAVA_DOUBLE, i, Math.sin(i * 1e-3) + 2);
            }
            for (Input input : Input.values()) {
                double v = encodeEndToEnd(device, kernels, rows, input);
                String key = KEYS[input.ordinal()];
                f.put("encode16_end_to_end" + key + "_vectors_per_s", String.format(Locale.ROOT, "%.0f", v));
                f.put("ratio_encode16_end_to_end" + key + "_vs_copy_bound", fmt(v / bound));
            }
            f.put("encode16_kernel_vectors_per_s", String.format(Locale.ROOT, "%.0f", encodeKernelOnly(device, kernels)));
            InflightGpu.run(device, out, f, QUICK);
            StagesGpu.run(device, out, f, QUICK);
            MdGpu.run(device, out, f, QUICK);
        }
        out.println("(PyTorch's kernel-only figure: /usr/bin/python3 benchmarks/peers/encode_torch_gpu.py)");
        return f;
    }

    private static String fmt(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }

    private static double median(double[] runs) {
        double[] sorted = runs.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
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

    /// GB/s of `in` (1 GiB) through the engine with the read-every-byte kernel, median of
    /// `RUNS` after a warm-up run.
    private double transfer(CudaDevice device, EncodeKernels kernels, MemorySegment in, Input input) throws Exception {
        long chunk = 8 * MIB;
        double[] runs = new double[RUNS];
        TransferStats st = null;
        try (BlockArena dev = device.newArena("sum");
             StagingPool pool = StagingPool.withBacking("pinned staging", 4, chunk, device.pinned());
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 4), pool);
             AutoCloseable pin = input == Input.REGISTERED ? device.pin(in) : null) {
            Block sum = dev.allocate(DType.I64, 1);
            ChunkSource source = input.source(in);
            TransferEngine.DeviceKernel read = (compute, k, data) -> kernels.readAll((CudaStream) compute, data, sum);
            engine.run(in.byteSize(), source, read); // warm-up
            for (int r = 0; r < RUNS; r++) {
                st = engine.run(in.byteSize(), source, read);
                runs[r] = in.byteSize() / (st.wallNs() / 1e9) / 1e9;
            }
        }
        double gbps = median(runs);
        out.printf(Locale.ROOT, "TransferEngine, %d MiB, 8 MiB chunks, %s, read kernel: %.2f GB/s, median of %d (last: host fill %.0f ms, "
                + "copies %.0f ms, kernels %.0f ms, wall %.0f ms)%n", in.byteSize() / MIB, input.label, gbps, RUNS, st.readNs() / 1e6,
                st.copyNs() / 1e6,
                st.kernelNs() / 1e6, st.wallNs() / 1e6);
        return gbps;
    }

    /// 16-qubit amplitude states per second from host rows (f64 [ROWS, 65536]) to device
    /// states, 32 rows a chunk, median of `RUNS` after a warm-up run.
    private double encodeEndToEnd(CudaDevice device, EncodeKernels kernels, MemorySegment in, Input input) throws Exception {
        int rowsPerChunk = 32;
        long rowBytes = STATE * 8;
        long chunk = rowsPerChunk * rowBytes;
        double[] runs = new double[RUNS];
        TransferStats st = null;
        try (BlockArena dev = device.newArena("states");
             StagingPool pool = StagingPool.withBacking("pinned staging", 4, chunk, device.pinned());
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 4), pool);
             AutoCloseable pin = input == Input.REGISTERED ? device.pin(in) : null) {
            Block states = dev.allocate(DType.C128, rowsPerChunk, STATE);
            ChunkSource source = input.source(in);
            TransferEngine.DeviceKernel encode = (compute, k, data) -> {
                long r = data.byteSize() / rowBytes;
                Block rowsBlock = Block.wrap(data.segment(), DType.F64, null, r, STATE);
                kernels.encode((CudaStream) compute, "amplitude", rowsBlock, (int) STATE, QUBITS, states, (int) r);
            };
            engine.run(in.byteSize(), source, encode); // warm-up
            for (int r = 0; r < RUNS; r++) {
                st = engine.run(in.byteSize(), source, encode);
                runs[r] = ROWS / (st.wallNs() / 1e9);
            }
        }
        double v = median(runs);
        out.printf(Locale.ROOT, "amplitude, 16 qubits, end to end from %s host memory: %.0f vectors/s, median of %d (last: host fill "
                + "%.0f ms, copies %.0f ms, kernels %.0f ms, wall %.0f ms)%n", input.label, v, RUNS, st.readNs() / 1e6, st.copyNs() / 1e6,
                st.kernelNs() / 1e6, st.wallNs() / 1e6);
        return v;
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
