package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/// The job restarts as the cluster says unless its options set restarts: on a cluster whose
/// configuration says `restart-strategy: none`, one injected failure fails a job built without
/// restarts (it used to set its own three, overriding the cluster), and a job whose options set
/// restarts recovers from it with every system once.
class RestartStrategyTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(noRestarts()).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(6).build());

    @TempDir
    Path dir;

    private static Configuration noRestarts() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return c;
    }

    @Test
    void withoutRestartOptionsTheClustersNoRestartsHoldsAndOneFailureFailsTheJob(@InjectMiniCluster MiniCluster cluster) throws Exception {
        JobClient job = failOnceAfterACheckpoint(cluster, FlinkRunner.Options.of(2, Duration.ofMillis(100)), dir.resolve("cluster"));
        assertThatThrownBy(() -> job.getJobExecutionResult().get()).hasStackTraceContaining("injected failure");
        assertThat(SlowLj.FAILED.get()).isTrue();
    }

    @Test
    void restartOptionsOverrideTheClusterAndTheJobRecoversWithEverySystemOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        var local = Argon.local(Argon.clusters(24, 7), 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100)).withRestarts(new FlinkRunner.Restarts(2, Duration.ofMillis(50)));
        Path out = dir.resolve("own");
        JobClient job = failOnceAfterACheckpoint(cluster, o, out);
        var r = new FlinkRunner.Result(Duration.ZERO, job.getJobExecutionResult().get(), FlinkRunner.parts(out));
        assertThat(SlowLj.FAILED.get()).isTrue();
        assertThat(r.restored(1)).as("stage 1 resumed from a checkpoint").isPositive();
        assertThat(Argon.outcomes(Argon.read(out))).isEqualTo(local);
    }

    @Test
    void restartOptionsAreCheckedNamingTheOption() {
        assertThatThrownBy(() -> new FlinkRunner.Restarts(-1, Duration.ZERO)).hasMessageContaining("'restart-attempts'");
        assertThatThrownBy(() -> new FlinkRunner.Restarts(1, Duration.ofMillis(-5))).hasMessageContaining("'restart-delay'");
    }

    private static JobClient failOnceAfterACheckpoint(MiniCluster cluster, FlinkRunner.Options o, Path out) throws Exception {
        SlowLj.reset();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, SlowLj.spec(Argon.ROOM, 1, 2, true), Argon.clusters(24, 7), out, o);
        JobClient job = env.executeAsync("fails once");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints() == 0
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        SlowLj.ARMED.set(true); // stage 1 throws at its next evaluation
        return job;
    }
}
