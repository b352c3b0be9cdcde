package dev.penstock.atoms.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Method;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import dev.penstock.stage.Summary;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/// The NaN hook quarantines a system whose velocity went NaN the step it happened, with a
/// diagnosis naming the system, the atom and the step; the other systems end exactly as in a
/// run where nothing went wrong.
class NanHookTest {

    /// NVE for 20 steps; with `poison`, system 103's velocity becomes NaN after its 5th step.
    private static Method<AtomicSystem> nve(boolean poison) {
        Method<AtomicSystem> plain = Methods.nve(0.002, 20);
        return new Method<>() {
            @Override
            public String name() {
                return "nve";
            }

            @Override
            public boolean terminates() {
                return true;
            }

            @Override
            public Motion enter(AtomicSystem s) {
                Motion m = plain.enter(s);
                return new Motion() {
                    @Override
                    public void beforeEvaluation() {
                        m.beforeEvaluation();
                    }

                    @Override
                    public void afterEvaluation() {
                        m.afterEvaluation();
                        if (poison && s.id() == 103 && m.steps() == 5) {
                            s.velocities()[0] = Double.NaN;
                        }
                    }

                    @Override
                    public boolean finished() {
                        return m.finished();
                    }

                    @Override
                    public long steps() {
                        return m.steps();
                    }
                };
            }
        };
    }

    private static Summary<AtomicSystem> run(boolean poison, MemorySink<AtomicSystem> out) {
        try (Pipeline<AtomicSystem> p = Pipeline.of(Stage.of(new ModelEvaluator(new LennardJones(1, 1, 2.5, true)), nve(poison)))
                .sizer(Systems.withListRadius(2.8)).batchCapacity(Capacity.of(8, 400, 100_000)).samples(AtomsPipelineTest.clusters(6, 2))
                .hook(new NanHook(1)).results(out)) {
            return p.run();
        }
    }

    @Test
    void aSystemGoneNanIsQuarantinedAtOnceAndTheOthersAreUntouched() {
        MemorySink<AtomicSystem> clean = MemorySink.unbounded("clean");
        run(false, clean);
        MemorySink<AtomicSystem> out = MemorySink.unbounded("out");
        Summary<AtomicSystem> s = run(true, out);
        assertThat(s.quarantined()).hasSize(1);
        assertThat(s.quarantined().getFirst().sample().id()).isEqualTo(103);
        assertThat(s.quarantined().getFirst().diagnosis()).contains("system 103").contains("non-finite velocity of atom 0")
                .contains("at step 5");
        Map<Long, String> want = new TreeMap<>();
        for (AtomicSystem a : clean.samples()) {
            if (a.id() != 103) {
                want.put(a.id(), Arrays.toString(a.positions()));
            }
        }
        Map<Long, String> got = new TreeMap<>();
        for (AtomicSystem a : out.samples()) {
            got.put(a.id(), Arrays.toString(a.positions()));
        }
        assertThat(got).isEqualTo(want);
        assertThat(List.copyOf(got.keySet())).doesNotContain(103L);
    }
}
