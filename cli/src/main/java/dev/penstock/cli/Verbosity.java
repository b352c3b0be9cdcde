package dev.penstock.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import picocli.CommandLine.Option;

/// `--quiet` and `--verbose`, shared by the commands that run jobs. Quiet: nothing but errors
/// (one line each, on stderr) and what `--json` asks for; no progress line; warnings of the
/// engine's loggers off. Verbose: the resolved settings before the run, and the engine's
/// loggers (`System.Logger`, "dev.penstock") down to FINE on stderr. Neither changes a result.
public final class Verbosity {
    @Option(names = {"-q", "--quiet"}, order = 590, description = "print nothing but errors (and the --json object); no progress line")
    boolean quiet;

    @Option(names = {"-v", "--verbose"}, order = 591, description = "also print the resolved settings before the run, and the "
            + "engine's log messages (dev.penstock loggers, FINE and up) on stderr")
    boolean verbose;

    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());
    // held: java.util.logging keeps loggers weakly, and a collected one would forget its level
    private static final java.util.logging.Logger ENGINE = java.util.logging.Logger.getLogger("dev.penstock");
    private static final java.util.logging.Handler STDERR = new java.util.logging.ConsoleHandler();

    /// Where the run's informational lines go: nowhere when quiet, stderr when stdout carries
    /// `--json`'s object, else stdout.
    PrintStream info(boolean json) {
        return quiet ? NOWHERE : json ? System.err : System.out;
    }

    /// Whether a progress line may be drawn.
    boolean progress() {
        return !quiet;
    }

    /// Prints `line` (the resolved settings) to `info` when verbose.
    void settings(PrintStream info, String line) {
        if (verbose && !quiet) {
            info.println("settings: " + line);
        }
    }

    /// Sets the engine's loggers' level for this run (and checks the options agree).
    void apply(picocli.CommandLine cl) {
        if (quiet && verbose) {
            throw new picocli.CommandLine.ParameterException(cl, "options '--quiet' and '--verbose' exclude each other");
        }
        ENGINE.removeHandler(STDERR); // a command run before in this JVM (tests) leaves nothing behind
        ENGINE.setUseParentHandlers(true);
        ENGINE.setLevel(null);
        if (quiet) {
            ENGINE.setLevel(java.util.logging.Level.SEVERE);
        } else if (verbose) {
            ENGINE.setLevel(java.util.logging.Level.FINE);
            STDERR.setLevel(java.util.logging.Level.FINE);
            ENGINE.addHandler(STDERR);
            ENGINE.setUseParentHandlers(false);
        }
    }
}
