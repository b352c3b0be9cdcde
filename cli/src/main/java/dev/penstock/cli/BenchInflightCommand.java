package dev.penstock.cli;

import dev.penstock.benchmarks.InflightBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench inflight`: in-flight refill vs static batches under one atom budget.
@Command(name = "inflight", mixinStandardHelpOptions = true,
        description = "LJ clusters (13-147 atoms, mixed difficulty) relaxed by FIRE to fmax 0.01 under one atom budget: "
                + "in-flight refill vs static batches.")
public final class BenchInflightCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--clusters", defaultValue = "512", description = "clusters to relax (default: ${DEFAULT-VALUE})")
    int clusters;

    @Option(names = "--max-atoms", defaultValue = "2000", description = "atoms per batch, the budget (default: ${DEFAULT-VALUE})")
    long maxAtoms;

    @Option(names = "--runner", defaultValue = "local", description = "local: in-flight vs static batches; flink: the in-flight "
            + "relaxation as a Flink job against the local runner (default: ${DEFAULT-VALUE})")
    String runner;

    @Override
    public Integer call() throws Exception {
        InflightBench bench = new InflightBench(output.progress(), clusters, maxAtoms);
        switch (runner) {
            case "local" -> output.print(bench.run());
            case "flink" -> output.print(bench.runFlink());
            default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "option '--runner': expected local or flink, got '" + runner + "'");
        }
        return 0;
    }
}
