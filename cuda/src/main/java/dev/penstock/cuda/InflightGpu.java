package dev.penstock.cuda;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.PackedRelax;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// `bench gpu`'s in-flight FIRE relaxation: the `inflight` clusters (docs/workloads.md; 2,048 of
/// 13–147 atoms, LJ cut at 2.5σ, fmax 0.01, budget 2,000 steps) relaxed as one packed batch on
/// `cuda:0` (`PackedRelax` + `CudaRelaxKernels`), refilled as systems converge, and the same
/// systems on `CpuDevice` (`CpuRelaxKernels` on every core) in the same run: systems/s and
/// atom-steps/s of each, their ratio, and the agreement — the largest relative energy
/// difference and how many systems took another number of steps (targets 1e-10 and 0).
final class InflightGpu {
    private static final LennardJones LJ = new LennardJones(1, 1, 2.5, true);
    private static final Convergence RULE = Convergence.of(0.01, 2000);

    private InflightGpu() {
    }

    /// Runs both sides on `device` and puts the figures into `f`.
    static void run(CudaDevice device, PrintStream out, Map<String, String> f, boolean quick) {
        int clusters = quick ? 48 : 2048;
        int maxSystems = quick ? 16 : 4096;
        int maxAtoms = quick ? 1200 : 1 << 18;
        List<AtomicSystem> onGpu = Clusters.inflight(clusters, 2026);
        List<PackedRelax.Outcome> gpu;
        PackedRelax.Figures gpuFigures;
        try (PackedRelax r = new PackedRelax(device, new CudaRelaxKernels(device), LJ, RULE, maxSystems, maxAtoms)) {
            if (!quick) {
                r.relax(Clusters.inflight(256, 2026)); // warm-up: the driver's JIT of the PTX, first launches
            }
            gpu = r.relax(onGpu);
            gpuFigures = r.figures();
        }
        List<AtomicSystem> onCpu = Clusters.inflight(clusters, 2026);
        int threads = Runtime.getRuntime().availableProcessors();
        List<PackedRelax.Outcome> cpu;
        PackedRelax.Figures cpuFigures;
        try (CpuDevice cpuDevice = new CpuDevice();
             PackedRelax r = new PackedRelax(cpuDevice, CpuRelaxKernels.summingPairs(threads), LJ, RULE, maxSystems, maxAtoms)) {
            if (!quick) {
                r.relax(Clusters.inflight(256, 2026)); // warm-up: the JIT
            }
            cpu = r.relax(onCpu);
            cpuFigures = r.figures();
        }
        double maxRel = 0;
        int stepsDiffer = 0;
        for (int k = 0; k < clusters; k++) {
            PackedRelax.Outcome g = gpu.get(k);
            PackedRelax.Outcome c = cpu.get(k);
            maxRel = Math.max(maxRel, Math.abs(g.energy() - c.energy()) / Math.abs(c.energy()));
            stepsDiffer += g.steps() == c.steps() ? 0 : 1;
        }
        double gpuSeconds = gpuFigures.nanos() / 1e9;
        double cpuSeconds = cpuFigures.nanos() / 1e9;
        out.printf(Locale.ROOT, "in-flight FIRE, %d clusters: %s %.3f s (%d batch steps), cpu (%d threads) %.3f s; max rel energy diff %.3g, "
                + "%d systems with other step counts%n", clusters, device.name(), gpuSeconds, gpuFigures.batchSteps(), threads, cpuSeconds,
                maxRel, stepsDiffer);
        f.put("inflight_cuda_systems_per_s", String.format(Locale.ROOT, "%.0f", clusters / gpuSeconds));
        f.put("inflight_cuda_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", gpuFigures.atomStepsPerSecond()));
        f.put("inflight_cuda_batch_steps", Long.toString(gpuFigures.batchSteps()));
        f.put("inflight_cpu_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", cpuFigures.atomStepsPerSecond()));
        f.put("inflight_cpu_threads", Integer.toString(threads));
        f.put("ratio_inflight_cuda_vs_cpu", String.format(Locale.ROOT, "%.3f", cpuSeconds / gpuSeconds));
        f.put("inflight_cuda_max_rel_energy_diff", maxRel == 0 ? "0" : String.format(Locale.ROOT, "%.3g", maxRel));
        f.put("inflight_cuda_steps_differ", Integer.toString(stepsDiffer));
    }
}
