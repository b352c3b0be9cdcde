package dev.penstock.cli;

import dev.penstock.cuda.EncodeDevice;
import dev.penstock.metrics.PenstockMetrics;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.memory.DType;
import dev.penstock.io.OutputException;
import dev.penstock.io.OutputSet;
import dev.penstock.io.PendingOutput;
import dev.penstock.observe.Timeline;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.RowSink;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.StatesOutput;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/// `penstock encode`: rows of a `.npy`, Parquet or HDF5 file → quantum states in a `.npy` file or a Zarr group, through the
/// encode pipeline (I/O threads, staging, copy, encode kernel, ordered writer).
///
/// Why one file over 400 lines: picocli binds the command's options to this class's fields
/// (about a hundred lines of them), and the checks made before anything is written, the plan and
/// the choice of runner read them all; what does not need them lives elsewhere — the summary
/// (`EncodeReport`), the inputs (`EncodeInputs`), the device (`EncodeDevice`), the Flink run
/// (`FlinkEncodeRun`), the preflight (`Preflight`).
@Command(name = "encode", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        footer = {"%nExamples:",
            "  penstock encode --example 100000 --encoding amplitude --qubits 10 \\",
            "      --out states.npy",
            "  penstock encode rows.parquet --columns f0,f1,f2 --encoding angle \\",
            "      --qubits 3 --on-bad-row skip --out states.zarr",
            "  penstock encode table.arrow --encoding amplitude --qubits 8 --json \\",
            "      --out states.npy",
            "  penstock encode data.h5 --dataset /train/x --encoding iqp --qubits 6 \\",
            "      --timeline where.png --out states.npy", ""},
        description = "Encode the rows of INPUT (.npy, .parquet, .arrow/.feather/.arrows or .h5) into quantum states written to --out "
                + "(.npy or .zarr).")
public final class EncodeCommand implements Callable<Integer>, OptionGroups {
    @Override
    public java.util.List<String> optionGroups() {
        return java.util.List.of("Encoding", "Input", "Output", "Device and pipeline", "Reporting");
    }

    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    Verbosity verbosity;

    @Parameters(index = "0", arity = "0..1", paramLabel = "INPUT",
            description = "input rows: .npy ([rows, values] f32/f64), .parquet or Arrow IPC .arrow/.feather/.arrows (numeric columns, or "
                    + "one list column), or .h5/.hdf5 (a 2-D numeric dataset); omit with --example")
    Path input;

    @Option(names = "--encoding", paramLabel = "NAME", order = 101, required = true, description = "amplitude, angle, basis, phase, iqp or iqp-z")
    String encoding;

    @Option(names = "--qubits", paramLabel = "N", order = 102, required = true, description = "qubits per state (1-30)")
    int qubits;

    @Option(names = "--precision", paramLabel = "f32|f64", order = 103, description = "f32 (complex64 states) or f64 (complex128); default: the input's")
    String precision;

    @Option(names = "--out", paramLabel = "OUT", order = 301, required = true, description = "output states: a .npy file (with OUT.rows.npy, the input row of each state) or a .zarr "
            + "group (arrays 'states' chunked by --rows-per-chunk and 'rows'; Zarr v2 unless --zarr-format 3); written beside OUT "
            + "and renamed into place on success")
    Path out;

    @Option(names = "--zarr-format", order = 302, paramLabel = "2|3", defaultValue = "2", description = "Zarr specification of a .zarr OUT: 2 (zlib; "
            + "zarr-python 2.x reads it) or 3 (gzip; zarr-python 3's default) (default: ${DEFAULT-VALUE})")
    String zarrFormat;

    @Option(names = "--on-bad-row", paramLabel = "fail|skip", order = 104, defaultValue = "fail", description = "fail (default) or skip and report")
    String onBadRow;

    @Option(names = "--device", paramLabel = "cpu|cuda[:N]|auto", order = 401, defaultValue = "cpu", description = "cpu (default), cuda[:N] (an NVIDIA GPU through the CUDA driver) "
            + "or auto (cuda:0 when there is a GPU, else cpu)")
    String device;

    @Option(names = "--rows-per-chunk", paramLabel = "N", order = 402, defaultValue = "1024", description = "rows per chunk (default: ${DEFAULT-VALUE})")
    int rowsPerChunk;

