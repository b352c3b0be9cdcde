package dev.penstock.atoms.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.memory.Memory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/// Seeded property tests: random sequences of put / select / removeWhere / status / countStep
/// against a plain list model; after every operation every system's data must be exactly its
/// own (no operation mixes two systems) and every capacity must hold.
class AtomicBatchTest {

    private static AtomicSystem randomSystem(SplittableRandom rnd, long id) {
        int n = 1 + rnd.nextInt(20);
        double[] r = new double[3 * n];
        double[] m = new double[n];
        int[] z = new int[n];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < 3; c++) {
                r[3 * i + c] = id * 1000 + i + c * 0.1; // values that say whose atom this is
            }
            m[i] = 1 + id % 7;
            z[i] = (int) (id % 90) + 1;
        }
        boolean periodic = rnd.nextBoolean();
        Cell cell = periodic ? Cell.of(new double[] {10 + id % 3, 0, 0, id % 5, 11, 0, 0.5, 0.25, 12}, new boolean[] {true, true, rnd.nextBoolean()})
                : Cell.free();
        AtomicSystem s = new AtomicSystem(id, r, m, z, cell);
        for (int i = 0; i < 3 * n; i++) {
            s.velocities()[i] = -id - i * 1e-3;
            s.forces()[i] = id + i * 1e-6;
        }
        s.energy(-id * 0.5);
        return s;
    }

    private static int edgesOf(AtomicSystem s) {
        return 5 * s.atoms();
    }

    private record Entry(AtomicSystem system, int status, long steps, AtomicBatch.Edges edges) {
        Entry(AtomicSystem system, int status, long steps) {
            this(system, status, steps, new AtomicBatch.Edges(new int[0], new int[0], new double[0]));
        }
    }

    /// Edges that say whose they are: atom indices within the system, shifts from the id.
    private static AtomicBatch.Edges randomEdges(SplittableRandom rnd, AtomicSystem s, int count) {
        int[] a = new int[count];
        int[] b = new int[count];
        double[] sh = new double[3 * count];
        for (int p = 0; p < count; p++) {
            a[p] = rnd.nextInt(s.atoms());
            b[p] = rnd.nextInt(s.atoms());
            for (int c = 0; c < 3; c++) {
                sh[3 * p + c] = s.id() * 100 + p + c * 0.5;
            }
        }
        return new AtomicBatch.Edges(a, b, sh);
    }

    private static void assertSame(AtomicBatch b, List<Entry> model, int systemCap, int atomCap, long edgeCap, long seed, int op) {
        assertThat(b.systems()).as("seed %d op %d: systems", seed, op).isEqualTo(model.size());
        int atoms = 0;
        long edges = 0;
        int previousEnd = 0;
        for (int k = 0; k < model.size(); k++) {
            AtomicSystem want = model.get(k).system();
            AtomicSystem got = b.get(k);
            String where = "seed " + seed + " op " + op + " system " + k;
            assertThat(b.atomStart(k)).as(where + ": rows in system order, no overlap").isGreaterThanOrEqualTo(previousEnd);
            previousEnd = b.atomStart(k) + b.atomCount(k);
            assertThat(previousEnd).as(where).isLessThanOrEqualTo(b.atomRowsUsed());
            AtomicBatch.Edges we = model.get(k).edges();
            AtomicBatch.Edges ge = b.edges(k);
            assertThat(ge.first()).as(where + ": edges").containsExactly(we.first());
            assertThat(ge.second()).as(where + ": edges").containsExactly(we.second());
            assertThat(ge.shifts()).as(where + ": edge shifts").containsExactly(we.shifts());
            assertThat(got.id()).as(where).isEqualTo(want.id());
            assertThat(got.positions()).as(where).containsExactly(want.positions());
            assertThat(got.velocities()).as(where).containsExactly(want.velocities());
            assertThat(got.forces()).as(where).containsExactly(want.forces());
            assertThat(got.masses()).as(where).containsExactly(want.masses());
            assertThat(got.numbers()).as(where).containsExactly(want.numbers());
            assertThat(got.cell()).as(where).isEqualTo(want.cell());
            for (int d = 0; d < 3; d++) {
                assertThat(got.periodic(d)).as(where).isEqualTo(want.periodic(d));
            }
            assertThat(got.energy()).as(where).isEqualTo(want.energy());
            assertThat(b.status(k)).as(where).isEqualTo(model.get(k).status());
            assertThat(b.steps(k)).as(where).isEqualTo(model.get(k).steps());
            atoms += want.atoms();
            edges += b.edgeReserve(k);
            assertThat(b.edgeReserve(k)).as(where).isGreaterThanOrEqualTo(Math.max(edgesOf(want), we.first().length));
        }
        assertThat(b.atoms()).isEqualTo(atoms).isLessThanOrEqualTo(atomCap);
        assertThat(b.edges()).isEqualTo(edges).isLessThanOrEqualTo(edgeCap);
        assertThat(b.systems()).isLessThanOrEqualTo(systemCap);
    }

    private static boolean[] randomDrops(SplittableRandom rnd, int n) {
        boolean[] drop = new boolean[n];
        for (int k = 0; k < n; k++) {
            drop[k] = rnd.nextInt(3) == 0;
        }
        return drop;
    }

    private static List<Entry> kept(List<Entry> model, boolean[] drop) {
        List<Entry> next = new ArrayList<>();
        for (int k = 0; k < drop.length; k++) {
            if (!drop[k]) {
                next.add(model.get(k));
            }
        }
        return next;
    }

    @Test
    void randomOperationSequencesNeverMixTwoSystems() {
        for (long seed = 1; seed <= 25; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            int systemCap = 4 + rnd.nextInt(12);
            int atomCap = 20 + rnd.nextInt(120);
            long edgeCap = 100 + rnd.nextInt(500);
            long nextId = 1;
            long before = Memory.liveBytes();
            try (AtomicBatch b = new AtomicBatch(systemCap, atomCap, edgeCap)) {
                List<Entry> model = new ArrayList<>();
                for (int op = 0; op < 60; op++) {
                    switch (rnd.nextInt(8)) {
                        case 0, 1 -> { // put a few new systems under a random mask
                            List<AtomicSystem> src = new ArrayList<>();
                            int count = 1 + rnd.nextInt(5);
                            boolean[] mask = new boolean[count];
                            for (int i = 0; i < count; i++) {
                                src.add(randomSystem(rnd, nextId++));
                                mask[i] = rnd.nextInt(4) != 0;
                            }
                            int atoms = model.stream().mapToInt(e -> e.system().atoms()).sum();
                            long edges = b.edges();
                            AtomicBatch.PutResult res = b.put(src, mask, AtomicBatchTest::edgesOf);
                            List<Integer> taken = new ArrayList<>();
                            List<Integer> rejected = new ArrayList<>();
                            for (int i = 0; i < count; i++) {
                                if (!mask[i]) {
                                    continue;
                                }
                                AtomicSystem s = src.get(i);
                                if (model.size() + 1 <= systemCap && atoms + s.atoms() <= atomCap && edges + edgesOf(s) <= edgeCap) {
                                    model.add(new Entry(s, 0, 0));
                                    atoms += s.atoms();
                                    edges += edgesOf(s);
                                    taken.add(i);
                                } else {
                                    rejected.add(i);
                                }
                            }
                            assertThat(res.taken()).as("seed %d op %d: taken", seed, op).isEqualTo(taken);
                            assertThat(res.didNotFit()).as("seed %d op %d: rejected", seed, op).isEqualTo(rejected);
                        }
                        case 2 -> { // select a random subset in a random order
                            List<Integer> idx = new ArrayList<>();
                            for (int k = 0; k < model.size(); k++) {
                                if (rnd.nextInt(4) != 0) {
                                    idx.add(k);
                                }
                            }
                            java.util.Collections.shuffle(idx, new java.util.Random(seed * 1000 + op));
                            b.select(idx.stream().mapToInt(Integer::intValue).toArray());
                            List<Entry> next = new ArrayList<>();
                            for (int k : idx) {
                                next.add(model.get(k));
                            }
                            model = next;
                        }
                        case 5 -> { // new edges for one system, sometimes more than it reserved
                            if (!model.isEmpty()) {
                                int k = rnd.nextInt(model.size());
                                Entry e = model.get(k);
                                int count = rnd.nextInt(8 * e.system().atoms());
                                AtomicBatch.Edges ed = randomEdges(rnd, e.system(), count);
                                long room = edgeCap - b.edges() + b.edgeReserve(k);
                                if (count > b.edgeReserve(k) && count > room) {
                                    assertThatThrownBy(() -> b.edges(k, ed.first(), ed.second(), ed.shifts(), count))
                                            .hasMessageContaining("system " + e.system().id());
                                } else {
                                    b.edges(k, ed.first(), ed.second(), ed.shifts(), count);
                                    model.set(k, new Entry(e.system(), e.status(), e.steps(), ed));
                                }
                            }
                        }
                        case 6 -> { // lazy removal, sometimes packed at once
                            boolean[] drop = randomDrops(rnd, model.size());
                            b.trim(drop);
                            model = kept(model, drop);
                            if (rnd.nextBoolean()) {
                                b.defrag();
                                assertThat(b.atomRowsUsed()).as("defrag packs").isEqualTo(b.atoms());
                            }
                        }
                        case 3 -> { // drop where a mask says so
                            boolean[] drop = randomDrops(rnd, model.size());
                            b.removeWhere(drop);
                            model = kept(model, drop);
                        }
                        default -> { // status and step counters of one system
                            if (!model.isEmpty()) {
                                int k = rnd.nextInt(model.size());
                                int st = rnd.nextInt(4);
                                b.status(k, st);
                                b.countStep(k);
                                Entry e = model.get(k);
                                model.set(k, new Entry(e.system(), st, e.steps() + 1, e.edges()));
                            }
                        }
                    }
                    assertSame(b, model, systemCap, atomCap, edgeCap, seed, op);
                }
            }
            assertThat(Memory.liveBytes()).as("the batch's memory is freed").isEqualTo(before);
        }
    }

    @Test
    void badCapacitiesAndIndicesAreRejected() {
        assertThatThrownBy(() -> new AtomicBatch(0, 10, 10)).hasMessageContaining("systems 0");
        try (AtomicBatch b = new AtomicBatch(2, 10, 100)) {
            assertThatThrownBy(() -> b.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
            b.put(List.of(AtomicSystem.free(1, new double[3]), AtomicSystem.free(2, new double[3])), null, s -> 1);
            assertThatThrownBy(() -> b.select(1, 1)).hasMessageContaining("twice");
        }
    }
}
