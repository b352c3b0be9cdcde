package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.testing.StandaloneFlink;
import java.io.BufferedReader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/// The job jar on a real standalone cluster — a JobManager and two TaskManagers, each its own JVM
/// (`StandaloneFlink`) — submitted with Flink's CLI as the README says. Mid-job, after a
/// checkpoint, the TaskManager running tasks is killed with SIGKILL and a replacement is
/// started, as a cluster manager would start one. The job recovers by the cluster's own restart
/// strategy and delivers every system exactly once, bit for bit what the local runner gives.
class StandaloneClusterIT {
    /// Long enough (about 20 s on two cores) that the kill lands mid-job.
    static final String PIPELINE = "fire(fmax=0.01) + langevin(T=30, dt=4, steps=20000) | nve(dt=4, steps=15000) | fire2(fmax=0.02, steps=300)";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aTaskManagerKilledMidJobIsRecoveredWithEverySystemOnceAndBitIdenticalToTheLocalRunner() throws Exception {
        Path input = dir.resolve("systems.xyz");
        List<AtomicSystem> made = new java.util.ArrayList<>(Argon.clusters(22, 7));
        made.addAll(Argon.largeClusters(List.of(85, 147), 100)); // cell lists: a restore must rebuild the very same list
        try (Writer w = Files.newBufferedWriter(input)) {
            ExtXyz.write(w, made);
        }
        List<AtomicSystem> systems;
        try (BufferedReader in = Files.newBufferedReader(input)) {
            systems = ExtXyz.read(in, input); // what the job reads
        }
        Map<Long, String> local = Argon.local(systems, 5, PIPELINE, new long[] {4, 300, 100_000});
        Path out = dir.resolve("out");
        Map<String, String> settings = Map.of("taskmanager.numberOfTaskSlots", "2", "heartbeat.interval", "1000", "heartbeat.timeout",
                "5000", "restart-strategy.type", "fixed-delay", "restart-strategy.fixed-delay.attempts", "30",
                "restart-strategy.fixed-delay.delay", "1 s", "execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
        try (StandaloneFlink cluster = StandaloneFlink.start(dir.resolve("cluster"), StandaloneFlink.flinkClasspath(), settings, 2)) {
            String job = cluster.submit(jobJar(), List.of("--input", input.toString(), "--out", out.toString(), "--pipeline", PIPELINE,
                    "--potential", Argon.LJ, "--parallelism", "1", "--checkpoint-interval", "300", "--max-systems", "4", "--max-atoms",
                    "300", "--max-edges", "100000", "--seed", "5"));
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (cluster.completedCheckpoints(job) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(cluster.completedCheckpoints(job)).as("checkpoints before the kill").isGreaterThanOrEqualTo(2);
            assertThat(cluster.state(job)).as("the job still runs at the kill").isEqualTo("RUNNING");
            List<String> busy = cluster.busyTaskManagers();
            assertThat(busy).as("a TaskManager runs tasks").isNotEmpty();
            long killedAt = System.nanoTime();
            cluster.killTaskManager(busy.getFirst());
            cluster.startTaskManager();
            while (cluster.running(job) && System.nanoTime() - killedAt < Duration.ofSeconds(30).toNanos()) {
                Thread.sleep(20); // until the loss is noticed
            }
            while (!cluster.running(job) && !cluster.state(job).equals("FINISHED") && System.nanoTime() - killedAt < Duration.ofSeconds(120).toNanos()) {
                Thread.sleep(20);
            }
            double recoveredS = (System.nanoTime() - killedAt) / 1e9;
            assertThat(cluster.awaitTerminal(job, Duration.ofSeconds(180))).isEqualTo("FINISHED");
            assertThat(cluster.restoredCheckpoints(job)).as("the job resumed from a checkpoint").isPositive();
            System.out.printf("standalone cluster: SIGKILL of %s to the job running again: %.1f s%n", busy.getFirst(), recoveredS);
        }
        Map<Long, String> got = Argon.outcomes(Argon.read(out)); // fails on a duplicate
        assertThat(got).as("every system once, bit-identical to the local runner").isEqualTo(local);
        try (Stream<Path> files = Files.walk(out)) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith(".inprogress-")).toList()).as("no stranded files").isEmpty();
        }
    }

    /// The encode job from the job jar on the standalone cluster (`flink run -c EncodeJob`,
    /// attached): a Parquet input split by row groups over two task managers, its shards joined by
    /// the client into the states a local encode writes, byte for byte, with the manifest.
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theEncodeJobOnTheClusterWritesTheLocalEncodesStates() throws Exception {
        Path input = dev.penstock.testing.ParquetFiles.mixed(dir.resolve("rows.parquet"), 6000, 16 * 1024);
        List<String> columns = List.of("f0", "f1", "f2", "f3");
        Path local = dir.resolve("local.npy");
        try (dev.penstock.formats.parquet.ParquetRows rows = dev.penstock.formats.parquet.ParquetRows.open(input, columns);
             dev.penstock.device.CpuDevice cpu = new dev.penstock.device.CpuDevice();
             dev.penstock.formats.npy.NpyWriter w = dev.penstock.formats.npy.NpyWriter.open(local, dev.penstock.memory.DType.C128, 16)) {
            dev.penstock.quantum.EncodePipeline.run(cpu, dev.penstock.quantum.RowSources.of(rows), w::append,
                    new dev.penstock.quantum.EncodePipeline.Config(dev.penstock.quantum.Encoding.parse("angle"), 4,
                            dev.penstock.memory.DType.C128, 500, 3, 1, dev.penstock.quantum.BadRowPolicy.FAIL));
            w.commit();
        }
        Path out = dir.resolve("flink.npy");
        Map<String, String> settings = Map.of("taskmanager.numberOfTaskSlots", "1");
        String printed;
        try (StandaloneFlink cluster = StandaloneFlink.start(dir.resolve("cluster"), StandaloneFlink.flinkClasspath(), settings, 2)) {
            printed = cluster.runAttached(jobJar(), "dev.penstock.flink.EncodeJob", List.of("--input", input.toString(), "--out",
                    out.toString(), "--encoding", "angle", "--qubits", "4", "--columns", String.join(",", columns), "--rows-per-chunk", "500",
                    "--parallelism", "2"), Duration.ofMinutes(3));
        }
        assertThat(printed).contains("encoded 6000 of 6000 rows");
        assertThat(Files.readAllBytes(out)).as("the cluster's states are the local encode's").isEqualTo(Files.readAllBytes(local));
        assertThat(Files.readString(Path.of(out + ".manifest.json"))).contains("\"rows_written\": 6000").contains("\"shards\": [");
        assertThat(Path.of(out + ".shards")).as("the shards are gone once joined").doesNotExist();
    }

    private static Path jobJar() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("target"))) {
            return s.filter(p -> p.getFileName().toString().matches("penstock-flink-.*-job\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no job jar under target/: run after `package`"));
        }
    }
}
