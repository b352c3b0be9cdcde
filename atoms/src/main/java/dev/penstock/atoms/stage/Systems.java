package dev.penstock.atoms.stage;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Sizer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// The sizes of an atomic system in a pipeline: 1 system, its atoms, its edges (neighbour
/// pairs within the list radius, counted once per system from its starting positions by a
/// neighbour-list build; all pairs for a free system with an infinite radius).
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

    private long countEdges(AtomicSystem s) {
        if (Double.isInfinite(listRadius)) {
            long n = s.atoms();
            return n * (n - 1) / 2;
        }
        NeighborList l = new NeighborList(listRadius, 0);
        l.build(s);
        return l.pairCount();
    }

    @Override
    public long id(AtomicSystem s) {
        return s.id();
    }
}
