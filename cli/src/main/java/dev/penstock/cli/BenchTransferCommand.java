package dev.penstock.cli;

import dev.penstock.benchmarks.TransferBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/// `penstock bench transfer`: host → device through the TransferEngine against memcpy.
@Command(name = "transfer", mixinStandardHelpOptions = true,
        description = "Host memory -> device through the TransferEngine (no-op and read-every-byte kernels) vs memcpy.")
public final class BenchTransferCommand implements Callable<Integer> {
    @Mixin
    JsonFigures output;

    @Spec
    CommandSpec spec;

    @Option(names = "--total-mib", description = "input size in MiB (default: ${DEFAULT-VALUE})", defaultValue = "1024")
    long totalMib;

    @Option(names = "--chunk-mib", split = ",", description = "chunk sizes in MiB (default: ${DEFAULT-VALUE})", defaultValue = "1,8,64")
    long[] chunkMib;

    @Option(names = "--slots", description = "staging/device buffer pairs (default: ${DEFAULT-VALUE})", defaultValue = "3")
    int slots;

    @Option(names = "--repeat", description = "runs per case; the median is reported (default: ${DEFAULT-VALUE})", defaultValue = "3")
    int repeat;

    @Override
    public Integer call() throws Exception {
        TransferBench.Options options;
        try {
            options = new TransferBench.Options(totalMib, chunkMib, slots, repeat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        output.print(new TransferBench(options, output.progress()).run());
        return 0;
    }
}
