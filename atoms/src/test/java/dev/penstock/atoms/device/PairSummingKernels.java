package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.CELL_KIND;
import static dev.penstock.atoms.device.RelaxColumns.COUNT;
import static dev.penstock.atoms.device.RelaxColumns.ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.FLAG;
import static dev.penstock.atoms.device.RelaxColumns.FMAX;
import static dev.penstock.atoms.device.RelaxColumns.ID_HI;
import static dev.penstock.atoms.device.RelaxColumns.ID_LO;
import static dev.penstock.atoms.device.RelaxColumns.IMAGES_A;
import static dev.penstock.atoms.device.RelaxColumns.START;

import dev.penstock.atoms.potential.Model;
import dev.penstock.device.Crew;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicInteger;

/// The CUDA kernels' twin on the CPU: `CpuRelaxKernels` for every step kernel, but Lennard-Jones
/// and Morse summed by the kernels themselves in `relax.cu`'s order (`PairGather`: free systems
/// pair by pair, scanned cells image by image, large systems through Verlet lists built from bins,
/// `PairList`) instead of by the model over each system's rows. The reference the CUDA emulation
/// checks hold the device kernels to, bit for bit; not what `simulate` runs.
///
/// Threading: the ops of one instance must run on one stream (they share the crew).
public final class PairSummingKernels implements RelaxKernels {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final CpuRelaxKernels steps;
    private final int threads;
    private final boolean listLarge;
    private final Scratch[] scratch;
    private final AtomicInteger next = new AtomicInteger();
    private final boolean[] partOverlaps = new boolean[64];
    private final HashMap<Long, PairList> lists = new HashMap<>();
    private PairList[] rowLists = new PairList[0];
    private long evaluations;
    private Crew crew;

    private PairSummingKernels(int threads, boolean listLarge) {
        this.steps = new CpuRelaxKernels(threads);
        this.threads = threads;
        this.listLarge = listLarge;
        this.scratch = new Scratch[threads];
        for (int p = 0; p < threads; p++) {
            scratch[p] = new Scratch();
        }
    }

    /// Kernels over `threads` threads that sum pairs as `relax.cu` does, large systems through lists.
    public static PairSummingKernels summingPairs(int threads) {
        return new PairSummingKernels(threads, true);
    }

    /// The same, but large free and nearest-image systems summed over all pairs each evaluation
    /// (scanned cells keep their lists): the same numbers, slower.
    static PairSummingKernels allPairs(int threads) {
        return new PairSummingKernels(threads, false);
    }

    @Override
    public boolean sumsPairs() {
        return true;
    }

    @Override
    public boolean runs(Model model) {
        return true;
    }

    /// How many times a Verlet list was built.
    long listBuilds() {
        long n = 0;
        for (Scratch w : scratch) {
            n += w.pairs == null ? 0 : w.pairs.builds;
        }
        return n;
    }

