package dev.penstock.atoms.device;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Device;
import dev.penstock.stage.BatchEngine;
import dev.penstock.stage.Evaluator;
import dev.penstock.stage.Method;
import dev.penstock.stage.Pipeline;
import dev.penstock.stage.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/// Pipeline stages whose batch lives on a `Device`: `fire`, `fire_mw`, `fire2`, `nve` and `langevin` stages over
/// any model — on the CPU's kernels every model (Lennard-Jones and Morse too) evaluated over each
/// system's packed rows (`ModelTerms`); on kernels that sum pairs (CUDA's) Lennard-Jones and Morse
/// by their pair kernels — as `PackedStage` engines (the systems packed in the device's memory,
/// batch kernels). What `simulate` builds for every stage.
public final class DeviceStages {
    /// The most atoms a device stage's batch is allocated for.
    public static final long MAX_ATOMS = 1L << 26;

    private DeviceStages() {
    }

    /// A device stage's method: its name (in reports and events) and whether its systems are sure
    /// to finish. Its systems are moved by the stage's batch kernels (`SubStage`), never one by one.
    private record Named(String name, boolean terminates) implements Method<AtomicSystem> {
        @Override
        public Motion enter(AtomicSystem s) {
            throw new IllegalStateException("stage '" + name + "': a device stage's systems are moved by its batch kernels");
        }
    }

    /// A FIRE (ASE-exact) stage under `rule` over `model` with its batch on `device`, stepped by
    /// the kernels `kernels` makes for it (one set per batch). Its room is the pipeline's batch
    /// capacity, which must bound the atoms (the device columns are allocated to it). Periodic
    /// systems (any cell, orthorhombic or triclinic, however short against the cutoff) take
    /// their pairs over the images `CellImages` picks; its evaluator refuses, before the run, a
    /// system larger than the batch or a periodic one under a potential without a cutoff.
    public static Stage<AtomicSystem> fire(Convergence rule, Model model, Device device, Function<Device, RelaxKernels> kernels) {
        return stage(new SubStage.Relaxation(rule), new Named("fire", true), model, device, kernels, Double.POSITIVE_INFINITY);
    }

    /// A velocity Verlet (NVE) stage of `steps` steps of `dt` (τ) over `model` on `device`; as `fire`.
    public static Stage<AtomicSystem> nve(double dt, long steps, Model model, Device device, Function<Device, RelaxKernels> kernels) {
        return stage(new SubStage.Verlet(dt, steps), new Named("nve", steps >= 0), model, device, kernels, Double.POSITIVE_INFINITY);
    }

    /// As `nve`, quarantining a system with an atom that moves more than `maxStep` Å in one step
    /// (checked by the step kernel: a time step far too large, atoms flung apart).
    public static Stage<AtomicSystem> nve(double dt, long steps, Model model, Device device, Function<Device, RelaxKernels> kernels,
                                          double maxStep) {
        return stage(new SubStage.Verlet(dt, steps), new Named("nve", steps >= 0), model, device, kernels, maxStep);
    }

    /// A Nosé–Hoover chain (NVT) stage (`SubStage.NoseHoover`: LAMMPS's `fix nvt`) over `model` on
    /// `device`; kernels without its steps (`RelaxKernels.noseHoover()`) are refused when the
    /// stage's batch is made.
    public static Stage<AtomicSystem> nvt(SubStage.NoseHoover nh, Model model, Device device, Function<Device, RelaxKernels> kernels,
                                          double maxStep) {
        return stage(nh, new Named("nvt", nh.steps() >= 0), model, device, kernels, maxStep);
    }

    /// An MTK barostat stage (`SubStage.Barostat`: LAMMPS's `fix npt`, or `fix nph`) over `model` on
    /// `device`; kernels without its steps (`RelaxKernels.barostat()`) are refused when the stage's
    /// batch is made, a system it cannot take (`SubStage.refusal`) before the run.
    public static Stage<AtomicSystem> barostat(SubStage.Barostat b, Model model, Device device, Function<Device, RelaxKernels> kernels,
                                               double maxStep) {
        return stage(b, new Named(b.name(), b.steps() >= 0), model, device, kernels, maxStep);
    }

