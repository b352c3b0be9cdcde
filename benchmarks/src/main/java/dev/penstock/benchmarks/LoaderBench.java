package dev.penstock.benchmarks;

import dev.penstock.data.Batch;
import dev.penstock.data.Collate;
import dev.penstock.data.DataLoader;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// Runs the `loader` workload (docs/workloads.md) through Penstock's `DataLoader` at several
/// worker counts, as epochs of a loader kept across epochs (after one warm-up epoch), and reports samples/s, exposed wait and the ratio to the ideal pipelined bound
/// `max((N·load + batches·collate) / workers, batches·step)`, with load, collate and step
/// measured standalone in the same run. With a peer, PyTorch's `DataLoader` runs the same
/// workload from `benchmarks/peers/loader_torch.py` and the ratio of the bests is reported.
///
/// Run: `./penstock bench loader [--workers 1,2,4,8,16,32,64] [--threads platform,virtual] [--repeat 3] [--peer]`.
public final class LoaderBench {

    /// Options of one benchmark run.
    ///
    /// @param threads I/O thread kinds to run: `platform`, `virtual` or both
    public record Options(int samples, int batchSize, long stepNs, int[] workers, int repeat, List<String> threads) {
        /// Validates the options.
        public Options {
            if (samples < 1 || batchSize < 1 || repeat < 1 || workers.length == 0) {
                throw new IllegalArgumentException("samples, batch size, repeat and workers must be positive");
            }
            for (String t : threads) {
                if (!t.equals("platform") && !t.equals("virtual")) {
                    throw new IllegalArgumentException("option '--threads': unknown thread kind '" + t
                            + "'; expected 'platform' or 'virtual'");
                }
            }
        }
    }

    /// The median and spread of one worker count's runs.
    public record Result(String threads, int workers, double samplesPerS, double minSamplesPerS, double maxSamplesPerS,
                         double exposedWaitFraction, double idealRatio) {
    }

    private record Run(double wallS, double waitFraction) {
    }

    private final Options options;
    private final PrintStream out;
    private final ModelStep step;
    private java.util.function.Consumer<DataLoader<?, ?, ?>> watch = loader -> { };
    private double loadS;
    private double collateS;
    private double stepS;

    /// A benchmark that prints progress lines to `out`; calibrates the model step now.
    public LoaderBench(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.step = new ModelStep().calibrate(options.stepNs());
    }

    /// Hands every loader the benchmark makes to `watch` as it starts using it (metrics).
    public LoaderBench watch(java.util.function.Consumer<DataLoader<?, ?, ?>> watch) {
        this.watch = watch;
        return this;
    }

