package dev.penstock.atoms.device;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.Methods;
import dev.penstock.atoms.stage.ModelEvaluator;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Device;
import dev.penstock.stage.BatchEngine;
import dev.penstock.stage.Evaluator;
import dev.penstock.stage.Stage;
import java.util.List;
import java.util.function.Function;

/// Pipeline stages whose batch lives on a `Device`: a `fire` stage over a Lennard-Jones model
/// as a `PackedFire` engine (the systems packed in the device's memory, batch kernels). What
/// `simulate --device` builds.
public final class DeviceStages {
    private DeviceStages() {
    }

    /// A FIRE (ASE-exact) stage under `rule` over `model` with its batch on `device`, stepped by
    /// the kernels `kernels` makes for it (one set per batch). Its room is the pipeline's batch
    /// capacity, which must bound the atoms (the device columns are allocated to it). Its
    /// evaluator refuses, before the run, periodic systems (the kernels sum all pairs).
    public static Stage<AtomicSystem> fire(Convergence rule, LennardJones model, Device device, Function<Device, RelaxKernels> kernels) {
        ModelEvaluator inner = new ModelEvaluator(model);
        Evaluator<AtomicSystem> evaluator = new Evaluator<>() {
            @Override
            public void evaluate(List<AtomicSystem> samples, Failures<AtomicSystem> failures) {
                throw new IllegalStateException("a device stage's systems are evaluated by its batch kernels");
            }

            @Override
            public String refusal(AtomicSystem s) {
                String r = PackedFire.refusal(s);
                return r != null ? r : inner.refusal(s);
            }
        };
        BatchEngine.Factory<AtomicSystem> factory = (stage, sizer, capacity) -> {
            int systemsDim = sizer.dimensions().indexOf("systems");
            int atomsDim = sizer.dimensions().indexOf("atoms");
            if (systemsDim < 0 || atomsDim < 0) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' on " + device.name() + ": the sizer has no systems and atoms "
                        + "dimensions (" + sizer.dimensions() + ")");
            }
            long atoms = capacity.limit(atomsDim);
            if (atoms > MAX_ATOMS) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' on " + device.name() + ": its batch needs a bound on atoms "
                        + "of at most " + MAX_ATOMS + " (the device columns are allocated to it), got " + atoms);
            }
            int systems = (int) Math.min(capacity.limit(systemsDim), atoms);
            return new PackedFire(device, kernels.apply(device), model, rule, stage.name(), sizer, capacity, systems, (int) atoms);
        };
        return Stage.of(evaluator, Methods.fire(rule)).onDevice(factory);
    }

    /// The most atoms a device stage's batch is allocated for.
    public static final long MAX_ATOMS = 1L << 26;

    /// The stage of one chained `PipelineSpec` stage (`calls`, fused) on `device`: a single
    /// `fire` call over a Lennard-Jones `model`; anything else is refused, naming it.
    public static Stage<AtomicSystem> stage(List<PipelineSpec.Call> calls, Model model, Device device, Function<Device, RelaxKernels> kernels) {
        if (calls.size() != 1 || !calls.getFirst().name().equals("fire")) {
            throw new IllegalArgumentException("--device " + device.name() + " runs stages of one 'fire' call (ASE-exact FIRE) for now; "
                    + "stage '" + String.join(" + ", calls.stream().map(PipelineSpec.Call::name).toList()) + "' needs the CPU stage (no --device)");
        }
        if (!(model instanceof LennardJones lj)) {
            throw new IllegalArgumentException("--device " + device.name() + " runs the Lennard-Jones potential (lj) for now; the potential "
                    + "given needs the CPU stage (no --device)");
        }
        return fire(PipelineSpec.convergence(calls.getFirst()), lj, device, kernels);
    }
}
