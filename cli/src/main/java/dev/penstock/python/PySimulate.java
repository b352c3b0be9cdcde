package dev.penstock.python;

import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;
import dev.penstock.stage.Event;
import dev.penstock.stage.Sink;
import dev.penstock.stage.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// What the Python package's `penstock.atoms` calls: systems built from `ase.Atoms` arrays, one
/// model evaluated (`Calculator`), or the stage pipeline of `penstock simulate` run on them in
/// memory — the local runner on the CPU device, the command's defaults — returning every system,
/// finished or quarantined, with what `simulate` writes in its info.
public final class PySimulate {
    private PySimulate() {
    }

    /// A system as `ExtXyz.read` makes one from ASE's arrays: velocities are momenta / masses.
    public static AtomicSystem system(long id, double[] positions, double[] masses, int[] numbers, double[] cell, boolean[] pbc,
                                      double[] momenta) {
        AtomicSystem s = new AtomicSystem(id, positions, masses, numbers, Cell.of(cell, pbc));
        if (momenta != null) {
            for (int i = 0; i < momenta.length; i++) {
                s.velocities()[i] = momenta[i] / masses[i / 3];
            }
        }
        return s;
    }

    /// The model `potential` names (`simulate --potential`'s syntax), made once.
    public static Model model(String potential) {
        return PipelineSpec.potential(potential).get();
    }

    /// Evaluates `system` under `model` (its energy, forces and the virial — asked for, so that
    /// every model gives ASE its stress — written into it); a system the model can never evaluate
    /// is refused, naming why.
    public static void evaluate(Model model, AtomicSystem system) {
        String refusal = model.refusal(system);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        model.compute(system, null, true);
    }

    /// Runs `pipeline` over `potential` on `systems` as `penstock simulate` runs it locally
    /// (the CPU device, its kernels on `threads` threads; `seed` keys the Langevin noise; a system
    /// with an atom moving more than `maxStep` Å in a step is quarantined; batches of at most
    /// `maxSystems` systems and `maxAtoms` atoms, refilled every `refillEvery` steps). Returns
    /// every system in input order: finished ones and quarantined ones (info `outcome`,
    /// `quarantined`), none dropped.
    public static List<AtomicSystem> run(List<AtomicSystem> systems, String pipeline, String potential, int threads, long seed,
                                         double maxStep, int maxSystems, long maxAtoms, int refillEvery) throws Exception {
        dev.penstock.stage.MemorySink<AtomicSystem> results = dev.penstock.stage.MemorySink.unbounded("memory");
        Summary<AtomicSystem> summary = pipeline(systems, pipeline, potential, threads, seed, maxStep, maxSystems, maxAtoms, refillEvery,
                results, null);
        List<AtomicSystem> done = new ArrayList<>(results.samples());
        for (Event<AtomicSystem> q : summary.quarantined()) {
            done.add(q.sample());
        }
        Map<Long, Integer> position = new java.util.HashMap<>();
        for (int k = 0; k < systems.size(); k++) {
            position.put(systems.get(k).id(), k);
        }
        done.sort(java.util.Comparator.comparingInt(s -> position.getOrDefault(s.id(), Integer.MAX_VALUE)));
        return done;
    }

    /// The same run on a daemon thread of its own, each system handed over as it finishes or is
    /// quarantined (in-flight order) through `next()`; at most `ahead` wait to be taken (the
    /// pipeline waits for the consumer).
    public static Handover<AtomicSystem> start(List<AtomicSystem> systems, String pipeline, String potential, int threads, long seed,
                                               double maxStep, int maxSystems, long maxAtoms, int refillEvery, int ahead) {
        check(pipeline, potential);
        return new Handover<>("penstock-simulate", ahead, into -> pipeline(systems, pipeline, potential, threads, seed, maxStep,
                maxSystems, maxAtoms, refillEvery, new Sink<>() {
                    @Override
                    public boolean offer(AtomicSystem s) throws InterruptedException {
                        into.put(s);
                        return true;
                    }

                    @Override
                    public String name() {
                        return "python";
                    }

                    @Override
                    public long held() {
                        return 0;
                    }
                }, into));
    }

    private static void check(String pipeline, String potential) {
        for (List<PipelineSpec.Call> fused : PipelineSpec.parse(pipeline)) {
            for (PipelineSpec.Call c : fused) {
                PipelineSpec.check(c);
            }
        }
        PipelineSpec.potential(potential);
    }

    /// The pipeline `penstock simulate` builds for these options, run into `results`; quarantined
    /// systems also go to `quarantined` as they happen (when given).
    private static Summary<AtomicSystem> pipeline(List<AtomicSystem> systems, String pipeline, String potential, int threads, long seed,
                                                  double maxStep, int maxSystems, long maxAtoms, int refillEvery, Sink<AtomicSystem> results,
                                                  Handover<AtomicSystem> quarantined) throws Exception {
        check(pipeline, potential);
        List<List<PipelineSpec.Call>> stages = PipelineSpec.parse(pipeline);
        Supplier<? extends Model> model = PipelineSpec.potential(potential);
        dev.penstock.stage.Hook<AtomicSystem> toPython = new dev.penstock.stage.Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) throws InterruptedException {
                if (quarantined != null && e.kind() == Event.Kind.QUARANTINED) {
                    quarantined.put(e.sample());
                }
            }
        };
        return DeviceStages.runLocal(systems, stages, model, threads, seed, maxStep, maxSystems, maxAtoms, refillEvery, results, toPython);
    }
}
