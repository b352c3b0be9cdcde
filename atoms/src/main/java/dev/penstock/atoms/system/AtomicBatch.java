package dev.penstock.atoms.system;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;

/// Many atomic systems in one set of off-heap blocks, with fixed capacities in systems, atoms
/// and edges (neighbour pairs): the unit a stage steps and a pipeline moves.
///
/// ```
///   per atom   (capacity A): positions[A,3] velocities[A,3] forces[A,3] masses[A] numbers[A]
///   per edge   (capacity E): first[E] second[E] (atom indices within the system) shift[E,3]
///   per system (capacity S): atomStart atomCount edgeStart edgeReserve edgeCount id status
///                            steps energy cell[9] pbc[3]
/// ```
///
/// Systems are numbered 0 … systems()−1; system k's atoms are the rows `atomStart(k) …
/// +atomCount(k)−1` and its edges a region of `edgeReserve(k)` rows of which `edgeCount(k)` are
/// used. `trim` removes systems lazily (their rows become holes, nothing moves); `defrag` packs
/// rows again; `put` defragments by itself when only the holes would make room. `select` keeps
/// a subset in a new order. No operation ever mixes two systems' data (property-tested).
/// Threading: one thread at a time. Memory: owned by the batch, freed by `close()`.
///
/// Why one file of this length: one packed layout — the per-system, per-atom and per-edge
/// columns, their capacities, and the trim/defrag that moves all three together — whose offsets
/// every method must agree on; splitting it would spread one invariant over several classes.
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
    private final Block edgeFirst;
    private final Block edgeSecond;
    private final Block edgeShift;
    private final Block atomStart;
    private final Block atomCount;
    private final Block edgeStart;
    private final Block edgeReserve;
    private final Block edgeCount;
    private final Block ids;
    private final Block status;
    private final Block steps;
    private final Block energy;
    private final Block cell;
    private final Block pbc;
    private final Block[] perAtom;
    private final Block[] perEdge;
    private final Block[] perSystem;
    private int systems;
    private int atoms;      // live atoms
    private long edges;     // live edge reservations
    private int atomEnd;    // first free atom row at the end (holes below it after a trim)
    private long edgeEnd;

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
        long e = Math.max(1, edges);
        edgeFirst = arena.allocate(DType.I32, e);
        edgeSecond = arena.allocate(DType.I32, e);
        edgeShift = arena.allocate(DType.F64, e, 3);
        atomStart = arena.allocate(DType.I32, systems);
        atomCount = arena.allocate(DType.I32, systems);
        edgeStart = arena.allocate(DType.I64, systems);
        edgeReserve = arena.allocate(DType.I64, systems);
        edgeCount = arena.allocate(DType.I64, systems);
        ids = arena.allocate(DType.I64, systems);
        status = arena.allocate(DType.I32, systems);
        steps = arena.allocate(DType.I64, systems);
        energy = arena.allocate(DType.F64, systems);
        cell = arena.allocate(DType.F64, systems, 9);
        pbc = arena.allocate(DType.U8, systems, 3);
        perAtom = new Block[] {positions, velocities, forces, masses, numbers};
        perEdge = new Block[] {edgeFirst, edgeSecond, edgeShift};
        perSystem = new Block[] {atomStart, atomCount, edgeStart, edgeReserve, edgeCount, ids, status, steps, energy, cell, pbc};
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
            if (e < 0) {
                throw new IllegalArgumentException("system " + s.id() + ": negative edge reservation " + e);
            }
            if (systems + 1 > systemCap || atoms + s.atoms() > atomCap || edges + e > edgeCap) {
                rejected.add(k);
                continue;
            }
            if (atomEnd + s.atoms() > atomCap || edgeEnd + e > edgeCap) {
                defrag(); // the holes a trim left make the room
            }
            append(s, e);
            taken.add(k);
        }
        return new PutResult(List.copyOf(taken), List.copyOf(rejected));
    }

    private void append(AtomicSystem s, long e) {
        int k = systems;
        int a0 = atomEnd;
        int n = s.atoms();
        MemorySegment.copy(s.positions(), 0, positions.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.velocities(), 0, velocities.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.forces(), 0, forces.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.masses(), 0, masses.segment(), F64, 8L * a0, n);
        MemorySegment.copy(s.numbers(), 0, numbers.segment(), I32, 4L * a0, n);
        atomStart.setInt(k, a0);
        atomCount.setInt(k, n);
        edgeStart.setLong(k, edgeEnd);
        edgeReserve.setLong(k, e);
        edgeCount.setLong(k, 0);
        ids.setLong(k, s.id());
        status.setInt(k, 0);
        steps.setLong(k, 0);
        energy.setDouble(k, s.energy());
        MemorySegment.copy(s.cell().vectors(), 0, cell.segment(), F64, 72L * k, 9);
        for (int d = 0; d < 3; d++) {
            pbc.setUnsignedByte(3L * k + d, s.periodic(d) ? 1 : 0);
        }
        systems++;
        atoms += n;
        edges += e;
        atomEnd += n;
        edgeEnd += e;
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
        double[] c = new double[9];
        MemorySegment.copy(cell.segment(), F64, 72L * k, c, 0, 9);
        boolean[] p = new boolean[3];
        for (int d = 0; d < 3; d++) {
            p[d] = pbc.getUnsignedByte(3L * k + d) == 1;
        }
        AtomicSystem s = new AtomicSystem(ids.getLong(k), r, m, z, Cell.of(c, p));
        MemorySegment.copy(velocities.segment(), F64, 24L * a0, s.velocities(), 0, 3 * n);
        MemorySegment.copy(forces.segment(), F64, 24L * a0, s.forces(), 0, 3 * n);
        s.energy(energy.getDouble(k));
        return s;
    }

    /// Copies the positions, velocities, forces and energy of `s` back into system `k` (same id
    /// and atom count): how a stage that stepped a copy returns its work.
    public void update(int k, AtomicSystem s) {
        check(k);
        int n = atomCount.getInt(k);
        if (s.id() != ids.getLong(k) || s.atoms() != n) {
            throw new IllegalArgumentException("update of system " + k + " (id " + ids.getLong(k) + ", " + n
                    + " atoms) with system id " + s.id() + " of " + s.atoms() + " atoms");
        }
        int a0 = atomStart.getInt(k);
        MemorySegment.copy(s.positions(), 0, positions.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.velocities(), 0, velocities.segment(), F64, 24L * a0, 3 * n);
        MemorySegment.copy(s.forces(), 0, forces.segment(), F64, 24L * a0, 3 * n);
        energy.setDouble(k, s.energy());
    }

    /// The neighbour pairs of system `k`: atom indices within the system and shift vectors.
    public record Edges(int[] first, int[] second, double[] shifts) {
    }

    /// Stores `count` pairs as system `k`'s edges (from a `NeighborList`: its `first()`,
    /// `second()`, `shifts()` and `pairCount()`). A list longer than the system's reservation
    /// moves the system's edges to a larger region (defragmenting if the holes make the room);
    /// with no room left in the batch it fails, naming the system.
    public void edges(int k, int[] first, int[] second, double[] shifts, int count) {
        check(k);
        int n = atomCount.getInt(k);
        for (int p = 0; p < count; p++) {
            if (first[p] < 0 || first[p] >= n || second[p] < 0 || second[p] >= n) {
                throw new IllegalArgumentException("system " + ids.getLong(k) + ": edge " + p + " (" + first[p] + ", "
                        + second[p] + ") names an atom outside its " + n + " atoms");
            }
        }
        long reserve = edgeReserve.getLong(k);
        if (count > reserve) {
            if (edges - reserve + count > edgeCap) {
                throw new IllegalStateException("system " + ids.getLong(k) + ": " + count + " edges do not fit (reserved "
                        + reserve + "; the batch holds " + edges + " of " + edgeCap + ")");
            }
            edges -= reserve;
            edgeReserve.setLong(k, 0);
            edgeCount.setLong(k, 0);
            if (edgeEnd + count > edgeCap) {
                defrag();
            }
            edgeStart.setLong(k, edgeEnd);
            edgeReserve.setLong(k, count);
            edgeEnd += count;
            edges += count;
        }
        long e0 = edgeStart.getLong(k);
        MemorySegment.copy(first, 0, edgeFirst.segment(), I32, 4 * e0, count);
        MemorySegment.copy(second, 0, edgeSecond.segment(), I32, 4 * e0, count);
        MemorySegment.copy(shifts, 0, edgeShift.segment(), F64, 24 * e0, 3 * count);
        edgeCount.setLong(k, count);
    }

    /// System `k`'s edges copied out.
    public Edges edges(int k) {
        check(k);
        long e0 = edgeStart.getLong(k);
        int c = (int) edgeCount.getLong(k);
        int[] a = new int[c];
        int[] b = new int[c];
        double[] sh = new double[3 * c];
        MemorySegment.copy(edgeFirst.segment(), I32, 4 * e0, a, 0, c);
        MemorySegment.copy(edgeSecond.segment(), I32, 4 * e0, b, 0, c);
        MemorySegment.copy(edgeShift.segment(), F64, 24 * e0, sh, 0, 3 * c);
        return new Edges(a, b, sh);
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
        List<Edges> keptEdges = new ArrayList<>(order.length);
        long[] reserve = new long[order.length];
        int[] keptStatus = new int[order.length];
        long[] keptSteps = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            kept.add(get(order[i]));
            keptEdges.add(edges(order[i]));
            reserve[i] = edgeReserve.getLong(order[i]);
            keptStatus[i] = status.getInt(order[i]);
            keptSteps[i] = steps.getLong(order[i]);
        }
        systems = 0;
        atoms = 0;
        edges = 0;
        atomEnd = 0;
        edgeEnd = 0;
        for (int i = 0; i < kept.size(); i++) {
            append(kept.get(i), reserve[i]);
            Edges e = keptEdges.get(i);
            edges(i, e.first(), e.second(), e.shifts(), e.first().length);
            status.setInt(i, keptStatus[i]);
            steps.setLong(i, keptSteps[i]);
        }
    }

    /// Removes every system whose `drop` entry is true, lazily: the rest keep their order and
    /// are renumbered, their rows stay where they are (the dropped rows become holes that
    /// `defrag`, or a `put` that needs them, reclaims).
    public void trim(boolean[] drop) {
        if (drop.length != systems) {
            throw new IllegalArgumentException("trim: " + drop.length + " flags for " + systems + " systems");
        }
        int next = 0;
        for (int k = 0; k < systems; k++) {
            if (drop[k]) {
                atoms -= atomCount.getInt(k);
                edges -= edgeReserve.getLong(k);
                continue;
            }
            if (next != k) {
                for (Block b : perSystem) {
                    long w = b.byteSize() / systemCap;
                    MemorySegment.copy(b.segment(), w * k, b.segment(), w * next, w);
                }
            }
            next++;
        }
        systems = next;
        if (systems == 0) {
            atomEnd = 0;
            edgeEnd = 0;
        }
    }

    /// Packs atoms and edges to the front of their blocks, closing the holes `trim` left.
    /// Rows only ever move down (regions in address order), so each copy is safe in place.
    public void defrag() {
        Integer[] byAtom = new Integer[systems];
        Integer[] byEdge = new Integer[systems];
        for (int k = 0; k < systems; k++) {
            byAtom[k] = k;
            byEdge[k] = k;
        }
        Arrays.sort(byAtom, (x, y) -> Integer.compare(atomStart.getInt(x), atomStart.getInt(y)));
        Arrays.sort(byEdge, (x, y) -> Long.compare(edgeStart.getLong(x), edgeStart.getLong(y)));
        int a = 0;
        for (int k : byAtom) {
            int from = atomStart.getInt(k);
            int n = atomCount.getInt(k);
            if (from != a) {
                for (Block b : perAtom) {
                    long w = b.byteSize() / atomCap;
                    MemorySegment.copy(b.segment(), w * from, b.segment(), w * a, w * n);
                }
                atomStart.setInt(k, a);
            }
            a += n;
        }
        long e = 0;
        for (int k : byEdge) {
            long from = edgeStart.getLong(k);
            long used = edgeCount.getLong(k);
            if (from != e) {
                for (Block b : perEdge) {
                    long w = b.byteSize() / Math.max(1, edgeCap);
                    MemorySegment.copy(b.segment(), w * from, b.segment(), w * e, w * used);
                }
                edgeStart.setLong(k, e);
            }
            e += edgeReserve.getLong(k);
        }
        atomEnd = a;
        edgeEnd = e;
    }

    /// Drops every system whose `drop` entry is true, keeping the order of the rest, and packs.
    public void removeWhere(boolean[] drop) {
        trim(drop);
        defrag();
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

    /// Edge rows reserved (all systems).
    public long edges() {
        return edges;
    }

    /// Atom rows in use including holes (`atoms()` right after a `defrag`).
    public int atomRowsUsed() {
        return atomEnd;
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

    /// Edge rows reserved for system `k`.
    public long edgeReserve(int k) {
        check(k);
        return edgeReserve.getLong(k);
    }

    /// Positions of every atom row, `[atoms capacity, 3]` (rows not in a system are free).
    public Block positions() {
        return positions;
    }

    /// Velocities of every atom row.
    public Block velocities() {
        return velocities;
    }

    /// Forces of every atom row.
    public Block forces() {
        return forces;
    }

    /// Frees the batch's memory.
    @Override
    public void close() {
        arena.close();
    }
}
