package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
/// restored stage continues each system exactly where the checkpoint left it.
class RecoveryTest {
    /// Two task managers of 3 slots: a three-stage job at parallelism 2 needs both.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2).setNumberSlotsPerTaskManager(3).build());

    @TempDir
    Path dir;

    private static final AtomicInteger CALLS = new AtomicInteger();
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    /// Lennard-Jones, 2 ms slower per system, that throws once after 400 evaluations (by then
    /// checkpoints every 100 ms have completed, so recovery restores state rather than starting
    /// over — the test checks that it did).
    static final class FailingOnce implements Model {
        private final Model lj = PipelineSpec.potential(Argon.LJ).get();

        @Override
        public void compute(AtomicSystem s) {
            if (CALLS.incrementAndGet() > 400 && FAILED.compareAndSet(false, true)) {
                throw new Error("injected failure in stage 1 (a lost device)"); // an Error: not quarantined, fails the task
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            lj.compute(s);
        }

        @Override
        public void forget(long id) {
            lj.forget(id);
        }
    }

    /// Lennard-Jones 2 ms slower per system: a run long enough to lose a task manager in.
    static final class Slow implements Model {
        private final Model lj = PipelineSpec.potential(Argon.LJ).get();

        @Override
        public void compute(AtomicSystem s) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            lj.compute(s);
        }

        @Override
        public void forget(long id) {
            lj.forget(id);
        }
    }

    private static JobSpec<AtomicSystem> slowSpec() {
        JobSpec<AtomicSystem> plain = AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, Argon.ROOM);
        List<JobSpec.StageFactory<AtomicSystem>> stages = new ArrayList<>(plain.stages());
        stages.set(1, () -> PipelineSpec.stage(PipelineSpec.parse(Argon.PIPELINE).get(1), Slow::new, 5));
        return new JobSpec<>(stages, plain.sizer(), plain.codec(), plain.capacities(), plain.format());
    }

    private static JobSpec<AtomicSystem> failingSpec() {
        JobSpec<AtomicSystem> plain = AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, Argon.ROOM);
        List<JobSpec.StageFactory<AtomicSystem>> stages = new ArrayList<>(plain.stages());
        stages.set(1, () -> PipelineSpec.stage(PipelineSpec.parse(Argon.PIPELINE).get(1), FailingOnce::new, 5));
        return new JobSpec<>(stages, plain.sizer(), plain.codec(), plain.capacities(), plain.format());
    }

    @Test
    void aStageThatThrowsOnceIsRecoveredFromACheckpointWithEverySystemOnce() throws Exception {
        CALLS.set(0);
        FAILED.set(false);
        List<AtomicSystem> systems = Argon.clusters(24, 7);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.Result r = FlinkRunner.run(env, failingSpec(), Argon.clusters(24, 7), dir, o, "fails once");
        assertThat(FAILED.get()).as("the failure was injected").isTrue();
        assertThat(r.restored(1)).as("stage 1 resumed from a checkpoint").isPositive();
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
    }

    @Test
    void losingATaskManagerIsRecoveredWithEverySystemOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        List<AtomicSystem> systems = Argon.clusters(24, 8);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, slowSpec(), Argon.clusters(24, 8), dir, o);
        JobClient job = env.executeAsync("loses a task manager");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (completedCheckpoints(cluster, job) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(completedCheckpoints(cluster, job)).as("a checkpoint completed before the loss").isPositive();
        assertThat(job.getJobStatus().get().isGloballyTerminalState()).as("the job still runs").isFalse();
        cluster.terminateTaskManager(0).get(); // its tasks fail; a replacement joins, as a cluster manager would start one
        cluster.startTaskManager();
        var result = new FlinkRunner.Result(Duration.ZERO, job.getJobExecutionResult().get(), FlinkRunner.parts(dir));
        assertThat(result.restored(0) + result.restored(1) + result.restored(2)).as("stages resumed from a checkpoint").isPositive();
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
    }

    private static long completedCheckpoints(MiniCluster cluster, JobClient job) throws Exception {
        return cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }
}
