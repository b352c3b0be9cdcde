package dev.penstock.cli;

import dev.penstock.flink.EncodeJoin;
import dev.penstock.flink.FlinkEncode;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.io.OutputSet;
import dev.penstock.io.PendingOutput;
import dev.penstock.memory.DType;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.RowSource;
import picocli.CommandLine.ParameterException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/// `penstock encode --runner flink`: runs `FlinkEncode` on the embedded MiniCluster into shards
/// in a private folder beside OUT (`PendingOutput.scratch`), then, once the job has succeeded,
/// joins them (`EncodeJoin`: OUT, its input rows, `OUT.skipped.tsv` — a local encode's bytes — and
/// `OUT.manifest.json`, the manifest last). A failed job leaves every destination as it was; the
/// shards are deleted.
final class FlinkEncodeRun {
    private FlinkEncodeRun() {
    }

    /// `encode --runner flink` as `c`'s options say: checks, the ranges, the job and its join, the summary.
    static int command(EncodeCommand c, PrintStream o, Encoding enc, EncodePipeline.Config cfg, RowSource source) throws Exception {
        if (c.timelinePng != null || c.metricsPort != null) {
            throw new ParameterException(c.spec.commandLine(), "--runner flink runs without --timeline or --metrics-port (for now)");
        }
        String device = taskDevice(c, o, source, cfg);
        if (c.parallelism < 1 || c.checkpointMs < 0) {
            throw new ParameterException(c.spec.commandLine(), "options '--parallelism' must be ≥ 1 and '--checkpoint-interval' ≥ 0, got "
                    + c.parallelism + ", " + c.checkpointMs);
        }
        FlinkEncode.Spec job = new FlinkEncode.Spec(c.input.toAbsolutePath().toString(), c.columns, c.dataset, enc.label(), c.qubits,
                cfg.output().label(), cfg.rowsPerChunk(), cfg.policy() == BadRowPolicy.SKIP, "", device);
        List<FlinkEncode.Range> ranges = source.sequential() // Parquet: whole row groups, each range read on its own
                ? FlinkEncode.parquetRanges(dev.penstock.formats.parquet.ParquetRowGroups.rowsOf(c.input), source.rowLength(), c.parallelism)
                : FlinkEncode.ranges(source.rows(), cfg.rowsPerChunk(), c.parallelism);
        FlinkEncodeRun.Result r;
        try {
            r = run(o, job, ranges, source.rows(), cfg.output(), c.parallelism, c.checkpointMs, c.out,
                    c.zarrOut() ? ZarrFormat.parse(c.zarrFormat) : null);
        } catch (Exception e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof EncodingException bad) {
                    System.err.println("penstock encode: " + c.input + ": " + bad.getMessage() + " (--on-bad-row skip leaves bad rows out); "
                            + c.out + " left as it was");
                    return ExitCodes.BAD_INPUT;
                }
            }
            throw e;
        }
        o.printf(Locale.ROOT, "encoded %d of %d rows (%s, %d qubits) on Flink in %.3f s (the job %.3f s): %.0f rows/s -> %s%n", r.written(),
                r.rows(), c.encoding, c.qubits, r.wallS(), r.jobS(), r.rows() / r.wallS(), c.out);
        if (!r.skipped().isEmpty()) {
            o.printf("skipped %d bad rows; every one, with its reason: %s%n", r.skipped().size(), c.skippedFile());
        }
        o.println("manifest: " + r.manifest());
        if (c.json) {
            System.out.println("{\"rows\": " + r.rows() + ", \"rows_written\": " + r.written() + ", \"rows_skipped\": " + r.skipped().size()
                    + ", \"wall_s\": " + JsonFigures.number(r.wallS()) + ", \"job_s\": " + JsonFigures.number(r.jobS()) + ", \"ranges\": "
                    + r.ranges() + ", \"parallelism\": " + c.parallelism + ", \"out\": " + JsonFigures.quote(c.out.toString())
                    + ", \"manifest\": " + JsonFigures.quote(r.manifest().toString()) + "}");
        }
        return 0;
    }


    /// What the run did, for the summary.
    record Result(long rows, long written, List<String> skipped, int ranges, double wallS, double jobS, Path manifest) {
    }

    /// The tasks' device for `--device`: the embedded cluster's task managers are this machine,
    /// so `cuda` is checked here (one line saying why it cannot run, before any job), `auto` is
    /// `cuda` where the driver sees a GPU and `cpu` otherwise; with `cuda`, task k takes GPU k
    /// modulo the GPUs seen (`EncodeDevice.open(option, task)`).
    private static String taskDevice(EncodeCommand c, PrintStream o, RowSource source, EncodePipeline.Config cfg) {
        String d;
        try {
            d = dev.penstock.cuda.EncodeDevice.checked(c.device);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(c.spec.commandLine(), e.getMessage());
        }
        if (d.equals("cpu")) {
            return d;
        }
        dev.penstock.cuda.CudaDriver.Probe p = dev.penstock.cuda.CudaDriver.probe();
        String why = p.usable() ? dev.penstock.cuda.CudaDevice.unsupported(p, 0) : p.reason();
        if (d.equals("auto")) {
            d = why == null ? "cuda" : "cpu";
            o.println("device: auto: " + (why == null ? "cuda on every task (" + p.devices() + " GPU(s) here)" : "cpu (" + why + ")"));
            if (d.equals("cpu")) {
                return d;
            }
        } else if (why != null) {
            throw new ParameterException(c.spec.commandLine(), "option '--device': " + d + " is not available: " + why);
        }
        if (source.dtype() == DType.F32 && cfg.output() == DType.C128) {
            throw new ParameterException(c.spec.commandLine(), "option '--precision': the CUDA kernels encode float32 rows into c64 states "
                    + "only; use --precision f32 or float64 input");
        }
        return d;
    }

    static Result run(PrintStream o, FlinkEncode.Spec spec, List<FlinkEncode.Range> ranges, long rows, DType states, int parallelism,
            long checkpointMs, Path out) throws Exception {
        return run(o, spec, ranges, rows, states, parallelism, checkpointMs, out, null);
    }

    /// As `run`, into a Zarr group at `out` (arrays `states` in chunks of `spec.rowsPerChunk()`
    /// rows, at most the input's, and `rows`, as a local encode writes it) when `zarr` is not null.
    static Result run(PrintStream o, FlinkEncode.Spec spec, List<FlinkEncode.Range> ranges, long rows, DType states, int parallelism,
            long checkpointMs, Path out, ZarrFormat zarr) throws Exception {
        long t0 = System.nanoTime();
        // OUT and its sidecars, checked and locked before the job, committed together after the join;
        // the shards: a folder of our own beside OUT, the user's alone, never committed (closing deletes it)
        List<Path> sidecars = List.of(dev.penstock.quantum.StatesOutput.rowsFile(out, zarr != null),
                out.resolveSibling(out.getFileName() + ".skipped.tsv"), out.resolveSibling(out.getFileName() + ".manifest.json"));
        try (OutputSet outputs = OutputSet.begin(out, zarr != null, sidecars);
             PendingOutput parts = PendingOutput.scratch(out.resolveSibling(out.getFileName() + ".shards"))) {
            FlinkEncode.Spec inParts = new FlinkEncode.Spec(spec.input(), spec.columns(), spec.dataset(), spec.encoding(), spec.qubits(),
                    spec.states(), spec.rowsPerChunk(), spec.skipBadRows(), parts.path().toString(), spec.device());
            StreamExecutionEnvironment env = FlinkEncode.localEnvironment(parallelism);
            FlinkEncode.build(env, inParts, ranges, parallelism, checkpointMs);
            o.printf(Locale.ROOT, "flink: %,d rows in %d ranges over %d tasks (embedded MiniCluster)%n", rows, ranges.size(), parallelism);
            long j0 = System.nanoTime();
            env.execute("penstock encode " + Path.of(spec.input()).getFileName());
            double jobS = (System.nanoTime() - j0) / 1e9;
            EncodeJoin.Joined j = EncodeJoin.join(inParts, ranges, rows, states, parallelism, parts.path(), out, zarr);
            outputs.commit();
            return new Result(rows, j.written(), j.skipped(), ranges.size(), (System.nanoTime() - t0) / 1e9, jobS, j.manifest());
        }
    }
}