    @Option(names = "--io-threads", paramLabel = "N", order = 403, defaultValue = "4", description = "I/O threads reading rows (default: ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--timeline", order = 502, paramLabel = "FILE.png", description = "draw where the time went: reads, staging, copies, "
            + "kernels and writes per lane over wall time")
    Path timelinePng;

    @Option(names = "--columns", paramLabel = "NAME", order = 201, split = ",", description = "Parquet or Arrow columns to read as the row's values "
            + "(default: the table's one list column, else its float columns, else its integer ones; the ones left out are named)")
    List<String> columns = List.of();

    @Option(names = "--dataset", order = 202, paramLabel = "PATH", description = "the HDF5 dataset to read, e.g. /features (default: the file's "
            + "only 2-D numeric dataset)")
    String dataset;

    @Option(names = "--example", paramLabel = "ROWS", order = 203, description = "first write an example input of this many rows (1 to 100,000,000; sine "
            + "features, 2^qubits values per row for amplitude) to INPUT (a new .npy file), or to target/example-rows.npy")
    Long exampleRows;

    @Option(names = "--dry-run", order = 504, description = "check everything and print the plan (rows, output size, memory, free space) "
            + "without creating any file")
    boolean dryRun;

    @Option(names = "--debug", order = 505, description = "print a stack trace with any error")
    boolean debug;

    @Option(names = "--metrics-port", order = 503, paramLabel = "PORT", description = "serve the run's meters (rows and chunks written, write "
            + "times, and the JVM's) as Prometheus text at http://127.0.0.1:PORT/metrics while it runs (0: any free port)")
    Integer metricsPort;

    @Option(names = "--runner", paramLabel = "local|flink", order = 404, defaultValue = "local", description = "local (this JVM) or "
            + "flink (the rows split into ranges encoded by Flink tasks on the embedded MiniCluster, each into a shard, joined into OUT "
            + "with OUT.manifest.json once the job has succeeded) (default: ${DEFAULT-VALUE})")
    String runner;

    @Option(names = "--parallelism", paramLabel = "N", order = 405, defaultValue = "2", description = "with --runner flink: tasks "
            + "encoding ranges at once (default: ${DEFAULT-VALUE})")
    int parallelism;

    @Option(names = "--checkpoint-interval", paramLabel = "MS", order = 406, defaultValue = "1000", description = "with --runner flink: "
            + "ms between checkpoints; a restarted job re-encodes only the ranges after the last one (default: ${DEFAULT-VALUE}; 0: none)")
    long checkpointMs;

    @Option(names = "--json", order = 501, description = "print the summary's figures as one JSON object on stdout (the text summary goes to stderr)")
    boolean json;

    static final long MAX_EXAMPLE_ROWS = 100_000_000L;
    private long commitNs;
    static final Path DEFAULT_EXAMPLE = Path.of("target", "example-rows.npy");

