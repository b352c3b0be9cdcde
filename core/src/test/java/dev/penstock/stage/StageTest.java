package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StageTest {

    static List<Walker> walkers(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Walker> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            out.add(new Walker(k + 1, 1 + rnd.nextInt(9), rnd.nextDouble(-5, 5)));
        }
        return out;
    }

    @Test
    void aFusedStageEvaluatesOncePerStepAndRoutesEachSampleByItsStatus() {
        Walker.Spring spring = new Walker.Spring(0);
        Stage<Walker> fused = Stage.of(spring, Walker.relax(1e-3, 200)).fuse(Stage.of(spring, Walker.walk(7, 3)));
        assertThat(fused.name()).isEqualTo("relax+walk");
        StageBatch<Walker> b = new StageBatch<>(fused, Walker.SIZER, Capacity.of(100, 1000));
        List<Walker> in = walkers(20, 1);
        List<Event<Walker>> events = new ArrayList<>();
        assertThat(b.admit(in, events::add)).isEmpty();
        assertThat(spring.calls.get()).as("one evaluation for the newcomers").isEqualTo(1);
        while (!b.isEmpty()) {
            long before = spring.calls.get();
            int[] statuses = b.statuses();
            List<Walker> held = b.samples();
            List<Integer> historyBefore = held.stream().map(w -> w.history.size()).toList();
            b.step(events::add);
            assertThat(spring.calls.get() - before).as("one shared evaluation per fused step").isEqualTo(1);
            for (int k = 0; k < held.size(); k++) {
                Walker w = held.get(k);
                // the sub-stage the sample was in at the start of the step, and only it, moved it
                String expected = statuses[k] == 0 ? "relax" : "walk";
                assertThat(w.history.subList(historyBefore.get(k), w.history.size())).as("sample %d", w.id).containsExactly(expected);
            }
        }
        assertThat(b.evaluations()).isEqualTo(b.steps() + 1);
        // every sample graduated from each sub-stage exactly once, relax before walk
        for (Walker w : in) {
            List<Event<Walker>> mine = events.stream().filter(e -> e.sample() == w).toList();
            assertThat(mine).extracting(Event::kind).containsExactly(Event.Kind.GRADUATED, Event.Kind.EXITED);
            assertThat(mine.get(1).steps()).isEqualTo(7);
            int firstWalk = w.history.indexOf("walk");
            assertThat(w.history.subList(firstWalk, w.history.size())).hasSize(7).containsOnly("walk");
            assertThat(w.history.subList(0, firstWalk)).containsOnly("relax").hasSize((int) mine.get(0).steps());
        }
        assertThat(spring.forgotten).hasSize(20).doesNotHaveDuplicates();
    }

    @Test
    void aSampleMeetingTwoCriteriaPassesBothInOneStepEachReportedOnce() {
        Walker.Spring spring = new Walker.Spring(0);
        // relax(tol 10) is met on entry by |x| < 10; walk(0 steps) is met on entry too
        Stage<Walker> fused = Stage.of(spring, Walker.relax(10, 50)).fuse(Stage.of(spring, Walker.walk(0, 1)));
        StageBatch<Walker> b = new StageBatch<>(fused, Walker.SIZER, Capacity.of(10, 100));
        List<Event<Walker>> events = new ArrayList<>();
        b.admit(List.of(new Walker(1, 1, 0.5)), events::add);
        assertThat(events).extracting(Event::kind, Event::subStage, Event::steps)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Event.Kind.GRADUATED, 0, 0L),
                        org.assertj.core.groups.Tuple.tuple(Event.Kind.EXITED, 1, 0L));
        assertThat(b.isEmpty()).isTrue();
        assertThat(b.used(1)).isZero();
    }

    @Test
    void fusingNeedsOneEvaluatorAndOversizeSamplesAreNamed() {
        Stage<Walker> a = Stage.of(new Walker.Spring(0), Walker.relax(1, 5));
        Stage<Walker> b = Stage.of(new Walker.Spring(0), Walker.walk(5, 1));
        assertThatThrownBy(() -> a.fuse(b)).hasMessageContaining("'relax'").hasMessageContaining("'walk'")
                .hasMessageContaining("same evaluator");
        StageBatch<Walker> batch = new StageBatch<>(a, Walker.SIZER, Capacity.of(4, 10));
        assertThatThrownBy(() -> batch.admit(List.of(new Walker(42, 11, 0)), e -> { }))
                .hasMessageContaining("sample 42").hasMessageContaining("atoms 10");
        // capacity in every dimension: three of size 4 fill 10 atoms at two
        List<Walker> rest = batch.admit(List.of(new Walker(1, 4, 100), new Walker(2, 4, 100), new Walker(3, 4, 100),
                new Walker(4, 2, 100)), e -> { });
        assertThat(rest).extracting(w -> w.id).containsExactly(3L);
        assertThat(batch.used(1)).isEqualTo(10);
        assertThat(batch.used(0)).isEqualTo(3);
    }

    @Test
    void aSampleThatCannotBeEvaluatedIsQuarantinedAndTheOthersGoOnUntouched() {
        List<Walker> clean = walkers(6, 9);
        List<Walker> withBad = walkers(6, 9);
        withBad.add(3, new Walker(99, 2, 0));
        Walker.Spring s1 = new Walker.Spring(0);
        Walker.Spring s2 = new Walker.Spring(0);
        List<Event<Walker>> e1 = new ArrayList<>();
        List<Event<Walker>> e2 = new ArrayList<>();
        StageBatch<Walker> a = new StageBatch<>(Stage.of(s1, Walker.walk(30, 5)), Walker.SIZER, Capacity.of(10, 100));
        StageBatch<Walker> b = new StageBatch<>(Stage.of(s2, Walker.walk(30, 5)), Walker.SIZER, Capacity.of(10, 100));
        a.admit(clean, e1::add);
        b.admit(withBad, e2::add);
        for (int step = 0; step < 30; step++) {
            if (step == 10) {
                withBad.get(3).x = Double.NaN; // goes bad mid-run
            }
            a.step(e1::add);
            b.step(e2::add);
        }
        List<Event<Walker>> q = e2.stream().filter(e -> e.kind() == Event.Kind.QUARANTINED).toList();
        assertThat(q).hasSize(1);
        assertThat(q.getFirst().sample().id).isEqualTo(99);
        assertThat(q.getFirst().diagnosis()).contains("sample 99").contains("non-finite");
        for (int k = 0; k < clean.size(); k++) {
            assertThat(withBad.get(k < 3 ? k : k + 1).outcome()).isEqualTo(clean.get(k).outcome());
        }
        assertThat(b.isEmpty()).isTrue();
    }
}
