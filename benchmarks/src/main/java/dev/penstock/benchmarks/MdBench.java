package dev.penstock.benchmarks;

import dev.penstock.atoms.integrate.VelocityVerlet;
import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.io.LammpsLjBench;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// The `md` workload (docs/workloads.md): LAMMPS's classic `bench/in.lj` Lennard-Jones liquid (fcc,
/// density 0.8442, T 1.44, unshifted cutoff 2.5σ, skin 0.3σ, NVE, dt 0.005 τ, 100 steps), from
/// the very positions and velocities LAMMPS starts from (its `write_data` file). With LAMMPS
/// present (`/usr/bin/lmp`), it runs LAMMPS with exact neighbour rebuilds (`neigh_modify delay 0
/// every 1 check yes`) and compares the total energy per atom at every step 0…100 (one run with
/// thermo at every step), and the speed against LAMMPS at its best: `thermo 100`, plain and with
/// the OPT package (`-sf opt`), the faster one counting; Penstock's timed runs likewise compute the
/// energy only where it is reported, and are timed like LAMMPS's loop (set-up outside).
///
/// Run: `./penstock bench md [--atoms 4000|32000]`.
public final class MdBench {
    private static final String LMP = LammpsRuns.LMP;

    private final int cells;
    private final Path dir;
    private final PrintStream out;
    private int[] threads = {1};

    /// Also runs with these thread counts (LAMMPS with `mpirun -np T`).
    public MdBench threads(int... t) {
        this.threads = t.clone();
        return this;
    }

    /// A benchmark of `atoms` = 4·k³ atoms (4,000 or 32,000), files under `dir`.
    public MdBench(int atoms, Path dir, PrintStream out) {
        int k = (int) Math.round(Math.cbrt(atoms / 4.0));
        if (4 * k * k * k != atoms) {
            throw new IllegalArgumentException("option '--atoms' must be 4·k³ (4000, 32000, …), got " + atoms);
        }
        this.cells = k;
        this.dir = dir.resolve("md-" + atoms);
        this.out = out;
    }

