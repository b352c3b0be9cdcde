package dev.penstock.flink;

import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.zarr.ZarrFormat;
import dev.penstock.io.Json;
import dev.penstock.io.PendingOutput;
import dev.penstock.memory.DType;
import dev.penstock.quantum.StatesOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/// The end of a Flink encode, once its job has succeeded: the shards under `parts` joined into
/// the outputs a local encode writes — OUT (a `.npy` with `OUT.rows.npy`, or a Zarr group with
/// `states` chunked as the local writer chunks them and `rows`) and `OUT.skipped.tsv` when rows
/// were skipped, the same bytes — and `OUT.manifest.json`, each written beside its destination
/// and renamed into place, the manifest last:
///
/// ```
///   OUT.manifest.json  {"input": …, "encoding": …, "qubits": …, "states": "c128", "rows": N,
///                       "rows_written": W, "rows_skipped": S, "parallelism": P, "out": …,
///                       "out_data_sha256": … (of OUT's states, after its header), "rows_file": …,
///                       "shards": [{"index": 0, "first_row": 0, "rows": R, "first_state": 0, "rows_written": R',
///                                   "rows_skipped": …, "sha256": … (of its states as they lie in OUT,
///                                   from state first_state on)}, …]}
/// ```
///
/// Used by `penstock encode --runner flink` (embedded MiniCluster) and by `EncodeJob` (the job
/// jar's `flink run` on a cluster), which both read the shards where the tasks wrote them.
public final class EncodeJoin {
    private EncodeJoin() {
    }

    /// What the join wrote: the states, the skipped rows (`row\treason` lines) and the manifest.
    public record Joined(long written, List<String> skipped, Path manifest) {
    }

    /// Joins the shards of `ranges` under `parts` (`spec`'s encode of `rows` input rows into
    /// `states`) into `out` (a Zarr group of `zarr` when not null).
    ///
    /// @throws IOException naming a missing shard: every destination is then as it was
    public static Joined join(FlinkEncode.Spec spec, List<FlinkEncode.Range> ranges, long rows, DType states, int parallelism, Path parts,
            Path out, ZarrFormat zarr) throws Exception {
        Path manifest = out.resolveSibling(out.getFileName() + ".manifest.json");
        Path rowsFile = StatesOutput.rowsFile(out, zarr != null);
        Path skippedFile = out.resolveSibling(out.getFileName() + ".skipped.tsv");
        List<String> skipped = new ArrayList<>();
        StringBuilder shards = new StringBuilder();
        long written = 0;
        MessageDigest whole = MessageDigest.getInstance("SHA-256");
        try (StatesOutput w = StatesOutput.open(out, zarr, states, spec.qubits(), rows, spec.rowsPerChunk(), spec.encoding(),
                Path.of(spec.input()).getFileName().toString())) {
            for (FlinkEncode.Range r : ranges) {
                Path shard = FlinkEncode.shard(parts, r.index());
                if (!Files.isRegularFile(shard)) {
                    throw new IOException("the Flink job finished without shard " + r.index() + " (rows " + r.first() + "…" + (r.first()
                            + r.count()) + "); " + out + " left as it was");
                }
                long shardRows;
                MessageDigest shardDigest = MessageDigest.getInstance("SHA-256"); // of the shard's states as they lie in OUT
                try (NpyFile f = NpyFile.open(shard)) {
                    shardRows = f.shape()[0];
                    w.write(f.block());
                    java.nio.ByteBuffer data = f.block().segment().asByteBuffer();
                    shardDigest.update(data.duplicate());
                    whole.update(data);
                }
                written += shardRows;
                Path bad = FlinkEncode.skipped(parts, r.index());
                int before = skipped.size();
                if (Files.exists(bad)) {
                    skipped.addAll(Files.readAllLines(bad));
                }
                shards.append(shards.isEmpty() ? "" : ",\n    ").append(String.format(Locale.ROOT,
                        "{\"index\": %d, \"first_row\": %d, \"rows\": %d, \"first_state\": %d, \"rows_written\": %d, "
                        + "\"rows_skipped\": %d, \"sha256\": \"%s\"}", r.index(), r.first(), r.count(), written - shardRows, shardRows,
                        skipped.size() - before, HexFormat.of().formatHex(shardDigest.digest())));
            }
            StatesOutput.writeSkipped(skippedFile, skipped);
            w.commit(rows, skipped.stream().mapToLong(line -> Long.parseLong(line.substring(0, line.indexOf('\t')))).toArray());
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
                """, Json.quote(spec.input()), Json.quote(spec.encoding()), spec.qubits(), states.label(), rows, written,
                skipped.size(), parallelism, Json.quote(out.toString()), HexFormat.of().formatHex(whole.digest()),
                Json.quote(rowsFile.toString()), shards);
        PendingOutput.write(manifest, tmp -> Files.writeString(tmp, json)); // last: a manifest means every output is there
        return new Joined(written, skipped, manifest);
    }
}