    @Override
    public Integer call() throws Exception {
        verbosity.apply(spec.commandLine());
        PrintStream o = verbosity.info(json);
        Encoding enc = parse(() -> Encoding.parse(encoding));
        BadRowPolicy policy = parse(() -> BadRowPolicy.parse(onBadRow));
        if (qubits < 1 || qubits > 30) {
            throw new ParameterException(spec.commandLine(), "option '--qubits' must be in [1, 30], got " + qubits);
        }
        boolean zarr = out.toString().endsWith(".zarr");
        if (!out.toString().endsWith(".npy") && !zarr) {
            throw new ParameterException(spec.commandLine(), "option '--out' " + out + ": expected a .npy file or a .zarr directory");
        }
        try {
            ZarrFormat.parse(zarrFormat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "option '--zarr-format': " + e.getMessage());
        }
        if (exampleRows != null) {
            checkExample(enc);
        } else if (input == null) {
            throw new ParameterException(spec.commandLine(), "missing INPUT (or give --example ROWS to generate one)");
        } else if (!Files.isRegularFile(input)) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + (Files.exists(input) ? ": not a file" : ": no such file"));
        }
        boolean parquet = input.toString().endsWith(".parquet");
        boolean hdf5 = input.toString().endsWith(".h5") || input.toString().endsWith(".hdf5");
        String name = input.toString();
        boolean arrow = name.endsWith(".arrow") || name.endsWith(".feather") || name.endsWith(".arrows");
        if (!input.toString().endsWith(".npy") && !parquet && !hdf5 && !arrow) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + ": expected a .npy, .parquet, .arrow/.feather/.arrows or .h5/.hdf5 file");
        }
        if (dataset != null && !hdf5) {
            throw new ParameterException(spec.commandLine(), "option '--dataset' names an HDF5 dataset; INPUT " + input + " is not an .h5/.hdf5 file");
        }
        if (!columns.isEmpty() && !parquet && !arrow) {
            throw new ParameterException(spec.commandLine(), "option '--columns' selects Parquet or Arrow columns; INPUT " + input
                    + " is neither");
        }
        if (timelinePng != null) {
            checkWritable("--timeline", timelinePng);
            refuseInput(timelinePng, input);
        }
        refuseInput(out, input);
        refuseInput(rowsFile(), input);
        refuseInput(skippedFile(), input);
        DType states = statesType();
        if (exampleRows != null) {
            int len = (int) enc.inputLength(Math.min(qubits, 20));
            Preflight.forOutput(spec, "example input " + input, input, exampleRows * len * 8L);
            if (dryRun) {
                o.printf(Locale.ROOT, "would write %,d example rows of %d values (%s) to %s%n", exampleRows, len,
                        Preflight.bytes(exampleRows * len * 8L), input);
            } else {
                ExampleRows.write(input, exampleRows, len, enc, o, verbosity.progress());
            }
        }
        if (dryRun && exampleRows != null) {
            var cfg = parse(() -> new EncodePipeline.Config(enc, qubits, states == null ? DType.C128 : states, rowsPerChunk, 3, ioThreads,
                    policy));
            Preflight.encodePlan(spec, o, exampleRows, (int) enc.inputLength(Math.min(qubits, 20)), DType.F64, cfg, out, zarr, dryRun);
            return 0;
        }
        try (EncodeInputs.Opened in = openInput(parquet, hdf5, arrow, policy)) {
            RowSource source = in.source();
            if (source.rowLength() < 1 && source.rows() > 0) {
                throw new ParameterException(spec.commandLine(), "INPUT " + input + ": its " + source.rows()
                        + " rows have no values; nothing to encode");
            }
            long need = enc.inputLength(qubits); // known before any row is read: a width that can never encode is refused here
            boolean exact = enc != Encoding.AMPLITUDE;
            if (source.rows() > 0 && (exact ? source.rowLength() != need : source.rowLength() > need)) {
                throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT, "INPUT %s has %d values a row, and %s on %d "
                        + "qubits takes %s %d: choose the columns with --columns%s", input, source.rowLength(), enc.label(), qubits,
                        exact ? "exactly" : "at most", need, exact ? " or set --qubits" : " or use more --qubits"));
            }
            DType stateType = states != null ? states : source.dtype() == DType.F32 ? DType.C64 : DType.C128;
            var cfg = parse(() -> new EncodePipeline.Config(enc, qubits, stateType, rowsPerChunk, 3, ioThreads, policy));
            boolean flink = runner.equalsIgnoreCase("flink");
            if (!in.read().isEmpty()) { // which columns (or dataset) the rows are made of, before anything runs
                o.println("reading " + input.getFileName() + ": " + in.read());
            }
            Preflight.encodePlan(spec, o, source.rows(), source.rowLength(), source.dtype(), cfg, out, zarr, dryRun, flink);
            if (dryRun) {
                return 0;
            }
            if (flink) {
                try {
                    return FlinkEncodeRun.command(this, o, enc, cfg, source);
                } catch (Exception e) {
                    // a full disk in a task or the join: one line naming OUT, exit 5, at once
                    if (UserErrors.userCause(e) instanceof java.io.IOException io && !(io instanceof OutputException)) {
                        throw UserErrors.naming(out, io);
                    }
                    throw e;
                }
            } else if (!runner.equalsIgnoreCase("local")) {
                throw new ParameterException(spec.commandLine(), "option '--runner': expected local or flink, got '" + runner + "'");
            }
            EncodeDevice dev;
            try {
                dev = EncodeDevice.open(device);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            o.println("device: " + dev.description());
            verbosity.settings(o, String.format(Locale.ROOT, "encoding %s, %d qubits, %s states, %d rows per chunk, %d I/O threads, "
                    + "bad rows: %s, output %s%s", enc.label(), qubits, cfg.output().label(), rowsPerChunk, ioThreads, policy, out,
                    zarr ? " (Zarr v" + zarrFormat.replace("v", "") + ")" : ""));
            try (dev) {
                return encode(o, dev, in, cfg, zarr);
            }
        }
    }

    boolean zarrOut() {
        return out.toString().endsWith(".zarr");
    }

    private EncodeInputs.Opened openInput(boolean parquet, boolean hdf5, boolean arrow, BadRowPolicy policy) throws java.io.IOException {
        if (parquet) {
            return EncodeInputs.parquet(input, columns, policy == BadRowPolicy.SKIP);
        }
        if (hdf5) {
            return EncodeInputs.hdf5(input, dataset);
        }
        if (arrow) {
            return EncodeInputs.arrow(input, columns);
        }
        try {
            return EncodeInputs.npy(input);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /// Encodes into outputs written beside their destinations, committed only on success.
    private int encode(PrintStream o, EncodeDevice dev, EncodeInputs.Opened in, EncodePipeline.Config cfg, boolean zarr) throws Exception {
        if (metricsPort == null) {
            return encode(o, dev, in, cfg, zarr, null);
        }
        if (metricsPort < 0 || metricsPort > 65535) {
            throw new ParameterException(spec.commandLine(), "option '--metrics-port' must be in [0, 65535], got " + metricsPort);
        }
        try (MetricsServer metrics = MetricsServer.start(metricsPort)) {
            PenstockMetrics.staging(metrics.registry(), "encode");
            System.err.println("metrics: " + metrics.url());
            return encode(o, dev, in, cfg, zarr, metrics);
        }
    }

    private int encode(PrintStream o, EncodeDevice dev, EncodeInputs.Opened in, EncodePipeline.Config cfg, boolean zarr, MetricsServer metrics)
            throws Exception {
        RowSource source = in.source();
        EncodeSummary s;
        Timeline timeline = timelinePng == null ? null : new Timeline();
        Progress progress = Progress.start(source.rows(), verbosity.progress());
        DType states = cfg.output();
        try {
            // OUT and its sidecars: checked before anything is written, committed together or not at all
            try (OutputSet outputs = OutputSet.begin(out, zarr, List.of(rowsFile(), skippedFile()));
                 StatesOutput w = StatesOutput.open(out, zarr ? ZarrFormat.parse(zarrFormat) : null, states, qubits, source.rows(),
                    rowsPerChunk, cfg.encoding().label(), input.getFileName().toString())) {
                s = dev.run(source, metered(progress.counting(w), metrics), cfg, timeline);
                progress.stop();
                if (s.rowsWritten() == 0 && source.rows() > 0) { // not a success: nothing committed, OUT as it was
                    EncodingException first = s.skipped().isEmpty() ? null : s.skipped().getFirst();
                    System.err.println("penstock encode: " + input + ": none of its " + source.rows() + " rows could be encoded"
                            + (first == null ? "" : " (the first: " + first.getMessage() + ")") + "; " + out
                            + " left as it was");
                    return ExitCodes.BAD_INPUT;
                }
                long c0 = System.nanoTime();
                EncodeReport.writeSkipped(skippedFile(), s, in.problems());
                w.commit(source.rows(), s.skipped().stream().mapToLong(EncodingException::row).toArray());
                outputs.commit();
                commitNs = System.nanoTime() - c0;
            }
        } catch (java.io.IOException e) {
            throw UserErrors.naming(out, e);
        } catch (EncodingException e) {
            progress.stop();
            System.err.println("penstock encode: " + input + ": " + e.getMessage()
                    + " (use --on-bad-row skip to leave bad rows out); " + out + " left as it was");
            return ExitCodes.BAD_INPUT;
        } finally {
            progress.stop();
        }
        new EncodeReport(out, rowsFile(), skippedFile(), encoding, qubits, json).print(o, s, in.problems(), commitNs);
        if (timeline != null) {
            TimelinePlot.write(timeline, timelinePng, "penstock encode " + input.getFileName() + " — " + encoding + ", "
                    + qubits + " qubits, " + s.rowsRead() + " rows");
            o.println("timeline: " + timelinePng);
        }
        return 0;
    }

    private DType statesType() {
        if (precision == null) {
            return null;
        }
        return switch (precision.toLowerCase(Locale.ROOT)) {
            case "f32" -> DType.C64;
            case "f64" -> DType.C128;
            default -> throw new ParameterException(spec.commandLine(), "option '--precision': expected f32 or f64, got '"
                    + precision + "'");
        };
    }

    /// `--example`: a sane row count, a .npy path, and never over a file the user has.
    private void checkExample(Encoding enc) {
        if (exampleRows < 1 || exampleRows > MAX_EXAMPLE_ROWS) {
            throw new ParameterException(spec.commandLine(), "option '--example' must be in [1, " + MAX_EXAMPLE_ROWS + "] rows, got "
                    + exampleRows);
        }
        if (input == null) {
            input = DEFAULT_EXAMPLE; // the example's own file: rewritten by every --example run, never a user's file
            if (Files.exists(input) && !ExampleRows.isExample(input)) {
                throw new ParameterException(spec.commandLine(), input + " exists and is not an example Penstock wrote; "
                        + "--example never replaces a file of yours: move it, or name a new INPUT file for the example");
            }
        } else if (!input.toString().endsWith(".npy")) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + ": --example writes a .npy file; name one ending in .npy");
        } else if (Files.exists(input)) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + " exists; --example writes a new file and never "
                    + "replaces one of yours: remove it, name a new file, or drop --example to encode it");
        }
        if (qubits > 20 && enc == Encoding.AMPLITUDE) {
            throw new ParameterException(spec.commandLine(), "option '--example': amplitude examples go up to 20 qubits, got " + qubits);
        }
    }

    /// Refuses (before anything runs) an output whose folder cannot be made or written.
    private void checkWritable(String option, Path file) {
        Path parent = file.toAbsolutePath().getParent();
        try {
            Files.createDirectories(parent);
        } catch (java.io.IOException | SecurityException e) {
            throw new ParameterException(spec.commandLine(), "option '" + option + "': cannot write " + file + ": no folder "
                    + parent + " can be made there");
        }
        if (!Files.isWritable(parent) || Files.isDirectory(file)) {
            throw new ParameterException(spec.commandLine(), "option '" + option + "': cannot write " + file
                    + (Files.isDirectory(file) ? ": it is a directory" : ": " + parent + " is not writable"));
        }
    }

    private void refuseInput(Path output, Path in) {
        try {
            PendingOutput.refuseInputs(output, List.of(in));
        } catch (OutputException e) {
            throw new ParameterException(spec.commandLine(), "option '--out': " + e.getMessage());
        }
    }

    /// `OUT.rows.npy`: the input row of each state (int64), beside a .npy output.
    private Path rowsFile() {
        return StatesOutput.rowsFile(out, zarrOut());
    }

    /// `OUT.skipped.tsv`: every row left out, with the reason.
    Path skippedFile() {
        return out.resolveSibling(out.getFileName() + ".skipped.tsv");
    }

    /// `sink`, counted into `metrics`' registry when there is one.
    private static RowSink metered(RowSink sink, MetricsServer metrics) {
        return metrics == null ? sink : PenstockMetrics.encode(metrics.registry(), "encode", sink);
    }

    private <T> T parse(java.util.function.Supplier<T> f) {
        try {
            return f.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), asOption(e.getMessage()));
        }
    }

    /// A library's message about one of its parameters, said of the option that set it: the
    /// library names `rowsPerChunk`, the user typed `--rows-per-chunk`.
    static String asOption(String message) {
        String[][] names = {{"qubits", "--qubits"}, {"rowsPerChunk", "--rows-per-chunk"}, {"slots", "--slots"},
                {"ioThreads", "--io-threads"}, {"output:", "--precision"}, {"unknown encoding", "--encoding"},
                {"unknown bad-row policy", "--on-bad-row"}};
        for (String[] n : names) {
            if (message.startsWith(n[0])) {
                return n[0].startsWith("unknown") ? "option '" + n[1] + "': " + message
                        : "option '" + n[1] + "'" + message.substring(n[0].endsWith(":") ? n[0].length() - 1 : n[0].length());
            }
        }
        return message;
    }
}
