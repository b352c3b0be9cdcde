package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/// Result sinks: one that cannot write one sample quarantines that sample (every other result is
/// delivered and the run succeeds); a sink is committed once when a run succeeds, never when it fails.
class ResultSinkTest {
    /// Takes every sample except those whose id is a multiple of 7.
    private static final class PickySink implements Sink<Walker> {
        final List<Walker> taken = new ArrayList<>();
        int commits;
        int closes;

        @Override
        public synchronized void commit() {
            commits++;
        }

        @Override
        public synchronized void close() {
            closes++;
        }

        @Override
        public synchronized boolean offer(Walker w) throws SampleRefusedException {
            if (w.id % 7 == 0) {
                throw new SampleRefusedException("sample " + w.id + ": cannot be written (test)");
            }
            taken.add(w);
            return true;
        }

        @Override
        public String name() {
            return "picky";
        }

        @Override
        public synchronized long held() {
            return taken.size();
        }
    }

    @Test
    void aSampleTheSinkRefusesIsQuarantinedWithTheReasonAndTheOthersAreDelivered() {
        PickySink sink = new PickySink();
        Summary<Walker> s;
        try (Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.relax(1e-2, 40)).then(Stage.of(new Walker.Spring(0),
                Walker.walk(5, 3))).sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 20)).samples(StageTest.walkers(30, 2))
                .results(sink)) {
            s = p.run();
        }
        assertThat(s.toString()).as("arrays spelled out").doesNotContain("[J@").contains("graduated=[")
                .contains("cannot be written");
        List<Long> refused = s.quarantined().stream().map(e -> e.sample().id).sorted().toList();
        assertThat(refused).isEqualTo(java.util.stream.LongStream.rangeClosed(1, 30).filter(i -> i % 7 == 0).boxed().toList());
        assertThat(s.quarantined()).allSatisfy(e -> assertThat(e.diagnosis()).contains("cannot be written").contains("sample"));
        assertThat(s.delivered()).isEqualTo(30 - refused.size());
        assertThat(sink.taken).hasSize(30 - refused.size());
    }

    @Test
    void aSinkIsCommittedOnceWhenTheRunSucceedsAndNeverWhenItFails() {
        PickySink ok = new PickySink();
        try (Pipeline<Walker> p = Pipeline.of(Stage.of(new Walker.Spring(0), Walker.relax(1e-2, 40))).sizer(Walker.SIZER)
                .batchCapacity(Capacity.of(4, 20)).samples(StageTest.walkers(6, 3)).results(ok)) {
            p.run();
        }
        assertThat(ok.commits).isEqualTo(1);
        assertThat(ok.closes).isEqualTo(1);
        PickySink failed = new PickySink();
        Hook<Walker> broken = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<Walker> samples) {
                if (step == 3) {
                    throw new IllegalStateException("a hook that breaks at step 3 (test)");
                }
            }
        };
        try (Pipeline<Walker> p = Pipeline.of(Stage.of(new Walker.Spring(0), Walker.relax(1e-2, 40))).sizer(Walker.SIZER)
                .batchCapacity(Capacity.of(4, 20)).samples(StageTest.walkers(6, 3)).hook(broken).results(failed)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(p::run).isInstanceOf(PipelineException.class);
        }
        assertThat(failed.commits).as("a failed run publishes nothing").isZero();
        assertThat(failed.closes).isEqualTo(1);
    }
}
