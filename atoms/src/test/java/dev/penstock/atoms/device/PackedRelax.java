package dev.penstock.atoms.device;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.PairPotential;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Device;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/// An in-flight FIRE relaxation (ASE-exact) of free Lennard-Jones systems as one packed batch on
/// a `Device`, without a pipeline around it: `PackedStage` (the device stage's engine) refilled
/// in input order after room was freed, stepped until every system has left. What `bench
/// inflight` (CPU) and `bench gpu` (CUDA against CPU) run; the data flow is `PackedStage`'s.
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
    /// @param maxForce  max |F_i| there (NaN likewise)
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

    private final PackedStage batch;
    private final Map<AtomicSystem, Outcome> outcomes = new IdentityHashMap<>();
    private Figures figures = new Figures(0, 0, 0);

    /// A batch of up to `maxSystems` systems and `maxAtoms` atoms on `device`, stepped by
    /// `kernels` (which must be `device`'s; the batch closes them), relaxing under `model` until
    /// `rule` says so.
    public PackedRelax(Device device, RelaxKernels kernels, PairPotential model, Convergence rule, int maxSystems, int maxAtoms) {
        this.batch = new PackedStage(device, kernels, model, new SubStage.Relaxation(rule), "fire", Systems.withListRadius(Double.POSITIVE_INFINITY),
                Capacity.of(maxSystems, maxAtoms, Long.MAX_VALUE), maxSystems, maxAtoms);
        batch.onExit(x -> outcomes.put(x.system(), new Outcome(x.system().id(), x.steps(), x.converged(), x.system().energy(),
                Double.isNaN(x.system().energy()) ? Double.NaN : x.system().maxForce(), x.diagnosis()))); // NaN: never evaluated
    }

    /// Relaxes every system of `inputs`, refilling the batch in input order after room was freed
    /// (a later, smaller system may fit after a larger one did not); each system's final
    /// positions, FIRE velocities, forces and energy are written back into it. Returns one
    /// outcome per input, in input order. Fails before it starts, naming the system, on one
    /// larger than the batch or a periodic one under a potential without a cutoff.
    public List<Outcome> relax(List<AtomicSystem> inputs) {
        for (AtomicSystem s : inputs) {
            String refused = CellImages.refusal(s, batch.cutoff());
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
            if (s.atoms() < 1 || !batch.fitsEmpty(s)) {
                throw new IllegalArgumentException("system " + s.id() + " has " + s.atoms() + " atoms; the batch holds 1 to "
                        + batch.atomCapacity());
            }
        }
        outcomes.clear();
        long t0 = System.nanoTime();
        long steps0 = batch.steps();
        long atoms0 = batch.atomSteps();
        Consumer<Event<AtomicSystem>> ignore = e -> { };
        List<AtomicSystem> pending = new ArrayList<>(inputs);
        boolean roomFreed = true;
        while (!pending.isEmpty() || batch.size() > 0) {
            if (roomFreed && !pending.isEmpty()) { // the batch only gains room when systems leave
                pending = batch.admit(pending, ignore);
            }
            int before = batch.size();
            batch.step(ignore);
            roomFreed = batch.size() < before || before == 0;
        }
        figures = new Figures(batch.steps() - steps0, batch.atomSteps() - atoms0, System.nanoTime() - t0);
        Outcome[] out = new Outcome[inputs.size()];
        for (int q = 0; q < out.length; q++) {
            out[q] = outcomes.get(inputs.get(q));
        }
        return Arrays.asList(out);
    }

    /// What the last `relax` did.
    public Figures figures() {
        return figures;
    }

    /// Frees the batch's device and host memory and the kernels' threads.
    @Override
    public void close() {
        batch.close();
    }

    /// Systems in the batch now (0 between `relax` calls).
    public int size() {
        return batch.size();
    }
}
