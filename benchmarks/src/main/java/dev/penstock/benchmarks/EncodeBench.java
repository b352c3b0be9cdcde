package dev.penstock.benchmarks;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/// The `encode` workload (docs/workloads.md): amplitude encoding of float64 rows into complex128
/// states, B=4096 × L=1024 (10 qubits) and B=64 × L=65536 (16 qubits), on 1 thread and on all
/// cores; angle, phase and iqp at 10 qubits. Reports vectors/s, input GB/s and the ratio to
/// `MemorySegment.copy` of the same input in the same run; with the peer (`againstPeer`), in
/// alternating rounds, the ratio to NumPy at its best (buffers reused: `ratio_vs_numpy_1t_*`) and
/// to the naive NumPy expression beside it (`ratio_vs_numpy_naive_1t_*`), and to PyTorch on the
/// CPU where it is installed (`ratio_vs_torch_cpu_1t_*`).
///
/// Run: `./penstock bench encode [--repeat 5] [--peer [--rounds 5]]`.
public final class EncodeBench {
    private final int repeat;
    private final PrintStream out;

    /// A benchmark of `repeat` timed runs per case (median reported), printing to `out`.
    public EncodeBench(int repeat, PrintStream out) {
        if (repeat < 1) {
            throw new IllegalArgumentException("option '--repeat' must be at least 1, got " + repeat);
        }
        this.repeat = repeat;
        this.out = out;
    }

