package dev.penstock.benchmarks;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/// `bench md` (docs/workloads.md): NVE molecular dynamics through `penstock simulate` — the
/// command users run, the whole of it (JVM start, reading the extended XYZ, the device stage on
/// the CPU, writing the output) — against LAMMPS's whole command on the same atoms and velocities
/// (LAMMPS's own `write_data` start, converted to extended XYZ), in alternating rounds.
///
/// - **lj**: LAMMPS's `bench/in.lj` liquid in argon units (metal units: ε 0.0104 eV, σ 3.4 Å, m
///   39.948 u; fcc at ρσ³ = 0.8442, T = 1.44 ε/k_B, cutoff 2.5σ unshifted, skin 0.3σ, dt 0.005 τ,
///   neighbour lists every 20 steps without a check, as `in.lj`: LAMMPS's `neigh_modify every 20
///   check no`, Penstock's `lj(…, every=20)`);
/// - **eam**: `bench/in.eam` — fcc Cu, `Cu_u3.eam`, 1600 K, dt 5 fs, skin 1 Å;
/// - **tersoff**: diamond Si, `Si.tersoff`, 1000 K, dt 1 fs, skin 1 Å;
/// - **snap**: bcc Ta, `Ta06A.snap` (ZBL + SNAP), 300 K, dt 0.5 fs, skin 1 Å, against LAMMPS built with
///   ML-SNAP (`scripts/build-lammps-ml.sh`);
/// - **snap-quadratic**: fcc Cu, `Cu_Zuo_JPCA2020.quadratic.snap` (quadratic SNAP), 300 K, dt 1 fs,
///   skin 1 Å, against the same LAMMPS.
///
/// The energy check: a small box of the same material, 100 steps, LAMMPS with exact neighbour
/// rebuilds and thermo at every step against `simulate --snapshots DIR --snapshot-every 1` (each
/// frame's potential energy plus the kinetic energy of its momenta), largest relative difference
/// of the total energy. The speed: the full box, `steps` steps, `simulate --threads T` against
/// `lmp` plain and `lmp -sf opt` on T MPI processes (LAMMPS at its best: the faster median),
/// each round running the three back to back, the order turning each round; medians and each
/// round's ratio reported.
public final class SimulateMdBench {
    private static final Path POTENTIALS = Path.of("/usr/share/lammps/potentials");
    /// LAMMPS's metal time unit: ps per √(amu·Å²/eV) (its `mvv2e`), the time unit of ASE and of
    /// Penstock's velocities
    private static final double TAU_PS = Math.sqrt(1.0364269e-4);
    private static final double KB_EV = 8.617343e-5; // LAMMPS's metal boltz

    /// A workload.
    ///
    /// @param name     lj, eam or tersoff
    /// @param z        atomic number
    /// @param lattice  LAMMPS's `lattice` line
    /// @param fullCells cells a side of the timed box
    /// @param checkCells cells a side of the energy check's box
    /// @param pair     LAMMPS's mass, pair style and coefficients
    /// @param kelvin   starting temperature
    /// @param seed     LAMMPS's velocity seed
    /// @param dtPs     time step, ps
    /// @param skin     neighbour skin, Å
    /// @param neigh    LAMMPS's `neigh_modify` for the timed runs (its benchmark's)
    /// @param potential Penstock's `--potential`
    record Workload(String name, int z, String lattice, int fullCells, int checkCells, String pair, double kelvin, int seed, double dtPs,
                    double skin, String neigh, String potential) {
    }

    private static final double SIGMA = 3.4;
    private static final double EPSILON = 0.0104;

