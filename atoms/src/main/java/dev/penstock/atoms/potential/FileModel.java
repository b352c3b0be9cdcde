package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;

/// What the models read from LAMMPS potential files share: the file's elements (`Species`), the
/// per-system half lists (`NeighborLists`, with their checkpoint state) and the full lists made
/// from them (`FullLists`, for the three-body models), and the cutoff.
///
/// Threading: different systems may be computed at once from different threads.
abstract class FileModel implements Model, AutoCloseable {
    private static final double SKIN = 1.0; // Å; only the rebuild rate depends on it

    final Species species;
    final NeighborLists lists;
    final FullLists full;
    private final double cutoff;
    private Crew crew; // null: one thread
    /// Held while a system is computed in parts (`RowParts`): the parts' arrays are the model's.
    final Object partsLock = new Object();
    /// The plans of the systems computed in parts, by id.
    final PartPlan.Cache plans = new PartPlan.Cache();

    FileModel(Species species, double cutoff) {
        this.species = species;
        this.cutoff = cutoff;
        this.lists = new NeighborLists(cutoff, SKIN);
        this.full = new FullLists(lists);
    }

    /// Sets the threads a large system's parts run on to `n` (1: the caller alone), stopping the
    /// previous crew; returns the new one (null for 1). The numbers do not depend on it.
    final synchronized Crew split(int n, String name) {
        if (n < 1) {
            throw new IllegalArgumentException("option 'threads' must be at least 1, got " + n);
        }
        close();
        if (n > 1) {
            crew = new Crew(name, n);
        }
        return crew;
    }

    /// The crew a large system's parts run on (null: the caller alone).
    final synchronized Crew crew() {
        return crew;
    }

    /// Stops the threads rows were split over (if any); the model then runs on the caller.
    @Override
    public synchronized void close() {
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }

    /// The file's elements, in the file's order.
    public List<String> elements() {
        return List.of(species.symbols());
    }

    /// The model as the CLI names it: its kind and file, e.g. `eam(file=Cu_u3.eam)`.
    @Override
    public String toString() {
        String kind = switch (this) {
            case Eam e -> "eam";
            case StillingerWeber sw -> "sw";
            case Snap sn -> "snap";
            case Mliap ml -> "mliap";
            default -> "tersoff";
        };
        return kind + "(file=" + species.file().getFileName() + ")";
    }

    @Override
    public double cutoff() {
        return cutoff;
    }

    @Override
    public String refusal(AtomicSystem s) {
        return species.refusal(s);
    }

    @Override
    public void forget(long id) {
        plans.forget(id);
        lists.forget(id);
        full.forget(id);
    }

    /// `compute(s, crew)` on the crew `threads(n)` set (none: the caller alone): the same numbers.
    @Override
    public final void compute(AtomicSystem s) {
        compute(s, crew());
    }

    @Override
    public void save(long id, DataOutput out) throws IOException {
        lists.save(id, out);
    }

    @Override
    public void restore(AtomicSystem s, DataInput in) throws IOException {
        full.forget(s.id());
        lists.restore(s, in, null);
    }
}
