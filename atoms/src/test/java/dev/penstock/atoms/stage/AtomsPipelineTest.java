package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.integrate.LangevinReference;
import dev.penstock.atoms.integrate.NveReference;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.optimize.Relaxation;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// Atomic systems through stage pipelines: a batch gives each system exactly the trajectory it
/// has alone (per-system dt and temperature included), and a bad system is quarantined without
/// touching the others.
class AtomsPipelineTest {
    private static final Convergence RELAX = Convergence.of(0.05, 400);

    /// Free LJ clusters of 7–30 atoms on a perturbed cubic grid (spacing 1.12σ).
    static List<AtomicSystem> clusters(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<AtomicSystem> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            int n = 7 + rnd.nextInt(24);
            double[] r = new double[3 * n];
            for (int i = 0; i < n; i++) {
                r[3 * i] = 1.12 * (i % 3) + rnd.nextDouble(-0.06, 0.06);
                r[3 * i + 1] = 1.12 * (i / 3 % 3) + rnd.nextDouble(-0.06, 0.06);
                r[3 * i + 2] = 1.12 * (i / 9) + rnd.nextDouble(-0.06, 0.06);
            }
            out.add(AtomicSystem.free(100 + k, r));
        }
        return out;
    }

    private static double dtOf(AtomicSystem s) {
        return s.id() % 2 == 0 ? 0.004 : 0.002;
    }

    private static double kTOf(AtomicSystem s) {
        return 0.1 + 0.05 * (s.id() % 3);
    }

    /// fire + langevin fused, then nve: per-system dt and temperature.
    private static Pipeline<AtomicSystem> pipeline(List<AtomicSystem> systems, Pipeline.Mode mode) {
        ModelEvaluator first = new ModelEvaluator(new LennardJones(1, 1, 2.5, true));
        Stage<AtomicSystem> relaxAndAnneal = Stage.of(first, Methods.fire(RELAX))
                .fuse(Stage.of(first, Methods.langevin(AtomsPipelineTest::dtOf, AtomsPipelineTest::kTOf, s -> 1.0, 42, s -> 150)));
        Stage<AtomicSystem> production = Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.nve(AtomsPipelineTest::dtOf, s -> 80));
        return relaxAndAnneal.then(production).sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(3, 60, 2000))
                .samples(systems).mode(mode);
    }

    /// The same work done on one system alone with the plain API.
    private static AtomicSystem alone(AtomicSystem s) {
        LennardJones lj = new LennardJones(1, 1, 2.5, true);
        Relaxation.relax(new Fire(), s, lj, RELAX);
        LangevinReference langevin = new LangevinReference(dtOf(s), kTOf(s), 1.0, 42);
        for (int k = 0; k < 150; k++) {
            langevin.step(s, lj);
        }
        LennardJones second = new LennardJones(1, 1, 2.5, true);
        second.compute(s);
        NveReference vv = new NveReference(dtOf(s));
        for (int k = 0; k < 80; k++) {
            vv.step(s, second);
        }
        return s;
    }

    private static Map<Long, AtomicSystem> byId(List<AtomicSystem> systems) {
        Map<Long, AtomicSystem> out = new HashMap<>();
        for (AtomicSystem s : systems) {
            assertThat(out.put(s.id(), s)).as("system %d delivered twice", s.id()).isNull();
        }
        return out;
    }

    @Test
    void aBatchGivesEachSystemTheTrajectoryItHasAloneInEveryMode() {
        Map<Long, AtomicSystem> reference = new HashMap<>();
        for (AtomicSystem s : clusters(8, 3)) {
            reference.put(s.id(), alone(s));
        }
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            MemorySink<AtomicSystem> out = MemorySink.unbounded("results");
            Summary<AtomicSystem> summary;
            try (Pipeline<AtomicSystem> p = pipeline(clusters(8, 3), mode).results(out)) {
                summary = p.run();
            }
            Map<Long, AtomicSystem> got = byId(out.samples());
            assertThat(got.keySet()).isEqualTo(reference.keySet());
            for (long id : reference.keySet()) {
                assertThat(got.get(id).positions()).as("mode %s, system %d positions", mode, id).containsExactly(reference.get(id).positions());
                assertThat(got.get(id).velocities()).as("mode %s, system %d velocities", mode, id).containsExactly(reference.get(id).velocities());
                assertThat(got.get(id).energy()).isEqualTo(reference.get(id).energy());
            }
            assertThat(summary.stages().getFirst().graduated()).containsExactly(8, 8);
            assertThat(summary.quarantined()).isEmpty();
        }
    }

    @Test
    void aSystemThatGoesBadIsQuarantinedAndTheOthersAreUntouched() {
        List<AtomicSystem> systems = clusters(6, 5);
        AtomicSystem nan = AtomicSystem.free(7, new double[] {0, 0, 0, 1.1, 0, 0, 0, Double.NaN, 0});
        AtomicSystem overlap = AtomicSystem.free(8, new double[] {0, 0, 0, 1e-9, 0, 0, 1.1, 0, 0});
        List<AtomicSystem> withBad = new ArrayList<>(clusters(6, 5));
        withBad.add(2, nan);
        withBad.add(4, overlap);
        MemorySink<AtomicSystem> clean = MemorySink.unbounded("clean");
        try (Pipeline<AtomicSystem> p = pipeline(systems, Pipeline.Mode.SYNC).results(clean)) {
            p.run();
        }
        MemorySink<AtomicSystem> out = MemorySink.unbounded("results");
        Summary<AtomicSystem> summary;
        try (Pipeline<AtomicSystem> p = pipeline(withBad, Pipeline.Mode.SYNC).results(out)) {
            summary = p.run();
        }
        assertThat(summary.quarantined()).extracting(e -> e.sample().id()).containsExactlyInAnyOrder(7L, 8L);
        Map<Long, String> why = new HashMap<>();
        for (Event<AtomicSystem> e : summary.quarantined()) {
            why.put(e.sample().id(), e.diagnosis());
        }
        assertThat(why.get(7L)).contains("system 7").contains("non-finite position of atom 2");
        assertThat(why.get(8L)).contains("system 8").contains("overlap");
        Map<Long, AtomicSystem> want = byId(clean.samples());
        Map<Long, AtomicSystem> got = byId(out.samples());
        assertThat(got.keySet()).isEqualTo(want.keySet());
        for (long id : want.keySet()) {
            assertThat(got.get(id).positions()).as("system %d", id).containsExactly(want.get(id).positions());
        }
    }

    @Test
    void modelsForgetSystemsThatLeaveAndStagesWithoutABudgetAreRefused() {
        LennardJones lj = new LennardJones(1, 1, 2.5, true);
        ModelEvaluator ev = new ModelEvaluator(lj);
        try (Pipeline<AtomicSystem> p = Pipeline.of(Stage.of(ev, Methods.nve(0.002, 5))).sizer(Systems.withListRadius(2.8))
                .batchCapacity(Capacity.of(4, 100, 4000)).samples(clusters(5, 1))) {
            p.run();
        }
        assertThat(lj.listsHeld()).isZero();
        Pipeline<AtomicSystem> endless = Pipeline.of(Stage.of(ev, Methods.nve(0.002, -1))).sizer(Systems.withListRadius(2.8))
                .batchCapacity(Capacity.of(4, 100, 4000)).samples(clusters(2, 1));
        assertThatThrownBy(endless::run).hasMessageContaining("'nve' has no step budget");
    }

    @Test
    void edgesAreCountedPerSystemAndCapacitiesHoldInEveryDimension() {
        Systems sizes = Systems.withListRadius(2.8);
        AtomicSystem s = clusters(1, 9).getFirst();
        long pairs = 0;
        double[] r = s.positions();
        for (int i = 0; i < s.atoms(); i++) {
            for (int j = i + 1; j < s.atoms(); j++) {
                double dx = r[3 * j] - r[3 * i];
                double dy = r[3 * j + 1] - r[3 * i + 1];
                double dz = r[3 * j + 2] - r[3 * i + 2];
                pairs += dx * dx + dy * dy + dz * dz < 2.8 * 2.8 ? 1 : 0;
            }
        }
        assertThat(sizes.size(s, Systems.EDGES)).isEqualTo(pairs);
        assertThat(sizes.size(s, Systems.ATOMS)).isEqualTo(s.atoms());
        // an edge budget below one system's pairs: that system is refused before the run, by id
        Pipeline<AtomicSystem> p = Pipeline.of(Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.nve(0.002, 5)))
                .sizer(sizes).batchCapacity(Capacity.of(4, 100, pairs - 1)).samples(List.of(s));
        assertThatThrownBy(p::run).hasMessageContaining("stage 0 holds systems 4, atoms 100, edges " + (pairs - 1))
                .hasMessageContaining(" — " + s.id() + " (edges " + pairs + ")");
    }
}
