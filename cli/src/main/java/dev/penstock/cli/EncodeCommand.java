package dev.penstock.cli;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.formats.zarr.ZarrWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.observe.Timeline;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.EncodeSummary;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.RowSource;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/// `penstock encode`: rows of a `.npy` file → quantum states in a `.npy` file, through the
/// encode pipeline (I/O threads, staging, copy, encode kernel, ordered writer).
@Command(name = "encode", mixinStandardHelpOptions = true,
        description = "Encode the rows of INPUT (.npy or .parquet) into quantum states written to --out (.npy or .zarr).")
public final class EncodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "INPUT",
            description = "input rows: .npy ([rows, values] f32/f64) or .parquet (numeric columns); omit with --example")
    Path input;

    @Option(names = "--encoding", required = true, description = "amplitude, angle, basis, phase, iqp or iqp-z")
    String encoding;

    @Option(names = "--qubits", required = true, description = "qubits per state (1-30)")
    int qubits;

    @Option(names = "--precision", description = "f32 (complex64 states) or f64 (complex128); default: the input's")
    String precision;

    @Option(names = "--out", required = true, description = "output states: a .npy file or a .zarr directory (Zarr v2, zlib, chunked by --rows-per-chunk)")
    Path out;

    @Option(names = "--on-bad-row", defaultValue = "fail", description = "fail (default) or skip and report")
    String onBadRow;

    @Option(names = "--device", defaultValue = "cpu", description = "cpu (default), cuda[:N] (an NVIDIA GPU through the CUDA driver) "
            + "or auto (cuda:0 when there is a GPU, else cpu)")
    String device;

    @Option(names = "--rows-per-chunk", defaultValue = "1024", description = "rows per chunk (default: ${DEFAULT-VALUE})")
    int rowsPerChunk;

    @Option(names = "--io-threads", defaultValue = "4", description = "I/O threads reading rows (default: ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--timeline", paramLabel = "FILE.png", description = "draw where the time went: reads, staging, copies, "
            + "kernels and writes per lane over wall time")
    Path timelinePng;

    @Option(names = "--columns", split = ",", description = "Parquet columns to read as the row's values "
            + "(default: every flat numeric column)")
    java.util.List<String> columns = java.util.List.of();

    @Option(names = "--example", description = "first write an example input of this many rows (sine features, "
            + "2^qubits values per row for amplitude) to INPUT, or to target/example-rows.npy")
    Long exampleRows;

    @Override
    public Integer call() throws Exception {
        Encoding enc = parse(() -> Encoding.parse(encoding));
        BadRowPolicy policy = parse(() -> BadRowPolicy.parse(onBadRow));
        if (qubits < 1 || qubits > 30) {
            throw new ParameterException(spec.commandLine(), "option '--qubits' must be in [1, 30], got " + qubits);
        }
        if (exampleRows != null) {
            input = input != null ? input : Path.of("target", "example-rows.npy");
            writeExample(input, exampleRows, (int) enc.inputLength(Math.min(qubits, 20)), enc);
        } else if (input == null) {
            throw new ParameterException(spec.commandLine(), "missing INPUT (or give --example ROWS to generate one)");
        }
        boolean parquet = input.toString().endsWith(".parquet");
        if (!input.toString().endsWith(".npy") && !parquet) {
            throw new ParameterException(spec.commandLine(), "INPUT " + input + ": expected a .npy or a .parquet file");
        }
        boolean zarr = out.toString().endsWith(".zarr");
        if (!out.toString().endsWith(".npy") && !zarr) {
            throw new ParameterException(spec.commandLine(), "option '--out' " + out + ": expected a .npy file or a .zarr directory");
        }
        PrintStream o = System.out;
        EncodeDevice dev;
        try {
            dev = EncodeDevice.open(device);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        o.println("device: " + dev.description());
        try (dev; Inputs.Opened in = parquet ? Inputs.parquet(input, columns) : Inputs.npy(input, spec)) {
            RowSource source = in.source();
            DType states = precision == null ? (source.dtype() == DType.F32 ? DType.C64 : DType.C128)
                    : switch (precision.toLowerCase(Locale.ROOT)) {
                        case "f32" -> DType.C64;
                        case "f64" -> DType.C128;
                        default -> throw new ParameterException(spec.commandLine(), "option '--precision': expected f32 or f64, got '"
                                + precision + "'");
                    };
            var cfg = parse(() -> new EncodePipeline.Config(enc, qubits, states, rowsPerChunk, 3, ioThreads, policy));
            EncodeSummary s;
            Timeline timeline = timelinePng == null ? null : new Timeline();
            Progress progress = Progress.start(source.rows());
            try {
                if (zarr) {
                    try (ZarrWriter w = ZarrWriter.open(out, states, 1L << qubits, rowsPerChunk, 1,
                            Map.of("encoding", enc.label(), "qubits", qubits, "source", input.getFileName().toString()))) {
                        s = dev.run(source, progress.counting(w::append), cfg, timeline);
                    }
                } else {
                    try (NpyWriter w = NpyWriter.open(out, states, 1L << qubits)) {
                        s = dev.run(source, progress.counting(w::append), cfg, timeline);
                    }
                }
            } catch (EncodingException e) {
                progress.stop();
                System.err.println("penstock encode: " + input + ": " + e.getMessage()
                        + " (use --on-bad-row skip to leave bad rows out)");
                return 3;
            }
            progress.stop();
            summary(o, s);
            if (timeline != null) {
                TimelinePlot.write(timeline, timelinePng, "penstock encode " + input.getFileName() + " — " + encoding + ", "
                        + qubits + " qubits, " + s.rowsRead() + " rows");
                o.println("timeline: " + timelinePng);
            }
        }
        return 0;
    }

    private void summary(PrintStream o, EncodeSummary s) {
        o.printf(Locale.ROOT, "encoded %d of %d rows (%s, %d qubits) in %.3f s: %.0f rows/s -> %s%n", s.rowsWritten(), s.rowsRead(),
                encoding, qubits, s.wallNs() / 1e9, s.rowsPerSecond(), out);
        if (!s.skipped().isEmpty()) {
            o.printf("skipped %d bad rows:%n", s.skipped().size());
            s.skipped().stream().limit(20).forEach(e -> o.println("  " + e.getMessage()));
            if (s.skipped().size() > 20) {
                o.printf("  … and %d more%n", s.skipped().size() - 20);
            }
        }
        var t = s.transfer();
        o.printf(Locale.ROOT, "where the time went (stages overlap): waiting for reads %.1f ms, waiting for staging %.1f ms, "
                + "copies %.1f ms, encoding %.1f ms, waiting for the writer %.1f ms, writing %.1f ms%n", s.ioWaitNs() / 1e6,
                t.slotWaitNs() / 1e6, t.copyNs() / 1e6, (t.kernelNs() - s.outputWaitNs()) / 1e6, s.outputWaitNs() / 1e6,
                s.writeNs() / 1e6);
        o.println("rows: " + s.rowsRead());
        o.println("rows_written: " + s.rowsWritten());
        o.println("rows_skipped: " + s.skipped().size());
        o.printf(Locale.ROOT, "rows_per_s: %.1f%n", s.rowsPerSecond());
    }

    /// A deterministic example: row r, value j = sin(0.01·j·(r mod 97 + 1)) + 1.5 (never all zero).
    private static void writeExample(Path file, long rows, int len, Encoding enc) throws Exception {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (HostArena arena = Memory.newConfinedArena("example"); NpyWriter w = NpyWriter.open(file, DType.F64, len)) {
            int chunk = 1024;
            Block b = arena.allocate(DType.F64, chunk, len);
            for (long first = 0; first < rows; first += chunk) {
                int n = (int) Math.min(chunk, rows - first);
                for (int r = 0; r < n; r++) {
                    for (int j = 0; j < len; j++) {
                        double v = enc == Encoding.BASIS ? (first + r) % (1L << 20) % 2
                                : Math.sin(0.01 * j * ((first + r) % 97 + 1)) + 1.5;
                        b.setDouble((long) r * len + j, v);
                    }
                }
                w.append(b.slice(0, n));
            }
        }
        System.out.printf("wrote %d example rows of %d values to %s%n", rows, len, file);
    }

    private <T> T parse(java.util.function.Supplier<T> f) {
        try {
            return f.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
