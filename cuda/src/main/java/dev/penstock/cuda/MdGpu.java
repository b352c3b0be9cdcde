package dev.penstock.cuda;

import dev.penstock.atoms.device.CpuRelaxKernels;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.device.RelaxKernels;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.stage.Systems;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.stage.Capacity;
import dev.penstock.stage.MemorySink;
import dev.penstock.stage.Pipeline;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/// `bench gpu`'s large system: the LJ liquid of LAMMPS's bench/in.lj (reduced units, density
/// 0.8442, T 1.44, cutoff 2.5σ unshifted, dt 0.005τ) — 32,000 atoms on an fcc lattice with seeded
/// Maxwell velocities — through a device stage of 100 NVE steps on `cuda:0` (one system of the
/// batch, summed over the GPU's Verlet lists built from bins, `relax.cu`) and on `CpuDevice`
/// (`CpuRelaxKernels`, every core: what `simulate` runs there) in the same run: atom-steps/s of
/// each, their ratio, and the agreement, `md_cuda_rel_energy_diff` (rounding: the two sum pairs in
/// their own orders). The whole stage is timed — admission, the first evaluation and the
/// read-back included — after a warm-up.
final class MdGpu {
    private static final double DENSITY = 0.8442;
    private static final double TEMPERATURE = 1.44;

    private MdGpu() {
    }

    /// `cells`³ fcc cells at the liquid's density, velocities drawn at its temperature (zero
    /// total momentum), seeded.
    static AtomicSystem liquid(int cells) {
        double a = Math.cbrt(4 / DENSITY);
        int n = 4 * cells * cells * cells;
        double[] r = new double[3 * n];
        double[][] basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
        int p = 0;
        for (int x = 0; x < cells; x++) {
            for (int y = 0; y < cells; y++) {
                for (int z = 0; z < cells; z++) {
                    for (double[] b : basis) {
                        r[p++] = a * (x + b[0]);
                        r[p++] = a * (y + b[1]);
                        r[p++] = a * (z + b[2]);
                    }
                }
            }
        }
        double[] m = new double[n];
        Arrays.fill(m, 1);
        double side = a * cells;
        AtomicSystem s = new AtomicSystem(1, r, m, new int[n], new double[] {side, side, side}, new boolean[] {true, true, true});
        SplittableRandom rnd = new SplittableRandom(87287);
        double[] v = s.velocities();
        double[] total = new double[3];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sqrt(TEMPERATURE) * rnd.nextGaussian();
            total[i % 3] += v[i];
        }
        for (int i = 0; i < v.length; i++) {
            v[i] -= total[i % 3] / n;
        }
        return s;
    }

    private record Run(double seconds, double energy) {
    }

    private static Run run(Device device, Function<Device, RelaxKernels> kernels, int cells, int steps) {
        AtomicSystem s = liquid(cells);
        MemorySink<AtomicSystem> sink = MemorySink.unbounded("md");
        long t0 = System.nanoTime();
        try (Pipeline<AtomicSystem> p = Pipeline.of(DeviceStages.nve(0.005, steps, new LennardJones(1, 1, 2.5, false), device, kernels))
                .sizer(Systems.withListRadius(2.5)).batchCapacity(Capacity.of(1, s.atoms(), Long.MAX_VALUE)).samples(java.util.List.of(s))
                .results(sink)) {
            p.run();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Run(seconds, sink.samples().getFirst().energy());
    }

    /// Runs both sides on `device` and puts the figures into `f`.
    static void run(CudaDevice device, PrintStream out, Map<String, String> f, boolean quick) {
        int cells = quick ? 10 : 20;
        int steps = quick ? 10 : 100;
        int atoms = 4 * cells * cells * cells;
        int threads = Runtime.getRuntime().availableProcessors();
        if (!quick) {
            run(device, d -> new CudaRelaxKernels(device), cells, 10); // warm-up: the PTX's JIT, first launches
        }
        Run gpu = run(device, d -> new CudaRelaxKernels(device), cells, steps);
        Run cpu;
        try (CpuDevice cpuDevice = new CpuDevice()) {
            if (!quick) {
                run(cpuDevice, d -> new CpuRelaxKernels(threads), cells, 10); // warm-up: the JIT
            }
            cpu = run(cpuDevice, d -> new CpuRelaxKernels(threads), cells, steps);
        }
        double rel = Math.abs(gpu.energy() - cpu.energy()) / Math.abs(cpu.energy());
        out.printf(Locale.ROOT, "LJ liquid, %d atoms, %d NVE steps: %s %.3f s, cpu (%d threads) %.3f s; rel energy diff %.3g%n", atoms, steps,
                device.name(), gpu.seconds(), threads, cpu.seconds(), rel);
        f.put("md_cuda_atoms", Integer.toString(atoms));
        f.put("md_cuda_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", (double) atoms * steps / gpu.seconds()));
        f.put("md_cpu_atom_steps_per_s", String.format(Locale.ROOT, "%.4g", (double) atoms * steps / cpu.seconds()));
        f.put("ratio_md_cuda_vs_cpu", String.format(Locale.ROOT, "%.3f", cpu.seconds() / gpu.seconds()));
        f.put("md_cuda_rel_energy_diff", rel == 0 ? "0" : String.format(Locale.ROOT, "%.3g", rel));
    }
}
