package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// A stage split over several threads gives every system exactly what one thread gives it,
/// and quarantines come back in batch order.
class StageThreadsTest {

    /// FIRE over the clusters (system 107 given a NaN position, 131 two overlapping atoms) with
    /// the stage split over `threads`: every final state, and the quarantine in order.
    private static List<String> relax(int threads) {
        List<AtomicSystem> in = AtomsPipelineTest.clusters(40, 5);
        in.get(7).positions()[0] = Double.NaN;
        System.arraycopy(in.get(31).positions(), 0, in.get(31).positions(), 3, 3);
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
        Summary<AtomicSystem> s;
        try (Pipeline<AtomicSystem> p = Pipeline.of(Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)),
                        Methods.fire(Convergence.of(0.05, 400))).threads(threads))
                .sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(Long.MAX_VALUE, 300, Long.MAX_VALUE))
                .samples(in).results(sink)) {
            s = p.run();
        }
        List<String> out = new ArrayList<>();
        for (var q : s.quarantined()) {
            out.add("quarantined " + q.diagnosis());
        }
        Map<Long, String> done = new TreeMap<>();
        for (AtomicSystem a : sink.samples()) {
            done.put(a.id(), a.energy() + " " + Arrays.toString(a.positions()) + " " + Arrays.toString(a.forces()));
        }
        out.add(done.toString());
        out.add("evaluations " + s.stages().getFirst().evaluations() + ", steps " + s.stages().getFirst().steps());
        return out;
    }

    @Test
    void aStageSplitOverThreadsGivesEverySystemItsOneThreadResultAndQuarantinesInOrder() {
        List<String> one = relax(1);
        assertThat(one.get(0)).contains("system 107").contains("non-finite position");
        assertThat(one.get(1)).contains("system 131").contains("overlap");
        assertThat(one).hasSize(4);
        for (int threads : new int[] {2, 3, 7, 64}) {
            assertThat(relax(threads)).as("threads %d", threads).isEqualTo(one);
        }
    }

    @Test
    void aRelaxationWithItsBatchSplitOverThreadsGivesBitIdenticalResults() {
        Map<Long, String> byThreads = null;
        for (int threads : new int[] {1, 2, 4}) {
            MemorySink<AtomicSystem> sink = MemorySink.unbounded("r");
            Summary<AtomicSystem> s;
            try (Pipeline<AtomicSystem> p = Pipeline.of(Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)),
                            Methods.fire(Convergence.of(0.05, 400))).threads(threads))
                    .sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(Long.MAX_VALUE, 200, Long.MAX_VALUE))
                    .samples(AtomsPipelineTest.clusters(30, 9)).results(sink)) {
                s = p.run();
            }
            assertThat(s.delivered()).isEqualTo(30);
            Map<Long, String> got = new TreeMap<>();
            for (AtomicSystem a : sink.samples()) {
                got.put(a.id(), a.energy() + " " + Arrays.toString(a.positions()));
            }
            if (byThreads == null) {
                byThreads = got;
            } else {
                assertThat(got).as("threads %d", threads).isEqualTo(byThreads);
            }
        }
    }

    @Test
    void aThreadCountBelowOneIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), Methods.fire(Convergence.of(0.05, 10)))
                .threads(0)).hasMessageContaining("'threads'").hasMessageContaining("0");
    }
}
