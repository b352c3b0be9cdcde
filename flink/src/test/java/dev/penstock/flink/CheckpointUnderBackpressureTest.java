package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/// Checkpoints go on while a stage waits for room: stage 1 holds two systems that do not finish
/// for minutes and has its pending samples full, so its operator waits inside `processElement`
/// for room that does not come. A checkpoint barrier must still be taken during that wait. (It
/// used to wait at the operator's mailbox priority, which left the task's barrier mail queued
/// until room freed: here, never — no checkpoint completed once the stage was full.)
class CheckpointUnderBackpressureTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    @TempDir
    Path dir;

    @Test
    void checkpointsCompleteWhileAStageWaitsForRoomThatDoesNotCome(@InjectMiniCluster MiniCluster cluster) throws Exception {
        SlowLj.reset();
        String pipeline = "fire(fmax=0.05) | nve(dt=1, steps=100000000)";
        FlinkRunner.Options o = new FlinkRunner.Options(1, Duration.ofMillis(100), 1).withRestarts(new FlinkRunner.Restarts(0, Duration.ZERO));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, SlowLj.spec(pipeline, new long[] {2, 200, 100_000}, 1, 1, false), Argon.clusters(8, 3), dir, o);
        JobClient job = env.executeAsync("a stage that never frees room");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (SlowLj.CALLS.get() < 300 && System.nanoTime() < deadline) {
                Thread.sleep(10); // stage 1 has stepped its two systems for a while: full, and pending full behind it
            }
            assertThat(SlowLj.CALLS.get()).as("stage 1 is stepping").isGreaterThanOrEqualTo(300);
            long before = completed(cluster, job);
            deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (completed(cluster, job) < before + 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(completed(cluster, job)).as("checkpoints completed while stage 1 waited for room").isGreaterThanOrEqualTo(before + 3);
        } finally {
            job.cancel().get();
        }
    }

    private static long completed(MiniCluster cluster, JobClient job) throws Exception {
        return cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }
}
