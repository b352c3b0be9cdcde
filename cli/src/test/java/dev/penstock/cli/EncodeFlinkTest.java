package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.testing.Python;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// `encode --runner flink`: the same bytes as a local encode (states, input rows, skipped rows),
/// a manifest whose checksums match, a bad row under `fail` in one line with the outputs as they
/// were, and the inputs it cannot split refused up front.
class EncodeFlinkTest {
    @TempDir
    Path dir;

    /// `[3000, 16]` f32 rows; rows 5 and 2222 hold a NaN.
    private Path rows() throws Exception {
        Path f = dir.resolve("rows.npy");
        float[] v = new float[3000 * 16];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (Math.cos(0.11 * i) + 1.25);
        }
        v[5 * 16 + 7] = Float.NaN;
        v[2222 * 16] = Float.NaN;
        MemorySegment bytes = MemorySegment.ofArray(new byte[v.length * 4]);
        MemorySegment.copy(MemorySegment.ofArray(v), 0, bytes, 0, bytes.byteSize());
        try (NpyWriter w = NpyWriter.open(f, DType.F32, 16)) {
            w.append(Block.wrap(bytes, DType.F32, null, 3000, 16));
            w.commit();
        }
        return f;
    }

    @Test
    void theFlinkEncodeWritesTheLocalEncodesBytesAndAManifest() throws Exception {
        Path in = rows();
        Path local = dir.resolve("local.npy");
        Path flink = dir.resolve("flink.npy");
        String[] common = {"--encoding", "amplitude", "--qubits", "4", "--on-bad-row", "skip", "--rows-per-chunk", "200"};
        MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", local.toString()}, common));
        String printed = MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", flink.toString(), "--runner", "flink",
            "--parallelism", "2", "--checkpoint-interval", "100"}, common));
        assertThat(printed).contains("encoded 2998 of 3000 rows").contains("on Flink").contains("skipped 2 bad rows")
                .contains("manifest: " + flink + ".manifest.json");
        for (String suffix : new String[] {"", ".rows.npy", ".skipped.tsv"}) {
            assertThat(Files.readAllBytes(Path.of(flink + suffix))).as("flink%s", suffix).isEqualTo(Files.readAllBytes(Path.of(local + suffix)));
        }
        try (var beside = Files.list(dir)) {
            assertThat(beside.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".") || n.contains("shards")).toList())
                    .as("no shards left").isEmpty();
        }
        assumeTrue(Python.required() || Python.has("numpy"), "NumPy is not installed");
        Python.Result r = Python.run("""
                import sys, json, hashlib
                import numpy as np
                m = json.load(open(sys.argv[1]))
                states = np.load(sys.argv[2])
                assert m['rows'] == 3000 and m['rows_written'] == 2998 == len(states) and m['rows_skipped'] == 2, m
                assert m['encoding'] == 'amplitude' and m['qubits'] == 4 and m['states'] == 'c64' and m['parallelism'] == 2, m
                assert hashlib.sha256(states.tobytes()).hexdigest() == m['out_data_sha256']
                shards = m['shards']
                assert sum(s['rows'] for s in shards) == 3000 and sum(s['rows_written'] for s in shards) == 2998, shards
                assert all(a['first_row'] + a['rows'] == b['first_row'] for a, b in zip(shards, shards[1:])), shards
                for s in shards:  # each shard's checksum is of its states as they lie in OUT
                    part = states[s['first_state']:s['first_state'] + s['rows_written']]
                    assert hashlib.sha256(part.tobytes()).hexdigest() == s['sha256'], s
                print('OK', len(shards))
                """, flink + ".manifest.json", flink.toString());
        assertThat(r.output()).contains("OK");
    }

    @Test
    void aBadRowFailsTheJobInOneLineAndLeavesTheOutputsAsTheyWere() throws Exception {
        Path in = rows();
        Path out = dir.resolve("states.npy");
        Files.writeString(out, "earlier");
        String printed = MainTest.run(ExitCodes.BAD_INPUT, "encode", in.toString(), "--out", out.toString(), "--encoding", "amplitude",
                "--qubits", "4", "--runner", "flink", "--parallelism", "2", "--checkpoint-interval", "0");
        assertThat(printed).containsPattern("row (5|2222): ").contains("NaN").contains("left as it was").doesNotContain("\tat ");
        assertThat(Files.readString(out)).isEqualTo("earlier");
        assertThat(Path.of(out + ".manifest.json")).doesNotExist();
        if (!dev.penstock.cuda.CudaDriver.probe().usable()) { // no GPU here: refused before any job, in one line
            assertThat(MainTest.run(ExitCodes.USAGE, "encode", in.toString(), "--out", dir.resolve("s.npy").toString(), "--encoding",
                    "amplitude", "--qubits", "4", "--runner", "flink", "--device", "cuda")).contains("option '--device': cuda is not available")
                    .doesNotContain("\tat ");
            assertThat(dir.resolve("s.npy")).doesNotExist();
        }
    }

    /// A Parquet input, read in place (row ranges) or decoded (ranges of whole row groups, each
    /// read on its own), its null values and ragged lists bad rows under skip with the local
    /// encode's reasons; the same bytes as the local encode.
    @Test
    void aParquetInputIsSplitByRowGroupsIntoTheSameBytes() throws Exception {
        Path in = dev.penstock.testing.ParquetFiles.mixed(dir.resolve("rows.parquet"), 6000, 16 * 1024);
        long[] groups = dev.penstock.formats.parquet.ParquetRowGroups.rowsOf(in);
        assertThat(groups.length).as("row groups to split by").isGreaterThan(4);
        Path local = dir.resolve("pq-local.npy");
        Path flink = dir.resolve("pq-flink.npy");
        String[] common = {"--encoding", "angle", "--qubits", "5", "--on-bad-row", "skip", "--rows-per-chunk", "300"};
        String[] all = concat(new String[] {"--columns", "f0,f1,f2,f3,f4"}, common);
        MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", local.toString()}, all));
        String printed = MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", flink.toString(), "--runner", "flink",
            "--parallelism", "2"}, all));
        assertThat(printed).contains("encoded 5400 of 6000 rows").contains("skipped 600 bad rows");
        for (String suffix : new String[] {"", ".rows.npy", ".skipped.tsv"}) {
            assertThat(Files.readAllBytes(Path.of(flink + suffix))).as("flink%s", suffix).isEqualTo(Files.readAllBytes(Path.of(local + suffix)));
        }
        // that file's plain pages are read in place (any row ranges); a list column is decoded in
        // order, so its ranges are whole row groups — the same bytes either way
        Path lists = dev.penstock.testing.ParquetFiles.lists(dir.resolve("lists.parquet"), 3000, 5, 1234, false);
        assertThat(dev.penstock.formats.parquet.ParquetRowGroups.rowsOf(lists).length).as("row groups to split by").isGreaterThan(1);
        Path localLists = dir.resolve("lists-local.npy");
        Path flinkLists = dir.resolve("lists-flink.npy");
        MainTest.run(0, concat(new String[] {"encode", lists.toString(), "--out", localLists.toString()}, common));
        assertThat(MainTest.run(0, concat(new String[] {"encode", lists.toString(), "--out", flinkLists.toString(), "--runner", "flink",
            "--parallelism", "2"}, common))).contains("encoded 2999 of 3000 rows").contains("skipped 1 bad rows");
        for (String suffix : new String[] {"", ".rows.npy", ".skipped.tsv"}) {
            assertThat(Files.readAllBytes(Path.of(flinkLists + suffix))).as("lists, flink%s", suffix)
                    .isEqualTo(Files.readAllBytes(Path.of(localLists + suffix)));
        }
    }

    /// A Zarr OUT (v2 and v3): every file of the Flink encode's group is the local encode's, byte
    /// for byte (the states re-chunked as the local writer chunks them, the kept input rows).
    @Test
    void aZarrOutputIsTheLocalEncodesGroupFileForFile() throws Exception {
        Path in = rows();
        for (String format : new String[] {"2", "3"}) {
            Path local = dir.resolve("local-" + format + ".zarr");
            Path flink = dir.resolve("flink-" + format + ".zarr");
            String[] common = {"--encoding", "amplitude", "--qubits", "4", "--on-bad-row", "skip", "--rows-per-chunk", "256",
                "--zarr-format", format};
            MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", local.toString()}, common));
            MainTest.run(0, concat(new String[] {"encode", in.toString(), "--out", flink.toString(), "--runner", "flink"}, common));
            java.util.Map<String, byte[]> a = files(local);
            java.util.Map<String, byte[]> b = files(flink);
            assertThat(b.keySet()).as("v%s", format).isEqualTo(a.keySet()).contains(format.equals("2") ? "states/.zarray" : "states/zarr.json");
            for (String name : a.keySet()) {
                assertThat(b.get(name)).as("v%s %s", format, name).isEqualTo(a.get(name));
            }
            assertThat(Files.readString(Path.of(flink + ".manifest.json"))).contains("\"rows_written\": 2998");
        }
    }

    private static java.util.Map<String, byte[]> files(Path root) throws Exception {
        java.util.Map<String, byte[]> out = new java.util.TreeMap<>();
        try (var all = Files.walk(root)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return out;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
