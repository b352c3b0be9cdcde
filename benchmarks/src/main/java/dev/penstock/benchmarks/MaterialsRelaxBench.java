package dev.penstock.benchmarks;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.io.LammpsLog;
import dev.penstock.atoms.device.DeviceStages;
import dev.penstock.atoms.optimize.Fire2;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// `bench relax --potential eam` : the README's 16 copper
/// nanoparticles (`examples/copper-nanoparticles.xyz`, 7–309 atoms) relaxed to fmax 0.01 eV/Å under
/// `Cu_u3.eam`, by LAMMPS's `minimize` with `min_style fire` and by Penstock's FIRE 2.0 (`fire2`)
/// and ASE-exact FIRE (`fire`), from the same positions, in the same run — Penstock's through the
/// path `penstock simulate` runs (device stages on the CPU device, the particles batched).
///
/// LAMMPS's FIRE is FIRE 2.0 (Guénolé et al. 2020, LAMMPS's default since 2020): mass-weighted,
/// semi-implicit Euler, half a step back on an uphill step, and Penstock's `Fire2` takes the same
/// constants (dt 0.1 τ — LAMMPS's `timestep` 1.018 fs —, dtmax 10·dt, dtmin 0.02·dt, N_delay 20,
/// f_inc 1.1, f_dec 0.5, α 0.25, f_α 0.99: LAMMPS's log prints them). They differ in the step
/// limit, so step counts differ a little: LAMMPS caps the time step so that no atom moves more
/// than `dmax` = 0.1 Å, `Fire2` caps the step's length at 0.2 Å, as ASE's FIRE does. ASE's FIRE
/// (`Fire`) is unweighted and has other constants (α 0.1, N_min 5). Convergence is the same test on all three: max per-atom |F| < fmax
/// (`min_modify norm max`, no energy criterion). Each minimum's energy is compared per atom.
/// Speed: LAMMPS's loop times (plain `eam` and `-sf opt`'s `eam/opt`, the faster counting, as
/// `bench md` counts them) against Penstock's time for the same relaxations (all particles, after
/// five warm-up rounds), the median of three interleaved rounds each; per step too.
public final class MaterialsRelaxBench {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final String FILE = "Cu_u3.eam";
    private static final double FMAX = 0.01;
    private static final int MAX_STEPS = 100_000;
    private static final int WARMUPS = 5;
    private static final int ROUNDS = 3;
    /// Penstock's (and ASE's) time unit in ps: √(amu·Å²/eV)
    private static final double TAU_PS = Math.sqrt(1.0364269e-4);

    private final Path particles;
    private final Path dir;
    private final PrintStream out;

    /// The benchmark of the particles in `particles` (extended XYZ), LAMMPS's files under `dir`.
    public MaterialsRelaxBench(Path particles, Path dir, PrintStream out) {
        this.particles = particles;
        this.dir = dir.resolve("relax-eam");
        this.out = out;
    }

