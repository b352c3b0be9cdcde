package dev.penstock.cli;

import dev.penstock.benchmarks.LoaderBench;
import dev.penstock.benchmarks.Peers;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/// `penstock bench loader`: the `loader` workload through the DataLoader, optionally against
/// PyTorch's DataLoader.
@Command(name = "loader", mixinStandardHelpOptions = true,
        description = "Map dataset of N samples (2 ms latency + 65,536 float32 each), batch 32, 5 ms model step.")
public final class BenchLoaderCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Spec
    CommandSpec spec;

    @Option(names = "--workers", split = ",", description = "I/O thread counts to run (default: ${DEFAULT-VALUE})",
            defaultValue = "1,2,4,8,16,32,64")
    int[] workers;

    @Option(names = "--threads", split = ",", description = "I/O thread kinds: platform, virtual (default: ${DEFAULT-VALUE})",
            defaultValue = "platform,virtual")
    List<String> threads;

    @Option(names = "--samples", description = "dataset size (default: ${DEFAULT-VALUE})", defaultValue = "2000")
    int samples;

    @Option(names = "--batch-size", description = "batch size (default: ${DEFAULT-VALUE})", defaultValue = "32")
    int batchSize;

    @Option(names = "--step-ms", description = "consumer's model step per batch (default: ${DEFAULT-VALUE})", defaultValue = "5")
    double stepMs;

    @Option(names = "--repeat", description = "runs per worker count; the median is reported (default: ${DEFAULT-VALUE})",
            defaultValue = "3")
    int repeat;

    @Option(names = "--peer", description = "also run PyTorch's DataLoader on the same workload")
    boolean peer;

    @Option(names = "--python", description = "instead, the Python workload: a PyTorch training step fed from 2,000 .npy point clouds "
            + "by penstock.DataLoader (the python/ package) against torch's DataLoader at its best, in one process "
            + "(benchmarks/peers/loader_python.py)")
    boolean python;

    @Option(names = "--peer-workers", split = ",", description = "PyTorch num_workers values, swept to where it peaks; "
            + "its loader is kept across epochs (persistent workers) (default: ${DEFAULT-VALUE})",
            defaultValue = "1,2,4,8,16,32")
    int[] peerWorkers;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve the loader's meters (batches, waits, load and prep "
            + "time, wait fraction of the epoch running, and the JVM's) as Prometheus text at http://127.0.0.1:PORT/metrics while it "
            + "runs (0: any free port)")
    Integer metricsPort;

    @Override
    public Integer call() throws Exception {
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new ParameterException(spec.commandLine(), "option '--metrics-port' must be in [0, 65535], got " + metricsPort);
        }
        try (MetricsServer metrics = metricsPort == null ? null : MetricsServer.start(metricsPort)) {
            return run(metrics);
        }
    }

    private int run(MetricsServer metrics) throws Exception {
        if (python) {
            Map<String, Double> figures = Peers.run(Peers.script("loader_python.py"), List.of("--repeat", Integer.toString(repeat)),
                    output.progress());
            if (figures == null) {
                return 1;
            }
            Map<String, String> lines = new java.util.LinkedHashMap<>();
            figures.forEach((k, v) -> lines.put(k, k.endsWith("_wait") || k.startsWith("ratio") ? String.format(java.util.Locale.ROOT,
                    "%.3f", v) : String.format(java.util.Locale.ROOT, "%.0f", v)));
            output.print(lines);
            return 0;
        }
        if (samples < 1 || batchSize < 1 || repeat < 1) {
            throw new ParameterException(spec.commandLine(), "options '--samples', '--batch-size' and '--repeat' must be at least 1, got "
                    + samples + ", " + batchSize + ", " + repeat);
        }
        for (int w : workers) {
            if (w < 1) {
                throw new ParameterException(spec.commandLine(), "option '--workers' values must be at least 1, got " + w);
            }
        }
        LoaderBench.Options options;
        try {
            options = new LoaderBench.Options(samples, batchSize, Math.round(stepMs * 1e6), workers, repeat, threads);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        LoaderBench bench = new LoaderBench(options, output.progress());
        if (metrics != null) {
            java.util.concurrent.atomic.AtomicReference<dev.penstock.data.DataLoader<?, ?, ?>> current = new java.util.concurrent.atomic.AtomicReference<>();
            dev.penstock.metrics.PenstockMetrics.loader(metrics.registry(), "bench-loader", () -> current.get() == null ? null
                    : current.get().stallReport());
            bench.watch(current::set);
            System.err.println("metrics: " + metrics.url());
        }
        bench.measureStages();
        var results = bench.run();
        Map<String, Double> peerFigures = null;
        if (peer) {
            peerFigures = Peers.run(Peers.script("loader_torch.py"), List.of("--samples", Integer.toString(samples),
                    "--batch-size", Integer.toString(batchSize), "--step-ms", Double.toString(stepMs),
                    "--repeat", Integer.toString(repeat),
                    "--workers", String.join(",", Arrays.stream(peerWorkers).mapToObj(Integer::toString).toList())), output.progress());
        }
        output.print(LoaderBench.summary(results, peerFigures));
        return 0;
    }
}