    /// Measures load, collate and step standalone (single thread), as the ideal bound needs.
    public void measureStages() throws Exception {
        try (LoaderWorkload ds = new LoaderWorkload(options.samples())) {
            Block scratch = ds.loadHost(0, null);
            for (int i = 0; i < 3000; i++) {
                LoaderWorkload.fill(i, scratch); // warm up: the vector code runs slowly until C2 compiles it
            }
            ds.releaseHost(scratch);
            int n = 100;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                ds.releaseHost(ds.loadHost(i, null));
            }
            loadS = (System.nanoTime() - t0) / 1e9 / n;
            Block[] samples = new Block[options.batchSize()];
            for (int i = 0; i < samples.length; i++) {
                samples[i] = ds.loadHost(i, null);
            }
            int reps = 12;
            long c0 = 0;
            for (int r = 0; r < reps + 2; r++) {
                long s = System.nanoTime();
                try (HostArena arena = Memory.newSharedArena("collate")) {
                    Block batch = arena.allocate(DType.F32, samples.length, LoaderWorkload.FEATURES);
                    for (int i = 0; i < samples.length; i++) {
                        batch.slice(i, i + 1).reshape(LoaderWorkload.FEATURES).copyFrom(samples[i]);
                    }
                }
                if (r >= 2) {
                    c0 += System.nanoTime() - s;
                }
            }
            collateS = c0 / 1e9 / reps;
            long s0 = System.nanoTime();
            for (int r = 0; r < 20; r++) {
                step.step(null);
            }
            stepS = (System.nanoTime() - s0) / 1e9 / 20;
        }
        out.printf(Locale.ROOT, "stage load_ms: %.3f  collate_ms: %.3f  step_ms: %.3f (step = %d FMA chunks)%n",
                loadS * 1e3, collateS * 1e3, stepS * 1e3, step.chunks());
    }

    /// Wall time of the ideal pipelined bound for `workers` I/O threads, in seconds.
    public double idealS(int workers) {
        long n = options.samples();
        long batches = (n + options.batchSize() - 1) / options.batchSize();
        return Math.max((n * loadS + batches * collateS) / workers, batches * stepS);
    }

    /// A loader over the workload as a training loop would keep it across epochs.
    private DataLoader<Block, Block, Block> loader(LoaderWorkload ds, String threads, int workers) {
        DataLoader<Block, Block, Block> loader = DataLoader.builder(ds)
                .batchSize(options.batchSize())
                .workers(workers)
                .virtualThreads(threads.equals("virtual"))
                .prefetchDepth(2 * options.batchSize() + workers)
                .collate(Collate.stack())
                .build();
        watch.accept(loader);
        return loader;
    }

    /// One epoch, timed from `iterator()` (which starts the epoch's I/O threads) to the end of the
    /// last batch's step; the consumer runs the model step per batch.
    private Run epoch(DataLoader<Block, Block, Block> loader) {
        long t0 = System.nanoTime();
        long waitNs = 0;
        Iterator<Batch<Block>> it = loader.iterator();
        while (true) {
            long w0 = System.nanoTime();
            if (!it.hasNext()) {
                break;
            }
            Batch<Block> b = it.next();
            b.ready().await();
            waitNs += System.nanoTime() - w0;
            step.step(b.data());
        }
        long wall = System.nanoTime() - t0;
        return new Run(wall / 1e9, (double) waitNs / wall);
    }

    /// Runs every worker count: one warm-up epoch (fills the sample and batch memory pools),
    /// then `repeat` measured epochs of the same loader. Prints one line per count.
    public List<Result> run() throws Exception {
        List<Result> results = new ArrayList<>();
        for (String t : options.threads()) {
            for (int w : options.workers()) {
                results.add(measure(t, w));
            }
        }
        return results;
    }

    private Result measure(String threads, int w) throws Exception {
        Run[] runs = new Run[options.repeat()];
        try (LoaderWorkload ds = new LoaderWorkload(options.samples());
             DataLoader<Block, Block, Block> loader = loader(ds, threads, w)) {
            epoch(loader); // warm-up: JIT, sample pool, batch memory pool
            for (int r = 0; r < runs.length; r++) {
                runs[r] = epoch(loader);
            }
        }
        double[] walls = Arrays.stream(runs).mapToDouble(Run::wallS).sorted().toArray();
        double median = walls[walls.length / 2];
        Run med = Arrays.stream(runs).filter(r -> r.wallS == median).findFirst().orElseThrow();
        Result res = new Result(threads, w, options.samples() / median, options.samples() / walls[walls.length - 1],
                options.samples() / walls[0], med.waitFraction, median / idealS(w));
        out.printf(Locale.ROOT, "penstock threads=%s workers=%d samples_per_s=%.0f (min %.0f, max %.0f) exposed_wait=%.3f ideal_ratio=%.3f%n",
                threads, w, res.samplesPerS, res.minSamplesPerS, res.maxSamplesPerS, res.exposedWaitFraction, res.idealRatio);
        return res;
    }

    /// The figures printed last, as `name: value` lines.
    public static Map<String, String> summary(List<Result> results, Map<String, Double> peer) {
        Map<String, String> m = new LinkedHashMap<>();
        Result best = results.stream().max((a, b) -> Double.compare(a.samplesPerS, b.samplesPerS)).orElseThrow();
        for (Result r : results) {
            String k = "_" + r.threads + "_w" + r.workers;
            m.put("samples_per_s" + k, fmt(r.samplesPerS));
            m.put("ideal_ratio" + k, fmt3(r.idealRatio));
            m.put("exposed_wait_fraction" + k, fmt3(r.exposedWaitFraction));
        }
        m.put("best_threads", best.threads);
        m.put("best_workers", Integer.toString(best.workers));
        m.put("samples_per_s", fmt(best.samplesPerS));
        m.put("exposed_wait_fraction", fmt3(best.exposedWaitFraction));
        m.put("ideal_ratio", fmt3(best.idealRatio));
        m.put("ideal_ratio_max", fmt3(results.stream().mapToDouble(Result::idealRatio).max().orElseThrow()));
        if (peer != null) {
            peer.forEach((k, v) -> m.put(k, k.endsWith("workers") ? Long.toString(Math.round(v))
                    : k.contains("fraction") || k.contains("ratio") ? fmt3(v) : fmt(v)));
            Double torchBest = peer.get("torch_samples_per_s");
            if (torchBest != null && torchBest > 0) {
                m.put("ratio_vs_torch", fmt3(best.samplesPerS / torchBest)); // best against best
            }
            for (Result r : results) { // and at equal worker counts, Penstock's better thread kind
                Double torch = peer.get("torch_samples_per_s_w" + r.workers);
                String key = "ratio_vs_torch_w" + r.workers;
                double mine = results.stream().filter(x -> x.workers == r.workers).mapToDouble(Result::samplesPerS).max().orElseThrow();
                if (torch != null && torch > 0 && !m.containsKey(key)) {
                    m.put(key, fmt3(mine / torch));
                }
            }
        }
        return m;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
