package dev.penstock.cli;

import dev.penstock.flink.FlinkEncode;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.formats.zarr.ZarrGroup;
import dev.penstock.formats.zarr.ZarrWriter;
import dev.penstock.io.PendingOutput;
import dev.penstock.memory.DType;
import dev.penstock.quantum.EncodingException;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.RowSource;
import picocli.CommandLine.ParameterException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/// `penstock encode --runner flink`: runs `FlinkEncode` on the embedded MiniCluster into shards
/// in a hidden folder beside OUT, then, once the job has succeeded, joins them into the outputs
/// a local encode writes (OUT — a `.npy` with `OUT.rows.npy`, or a Zarr group with its `states`
/// and `rows` — and `OUT.skipped.tsv` when rows were skipped: the same bytes) and `OUT.manifest.json`, each written beside its destination and renamed into place,
/// the manifest last. A failed job leaves every destination as it was; the shards are deleted.
///
/// ```
///   OUT.manifest.json  {"input": …, "encoding": …, "qubits": …, "states": "c128", "rows": N,
///                       "rows_written": W, "rows_skipped": S, "parallelism": P, "out": …,
///                       "out_data_sha256": … (of OUT's states, after its header), "rows_file": …,
///                       "shards": [{"index": 0, "first_row": 0, "rows": R, "first_state": 0, "rows_written": R',
///                                   "rows_skipped": …, "sha256": … (of its states as they lie in OUT,
///                                   from state first_state on)}, …]}
/// ```
final class FlinkEncodeRun {
    private FlinkEncodeRun() {
    }

