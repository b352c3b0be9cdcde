package dev.penstock.benchmarks;

import dev.penstock.atoms.integrate.VelocityVerlet;
import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Tersoff;
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

/// `bench md --potential eam|tersoff` (docs/workloads.md `md --potential`): 100 NVE
/// steps of a real material from LAMMPS's own start (`write_data`), against LAMMPS with the same
/// potential file, in the same run:
///
/// - **eam**: LAMMPS's classic `bench/in.eam` — fcc Cu, `Cu_u3.eam`, 20³ cells (32,000 atoms),
///   1600 K, dt 5 fs, neighbour skin 1 Å;
/// - **tersoff**: diamond Si, `Si.tersoff`, 16³ cells (32,768 atoms), 1000 K, dt 1 fs, skin 1 Å.
///
/// The total energy is compared at every step (one LAMMPS run with exact rebuilds and thermo
/// at every step); the speed against LAMMPS as its users time it (its benchmark's own neighbour
/// settings, thermo every 50 steps), plain and with `-sf opt`, the faster counting; each side's
/// median of three interleaved runs, Penstock's timed over its 100-step loop after three
/// warm-ups. One thread against one LAMMPS process, and one system split over two threads
/// (`Eam.threads(2)`, `Tersoff.threads(2)`) against LAMMPS on two MPI processes (`mpirun -np 2`).
public final class MaterialsMdBench {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    private static final int REPEATS = 3;
    /// LAMMPS's metal time unit: ps per √(amu·Å²/eV) (its `mvv2e`, as `MaterialsVersusLammpsTest`)
    private static final double TAU_PS = Math.sqrt(1.0364269e-4);

    /// A material of the benchmark.
    ///
    /// @param name    `eam` or `tersoff`
    /// @param file    the potential file under /usr/share/lammps/potentials
    /// @param z       the element's atomic number
    /// @param setup   LAMMPS's lines from the lattice to the pair coefficients
    /// @param kelvin  the starting temperature
    /// @param seed    LAMMPS's velocity seed
    /// @param dtPs    the time step, ps
    /// @param neigh   LAMMPS's `neigh_modify` for the timed runs (its benchmark's)
    record Material(String name, String file, int z, String setup, int kelvin, int seed, double dtPs, String neigh) {
        /// The model, without the virial, which LAMMPS does not compute here either (its thermo
        /// asks for no pressure).
        Model model() throws Exception {
            Path f = POTENTIALS.resolve(file);
            return name.equals("eam") ? Eam.read(f).virial(false) : Tersoff.read(f).virial(false);
        }

        String input(boolean exact, int thermo) {
            return String.join("\n", "units metal", "atom_style atomic", setup, "velocity all create " + kelvin + ".0 " + seed + " loop geom",
                    "neighbor 1.0 bin", "neigh_modify " + (exact ? "delay 0 every 1 check yes" : neigh), "timestep " + dtPs, "fix 1 all nve",
                    "write_data start.data", "thermo " + thermo, "thermo_style custom step pe ke etotal", "thermo_modify format float %.17g",
                    "run 100", "");
        }
    }

    static final Material EAM = new Material("eam", "Cu_u3.eam", 29, String.join("\n", "lattice fcc 3.615", "region box block 0 20 0 20 0 20",
            "create_box 1 box", "create_atoms 1 box", "pair_style eam", "pair_coeff 1 1 " + POTENTIALS.resolve("Cu_u3.eam")), 1600, 376847,
            0.005, "every 1 delay 5 check yes");
    static final Material TERSOFF = new Material("tersoff", "Si.tersoff", 14, String.join("\n", "lattice diamond 5.431",
            "region box block 0 16 0 16 0 16", "create_box 1 box", "create_atoms 1 box", "mass 1 28.0855", "pair_style tersoff",
            "pair_coeff * * " + POTENTIALS.resolve("Si.tersoff") + " Si"), 1000, 4928459, 0.001, "every 1 delay 5 check yes");

    private final Material material;
    private final Path dir;
    private final PrintStream out;
    private int[] threads = {1, 2};

    /// The benchmark of `potential` (`eam` or `tersoff`), files under `dir`.
    public MaterialsMdBench(String potential, Path dir, PrintStream out) {
        this.material = switch (potential) {
            case "eam" -> EAM;
            case "tersoff" -> TERSOFF;
            default -> throw new IllegalArgumentException("option '--potential': expected lj, eam or tersoff, got '" + potential + "'");
        };
        this.dir = dir.resolve("md-" + potential);
        this.out = out;
    }

    /// The thread counts to run at (each against LAMMPS on as many processes); default 1, 2.
    public MaterialsMdBench threads(int... t) {
        this.threads = t.clone();
        return this;
    }

