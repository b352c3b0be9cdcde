package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.COUNT;
import static dev.penstock.atoms.device.RelaxColumns.DONE;
import static dev.penstock.atoms.device.RelaxColumns.ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.FLAG;
import static dev.penstock.atoms.device.RelaxColumns.FMAX;
import static dev.penstock.atoms.device.RelaxColumns.PREV_ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.START;
import static dev.penstock.atoms.device.RelaxColumns.TAKEN;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Memory;
import java.util.Arrays;
import java.util.List;

/// An in-flight FIRE relaxation (ASE-exact) of free Lennard-Jones systems as one packed batch on
/// a `Device`: the systems' columns live in device memory (`RelaxColumns`), every step is four
/// kernels over the whole batch on one stream (FIRE step, evaluation, convergence check, and
/// the read-back of one int per system), and a system leaves the step it converges.
///
/// ```
///   host staging ──copy──▶ device batch (tail rows) ◀── refill: next systems that fit
///   per step:   fireStep → evaluate → check → done[0…systems) ──copy──▶ host (one sync)
///   leaving:    gather(done rows) → exit columns ──copy──▶ host → back into each AtomicSystem
///               gather(kept rows) → spare columns, swapped in (packed, in admission order)
/// ```
///
/// Nothing on the per-step path allocates or touches a per-system object: the host keeps one
/// int per row (which input it holds) and reads back the `done` column; systems are unpacked
/// only when they leave. A system's trajectory is the one it has alone (`RelaxKernels`).
///
/// Threading: one caller at a time.
public final class PackedRelax implements AutoCloseable {
    /// How one system's relaxation ended.
    ///
    /// @param id        the system's id
    /// @param steps     FIRE steps taken (ASE's `nsteps`)
    /// @param converged whether the convergence rule was met (else the step budget ran out, or
    ///                  the system was refused)
    /// @param energy    energy at the final positions (NaN if refused before any evaluation)
    /// @param maxForce  max |F_i| there
    /// @param diagnosis why the system was taken out (overlapping atoms, non-finite numbers), or null
    public record Outcome(long id, int steps, boolean converged, double energy, double maxForce, String diagnosis) {
    }

    /// What a `relax` call did.
    ///
    /// @param batchSteps  steps of the batch (each one evaluation of every system in it)
    /// @param atomSteps   atoms evaluated, summed over the steps
    /// @param nanos       wall time
    public record Figures(long batchSteps, long atomSteps, long nanos) {
        /// Atom-steps per second.
        public double atomStepsPerSecond() {
            return atomSteps / (nanos / 1e9);
        }
    }

    private static final int SKIP = 64; // systems that do not fit, passed over per refill

    private final RelaxKernels kernels;
    private final RelaxKernels.Lj lj;
    private final LennardJones model;
    private final Convergence rule;
    private final Stream stream;
    private final BlockArena deviceArena;
    private final BlockArena hostArena;
    private RelaxColumns live;
    private RelaxColumns spare;
    private final RelaxColumns exits;
    private final RelaxColumns staging;
    private final RelaxColumns readBack;
    private final Block done;
    private final Block keepMap;
    private final Block exitMap;
    private final Block keepMapDevice;
    private final Block exitMapDevice;
    private final int[] rowInput;
    private final int[] keptInput;
    private int systems;
    private int atoms;
    private Figures figures = new Figures(0, 0, 0);

