package dev.penstock.cli;

import dev.penstock.benchmarks.StagesBench;
import dev.penstock.stage.Pipeline;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/// `penstock bench stages`: a three-stage chain against its stages alone, and the hand-off latency.
@Command(name = "stages", mixinStandardHelpOptions = true,
        description = "fire | langevin | nve over LJ clusters (13-147 atoms), each stage on its own worker: the chain's time against "
                + "the slowest stage alone (ratio_vs_slowest_stage) and the exit-to-admission hand-off latency between stages.")
public final class BenchStagesCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Option(names = "--clusters", defaultValue = "2048", description = "clusters (default: ${DEFAULT-VALUE})")
    int clusters;

    @Option(names = "--max-atoms", defaultValue = "2000", description = "atoms per batch in every stage (default: ${DEFAULT-VALUE})")
    long maxAtoms;

    @Option(names = "--steps", defaultValue = "100", description = "steps of the langevin and of the nve stage (default: ${DEFAULT-VALUE})")
    int steps;

    @Option(names = "--mode", defaultValue = "sync", description = "sync, async-receive or fully-async (default: ${DEFAULT-VALUE})")
    String mode;

    @Option(names = "--device", defaultValue = "cpu", description = "the device of the stages' batches: cpu (bench gpu measures CUDA) "
            + "(default: ${DEFAULT-VALUE})")
    String device;

    @Option(names = "--threads", description = "threads each stage's kernels are split over (default: the cores shared out "
            + "between the three stages)")
    Integer threads;

    @Override
    public Integer call() throws Exception {
        Pipeline.Mode m = SimulateCommand.mode(mode, new picocli.CommandLine(this));
        if (!device.equalsIgnoreCase("cpu")) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "option '--device': bench stages runs device stages on cpu (bench gpu measures CUDA), got '" + device + "'");
        }
        int kernelThreads = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors() / 3);
        output.print(new StagesBench(output.progress(), clusters, maxAtoms, steps, m, kernelThreads).run());
        return 0;
    }
}
