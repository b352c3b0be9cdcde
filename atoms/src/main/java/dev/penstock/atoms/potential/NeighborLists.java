package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/// A model's neighbour lists, one per system id, and what a checkpoint keeps of them: where each
/// was last built and how many builds it has had, so that a restore rebuilds the very same list
/// (`NeighborList.rebuildAt`). Shared by `PairPotential` and `Eam`.
///
/// Threading: lists of different systems may be used from different threads at once.
final class NeighborLists {
    private final double cutoff;
    private final double skin;
    private final Map<Long, NeighborList> lists = new ConcurrentHashMap<>();

    private volatile int every;
    private final java.util.concurrent.atomic.AtomicBoolean warned = new java.util.concurrent.atomic.AtomicBoolean();

    NeighborLists(double cutoff, double skin) {
        this.cutoff = cutoff;
        this.skin = skin;
    }

    /// Every list rebuilt every `n` evaluations, unchecked (`NeighborList.rebuildEvery`); 0: when
    /// an atom has moved half the skin.
    void rebuildEvery(int n) {
        new NeighborList(cutoff, skin).rebuildEvery(n); // refuses a negative n
        every = n;
        for (NeighborList l : lists.values()) {
            l.rebuildEvery(n);
        }
    }

    /// Builds, over every list held, after which an atom was found to have moved more than half
    /// the skin (only under `rebuildEvery`).
    long dangerousBuilds() {
        long n = 0;
        for (NeighborList l : lists.values()) {
            n += l.dangerousBuilds();
        }
        return n;
    }

    private NeighborList make() {
        NeighborList list = new NeighborList(cutoff, skin);
        list.rebuildEvery(every);
        return list;
    }

    /// System `s`'s list, made on first use and brought up to date (rebuilt when an atom has
    /// moved more than half the skin), the cell scan split over `crew` when it is given.
    NeighborList current(AtomicSystem s, Crew crew) {
        NeighborList list = lists.get(s.id());
        if (list == null) { // made once per system (a capturing lambda per call was most of a step's garbage)
            list = lists.computeIfAbsent(s.id(), k -> make());
        }
        long before = list.dangerousBuilds();
        list.update(s, crew);
        if (list.dangerousBuilds() > before && warned.compareAndSet(false, true)) {
            System.getLogger("dev.penstock").log(System.Logger.Level.WARNING, "system " + s.id() + ": its neighbour list, rebuilt every "
                    + every + " steps unchecked, found two atoms moved more than the skin (" + skin + " Å) together since the build "
                    + "before: pairs may have been missed; a smaller 'every' or 0 (rebuild when needed) avoids it (said once)");
        }
        return list;
    }

    void forget(long id) {
        lists.remove(id);
    }

    int size() {
        return lists.size();
    }

    NeighborList get(long id) {
        return lists.get(id);
    }

    /// Writes where system `id`'s list was last built and its build count, or that it has none.
    void save(long id, DataOutput out) throws IOException {
        NeighborList list = lists.get(id);
        double[] at = list == null ? null : list.builtAt();
        out.writeBoolean(at != null);
        if (at != null) {
            out.writeLong(list.builds());
            if (every > 0) { // the updates since the build, which decide the next (written only then: the format stays as it was)
                out.writeInt(list.sinceBuild());
            }
            double[] cell = list.builtCell(); // the build's cell, where a barostat has changed it since
            out.writeInt(cell == null ? at.length : ~at.length); // (negative: the cell follows; the format stays as it was otherwise)
            for (double x : at) {
                out.writeDouble(x);
            }
            if (cell != null) {
                for (double x : cell) {
                    out.writeDouble(x);
                }
            }
        }
    }

    /// Rebuilds the list `save` wrote for `s` from its saved build positions.
    void restore(AtomicSystem s, DataInput in, Crew crew) throws IOException {
        if (!in.readBoolean()) {
            lists.remove(s.id());
            return;
        }
        long builds = in.readLong();
        int since = every > 0 ? in.readInt() : 0;
        int length = in.readInt();
        double[] at = new double[length < 0 ? ~length : length];
        for (int i = 0; i < at.length; i++) {
            at[i] = in.readDouble();
        }
        double[] cell = length < 0 ? new double[9] : null;
        for (int i = 0; cell != null && i < 9; i++) {
            cell[i] = in.readDouble();
        }
        NeighborList list = make();
        list.rebuildAt(s, at, cell, builds, crew);
        list.sinceBuild(since);
        lists.put(s.id(), list);
    }
}