    static final Workload LJ = new Workload("lj", 18,
            String.format(Locale.ROOT, "lattice fcc %.10f", SIGMA * Math.cbrt(4 / 0.8442)), 20, 10,
            String.format(Locale.ROOT, "mass 1 39.948%npair_style lj/cut %.10f%npair_coeff 1 1 %s %s", 2.5 * SIGMA, EPSILON, SIGMA),
            1.44 * EPSILON / KB_EV, 87287, 0.005 * SIGMA * Math.sqrt(39.948 / EPSILON) * TAU_PS, 0.3 * SIGMA,
            "delay 0 every 20 check no",
            String.format(Locale.ROOT, "lj(epsilon=%s, sigma=%s, cutoff=%.10f, shifted=false, every=20)", EPSILON, SIGMA, 2.5 * SIGMA));
    static final Workload EAM = new Workload("eam", 29, "lattice fcc 3.615", 20, 8,
            "pair_style eam\npair_coeff 1 1 " + POTENTIALS.resolve("Cu_u3.eam"), 1600, 376847, 0.005, 1.0, "every 1 delay 5 check yes",
            "eam(file=" + POTENTIALS.resolve("Cu_u3.eam") + ")");
    static final Workload TERSOFF = new Workload("tersoff", 14, "lattice diamond 5.431", 16, 7,
            "mass 1 28.0855\npair_style tersoff\npair_coeff * * " + POTENTIALS.resolve("Si.tersoff") + " Si", 1000, 4928459, 0.001, 1.0,
            "every 1 delay 5 check yes", "tersoff(file=" + POTENTIALS.resolve("Si.tersoff") + ")");

    /// SNAP with its ZBL overlay (`Ta06A.snap`), bcc tantalum at 300 K, dt 0.5 fs, skin 1 Å, lists
    /// checked every step (LAMMPS's `examples/snap/in.snap.Ta06A`); its peer is LAMMPS built with
    /// ML-SNAP (`scripts/build-lammps-ml.sh`; with MPI when libopenmpi-dev is installed).
    static final Workload SNAP = new Workload("snap", 73, "lattice bcc 3.316", 10, 4,
            "mass 1 180.88\npair_style hybrid/overlay zbl 4 4.8 snap\npair_coeff 1 1 zbl 73 73\npair_coeff * * snap "
                    + POTENTIALS.resolve("Ta06A.snapcoeff") + " " + POTENTIALS.resolve("Ta06A.snapparam") + " Ta",
            300, 4928459, 0.0005, 1.0, "every 1 delay 0 check yes", "snap(file=" + POTENTIALS.resolve("Ta06A.snap") + ")");

    /// Quadratic SNAP (`Cu_Zuo_JPCA2020.quadratic.snap`: no ZBL), fcc copper (2,048 atoms) at
    /// 300 K, dt 1 fs, skin 1 Å, lists checked every step; its peer as `SNAP`'s.
    static final Workload SNAP_QUADRATIC = new Workload("snap-quadratic", 29, "lattice fcc 3.62", 8, 3,
            "mass 1 63.546\npair_style snap\npair_coeff * * " + POTENTIALS.resolve("Cu_Zuo_JPCA2020.quadratic.snapcoeff") + " "
                    + POTENTIALS.resolve("Cu_Zuo_JPCA2020.quadratic.snapparam") + " Cu",
            300, 4928459, 0.001, 1.0, "every 1 delay 0 check yes", "snap(file=" + POTENTIALS.resolve("Cu_Zuo_JPCA2020.quadratic.snap") + ")");

    private Workload w;
    private String lmp = LammpsRuns.LMP;
    private final Path dir;
    private final PrintStream out;
    private int[] threads = {1, 2};
    private String ensemble = "nve";
    private int steps = 1000;
    private int rounds = 3;

