package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

/// Device stages (`AtomsJob.spec` on a `CpuDevice` per task: packed batches, batch kernels) in a
/// Flink job that loses a task manager: the packed batches are restored from the last
/// checkpoint's operator state (`PackedStage.save` / `restore`, the per-system motion format; a
/// Nosé–Hoover chain's state with it; an MTK barostat's and a variable-cell relaxation's state
/// and each system's changed cell too) and every system is committed once, bit for bit as the
/// same stages give it locally.
class DeviceRecoveryTest {
    /// Two task managers of 3 slots: a three-stage job at parallelism 2 needs both.
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2).setNumberSlotsPerTaskManager(3).build());

    private static final String PIPELINE = "fire(fmax=0.01) + langevin(T=30, dt=4, steps=60) | nve(dt=4, steps=40) | nvt(T=30, tdamp=200, dt=4, steps=80) + fire(fmax=0.02, steps=300)";

    @TempDir
    Path dir;

    /// Stages 0 and 2 of `pipeline` on the device; stage 1 per system and slow (`SlowLj`), so the
    /// job is still running when the task manager goes.
    private static JobSpec<AtomicSystem> spec(String pipeline) {
        JobSpec<AtomicSystem> device = AtomsJob.spec(pipeline, Argon.LJ, 5, Argon.ROOM, 1, Double.POSITIVE_INFINITY);
        List<JobSpec.StageFactory<AtomicSystem>> stages = new ArrayList<>(device.stages());
        stages.set(1, () -> PerSystemStages.stage(PipelineSpec.parse(pipeline).get(1), () -> new SlowLj(2, false), 5));
        return new JobSpec<>(stages, device.sizer(), device.codec(), device.capacities(), device.format(), device.notes());
    }

    /// The same stages on the local runner.
    private static Map<Long, String> local(JobSpec<AtomicSystem> spec, List<AtomicSystem> systems) {
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("local");
        Pipeline<AtomicSystem> p = null;
        for (JobSpec.StageFactory<AtomicSystem> f : spec.stages()) {
            Stage<AtomicSystem> s = f.create();
            p = p == null ? Pipeline.of(s) : p.then(s);
        }
        try (Pipeline<AtomicSystem> run = p.sizer(spec.sizer()).batchCapacity(Capacity.of(Argon.ROOM)).samples(systems).results(sink)) {
            run.run();
        }
        return outcomes(sink.samples());
    }

    /// id → positions, energy and cell of each finished system.
    private static Map<Long, String> outcomes(List<AtomicSystem> systems) {
        Map<Long, String> out = new java.util.TreeMap<>();
        Argon.outcomes(systems).forEach((id, o) -> out.put(id, o));
        for (AtomicSystem s : systems) {
            out.merge(s.id(), " | " + s.cell(), String::concat);
        }
        return out;
    }

    @Test
    void losingATaskManagerRestoresThePackedBatchesWithEverySystemOnceBitForBit(@InjectMiniCluster MiniCluster cluster) throws Exception {
        losesATaskManager(cluster, dir, PIPELINE, () -> Argon.clusters(24, 8));
    }

    /// Runs `pipeline` over `systems` (fresh copies each time: a run moves them) locally, then on
    /// the cluster (two task managers, the first of them live) losing its first task manager after
    /// the first checkpoint: the same results, the device stages resumed from the checkpoint.
    static void losesATaskManager(MiniCluster cluster, Path dir, String pipeline, java.util.function.Supplier<List<AtomicSystem>> systems)
            throws Exception {
        JobSpec<AtomicSystem> spec = spec(pipeline);
        Map<Long, String> local = local(spec, systems.get());
        assertThat(local).hasSize(systems.get().size());
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkRunner.build(env, spec, systems.get(), dir, o);
        JobClient job = env.executeAsync("device stages lose a task manager");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints() == 0
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(job.getJobStatus().get().isGloballyTerminalState()).as("the job still runs after its first checkpoint").isFalse();
        cluster.terminateTaskManager(0).get(); // its tasks fail; a replacement joins
        cluster.startTaskManager();
        var result = new FlinkRunner.Result(Duration.ZERO, job.getJobExecutionResult().get(), FlinkRunner.parts(dir));
        assertThat(result.restored(0) + result.restored(2)).as("device stages resumed from a checkpoint").isPositive();
        assertThat(outcomes(Argon.read(dir))).isEqualTo(local);
        assertThat(RecoveryTest.inProgress(dir)).as("the lost attempt's in-progress files were cleaned up").isEmpty();
    }
}
