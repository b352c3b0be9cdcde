package dev.penstock.cuda;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.system.Clusters;
import dev.penstock.device.CpuDevice;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/// `bench gpu`'s in-flight FIRE relaxation: the `inflight` clusters (2,048 of 13–147 atoms, LJ
/// cut at 2.5σ, fmax 0.01, budget 2,000 steps) through one `fire` device stage, refilled as
/// systems converge, on `cuda:0` (`CudaRelaxKernels`) and on `CpuDevice` (`CpuRelaxKernels` on
/// every core, what `simulate` runs there) in the same run: systems/s and atom-steps/s of each,
/// their ratio, and the agreement — the largest relative energy difference and how many systems
/// took another number of steps (the two sum pairs in their own orders: rounding apart).
final class InflightGpu {
    private static final String STAGE = "fire(fmax=0.01, steps=2000)";

    private InflightGpu() {
    }

    /// Runs both sides on `device` and puts the figures into `f`.
    static void run(CudaDevice device, PrintStream out, Map<String, String> f, boolean quick) {
        int clusters = quick ? 48 : 2048;
        long maxAtoms = quick ? 1200 : 1 << 18;
        if (!quick) {
            StagesGpu.run(STAGE, device, d -> new CudaRelaxKernels(device), Clusters.inflight(256, 2026), maxAtoms); // warm-up: the PTX's JIT
        }
        StagesGpu.Run gpu = StagesGpu.run(STAGE, device, d -> new CudaRelaxKernels(device), Clusters.inflight(clusters, 2026), maxAtoms);
        int threads = Runtime.getRuntime().availableProcessors();
        StagesGpu.Run cpu;
        try (CpuDevice cpuDevice = new CpuDevice()) {
            if (!quick) {
                StagesGpu.run(STAGE, cpuDevice, d -> new CpuRelaxKernels(threads), Clusters.inflight(256, 2026), maxAtoms); // warm-up: the JIT
            }
            cpu = StagesGpu.run(STAGE, cpuDevice, d -> new CpuRelaxKernels(threads), Clusters.inflight(clusters, 2026), maxAtoms);
        }
        double maxRel = gpu.maxRelativeEnergyDiff(cpu);
        int stepsDiffer = gpu.stepsDiffer(cpu);
        out.printf(Locale.ROOT, "in-flight FIRE, %d clusters: %s %.3f s, cpu (%d threads) %.3f s; max rel energy diff %.3g, "
                + "%d systems with other step counts%n", clusters, device.name(), gpu.seconds(), threads, cpu.seconds(), maxRel, stepsDiffer);
        f.put("inflight_cuda_systems_per_s", String.format(Locale.ROOT, "%.0f", clusters / gpu.seconds()));
        f.put("inflight_cuda_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", gpu.atomSteps() / gpu.seconds()));
        f.put("inflight_cpu_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", cpu.atomSteps() / cpu.seconds()));
        f.put("inflight_cpu_threads", Integer.toString(threads));
        f.put("ratio_inflight_cuda_vs_cpu", String.format(Locale.ROOT, "%.3f", cpu.seconds() / gpu.seconds()));
        f.put("inflight_cuda_max_rel_energy_diff", maxRel == 0 ? "0" : String.format(Locale.ROOT, "%.3g", maxRel));
        f.put("inflight_cuda_steps_differ", Integer.toString(stepsDiffer));
    }
}