    /// Runs LAMMPS and Penstock; returns the figures (none without LAMMPS, saying so).
    public Map<String, String> run() throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.isExecutable(Path.of(LammpsRuns.LMP)) || !Files.isRegularFile(POTENTIALS.resolve(material.file()))) {
            out.println("peer: " + LammpsRuns.LMP + " or " + POTENTIALS.resolve(material.file()) + " not found; install them with: apt-get "
                    + "install -y lammps lammps-data");
            return m;
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("in.exact"), material.input(true, 1));
        Files.writeString(dir.resolve("in.timed"), material.input(false, 50));
        List<Double> lammpsEnergy = new ArrayList<>();
        LammpsRuns.run(dir, 1, "in.exact", false, lammpsEnergy);
        // Penstock starts every run from this start: the timed LAMMPS runs write their own (on n
        // processes, its atoms in another order)
        Files.copy(dir.resolve("start.data"), dir.resolve("start-penstock.data"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Model model = material.model();
        double[] energy = new double[101];
        int n = simulate(model, energy);
        double maxRel = 0;
        for (int step = 0; step <= 100 && step < lammpsEnergy.size(); step++) {
            maxRel = Math.max(maxRel, Math.abs(energy[step] - lammpsEnergy.get(step)) / Math.abs(lammpsEnergy.get(step)));
        }
        m.put("potential", material.name() + " (" + material.file() + ")");
        m.put("atoms", Integer.toString(n));
        // one system's parts over threads (`Eam.threads`, `Tersoff.threads`), against LAMMPS on as
        // many MPI processes
        for (int t : threads) {
            switch (model) {
                case Eam eam -> eam.threads(t);
                case Tersoff tersoff -> tersoff.threads(t);
                default -> throw new IllegalStateException("no thread split for " + model);
            }
            for (int k = 0; k < REPEATS; k++) {
                simulate(model, null); // warm-up
            }
            double[] plain = new double[REPEATS];
            double[] opt = new double[REPEATS];
            double[] mine = new double[REPEATS];
            for (int k = 0; k < REPEATS; k++) { // interleaved: the machine's drift hits every side alike
                plain[k] = LammpsRuns.run(dir, t, "in.timed", false, null);
                opt[k] = LammpsRuns.run(dir, t, "in.timed", true, null);
                mine[k] = timed(model);
            }
            double seconds = LammpsRuns.median(mine);
            double lammps = Math.min(LammpsRuns.median(plain), LammpsRuns.median(opt));
            out.printf(Locale.ROOT, "%s (%s), %d atoms, 100 NVE steps, %d thread(s) against %d LAMMPS process(es), median of %d: Penstock %.3f s "
                    + "(runs %s), LAMMPS %.3f s (runs %s), with -sf opt %.3f s (runs %s); total energy within %.2e of LAMMPS's at every step%n",
                    material.name(), material.file(), n, t, t, REPEATS, seconds, LammpsRuns.seconds(mine), LammpsRuns.median(plain),
                    LammpsRuns.seconds(plain), LammpsRuns.median(opt), LammpsRuns.seconds(opt), maxRel);
            String tail = t == 1 ? "" : "_" + t + "t";
            m.put("atom_steps_per_s" + tail, String.format(Locale.ROOT, "%.4g", n * 100 / seconds));
            m.put("lammps_plain_atom_steps_per_s" + tail, String.format(Locale.ROOT, "%.4g", n * 100 / LammpsRuns.median(plain)));
            m.put("lammps_opt_atom_steps_per_s" + tail, String.format(Locale.ROOT, "%.4g", n * 100 / LammpsRuns.median(opt)));
            m.put("lammps_atom_steps_per_s" + tail, String.format(Locale.ROOT, "%.4g", n * 100 / lammps));
            m.put("ratio_vs_lammps" + tail, String.format(Locale.ROOT, "%.3f", lammps / seconds));
            if (t != 1) { // a large system is summed in parts fixed by its size (RowParts): every thread count the same bits
                double[] again = new double[101];
                simulate(model, again);
                m.put("same_energies_as_1t" + tail, Boolean.toString(Arrays.equals(again, energy)));
            }
        }
        ((AutoCloseable) model).close();
        m.put("max_rel_energy_diff_vs_lammps", String.format(Locale.ROOT, "%.3e", maxRel));
        return m;
    }

    /// LAMMPS's start in Penstock's units: velocities Å/ps → Å/τ, the element set.
    private AtomicSystem start() throws Exception {
        AtomicSystem s = LammpsData.read(dir.resolve("start-penstock.data"), 1, material.z());
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= TAU_PS;
        }
        return s;
    }

    /// 100 steps from the start, the total energy at each step into `energy` (if given); the atoms.
    private int simulate(Model model, double[] energy) throws Exception {
        AtomicSystem s = start();
        model.forget(s.id());
        VelocityVerlet vv = new VelocityVerlet(material.dtPs() / TAU_PS);
        model.compute(s);
        for (int step = 0; step <= 100; step++) {
            if (step > 0) {
                vv.step(s, model);
            }
            if (energy != null) {
                energy[step] = s.energy() + VelocityVerlet.kineticEnergy(s);
            }
        }
        model.forget(s.id());
        return s.atoms();
    }

    /// The 100-step loop's seconds, timed as LAMMPS's "Loop time" (the set-up outside).
    private double timed(Model model) throws Exception {
        AtomicSystem s = start();
        model.forget(s.id());
        VelocityVerlet vv = new VelocityVerlet(material.dtPs() / TAU_PS);
        model.compute(s);
        long t0 = System.nanoTime();
        for (int step = 1; step <= 100; step++) {
            vv.step(s, model);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        model.forget(s.id());
        return seconds;
    }
}
