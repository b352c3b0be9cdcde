package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// A stage names the engine of its batch (`Stage.onDevice`): `StageBatch` and a whole pipeline
/// run the engine the factory makes — here, for the toy sample type, one that counts its steps
/// around the per-sample batch — and a stage on an engine cannot be fused.
class BatchEngineTest {
    private static List<Walker> walkers(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Walker> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            out.add(new Walker(k + 1, 1 + rnd.nextInt(9), rnd.nextDouble(-5, 5)));
        }
        return out;
    }

    /// An engine that steps through a per-sample batch and counts the steps it was asked for.
    private static BatchEngine.Factory<Walker> counting(AtomicInteger made, AtomicInteger steps) {
        return counting(made, steps, new AtomicInteger());
    }

    /// As `counting`, also counting the calls of `samples()` (a device engine's unpacking).
    private static BatchEngine.Factory<Walker> counting(AtomicInteger made, AtomicInteger steps, AtomicInteger unpacked) {
        return (stage, sizer, capacity) -> {
            made.incrementAndGet();
            PerSampleBatch<Walker> inner = new PerSampleBatch<>(stage, sizer, capacity);
            return new BatchEngine<>() {
                public boolean fits(Walker s) {
                    return inner.fits(s);
                }

                public List<Walker> admit(List<Walker> samples, java.util.function.Consumer<Event<Walker>> events) {
                    return inner.admit(samples, events);
                }

                public void step(java.util.function.Consumer<Event<Walker>> events) {
                    steps.incrementAndGet();
                    inner.step(events);
                }

                public void quarantine(Walker s, String why, java.util.function.Consumer<Event<Walker>> events) {
                    inner.quarantine(s, why, events);
                }

                public List<StageBatch.Held<Walker>> save() throws java.io.IOException {
                    return inner.save();
                }

                public void restore(StageBatch.Held<Walker> held) throws java.io.IOException {
                    inner.restore(held);
                }

                public int size() {
                    return inner.size();
                }

                public long used(int d) {
                    return inner.used(d);
                }

                public List<Walker> samples() {
                    unpacked.incrementAndGet();
                    return inner.samples();
                }

                public int[] statuses() {
                    return inner.statuses();
                }

                public long evaluations() {
                    return inner.evaluations();
                }

                public long steps() {
                    return inner.steps();
                }

                public void close() {
                    inner.close();
                }
            };
        };
    }

    @SafeVarargs
    private static List<String> run(Stage<Walker> stage, Hook<Walker>... hooks) {
        MemorySink<Walker> sink = MemorySink.unbounded("out");
        try (Pipeline<Walker> p = Pipeline.of(stage).sizer(Walker.SIZER).batchCapacity(Capacity.of(6, 30)).samples(walkers(25, 3))
                .results(sink)) {
            for (Hook<Walker> h : hooks) {
                p.hook(h);
            }
            p.run();
        }
        List<String> out = new ArrayList<>();
        for (Walker w : sink.samples()) {
            out.add(w.outcome());
        }
        java.util.Collections.sort(out);
        return out;
    }

    @Test
    void aPipelineRunsTheEngineItsStageNamesWithTheResultsOfThePerSampleBatch() {
        AtomicInteger made = new AtomicInteger();
        AtomicInteger steps = new AtomicInteger();
        List<String> plain = run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)));
        List<String> onEngine = run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)).onDevice(counting(made, steps)));
        assertThat(made.get()).as("one engine for the stage's batch").isEqualTo(1);
        assertThat(steps.get()).as("every step went through the engine").isPositive();
        assertThat(onEngine).hasSize(25).isEqualTo(plain);
    }

    @Test
    void theBatchIsReadForAHookOnlyWhenTheHookReadsIt() {
        AtomicInteger unpacked = new AtomicInteger();
        AtomicInteger events = new AtomicInteger();
        Hook<Walker> eventsOnly = new Hook<>() {
            @Override
            public void onEvent(int stage, Event<Walker> e) {
                events.incrementAndGet();
            }
        };
        List<String> plain = run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)));
        assertThat(run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)).onDevice(counting(new AtomicInteger(), new AtomicInteger(),
                unpacked)), eventsOnly)).isEqualTo(plain);
        assertThat(events.get()).isPositive();
        assertThat(unpacked.get()).as("a hook of events alone never asks for the batch's samples").isZero();
        AtomicInteger counted = new AtomicInteger();
        Hook<Walker> counter = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<Walker> samples) {
                counted.addAndGet(samples.size());
            }
        };
        assertThat(run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)).onDevice(counting(new AtomicInteger(), new AtomicInteger(),
                unpacked)), counter)).isEqualTo(plain);
        assertThat(counted.get()).as("the batch's count, every step").isPositive();
        assertThat(unpacked.get()).as("a hook that only counts the samples never unpacks them (the batch knows its count)").isZero();
        AtomicInteger seen = new AtomicInteger();
        AtomicInteger steps = new AtomicInteger();
        AtomicInteger nonEmpty = new AtomicInteger();
        Hook<Walker> reader = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<Walker> samples) {
                if (!samples.isEmpty()) {
                    nonEmpty.incrementAndGet();
                }
                for (Walker w : samples) {
                    seen.incrementAndGet();
                }
            }
        };
        assertThat(run(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, 200)).onDevice(counting(new AtomicInteger(), steps, unpacked)),
                reader)).isEqualTo(plain);
        assertThat(unpacked.get()).as("once per step with samples for the hook that reads them (onStep and check share it)")
                .isEqualTo(nonEmpty.get()).isBetween(steps.get() - 1, steps.get());
        assertThat(seen.get()).isPositive();
    }

    @Test
    void aStageOnAnEngineIsNotFusedAndNeedsAFactory() {
        Walker.Spring spring = new Walker.Spring(0);
        Stage<Walker> device = Stage.of(spring, Walker.relax(1e-3, 200)).onDevice(counting(new AtomicInteger(), new AtomicInteger()));
        assertThatThrownBy(() -> device.fuse(Stage.of(spring, Walker.walk(3, 1)))).hasMessageContaining("cannot fuse 'relax' with 'walk'")
                .hasMessageContaining("device engine");
        assertThatThrownBy(() -> Stage.of(spring, Walker.walk(3, 1)).fuse(device)).hasMessageContaining("device engine");
        assertThatThrownBy(() -> Stage.of(spring, Walker.walk(3, 1)).onDevice(null)).hasMessageContaining("factory is null");
    }
}
