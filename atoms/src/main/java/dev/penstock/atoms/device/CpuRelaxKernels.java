package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.ALPHA;
import static dev.penstock.atoms.device.RelaxColumns.COUNT;
import static dev.penstock.atoms.device.RelaxColumns.DONE;
import static dev.penstock.atoms.device.RelaxColumns.DT;
import static dev.penstock.atoms.device.RelaxColumns.ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.FLAG;
import static dev.penstock.atoms.device.RelaxColumns.FMAX;
import static dev.penstock.atoms.device.RelaxColumns.FRESH;
import static dev.penstock.atoms.device.RelaxColumns.ID_HI;
import static dev.penstock.atoms.device.RelaxColumns.ID_LO;
import static dev.penstock.atoms.device.RelaxColumns.NSTEPS;
import static dev.penstock.atoms.device.RelaxColumns.PREV_ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.START;
import static dev.penstock.atoms.device.RelaxColumns.STARTED;
import static dev.penstock.atoms.device.RelaxColumns.SUB;
import static dev.penstock.atoms.device.RelaxColumns.TAKEN;

import dev.penstock.atoms.integrate.Langevin;
import dev.penstock.atoms.integrate.LangevinNoise;
import dev.penstock.atoms.integrate.NoseHoover;
import dev.penstock.atoms.integrate.VelocityVerlet;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.optimize.Fire2;
import dev.penstock.device.Crew;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.stage.PackedColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntConsumer;

/// The relaxation kernels on `CpuDevice` (host memory): each kernel is one op on the stream,
/// its systems split into `threads` runs of consecutive rows, one per thread of a `Crew`
/// (the stream's thread and `threads − 1` helpers). A system is one thread's for the whole
/// kernel, so the split changes no result. The loops are `relax.cu`'s, statement for statement.
///
/// Threading: the ops of one instance must run on one stream (they share the crew).
///
/// Why one file over 400 lines: one device's kernel set — every kernel shares the crew, the
/// per-thread scratch and the split rule, and each must stay `relax.cu`'s kernel statement for
/// statement; the evaluation is the model's own, over each system's rows (`ModelTerms`).
public final class CpuRelaxKernels implements RelaxKernels {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;
    /// The least work a helper thread is woken for, in pair terms (a few tens of µs of work,
    /// against a wake-up of some µs) and in atoms of a FIRE step or an MD half-step: only some µs,
    /// but the helper is still spinning from the evaluation next to it, so handing it work costs
    /// about one (`bench inflight` on two threads: 1.68× → 1.72–1.74× with 500 instead of 8,000).
    private static final long MIN_PAIRS = 20_000;
    private static final long MIN_ATOMS = 500;
    /// Batches of up to this many systems are claimed costliest first (sorting more would cost
    /// more than the short tail it saves).
    private static final int SORTED_CLAIMS = 512;

    private final int threads;
    private final Scratch[] scratch;
    private Crew crew;

