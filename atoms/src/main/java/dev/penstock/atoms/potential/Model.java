package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;

/// A potential energy model: from a system's positions, numbers and cell to its energy (eV) and
/// forces (eV/Å), written into the system. Plug in your own by implementing it.
///
/// A model must fail, naming the system, on overlapping atoms (r → 0) and never hand back
/// non-finite forces silently.
public interface Model {
    /// Computes the energy and forces of `system` into `system.energy(…)` and `system.forces()`.
    void compute(AtomicSystem system);

    /// Computes `system` as `compute(system)` does — the same numbers — with the work of one system
    /// split over `crew`'s threads where the model can split it (`PairPotential`, `Eam` and
    /// `Tersoff` split a large system into parts fixed by its size, whatever the crew); a device
    /// stage lends its kernels' crew this way for a system large enough to be worth it. The
    /// default ignores the crew. Called by the crew's owner, one such call at a time per crew.
    default void compute(AtomicSystem system, Crew crew) {
        compute(system);
    }

    /// Computes `system` as `compute(system, crew)` does (crew null: `compute(system)`), and its
    /// virial too where `virial` asks for it — what a barostat or a variable-cell relaxation reads
    /// every step. A model that sums the virial only on request (`PairPotential`: six more sums per
    /// pair) gives it then; the default computes as ever (the many-body models always give it).
    default void compute(AtomicSystem system, Crew crew, boolean virial) {
        if (crew == null) {
            compute(system);
        } else {
            compute(system, crew);
        }
    }

    /// How many parts `compute(system, crew)` splits a system of `atoms` atoms into (1: it computes
    /// it whole; more: a lent crew shares them out): `RowParts.count`, fixed by the size alone.
    default int parts(int atoms) {
        return RowParts.count(atoms);
    }

    /// About how many pair terms one atom's share of `compute` costs, for sharing a batch's
    /// systems out over threads (a few microseconds of waking a helper must be paid back): 100
    /// by default, a many-body model's neighbours counted over its passes.
    default long termsPerAtom() {
        return 100;
    }

    /// The distance (Å) beyond which two atoms do not interact: what neighbour lists and the
    /// pipeline's edge counts are built for. Infinite when every pair interacts.
    default double cutoff() {
        return Double.POSITIVE_INFINITY;
    }

    /// Why the model could never evaluate `system` (e.g. an element its potential file does not
    /// describe), or null if it can: asked of every input before a run, so such a system is refused
    /// up front instead of quarantined mid-run.
    default String refusal(AtomicSystem system) {
        return null;
    }

    /// Drops whatever the model keeps for system `id` (a neighbour list): called when the system
    /// leaves a stage, so a long pipeline does not accumulate state for finished systems.
    default void forget(long id) {
    }

    /// Writes what the model keeps for system `id` that its next results depend on (for a
    /// checkpoint; e.g. where its neighbour list was built), read back by `restore`.
    default void save(long id, java.io.DataOutput out) throws java.io.IOException {
    }

    /// Takes back, for `system` (restored from a checkpoint), what `save` wrote, so that its next
    /// results are bit for bit those it would have had uninterrupted.
    default void restore(AtomicSystem system, java.io.DataInput in) throws java.io.IOException {
    }
}