    private Crew crew() {
        if (crew == null) {
            crew = new Crew("penstock-pair-sums", threads);
        }
        return crew;
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, Pair pair) {
        MemorySegment pos = c.pos().segment();
        MemorySegment force = c.force().segment();
        MemorySegment atomEnergy = c.atomEnergy().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax evaluate", () -> {
            listsFor(ints, cap, systems);
            for (int k = 0; k < systems; k++) {
                if (wide(ints, cap, k)) {
                    evaluateWide(pos, force, atomEnergy, ints, doubles, cap, k, pair);
                }
            }
            int parts = Math.min(threads, systems);
            next.set(0);
            crew().run(parts, q -> {
                Scratch w = scratch[q];
                for (int k = next.getAndIncrement(); k < systems; k = next.getAndIncrement()) {
                    if (wide(ints, cap, k)) {
                        continue;
                    }
                    int start = ints.getAtIndex(I32, START * cap + k);
                    int n = ints.getAtIndex(I32, COUNT * cap + k);
                    w.fit(n);
                    MemorySegment.copy(pos, F64, 24L * start, w.r, 0, 3 * n);
                    PairGather gather = w.pairs();
                    cellOf(gather, ints, doubles, cap, k);
                    boolean overlap = gather.run(w.r, n, pair, w.f, w.e);
                    finish(w, force, atomEnergy, ints, doubles, cap, k, start, n, overlap);
                }
            });
        });
    }

    /// Puts each listed system's list at its row of `rowLists` (null for the others), making
    /// the lists of newcomers; every 64 evaluations drops the lists of systems no longer here.
    private void listsFor(MemorySegment ints, long cap, int systems) {
        if (rowLists.length < systems) {
            rowLists = new PairList[Math.max(systems, 2 * rowLists.length)];
        }
        long now = ++evaluations;
        for (int k = 0; k < systems; k++) {
            if (!listed(ints, cap, k)) {
                rowLists[k] = null;
                continue;
            }
            long id = ((long) ints.getAtIndex(I32, ID_HI * cap + k) << 32) | (ints.getAtIndex(I32, ID_LO * cap + k) & 0xFFFF_FFFFL);
            PairList list = rowLists[k];
            if (list == null || list.id != id) {
                list = lists.computeIfAbsent(id, PairList::new);
                rowLists[k] = list;
            }
            list.used = now;
        }
        if (now % 64 == 0 && !lists.isEmpty()) {
            lists.values().removeIf(l -> l.used < now - 64);
        }
    }

    /// Whether system `k` is summed through a Verlet list: a scanned cell, or a large system.
    private boolean listed(MemorySegment ints, long cap, int k) {
        return ints.getAtIndex(I32, CELL_KIND * cap + k) == CellImages.IMAGES
                || (listLarge && ints.getAtIndex(I32, COUNT * cap + k) >= PairList.ATOMS);
    }

    /// Whether system `k` is one large listed system whose atoms the threads split
    /// (`PairGather.fullRows`) rather than one thread taking it whole.
    private boolean wide(MemorySegment ints, long cap, int k) {
        return threads > 1 && rowLists[k] != null && ints.getAtIndex(I32, CELL_KIND * cap + k) != CellImages.IMAGES
                && ints.getAtIndex(I32, COUNT * cap + k) >= PairList.ATOMS;
    }

    /// Sets `gather`'s cell, kind and list to system `k`'s.
    private void cellOf(PairGather gather, MemorySegment ints, MemorySegment doubles, long cap, int k) {
        gather.kind = ints.getAtIndex(I32, CELL_KIND * cap + k);
        gather.list = rowLists[k];
        for (int d = 0; d < 3; d++) {
            gather.images[d] = ints.getAtIndex(I32, (IMAGES_A + d) * cap + k);
        }
        for (int e = 0; e < 9; e++) {
            gather.cell[e] = doubles.getAtIndex(F64, (RelaxColumns.CELL + e) * cap + k);
            gather.cell[9 + e] = doubles.getAtIndex(F64, (RelaxColumns.RECIPROCAL + e) * cap + k);
        }
    }

    /// One large system's evaluation with its atoms split over the crew: the stream thread
    /// loads it and builds its full list, then every part gathers its run of atoms, then the
    /// system's sums in atom order as any system's.
    private void evaluateWide(MemorySegment pos, MemorySegment force, MemorySegment atomEnergy, MemorySegment ints, MemorySegment doubles,
                              long cap, int k, Pair pair) {
        int start = ints.getAtIndex(I32, START * cap + k);
        int n = ints.getAtIndex(I32, COUNT * cap + k);
        int parts = Math.min(threads, partOverlaps.length);
        for (int q = 0; q < parts; q++) {
            Scratch w = scratch[q];
            w.fit(n);
            cellOf(w.pairs(), ints, doubles, cap, k);
        }
        Scratch lead = scratch[0];
        MemorySegment.copy(pos, F64, 24L * start, lead.r, 0, 3 * n);
        lead.pairs().load(lead.r, n, pair, true);
        crew().run(parts, q -> {
            Scratch w = scratch[q];
            if (q != 0) {
                MemorySegment.copy(pos, F64, 24L * start, w.r, 0, 3 * n);
                w.pairs().load(w.r, n, pair, false);
            }
            int from = (int) ((long) n * q / parts);
            int to = (int) ((long) n * (q + 1) / parts);
            partOverlaps[q] = w.pairs().fullRows(from, to, w.f, w.e);
            if (q != 0) { // the lead's arrays take every part's rows
                System.arraycopy(w.f, 3 * from, lead.f, 3 * from, 3 * (to - from));
                System.arraycopy(w.e, from, lead.e, from, to - from);
            }
        });
        boolean overlap = false;
        for (int q = 0; q < parts; q++) {
            overlap |= partOverlaps[q];
        }
        finish(lead, force, atomEnergy, ints, doubles, cap, k, start, n, overlap);
    }

    /// Stores system `k`'s forces and half pair energies from `w` (atoms `[start, start + n)`),
    /// and its energy, max |F_i| and flags, summed in atom order.
    private static void finish(Scratch w, MemorySegment force, MemorySegment atomEnergy, MemorySegment ints, MemorySegment doubles, long cap,
                               int k, int start, int n, boolean overlap) {
        MemorySegment.copy(w.f, 0, force, F64, 24L * start, 3 * n);
        double e = 0;
        double max = 0;
        boolean finite = true;
        for (int i = 0; i < n; i++) {
            double half = 0.5 * w.e[i];
            atomEnergy.setAtIndex(F64, start + i, half);
            e += half;
            double fx = w.f[3 * i];
            double fy = w.f[3 * i + 1];
            double fz = w.f[3 * i + 2];
            double f2 = fx * fx + fy * fy + fz * fz;
            finite &= f2 <= Double.MAX_VALUE;
            max = Math.max(max, f2);
        }
        finite &= Math.abs(e) <= Double.MAX_VALUE;
        doubles.setAtIndex(F64, ENERGY * cap + k, e);
        doubles.setAtIndex(F64, FMAX * cap + k, Math.sqrt(max));
        if (ints.getAtIndex(I32, FLAG * cap + k) != 0) {
            return; // flagged by the step before this evaluation: that reason stands
        }
        if (overlap) {
            ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_OVERLAP);
        } else if (!finite) {
            ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_NON_FINITE);
        }
    }

    /// One thread's arrays for one system at a time (grown, never shrunk).
    private static final class Scratch {
        double[] r = new double[0];
        double[] f = new double[0];
        double[] e = new double[0];
        PairGather pairs;

        PairGather pairs() {
            if (pairs == null) {
                pairs = new PairGather();
            }
            return pairs;
        }

        void fit(int n) {
            if (e.length < n) {
                r = new double[3 * n];
                f = new double[3 * n];
                e = new double[n];
            }
        }
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, ModelTerms terms) {
        steps.evaluate(stream, c, systems, atoms, terms);
    }

    @Override
    public void pickSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        steps.pickSystems(stream, from, to, map, systems);
    }

    @Override
    public void putSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        steps.putSystems(stream, from, to, map, systems);
    }

    @Override
    public void largestSystem(int atoms) {
        steps.largestSystem(atoms);
    }

    @Override
    public void fireStep(Stream stream, RelaxColumns c, int systems, boolean massWeighted, double maxStep2, int sub) {
        steps.fireStep(stream, c, systems, massWeighted, maxStep2, sub);
    }

    @Override
    public void fire2Step(Stream stream, RelaxColumns c, int systems, double maxStep2, int sub) {
        steps.fire2Step(stream, c, systems, maxStep2, sub);
    }

    @Override
    public void nveBefore(Stream stream, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
        steps.nveBefore(stream, c, systems, atoms, maxStep2, sub);
    }

    @Override
    public boolean noseHoover() {
        return steps.noseHoover();
    }

    @Override
    public void noseHooverBefore(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, double maxStep2, int sub) {
        steps.noseHooverBefore(stream, c, systems, atoms, nh, maxStep2, sub);
    }

    @Override
    public void noseHooverAfter(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, int sub) {
        steps.noseHooverAfter(stream, c, systems, atoms, nh, sub);
    }

    @Override
    public void langevinBefore(Stream stream, RelaxColumns c, int systems, int atoms, Thermostat t, double maxStep2, int sub) {
        steps.langevinBefore(stream, c, systems, atoms, t, maxStep2, sub);
    }

    @Override
    public boolean langevin() {
        return steps.langevin();
    }

    @Override
    public void nveAfter(Stream stream, RelaxColumns c, int systems, int atoms, int sub) {
        steps.nveAfter(stream, c, systems, atoms, sub);
    }

    @Override
    public void check(Stream stream, RelaxColumns c, int systems, double fmax, double energyTolerance, int budget, int sub) {
        steps.check(stream, c, systems, fmax, energyTolerance, budget, sub);
    }

    @Override
    public void gather(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int atoms) {
        steps.gather(stream, from, to, map, systems, atoms);
    }

    @Override
    public void close() {
        steps.close();
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }
}