    /// `encode --runner flink` as `c`'s options say: checks, the ranges, the job and its join, the summary.
    static int command(EncodeCommand c, PrintStream o, Encoding enc, EncodePipeline.Config cfg, RowSource source) throws Exception {
        if (c.timelinePng != null || c.metricsPort != null || !c.device.equalsIgnoreCase("cpu")) {
            throw new ParameterException(c.spec.commandLine(), "--runner flink encodes on cpu tasks, without --timeline or --metrics-port "
                    + "(for now); got " + (!c.device.equalsIgnoreCase("cpu") ? "--device " + c.device : "--timeline or --metrics-port"));
        }
        if (c.parallelism < 1 || c.checkpointMs < 0) {
            throw new ParameterException(c.spec.commandLine(), "options '--parallelism' must be ≥ 1 and '--checkpoint-interval' ≥ 0, got "
                    + c.parallelism + ", " + c.checkpointMs);
        }
        FlinkEncode.Spec job = new FlinkEncode.Spec(c.input.toAbsolutePath().toString(), c.columns, c.dataset, enc.label(), c.qubits,
                cfg.output().label(), cfg.rowsPerChunk(), cfg.policy() == BadRowPolicy.SKIP, "");
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

    static Result run(PrintStream o, FlinkEncode.Spec spec, List<FlinkEncode.Range> ranges, long rows, DType states, int parallelism,
            long checkpointMs, Path out) throws Exception {
        return run(o, spec, ranges, rows, states, parallelism, checkpointMs, out, null);
    }

    /// As `run`, into a Zarr group at `out` (arrays `states` in chunks of `spec.rowsPerChunk()`
    /// rows, at most the input's, and `rows`, as a local encode writes it) when `zarr` is not null.
    static Result run(PrintStream o, FlinkEncode.Spec spec, List<FlinkEncode.Range> ranges, long rows, DType states, int parallelism,
            long checkpointMs, Path out, ZarrFormat zarr) throws Exception {
        Path manifest = out.resolveSibling(out.getFileName() + ".manifest.json");
        Path rowsFile = zarr != null ? out.resolve("rows") : out.resolveSibling(out.getFileName() + ".rows.npy");
        Path skippedFile = out.resolveSibling(out.getFileName() + ".skipped.tsv");
        long t0 = System.nanoTime();
        // the shards: a folder of our own beside OUT, the user's alone, never committed (closing deletes it)
        try (PendingOutput parts = PendingOutput.scratch(out.resolveSibling(out.getFileName() + ".shards"))) {
            FlinkEncode.Spec inParts = new FlinkEncode.Spec(spec.input(), spec.columns(), spec.dataset(), spec.encoding(), spec.qubits(),
                    spec.states(), spec.rowsPerChunk(), spec.skipBadRows(), parts.path().toString());
            StreamExecutionEnvironment env = FlinkEncode.localEnvironment(parallelism);
            FlinkEncode.build(env, inParts, ranges, parallelism, checkpointMs);
            o.printf(Locale.ROOT, "flink: %,d rows in %d ranges over %d tasks (embedded MiniCluster)%n", rows, ranges.size(), parallelism);
            long j0 = System.nanoTime();
            env.execute("penstock encode " + Path.of(spec.input()).getFileName());
            double jobS = (System.nanoTime() - j0) / 1e9;
            List<String> skipped = new ArrayList<>();
            List<long[]> skippedRows = new ArrayList<>();
            StringBuilder shards = new StringBuilder();
            long written = 0;
            MessageDigest whole = MessageDigest.getInstance("SHA-256");
            long stateBytes = states.byteSize() << spec.qubits();
            int chunk = (int) Math.max(1, Math.min(Math.min(spec.rowsPerChunk(), rows), (Integer.MAX_VALUE - 64) / stateBytes));
            try (ZarrGroup group = zarr == null ? null : ZarrGroup.create(out, zarr, java.util.Map.of("encoding", spec.encoding(), "qubits",
                    spec.qubits(), "source", Path.of(spec.input()).getFileName().toString()));
                 NpyWriter npy = zarr != null ? null : NpyWriter.open(out, states, 1L << spec.qubits())) {
                ZarrWriter zw = group == null ? null : group.array("states", states, 1L << spec.qubits(), chunk, 1, java.util.Map.of());
                for (FlinkEncode.Range r : ranges) {
                    Path shard = FlinkEncode.shard(parts.path(), r.index());
                    if (!Files.isRegularFile(shard)) {
                        throw new IOException("the Flink job finished without shard " + r.index() + " (rows " + r.first() + "…" + (r.first()
                                + r.count()) + "); " + out + " left as it was");
                    }
                    long shardRows;
                    MessageDigest shardDigest = MessageDigest.getInstance("SHA-256"); // of the shard's states as they lie in OUT
                    try (NpyFile f = NpyFile.open(shard)) {
                        shardRows = f.shape()[0];
                        if (zw != null) {
                            zw.append(f.block());
                        } else {
                            npy.append(f.block());
                        }
                        java.nio.ByteBuffer data = f.block().segment().asByteBuffer();
                        shardDigest.update(data.duplicate());
                        whole.update(data);
                    }
                    written += shardRows;
                    Path bad = FlinkEncode.skipped(parts.path(), r.index());
                    int before = skipped.size();
                    if (Files.exists(bad)) {
                        for (String line : Files.readAllLines(bad)) {
                            skipped.add(line);
                            skippedRows.add(new long[] {Long.parseLong(line.substring(0, line.indexOf('\t')))});
                        }
                    }
                    shards.append(shards.isEmpty() ? "" : ",\n    ").append(String.format(Locale.ROOT,
                            "{\"index\": %d, \"first_row\": %d, \"rows\": %d, \"first_state\": %d, \"rows_written\": %d, "
                            + "\"rows_skipped\": %d, \"sha256\": \"%s\"}", r.index(), r.first(), r.count(), written - shardRows, shardRows,
                            skipped.size() - before, HexFormat.of().formatHex(shardDigest.digest())));
                }
                List<EncodingException> bad = skippedRows.stream().map(r -> new EncodingException(r[0], "")).toList();
                if (group != null) {
                    ZarrWriter kept = group.array("rows", DType.I64, 1, 65536, 1, java.util.Map.of("meaning", "input row of each state"));
                    KeptRows.write(rows, bad, (seg, n) -> kept.append(dev.penstock.memory.Block.wrap(seg, DType.I64, null, n, 1)));
                    group.commit();
                } else {
                    npy.commit();
                    try (NpyWriter rw = NpyWriter.open(rowsFile, DType.I64)) {
                        KeptRows.write(rows, bad, rw::append);
                        rw.commit();
                    }
                }
            }
            if (skipped.isEmpty()) {
                Files.deleteIfExists(skippedFile); // ours, from an earlier run: it would describe other states
            } else {
                PendingOutput.write(skippedFile, tmp -> {
                    try (Writer sw = Files.newBufferedWriter(tmp)) {
                        sw.write("row\treason\n");
                        for (String line : skipped) {
                            sw.write(line + "\n");
                        }
                    }
                });
            }
            String json = String.format(Locale.ROOT, """
                    {
                      "input": %s,
                      "encoding": %s,
                      "qubits": %d,
                      "states": "%s",
                      "rows": %d,
                      "rows_written": %d,
                      "rows_skipped": %d,
                      "parallelism": %d,
                      "out": %s,
                      "out_data_sha256": "%s",
                      "rows_file": %s,
                      "shards": [
                        %s
                      ]
                    }
                    """, JsonFigures.quote(spec.input()), JsonFigures.quote(spec.encoding()), spec.qubits(), states.label(), rows, written,
                    skipped.size(), parallelism, JsonFigures.quote(out.toString()), HexFormat.of().formatHex(whole.digest()),
                    JsonFigures.quote(rowsFile.toString()), shards);
            PendingOutput.write(manifest, tmp -> Files.writeString(tmp, json)); // last: a manifest means every output is there
            return new Result(rows, written, skipped, ranges.size(), (System.nanoTime() - t0) / 1e9, jobS, manifest);
        }
    }
}