    /// Runs every case; returns the figures.
    public Map<String, String> run() throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        int cores = Runtime.getRuntime().availableProcessors();
        m.put("cores", Integer.toString(cores));
        for (int[] shape : new int[][] {{4096, 10}, {64, 16}}) {
            int rows = shape[0];
            int n = shape[1];
            try (HostArena arena = Memory.newSharedArena("encode-bench")) {
                Block in = randomRows(arena, rows, 1 << n);
                Block outBlock = arena.allocate(DType.C128, rows, 1L << n);
                double memcpy = memcpyGbPerS(arena, in.segment());
                double ceiling = outputCopyGbPerS(in.segment(), outBlock.segment());
                double one = vectorsPerS(Encoding.AMPLITUDE, n, in, outBlock, 1);
                double all = vectorsPerS(Encoding.AMPLITUDE, n, in, outBlock, cores);
                double inputGb = one * (1 << n) * 8 / 1e9;
                String q = n + "q";
                m.put("amplitude_vectors_per_s_1t_" + q, fmt(one));
                m.put("amplitude_vectors_per_s_" + cores + "t_" + q, fmt(all));
                m.put("amplitude_input_gb_per_s_1t_" + q, fmt3(inputGb));
                m.put("memcpy_gb_per_s_" + q, fmt3(memcpy));
                m.put("amplitude_ratio_vs_memcpy_1t_" + q, fmt3(inputGb / memcpy));
                m.put("output_copy_input_gb_per_s_" + q, fmt3(ceiling));
                m.put("amplitude_ratio_vs_output_copy_1t_" + q, fmt3(inputGb / ceiling));
                m.put("amplitude_speedup_" + cores + "t_vs_1t_" + q, fmt3(all / one));
                out.printf(Locale.ROOT, "amplitude %d qubits: %.0f vectors/s on 1 thread (%.2f GB/s in, memcpy %.2f GB/s, "
                        + "copying the input into the state buffer %.2f GB/s in), %.0f on %d%n", n, one, inputGb, memcpy, ceiling, all, cores);
            }
        }
        int n = 10;
        SplittableRandom rnd = new SplittableRandom(3);
        for (Encoding e : new Encoding[] {Encoding.ANGLE, Encoding.PHASE, Encoding.IQP}) {
            int len = (int) e.inputLength(n);
            try (HostArena arena = Memory.newSharedArena("encode-bench")) {
                Block in = arena.allocate(DType.F64, 4096, len);
                for (long i = 0; i < in.elementCount(); i++) {
                    in.setDouble(i, rnd.nextDouble(-3, 3));
                }
                Block outBlock = arena.allocate(DType.C128, 4096, 1L << n);
                double one = vectorsPerS(e, n, in, outBlock, 1);
                m.put(e.label() + "_vectors_per_s_1t_10q", fmt(one));
                out.printf(Locale.ROOT, "%s 10 qubits: %.0f vectors/s on 1 thread%n", e.label(), one);
            }
        }
        m.put("ratio_vs_memcpy", m.get("amplitude_ratio_vs_memcpy_1t_10q"));
        return m;
    }

    /// Amplitude encoding on one thread against NumPy at its best in `rounds` alternating rounds:
    /// each round times Penstock on both shapes (the median of `repeat` runs each, after warm-up)
    /// and runs `peer` once (its own warm-up and median), the order turning each round, so that
    /// this machine's drift hits both sides alike. Returns each side's median over the rounds, the
    /// ratio of the medians and each round's ratio (`ratio_vs_numpy_1t_<q>`,
    /// `round_ratios_vs_numpy_1t_<q>`); none when the peer gave nothing.
    public Map<String, String> againstPeer(int rounds, java.util.concurrent.Callable<Map<String, Double>> peer) throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("option '--rounds' must be at least 1, got " + rounds);
        }
        int[][] shapes = {{4096, 10}, {64, 16}};
        double[][] mine = new double[shapes.length][rounds];
        double[][] theirs = new double[shapes.length][rounds];
        Map<String, List<Double>> others = new LinkedHashMap<>(); // the peer's other forms (naive NumPy, PyTorch on the CPU)
        Map<String, String> m = new LinkedHashMap<>();
        try (HostArena arena = Memory.newSharedArena("encode-bench-rounds")) {
            Block[] in = new Block[shapes.length];
            Block[] outs = new Block[shapes.length];
            for (int k = 0; k < shapes.length; k++) {
                in[k] = randomRows(arena, shapes[k][0], 1 << shapes[k][1]);
                outs[k] = arena.allocate(DType.C128, shapes[k][0], 1L << shapes[k][1]);
            }
            for (int r = 0; r < rounds; r++) {
                for (int side = 0; side < 2; side++) {
                    if ((side + r) % 2 == 0) {
                        for (int k = 0; k < shapes.length; k++) {
                            mine[k][r] = vectorsPerS(Encoding.AMPLITUDE, shapes[k][1], in[k], outs[k], 1);
                        }
                    } else {
                        Map<String, Double> p = peer.call();
                        if (p == null) {
                            return m;
                        }
                        for (int k = 0; k < shapes.length; k++) {
                            theirs[k][r] = p.getOrDefault("numpy_vectors_per_s_" + shapes[k][1] + "q", Double.NaN);
                        }
                        p.forEach((key, v) -> {
                            if (key.startsWith("torch_vectors_per_s_") || key.startsWith("numpy_naive_vectors_per_s_")) {
                                others.computeIfAbsent(key, x -> new ArrayList<>()).add(v);
                            }
                        });
                    }
                }
                out.printf(Locale.ROOT, "round %d: amplitude 10 qubits %.0f vectors/s, NumPy %.0f (%.3f); 16 qubits %.0f, NumPy %.0f (%.3f)%n",
                        r + 1, mine[0][r], theirs[0][r], mine[0][r] / theirs[0][r], mine[1][r], theirs[1][r], mine[1][r] / theirs[1][r]);
            }
        }
        for (int k = 0; k < shapes.length; k++) {
            String q = shapes[k][1] + "q";
            double a = median(mine[k]);
            double b = median(theirs[k]);
            StringBuilder ratios = new StringBuilder();
            for (int r = 0; r < rounds; r++) {
                ratios.append(r == 0 ? "" : " ").append(fmt3(mine[k][r] / theirs[k][r]));
            }
            m.put("rounds_amplitude_vectors_per_s_1t_" + q, fmt(a));
            m.put("numpy_vectors_per_s_" + q, fmt(b));
            m.put("ratio_vs_numpy_1t_" + q, fmt3(a / b));
            m.put("round_ratios_vs_numpy_1t_" + q, ratios.toString());
        }
        others.forEach((key, vs) -> {
            String q = key.substring(key.lastIndexOf('_') + 1);
            double v = median(vs.stream().mapToDouble(Double::doubleValue).toArray());
            double a = median(mine[q.equals("10q") ? 0 : 1]);
            String name = key.startsWith("torch") ? "torch_cpu" : "numpy_naive";
            m.put(name + "_vectors_per_s_" + q, fmt(v));
            m.put("ratio_vs_" + name + "_1t_" + q, fmt3(a / v));
        });
        m.put("ratio_vs_numpy", m.get("ratio_vs_numpy_1t_10q"));
        return m;
    }

    private static double median(double[] xs) {
        double[] c = xs.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static Block randomRows(HostArena arena, int rows, int len) {
        Block in = arena.allocate(DType.F64, rows, len);
        SplittableRandom rnd = new SplittableRandom(7);
        for (long i = 0; i < in.elementCount(); i++) {
            in.setDouble(i, rnd.nextDouble(-1, 1));
        }
        return in;
    }

    /// Median vectors/s encoding all rows of `in` on `threads` threads (rows split evenly).
    private double vectorsPerS(Encoding e, int n, Block in, Block outBlock, int threads) throws Exception {
        long rows = in.shape(0);
        List<Encoder> encoders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            encoders.add(Encoder.of(e, n));
        }
        double[] runs = new double[repeat];
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int r = -6; r < repeat; r++) { // six warm-up runs (C2 compiles the vector paths late)
                long t0 = System.nanoTime();
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long from = rows * t / threads;
                    long to = rows * (t + 1) / threads;
                    Encoder enc = encoders.get(t);
                    fs.add(pool.submit(() -> enc.encodeBatch(in.slice(from, to), outBlock.slice(from, to), from, BadRowPolicy.FAIL)));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
                if (r >= 0) {
                    runs[r] = rows / ((System.nanoTime() - t0) / 1e9);
                }
            }
        }
        Arrays.sort(runs);
        return runs[runs.length / 2];
    }

    private static double memcpyGbPerS(HostArena arena, MemorySegment src) {
        MemorySegment dst = arena.allocateBytes(src.byteSize());
        double best = 0;
        for (int r = 0; r < 5; r++) {
            long t0 = System.nanoTime();
            MemorySegment.copy(src, 0, dst, 0, src.byteSize());
            best = Math.max(best, (double) src.byteSize() / (System.nanoTime() - t0));
        }
        return best;
    }

    /// The encoder's write ceiling without arithmetic: the input copied twice into the state
    /// buffer (as many bytes as an encode writes: a complex128 state is twice its float64 row),
    /// best of 5, as GB/s of input. An encoder with ordinary stores cannot beat it.
    private static double outputCopyGbPerS(MemorySegment in, MemorySegment states) {
        long n = in.byteSize();
        double best = 0;
        for (int r = 0; r < 5; r++) {
            long t0 = System.nanoTime();
            MemorySegment.copy(in, 0, states, 0, n);
            MemorySegment.copy(in, 0, states, n, n);
            best = Math.max(best, (double) n / (System.nanoTime() - t0));
        }
        return best;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
