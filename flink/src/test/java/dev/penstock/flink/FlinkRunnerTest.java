package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The Flink runner on a local MiniCluster against the local runner.
class FlinkRunnerTest {
    @TempDir
    Path dir;

    @Test
    void aThreeStagePipelineGivesTheLocalRunnersResults() throws Exception {
        List<AtomicSystem> systems = Argon.clusters(14, 3);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = FlinkRunner.Options.of(2, Duration.ofMillis(300));
        StreamExecutionEnvironment env = FlinkRunner.localEnvironment(FlinkRunner.slotsNeeded(3, 2), o);
        FlinkRunner.Result r = FlinkRunner.run(env, AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, Argon.ROOM), Argon.clusters(14, 3),
                dir, o, "three stages");
        assertThat(r.parts()).isNotEmpty();
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
        assertThat(r.steps(0)).isPositive();
        assertThat(r.steps(2)).isPositive();
        assertThat(FlinkRunner.parts(dir.resolve("quarantined"))).isEmpty();
    }

    @Test
    void eachStageCanHaveItsOwnNumberOfInstances() throws Exception {
        List<AtomicSystem> systems = Argon.clusters(10, 4);
        Map<Long, String> local = Argon.local(systems, 5);
        FlinkRunner.Options o = new FlinkRunner.Options(List.of(2, 1, 3), Duration.ofMillis(300), 4, java.util.Optional.empty());
        assertThat(o.slots(3)).isEqualTo(6);
        FlinkRunner.run(FlinkRunner.localEnvironment(o.slots(3), o), AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, Argon.ROOM),
                Argon.clusters(10, 4), dir, o, "per-stage parallelism");
        assertThat(Argon.outcomes(Argon.read(dir))).isEqualTo(local);
        FlinkRunner.Options wrong = new FlinkRunner.Options(List.of(2, 1), Duration.ZERO, 4, java.util.Optional.empty());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FlinkRunner.build(FlinkRunner.localEnvironment(3, wrong),
                AtomsJob.spec(Argon.PIPELINE, Argon.LJ, 5, Argon.ROOM), Argon.clusters(2, 4), dir.resolve("x"), wrong))
                .hasMessageContaining("one number or one per stage (3)");
    }
}
