package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.ThreadCensus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PipelineTest {
    @TempDir
    Path dir;

    /// relax+walk fused, then walk, then relax: three workers.
    private static Pipeline<Walker> threeStages(long delayLast) {
        Walker.Spring first = new Walker.Spring(0);
        Stage<Walker> a = Stage.of(first, Walker.relax(1e-2, 40)).fuse(Stage.of(first, Walker.walk(5, 7)));
        Stage<Walker> b = Stage.of(new Walker.Spring(0), Walker.walk(12, 8));
        Stage<Walker> c = Stage.of(new Walker.Spring(delayLast), Walker.relax(1e-3, 25));
        return a.then(b).then(c).sizer(Walker.SIZER).batchCapacity(Capacity.of(6, 30));
    }

    private static Map<Long, String> outcomes(List<Walker> ws) {
        Map<Long, String> out = new TreeMap<>();
        for (Walker w : ws) {
            assertThat(out.put(w.id, w.outcome())).as("sample %d delivered twice", w.id).isNull();
        }
        return out;
    }

    private static Map<Long, String> runAlone(List<Walker> samples) {
        // the reference: each sample alone through the same stages, one at a time
        List<Walker> done = new ArrayList<>();
        for (Walker w : samples) {
            MemorySink<Walker> sink = MemorySink.unbounded("r");
            try (Pipeline<Walker> p = threeStages(0).samples(List.of(w)).results(sink)) {
                p.run();
            }
            done.addAll(sink.samples());
        }
        return outcomes(done);
    }

    @Test
    void everyModeGivesTheSameResultsAsEachSampleAlone() {
        Map<Long, String> alone = runAlone(StageTest.walkers(30, 2));
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            MemorySink<Walker> sink = MemorySink.unbounded("results");
            Summary<Walker> s;
            try (Pipeline<Walker> p = threeStages(0).samples(StageTest.walkers(30, 2)).mode(mode).results(sink)
                    .bufferCapacity(Capacity.of(2, 12))) {
                s = p.run();
            }
            assertThat(outcomes(sink.samples())).as("mode %s", mode).isEqualTo(alone);
            assertThat(s.delivered()).isEqualTo(30);
            assertThat(s.stages()).extracting(Summary.StageReport::exited).containsExactly(30L, 30L, 30L);
            assertThat(s.stages().getFirst().graduated()).containsExactly(30, 30);
        }
    }

    /// A slow last stage behind one-sample buffers: every worker has its lane, steps joined into
    /// stretches, the first two stages wait for room and the later ones for input, and no lane
    /// holds two things at once; the results are those of a run without a timeline.
    @Test
    void theTimelineHasALanePerStageWithItsStepsAndWaits() {
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            dev.penstock.observe.Timeline timeline = new dev.penstock.observe.Timeline();
            MemorySink<Walker> sink = MemorySink.unbounded("r");
            Summary<Walker> s;
            try (Pipeline<Walker> p = threeStages(1).samples(StageTest.walkers(30, 2)).mode(mode).results(sink)
                    .bufferCapacity(Capacity.of(1, 30)).timeline(timeline)) {
                s = p.run();
            }
            assertThat(outcomes(sink.samples())).as("mode %s", mode).isEqualTo(runAlone(StageTest.walkers(30, 2)));
            List<dev.penstock.observe.Timeline.Span> spans = timeline.spans();
            Map<String, List<dev.penstock.observe.Timeline.Span>> byLane = new TreeMap<>();
            for (dev.penstock.observe.Timeline.Span sp : spans) {
                byLane.computeIfAbsent(sp.lane(), k -> new ArrayList<>()).add(sp);
            }
            List<String> stages = s.stages().stream().map(Summary.StageReport::name).toList();
            for (int i = 0; i < 3; i++) {
                String lane = "stage " + i + ": " + stages.get(i);
                assertThat(byLane).as("mode %s", mode).containsKey(lane);
                List<dev.penstock.observe.Timeline.Span> on = byLane.get(lane);
                long stepSpans = on.stream().filter(sp -> sp.kind().equals("step")).count();
                assertThat(stepSpans).as("%s: steps joined into stretches", lane).isPositive().isLessThan(s.stages().get(i).steps());
            }
            for (List<dev.penstock.observe.Timeline.Span> on : byLane.values()) {
                on.sort(java.util.Comparator.comparingLong(dev.penstock.observe.Timeline.Span::startNs));
                for (int k = 1; k < on.size(); k++) {
                    assertThat(on.get(k).startNs()).as("one thing at a time on %s", on.get(k).lane()).isGreaterThanOrEqualTo(on.get(k - 1).endNs());
                }
            }
            assertThat(spans).as("mode %s: the slow last stage holds the others back", mode)
                    .anyMatch(sp -> sp.kind().equals("wait for room") && sp.lane().startsWith("stage 0"))
                    .anyMatch(sp -> sp.kind().equals("wait for input") && sp.lane().startsWith("stage 1"));
        }
    }

    @Test
    void fusedAndSeparateStagesGiveTheSameTrajectories() {
        Walker.Spring spring = new Walker.Spring(0);
        MemorySink<Walker> fusedOut = MemorySink.unbounded("fused");
        try (Pipeline<Walker> p = Pipeline.of(Stage.of(spring, Walker.relax(1e-2, 40)).fuse(Stage.of(spring, Walker.walk(9, 4))))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(5, 25)).samples(StageTest.walkers(25, 3)).results(fusedOut)) {
            p.run();
        }
        MemorySink<Walker> chainOut = MemorySink.unbounded("chained");
        try (Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.relax(1e-2, 40)).then(Stage.of(new Walker.Spring(0), Walker.walk(9, 4)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(3, 20)).samples(StageTest.walkers(25, 3)).results(chainOut)) {
            p.run();
        }
        assertThat(outcomes(chainOut.samples())).isEqualTo(outcomes(fusedOut.samples()));
    }

    @Test
    void underSmallBuffersAndASlowLastStageEverySampleArrivesOnceAndCapacitiesHold() throws Exception {
        AtomicInteger overfull = new AtomicInteger();
        Hook<Walker> capacityWatch = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<Walker> samples) {
                if (samples.size() > 4 || samples.stream().mapToInt(w -> w.size).sum() > 15) {
                    overfull.incrementAndGet();
                }
            }
        };
        MemorySink<Walker> sink = MemorySink.unbounded("results");
        List<Walker> in = StageTest.walkers(40, 4);
        Summary<Walker> s;
        try (Pipeline<Walker> p = threeStages(2).batchCapacity(Capacity.of(4, 15)).bufferCapacity(Capacity.of(1, 9))
                .samples(in).results(sink).hook(capacityWatch).refillEvery(3)) {
            s = p.run();
        }
        assertThat(overfull.get()).as("a batch over its room").isZero();
        assertThat(outcomes(sink.samples()).keySet()).isEqualTo(outcomes(in).keySet());
        assertThat(s.stages().get(2).meanOccupancy(0)).isBetween(0.0, 1.0);
        assertThat(ThreadCensus.awaitNone("penstock-", Duration.ofSeconds(5))).isEmpty();
    }

    /// CPU time the pipeline's threads (but the worker of `busyStage`, which sleeps in its
    /// evaluator) use while a slow stage keeps the others waiting for room: waits are signalled.
    private static long waitingCpuNs(Pipeline.Mode mode) throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] cpu = new long[2];
        Hook<Walker> meter = new Hook<>() {
            @Override
            public void onStep(int stage, String name, long step, List<Walker> samples) {
                if (stage != 1 || (step != 5 && step != 25)) {
                    return;
                }
                long total = 0;
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().startsWith("penstock-") && t != Thread.currentThread()) {
                        total += Math.max(0, mx.getThreadCpuTime(t.threadId()));
                    }
                }
                cpu[step == 5 ? 0 : 1] = total;
            }
        };
        Stage<Walker> fast = Stage.of(new Walker.Spring(0), Walker.walk(3, 2));
        Stage<Walker> slow = Stage.of(new Walker.Spring(10), Walker.walk(20, 1)); // steps 5…25: ≈ 200 ms of sleeping
        try (Pipeline<Walker> p = fast.then(slow).sizer(Walker.SIZER).batchCapacity(Capacity.of(2, 30)).bufferCapacity(Capacity.of(2, 30))
                .samples(StageTest.walkers(10, 5)).mode(mode).hook(meter).results(MemorySink.unbounded("r"))) {
            p.run();
        }
        return cpu[1] - cpu[0];
    }

    @Test
    void threadsWaitingForRoomOrInputUseNoCpu() throws Exception {
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            // over ~200 ms in which stage 0, its buffer, the receiver and the sender can only wait
            assertThat(waitingCpuNs(mode)).as("CPU ns of waiting threads, mode %s", mode).isLessThan(40_000_000L);
        }
    }

    @Test
    void everyStageAfterTheFirstReportsTheHandOffLatencyOfEverySampleItAdmitted() {
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            Summary<Walker> s;
            try (Pipeline<Walker> p = threeStages(1).samples(StageTest.walkers(30, 2)).mode(mode).results(MemorySink.unbounded("r"))) {
                s = p.run();
            }
            assertThat(s.stages().getFirst().handoffNs()).isEmpty();
            assertThat(s.stages().getFirst().handoffPercentileUs(0.5)).isNaN();
            for (int k = 1; k < 3; k++) {
                Summary.StageReport r = s.stages().get(k);
                assertThat(r.handoffNs()).as("mode %s stage %d", mode, k).hasSize(30).isSorted();
                assertThat(r.handoffNs()[0]).isNotNegative();
                assertThat(r.handoffPercentileUs(0.99)).isGreaterThanOrEqualTo(r.handoffPercentileUs(0.5));
            }
        }
    }

    @Test
    void overflowTiersHoldWhatDoesNotFitAndDrainBackInOrder() throws Exception {
        MemorySink<Walker> sink = MemorySink.unbounded("results");
        List<Walker> in = StageTest.walkers(30, 5);
        List<DiskOverflow<Walker>> disks = new ArrayList<>();
        Summary<Walker> s;
        try (Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.walk(1, 1)).then(Stage.of(new Walker.Spring(3), Walker.walk(20, 2)))
                .sizer(Walker.SIZER).batchCapacity(0, Capacity.of(10, 100)).batchCapacity(1, Capacity.of(2, 100))
                .bufferCapacity(Capacity.of(1, 100)).samples(in).results(sink)
                .overflow(() -> {
                    try {
                        DiskOverflow<Walker> d = new DiskOverflow<>(dir, Walker.CODEC, 4096);
                        disks.add(d);
                        return List.of(new MemorySink<>("memory overflow", 3), d);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })) {
            s = p.run();
        }
        long[] spilled = s.spilled().getFirst();
        assertThat(spilled[0]).as("the memory tier took some").isPositive();
        assertThat(spilled[1]).as("and then the disk tier").isPositive();
        Map<Long, String> got = outcomes(sink.samples());
        assertThat(got.keySet()).isEqualTo(outcomes(in).keySet());
        for (DiskOverflow<Walker> d : disks) {
            assertThat(d.held()).isZero();
            d.close();
        }
        // samples that went through disk were read back whole: same result as a run with room
        MemorySink<Walker> roomy = MemorySink.unbounded("roomy");
        try (Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.walk(1, 1)).then(Stage.of(new Walker.Spring(0), Walker.walk(20, 2)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(10, 100)).samples(StageTest.walkers(30, 5)).results(roomy)) {
            p.run();
        }
        assertThat(got).isEqualTo(outcomes(roomy.samples()));
    }

    @Test
    void resultSinksSpillInTierOrderAndAllFullIsBackpressureNotLoss() throws Exception {
        MemorySink<Walker> small = new MemorySink<>("small", 3);
        MemorySink<Walker> next = new MemorySink<>("next", 2);
        List<Walker> drained = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong drains = new AtomicLong();
        Thread consumer = Thread.ofPlatform().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
                List<Walker> got = next.drain();
                if (!got.isEmpty()) {
                    drains.incrementAndGet();
                }
                drained.addAll(got);
            }
        });
        try (Pipeline<Walker> p = Pipeline.of(Stage.of(new Walker.Spring(0), Walker.walk(2, 1))).sizer(Walker.SIZER)
                .batchCapacity(Capacity.of(2, 100)).samples(StageTest.walkers(15, 6)).results(small).results(next)) {
            Summary<Walker> s = p.run();
            assertThat(s.delivered()).isEqualTo(15);
        } finally {
            consumer.interrupt();
            consumer.join();
        }
        drained.addAll(next.drain());
        assertThat(small.samples()).hasSize(3);
        assertThat(drained).hasSize(12);
        assertThat(drains.get()).as("the second tier filled up and the pipeline waited for it").isGreaterThan(1);
    }

    @Test
    void whatCouldNeverFinishIsRefusedBeforeTheRun() {
        Walker.Spring spring = new Walker.Spring(0);
        Pipeline<Walker> endless = Stage.of(spring, Walker.relax(1e-3, 20)).then(Stage.of(new Walker.Spring(0), Walker.relax(1e-3, -1)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 20)).samples(StageTest.walkers(3, 1));
        assertThatThrownBy(endless::run).hasMessageContaining("stage 1").hasMessageContaining("no step budget");
        List<Walker> big = new ArrayList<>(StageTest.walkers(3, 1));
        big.add(new Walker(77, 50, 0));
        Pipeline<Walker> oversize = Stage.of(spring, Walker.relax(1e-3, 20)).then(Stage.of(new Walker.Spring(0), Walker.walk(3, 1)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 60)).batchCapacity(1, Capacity.of(4, 20)).samples(big);
        assertThatThrownBy(oversize::run).hasMessageContaining("1 sample is larger").hasMessageContaining("stage 1 holds samples 4, atoms 20 — 77 (atoms 50)");
        Pipeline<Walker> narrowBuffer = Stage.of(spring, Walker.relax(1e-3, 20)).then(Stage.of(new Walker.Spring(0), Walker.walk(3, 1)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 60)).bufferCapacity(Capacity.of(4, 30)).samples(big);
        assertThatThrownBy(narrowBuffer::run).hasMessageContaining("the buffer before stage 1 holds samples 4, atoms 30 — 77 (atoms 50)");
        Pipeline<Walker> twice = Pipeline.of(Stage.of(spring, Walker.walk(3, 1))).sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 60))
                .samples(List.of(new Walker(5, 1, 0), new Walker(5, 1, 1)));
        assertThatThrownBy(twice::run).hasMessageContaining("id 5");
    }

    @Test
    void aSampleAStagesEvaluatorRefusesIsNamedByCheckBeforeAnythingRuns() {
        Walker.Spring spring = new Walker.Spring(0);
        Evaluator<Walker> picky = new Evaluator<>() {
            @Override
            public void evaluate(List<Walker> samples, Failures<Walker> failures) {
                spring.evaluate(samples, failures);
            }

            @Override
            public String refusal(Walker w) {
                return w.id == 2 ? "walker 2 is of a kind this spring does not describe" : null;
            }
        };
        Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.walk(3, 1)).then(Stage.of(picky, Walker.walk(3, 1))).sizer(Walker.SIZER)
                .batchCapacity(Capacity.of(4, 60)).samples(StageTest.walkers(3, 1));
        assertThatThrownBy(p::check).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stage 1 ('walk')")
                .hasMessageContaining("walker 2 is of a kind");
    }

    @Test
    void roomOfTheWrongShapeIsRefusedByCheckBeforeAnyThreadStarts() {
        // an IllegalArgumentException, not a PipelineException: refused before a worker ran
        Pipeline<Walker> stageRoom = Stage.of(new Walker.Spring(0), Walker.walk(3, 1)).then(Stage.of(new Walker.Spring(0), Walker.walk(3, 1)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 60)).batchCapacity(1, Capacity.of(4)).samples(StageTest.walkers(3, 1));
        assertThatThrownBy(stageRoom::check).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stage 1 ('walk')").hasMessageContaining("1 dimensions");
        Pipeline<Walker> bufferRoom = Stage.of(new Walker.Spring(0), Walker.walk(3, 1)).then(Stage.of(new Walker.Spring(0), Walker.walk(3, 1)))
                .sizer(Walker.SIZER).batchCapacity(Capacity.of(4, 60)).bufferCapacity(Capacity.of(1, 2, 3)).samples(StageTest.walkers(3, 1));
        assertThatThrownBy(bufferRoom::run).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the buffer after stage 0");
    }

    @Test
    void anExceptionInAStageStopsEveryWorkerAndSurfacesToTheCaller() throws Exception {
        for (Pipeline.Mode mode : Pipeline.Mode.values()) {
            Evaluator<Walker> failing = new Evaluator<>() {
                final AtomicInteger calls = new AtomicInteger();

                @Override
                public void evaluate(List<Walker> samples, Failures<Walker> failures) {
                    if (calls.incrementAndGet() == 15) {
                        throw new IllegalStateException("device lost");
                    }
                    samples.forEach(w -> w.force = -w.x);
                }
            };
            long t0 = System.nanoTime();
            try (Pipeline<Walker> p = Stage.of(new Walker.Spring(1), Walker.walk(10, 1)).then(Stage.of(failing, Walker.walk(10, 1)))
                    .then(Stage.of(new Walker.Spring(1), Walker.walk(10, 1))).sizer(Walker.SIZER).batchCapacity(Capacity.of(2, 20))
                    .bufferCapacity(Capacity.of(1, 10)).mode(mode).samples(StageTest.walkers(40, 1))) {
                assertThatThrownBy(p::run).isInstanceOf(PipelineException.class).hasMessageContaining("stage 1")
                        .hasMessageContaining("device lost");
            }
            assertThat(System.nanoTime() - t0).as("mode %s stops promptly", mode).isLessThan(Duration.ofSeconds(10).toNanos());
            assertThat(ThreadCensus.awaitNone("penstock-", Duration.ofSeconds(5))).as("mode %s", mode).isEmpty();
        }
    }

    @Test
    void debugAndSynchronizedModesTraceEveryStepAndChangeNoResult() {
        Map<Long, String> plain;
        MemorySink<Walker> a = MemorySink.unbounded("a");
        try (Pipeline<Walker> p = threeStages(0).samples(StageTest.walkers(12, 8)).results(a)) {
            p.run();
        }
        plain = outcomes(a.samples());
        MemorySink<Walker> b = MemorySink.unbounded("b");
        Summary<Walker> s;
        try (Pipeline<Walker> p = threeStages(0).samples(StageTest.walkers(12, 8)).results(b).debug(true).synchronizedSteps(true)
                .bufferCapacity(Capacity.of(1, 10))) {
            s = p.run();
        }
        assertThat(outcomes(b.samples())).isEqualTo(plain);
        long steps = s.stages().stream().mapToLong(Summary.StageReport::steps).sum();
        assertThat(s.trace()).hasSize((int) steps);
        assertThat(s.trace().getFirst()).contains("stage 0").contains("buffer out");
    }

    @Test
    void noSamplesIsAFinishedRunNotAHang() {
        Summary<Walker> s;
        try (Pipeline<Walker> p = threeStages(0).samples(List.of())) {
            s = p.run();
        }
        assertThat(s.delivered()).isZero();
        assertThat(s.stages()).extracting(Summary.StageReport::steps).containsOnly(0L);
    }

    @Test
    void workersRecordTheirWaitsAsJfrEvents() throws Exception {
        java.nio.file.Path file = dir.resolve("stages.jfr");
        try (jdk.jfr.Recording rec = new jdk.jfr.Recording()) {
            rec.enable(dev.penstock.observe.StageWaitEvent.class).withThreshold(Duration.ZERO);
            rec.start();
            try (Pipeline<Walker> p = Stage.of(new Walker.Spring(0), Walker.walk(2, 1)).then(Stage.of(new Walker.Spring(2), Walker.walk(5, 1)))
                    .sizer(Walker.SIZER).batchCapacity(Capacity.of(2, 20)).bufferCapacity(Capacity.of(1, 10)).samples(StageTest.walkers(10, 1))) {
                p.run();
            }
            rec.stop();
            rec.dump(file);
        }
        var events = jdk.jfr.consumer.RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.penstock.StageWait")).toList();
        assertThat(events).extracting(e -> e.getString("direction")).contains("input", "output");
        assertThat(events).filteredOn(e -> e.getString("direction").equals("input")).allSatisfy(e -> assertThat(e.getInt("stage")).isEqualTo(1));
        assertThat(events).filteredOn(e -> e.getInt("stage") == 0 && e.getString("direction").equals("output"))
                .as("stage 0 waited for room in a one-sample buffer ahead of a slow stage")
                .anySatisfy(e -> assertThat(e.getDuration().toMillis()).isPositive());
    }

    @Test
    void aPipelineRunsOnceAndCannotBeReconfiguredWhileRunning() {
        Pipeline<Walker> p = Pipeline.of(Stage.of(new Walker.Spring(0), Walker.walk(1, 1))).sizer(Walker.SIZER)
                .batchCapacity(Capacity.of(1, 10)).samples(StageTest.walkers(2, 1));
        p.run();
        assertThatThrownBy(p::run).hasMessageContaining("once");
        assertThatThrownBy(() -> p.refillEvery(2)).hasMessageContaining("configure it before run()");
        p.close();
    }
}
