package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.CpuDevice;
import dev.penstock.formats.npy.NpyFile;
import dev.penstock.formats.npy.NpyWriter;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.EncodePipeline;
import dev.penstock.quantum.Encoding;
import dev.penstock.quantum.RowSources;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/// The Flink encode: its shards joined are the local encode's states, bad rows skipped and
/// reported with their input rows, and a task that fails once (the job restarted from its last
/// checkpoint, ranges encoded again) leaves the same shards, byte for byte.
class FlinkEncodeTest {
    /// Two task managers of one slot: the encode at parallelism 2 runs a task on each, so losing
    /// either loses ranges in progress.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2).setNumberSlotsPerTaskManager(1).build());

    private static final int ROWS = 5000;

    @TempDir
    Path dir;

    @AfterEach
    void unhook() {
        FlinkEncode.beforeRange = null;
    }

    /// `[5000, 8]` f64 rows of sines; rows 777 and 3001 hold a NaN (bad rows).
    private Path input() throws Exception {
        Path f = dir.resolve("rows.npy");
        double[] v = new double[ROWS * 8];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sin(0.37 * i) + 1.5;
        }
        v[777 * 8 + 3] = Double.NaN;
        v[3001 * 8] = Double.NaN;
        try (NpyWriter w = NpyWriter.open(f, DType.F64, 8)) {
            MemorySegment bytes = MemorySegment.ofArray(new byte[v.length * 8]); // a byte[] heap segment: the writer needs a ByteBuffer
            MemorySegment.copy(MemorySegment.ofArray(v), 0, bytes, 0, bytes.byteSize());
            w.append(Block.wrap(bytes, DType.F64, null, ROWS, 8));
            w.commit();
        }
        return f;
    }

    private static FlinkEncode.Spec spec(Path input, Path parts) {
        return new FlinkEncode.Spec(input.toString(), List.of(), null, "amplitude", 3, "c128", 256, true, parts.toString());
    }

    /// Runs the job into `parts` with `hook` before each range; returns every file there by name.
    private Map<String, byte[]> run(Path input, Path parts, IntConsumer hook) throws Exception {
        Files.createDirectories(parts);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkEncode.build(env, spec(input, parts), FlinkEncode.ranges(ROWS, 256, 6), 2, 100);
        FlinkEncode.beforeRange = hook;
        env.execute("encode");
        Map<String, byte[]> files = new TreeMap<>();
        try (var all = Files.list(parts)) {
            for (Path p : all.toList()) {
                files.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    @Test
    void theShardsJoinedAreTheLocalEncodeAndATaskFailingOnceChangesNoByte() throws Exception {
        Path input = input();
        List<FlinkEncode.Range> ranges = FlinkEncode.ranges(ROWS, 256, 6);
        Map<String, byte[]> clean = run(input, dir.resolve("clean"), null);
        AtomicBoolean failed = new AtomicBoolean();
        Map<String, byte[]> restarted = run(input, dir.resolve("restarted"), k -> {
            if (k == ranges.size() / 2 && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure at range " + k);
            }
        });
        assertThat(failed.get()).as("the failure was injected").isTrue();
        assertThat(restarted.keySet()).isEqualTo(clean.keySet());
        for (String name : clean.keySet()) {
            assertThat(restarted.get(name)).as(name).isEqualTo(clean.get(name));
        }
        // the shards' states in order are the local encode's, and the skipped rows are named by their input row
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (FlinkEncode.Range r : ranges) {
            try (NpyFile f = NpyFile.open(FlinkEncode.shard(dir.resolve("clean"), r.index()))) {
                joined.writeBytes(f.block().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
        }
        Path local = dir.resolve("local.npy");
        try (NpyFile in = NpyFile.open(input); CpuDevice cpu = new CpuDevice(); NpyWriter w = NpyWriter.open(local, DType.C128, 8)) {
            var summary = EncodePipeline.run(cpu, RowSources.of(in.block()), w::append, new EncodePipeline.Config(Encoding.parse("amplitude"), 3,
                    DType.C128, 256, 3, 2, BadRowPolicy.SKIP));
            assertThat(summary.rowsWritten()).as(summary.toString()).isEqualTo(ROWS - 2);
            w.commit();
        }
        try (NpyFile f = NpyFile.open(local)) {
            assertThat(f.shape()[0]).isEqualTo(ROWS - 2);
            assertThat(joined.toByteArray()).isEqualTo(f.block().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        String skipped = clean.entrySet().stream().filter(e -> e.getKey().endsWith(".skipped.tsv")).map(e -> new String(e.getValue()))
                .reduce("", String::concat);
        assertThat(skipped.lines().map(l -> l.substring(0, l.indexOf('\t'))).toList()).containsExactly("777", "3001");
    }

    /// A task manager lost while the job runs (after a checkpoint, with ranges still to go): a
    /// replacement joins, the job resumes, and the shards are those of a clean run, byte for byte.
    @Test
    void losingATaskManagerLeavesTheSameShards(@org.apache.flink.test.junit5.InjectMiniCluster
            org.apache.flink.runtime.minicluster.MiniCluster cluster) throws Exception {
        Path input = input();
        Map<String, byte[]> clean = run(input, dir.resolve("clean"), null);
        Path parts = dir.resolve("lost");
        Files.createDirectories(parts);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        List<FlinkEncode.Range> ranges = FlinkEncode.ranges(ROWS, 256, 6);
        FlinkEncode.build(env, spec(input, parts), ranges, 2, 50);
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        FlinkEncode.beforeRange = k -> {
            attempts.incrementAndGet();
            try {
                Thread.sleep(300); // slow ranges: the loss comes while ranges are still to go
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        org.apache.flink.core.execution.JobClient job = env.executeAsync("loses a task manager");
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && (cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts()
                .getNumberOfCompletedCheckpoints() == 0 || shards(parts) < 2)) {
            Thread.sleep(10);
        }
        assertThat(job.getJobStatus().get().isGloballyTerminalState()).as("the job still runs").isFalse();
        assertThat(attempts.get()).as("ranges still to go when the task manager is lost").isLessThan(ranges.size());
        cluster.terminateTaskManager(0).get(); // its tasks fail; a replacement joins, as a cluster manager would start one
        cluster.startTaskManager();
        job.getJobExecutionResult().get();
        assertThat(attempts.get()).as("ranges the lost task manager was encoding were encoded again").isGreaterThan(ranges.size());
        Map<String, byte[]> lost = new TreeMap<>();
        try (var all = Files.list(parts)) {
            for (Path p : all.toList()) {
                lost.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        assertThat(lost.keySet()).isEqualTo(clean.keySet());
        for (String name : clean.keySet()) {
            assertThat(lost.get(name)).as(name).isEqualTo(clean.get(name));
        }
    }

    private static long shards(Path parts) throws java.io.IOException {
        try (var all = Files.list(parts)) {
            return all.filter(p -> p.getFileName().toString().matches("shard-\\d+\\.npy")).count();
        }
    }

    @Test
    void rangesCoverEveryRowInWholeChunks() {
        List<FlinkEncode.Range> r = FlinkEncode.ranges(10_000, 256, 3);
        assertThat(r.getFirst().first()).isZero();
        for (int k = 0; k < r.size(); k++) {
            assertThat(r.get(k).index()).isEqualTo(k);
            if (k > 0) {
                assertThat(r.get(k).first()).isEqualTo(r.get(k - 1).first() + r.get(k - 1).count());
            }
            if (k < r.size() - 1) {
                assertThat(r.get(k).count() % 256).isZero();
            }
        }
        assertThat(r.getLast().first() + r.getLast().count()).isEqualTo(10_000);
        assertThat(r.size()).isBetween(10, 14); // about four per task
        assertThat(FlinkEncode.ranges(0, 256, 2)).containsExactly(new FlinkEncode.Range(0, 0, 0));
        assertThatThrownBy(() -> FlinkEncode.build(StreamExecutionEnvironment.getExecutionEnvironment(), new FlinkEncode.Spec("x.npy",
                List.of(), null, "nope", 3, "c128", 256, false, "p"), r, 2, 0)).hasMessageContaining("nope");
    }
}
