package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// A slow final stage holds back the earlier ones: no stage instance ever holds more than its
/// batch room plus its pending limit, however fast the stages before it are, and every system
/// still arrives once.
class BackpressureTest {
    @TempDir
    Path dir;

    static final AtomicLong SLOW_CALLS = new AtomicLong();

    /// Lennard-Jones 5 ms slower per system evaluation.
    static final class Slow implements Model {
        private final Model lj = PipelineSpec.potential(Argon.LJ).get();

        @Override
        public void compute(AtomicSystem s) {
            SLOW_CALLS.incrementAndGet();
            try {
                Thread.sleep(5);
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

    @Test
    void aSlowLastStageBoundsWhatEarlierStagesHold() throws Exception {
        JobSpec<AtomicSystem> plain = AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, new long[] {3, 200, 100_000});
        List<JobSpec.StageFactory<AtomicSystem>> stages = new ArrayList<>(plain.stages());
        stages.set(2, () -> PipelineSpec.stage(PipelineSpec.parse(Argon.PIPELINE).get(2), Slow::new, 5));
        JobSpec<AtomicSystem> spec = new JobSpec<>(stages, plain.sizer(), plain.codec(), plain.capacities(), plain.format());
        int pendingLimit = 2;
        FlinkRunner.Options o = new FlinkRunner.Options(1, Duration.ofMillis(200), pendingLimit, 0);
        StreamExecutionEnvironment env = FlinkRunner.localEnvironment(FlinkRunner.slotsNeeded(3, 1), o);
        FlinkRunner.Result r = FlinkRunner.run(env, spec, Argon.clusters(40, 11), dir, o, "slow last stage");
        assertThat(Argon.outcomes(Argon.read(dir))).hasSize(40);
        for (int i = 0; i < 3; i++) {
            // batch room 3 systems; pending is allowed one record over its limit while it yields
            assertThat(r.holdingMax(i)).as("stage %d held at most", i).isLessThanOrEqualTo(3 + pendingLimit + 1);
        }
        assertThat(SLOW_CALLS.get()).isPositive();
    }
}