    /// A Langevin BAOAB (NVT) stage of `steps` steps of `dt` (τ) at `kT` (eV) with friction
    /// `gamma` (1/τ), noise keyed by `seed`, over `model` on `device` — the per-system stage's
    /// trajectories (`Langevin`); kernels without a Langevin step (`RelaxKernels.langevin()`)
    /// are refused when the stage's batch is made.
    public static Stage<AtomicSystem> langevin(double dt, double kT, double gamma, long seed, long steps, Model model, Device device,
                                               Function<Device, RelaxKernels> kernels, double maxStep) {
        return stage(new SubStage.Thermostat(dt, kT, gamma, seed, steps), new Named("langevin", steps >= 0), model, device, kernels, maxStep);
    }

    private static Stage<AtomicSystem> stage(SubStage kind, Method<AtomicSystem> method, Model model, Device device,
                                             Function<Device, RelaxKernels> kernels, double maxStep) {
        return fused(List.of(kind), List.of(method), model, device.name(), () -> device, false, kernels, maxStep);
    }

    /// One device stage of the sub-stages `kinds` (moving as `methods` do on the per-system
    /// stages, whose names they take), fused around one shared evaluation.
    /// Each batch's device is `devices.get()` (named `deviceName`), closed with the batch if `owned`.
    private static Stage<AtomicSystem> fused(List<SubStage> kinds, List<Method<AtomicSystem>> methods, Model model,
                                             String deviceName, Supplier<? extends Device> devices, boolean owned,
                                             Function<Device, RelaxKernels> kernels, double maxStep) {
        Evaluator<AtomicSystem> evaluator = new Evaluator<>() {
            @Override
            public void evaluate(List<AtomicSystem> samples, Failures<AtomicSystem> failures) {
                throw new IllegalStateException("a device stage's systems are evaluated by its batch kernels");
            }

            @Override
            public String refusal(AtomicSystem s) {
                String r = CellImages.refusal(s, model.cutoff());
                for (int k = 0; r == null && k < kinds.size(); k++) {
                    r = kinds.get(k).refusal(s);
                }
                return r != null ? r : model.refusal(s);
            }
        };
        BatchEngine.Factory<AtomicSystem> factory = (stage, sizer, capacity) -> {
            int systemsDim = sizer.dimensions().indexOf("systems");
            int atomsDim = sizer.dimensions().indexOf("atoms");
            if (systemsDim < 0 || atomsDim < 0) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' on " + deviceName + ": the sizer has no systems and atoms "
                        + "dimensions (" + sizer.dimensions() + ")");
            }
            long atoms = capacity.limit(atomsDim);
            if (atoms > MAX_ATOMS) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' on " + deviceName + ": its batch needs a bound on atoms "
                        + "of at most " + MAX_ATOMS + " (the device columns are allocated to it), got " + atoms);
            }
            int systems = (int) Math.min(capacity.limit(systemsDim), atoms);
            List<String> names = stage.methods().stream().map(Method::name).toList();
            Device d = devices.get();
            try {
                PackedStage batch = new PackedStage(d, kernels.apply(d), model, kinds, names, sizer, capacity, systems, (int) atoms).maxStep(maxStep);
                return owned ? batch.owning(d) : batch;
            } catch (RuntimeException e) {
                if (owned) {
                    d.close();
                }
                throw e;
            }
        };
        Stage<AtomicSystem> stage = null;
        for (Method<AtomicSystem> m : methods) {
            Stage<AtomicSystem> one = Stage.of(evaluator, m);
            stage = stage == null ? one : stage.fuse(one);
        }
        return stage.onDevice(factory);
    }

    /// The stage of one chained `PipelineSpec` stage (`calls`, fused: `fire + nve` is one stage
    /// whose systems pass from FIRE to NVE inside one batch) on `device`: each call a `fire`, `fire_mw`, `fire2`,
    /// `nve` or `langevin` (noise keyed by `seed`) over `model`: Lennard-Jones and Morse on any kernels, any other
    /// model on kernels that run it (`RelaxKernels.runs`: the CPU's any, CUDA's EAM); anything else is refused, naming it (a model or
    /// `langevin` the kernels cannot run, when the batch is made). A system with an atom
    /// that moves more than `maxStep` Å in one step is quarantined (+∞: never).
    public static Stage<AtomicSystem> stage(List<PipelineSpec.Call> calls, Model model, Device device, Function<Device, RelaxKernels> kernels,
                                            double maxStep, long seed) {
        return stage(calls, model, device.name(), () -> device, false, kernels, maxStep, seed);
    }

    /// The pipeline of `stages` (`PipelineSpec.parse`'s chained stages) with every stage's batch on
    /// `device`, each stage over its own `model.get()`, as the `stage` above: what `penstock
    /// simulate` runs locally, and the Python package's `penstock.atoms.simulate`.
    public static Pipeline<AtomicSystem> pipeline(List<List<PipelineSpec.Call>> stages, Supplier<? extends Model> model, Device device,
                                                  Function<Device, RelaxKernels> kernels, double maxStep, long seed) {
        Pipeline<AtomicSystem> p = null;
        for (List<PipelineSpec.Call> fused : stages) {
            Stage<AtomicSystem> stage = stage(fused, model.get(), device, kernels, maxStep, seed);
            p = p == null ? Pipeline.of(stage) : p.then(stage);
        }
        return p;
    }

    /// `p` fed `systems` in batches as `penstock simulate` feeds them (and the Python package's
    /// `simulate`): each system sized by its neighbour list at `model`'s cutoff, a batch at most
    /// `maxSystems` systems, `maxAtoms` atoms and `maxEdges` pairs, refilled every `refillEvery`
    /// steps. Returns `p`.
    public static Pipeline<AtomicSystem> batched(Pipeline<AtomicSystem> p, Model model, List<AtomicSystem> systems, long maxSystems,
                                                 long maxAtoms, long maxEdges, int refillEvery) {
        return p.sizer(dev.penstock.atoms.stage.Systems.withListRadius(model.cutoff()))
                .batchCapacity(dev.penstock.stage.Capacity.of(maxSystems, maxAtoms, maxEdges)).samples(systems).refillEvery(refillEvery);
    }

    /// Runs `stages` (`PipelineSpec.parse`'s) over `systems` as `penstock simulate` runs them
    /// locally on the CPU device — each stage's batch methods on `CpuRelaxKernels(threads)`, the
    /// model `model.get()` per stage, `batched` as the command batches (no pair limit), every
    /// system's `History` recorded — into `results`, with `hooks` too; returns the summary. What
    /// the Python package's `simulate` and the atomistic benchmarks run.
    @SafeVarargs
    public static dev.penstock.stage.Summary<AtomicSystem> runLocal(List<AtomicSystem> systems, List<List<PipelineSpec.Call>> stages,
                                                                      Supplier<? extends Model> model, int threads, long seed, double maxStep,
                                                                      long maxSystems, long maxAtoms, int refillEvery,
                                                                      dev.penstock.stage.Sink<AtomicSystem> results,
                                                                      dev.penstock.stage.Hook<AtomicSystem>... hooks) throws Exception {
        systems.forEach(dev.penstock.atoms.stage.History::fresh);
        try (dev.penstock.device.CpuDevice device = new dev.penstock.device.CpuDevice();
             Pipeline<AtomicSystem> run = pipeline(stages, model, device, d -> new CpuRelaxKernels(threads), maxStep, seed)) {
            batched(run, model.get(), systems, maxSystems, maxAtoms, Long.MAX_VALUE, refillEvery).hook(dev.penstock.atoms.stage.History.hook(
                    stage -> { }));
            for (var h : hooks) {
                run.hook(h);
            }
            run.check();
            return run.results(results).run();
        }
    }

    /// The stage of `text`, one chained stage in `simulate --pipeline`'s syntax (`"fire(fmax=0.005) +
    /// langevin(T=40, dt=5, steps=2000)"`: calls joined by `+`, no `|`), as the `stage` above; a
    /// text that is not one stage is refused, naming it.
    public static Stage<AtomicSystem> stage(String text, Model model, Device device, Function<Device, RelaxKernels> kernels, double maxStep,
                                            long seed) {
        List<List<PipelineSpec.Call>> stages = PipelineSpec.parse(text);
        if (stages.size() != 1) {
            throw new IllegalArgumentException("'" + text + "' is " + stages.size() + " chained stages; give one (calls joined by '+') "
                    + "and chain the stages with Stage.then");
        }
        for (PipelineSpec.Call c : stages.getFirst()) {
            PipelineSpec.check(c); // every argument checked, naming it
        }
        return stage(stages.getFirst(), model, device, kernels, maxStep, seed);
    }

    /// As the other `stage`, every batch on a device of its own, made by `devices` (named
    /// `deviceName`) and closed with the batch: the stages of a Flink job, made on each task.
    public static Stage<AtomicSystem> stage(List<PipelineSpec.Call> calls, Model model, String deviceName, Supplier<? extends Device> devices,
                                            Function<Device, RelaxKernels> kernels, double maxStep, long seed) {
        return stage(calls, model, deviceName, devices, true, kernels, maxStep, seed);
    }

    private static Stage<AtomicSystem> stage(List<PipelineSpec.Call> calls, Model model, String deviceName, Supplier<? extends Device> devices,
                                             boolean owned, Function<Device, RelaxKernels> kernels, double maxStep, long seed) {
        List<SubStage> kinds = new ArrayList<>();
        List<Method<AtomicSystem>> methods = new ArrayList<>();
        for (PipelineSpec.Call c : calls) {
            switch (c.name()) {
                case "fire", "fire_mw" -> {
                    Convergence rule = PipelineSpec.convergence(c);
                    boolean massWeighted = c.name().equals("fire_mw");
                    kinds.add(new SubStage.Relaxation(rule, massWeighted));
                    methods.add(new Named(massWeighted ? "fire-mw" : "fire", true));
                }
                case "fire2" -> {
                    Convergence rule = PipelineSpec.convergence(c);
                    kinds.add(new SubStage.Fire2Relaxation(rule));
                    methods.add(new Named("fire2", true));
                }
                case "nve" -> {
                    PipelineSpec.Verlet v = PipelineSpec.verlet(c);
                    kinds.add(new SubStage.Verlet(v.dt(), v.steps()));
                    methods.add(new Named("nve", v.steps() >= 0));
                }
                case "langevin" -> {
                    PipelineSpec.Thermostat t = PipelineSpec.langevin(c);
                    kinds.add(new SubStage.Thermostat(t.dt(), t.kT(), t.gamma(), seed, t.steps()));
                    methods.add(new Named("langevin", t.steps() >= 0));
                }
                case "nvt" -> {
                    PipelineSpec.NoseHoover t = PipelineSpec.noseHoover(c);
                    kinds.add(new SubStage.NoseHoover(t.dt(), t.kT(), t.tdamp(), t.chain(), t.tloop(), t.steps()));
                    methods.add(new Named("nvt", t.steps() >= 0));
                }
                case "fire_cell", "fire2_cell" -> {
                    SubStage.CellRelaxation r = PipelineSpec.cellRelaxation(c);
                    kinds.add(r);
                    methods.add(new Named(r.name(), true));
                }
                case "npt", "nph" -> {
                    SubStage.Barostat b = PipelineSpec.barostat(c);
                    kinds.add(b);
                    methods.add(new Named(c.name(), b.steps() >= 0));
                }
                // PipelineSpec.check refuses any other name first; a method added there lands here
                default -> throw new IllegalArgumentException("--device " + deviceName + " has no '" + c.name() + "' step; run stage '"
                        + String.join(" + ", calls.stream().map(PipelineSpec.Call::name).toList()) + "' with --device cpu");
            }
        }
        return fused(kinds, methods, model, deviceName, devices, owned, kernels, maxStep);
    }
}
