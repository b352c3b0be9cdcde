package dev.penstock.cli;

import dev.penstock.io.PendingOutput;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/// Entry point of the `penstock` command. Every user error ends in one line on stderr and an
/// exit code (`ExitCodes`); a stack trace only with `--debug`, or for an internal error with a
/// line saying it is one. SIGINT/SIGTERM discard every output not yet committed, say so in one
/// line and exit 130/143 (the JVM's codes for those signals).
@Command(name = "penstock", mixinStandardHelpOptions = true, version = "penstock 0.1.0-SNAPSHOT",
        description = "Keeps accelerators fed: prefetching loaders, staging and transfer, stage pipelines.",
        footer = ExitCodes.HELP,
        subcommands = {EncodeCommand.class, SimulateCommand.class, InspectCommand.class, BenchCommand.class,
            CommandLine.HelpCommand.class, picocli.AutoComplete.GenerateCompletion.class})
public final class Main implements Runnable {
    private static final AtomicBoolean FINISHED = new AtomicBoolean();
    private static final java.util.logging.Logger HARDWOOD_LOG = java.util.logging.Logger.getLogger("dev.hardwood"); // held: JUL keeps loggers weakly

    /// Runs the command line and exits with its code.
    public static void main(String[] args) {
        Runtime.getRuntime().addShutdownHook(new Thread(Main::onSignal, "penstock-interrupt"));
        int code = execute(args);
        FINISHED.set(true);
        System.exit(code);
    }

    /// Runs the command line and returns its exit code (for tests).
    public static int execute(String... args) {
        boolean debug = List.of(args).contains("--debug");
        // the Parquet decoder's notes ("SIMD support: enabled", "Using GZIP decompressor") are not the
        // user's to read: warnings and errors pass, the rest only with --debug
        HARDWOOD_LOG.setLevel(debug ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING);
        CommandLine cl = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((e, a) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println(e.getCommandLine().getCommandSpec().qualifiedName() + ": " + misuse(e)
                    + " (see " + e.getCommandLine().getCommandSpec().qualifiedName() + " --help)");
            if (debug) {
                e.printStackTrace(err);
            }
            err.flush();
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((e, c, parsed) -> UserErrors.report(e, c, debug));
        for (CommandLine sub : cl.getSubcommands().values()) { // each command's examples (its footer), then the exit codes
            String[] own = sub.getCommandSpec().usageMessage().footer();
            String[] all = java.util.Arrays.copyOf(own, own.length + 1);
            all[own.length] = ExitCodes.HELP;
            sub.getCommandSpec().usageMessage().footer(all);
            OptionGroups.install(sub);
        }
        return cl.execute(args);
    }

    /// What was wrong with the command line, in one line. An unknown option comes first, with
    /// the options it may be a typo of (picocli reports a missing required option before it:
    /// `--encodng amplitude` would say "Missing required option '--encoding'").
    static String misuse(CommandLine.ParameterException e) {
        CommandLine cl = e.getCommandLine();
        List<String> unknown = cl.getParseResult() == null ? List.of()
                : cl.getParseResult().unmatched().stream().filter(u -> u.startsWith("-")).toList();
        CommandLine.UnmatchedArgumentException u = e instanceof CommandLine.UnmatchedArgumentException un ? un
                : unknown.isEmpty() ? null : new CommandLine.UnmatchedArgumentException(cl, unknown);
        if (u == null) {
            return e.getMessage();
        }
        List<String> close = u.getSuggestions();
        String first = u.getUnmatched().isEmpty() ? "" : u.getUnmatched().getFirst();
        return first.startsWith("-") ? "unknown option '" + first + "'" + (close.isEmpty() ? "" : "; did you mean " + String.join(" or ", close)
                .replace(", ", " or ") + "?") : e.getMessage();
    }

    /// A shutdown hook: a run still going when the JVM shuts down was interrupted (SIGINT or
    /// SIGTERM; `System.exit` from `main` sets FINISHED first). Its outputs are discarded.
    private static void onSignal() {
        if (FINISHED.get()) {
            return;
        }
        List<Path> left = PendingOutput.abortAll();
        System.err.println("penstock: interrupted; " + (left.isEmpty() ? "nothing was being written"
                : "discarded the unfinished " + left.stream().map(Path::toString).reduce((a, b) -> a + ", " + b).orElse("")
                + " (left as it was)"));
        System.err.flush();
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
