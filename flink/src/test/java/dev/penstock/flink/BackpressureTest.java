package dev.penstock.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// A slow final stage holds back the earlier ones: no stage instance ever holds more than its
/// batch room plus its pending limit, however fast the stages before it are, and every system
/// still arrives once.
class BackpressureTest {
    @TempDir
    Path dir;

    @Test
    void aSlowLastStageBoundsWhatEarlierStagesHold() throws Exception {
        SlowLj.reset();
        JobSpec<AtomicSystem> spec = SlowLj.spec(new long[] {3, 200, 100_000}, 2, 5, false);
        int pendingLimit = 2;
        FlinkRunner.Options o = new FlinkRunner.Options(1, Duration.ofMillis(200), pendingLimit).withRestarts(new FlinkRunner.Restarts(0, Duration.ZERO));
        StreamExecutionEnvironment env = FlinkRunner.localEnvironment(FlinkRunner.slotsNeeded(3, 1), o);
        FlinkRunner.Result r = FlinkRunner.run(env, spec, Argon.clusters(40, 11), dir, o, "slow last stage");
        assertThat(Argon.outcomes(Argon.read(dir))).hasSize(40);
        for (int i = 0; i < 3; i++) {
            // batch room 3 systems; pending is allowed one record over its limit while it yields
            assertThat(r.holdingMax(i)).as("stage %d held at most", i).isLessThanOrEqualTo(3 + pendingLimit + 1);
        }
        assertThat(SlowLj.CALLS.get()).as("the slow stage ran").isPositive();
    }
}
