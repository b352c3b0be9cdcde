package dev.penstock.benchmarks;

import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Clusters;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// The `relax` workload (docs/workloads.md): FIRE in ASE-exact mode on perturbed LJ clusters (13, 38
/// and 55 atoms, fixed-seed uniform ±0.05σ noise) to fmax 1e-4 and 0.05, each cluster alone
/// through the path `penstock simulate` runs — `fire(fmax=…, steps=100000)` as a device stage on
/// the CPU device (`DeviceStages.runLocal`), from the systems in memory (the command's XYZ reading
/// and writing left out: the per-step figure is the engine's); with the peer, ASE's FIRE from the
/// same start, for step-count and energy agreement and the per-step speed ratio.
///
/// Run: `./penstock bench relax [--peer]`.
public final class RelaxBench {
    private static final int[] SIZES = {13, 38, 55};
    private static final double[] FMAX = {1e-4, 0.05};

    private final PrintStream out;
    private final Path dir;

    /// A benchmark writing its start file under `dir`, printing to `out`.
    public RelaxBench(Path dir, PrintStream out) {
        this.dir = dir;
        this.out = out;
    }

    /// The start of an `n`-atom cluster: the `n` fcc sites nearest the origin (nearest-neighbour
    /// distance 1.1σ; for 13 a cuboctahedron, which FIRE turns into the icosahedron), plus seeded
    /// ±0.05σ noise.
    public static AtomicSystem cluster(int n) {
        return cluster(n, n, 0.05, 1000 + n);
    }

    /// System `id`: the `n` fcc sites nearest the origin (nearest-neighbour distance 1.1σ, n ≤
    /// 365) with uniform ±`noise` displacements from `seed`.
    public static AtomicSystem cluster(long id, int n, double noise, long seed) {
        return Clusters.perturbed(id, n, noise, seed);
    }

    /// Writes the clusters' starts (for the peer); returns the file.
    public Path writeStarts() throws Exception {
        Files.createDirectories(dir);
        Path f = dir.resolve("relax-start.extxyz");
        List<AtomicSystem> all = new ArrayList<>();
        for (int n : SIZES) {
            all.add(cluster(n));
        }
        try (Writer w = Files.newBufferedWriter(f)) {
            ExtXyz.write(w, all);
        }
        return f;
    }

    /// Runs every case; merges the peer's figures when given.
    public Map<String, String> run(Map<String, Double> ase) {
        Map<String, String> m = new LinkedHashMap<>();
        double worstRatio = Double.POSITIVE_INFINITY;
        int worstStepDiff = 0;
        // a warm-up first: the longest case (LJ55 to 1e-4, ~4,600 steps) twice, so that the JIT has
        // compiled the kernels (the Vector API's among them, slow until C2 has them) before any
        // case is timed — else the first case's 20 short runs time the compiler
        for (int rep = 0; rep < 2; rep++) {
            try {
                DeviceStages.runLocal(new ArrayList<>(List.of(cluster(55))), PipelineSpec.parse("fire(fmax=1e-4, steps=100000)"),
                        PipelineSpec.potential("lj(epsilon=1, sigma=1, cutoff=100)"), 1, 0, 1.0, 1, 4096, 10,
                        dev.penstock.stage.MemorySink.unbounded("warm-up"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        for (int n : SIZES) {
            for (double fmax : FMAX) {
                String tag = String.format(Locale.ROOT, "lj%d_fmax%s", n, fmt(fmax));
                AtomicSystem res = null;
                int steps = 0;
                long best = Long.MAX_VALUE;
                var stages = PipelineSpec.parse(String.format(Locale.ROOT, "fire(fmax=%s, steps=100000)", fmt(fmax)));
                var model = PipelineSpec.potential("lj(epsilon=1, sigma=1, cutoff=100)"); // ASE's LennardJones(rc=100): shifted
                for (int rep = 0; rep < 20; rep++) { // the first repetitions warm the JIT up
                    var done = dev.penstock.stage.MemorySink.<AtomicSystem>unbounded("relaxed");
                    long t0 = System.nanoTime();
                    try {
                        DeviceStages.runLocal(new ArrayList<>(List.of(cluster(n))), stages, model, 1, 0, 1.0, 1, 4096, 10, done);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    best = Math.min(best, System.nanoTime() - t0);
                    res = done.samples().getFirst();
                    steps = Integer.parseInt(res.info().get("stages").replaceAll(".*:", ""));
                }
                double usPerStep = best / 1e3 / Math.max(1, steps);
                m.put("steps_" + tag, Integer.toString(steps));
                m.put("final_energy_" + tag, Double.toString(res.energy()));
                m.put("us_per_step_" + tag, String.format(Locale.ROOT, "%.3f", usPerStep));
                m.put("us_per_atom_step_" + tag, String.format(Locale.ROOT, "%.4f", usPerStep / n));
                out.printf(Locale.ROOT, "LJ%d to fmax %s: %d steps, E = %.9f, %.2f µs per step%n", n, fmt(fmax), steps,
                        res.energy(), usPerStep);
                if (ase != null) {
                    String atag = String.format(Locale.ROOT, "lj%d_fmax%s", n, fmtPy(fmax));
                    Double aseSteps = ase.get("ase_steps_" + atag);
                    Double energy = ase.get("ase_energy_" + atag);
                    Double ms = ase.get("ase_ms_per_step_" + atag);
                    if (aseSteps != null && energy != null && ms != null) {
                        int diff = steps - (int) Math.round(aseSteps);
                        double ratio = ms * 1e3 / usPerStep;
                        m.put("ase_steps_" + tag, Long.toString(Math.round(aseSteps)));
                        m.put("step_count_diff_vs_ase_" + tag, Integer.toString(diff));
                        m.put("energy_diff_vs_ase_" + tag, String.format(Locale.ROOT, "%.2e", Math.abs(res.energy() - energy)));
                        m.put("ratio_vs_ase_" + tag, String.format(Locale.ROOT, "%.1f", ratio));
                        worstRatio = Math.min(worstRatio, ratio);
                        worstStepDiff = Math.max(worstStepDiff, Math.abs(diff));
                    }
                }
            }
        }
        if (ase != null && worstRatio < Double.POSITIVE_INFINITY) {
            m.put("step_count_diff_vs_ase", Integer.toString(worstStepDiff));
            m.put("ratio_vs_ase", String.format(Locale.ROOT, "%.1f", worstRatio));
        }
        return m;
    }

    private static String fmt(double f) {
        return f == 1e-4 ? "1e-4" : Double.toString(f);
    }

    private static String fmtPy(double f) {
        return f == 1e-4 ? "0.0001" : Double.toString(f);
    }
}
