package dev.penstock.atoms.system;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/// Many atomic systems in one set of off-heap blocks, with fixed capacities in systems, atoms
/// and edges (neighbour pairs): the unit a stage steps and a pipeline moves.
///
/// ```
///   per atom  (capacity A): positions[A,3] velocities[A,3] forces[A,3] masses[A] numbers[A]
///   per system (capacity S): atomStart atomCount edgeCount id status steps energy box[3] pbc[3]
///   systems are packed: system k's atoms are rows atomStart[k] … atomStart[k]+atomCount[k]−1
///   and lie in system order; edges are a reservation per system (filled by neighbour lists)
/// ```
///
/// `put` copies in only the systems that fit all three capacities and says which; `select`
/// keeps a subset in a new order and packs every array again, so no operation ever mixes two
/// systems' data. Threading: one thread at a time. Memory: owned by the batch, freed by `close()`.
public final class AtomicBatch implements AutoCloseable {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final int systemCap;
    private final int atomCap;
    private final long edgeCap;
    private final HostArena arena;
    private final Block positions;
    private final Block velocities;
    private final Block forces;
    private final Block masses;
    private final Block numbers;
    private final Block atomStart;
    private final Block atomCount;
    private final Block edgeCount;
    private final Block ids;
    private final Block status;
    private final Block steps;
    private final Block energy;
    private final Block box;
    private final Block pbc;
    private int systems;
    private int atoms;
    private long edges;

    /// A batch with room for `systems` systems, `atoms` atoms and `edges` edges in all.
    public AtomicBatch(int systems, int atoms, long edges) {
        if (systems < 1 || atoms < 1 || edges < 0) {
            throw new IllegalArgumentException("batch capacities must be positive (edges non-negative), got systems " + systems
                    + ", atoms " + atoms + ", edges " + edges);
        }
        this.systemCap = systems;
        this.atomCap = atoms;
        this.edgeCap = edges;
        this.arena = Memory.newSharedArena("atomic batch");
        positions = arena.allocate(DType.F64, atoms, 3);
        velocities = arena.allocate(DType.F64, atoms, 3);
        forces = arena.allocate(DType.F64, atoms, 3);
        masses = arena.allocate(DType.F64, atoms);
        numbers = arena.allocate(DType.I32, atoms);
        atomStart = arena.allocate(DType.I32, systems);
        atomCount = arena.allocate(DType.I32, systems);
        edgeCount = arena.allocate(DType.I64, systems);
        ids = arena.allocate(DType.I64, systems);
        status = arena.allocate(DType.I32, systems);
        steps = arena.allocate(DType.I64, systems);
        energy = arena.allocate(DType.F64, systems);
        box = arena.allocate(DType.F64, systems, 3);
        pbc = arena.allocate(DType.U8, systems, 3);
    }

    /// What a `put` did.
    ///
    /// @param taken     indices (into the source list) of the systems copied in, in order
    /// @param didNotFit indices of the masked-in systems that did not fit, each waiting for room
    public record PutResult(List<Integer> taken, List<Integer> didNotFit) {
    }

    /// Copies in, in order, every system of `source` whose `mask` entry is true (all if `mask`
    /// is null) and that fits the remaining capacities; `edgesOf` gives each system's edge
    /// reservation. A system that does not fit is skipped (later, smaller ones may still fit).
    public PutResult put(List<AtomicSystem> source, boolean[] mask, ToIntFunction<AtomicSystem> edgesOf) {
        List<Integer> taken = new ArrayList<>();
        List<Integer> rejected = new ArrayList<>();
        for (int k = 0; k < source.size(); k++) {
            if (mask != null && !mask[k]) {
                continue;
            }
            AtomicSystem s = source.get(k);
            int e = edgesOf.applyAsInt(s);
            if (systems + 1 > systemCap || atoms + s.atoms() > atomCap || edges + e > edgeCap) {
                rejected.add(k);
                continue;
            }
            append(s, e);
            taken.add(k);
        }
        return new PutResult(List.copyOf(taken), List.copyOf(rejected));
    }

    private void append(AtomicSystem s, int e) {
        int k = systems;
        int a0 = atoms;
        int n = s.atoms();
        MemorySegment.copy(s.positions(), 0, positions.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.velocities(), 0, velocities.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.forces(), 0, forces.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.masses(), 0, masses.segment(), F64, 8L * a0, n);
        MemorySegment.copy(s.numbers(), 0, numbers.segment(), I32, 4L * a0, n);
        atomStart.setInt(k, a0);
        atomCount.setInt(k, n);
        edgeCount.setLong(k, e);
        ids.setLong(k, s.id());
        status.setInt(k, 0);
        steps.setLong(k, 0);
        energy.setDouble(k, s.energy());
        double[] b = s.box();
        for (int d = 0; d < 3; d++) {
            box.setDouble(3L * k + d, b[d]);
            pbc.setUnsignedByte(3L * k + d, s.periodic(d) ? 1 : 0);
        }
        systems++;
        atoms += n;
        edges += e;
    }

