package dev.penstock.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.CpuDevice;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/// Core's packed batch (`PackedColumns`, `PackedRows`) carries the toy sample type too: walkers
/// packed on a `CpuDevice` (`PackedWalkers`) end where they end on the per-sample batch, through
/// fused sub-stages, quarantines, a hook's verdicts and a checkpoint.
class PackedBatchTest {
    private static final List<PackedWalkers.Kind> KINDS = List.of(new PackedWalkers.Relax(1e-3, 60), new PackedWalkers.Walk(9, 5));

    /// Walkers of 1–9 elements; every seventh starts at NaN (quarantined on admission).
    private static List<Walker> walkers(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Walker> out = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            double x = k % 7 == 3 ? Double.NaN : rnd.nextDouble(-5, 5);
            out.add(new Walker(k + 1, 1 + rnd.nextInt(9), k % 11 == 5 ? 1e-4 : x)); // some finished on entry
        }
        return out;
    }

    private static Stage<Walker> stage() {
        Walker.Spring spring = new Walker.Spring(0);
        return Stage.of(spring, Walker.relax(1e-3, 60)).fuse(Stage.of(spring, Walker.walk(9, 5)));
    }

    private record Outcome(Map<Long, String> outcomes, Map<String, Integer> events) {
    }

    @SafeVarargs
    private static Outcome run(Stage<Walker> stage, List<Walker> in, Hook<Walker>... hooks) {
        MemorySink<Walker> sink = MemorySink.unbounded("out");
        Map<String, Integer> events = new ConcurrentHashMap<>();
        try (Pipeline<Walker> p = Pipeline.of(stage).sizer(Walker.SIZER).batchCapacity(Capacity.of(6, 30)).samples(in).results(sink)) {
            p.hook(new Hook<>() {
                @Override
                public void onEvent(int s, Event<Walker> e) {
                    events.merge(e.kind() + " " + e.method() + " " + e.sample().id + " " + e.steps() + " " + e.diagnosis(), 1, Integer::sum);
                }
            });
            for (Hook<Walker> h : hooks) {
                p.hook(h);
            }
            p.run();
        }
        Map<Long, String> out = new TreeMap<>();
        for (Walker w : sink.samples()) {
            assertThat(out.put(w.id, w.outcome())).as("walker %d delivered twice", w.id).isNull();
        }
        return new Outcome(out, new TreeMap<>(events));
    }

    @Test
    void walkersPackedOnADeviceEndAsOnThePerSampleBatch() {
        Outcome plain = run(stage(), walkers(40, 3));
        try (CpuDevice cpu = new CpuDevice()) {
            Outcome packed = run(stage().onDevice(PackedWalkers.factory(cpu, KINDS)), walkers(40, 3));
            assertThat(plain.outcomes()).hasSize((int) walkers(40, 3).stream().filter(w -> Double.isFinite(w.x)).count()).hasSizeLessThan(40);
            assertThat(packed.outcomes()).isEqualTo(plain.outcomes());
            assertThat(packed.events()).isEqualTo(plain.events());
            assertThat(plain.events().keySet()).anyMatch(e -> e.startsWith("QUARANTINED")).anyMatch(e -> e.startsWith("GRADUATED relax"))
                    .anyMatch(e -> e.startsWith("EXITED walk"));
        }
    }

    @Test
    void aHooksVerdictsAndReadsGiveTheSameOnBothBatches() {
        // every third step, the walker furthest from 0 is taken out; the hook reads every sample
        Hook<Walker> far = new Hook<>() {
            @Override
            public int every() {
                return 3;
            }

            @Override
            public List<Verdict<Walker>> check(int stage, long step, List<Walker> samples) {
                Walker worst = null;
                for (Walker w : samples) {
                    if (worst == null || Math.abs(w.x) > Math.abs(worst.x)) {
                        worst = w;
                    }
                }
                return worst == null || Math.abs(worst.x) < 0.5 ? List.of() : List.of(new Verdict<>(worst, "walker " + worst.id + " too far"));
            }
        };
        Outcome plain = run(stage(), walkers(40, 4), far);
        try (CpuDevice cpu = new CpuDevice()) {
            Outcome packed = run(stage().onDevice(PackedWalkers.factory(cpu, KINDS)), walkers(40, 4), far);
            assertThat(packed.outcomes()).isEqualTo(plain.outcomes());
            assertThat(packed.events()).isEqualTo(plain.events());
            assertThat(plain.events().keySet().stream().filter(e -> e.startsWith("QUARANTINED")).count()).isGreaterThan(6);
        }
    }

    /// Steps `batch` until it is empty, admitting `waiting` as room frees; returns the exits' outcomes.
    private static Map<Long, String> drain(StageBatch<Walker> batch, List<Walker> waiting) {
        Map<Long, String> out = new TreeMap<>();
        List<Walker> rest = new ArrayList<>(waiting);
        for (int step = 0; step < 10_000 && (!rest.isEmpty() || !batch.isEmpty()); step++) {
            rest = batch.admit(rest, e -> record(e, out));
            batch.step(e -> record(e, out));
        }
        assertThat(rest).isEmpty();
        assertThat(batch.isEmpty()).as("the batch drained").isTrue();
        return out;
    }

    private static void record(Event<Walker> e, Map<Long, String> out) {
        if (e.kind() != Event.Kind.GRADUATED) {
            out.put(e.sample().id, e.kind() + " " + e.sample().outcome());
        }
    }

    @Test
    void aCheckpointOfThePackedBatchContinuesExactly() throws Exception {
        try (CpuDevice cpu = new CpuDevice()) {
            Stage<Walker> stage = stage().onDevice(PackedWalkers.factory(cpu, KINDS));
            StageBatch<Walker> whole = new StageBatch<>(stage, Walker.SIZER, Capacity.of(6, 30));
            Map<Long, String> uninterrupted = drain(whole, walkers(30, 5));
            whole.close();
            Map<Long, String> perSample = drain(new StageBatch<>(stage(), Walker.SIZER, Capacity.of(6, 30)), walkers(30, 5));
            assertThat(uninterrupted).hasSize(30).isEqualTo(perSample);

            Map<Long, String> out = new TreeMap<>();
            StageBatch<Walker> first = new StageBatch<>(stage, Walker.SIZER, Capacity.of(6, 30));
            List<Walker> rest = walkers(30, 5);
            for (int step = 0; step < 7; step++) {
                rest = first.admit(rest, e -> record(e, out));
                first.step(e -> record(e, out));
            }
            List<StageBatch.Held<Walker>> saved = first.save();
            assertThat(saved).isNotEmpty();
            first.close();
            // what a checkpoint keeps: the samples as bytes (Walker.CODEC) and the held state
            StageBatch<Walker> second = new StageBatch<>(stage, Walker.SIZER, Capacity.of(6, 30));
            for (StageBatch.Held<Walker> h : saved) {
                java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                Walker.CODEC.write(h.sample(), new java.io.DataOutputStream(bytes));
                Walker copy = Walker.CODEC.read(new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())));
                second.restore(new StageBatch.Held<>(copy, h.status(), h.motion(), h.evaluation()));
            }
            out.putAll(drain(second, rest));
            second.close();
            assertThat(out).isEqualTo(uninterrupted);
        }
    }

    private static final PackedColumns.Layout LAYOUT = new PackedColumns.Layout(3, 1,
            List.of(new PackedColumns.Element("v", DType.F64, 2), new PackedColumns.Element("owner", DType.I32, 1)), 1);

    @Test
    void aPlanAndItsGatherKeepRowsAndElementsPackedInOrder() {
        // rows hold samples of 2, 3, 1, 4 elements; rows 1 and 3 leave
        Sizer<long[]> sizer = new Sizer<>() {
            public List<String> dimensions() {
                return List.of("samples", "elements");
            }

            public long size(long[] s, int d) {
                return d == 0 ? 1 : s[1];
            }

            public long id(long[] s) {
                return s[0];
            }
        };
        PackedRows<long[]> rows = new PackedRows<>(sizer, Capacity.of(8, 20), 8, 20, s -> (int) s[1]);
        List<long[]> samples = List.of(new long[] {10, 2}, new long[] {11, 3}, new long[] {12, 1}, new long[] {13, 4});
        try (HostArena arena = Memory.newConfinedArena("packed")) {
            PackedColumns live = PackedColumns.allocate(arena, LAYOUT, 8, 20);
            PackedColumns spare = PackedColumns.allocate(arena, LAYOUT, 8, 20);
            PackedColumns exits = PackedColumns.allocate(arena, LAYOUT, 8, 20);
            for (long[] s : samples) {
                int at = rows.elements();
                int row = rows.append(s, (int) s[0] % 3);
                live.setInt(PackedColumns.START, row, at);
                live.setInt(PackedColumns.COUNT, row, (int) s[1]);
                live.setInt(2, row, (int) s[0]);
                live.setDouble(0, row, s[0] * 0.5);
                for (int i = 0; i < s[1]; i++) {
                    live.element(0).setDouble(2L * (at + i), s[0] + i * 0.01);
                    live.element(0).setDouble(2L * (at + i) + 1, -s[0]);
                    live.element(1).setInt(at + i, row);
                }
            }
            assertThat(rows.size()).isEqualTo(4);
            assertThat(rows.elements()).isEqualTo(10);
            assertThat(rows.used(1)).isEqualTo(10);
            assertThat(rows.largest()).isEqualTo(4);
            var exitMap = arena.allocate(DType.I32, 36).segment();
            var keepMap = arena.allocate(DType.I32, 36).segment();
            int leaving = rows.plan(k -> k == 1 || k == 3, exitMap, keepMap);
            assertThat(leaving).isEqualTo(2);
            assertThat(rows.exitElements()).isEqualTo(7);
            assertThat(rows.keptElements()).isEqualTo(3);
            // [rows | first element rows | each element's source row]
            assertThat(ints(exitMap, 2 * 2 + 7)).containsExactly(1, 3, 0, 3, 2, 3, 4, 6, 7, 8, 9);
            assertThat(ints(keepMap, 2 * 2 + 3)).containsExactly(0, 2, 0, 2, 0, 1, 5);
            PackedColumns.gatherRows(live, exits.compact(2), exitMap, 2, 0, 2);
            PackedColumns.gatherRows(live, spare, keepMap, 2, 0, 1); // a gather split in two parts
            PackedColumns.gatherRows(live, spare, keepMap, 2, 1, 2);
            rows.commit();
            assertThat(rows.size()).isEqualTo(2);
            assertThat(rows.elements()).isEqualTo(3);
            assertThat(rows.used(1)).isEqualTo(3);
            assertThat(rows.sample(1)[0]).isEqualTo(12);
            assertThat(rows.status(1)).isEqualTo(0);
            assertThat(rows.leaver(1)[0]).isEqualTo(13);
            PackedColumns out = exits.compact(2);
            for (int x = 0; x < 2; x++) {
                long id = rows.leaver(x)[0];
                assertThat(out.getInt(2, x)).isEqualTo(id);
                assertThat(out.getDouble(0, x)).isEqualTo(id * 0.5);
                int start = out.getInt(PackedColumns.START, x);
                assertThat(start).isEqualTo(x == 0 ? 0 : 3);
                for (int i = 0; i < out.getInt(PackedColumns.COUNT, x); i++) {
                    assertThat(out.element(0).getDouble(2L * (start + i))).isEqualTo(id + i * 0.01);
                    assertThat(out.element(0).getDouble(2L * (start + i) + 1)).isEqualTo(-id);
                    assertThat(out.element(1).getInt(start + i)).as("the owner column says the new row").isEqualTo(x);
                }
            }
            for (int k = 0; k < 2; k++) {
                long id = rows.sample(k)[0];
                int start = spare.getInt(PackedColumns.START, k);
                assertThat(spare.getInt(2, k)).isEqualTo(id);
                assertThat(spare.getInt(PackedColumns.COUNT, k)).isEqualTo(id == 10 ? 2 : 1);
                for (int i = 0; i < spare.getInt(PackedColumns.COUNT, k); i++) {
                    assertThat(spare.element(0).getDouble(2L * (start + i))).isEqualTo(id + i * 0.01);
                    assertThat(spare.element(1).getInt(start + i)).isEqualTo(k);
                }
            }
            assertThat(spare.getInt(PackedColumns.START, 1)).isEqualTo(2);
            assertThat(spare.getInt(PackedColumns.COUNT, 1)).isEqualTo(1);
            rows.releaseLeavers();
            assertThatThrownBy(() -> rows.leaver(0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(rows::commit).hasMessageContaining("committed already");
            assertThatThrownBy(() -> rows.append(new long[] {20, 30}, 0)).hasMessageContaining("does not fit");
        }
    }

    @Test
    void rowsMoveByAMapBothWaysAndAViewPacksThem() {
        try (HostArena arena = Memory.newConfinedArena("packed")) {
            PackedColumns a = PackedColumns.allocate(arena, LAYOUT, 6, 4);
            for (int k = 0; k < 6; k++) {
                for (int c = 0; c < 3; c++) {
                    a.setInt(c, k, 100 * c + k);
                }
                a.setDouble(0, k, k + 0.25);
            }
            PackedColumns view = PackedColumns.allocate(arena, LAYOUT, 6, 4).compact(2);
            var map = arena.allocate(DType.I32, 2).segment();
            map.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0, 4);
            map.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 1, 1);
            PackedColumns.moveRows(a, view, map, 2, true);
            assertThat(view.sampleCapacity()).isEqualTo(2);
            // packed: column c's two rows lie at c·2 of the block
            assertThat(ints(view.ints().segment(), 6)).containsExactly(4, 1, 104, 101, 204, 201);
            view.setInt(2, 0, -1);
            PackedColumns.moveRows(view, a, map, 2, false);
            assertThat(a.getInt(2, 4)).isEqualTo(-1);
            assertThat(a.getInt(2, 1)).isEqualTo(201);
            assertThat(a.getDouble(0, 4)).isEqualTo(4.25);
        }
        assertThatThrownBy(() -> new PackedColumns.Layout(1, 0, List.of(new PackedColumns.Element("v", DType.F64, 1)), -1))
                .hasMessageContaining("START and COUNT");
        assertThatThrownBy(() -> new PackedColumns.Layout(2, 0, List.of(new PackedColumns.Element("v", DType.F64, 1)), 0))
                .hasMessageContaining("owner column");
    }

    private static int[] ints(java.lang.foreign.MemorySegment s, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i);
        }
        return out;
    }

    @Test
    void aWalkerOfMoreElementsThanTheBatchHoldsIsRefusedNamingIt() {
        try (CpuDevice cpu = new CpuDevice()) {
            StageBatch<Walker> batch = new StageBatch<>(stage().onDevice(PackedWalkers.factory(cpu, KINDS)), Walker.SIZER, Capacity.of(6, 8));
            AtomicInteger events = new AtomicInteger();
            assertThatThrownBy(() -> batch.admit(List.of(new Walker(77, 9, 1.0)), e -> events.incrementAndGet()))
                    .hasMessageContaining("sample 77");
            batch.close();
        }
    }
}
