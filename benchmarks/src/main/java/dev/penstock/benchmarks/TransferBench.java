package dev.penstock.benchmarks;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.transfer.ChunkSource;
import dev.penstock.transfer.Kernel;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferStats;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/// The `transfer` workload (docs/workloads.md): host memory → device through `TransferEngine` on the
/// default device, at several chunk sizes, with a no-op kernel and with a kernel that reads every
/// byte; reported as GB/s and as a ratio to `MemorySegment.copy` of the same bytes in the same run.
///
/// On `CpuDevice` every byte is copied twice (pageable input → staging on the host thread,
/// staging → device on the copy stream, as with CUDA's pinned staging), overlapped. The
/// `direct` cases copy from the input where it lies (`ChunkSource.direct`: what pinned or
/// registered input allows on a GPU), once.
///
/// Run: `./penstock bench transfer [--total-mib 1024] [--chunk-mib 1,8,64] [--slots 3] [--repeat 3]`.
public final class TransferBench {
    private static final long MIB = 1L << 20;

    /// Options of one run.
    ///
    /// @param totalMib  input size
    /// @param chunkMib  chunk sizes to run
    /// @param slots     staging/device buffer pairs
    /// @param repeat    runs per case; the median is reported
    public record Options(long totalMib, long[] chunkMib, int slots, int repeat) {
        /// Validates the options.
        public Options {
            if (totalMib < 1 || slots < 1 || repeat < 1 || chunkMib.length == 0 || Arrays.stream(chunkMib).anyMatch(c -> c < 1)) {
                throw new IllegalArgumentException("options '--total-mib', '--chunk-mib', '--slots' and '--repeat' must be positive");
            }
        }
    }

    private final Options options;
    private final PrintStream out;

    /// A benchmark printing progress lines to `out`.
    public TransferBench(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /// Runs every case and returns the figures (`name: value`).
    public Map<String, String> run() throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        long total = options.totalMib() * MIB;
        try (HostArena arena = Memory.newSharedArena("transfer-bench")) {
            MemorySegment input = arena.allocateBytes(total);
            MemorySegment copyTarget = arena.allocateBytes(total);
            for (long i = 0; i < total; i += 8) {
                input.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            double memcpy = memcpyGbPerS(input, copyTarget);
            out.printf(Locale.ROOT, "memcpy (MemorySegment.copy, %d MiB): %.2f GB/s%n", options.totalMib(), memcpy);
            m.put("memcpy_gb_per_s", fmt(memcpy));
            double best = 0;
            for (long chunkMib : options.chunkMib()) {
                for (String kernelName : new String[] {"noop", "read"}) {
                    double gbs = median(input, total, chunkMib * MIB, kernelName, false);
                    String key = "transfer_" + kernelName + "_" + chunkMib + "mib";
                    m.put(key + "_gb_per_s", fmt(gbs));
                    m.put(key + "_ratio_vs_memcpy", fmt(gbs / memcpy));
                    if (chunkMib == 8 && kernelName.equals("read")) {
                        m.put("ratio_vs_memcpy", fmt(gbs / memcpy));
                    }
                    best = Math.max(best, gbs);
                }
            }
            for (String kernelName : new String[] {"noop", "read"}) {
                double gbs = median(input, total, 8 * MIB, kernelName, true);
                m.put("transfer_direct_" + kernelName + "_8mib_gb_per_s", fmt(gbs));
                m.put("transfer_direct_" + kernelName + "_8mib_ratio_vs_memcpy", fmt(gbs / memcpy));
            }
            double parallelFill = parallelFillGbPerS(input, copyTarget, 8 * MIB);
            out.printf(Locale.ROOT, "staging fill of 8 MiB chunks in %d parallel parts: %.2f GB/s%n", FILL_PARTS, parallelFill);
            m.put("fill_parallel_8mib_gb_per_s", fmt(parallelFill));
            m.put("fill_parallel_8mib_ratio_vs_memcpy", fmt(parallelFill / memcpy));
            m.put("transfer_best_gb_per_s", fmt(best));
            m.putIfAbsent("ratio_vs_memcpy", fmt(best / memcpy));
        }
        return m;
    }

    private double median(MemorySegment input, long total, long chunk, String kernelName, boolean direct) throws Exception {
        ChunkSource source = direct ? ChunkSource.direct(input) : ChunkSource.of(input);
        double[] runs = new double[options.repeat()];
        long[] sink = new long[1];
        Kernel kernel = kernelName.equals("noop") ? (k, data) -> { } : (k, data) -> sink[0] ^= readEveryByte(data.segment());
        try (Device device = new CpuDevice();
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, options.slots()))) {
            engine.run(Math.min(total, 64 * chunk), source, kernel); // warm-up
            for (int r = 0; r < runs.length; r++) {
                TransferStats st = engine.run(total, source, kernel);
                runs[r] = st.gigabytesPerSecond();
                if (r == runs.length - 1) {
                    out.printf(Locale.ROOT, "transfer%s chunk=%d MiB kernel=%s: %.2f GB/s (host read %.0f ms, slot wait %.0f ms, "
                                    + "copy %.0f ms, kernel %.0f ms, wall %.0f ms)%n", direct ? " direct" : "", chunk / MIB, kernelName, runs[r],
                            st.readNs() / 1e6, st.slotWaitNs() / 1e6, st.copyNs() / 1e6, st.kernelNs() / 1e6, st.wallNs() / 1e6);
                }
            }
        }
        if (sink[0] == 42) {
            out.println();
        }
        Arrays.sort(runs);
        return runs[runs.length / 2];
    }

    /// XOR of every 8-byte word: touches every byte of the chunk.
    static long readEveryByte(MemorySegment s) {
        long acc = 0;
        long n = s.byteSize() & ~7L;
        for (long i = 0; i < n; i += 8) {
            acc ^= s.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
        }
        for (long i = n; i < s.byteSize(); i++) {
            acc ^= s.get(ValueLayout.JAVA_BYTE, i);
        }
        return acc;
    }

    /// Parts a staging fill is split into (`ChunkSource.of(input, parts)`): every core.
    static final int FILL_PARTS = Runtime.getRuntime().availableProcessors();

    /// GB/s of `ChunkSource.of(input, FILL_PARTS)` filling chunk-sized buffers (best of 4).
    private static double parallelFillGbPerS(MemorySegment src, MemorySegment dst, long chunk) throws Exception {
        ChunkSource fill = ChunkSource.of(src, FILL_PARTS);
        double best = 0;
        for (int r = 0; r < 4; r++) {
            long t0 = System.nanoTime();
            for (long o = 0; o + chunk <= src.byteSize(); o += chunk) {
                fill.read(o, dst.asSlice(o, chunk), chunk);
            }
            best = Math.max(best, (double) src.byteSize() / (System.nanoTime() - t0));
        }
        return best;
    }

    private static double memcpyGbPerS(MemorySegment src, MemorySegment dst) {
        double best = 0;
        for (int r = 0; r < 4; r++) {
            long t0 = System.nanoTime();
            MemorySegment.copy(src, 0, dst, 0, src.byteSize());
            best = Math.max(best, (double) src.byteSize() / (System.nanoTime() - t0));
        }
        return best;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
