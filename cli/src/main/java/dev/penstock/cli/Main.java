package dev.penstock.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/// Entry point of the `penstock` command.
@Command(name = "penstock", mixinStandardHelpOptions = true, version = "penstock 0.1.0-SNAPSHOT",
        description = "Keeps accelerators fed: prefetching loaders, staging and transfer, stage pipelines.",
        subcommands = {EncodeCommand.class, SimulateCommand.class, InspectCommand.class, BenchCommand.class})
public final class Main implements Runnable {

    /// Runs the command line and exits with its code.
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /// Runs the command line and returns its exit code (for tests).
    public static int execute(String... args) {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
