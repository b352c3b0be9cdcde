package dev.penstock.cli;

import dev.penstock.benchmarks.InflightBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench inflight`: in-flight refill vs static batches under one atom budget.
@Command(name = "inflight", mixinStandardHelpOptions = true,
        description = "LJ clusters (13-147 atoms, mixed difficulty) relaxed by FIRE to fmax 0.01 under one atom budget, or "
                + "tantalum clusters under SNAP (--potential snap): in-flight refill vs static batches.")
public final class BenchInflightCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--clusters", description = "clusters to relax (default: 512 LJ, 64 SNAP)")
    Integer clusters;

    @Option(names = "--potential", defaultValue = "lj", description = "lj (LJ clusters of 13-147 atoms to fmax 0.01) or snap (tantalum "
            + "clusters of 13-55 atoms under Ta06A.snap to fmax 0.05 eV/Å) (default: ${DEFAULT-VALUE})")
    String potential;

    @Option(names = "--max-atoms", description = "atoms per batch, the budget (default: 2000 LJ, 500 SNAP)")
    Long maxAtoms;

    @Option(names = "--runner", defaultValue = "local", description = "local: in-flight vs static batches; flink: the in-flight "
            + "relaxation as a Flink job against the local runner (default: ${DEFAULT-VALUE})")
    String runner;

    @Override
    public Integer call() throws Exception {
        InflightBench bench;
        try {
            boolean snap = potential.equals("snap");
            bench = new InflightBench(output.progress(), clusters != null ? clusters : snap ? 64 : 512, maxAtoms != null ? maxAtoms : snap ? 500 : 2000,
                    potential);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), e.getMessage());
        }
        switch (runner) {
            case "local" -> output.print(bench.run());
            case "flink" -> {
                if (potential.equals("snap")) {
                    throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                            "option '--runner': flink runs the LJ workload only (not --potential snap)");
                }
                output.print(bench.runFlink());
            }
            default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "option '--runner': expected local or flink, got '" + runner + "'");
        }
        return 0;
    }
}