    /// Kernels split over `threads` threads (1: on the stream's thread alone). A device stage on
    /// them has every model — Lennard-Jones and Morse too — computed by the model over each
    /// system's rows (`ModelTerms`): the model's own numbers, bit for bit, whatever the batch or
    /// the split.
    public CpuRelaxKernels(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("option 'threads' must be at least 1, got " + threads);
        }
        this.threads = threads;
        this.scratch = new Scratch[threads];
        for (int p = 0; p < threads; p++) {
            scratch[p] = new Scratch();
        }
    }

    /// Threads each kernel is split over.
    public int threads() {
        return threads;
    }

    /// Runs `rows(part, from, to)` over `[0, n)` on up to `threads` threads when the total `cost`
    /// is at least `minCost` per thread (waking a helper costs microseconds, which less work would
    /// not pay back): each thread takes the next unclaimed row, the costliest first, until none is
    /// left — so a thread that drew small systems takes more of them, and the last rows claimed,
    /// which decide how long the other thread waits at the end, are the cheapest (`bench inflight`
    /// on two threads: the caller's wait for its helper fell from ~22 to ~6 µs a step). A row is
    /// one thread's whole, so who takes it, and when, changes no result.
    private void split(int n, java.util.function.IntToLongFunction cost, long minCost, RowRun rows) {
        if (costs.length < n) {
            costs = new long[Math.max(n, 2 * costs.length)];
            order = new int[costs.length];
        }
        long total = 0;
        for (int k = 0; k < n; k++) {
            long c = cost.applyAsLong(k);
            costs[k] = c;
            total += c;
        }
        int parts = (int) Math.min(Math.min(threads, n), Math.max(1, total / minCost));
        if (parts <= 1) {
            rows.run(0, 0, n);
            return;
        }
        crew();
        for (int k = 0; k < n; k++) { // insertion sort by cost, costliest first (row order past SORTED_CLAIMS)
            long c = costs[k];
            int at = k;
            while (n <= SORTED_CLAIMS && at > 0 && costs[order[at - 1]] < c) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = k;
        }
        int[] claims = order;
        next.set(0);
        crew.run(parts, q -> {
            for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                int k = claims[i];
                rows.run(q, k, k + 1);
            }
        });
    }

    /// The kernels' crew, made on first use.
    private Crew crew() {
        if (crew == null) {
            crew = new Crew("penstock-relax-kernels", threads);
        }
        return crew;
    }

    private final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    private long[] costs = new long[0]; // split's scratch: each row's cost, and the rows by cost
    private int[] order = new int[0];

    @FunctionalInterface
    private interface RowRun {
        void run(int part, int from, int to);
    }

    /// False: every model, Lennard-Jones and Morse too, is computed over each system's rows.
    @Override
    public boolean sumsPairs() {
        return false;
    }

    /// Refused: these kernels run every model over each system's rows (`sumsPairs` is false, so
    /// no stage asks this of them).
    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, Pair pair) {
        throw new UnsupportedOperationException("CpuRelaxKernels run the model over each system's rows; they do not sum pairs");
    }

    @Override
    public boolean runs(dev.penstock.atoms.potential.Model model) {
        return true; // any: the model runs on the host over each system's rows
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, ModelTerms terms) {
        MemorySegment pos = c.pos().segment();
        MemorySegment force = c.force().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax evaluate model", () -> {
            terms.views(ints, cap, systems);
            // a large system's parts over every thread, one such system at a time (the parts are
            // fixed by its size: the numbers of one thread), then the others each whole on one
            // thread: the split changes no number
            boolean lend = threads > 1; // a row in parts (Model.parts) has them shared out
            for (int k = 0; lend && k < systems; k++) {
                if (terms.inParts(k)) {
                    terms.evaluate(pos, force, ints, doubles, cap, k, k + 1, crew());
                }
            }
            long perAtom = terms.model().termsPerAtom();
            split(systems, k -> lend && terms.inParts(k) ? 0 : perAtom * ints.getAtIndex(I32, COUNT * cap + k), MIN_PAIRS,
                    (part, from, to) -> {
                        for (int k = from; k < to; k++) {
                            if (!lend || !terms.inParts(k)) {
                                terms.evaluate(pos, force, ints, doubles, cap, k, k + 1, null);
                            }
                        }
                    });
        });
    }

    /// One thread's working arrays for one system at a time (grown, never shrunk: a step
    /// allocates nothing once the largest system has been seen).
    private static final class Scratch {
        double[] r = new double[0];
        double[] f = new double[0];
        double[] v = new double[0];
        double[] r0 = new double[0];
        double[] m = new double[0];
        double[] xi = new double[0];
        final Fire fire = new Fire(); // ASE-exact: its state set from each system's columns
        final Fire massWeighted = Fire.massWeighted(); // the same, v += dt·F/m
        final Fire2 fire2 = new Fire2(); // its state set from each system's columns
        final double[] cell = new double[9]; // a barostat's system: its cell, virial and state
        final double[] w = new double[9];
        final double[] baro = new double[dev.penstock.atoms.integrate.Mtk.STATE];
        final double[] orig = new double[9]; // a variable-cell relaxation's starting cell
        double[] fx = new double[0]; // its filter's positions, forces and velocities (n + 3 rows)
        double[] fg = new double[0];
        double[] fv = new double[0];
        double[] fl = new double[0]; // (FIRE 2.0) its last step and masses
        double[] fm = new double[0];

        void filter(int n) {
            if (fx.length < 3 * (n + 3)) {
                fx = new double[3 * (n + 3)];
                fg = new double[3 * (n + 3)];
                fv = new double[3 * (n + 3)];
                fl = new double[3 * (n + 3)];
                fm = new double[n + 3];
            }
        }
        double[] eta = new double[0]; // a Nosé–Hoover chain's state, from each system's columns
        double[] etaDot = new double[0];
        double[] etaDotDot = new double[0];

        void chain(int chain) {
            if (eta.length < chain) {
                eta = new double[chain];
                etaDot = new double[chain + 1];
                etaDotDot = new double[chain];
            }
        }

        void fit(int n) {
            if (m.length < n) {
                r = new double[3 * n];
                f = new double[3 * n];
                v = new double[3 * n];
                r0 = new double[3 * n];
                m = new double[n];
                xi = new double[3 * n + 1];
            }
        }
    }

    @Override
    public void fireStep(Stream stream, RelaxColumns c, int systems, boolean massWeighted, double maxStep2, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax fire step", c, systems, sub, (w, k, start, n) -> {
            int n3 = 3 * n;
            doubles.setAtIndex(F64, PREV_ENERGY * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k));
            Fire fire = massWeighted ? w.massWeighted : w.fire;
            fire.state(doubles.getAtIndex(F64, DT * cap + k), doubles.getAtIndex(F64, ALPHA * cap + k),
                    ints.getAtIndex(I32, NSTEPS * cap + k), ints.getAtIndex(I32, STARTED * cap + k) != 0);
            System.arraycopy(w.r, 0, w.r0, 0, n3);
            fire.step(w.f, w.v, w.r, w.m, n3);
            if (runaway(w.r0, w.r, n3, maxStep2)) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
            }
            doubles.setAtIndex(F64, DT * cap + k, fire.dt());
            doubles.setAtIndex(F64, ALPHA * cap + k, fire.alpha());
            ints.setAtIndex(I32, NSTEPS * cap + k, fire.n());
            ints.setAtIndex(I32, STARTED * cap + k, fire.started() ? 1 : 0);
        });
    }

    @Override
    public void fire2Step(Stream stream, RelaxColumns c, int systems, double maxStep2, int sub) {
        MemorySegment last = c.last().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax fire2 step", c, systems, sub, (w, k, start, n) -> {
            int n3 = 3 * n;
            MemorySegment.copy(last, F64, 24L * start, w.r0, 0, n3);
            doubles.setAtIndex(F64, PREV_ENERGY * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k));
            Fire2 fire2 = w.fire2;
            fire2.state(doubles.getAtIndex(F64, DT * cap + k), doubles.getAtIndex(F64, ALPHA * cap + k),
                    ints.getAtIndex(I32, NSTEPS * cap + k), ints.getAtIndex(I32, TAKEN * cap + k));
            fire2.step(w.f, w.v, w.r, w.m, n3, w.r0);
            double[] l = w.r0; // now this step's
            for (int i = 0; i < n3; i += 3) {
                if (l[i] * l[i] + l[i + 1] * l[i + 1] + l[i + 2] * l[i + 2] > maxStep2) {
                    ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
                    break;
                }
            }
            doubles.setAtIndex(F64, DT * cap + k, fire2.dt());
            doubles.setAtIndex(F64, ALPHA * cap + k, fire2.alpha());
            ints.setAtIndex(I32, NSTEPS * cap + k, fire2.npos());
            MemorySegment.copy(l, 0, last, F64, 24L * start, n3);
        });
    }

    /// A step kernel's work on one moving system: `w` the thread's scratch, holding the system's
    /// positions, velocities, forces and masses (`r`, `v`, `f`, `m`), `k` its row, its atoms
    /// `[start, start + n)`; the positions and velocities it leaves in `w` are stored back.
    @FunctionalInterface
    private interface SystemStep {
        void run(Scratch w, int k, int start, int n);
    }

    /// Launches `name` on `stream`: `step` for every system of `[0, systems)` that `moves` in
    /// sub-stage `sub`, the systems split over the crew by atoms, each system's rows copied into
    /// the thread's scratch before and its positions and velocities back after.
    private void perSystem(Stream stream, String name, RelaxColumns c, int systems, int sub, SystemStep step) {
        perSystem(stream, name, c, systems, sub, true, step);
    }

    /// As `perSystem`; `before` false takes the systems a step's first half moved (neither fresh
    /// nor flagged: `done` is the check's, after), as `nveAfter` does.
    private void perSystem(Stream stream, String name, RelaxColumns c, int systems, int sub, boolean before, SystemStep step) {
        MemorySegment pos = c.pos().segment();
        MemorySegment vel = c.vel().segment();
        MemorySegment force = c.force().segment();
        MemorySegment mass = c.mass().segment();
        MemorySegment ints = c.ints().segment();
        long cap = c.systemCapacity();
        stream.launch(name, () -> split(systems, k -> ints.getAtIndex(I32, COUNT * cap + k), MIN_ATOMS, (part, from, to) -> {
            for (int k = from; k < to; k++) {
                if (before ? moves(ints, cap, k, sub) : movedBefore(ints, cap, k, sub)) {
                    int n = ints.getAtIndex(I32, COUNT * cap + k);
                    int start = ints.getAtIndex(I32, START * cap + k);
                    Scratch w = scratch[part];
                    w.fit(n);
                    MemorySegment.copy(pos, F64, 24L * start, w.r, 0, 3 * n);
                    MemorySegment.copy(vel, F64, 24L * start, w.v, 0, 3 * n);
                    MemorySegment.copy(force, F64, 24L * start, w.f, 0, 3 * n);
                    MemorySegment.copy(mass, F64, 8L * start, w.m, 0, n);
                    step.run(w, k, start, n);
                    MemorySegment.copy(w.v, 0, vel, F64, 24L * start, 3 * n);
                    MemorySegment.copy(w.r, 0, pos, F64, 24L * start, 3 * n);
                }
            }
        }));
    }

    /// Whether system `k` takes the step of sub-stage `sub`: it is in it, and neither fresh,
    /// flagged nor done (a step kernel that sets flags itself must not ask them mid-step per atom:
    /// these ask once per system, before moving it).
    private static boolean moves(MemorySegment ints, long cap, int k, int sub) {
        return ints.getAtIndex(I32, SUB * cap + k) == sub && ints.getAtIndex(I32, FRESH * cap + k) == 0
                && ints.getAtIndex(I32, FLAG * cap + k) == 0 && ints.getAtIndex(I32, DONE * cap + k) == 0;
    }

    /// Whether system `k` took the first half of sub-stage `sub`'s step (in it, neither fresh nor
    /// flagged): the systems a second half moves.
    private static boolean movedBefore(MemorySegment ints, long cap, int k, int sub) {
        return ints.getAtIndex(I32, SUB * cap + k) == sub && ints.getAtIndex(I32, FRESH * cap + k) == 0
                && ints.getAtIndex(I32, FLAG * cap + k) == 0;
    }

    /// Whether an atom moved more than √`maxStep2` from `before` to `after` (`n3` coordinates):
    /// |r_new − r_old|² per atom, as `relax.cu` computes it.
    static boolean runaway(double[] before, double[] after, int n3, double maxStep2) {
        for (int i = 0; i < n3; i += 3) {
            double dx = after[i] - before[i];
            double dy = after[i + 1] - before[i + 1];
            double dz = after[i + 2] - before[i + 2];
            if (dx * dx + dy * dy + dz * dz > maxStep2) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void nveBefore(Stream stream, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
        nve(stream, c, systems, true, maxStep2, sub);
    }

    @Override
    public void nveAfter(Stream stream, RelaxColumns c, int systems, int atoms, int sub) {
        nve(stream, c, systems, false, Double.POSITIVE_INFINITY, sub);
    }

    /// A half kick of every moving system (and, `before`, the drift after it): `VelocityVerlet`'s
    /// arithmetic over the system's rows, per atom k = 0.5·dt / m; v += k·F; r += dt·v.
    private void nve(Stream stream, RelaxColumns c, int systems, boolean before, double maxStep2, int sub) {
        MemorySegment pos = c.pos().segment();
        MemorySegment vel = c.vel().segment();
        MemorySegment force = c.force().segment();
        MemorySegment mass = c.mass().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch(before ? "relax nve before" : "relax nve after", () -> split(systems, k -> ints.getAtIndex(I32, COUNT * cap + k),
                MIN_ATOMS, (part, from, to) -> {
                    for (int k = from; k < to; k++) {
                        if (ints.getAtIndex(I32, SUB * cap + k) != sub || ints.getAtIndex(I32, FRESH * cap + k) != 0
                                || (before ? ints.getAtIndex(I32, DONE * cap + k) : ints.getAtIndex(I32, FLAG * cap + k)) != 0) {
                            continue; // as relax.cu: only the second half asks the flag (the first half sets it)
                        }
                        int start = ints.getAtIndex(I32, START * cap + k);
                        int n = ints.getAtIndex(I32, COUNT * cap + k);
                        int n3 = 3 * n;
                        double dt = doubles.getAtIndex(F64, DT * cap + k);
                        Scratch w = scratch[part];
                        w.fit(n);
                        MemorySegment.copy(vel, F64, 24L * start, w.v, 0, n3);
                        MemorySegment.copy(force, F64, 24L * start, w.f, 0, n3);
                        MemorySegment.copy(mass, F64, 8L * start, w.m, 0, n);
                        VelocityVerlet.halfKick(w.v, w.f, w.m, n, dt);
                        MemorySegment.copy(w.v, 0, vel, F64, 24L * start, n3);
                        if (before) {
                            MemorySegment.copy(pos, F64, 24L * start, w.r, 0, n3);
                            System.arraycopy(w.r, 0, w.r0, 0, n3);
                            VelocityVerlet.drift(w.r, w.v, n3, dt);
                            MemorySegment.copy(w.r, 0, pos, F64, 24L * start, n3);
                            if (runaway(w.r0, w.r, n3, maxStep2)) {
                                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
                            }
                        }
                    }
                }));
    }

    @Override
    public boolean noseHoover() {
        return true;
    }

    @Override
    public void noseHooverBefore(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, double maxStep2, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax nose-hoover before", c, systems, sub, (w, k, start, n) -> {
            int n3 = 3 * n;
            w.chain(nh.chain());
            double tfreq = 1 / nh.tdamp();
            double ke;
            if (ints.getAtIndex(I32, TAKEN * cap + k) == 0) { // LAMMPS's setup: the chain at rest, Σ m v² now
                NoseHoover.start(w.eta, w.etaDot, w.etaDotDot, nh.chain(), nh.kT(), tfreq);
                ke = mv2(w.v, w.m, n);
                doubles.setAtIndex(F64, RelaxColumns.NH_CONSERVED0 * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k) + 0.5 * ke);
            } else {
                loadChain(doubles, cap, k, w, nh.chain());
                ke = doubles.getAtIndex(F64, RelaxColumns.NH_KE * cap + k);
            }
            double dt = doubles.getAtIndex(F64, DT * cap + k);
            ke = NoseHoover.half(w.v, n3, w.eta, w.etaDot, w.etaDotDot, nh.chain(), nh.tloop(), ke, SubStage.NoseHoover.dof(n), nh.kT(), tfreq, dt);
            doubles.setAtIndex(F64, RelaxColumns.NH_KE * cap + k, ke);
            storeChain(doubles, cap, k, w, nh.chain());
            VelocityVerlet.halfKick(w.v, w.f, w.m, n, dt);
            System.arraycopy(w.r, 0, w.r0, 0, n3);
            VelocityVerlet.drift(w.r, w.v, n3, dt);
            if (runaway(w.r0, w.r, n3, maxStep2)) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
            }
        });
    }

    @Override
    public void noseHooverAfter(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        // as nveAfter: the systems the first half moved (neither fresh nor flagged; done is set after)
        perSystem(stream, "relax nose-hoover after", c, systems, sub, false, (w, k, start, n) -> {
            double dt = doubles.getAtIndex(F64, DT * cap + k);
            VelocityVerlet.halfKick(w.v, w.f, w.m, n, dt);
            w.chain(nh.chain());
            loadChain(doubles, cap, k, w, nh.chain());
            double ke = NoseHoover.half(w.v, 3 * n, w.eta, w.etaDot, w.etaDotDot, nh.chain(), nh.tloop(), mv2(w.v, w.m, n),
                    SubStage.NoseHoover.dof(n), nh.kT(), 1 / nh.tdamp(), dt);
            doubles.setAtIndex(F64, RelaxColumns.NH_KE * cap + k, ke);
            storeChain(doubles, cap, k, w, nh.chain());
        });
    }

    @Override
    public boolean barostat() {
        return true;
    }

    @Override
    public void barostatBefore(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.Barostat b, double maxStep2, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax barostat before", c, systems, sub, (w, k, start, n) -> {
            int n3 = 3 * n;
            loadBarostat(doubles, cap, k, w);
            if (Double.isNaN(w.w[0])) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_NO_VIRIAL);
                return;
            }
            double dt = doubles.getAtIndex(F64, DT * cap + k);
            double dof = SubStage.NoseHoover.dof(n);
            int chain = b.thermostat() ? b.chain() : 0;
            w.chain(Math.max(chain, 1));
            double ke;
            if (ints.getAtIndex(I32, TAKEN * cap + k) == 0) { // LAMMPS's setup: the chains and ω̇ at rest, V₀ and Σ m v² now
                ke = mv2(w.v, w.m, n);
                double kT = b.thermostat() ? b.kT() : b.ptempKT() > 0 ? b.ptempKT() : ke / dof;
                dev.penstock.atoms.integrate.Mtk.start(w.baro, w.cell, kT, b.baro());
                if (b.thermostat()) {
                    NoseHoover.start(w.eta, w.etaDot, w.etaDotDot, chain, b.kT(), 1 / b.tdamp());
                }
                doubles.setAtIndex(F64, RelaxColumns.NH_CONSERVED0 * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k) + 0.5 * ke);
            } else {
                loadChain(doubles, cap, k, w, chain);
                ke = doubles.getAtIndex(F64, RelaxColumns.NH_KE * cap + k);
            }
            dev.penstock.atoms.integrate.Mtk.chain(w.baro, n, b.baro(), dt);
            if (b.thermostat()) {
                ke = NoseHoover.half(w.v, n3, w.eta, w.etaDot, w.etaDotDot, chain, b.tloop(), ke, dof, b.kT(), 1 / b.tdamp(), dt);
            }
            System.arraycopy(w.r, 0, w.r0, 0, n3);
            dev.penstock.atoms.integrate.Mtk.before(w.r, w.v, w.f, w.m, n, w.cell, w.w, w.baro, b.baro(), dt, ke);
            doubles.setAtIndex(F64, RelaxColumns.NH_KE * cap + k, ke);
            storeChain(doubles, cap, k, w, chain);
            storeBarostat(doubles, cap, k, w);
            if (runaway(w.r0, w.r, n3, maxStep2)) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
            }
        });
    }

    @Override
    public void barostatAfter(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.Barostat b, int sub) {
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax barostat after", c, systems, sub, false, (w, k, start, n) -> {
            double dt = doubles.getAtIndex(F64, DT * cap + k);
            int chain = b.thermostat() ? b.chain() : 0;
            w.chain(Math.max(chain, 1));
            loadBarostat(doubles, cap, k, w);
            loadChain(doubles, cap, k, w, chain);
            double ke = dev.penstock.atoms.integrate.Mtk.after(w.v, w.f, w.m, n, w.cell, w.w, w.baro, b.baro(), dt);
            if (b.thermostat()) {
                ke = NoseHoover.half(w.v, 3 * n, w.eta, w.etaDot, w.etaDotDot, chain, b.tloop(), ke, SubStage.NoseHoover.dof(n), b.kT(),
                        1 / b.tdamp(), dt);
            }
            dev.penstock.atoms.integrate.Mtk.chain(w.baro, n, b.baro(), dt);
            doubles.setAtIndex(F64, RelaxColumns.NH_KE * cap + k, ke);
            storeChain(doubles, cap, k, w, chain);
            storeBarostat(doubles, cap, k, w);
        });
    }

    @Override
    public boolean cellRelaxation() {
        return true;
    }

    @Override
    public void fireCellStep(Stream stream, RelaxColumns c, int systems, SubStage.CellRelaxation cr, double maxStep2, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        MemorySegment last = c.last().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax fire_cell step", c, systems, sub, (w, k, start, n) -> {
            loadBarostat(doubles, cap, k, w);
            if (Double.isNaN(w.w[0])) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_NO_VIRIAL);
                return;
            }
            int n3 = 3 * n;
            w.filter(n);
            startCell(doubles, cap, k, ints.getAtIndex(I32, TAKEN * cap + k) == 0, w);
            doubles.setAtIndex(F64, PREV_ENERGY * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k));
            dev.penstock.atoms.optimize.CellFilter.positions(w.r, n, w.cell, w.orig, n, w.fx);
            dev.penstock.atoms.optimize.CellFilter.forces(w.f, w.w, n, w.cell, w.orig, cr.p(), cr.mask(), cr.hydrostatic(), n, w.fg);
            System.arraycopy(w.v, 0, w.fv, 0, n3);
            for (int q = 0; q < 9; q++) {
                w.fv[n3 + q] = doubles.getAtIndex(F64, (RelaxColumns.CELL_VELOCITY + q) * cap + k);
            }
            System.arraycopy(w.r, 0, w.r0, 0, n3);
            if (cr.fire2()) { // FIRE 2.0: the cell's rows weigh the mean atomic mass; its last steps are columns
                double mean = 0;
                for (int i = 0; i < n; i++) {
                    mean += w.m[i];
                    w.fm[i] = w.m[i];
                }
                w.fm[n] = w.fm[n + 1] = w.fm[n + 2] = mean / n;
                MemorySegment.copy(last, F64, 24L * start, w.fl, 0, n3);
                for (int q = 0; q < 9; q++) {
                    w.fl[n3 + q] = doubles.getAtIndex(F64, (RelaxColumns.CELL_LAST + q) * cap + k);
                }
                dev.penstock.atoms.optimize.Fire2 fire2 = w.fire2;
                fire2.state(doubles.getAtIndex(F64, DT * cap + k), doubles.getAtIndex(F64, ALPHA * cap + k),
                        ints.getAtIndex(I32, NSTEPS * cap + k), ints.getAtIndex(I32, TAKEN * cap + k));
                fire2.step(w.fg, w.fv, w.fx, w.fm, 3 * (n + 3), w.fl);
                MemorySegment.copy(w.fl, 0, last, F64, 24L * start, n3);
                for (int q = 0; q < 9; q++) {
                    doubles.setAtIndex(F64, (RelaxColumns.CELL_LAST + q) * cap + k, w.fl[n3 + q]);
                }
                doubles.setAtIndex(F64, DT * cap + k, fire2.dt());
                doubles.setAtIndex(F64, ALPHA * cap + k, fire2.alpha());
                ints.setAtIndex(I32, NSTEPS * cap + k, fire2.npos());
            } else {
                Fire fire = w.fire;
                fire.state(doubles.getAtIndex(F64, DT * cap + k), doubles.getAtIndex(F64, ALPHA * cap + k),
                        ints.getAtIndex(I32, NSTEPS * cap + k), ints.getAtIndex(I32, STARTED * cap + k) != 0);
                fire.step(w.fg, w.fv, w.fx, w.m, 3 * (n + 3));
                doubles.setAtIndex(F64, DT * cap + k, fire.dt());
                doubles.setAtIndex(F64, ALPHA * cap + k, fire.alpha());
                ints.setAtIndex(I32, NSTEPS * cap + k, fire.n());
                ints.setAtIndex(I32, STARTED * cap + k, fire.started() ? 1 : 0);
            }
            dev.penstock.atoms.optimize.CellFilter.unfilter(w.fx, n, w.orig, n, w.r, w.cell);
            System.arraycopy(w.fv, 0, w.v, 0, n3);
            for (int q = 0; q < 9; q++) {
                doubles.setAtIndex(F64, (RelaxColumns.CELL_VELOCITY + q) * cap + k, w.fv[n3 + q]);
            }
            storeCell(doubles, cap, k, w.cell);
            if (runaway(w.r0, w.r, n3, maxStep2)) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
            }
        });
    }

    @Override
    public void cellForces(Stream stream, RelaxColumns c, int systems, SubStage.CellRelaxation cr, int sub) {
        MemorySegment force = c.force().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax cell forces", () -> split(systems, k -> ints.getAtIndex(I32, COUNT * cap + k), MIN_ATOMS, (part, from, to) -> {
            for (int k = from; k < to; k++) {
                if (ints.getAtIndex(I32, SUB * cap + k) != sub || ints.getAtIndex(I32, FLAG * cap + k) != 0) {
                    continue;
                }
                Scratch w = scratch[part];
                int n = ints.getAtIndex(I32, COUNT * cap + k);
                int start = ints.getAtIndex(I32, START * cap + k);
                w.fit(n);
                w.filter(n);
                loadBarostat(doubles, cap, k, w);
                if (Double.isNaN(w.w[0])) {
                    ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_NO_VIRIAL);
                    continue;
                }
                // a fresh system's cell is its starting cell (one whose first step this was has TAKEN 0 too, until the check)
                startCell(doubles, cap, k, ints.getAtIndex(I32, FRESH * cap + k) != 0, w);
                MemorySegment.copy(force, F64, 24L * start, w.f, 0, 3 * n);
                dev.penstock.atoms.optimize.CellFilter.forces(w.f, w.w, n, w.cell, w.orig, cr.p(), cr.mask(), cr.hydrostatic(), n, w.fg);
                doubles.setAtIndex(F64, FMAX * cap + k, dev.penstock.atoms.optimize.CellFilter.fmax(w.fg, n));
            }
        }));
    }

    /// A variable-cell relaxation's starting cell into `w.orig`: the cell now (and stored, with the
    /// cell's velocities zeroed) while the system has taken no step in its sub-stage, else the stored one.
    private static void startCell(MemorySegment doubles, long cap, int k, boolean first, Scratch w) {
        for (int q = 0; q < 9; q++) {
            if (first) {
                w.orig[q] = w.cell[q];
                doubles.setAtIndex(F64, (RelaxColumns.CELL_START + q) * cap + k, w.cell[q]);
                doubles.setAtIndex(F64, (RelaxColumns.CELL_VELOCITY + q) * cap + k, 0);
            } else {
                w.orig[q] = doubles.getAtIndex(F64, (RelaxColumns.CELL_START + q) * cap + k);
            }
        }
    }

    /// Row `k`'s cell, virial and barostat state into `w`.
    private static void loadBarostat(MemorySegment doubles, long cap, int k, Scratch w) {
        for (int x = 0; x < 9; x++) {
            w.cell[x] = doubles.getAtIndex(F64, (RelaxColumns.CELL + x) * cap + k);
            w.w[x] = doubles.getAtIndex(F64, (RelaxColumns.VIRIAL + x) * cap + k);
        }
        for (int q = 0; q < w.baro.length; q++) {
            w.baro[q] = doubles.getAtIndex(F64, (RelaxColumns.BARO + q) * cap + k);
        }
    }

    /// `w`'s cell (and its reciprocal rows, `Cell.fractional`'s) and barostat state into row `k`.
    private static void storeBarostat(MemorySegment doubles, long cap, int k, Scratch w) {
        storeCell(doubles, cap, k, w.cell);
        for (int q = 0; q < w.baro.length; q++) {
            doubles.setAtIndex(F64, (RelaxColumns.BARO + q) * cap + k, w.baro[q]);
        }
    }

    /// `c` (9, rows) into row `k`'s `CELL` columns, and its reciprocal rows (`Cell.fractional`'s)
    /// into `RECIPROCAL`.
    private static void storeCell(MemorySegment doubles, long cap, int k, double[] c) {
        double det = c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) + c[2] * (c[3] * c[7] - c[4] * c[6]);
        double[] rec = { // rows b×c, c×a, a×b over the volume
            c[4] * c[8] - c[5] * c[7], c[5] * c[6] - c[3] * c[8], c[3] * c[7] - c[4] * c[6],
            c[7] * c[2] - c[8] * c[1], c[8] * c[0] - c[6] * c[2], c[6] * c[1] - c[7] * c[0],
            c[1] * c[5] - c[2] * c[4], c[2] * c[3] - c[0] * c[5], c[0] * c[4] - c[1] * c[3]};
        for (int x = 0; x < 9; x++) {
            doubles.setAtIndex(F64, (RelaxColumns.CELL + x) * cap + k, c[x]);
            doubles.setAtIndex(F64, (RelaxColumns.RECIPROCAL + x) * cap + k, rec[x] / det);
        }
    }

    /// Σ m v² of a system's `n` atoms, in atom order.
    static double mv2(double[] v, double[] m, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += m[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        }
        return s;
    }

    private static void loadChain(MemorySegment doubles, long cap, int k, Scratch w, int chain) {
        for (int q = 0; q < chain; q++) {
            w.eta[q] = doubles.getAtIndex(F64, (RelaxColumns.NH_ETA + q) * cap + k);
            w.etaDot[q] = doubles.getAtIndex(F64, (RelaxColumns.NH_ETA_DOT + q) * cap + k);
            w.etaDotDot[q] = doubles.getAtIndex(F64, (RelaxColumns.NH_ETA_DOTDOT + q) * cap + k);
        }
        w.etaDot[chain] = 0;
    }

    private static void storeChain(MemorySegment doubles, long cap, int k, Scratch w, int chain) {
        for (int q = 0; q < chain; q++) {
            doubles.setAtIndex(F64, (RelaxColumns.NH_ETA + q) * cap + k, w.eta[q]);
            doubles.setAtIndex(F64, (RelaxColumns.NH_ETA_DOT + q) * cap + k, w.etaDot[q]);
            doubles.setAtIndex(F64, (RelaxColumns.NH_ETA_DOTDOT + q) * cap + k, w.etaDotDot[q]);
        }
    }

    @Override
    public boolean langevin() {
        return true;
    }

    @Override
    public void langevinBefore(Stream stream, RelaxColumns c, int systems, int atoms, Thermostat t, double maxStep2, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        perSystem(stream, "relax langevin before", c, systems, sub, (w, k, start, n) -> {
            int n3 = 3 * n;
            System.arraycopy(w.r, 0, w.r0, 0, n3);
            long id = ((long) ints.getAtIndex(I32, ID_HI * cap + k) << 32) | (ints.getAtIndex(I32, ID_LO * cap + k) & 0xFFFF_FFFFL);
            long step = ints.getAtIndex(I32, TAKEN * cap + k);
            Langevin.baoab(w.r, w.v, w.f, w.m, n, doubles.getAtIndex(F64, DT * cap + k), t.kT(), t.c1(), t.c2(),
                    LangevinNoise.key(t.seed(), id, step), w.xi);
            if (runaway(w.r0, w.r, n3, maxStep2)) {
                ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_RUNAWAY);
            }
        });
    }

    @Override
    public void check(Stream stream, RelaxColumns c, int systems, double fmax, double energyTolerance, int budget, int sub) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax check", () -> {
            for (int k = 0; k < systems; k++) {
                if (ints.getAtIndex(I32, SUB * cap + k) != sub) {
                    continue;
                }
                if (ints.getAtIndex(I32, FLAG * cap + k) != 0) {
                    ints.setAtIndex(I32, DONE * cap + k, 1);
                    continue;
                }
                int taken = ints.getAtIndex(I32, TAKEN * cap + k);
                if (ints.getAtIndex(I32, FRESH * cap + k) != 0) {
                    ints.setAtIndex(I32, FRESH * cap + k, 0);
                } else {
                    ints.setAtIndex(I32, TAKEN * cap + k, ++taken);
                }
                double e = doubles.getAtIndex(F64, ENERGY * cap + k);
                boolean converged = doubles.getAtIndex(F64, FMAX * cap + k) < fmax
                        && (energyTolerance == 0 || Math.abs(e - doubles.getAtIndex(F64, PREV_ENERGY * cap + k)) < energyTolerance);
                ints.setAtIndex(I32, DONE * cap + k, converged || taken >= budget ? 1 : 0);
            }
        });
    }

    @Override
    public void pickSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        moveSystems(stream, "relax pick systems", from, to, map, systems, true);
    }

    @Override
    public void putSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems) {
        moveSystems(stream, "relax put systems", from, to, map, systems, false);
    }

    /// Row `map[k]` of `from` to row k of `to` (`pick`), or row k of `from` to row `map[k]` of
    /// `to`, for every per-system column (`relax_move_systems`).
    private static void moveSystems(Stream stream, String name, RelaxColumns from, RelaxColumns to, Block map, int systems, boolean pick) {
        stream.launch(name, () -> PackedColumns.moveRows(from.columns(), to.columns(), map.segment(), systems, pick));
    }

    @Override
    public void gather(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int atoms) {
        MemorySegment m = map.segment();
        long fromCap = from.systemCapacity();
        MemorySegment si = from.ints().segment();
        // each system to its row of `to`, split over the crew by atoms (the rows a graduation
        // keeps are the batch less its leavers: on one thread this copy was the largest part of
        // a stage's step left to its worker alone, ~4% of `bench inflight` on two threads)
        stream.launch("relax gather", () -> split(systems, k -> si.getAtIndex(I32, COUNT * fromCap + m.getAtIndex(I32, k)), MIN_ATOMS,
                (part, first, end) -> PackedColumns.gatherRows(from.columns(), to.columns(), m, systems, first, end)));
    }

    @Override
    public void close() {
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }
}