    /// Runs LAMMPS (if present) and Penstock; returns the figures.
    public Map<String, String> run() throws Exception {
        Files.createDirectories(dir);
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.isExecutable(Path.of(LMP))) {
            out.println("peer: " + LMP + " not found; install it with: apt-get install -y lammps (Penstock needs its start file)");
            return m;
        }
        Files.writeString(dir.resolve("in.lj"), LammpsLjBench.input(cells));
        Files.writeString(dir.resolve("in.lj.timed"), LammpsLjBench.input(cells, 100));
        double[] first = null; // the first thread count's energy at every step, from its start
        AtomicSystem firstStart = null;
        for (int t : threads) {
            // LAMMPS's energies from one run with thermo at every step (full precision); its time
            // from runs as its users time them (thermo 100), plain and with the OPT package
            // (-sf opt: lj/cut/opt), the faster counting. Each timing: the median of five (runs
            // of 0.1-2 s on a shared machine wander by ±20%); Penstock warms up five times first
            // and, like LAMMPS's timed runs, computes the energy only where it is reported and is timed
            // over the 100-step loop (set-up outside, as in LAMMPS's "Loop time").
            List<Double> lammpsEnergy = new ArrayList<>();
            LammpsRuns.run(dir, t, "in.lj", false, lammpsEnergy);
            for (int k = 0; k < REPEATS; k++) {
                simulate(LammpsData.read(dir.resolve("start.data"), 1), null, t);
            }
            double[] energy = new double[101];
            AtomicSystem check = LammpsData.read(dir.resolve("start.data"), 3);
            simulate(check, energy, t);
            int n = check.atoms();
            // Interleaved: each round runs LAMMPS plain, LAMMPS OPT and Penstock back to back, so
            // that this machine's drift (tens of percent within minutes) hits all three alike.
            double[] plainRuns = new double[REPEATS];
            double[] optRuns = new double[REPEATS];
            double[] runs = new double[REPEATS];
            for (int k = 0; k < REPEATS; k++) {
                plainRuns[k] = LammpsRuns.run(dir, t, "in.lj.timed", false, null);
                optRuns[k] = LammpsRuns.run(dir, t, "in.lj.timed", true, null);
                runs[k] = simulate(LammpsData.read(dir.resolve("start.data"), 2), null, t);
            }
            double plainS = LammpsRuns.median(plainRuns);
            double optS = LammpsRuns.median(optRuns);
            double lammpsLoopS = Math.min(plainS, optS);
            double seconds = LammpsRuns.median(runs);
            double maxRel = 0;
            for (int step = 0; step <= 100 && step < lammpsEnergy.size(); step++) {
                maxRel = Math.max(maxRel, Math.abs(energy[step] - lammpsEnergy.get(step)) / Math.abs(lammpsEnergy.get(step)));
            }
            double mine = n * 100 / seconds;
            double theirs = n * 100 / lammpsLoopS;
            out.printf(Locale.ROOT, "%d atoms, 100 steps, %d thread(s) / process(es), median of %d: Penstock %.3f s (%.3g atom-steps/s; "
                    + "runs %s), LAMMPS thermo 100 %.3f s (runs %s), with -sf opt %.3f s (runs %s): best %.3g atom-steps/s%n", n, t,
                    REPEATS, seconds, mine, LammpsRuns.seconds(runs), plainS, LammpsRuns.seconds(plainRuns), optS, LammpsRuns.seconds(optRuns), theirs);
            String k = t == 1 ? "" : "_" + t + "t";
            m.put("atoms", Integer.toString(n));
            m.put("atom_steps_per_s" + k, String.format(Locale.ROOT, "%.4g", mine));
            m.put("lammps_plain_atom_steps_per_s" + k, String.format(Locale.ROOT, "%.4g", n * 100 / plainS));
            m.put("lammps_opt_atom_steps_per_s" + k, String.format(Locale.ROOT, "%.4g", n * 100 / optS));
            m.put("lammps_atom_steps_per_s" + k, String.format(Locale.ROOT, "%.4g", theirs));
            m.put("ratio_vs_lammps" + k, String.format(Locale.ROOT, "%.3f", mine / theirs));
            m.put("max_rel_energy_diff_vs_lammps" + k, String.format(Locale.ROOT, "%.3e", maxRel));
            // a large system is summed in parts fixed by its size (RowParts): every thread count the
            // same bits — from the first thread count's start (LAMMPS writes each count's own start
            // file, its atoms in another order)
            if (first == null) {
                first = energy;
                firstStart = LammpsData.read(dir.resolve("start.data"), 4);
            } else {
                double[] again = new double[101];
                AtomicSystem s = new AtomicSystem(4, firstStart.positions().clone(), firstStart.masses(), firstStart.numbers(), firstStart.cell());
                System.arraycopy(firstStart.velocities(), 0, s.velocities(), 0, s.velocities().length);
                simulate(s, again, t);
                int differ = Arrays.mismatch(again, first);
                m.put("same_energies_as_1t" + k, differ < 0 ? "true" : "false (step " + differ + ")");
            }
        }
        return m;
    }

    private static final int REPEATS = 5;

    /// 100 NVE steps; records the total energy per atom at steps 0…100 when `energy` is given.
    /// Returns the loop's seconds, timed as LAMMPS times its "Loop time": the set-up (the first
    /// neighbour list and forces, LAMMPS's `setup`) is outside, the 100 steps inside, rebuilds
    /// included.
    private static double simulate(AtomicSystem s, double[] energy, int threads) {
        try (LennardJones lj = new LennardJones(1, 1, 2.5, false)) {
            lj.threads(threads);
            return run100(s, energy, lj);
        }
    }

    private static double run100(AtomicSystem s, double[] energy, LennardJones lj) {
        VelocityVerlet vv = new VelocityVerlet(0.005);
        lj.compute(s);
        if (energy != null) {
            energy[0] = (s.energy() + VelocityVerlet.kineticEnergy(s)) / s.atoms();
        }
        long t0 = System.nanoTime();
        for (int step = 1; step <= 100; step++) {
            vv.step(s, lj);
            if (energy != null) {
                energy[step] = (s.energy() + VelocityVerlet.kineticEnergy(s)) / s.atoms();
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
