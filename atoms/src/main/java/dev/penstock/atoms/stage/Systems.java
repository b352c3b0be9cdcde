package dev.penstock.atoms.stage;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Sizer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// The sizes of an atomic system in a pipeline: 1 system, its atoms, its edges (neighbour
/// pairs within the list radius, counted once per system from its starting positions: pair by
/// pair for a free system of up to 1,024 atoms, by a neighbour-list build otherwise; all pairs
/// for a free system with an infinite radius).
public final class Systems implements Sizer<AtomicSystem> {
    /// Dimension indices.
    public static final int SYSTEMS = 0;
    public static final int ATOMS = 1;
    public static final int EDGES = 2;

    private final double listRadius;
    private final Map<Long, Long> edges = new ConcurrentHashMap<>();

    private Systems(double listRadius) {
        this.listRadius = listRadius;
    }

    /// Sizes with edges counted within `listRadius` (the model's cutoff plus skin; may be infinite).
    public static Systems withListRadius(double listRadius) {
        if (!(listRadius > 0)) {
            throw new IllegalArgumentException("option 'listRadius' must be positive, got " + listRadius);
        }
        return new Systems(listRadius);
    }

    @Override
    public List<String> dimensions() {
        return List.of("systems", "atoms", "edges");
    }

    @Override
    public long size(AtomicSystem s, int d) {
        return switch (d) {
            case SYSTEMS -> 1;
            case ATOMS -> s.atoms();
            case EDGES -> edges.computeIfAbsent(s.id(), id -> countEdges(s));
            default -> throw new IndexOutOfBoundsException("dimension " + d + " of " + dimensions());
        };
    }

    /// Free systems of up to this many atoms are counted pair by pair (n²/2 distances, no list:
    /// ~2 ms for the 512 clusters of `bench inflight` against ~40 ms through list builds —
    /// time the pipeline's up-front check spends on one thread before any stage starts).
    static final int COUNTED_PAIRWISE = 1024;

    private long countEdges(AtomicSystem s) {
        if (Double.isInfinite(listRadius)) {
            long n = s.atoms();
            return n * (n - 1) / 2;
        }
        if (s.atoms() <= COUNTED_PAIRWISE && !s.periodic(0) && !s.periodic(1) && !s.periodic(2)) {
            return pairsWithin(s.positions(), s.atoms(), listRadius * listRadius);
        }
        NeighborList l = new NeighborList(listRadius, 0);
        l.build(s);
        return l.pairCount();
    }

    /// The pairs of `n` atoms at `r` closer than √`rl2` — the pairs a neighbour list of a free
    /// system holds, by the same test (|r_j − r_i|² < rl², summed x, y, z).
    static long pairsWithin(double[] r, int n, double rl2) {
        long count = 0;
        for (int i = 0; i < n; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            int inside = 0;
            for (int j = i + 1; j < n; j++) {
                double dx = r[3 * j] - xi;
                double dy = r[3 * j + 1] - yi;
                double dz = r[3 * j + 2] - zi;
                inside += dx * dx + dy * dy + dz * dz < rl2 ? 1 : 0;
            }
            count += inside;
        }
        return count;
    }

    @Override
    public long id(AtomicSystem s) {
        return s.id();
    }

    /// Why `s` cannot be stepped before anything runs: its first non-finite position or
    /// velocity, named ("system 7: non-finite position of atom 2 (x = NaN)"), or null. A device
    /// stage asks it at admission (and quarantines such a system with this diagnosis).
    public static String nonFinite(AtomicSystem s) {
        double[] r = s.positions();
        for (int i = 0; i < r.length; i++) {
            if (!Double.isFinite(r[i])) {
                return "system " + s.id() + ": non-finite position of atom " + i / 3 + " (" + "xyz".charAt(i % 3) + " = " + r[i] + ")";
            }
        }
        double[] v = s.velocities();
        for (int i = 0; i < v.length; i++) {
            if (!Double.isFinite(v[i])) {
                return "system " + s.id() + ": non-finite velocity of atom " + i / 3 + " (" + "xyz".charAt(i % 3) + " = " + v[i] + ")";
            }
        }
        return null;
    }
}