    /// A batch of up to `maxSystems` systems and `maxAtoms` atoms on `device`, stepped by
    /// `kernels` (which must be `device`'s; the batch closes them), relaxing under `model` until `rule` says so.
    public PackedRelax(Device device, RelaxKernels kernels, LennardJones model, Convergence rule, int maxSystems, int maxAtoms) {
        this.kernels = kernels;
        this.model = model;
        this.lj = RelaxKernels.Lj.of(model);
        this.rule = rule;
        this.stream = device.newStream("relax");
        this.deviceArena = device.newArena("relax batch");
        this.hostArena = Memory.newSharedArena("relax staging");
        try {
            live = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            spare = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            exits = RelaxColumns.allocate(deviceArena, maxSystems, maxAtoms);
            keepMapDevice = deviceArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            exitMapDevice = deviceArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            staging = RelaxColumns.allocate(hostArena, maxSystems, maxAtoms);
            readBack = RelaxColumns.allocate(hostArena, maxSystems, maxAtoms);
            done = hostArena.allocate(DType.I32, maxSystems);
            keepMap = hostArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
            exitMap = hostArena.allocate(DType.I32, 2L * maxSystems + maxAtoms);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        rowInput = new int[maxSystems];
        keptInput = new int[maxSystems];
    }

    /// Relaxes every system of `inputs`, refilling the batch in input order (passing over at
    /// most 64 systems that do not fit the room left); each system's final positions, FIRE
    /// velocities, forces and energy are written back into it. Returns one outcome per input, in
    /// input order. Fails before it starts, naming the system, on a periodic system (these
    /// kernels sum all pairs, without images) or one larger than the batch.
    public List<Outcome> relax(List<AtomicSystem> inputs) {
        for (AtomicSystem s : inputs) {
            for (int d = 0; d < 3; d++) {
                if (s.periodic(d)) {
                    throw new IllegalArgumentException("system " + s.id() + " is periodic: the packed relaxation sums all pairs of free "
                            + "systems (no periodic images)");
                }
            }
            if (s.atoms() > live.atomCapacity() || s.atoms() < 1) {
                throw new IllegalArgumentException("system " + s.id() + " has " + s.atoms() + " atoms; the batch holds 1 to "
                        + live.atomCapacity());
            }
        }
        long t0 = System.nanoTime();
        long batchSteps = 0;
        long atomSteps = 0;
        Outcome[] outcomes = new Outcome[inputs.size()];
        boolean[] admitted = new boolean[inputs.size()];
        int next = 0; // first input not yet admitted
        int left = inputs.size();
        boolean roomFreed = true;
        while (left > 0) {
            if (roomFreed) { // the batch only gains room when systems leave
                next = refill(inputs, admitted, next, outcomes);
                left -= refused;
                refused = 0;
                roomFreed = false;
            }
            if (systems == 0) {
                roomFreed = true; // the inputs looked at were all refused: look again
                continue;
            }
            kernels.fireStep(stream, live, systems);
            kernels.evaluate(stream, live, systems, atoms, lj);
            kernels.check(stream, live, systems, rule.fmax(), rule.energyTolerance(), rule.maxSteps());
            stream.copy(live.ints(DONE, 0, systems), done.slice(0, systems));
            stream.synchronize();
            batchSteps++;
            atomSteps += atoms;
            int leaving = 0;
            for (int k = 0; k < systems; k++) {
                leaving += done.getInt(k);
            }
            if (leaving > 0) {
                graduate(inputs, outcomes, leaving);
                left -= leaving;
                roomFreed = true;
            }
        }
        figures = new Figures(batchSteps, atomSteps, System.nanoTime() - t0);
        return Arrays.asList(outcomes);
    }

    private int refused; // inputs refused by the last refill

    /// Packs the next inputs that fit into the staging columns and copies them onto the tail
    /// of the live batch; an input with a non-finite position or velocity is refused here.
    private int refill(List<AtomicSystem> inputs, boolean[] admitted, int next, Outcome[] outcomes) {
        int k = 0;
        int m = 0;
        int skipped = 0;
        int first = next;
        for (int q = next; q < inputs.size() && skipped < SKIP; q++) {
            if (admitted[q]) {
                continue;
            }
            AtomicSystem s = inputs.get(q);
            if (systems + k >= live.systemCapacity() || atoms + m + s.atoms() > live.atomCapacity()) {
                skipped++;
                continue;
            }
            String bad = nonFinite(s);
            if (bad != null) {
                admitted[q] = true;
                outcomes[q] = new Outcome(s.id(), 0, false, Double.NaN, Double.NaN, bad);
                refused++;
                continue;
            }
            pack(s, k, m);
            rowInput[systems + k] = q;
            admitted[q] = true;
            k++;
            m += s.atoms();
        }
        while (first < inputs.size() && admitted[first]) {
            first++;
        }
        if (k > 0) {
            copyRows(staging, 0, live, systems, k);
            stream.copy(staging.pos().slice(0, m), live.pos().slice(atoms, atoms + m));
            stream.copy(staging.vel().slice(0, m), live.vel().slice(atoms, atoms + m));
            stream.copy(staging.force().slice(0, m), live.force().slice(atoms, atoms + m));
            stream.copy(staging.atomSystem().slice(0, m), live.atomSystem().slice(atoms, atoms + m));
            systems += k;
            atoms += m;
        }
        return first;
    }

    private void pack(AtomicSystem s, int k, int m) {
        int row = systems + k;
        double[] r = s.positions();
        double[] v = s.velocities();
        for (int i = 0; i < 3 * s.atoms(); i++) {
            staging.pos().setDouble(3L * m + i, r[i]);
            staging.vel().setDouble(3L * m + i, v[i]);
            staging.force().setDouble(3L * m + i, 0);
        }
        for (int i = 0; i < s.atoms(); i++) {
            staging.atomSystem().setInt(m + i, row);
        }
        for (int col = 0; col < RelaxColumns.INT_COLUMNS; col++) {
            staging.setInt(col, k, 0);
        }
        staging.setInt(START, k, atoms + m);
        staging.setInt(COUNT, k, s.atoms());
        staging.setInt(RelaxColumns.FRESH, k, 1);
        staging.setDouble(ENERGY, k, Double.NaN);
        staging.setDouble(PREV_ENERGY, k, Double.NaN);
        staging.setDouble(FMAX, k, Double.NaN);
        staging.setDouble(RelaxColumns.DT, k, Fire.DT);
        staging.setDouble(RelaxColumns.ALPHA, k, Fire.ASTART);
    }

    private static String nonFinite(AtomicSystem s) {
        double[][] arrays = {s.positions(), s.velocities()};
        for (int a = 0; a < 2; a++) {
            double[] x = arrays[a];
            for (int i = 0; i < x.length; i++) {
                if (!Double.isFinite(x[i])) {
                    return "system " + s.id() + ": non-finite " + (a == 0 ? "position" : "velocity") + " of atom " + i / 3 + " ("
                            + "xyz".charAt(i % 3) + " = " + x[i] + ")";
                }
            }
        }
        return null;
    }

    /// Copies per-system rows `[fromRow, fromRow + k)` of `from` to `[toRow, …)` of `to`.
    private void copyRows(RelaxColumns from, int fromRow, RelaxColumns to, int toRow, int k) {
        for (int col = 0; col < RelaxColumns.INT_COLUMNS; col++) {
            stream.copy(from.ints(col, fromRow, fromRow + k), to.ints(col, toRow, toRow + k));
        }
        for (int col = 0; col < RelaxColumns.DOUBLE_COLUMNS; col++) {
            stream.copy(from.doubles(col, fromRow, fromRow + k), to.doubles(col, toRow, toRow + k));
        }
    }

    /// Takes the `leaving` systems whose `done` is set out of the batch: their columns gathered
    /// and read back, written into their systems; the others gathered, packed, into the spare
    /// columns, which become the batch.
    private void graduate(List<AtomicSystem> inputs, Outcome[] outcomes, int leaving) {
        int exitAtoms = 0;
        int keptAtoms = 0;
        int e = 0;
        int kept = 0;
        int start = 0; // rows are packed in order: row k's atoms start after those of the rows before it
        for (int k = 0; k < systems; k++) {
            boolean leaves = done.getInt(k) != 0;
            int n = inputs.get(rowInput[k]).atoms();
            Block map = leaves ? exitMap : keepMap;
            int count = leaves ? leaving : systems - leaving;
            int row = leaves ? e++ : kept++;
            int at = leaves ? exitAtoms : keptAtoms;
            map.setInt(row, k);
            map.setInt(count + row, at);
            for (int i = 0; i < n; i++) {
                map.setInt(2L * count + at + i, start + i);
            }
            if (leaves) {
                exitAtoms += n;
            } else {
                keptInput[row] = rowInput[k];
                keptAtoms += n;
            }
            start += n;
        }
        int keptSystems = systems - leaving;
        stream.copy(exitMap.slice(0, 2L * leaving + exitAtoms), exitMapDevice.slice(0, 2L * leaving + exitAtoms));
        kernels.gather(stream, live, exits, exitMapDevice, leaving, exitAtoms);
        if (keptSystems > 0) {
            stream.copy(keepMap.slice(0, 2L * keptSystems + keptAtoms), keepMapDevice.slice(0, 2L * keptSystems + keptAtoms));
            kernels.gather(stream, live, spare, keepMapDevice, keptSystems, keptAtoms);
        }
        stream.copy(exits.ints(), readBack.ints());
        stream.copy(exits.doubles(), readBack.doubles());
        stream.copy(exits.pos().slice(0, exitAtoms), readBack.pos().slice(0, exitAtoms));
        stream.copy(exits.vel().slice(0, exitAtoms), readBack.vel().slice(0, exitAtoms));
        stream.copy(exits.force().slice(0, exitAtoms), readBack.force().slice(0, exitAtoms));
        stream.synchronize();
        for (int x = 0; x < leaving; x++) {
            int q = rowInput[exitMap.getInt(x)];
            unpack(inputs.get(q), x, readBack, outcomes, q);
        }
        System.arraycopy(keptInput, 0, rowInput, 0, keptSystems);
        RelaxColumns t = live;
        live = spare;
        spare = t;
        systems = keptSystems;
        atoms = keptAtoms;
    }

    private void unpack(AtomicSystem s, int x, RelaxColumns c, Outcome[] outcomes, int q) {
        int start = c.getInt(START, x);
        double[] r = s.positions();
        double[] v = s.velocities();
        double[] f = s.forces();
        for (int i = 0; i < 3 * s.atoms(); i++) {
            r[i] = c.pos().getDouble(3L * start + i);
            v[i] = c.vel().getDouble(3L * start + i);
            f[i] = c.force().getDouble(3L * start + i);
        }
        double energy = c.getDouble(ENERGY, x);
        double fmax = c.getDouble(FMAX, x);
        s.energy(energy);
        int flag = c.getInt(FLAG, x);
        String diagnosis = switch (flag) {
            case 0 -> null;
            case RelaxColumns.FLAG_OVERLAP -> "system " + s.id() + ": atoms closer than " + model.overlap() + " Å (overlap)";
            default -> "system " + s.id() + ": non-finite energy or force (energy " + energy + ", max |F| " + fmax + ")";
        };
        boolean converged = flag == 0 && rule.converged(fmax, energy, c.getDouble(PREV_ENERGY, x));
        outcomes[q] = new Outcome(s.id(), c.getInt(TAKEN, x), converged, energy, fmax, diagnosis);
    }

    /// What the last `relax` did.
    public Figures figures() {
        return figures;
    }

    /// Frees the batch's device and host memory and the kernels' threads.
    @Override
    public void close() {
        kernels.close();
        deviceArena.close();
        hostArena.close();
    }

    /// Systems in the batch now (0 between `relax` calls).
    public int size() {
        return systems;
    }
}