    /// Runs LAMMPS and Penstock; returns the figures (none without LAMMPS, saying so).
    public Map<String, String> run() throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.isExecutable(Path.of(LammpsRuns.LMP)) || !Files.isRegularFile(POTENTIALS.resolve(FILE))) {
            out.println("peer: " + LammpsRuns.LMP + " or " + POTENTIALS.resolve(FILE) + " not found; install them with: apt-get install -y "
                    + "lammps lammps-data");
            return m;
        }
        Files.createDirectories(dir);
        List<AtomicSystem> starts;
        try (BufferedReader in = Files.newBufferedReader(particles)) {
            starts = ExtXyz.read(in, particles);
        }
        double mass;
        try (Eam eam = Eam.read(POTENTIALS.resolve(FILE))) {
            mass = eam.mass("Cu"); // the file's mass, as LAMMPS takes it
        }
        for (int k = 0; k < WARMUPS; k++) {
            relaxAll(starts, mass, true, new long[1], new double[1]);
            relaxAll(starts, mass, false, new long[1], new double[1]);
        }
        long[] fire2Steps = new long[1];
        long[] fireSteps = new long[1];
        double[] fire2Rounds = new double[ROUNDS];
        double[] fireRounds = new double[ROUNDS];
        double[] lammpsRounds = new double[ROUNDS];
        double[] optRounds = new double[ROUNDS];
        long[] optSteps = new long[ROUNDS];
        List<AtomicSystem> fire2 = null;
        List<AtomicSystem> fire = null;
        double[][] lammps = new double[starts.size()][]; // iterations, final energy, loop seconds
        for (int round = 0; round < ROUNDS; round++) { // interleaved: the machine's drift hits every side alike
            fire2Steps[0] = 0;
            fireSteps[0] = 0;
            double[] seconds = new double[1];
            fire2 = relaxAll(starts, mass, true, fire2Steps, seconds);
            fire2Rounds[round] = seconds[0];
            seconds[0] = 0;
            fire = relaxAll(starts, mass, false, fireSteps, seconds);
            fireRounds[round] = seconds[0];
            for (int k = 0; k < starts.size(); k++) {
                lammps[k] = lammps(k, starts.get(k), false);
                lammpsRounds[round] += lammps[k][2];
                double[] opt = lammps(k, starts.get(k), true); // eam/opt rounds differently: its own steps
                optSteps[round] += (long) opt[0];
                optRounds[round] += opt[2];
            }
        }
        double fire2Seconds = LammpsRuns.median(fire2Rounds);
        double fireSeconds = LammpsRuns.median(fireRounds);
        double plainSeconds = LammpsRuns.median(lammpsRounds);
        double optSeconds = LammpsRuns.median(optRounds);
        double lammpsSeconds = Math.min(plainSeconds, optSeconds); // its best counts
        boolean optBest = optSeconds < plainSeconds;
        long lammpsSteps = 0;
        double maxDiff2 = 0;
        double maxDiff = 0;
        int atoms = 0;
        for (int k = 0; k < starts.size(); k++) {
            AtomicSystem s = starts.get(k);
            atoms += s.atoms();
            lammpsSteps += (long) lammps[k][0];
            double d2 = Math.abs(fire2.get(k).energy() - lammps[k][1]) / s.atoms();
            double d = Math.abs(fire.get(k).energy() - lammps[k][1]) / s.atoms();
            maxDiff2 = Math.max(maxDiff2, d2);
            maxDiff = Math.max(maxDiff, d);
            out.printf(Locale.ROOT, "particle %2d (%3d atoms): LAMMPS fire %4d steps E %.6f · Fire2 %4d steps ΔE/atom %.1e · FIRE (ASE) %4d "
                    + "steps ΔE/atom %.1e%n", k, s.atoms(), (long) lammps[k][0], lammps[k][1], steps(fire2.get(k)), d2, steps(fire.get(k)),
                    d);
            m.put("lammps_steps_p" + k, Long.toString((long) lammps[k][0]));
            m.put("fire2_steps_p" + k, Integer.toString(steps(fire2.get(k))));
            m.put("fire_steps_p" + k, Integer.toString(steps(fire.get(k))));
        }
        double lammpsPerStep = lammpsSeconds / (optBest ? optSteps[0] : lammpsSteps);
        double minePerStep = fire2Seconds / fire2Steps[0];
        out.printf(Locale.ROOT, "%d particles, %d atoms, to fmax %.2f, medians of %d rounds: LAMMPS min_style fire %d steps in %.3f s, its best of plain and -sf opt (%.1f µs/step); Penstock "
                + "Fire2 %d steps in %.3f s (%.1f µs/step), FIRE (ASE) %d steps in %.3f s; minima within %.1e eV/atom (Fire2) and %.1e "
                + "(FIRE) of LAMMPS's%n", starts.size(), atoms, FMAX, ROUNDS, lammpsSteps, lammpsSeconds, lammpsPerStep * 1e6, fire2Steps[0],
                fire2Seconds, minePerStep * 1e6, fireSteps[0], fireSeconds, maxDiff2, maxDiff);
        m.put("particles", Integer.toString(starts.size()));
        m.put("atoms", Integer.toString(atoms));
        m.put("lammps_steps", Long.toString(lammpsSteps));
        m.put("fire2_steps", Long.toString(fire2Steps[0]));
        m.put("fire_steps", Long.toString(fireSteps[0]));
        m.put("lammps_us_per_step", String.format(Locale.ROOT, "%.2f", lammpsPerStep * 1e6));
        m.put("fire2_us_per_step", String.format(Locale.ROOT, "%.2f", minePerStep * 1e6));
        m.put("ratio_per_step_vs_lammps", String.format(Locale.ROOT, "%.3f", lammpsPerStep / minePerStep));
        m.put("ratio_vs_lammps", String.format(Locale.ROOT, "%.3f", lammpsSeconds / fire2Seconds));
        m.put("lammps_plain_seconds", String.format(Locale.ROOT, "%.4f", plainSeconds));
        m.put("lammps_opt_seconds", String.format(Locale.ROOT, "%.4f", optSeconds));
        m.put("lammps_opt_steps", Long.toString(optSteps[0]));
        m.put("lammps_seconds_rounds", LammpsRuns.seconds(lammpsRounds));
        m.put("lammps_opt_seconds_rounds", LammpsRuns.seconds(optRounds));
        m.put("fire2_seconds_rounds", LammpsRuns.seconds(fire2Rounds));
        m.put("max_energy_diff_per_atom_fire2_vs_lammps", String.format(Locale.ROOT, "%.2e", maxDiff2));
        m.put("max_energy_diff_per_atom_fire_vs_lammps", String.format(Locale.ROOT, "%.2e", maxDiff));
        return m;
    }

    /// Every particle relaxed from its start (a copy, masses the file's) through the path `penstock
    /// simulate` runs — `fire2(…)` or `fire(…)` as a device stage on the CPU device, the particles
    /// batched as the command batches them (`DeviceStages.runLocal`) — in input order; the steps
    /// and seconds summed into `steps[0]` and `seconds[0]`.
    private static List<AtomicSystem> relaxAll(List<AtomicSystem> starts, double mass, boolean fire2, long[] steps, double[] seconds)
            throws Exception {
        List<AtomicSystem> systems = new ArrayList<>();
        for (AtomicSystem start : starts) {
            double[] masses = new double[start.atoms()];
            Arrays.fill(masses, mass);
            systems.add(new AtomicSystem(start.id(), start.positions().clone(), masses, start.numbers().clone(), start.cell()));
        }
        var stages = PipelineSpec.parse(String.format(Locale.ROOT, "%s(fmax=%s, steps=%d)", fire2 ? "fire2" : "fire", FMAX, MAX_STEPS));
        var model = PipelineSpec.potential("eam(file=" + POTENTIALS.resolve(FILE) + ")");
        var sink = dev.penstock.stage.MemorySink.<AtomicSystem>unbounded("relaxed");
        long t0 = System.nanoTime();
        DeviceStages.runLocal(systems, stages, model, 1, 0, 1.0, 256, 4096, 10, sink);
        List<AtomicSystem> done = sink.samples();
        seconds[0] += (System.nanoTime() - t0) / 1e9;
        List<AtomicSystem> ordered = new ArrayList<>();
        for (AtomicSystem start : starts) {
            AtomicSystem r = done.stream().filter(x -> x.id() == start.id()).findFirst().orElseThrow();
            steps[0] += steps(r);
            ordered.add(r);
        }
        return ordered;
    }

    /// The steps a relaxed system took (its `stages` history: one sub-stage).
    static int steps(AtomicSystem s) {
        return Integer.parseInt(s.info().get("stages").replaceAll(".*:", ""));
    }

    /// LAMMPS's `minimize` of particle `k` from `s`: {iterations, final energy, loop seconds}.
    private double[] lammps(int k, AtomicSystem s, boolean opt) throws Exception {
        double[] r = s.positions();
        double[] lo = {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY};
        double[] hi = {Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (int i = 0; i < s.atoms(); i++) {
            for (int d = 0; d < 3; d++) {
                lo[d] = Math.min(lo[d], r[3 * i + d]);
                hi[d] = Math.max(hi[d], r[3 * i + d]);
            }
        }
        StringBuilder data = new StringBuilder("copper nanoparticle " + k + " (Penstock bench relax)\n\n");
        data.append(s.atoms()).append(" atoms\n1 atom types\n\n");
        String[] axis = {"x", "y", "z"};
        for (int d = 0; d < 3; d++) {
            data.append(String.format(Locale.ROOT, "%.17g %.17g %slo %shi%n", lo[d] - 10, hi[d] + 10, axis[d], axis[d]));
        }
        data.append("\nAtoms # atomic\n\n");
        for (int i = 0; i < s.atoms(); i++) {
            data.append(String.format(Locale.ROOT, "%d 1 %.17g %.17g %.17g%n", i + 1, r[3 * i], r[3 * i + 1], r[3 * i + 2]));
        }
        Files.writeString(dir.resolve("p" + k + ".data"), data.toString());
        Files.writeString(dir.resolve("in.p" + k), String.join("\n", "units metal", "atom_style atomic", "atom_modify map array",
                "boundary s s s", "read_data p" + k + ".data", "pair_style eam", "pair_coeff 1 1 " + POTENTIALS.resolve(FILE),
                "neighbor 1.0 bin", "neigh_modify every 1 delay 0 check yes",
                String.format(Locale.ROOT, "timestep %.17g", Fire2.START_DT * TAU_PS), "min_style fire", "min_modify norm max",
                "thermo_style custom step pe fmax", "thermo_modify format float %.17g", "thermo " + MAX_STEPS,
                "minimize 0.0 " + FMAX + " " + MAX_STEPS + " " + 10 * MAX_STEPS, ""));
        List<String> cmd = new ArrayList<>(List.of(LammpsRuns.LMP, "-in", "in.p" + k, "-log", "log.p" + k, "-screen", "none"));
        if (opt) {
            cmd.addAll(List.of("-sf", "opt")); // eam/opt
        }
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("LAMMPS failed on " + dir.resolve("in.p" + k) + ": " + output);
        }
        LammpsLog log = LammpsLog.read(dir.resolve("log.p" + k));
        double[] step = log.column("Step");
        double[] pe = log.column("PotEng");
        return new double[] {step[step.length - 1], pe[pe.length - 1], log.loopSeconds()};
    }
}
