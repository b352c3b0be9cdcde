package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Stage;
import dev.penstock.stage.StageBatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// A checkpoint restored mid-run continues every system bit for bit, at every later step, for
/// systems of 13 to 2,048 atoms — free clusters small enough for the all-pairs list and large
/// enough for cell lists, and periodic fcc solids. The checkpoint carries where each system's
/// neighbour list was built, and the restored list is rebuilt from there: a list rebuilt at the
/// restored positions bins the atoms differently, orders its pairs differently, and rebuilds at
/// other steps, so its sums differ in the last bits at once (on a real cluster that grew into
/// 0.1 eV over a long run).
class RestoreIsBitExactTest {
    private static final SystemCodec CODEC = new SystemCodec();
    private static final Capacity ROOM = Capacity.of(16, 5_000, 10_000_000);

    private static Stage<AtomicSystem> stage() {
        ModelEvaluator ev = new ModelEvaluator(new LennardJones(1, 1, 2.5, false));
        return Stage.of(ev, Methods.langevin(0.004, 0.6, 1.0, 3, 70)).fuse(Stage.of(ev, Methods.nve(0.004, 50)));
    }

    private static List<AtomicSystem> systems() {
        SplittableRandom rnd = new SplittableRandom(41);
        List<AtomicSystem> out = new ArrayList<>();
        long id = 1;
        for (int n : new int[] {13, 85, 147, 365}) {
            double[] r = Clusters.fccSites(n, 1.12);
            for (int i = 0; i < r.length; i++) {
                r[i] += rnd.nextDouble(-0.05, 0.05);
            }
            out.add(AtomicSystem.free(id++, r));
        }
        for (int k : new int[] {5, 8}) { // 500 and 2,048 atoms at the LJ liquid's density
            out.add(fcc(id++, k, rnd));
        }
        return out;
    }

    private static AtomicSystem fcc(long id, int k, SplittableRandom rnd) {
        double a = Math.cbrt(4 / 0.8442);
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        double[] r = new double[3 * 4 * k * k * k];
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int z = 0; z < k; z++) {
                    for (double[] b : basis) {
                        r[p++] = (x + b[0]) * a + rnd.nextDouble(-0.03, 0.03);
                        r[p++] = (y + b[1]) * a + rnd.nextDouble(-0.03, 0.03);
                        r[p++] = (z + b[2]) * a + rnd.nextDouble(-0.03, 0.03);
                    }
                }
            }
        }
        int n = r.length / 3;
        double[] masses = new double[n];
        Arrays.fill(masses, 1);
        return new AtomicSystem(id, r, masses, new int[n], new double[] {k * a, k * a, k * a}, new boolean[] {true, true, true});
    }

    /// Steps `b` up to `steps` times; records every system's state after every step from `from` on.
    private static void run(StageBatch<AtomicSystem> b, int from, int steps, Map<String, String> record) {
        for (int k = from; k < steps && !b.isEmpty(); k++) {
            b.step(e -> { });
            for (AtomicSystem s : b.samples()) {
                record.put(k + "/" + s.id(), Arrays.toString(s.positions()) + Arrays.toString(s.velocities()) + s.energy());
            }
        }
    }

    private static StageBatch<AtomicSystem> admitted() {
        StageBatch<AtomicSystem> b = new StageBatch<>(stage(), Systems.withListRadius(2.8), ROOM);
        b.admit(systems(), e -> { });
        return b;
    }

    @Test
    void everyLaterStepOfEverySystemIsBitIdenticalAfterARestore() throws Exception {
        Map<String, String> straight = new TreeMap<>();
        run(admitted(), 0, 120, straight);
        for (int cut : new int[] {23, 64, 95}) {
            StageBatch<AtomicSystem> first = admitted();
            run(first, 0, cut, new TreeMap<>());
            List<StageBatch.Held<AtomicSystem>> saved = first.save();
            StageBatch<AtomicSystem> second = new StageBatch<>(stage(), Systems.withListRadius(2.8), ROOM); // a fresh model too
            for (StageBatch.Held<AtomicSystem> h : saved) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                CODEC.write(h.sample(), new DataOutputStream(bytes));
                AtomicSystem copy = CODEC.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
                second.restore(new StageBatch.Held<>(copy, h.status(), h.motion(), h.evaluation()));
            }
            Map<String, String> resumed = new TreeMap<>();
            run(second, cut, 120, resumed);
            Map<String, String> expected = new TreeMap<>(straight);
            expected.keySet().removeIf(key -> Integer.parseInt(key.substring(0, key.indexOf('/'))) < cut);
            assertThat(resumed).as("restored at step %d", cut).hasSameSizeAs(expected);
            for (Map.Entry<String, String> e : expected.entrySet()) {
                assertThat(resumed.get(e.getKey())).as("step/system %s after a restore at step %d", e.getKey(), cut).isEqualTo(e.getValue());
            }
        }
    }
}
