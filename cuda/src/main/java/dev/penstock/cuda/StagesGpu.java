package dev.penstock.cuda;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/// `bench gpu`'s fused stage: the `inflight` clusters through one device stage of
/// `fire + langevin + nve` (FIRE to fmax 0.01, then 100 Langevin and 100 NVE steps, each system
/// routed by its sub-stage column, one shared evaluation per step) on `cuda:0` and on `CpuDevice`
/// (every core, the kernels `simulate` runs there) in the same run: wall time of each, their
/// ratio, and the agreement — the largest relative energy difference and how many systems took
/// another number of steps in any sub-stage. The CUDA kernels sum pairs in their own order and the
/// CPU's model in its own, so the energies agree to rounding, not bit for bit (the emulation
/// checks hold the kernels bit for bit to their CPU twin, in the tests).
final class StagesGpu {
    private static final String STAGE = "fire(fmax=0.01, steps=2000) + langevin(T=300, dt=0.05, steps=100, friction=0.05) "
            + "+ nve(dt=0.05, steps=100)";

    private StagesGpu() {
    }

    /// One side's run: wall time, each system's final energy and steps per sub-stage, atom-steps.
    record Run(double seconds, Map<Long, Double> energy, Map<Long, String> steps, long atomSteps) {
        /// The largest relative difference of a system's final energy from `other`'s (∞ if a
        /// system is missing from either).
        double maxRelativeEnergyDiff(Run other) {
            double maxRel = energy.size() == other.energy.size() ? 0 : Double.POSITIVE_INFINITY;
            for (Map.Entry<Long, Double> e : other.energy.entrySet()) {
                Double g = energy.get(e.getKey());
                maxRel = Math.max(maxRel, g == null ? Double.POSITIVE_INFINITY : Math.abs(g - e.getValue()) / Math.abs(e.getValue()));
            }
            return maxRel;
        }

        /// How many systems took other step counts than in `other`.
        int stepsDiffer(Run other) {
            int differ = 0;
            for (Map.Entry<Long, String> e : other.steps.entrySet()) {
                differ += e.getValue().equals(steps.get(e.getKey())) ? 0 : 1;
            }
            return differ;
        }
    }

    /// `systems` through one device stage of `stage` (LJ cut at 2.5σ) on `device`, in batches of
    /// up to `maxAtoms` atoms, as `simulate` runs it.
    static Run run(String stage, Device device, Function<Device, RelaxKernels> kernels, List<AtomicSystem> systems, long maxAtoms) {
        Map<Long, String> steps = new HashMap<>();
        Hook<AtomicSystem> count = new Hook<>() {
            @Override
            public void onEvent(int stage, Event<AtomicSystem> e) {
                if (e.kind() == Event.Kind.GRADUATED || e.kind() == Event.Kind.EXITED) {
                    steps.merge(e.sample().id(), e.method() + ":" + e.steps(), (a, b) -> a + " " + b);
                }
            }
        };
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("stages");
        long atomSteps;
        long t0 = System.nanoTime();
        try (Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.stage(PipelineSpec.parse(stage).getFirst(), new LennardJones(1, 1, 2.5, true),
                device, kernels, Double.POSITIVE_INFINITY, 11)).sizer(Systems.withListRadius(2.5))
                .batchCapacity(Capacity.of(Long.MAX_VALUE, maxAtoms, Long.MAX_VALUE)).samples(systems).results(sink).hook(count)) {
            atomSteps = p.run().stages().getFirst().sampleSteps()[Systems.ATOMS];
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<Long, Double> energy = new HashMap<>();
        for (AtomicSystem s : sink.samples()) {
            energy.put(s.id(), s.energy());
        }
        return new Run(seconds, energy, steps, atomSteps);
    }

    /// Runs both sides on `device` and puts the figures into `f`.
    static void run(CudaDevice device, PrintStream out, Map<String, String> f, boolean quick) {
        int clusters = quick ? 48 : 2048;
        long maxAtoms = quick ? 1200 : 1 << 18;
        int threads = Runtime.getRuntime().availableProcessors();
        if (!quick) {
            run(STAGE, device, d -> new CudaRelaxKernels(device), Clusters.inflight(256, 2026), maxAtoms); // warm-up: the PTX's JIT
        }
        Run gpu = run(STAGE, device, d -> new CudaRelaxKernels(device), Clusters.inflight(clusters, 2026), maxAtoms);
        Run cpu;
        try (CpuDevice cpuDevice = new CpuDevice()) {
            if (!quick) {
                run(STAGE, cpuDevice, d -> new CpuRelaxKernels(threads), Clusters.inflight(256, 2026), maxAtoms); // warm-up: the JIT
            }
            cpu = run(STAGE, cpuDevice, d -> new CpuRelaxKernels(threads), Clusters.inflight(clusters, 2026), maxAtoms);
        }
        double maxRel = gpu.maxRelativeEnergyDiff(cpu);
        int stepsDiffer = gpu.stepsDiffer(cpu);
        out.printf(Locale.ROOT, "fused fire + langevin + nve, %d clusters: %s %.3f s, cpu (%d threads) %.3f s; max rel energy diff %.3g, "
                + "%d systems with other step counts%n", clusters, device.name(), gpu.seconds(), threads, cpu.seconds(), maxRel, stepsDiffer);
        f.put("stages_cuda_wall_s", String.format(Locale.ROOT, "%.3f", gpu.seconds()));
        f.put("stages_cpu_wall_s", String.format(Locale.ROOT, "%.3f", cpu.seconds()));
        f.put("ratio_stages_cuda_vs_cpu", String.format(Locale.ROOT, "%.3f", cpu.seconds() / gpu.seconds()));
        f.put("stages_cuda_max_rel_energy_diff", maxRel == 0 ? "0" : String.format(Locale.ROOT, "%.3g", maxRel));
        f.put("stages_cuda_steps_differ", Integer.toString(stepsDiffer));
    }
}
