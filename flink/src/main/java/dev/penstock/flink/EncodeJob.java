package dev.penstock.flink;

import dev.penstock.formats.parquet.ParquetRowGroups;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.memory.DType;
import dev.penstock.quantum.EncodeInputs;
import dev.penstock.quantum.Encoding;
import dev.penstock.io.PendingOutput;
import dev.penstock.quantum.RowSource;
import dev.penstock.quantum.StatesOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/// `penstock encode --runner flink` as a job for a standalone Flink cluster, from the job jar
/// (`flink/target/penstock-flink-*-job.jar`), run attached so that the client joins the shards
/// when the job has succeeded:
///
/// ```
///   flink run -c dev.penstock.flink.EncodeJob penstock-flink-0.1.0-SNAPSHOT-job.jar \
///       --input /shared/rows.parquet --out /shared/states.npy|states.zarr --encoding amplitude --qubits 10 \
///       [--columns a,b] [--dataset /x] [--precision f32|f64] [--rows-per-chunk 1024] [--on-bad-row fail|skip] \
///       [--zarr-format 2|3] [--parallelism 2] [--checkpoint-interval 1000] [--shards /shared/dir] \
///       [--device cpu|cuda|cuda:N|auto]
/// ```
///
/// `--input` must be readable and `--shards` (default: a folder beside `--out`) writable by every
/// task manager at the same path (shared storage); the tasks read their ranges and write their
/// shards there, the client (this `main`) joins them into `--out` with its manifest, as the
/// embedded runner does. Restarts and checkpoint storage are the cluster's. `--device cuda` runs
/// each task on a GPU of its task manager (task k on GPU k mod the GPUs it sees: one each where a
/// task manager has as many GPUs as slots); a task manager without one fails the job, naming it.
/// The CUDA driver is reached through `java.lang.foreign`: give the task managers
/// `--enable-native-access=ALL-UNNAMED` (`env.java.opts.taskmanager`), or the JVM warns on first use.
public final class EncodeJob {
    private static final Set<String> KEYS = Set.of("input", "out", "encoding", "qubits", "columns", "dataset", "precision", "rows-per-chunk",
            "on-bad-row", "zarr-format", "parallelism", "checkpoint-interval", "shards", "device");

    private EncodeJob() {
    }

    /// Parses `--key value` pairs; unknown keys and missing values are errors naming the option.
    static Map<String, String> options(String[] args) {
        return JobArgs.parse(args, KEYS, List.of("input", "out", "encoding", "qubits"));
    }

    /// Runs the job on the cluster `flink run` gives and joins its shards.
    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        run(StreamExecutionEnvironment.getExecutionEnvironment(), o);
    }

    /// Builds and runs the job on `env`, then joins; returns the join.
    static EncodeJoin.Joined run(StreamExecutionEnvironment env, Map<String, String> o) throws Exception {
        Path input = Path.of(o.get("input")).toAbsolutePath();
        Path out = Path.of(o.get("out")).toAbsolutePath();
        Encoding encoding = Encoding.parse(o.get("encoding"));
        int qubits = JobArgs.integer(o, "qubits", 0); // required: parse refused its absence
        int parallelism = JobArgs.integer(o, "parallelism", 2);
        int rowsPerChunk = JobArgs.integer(o, "rows-per-chunk", 1024);
        long checkpointMs = JobArgs.number(o, "checkpoint-interval", 1000);
        boolean skip = o.getOrDefault("on-bad-row", "fail").equals("skip");
        List<String> columns = o.containsKey("columns") ? Arrays.stream(o.get("columns").split(",")).map(String::trim).toList() : List.of();
        ZarrFormat zarr = out.toString().endsWith(".zarr") ? ZarrFormat.parse(o.getOrDefault("zarr-format", "2")) : null;
        String device = dev.penstock.cuda.EncodeDevice.checked(o.getOrDefault("device", "cpu")); // before anything is read or made
        for (Path written : List.of(out, StatesOutput.rowsFile(out, zarr != null), out.resolveSibling(out.getFileName() + ".skipped.tsv"),
                out.resolveSibling(out.getFileName() + ".manifest.json"))) {
            PendingOutput.refuseInputs(written, List.of(input)); // an input is never an output
        }
        long rows;
        int rowLength;
        DType in;
        boolean sequential;
        try (EncodeInputs.Opened opened = EncodeInputs.open(input, columns, o.get("dataset"), skip)) {
            RowSource source = opened.source();
            rows = source.rows();
            rowLength = source.rowLength();
            in = source.dtype();
            sequential = source.sequential();
        }
        DType states = o.containsKey("precision") ? (o.get("precision").equals("f32") ? DType.C64 : DType.C128)
                : in == DType.F32 ? DType.C64 : DType.C128;
        if (!device.equalsIgnoreCase("cpu") && in == DType.F32 && states == DType.C128) {
            throw new IllegalArgumentException("option '--precision': the CUDA kernels encode float32 rows into c64 states only; use "
                    + "--precision f32 or float64 input");
        }
        List<FlinkEncode.Range> ranges = sequential ? FlinkEncode.parquetRanges(ParquetRowGroups.rowsOf(input), rowLength, parallelism)
                : FlinkEncode.ranges(rows, rowsPerChunk, parallelism);
        Path shards = Path.of(o.getOrDefault("shards", out.resolveSibling(out.getFileName() + ".shards").toString())).toAbsolutePath();
        Files.createDirectories(shards);
        FlinkEncode.Spec spec = new FlinkEncode.Spec(input.toString(), columns, o.get("dataset"), encoding.label(), qubits, states.label(),
                rowsPerChunk, skip, shards.toString(), device);
        FlinkEncode.build(env, spec, ranges, parallelism, checkpointMs);
        long t0 = System.nanoTime();
        env.execute("penstock encode " + input.getFileName());
        EncodeJoin.Joined j = EncodeJoin.join(spec, ranges, rows, states, parallelism, shards, out, zarr);
        try (var left = Files.list(shards)) {
            for (Path p : left.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(shards);
        System.out.printf(Locale.ROOT, "encoded %d of %d rows into %s in %.1f s (%d ranges, %d tasks); manifest %s%n", j.written(), rows, out,
                (System.nanoTime() - t0) / 1e9, ranges.size(), parallelism, j.manifest());
        return j;
    }
}
