package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Stage;
import dev.penstock.stage.StageBatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// A stage's batch saved mid-run (systems through the codec, motions through their own
/// `save`) and restored into a fresh batch with a fresh model continues exactly: the same
/// positions, velocities, energies and step counts as a run never interrupted.
class CheckpointTest {
    private static final SystemCodec CODEC = new SystemCodec();

    private static Stage<AtomicSystem> stage() {
        ModelEvaluator ev = new ModelEvaluator(new LennardJones(1, 1, 2.5, true));
        return Stage.of(ev, Methods.fire(Convergence.of(0.02, 500))).fuse(Stage.of(ev, Methods.fire2(Convergence.of(0.01, 200))))
                .fuse(Stage.of(ev, Methods.langevin(s -> 0.002 + 0.001 * (s.id() % 2), s -> 0.1, s -> 1.0, 9, s -> 60)))
                .fuse(Stage.of(ev, Methods.nve(0.003, 40)));
    }

    private static byte[] encode(AtomicSystem s) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        CODEC.write(s, new DataOutputStream(b));
        return b.toByteArray();
    }

    private static AtomicSystem decode(byte[] b) throws Exception {
        return CODEC.read(new DataInputStream(new ByteArrayInputStream(b)));
    }

    private static Map<Long, String> runToEnd(StageBatch<AtomicSystem> b, Map<Long, String> done, int maxSteps) {
        for (int k = 0; k < maxSteps && !b.isEmpty(); k++) {
            b.step(e -> {
                if (e.left()) {
                    AtomicSystem s = e.sample();
                    done.put(s.id(), java.util.Arrays.toString(s.positions()) + java.util.Arrays.toString(s.velocities()) + s.energy()
                            + "/" + e.steps());
                }
            });
        }
        return done;
    }

    @Test
    void aBatchRestoredFromACheckpointContinuesExactly() throws Exception {
        Capacity room = Capacity.of(10, 400, 100_000);
        StageBatch<AtomicSystem> straight = new StageBatch<>(stage(), Systems.withListRadius(2.8), room);
        straight.admit(AtomsPipelineTest.clusters(6, 21), e -> { });
        Map<Long, String> want = runToEnd(straight, new TreeMap<>(), 10_000);

        boolean mixed = false;
        for (int cut : new int[] {37, 90, 150, 220, 300}) {
            StageBatch<AtomicSystem> first = new StageBatch<>(stage(), Systems.withListRadius(2.8), room);
            first.admit(AtomsPipelineTest.clusters(6, 21), e -> { });
            Map<Long, String> got = runToEnd(first, new TreeMap<>(), cut); // part of the way
            List<StageBatch.Held<AtomicSystem>> saved = first.save();
            mixed |= saved.stream().mapToInt(StageBatch.Held::status).distinct().count() > 1;
            StageBatch<AtomicSystem> second = new StageBatch<>(stage(), Systems.withListRadius(2.8), room);
            for (StageBatch.Held<AtomicSystem> h : saved) {
                second.restore(new StageBatch.Held<>(decode(encode(h.sample())), h.status(), h.motion(), h.evaluation()));
            }
            runToEnd(second, got, 10_000);
            assertThat(got).as("cut at step %d", cut).isEqualTo(want);
        }
        assertThat(mixed).as("some cut found systems in different sub-stages").isTrue();
    }

    @Test
    void theCodecKeepsEveryField() throws Exception {
        AtomicSystem s = new AtomicSystem(77, new double[] {0, 0.5, 1, 1.5, 2, 2.5}, new double[] {1.008, 15.999}, new int[] {1, 8},
                Cell.of(new double[] {5, 0, 0, 1, 6, 0, -0.5, 0.25, 7}, new boolean[] {true, false, true}));
        for (int i = 0; i < 6; i++) {
            s.velocities()[i] = -i * 0.1;
            s.forces()[i] = i * 1e-3;
        }
        s.energy(-3.25);
        s.info().put("stages", "fire:3");
        AtomicSystem t = decode(encode(s));
        assertThat(t.id()).isEqualTo(77);
        assertThat(t.positions()).containsExactly(s.positions());
        assertThat(t.velocities()).containsExactly(s.velocities());
        assertThat(t.forces()).containsExactly(s.forces());
        assertThat(t.masses()).containsExactly(s.masses());
        assertThat(t.numbers()).containsExactly(s.numbers());
        assertThat(t.cell()).isEqualTo(s.cell());
        assertThat(t.energy()).isEqualTo(-3.25);
        assertThat(t.info()).isEqualTo(s.info());
    }
}
