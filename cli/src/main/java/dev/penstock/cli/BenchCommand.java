package dev.penstock.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/// `penstock bench NAME`: the standard workloads of docs/workloads.md.
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a standard benchmark; figures are printed last as 'name: value' lines.",
        subcommands = {BenchLoaderCommand.class, BenchPumpCommand.class, BenchTransferCommand.class,
            BenchEncodeCommand.class, BenchEncodeFileCommand.class, BenchRelaxCommand.class, BenchInflightCommand.class, BenchGpuCommand.class,
            BenchMdCommand.class, BenchStagesCommand.class})
public final class BenchCommand implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
