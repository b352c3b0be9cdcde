package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/// Failures in the middle of a Flink run: the job resumes from its last checkpoint and the
/// committed results hold every system exactly once — with the local runner's values, since a
/// restored stage continues each system exactly where the checkpoint left it, bit for bit: the
/// checkpoint carries where each system's neighbour list was built, and the restore rebuilds it
/// from there (`RestoreIsBitExactTest` in `atoms` checks that for 13 to 2,048 atoms).
class RecoveryTest {
    /// Two task managers of 3 slots: a three-stage job at parallelism 2 needs both.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2).setNumberSlotsPerTaskManager(3).build());

    @TempDir
    Path dir;

    @Test
    void aStageThatThrowsOnceIsRecoveredFromACheckpointWithEverySystemOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        SlowLj.reset();
        List<AtomicSystem> systems = Argon.clusters(24, 7);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, SlowLj.spec(Argon.ROOM, 2, 2, true), Argon.clusters(24, 7), dir, o);
        JobClient job = env.executeAsync("fails once");
        awaitCheckpoint(cluster, job);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (inProgress(dir).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1); // results are being written after the last checkpoint: the failure strands them
        }
        SlowLj.ARMED.set(true); // the last stage throws at its next evaluation
        var r = new FlinkRunner.Result(Duration.ZERO, job.getJobExecutionResult().get(), FlinkRunner.parts(dir));
        assertThat(SlowLj.FAILED.get()).as("the failure was injected").isTrue();
        assertThat(r.restored(2)).as("stage 2 resumed from a checkpoint").isPositive();
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
        assertThat(inProgress(dir)).as("the failed attempt's in-progress files were cleaned up").isEmpty();
    }

    @Test
    void losingATaskManagerIsRecoveredWithEverySystemOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        List<AtomicSystem> systems = Argon.clusters(24, 8);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, SlowLj.spec(Argon.ROOM, 1, 2, false), Argon.clusters(24, 8), dir, o);
        JobClient job = env.executeAsync("loses a task manager");
        awaitCheckpoint(cluster, job);
        cluster.terminateTaskManager(0).get(); // its tasks fail; a replacement joins, as a cluster manager would start one
        cluster.startTaskManager();
        var result = new FlinkRunner.Result(Duration.ZERO, job.getJobExecutionResult().get(), FlinkRunner.parts(dir));
        assertThat(result.restored(0) + result.restored(1) + result.restored(2)).as("stages resumed from a checkpoint").isPositive();
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
        assertThat(inProgress(dir)).as("the lost attempt's in-progress files were cleaned up").isEmpty();
    }

    /// The hidden in-progress files left under `dir` (results and quarantine).
    static List<Path> inProgress(Path dir) throws java.io.IOException {
        try (var files = java.nio.file.Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(".inprogress-")).toList();
        }
    }

    /// Waits until the job has completed a checkpoint, and checks it still runs.
    private static void awaitCheckpoint(MiniCluster cluster, JobClient job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (completedCheckpoints(cluster, job) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(completedCheckpoints(cluster, job)).as("a checkpoint completed").isPositive();
        assertThat(job.getJobStatus().get().isGloballyTerminalState()).as("the job still runs").isFalse();
    }

    private static long completedCheckpoints(MiniCluster cluster, JobClient job) throws Exception {
        return cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }
}