    /// The benchmark of `potential` (lj, eam or tersoff), files under `dir`.
    public SimulateMdBench(String potential, Path dir, PrintStream out) {
        this.w = switch (potential) {
            case "lj" -> LJ;
            case "eam" -> EAM;
            case "tersoff" -> TERSOFF;
            case "snap" -> SNAP;
            case "snap-quadratic" -> SNAP_QUADRATIC;
            default -> throw new IllegalArgumentException("option '--potential': expected lj, eam, tersoff, snap or snap-quadratic, got '"
                    + potential + "'");
        };
        if (w == SNAP || w == SNAP_QUADRATIC) {
            String cache = System.getenv().getOrDefault("PENSTOCK_LAMMPS_ML", System.getProperty("user.home") + "/.cache/penstock/lammps-ml");
            this.lmp = cache + "/build/lmp";
        }
        this.dir = dir.resolve("md-" + potential).toAbsolutePath();
        this.out = out;
    }

    /// The ensemble: "nve" (default), "nvt" (a Nosé–Hoover chain at the workload's temperature,
    /// tdamp 100 steps: LAMMPS's `fix nvt temp T T tdamp`, Penstock's `nvt(…)`) or "npt" (that
    /// thermostat and the MTK barostat, `iso` at `PRESSURE_BAR`, pdamp 1,000 steps: LAMMPS's `fix npt
    /// temp T T tdamp iso P P pdamp`, Penstock's `npt(…)`); the energy check of the last two compares
    /// the conserved quantity, LAMMPS's `econserve`.
    public SimulateMdBench ensemble(String e) {
        if (!e.equals("nve") && !e.equals("nvt") && !e.equals("npt")) {
            throw new IllegalArgumentException("option '--ensemble': expected nve, nvt or npt, got '" + e + "'");
        }
        this.ensemble = e;
        return this;
    }

    /// Thread counts (LAMMPS on as many MPI processes); default 1, 2.
    public SimulateMdBench threads(int... t) {
        this.threads = t.clone();
        return this;
    }