    /// System `k` copied out as an `AtomicSystem` (positions, velocities, forces, energy, …).
    public AtomicSystem get(int k) {
        check(k);
        int a0 = atomStart.getInt(k);
        int n = atomCount.getInt(k);
        double[] r = new double[3 * n];
        MemorySegment.copy(positions.segment(), F64, 24L * a0, r, 0, 3 * n);
        double[] m = new double[n];
        MemorySegment.copy(masses.segment(), F64, 8L * a0, m, 0, n);
        int[] z = new int[n];
        MemorySegment.copy(numbers.segment(), I32, 4L * a0, z, 0, n);
        double[] b = new double[3];
        boolean[] p = new boolean[3];
        for (int d = 0; d < 3; d++) {
            b[d] = box.getDouble(3L * k + d);
            p[d] = pbc.getUnsignedByte(3L * k + d) == 1;
        }
        AtomicSystem s = new AtomicSystem(ids.getLong(k), r, m, z, b, p);
        MemorySegment.copy(velocities.segment(), F64, 24L * a0, s.velocities(), 0, 3 * n);
        MemorySegment.copy(forces.segment(), F64, 24L * a0, s.forces(), 0, 3 * n);
        s.energy(energy.getDouble(k));
        return s;
    }

    /// Keeps the systems at `order` (each at most once), in that order, and packs every array.
    public void select(int... order) {
        boolean[] seen = new boolean[systems];
        for (int k : order) {
            check(k);
            if (seen[k]) {
                throw new IllegalArgumentException("select: system " + k + " appears twice");
            }
            seen[k] = true;
        }
        // pack through temporary copies: a system may move up or down
        List<AtomicSystem> kept = new ArrayList<>(order.length);
        long[] keptEdges = new long[order.length];
        int[] keptStatus = new int[order.length];
        long[] keptSteps = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            kept.add(get(order[i]));
            keptEdges[i] = edgeCount.getLong(order[i]);
            keptStatus[i] = status.getInt(order[i]);
            keptSteps[i] = steps.getLong(order[i]);
        }
        systems = 0;
        atoms = 0;
        edges = 0;
        for (int i = 0; i < kept.size(); i++) {
            append(kept.get(i), (int) keptEdges[i]);
            status.setInt(i, keptStatus[i]);
            steps.setLong(i, keptSteps[i]);
        }
    }

    /// Drops every system whose `drop` entry is true, keeping the order of the rest.
    public void removeWhere(boolean[] drop) {
        int[] keep = new int[systems];
        int n = 0;
        for (int k = 0; k < systems; k++) {
            if (!drop[k]) {
                keep[n++] = k;
            }
        }
        select(java.util.Arrays.copyOf(keep, n));
    }

    private void check(int k) {
        if (k < 0 || k >= systems) {
            throw new IndexOutOfBoundsException("system " + k + " of a batch of " + systems);
        }
    }

    /// Systems held.
    public int systems() {
        return systems;
    }

    /// Atoms held (all systems).
    public int atoms() {
        return atoms;
    }

    /// Edges reserved (all systems).
    public long edges() {
        return edges;
    }

    /// Id of system `k`.
    public long id(int k) {
        check(k);
        return ids.getLong(k);
    }

    /// Status of system `k` (stages route by it).
    public int status(int k) {
        check(k);
        return status.getInt(k);
    }

    /// Sets the status of system `k`.
    public void status(int k, int value) {
        check(k);
        status.setInt(k, value);
    }

    /// Steps taken by system `k`.
    public long steps(int k) {
        check(k);
        return steps.getLong(k);
    }

    /// Counts one more step for system `k`.
    public void countStep(int k) {
        check(k);
        steps.setLong(k, steps.getLong(k) + 1);
    }

    /// First atom row of system `k`.
    public int atomStart(int k) {
        check(k);
        return atomStart.getInt(k);
    }

    /// Atoms of system `k`.
    public int atomCount(int k) {
        check(k);
        return atomCount.getInt(k);
    }

    /// Positions of every atom, `[atoms capacity, 3]` (rows beyond `atoms()` are free).
    public Block positions() {
        return positions;
    }

    /// Velocities of every atom.
    public Block velocities() {
        return velocities;
    }

    /// Forces of every atom.
    public Block forces() {
        return forces;
    }

    /// Frees the batch's memory.
    @Override
    public void close() {
        arena.close();
    }
}