    /// NVE steps of the timed runs; default 1000.
    public SimulateMdBench steps(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("option '--steps' must be at least 1, got " + n);
        }
        this.steps = n;
        return this;
    }

    /// Alternating rounds; default 3.
    public SimulateMdBench rounds(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("option '--rounds' must be at least 1, got " + n);
        }
        this.rounds = n;
        return this;
    }

    /// The timed box of about `atoms` atoms: the workload's lattice, k cells a side, k the cube
    /// root of atoms over the lattice's atoms a cell (4 for fcc, 8 for diamond, 2 for bcc), which must be
    /// whole (default: 32,000 atoms for lj and eam, 32,768 for tersoff).
    public SimulateMdBench atoms(int atoms) {
        int perCell = w.lattice().contains("diamond") ? 8 : w.lattice().contains("bcc") ? 2 : 4;
        int k = (int) Math.round(Math.cbrt((double) atoms / perCell));
        if (perCell * k * k * k != atoms) {
            throw new IllegalArgumentException("option '--atoms' must be " + perCell + "·k³ for " + w.name() + " (" + perCell * 8000 + ", …), got "
                    + atoms);
        }
        this.w = new Workload(w.name(), w.z(), w.lattice(), k, w.checkCells(), w.pair(), w.kelvin(), w.seed(), w.dtPs(), w.skin(), w.neigh(),
                w.potential());
        return this;
    }

    /// Runs the check and the rounds; returns the figures (none without LAMMPS, saying so).
    public Map<String, String> run() throws Exception {
        Workload wl = w;
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.isExecutable(Path.of(lmp)) || !wl.name().equals("lj") && !Files.isDirectory(POTENTIALS)) {
            out.println("peer: " + lmp + " or " + POTENTIALS + " not found; " + (wl.name().startsWith("snap") ? "build LAMMPS with ML-SNAP with "
                    + "scripts/build-lammps-ml.sh" : "install them with: apt-get install -y lammps lammps-data"));
            return m;
        }
        if (java.util.Arrays.stream(threads).anyMatch(t -> t != 1) && serial(lmp)) {
            throw new IllegalArgumentException("option '--threads': " + lmp + " is a serial build (MPI stubs), so only 1 thread compares; "
                    + "install libopenmpi-dev and rebuild it with scripts/build-lammps-ml.sh for more");
        }
        Files.createDirectories(dir);
        m.put("workload", wl.name() + ": " + wl.potential());
        m.put("ensemble", ensemble);
        // the energy check, on a small box
        int small = start(wl, wl.checkCells(), "check");
        List<Double> lammps = new ArrayList<>();
        Files.writeString(dir.resolve("in.check"), input(wl, "check.data", true, 1, 100));
        LammpsRuns.run(lmp, dir, 1, "in.check", false, lammps);
        List<Double> mine = energies(wl, 100);
        double maxRel = 0;
        for (int k = 0; k <= 100; k++) {
            maxRel = Math.max(maxRel, Math.abs(mine.get(k) - lammps.get(k)) / Math.abs(lammps.get(k)));
        }
        out.printf(Locale.ROOT, "energy check: %d atoms, 100 %s steps, %s within %.2e of LAMMPS's at every step%n", small, ensemble,
                ensemble.equals("nve") ? "total energy" : "conserved quantity", maxRel);
        m.put("check_atoms", Integer.toString(small));
        m.put("max_rel_energy_diff_vs_lammps", String.format(Locale.ROOT, "%.3e", maxRel));
        // the timed runs, on the full box
        int n = start(wl, wl.fullCells(), "full");
        Files.writeString(dir.resolve("in.timed"), input(wl, "full.data", false, steps, steps));
        m.put("atoms", Integer.toString(n));
        m.put("steps", Integer.toString(steps));
        for (int t : threads) {
            double[] plain = new double[rounds];
            double[] opt = new double[rounds];
            double[] pen = new double[rounds];
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) { // the order turns each round: the machine's drift hits every side alike
                for (int j = 0; j < 3; j++) {
                    switch ((r + j) % 3) {
                        case 0 -> plain[r] = lammps(t, false);
                        case 1 -> opt[r] = lammps(t, true);
                        default -> pen[r] = simulate(t, steps, "full.xyz", null);
                    }
                }
                ratio[r] = Math.min(plain[r], opt[r]) / pen[r];
                out.printf(Locale.ROOT, "  round %d, %d thread(s): simulate %.2f s, lmp %.2f s, lmp -sf opt %.2f s: ratio %.3f%n", r + 1, t,
                        pen[r], plain[r], opt[r], ratio[r]);
            }
            double p = LammpsRuns.median(pen);
            double best = Math.min(LammpsRuns.median(plain), LammpsRuns.median(opt));
            out.printf(Locale.ROOT, "%s, %d atoms, %d %s steps, %d thread(s) against %d LAMMPS process(es), medians of %d alternating rounds, "
                    + "whole commands: simulate %.2f s, LAMMPS at its best %.2f s: %.3f×%n", wl.name(), n, steps, ensemble.toUpperCase(Locale.ROOT), t, t,
                    rounds, p, best, best / p);
            String tail = t == 1 ? "" : "_" + t + "t";
            m.put("simulate_s" + tail, String.format(Locale.ROOT, "%.3f", p));
            m.put("lammps_plain_s" + tail, String.format(Locale.ROOT, "%.3f", LammpsRuns.median(plain)));
            m.put("lammps_opt_s" + tail, String.format(Locale.ROOT, "%.3f", LammpsRuns.median(opt)));
            m.put("atom_steps_per_s" + tail, String.format(Locale.ROOT, "%.4g", (double) n * steps / p));
            m.put("ratio_vs_lammps" + tail, String.format(Locale.ROOT, "%.3f", best / p));
            m.put("round_ratios" + tail, LammpsRuns.seconds(ratio));
        }
        return m;
    }

    /// Whether `lmp` was built without MPI (its help names the MPI stubs): `mpirun -np 2` would run
    /// two copies of it, not one run on two processes.
    private static boolean serial(String lmp) throws Exception {
        Process p = new ProcessBuilder(lmp, "-h").redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return help.contains("MPI STUBS");
    }

    /// LAMMPS's start of a `cells`³ box (`write_data NAME.data`), and the same atoms and velocities
    /// as extended XYZ (`NAME.xyz`, momenta in ASE's units); returns the atoms.
    private int start(Workload wl, int cells, String name) throws Exception {
        Files.writeString(dir.resolve("in." + name + "-start"), String.join("\n", "units metal", "atom_style atomic", "boundary p p p",
                wl.lattice(), "region box block 0 " + cells + " 0 " + cells + " 0 " + cells, "create_box 1 box", "create_atoms 1 box",
                wl.pair(), String.format(Locale.ROOT, "velocity all create %.10f %d loop geom", wl.kelvin(), wl.seed()),
                "run 0", "write_data " + name + ".data nocoeff", ""));
        LammpsRuns.run(lmp, dir, 1, "in." + name + "-start", false, null);
        AtomicSystem s = LammpsData.read(dir.resolve(name + ".data"), 1, wl.z());
        for (int i = 0; i < s.velocities().length; i++) {
            s.velocities()[i] *= TAU_PS; // Å/ps → Å per ASE time unit
        }
        try (Writer wr = Files.newBufferedWriter(dir.resolve(name + ".xyz"), StandardCharsets.UTF_8)) {
            ExtXyz.write(wr, List.of(s));
        }
        return s.atoms();
    }

    /// LAMMPS reading `data`: `steps` NVE steps, thermo every `thermo`, neighbour lists rebuilt
    /// exactly (`exact`) or as the workload's benchmark does.
    private String input(Workload wl, String data, boolean exact, int thermo, int steps) {
        boolean nve = ensemble.equals("nve");
        String fix = switch (ensemble) {
            case "nvt" -> String.format(Locale.ROOT, "fix 1 all nvt temp %.12g %.12g %.12g", wl.kelvin(), wl.kelvin(), TDAMP_STEPS * wl.dtPs());
            case "npt" -> String.format(Locale.ROOT, "fix 1 all npt temp %.12g %.12g %.12g iso %.12g %.12g %.12g", wl.kelvin(), wl.kelvin(),
                    TDAMP_STEPS * wl.dtPs(), PRESSURE_BAR, PRESSURE_BAR, PDAMP_STEPS * wl.dtPs());
            default -> "fix 1 all nve";
        };
        return String.join("\n", "units metal", "atom_style atomic", "read_data " + data, wl.pair(),
                String.format(Locale.ROOT, "neighbor %.10f bin", wl.skin()),
                "neigh_modify " + (exact ? "delay 0 every 1 check yes" : wl.neigh()), String.format(Locale.ROOT, "timestep %.12g", wl.dtPs()),
                fix, "thermo " + thermo, "thermo_style custom step pe ke etotal" + (nve ? "" : " econserve"), "thermo_modify format float %.17g",
                "run " + steps, "");
    }

    /// The thermostat's relaxation time, in steps (LAMMPS's advice: ~100 time steps).
    private static final int TDAMP_STEPS = 100;
    /// The barostat's relaxation time, in steps (LAMMPS's advice: ~1,000 time steps), and its pressure.
    private static final int PDAMP_STEPS = 1000;
    private static final double PRESSURE_BAR = 1000;
    /// LAMMPS's metal `nktv2p` (bar per eV/Å³): a pressure given to `simulate` as LAMMPS's value
    /// times ASE's over this lands on LAMMPS's internal value
    private static final double NKTV2P = 1.6021765e6;
    /// ASE's femtosecond in Penstock's time unit's terms, and its k_B: a time or temperature given
    /// to `simulate` as LAMMPS's value times these lands on LAMMPS's internal value (to an ulp)
    private static final double ASE_TAU_FS = dev.penstock.atoms.integrate.Units.TAU_FS;
    private static final double ASE_KB = dev.penstock.atoms.integrate.Units.KB_EV_PER_K;

    /// `simulate`'s method for `count` steps: the time step (and tdamp, T) given so that its
    /// internal values are LAMMPS's metal ones (ps / √mvv2e; boltz · T).
    private String method(Workload wl, int count) {
        double dtFs = wl.dtPs() / TAU_PS * ASE_TAU_FS;
        if (ensemble.equals("nvt")) {
            return String.format(Locale.ROOT, "nvt(T=%.17g, tdamp=%.17g, dt=%.17g, steps=%d)", wl.kelvin() * KB_EV / ASE_KB, TDAMP_STEPS * dtFs,
                    dtFs, count);
        }
        if (ensemble.equals("npt")) {
            return String.format(Locale.ROOT, "npt(T=%.17g, P=%.17g, tdamp=%.17g, pdamp=%.17g, dt=%.17g, steps=%d)", wl.kelvin() * KB_EV / ASE_KB,
                    PRESSURE_BAR * dev.penstock.atoms.integrate.Units.BAR_PER_EV_PER_A3 / NKTV2P, TDAMP_STEPS * dtFs, PDAMP_STEPS * dtFs, dtFs,
                    count);
        }
        return String.format(Locale.ROOT, "nve(dt=%.17g, steps=%d)", dtFs, count);
    }

    private double lammps(int procs, boolean opt) throws Exception {
        long t0 = System.nanoTime();
        LammpsRuns.run(lmp, dir, procs, "in.timed", opt, null);
        return (System.nanoTime() - t0) / 1e9;
    }

    /// The total energy at steps 0…`count` of the check box, from `simulate`'s snapshots.
    private List<Double> energies(Workload wl, int count) throws Exception {
        Path snaps = dir.resolve("snapshots");
        simulate(1, count, "check.xyz", snaps);
        List<Double> e = new ArrayList<>();
        List<AtomicSystem> frames = new ArrayList<>(); // steps 0…count−1 in the snapshots, step count the output
        for (Path f : List.of(snaps.resolve("stage-0.xyz"), dir.resolve("out-check.xyz"))) {
            try (BufferedReader in = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                frames.addAll(ExtXyz.read(in, f));
            }
        }
        {
            for (AtomicSystem s : frames) {
                if (!ensemble.equals("nve")) { // the conserved quantity, as LAMMPS's econserve
                    e.add(Double.parseDouble(s.info().get("conserved_energy")));
                    continue;
                }
                double ke = 0;
                double[] v = s.velocities();
                for (int i = 0; i < s.atoms(); i++) {
                    ke += 0.5 * s.masses()[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
                }
                e.add(s.energy() + ke);
            }
        }
        if (e.size() != count + 1) {
            throw new IllegalStateException("simulate's snapshots hold " + e.size() + " frames, not " + (count + 1));
        }
        return e;
    }

    /// Runs `penstock simulate` on `input` as a user runs it — a JVM of its own with this one's
    /// options and class path — for `count` NVE steps on `t` threads; returns its wall time.
    private double simulate(int t, int count, String input, Path snapshots) throws Exception {
        Workload wl = w;
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> !a.startsWith("-agentlib")
                && !a.startsWith("-javaagent")).toList());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.penstock.cli.Main", "simulate", input, "--pipeline",
                method(wl, count), "--potential",
                // the energy check's lists exact, as LAMMPS's there; the timed runs' as LAMMPS's there (lj: every 20 unchecked)
                snapshots != null ? wl.potential().replace(", every=20", "") : wl.potential(), "--threads",
                Integer.toString(t), "--max-atoms", "100000", "-q", "--out", "out-" + input));
        if (snapshots != null) {
            deleteTree(snapshots);
            cmd.addAll(List.of("--snapshots", snapshots.toString(), "--snapshot-every", "1"));
        }
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("penstock simulate failed: " + output);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
