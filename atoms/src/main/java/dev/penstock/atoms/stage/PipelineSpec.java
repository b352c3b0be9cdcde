package dev.penstock.atoms.stage;

import dev.penstock.atoms.integrate.Units;
import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.potential.Eam;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Morse;
import dev.penstock.atoms.potential.StillingerWeber;
import dev.penstock.atoms.potential.Tersoff;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/// The text form of a stage pipeline and a potential, as the `simulate` command takes them:
///
/// ```
///   pipeline   fire(fmax=0.05) + langevin(T=300, dt=1, steps=2000) | nve(dt=1, steps=1000)
///              `+` fuses (one worker, one evaluation per step), `|` chains (a worker each)
///   potential  lj(epsilon=0.0104, sigma=3.4, cutoff=8.5[, shifted=true])
///              morse(depth=0.3429, a=1.3588, r0=2.866, cutoff=9)
///              eam(file=/usr/share/lammps/potentials/Cu_u3.eam)   (also *.eam.alloy, *.eam.fs)
///              sw(file=/usr/share/lammps/potentials/Si.sw)
///              tersoff(file=/usr/share/lammps/potentials/Si.tersoff)
/// ```
///
/// Methods (units: eV, Å, fs, K): `fire`, `fire2`, `fire_mw` (fmax in eV/Å, steps = budget,
/// default 10000, energy = energy-change tolerance, default off; `steps` alone: a step budget
/// only); `langevin` (T, dt, steps,
/// friction in 1/fs, default 0.01); `nve` (dt, steps); `nvt` (T, tdamp in fs, dt, steps, chain
/// default 3, tloop default 1); `npt` (T, P in bar, tdamp, pdamp, dt, steps, couple, chain,
/// pchain, tloop) and `nph` (P, pdamp, dt, steps, couple, pchain, ptemp in K). Errors name the call
/// and the argument.
public final class PipelineSpec {
    private PipelineSpec() {
    }

    /// One `name(key=value, …)` term, at `offset` in the text.
    public record Call(String name, Map<String, String> args, int offset) {
        double number(String key, Double fallback) {
            String v = args.get(key);
            if (v == null) {
                if (fallback == null) {
                    throw new IllegalArgumentException("'" + name + "' needs '" + key + "' (at character " + offset + ")");
                }
                return fallback;
            }
            double d;
            try {
                d = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + name + "': '" + key + "' must be a number, got '" + v + "'");
            }
            if (!Double.isFinite(d)) {
                throw new IllegalArgumentException("'" + name + "': '" + key + "' must be a finite number, got '" + v + "'");
            }
            return d;
        }

        /// A number that must be > 0 (`strict`) or ≥ 0, checked as the user wrote it, in `unit`.
        double atLeastZero(String key, Double fallback, boolean strict, String unit) {
            double d = number(key, fallback);
            if (strict ? !(d > 0) : !(d >= 0)) {
                throw new IllegalArgumentException("'" + name + "': '" + key + "' must be " + (strict ? "> 0" : "≥ 0") + unit
                        + ", got " + args.getOrDefault(key, String.valueOf(d)) + unit + " (at character " + offset + ")");
            }
            return d;
        }

        long count(String key, Long fallback) {
            double d = number(key, fallback == null ? null : fallback.doubleValue());
            if (d != Math.rint(d) || d < 0) {
                throw new IllegalArgumentException("'" + name + "': '" + key + "' must be a whole number ≥ 0, got '" + args.get(key) + "'");
            }
            return (long) d;
        }

        void only(Set<String> allowed) {
            for (String k : args.keySet()) {
                if (!allowed.contains(k)) {
                    throw new IllegalArgumentException("'" + name + "' has no argument '" + k + "' (it takes " + String.join(", ", allowed) + ")");
                }
            }
        }
    }

    /// Parses `text` into stages (split by `|`) of fused calls (split by `+`).
    public static List<List<Call>> parse(String text) {
        List<List<Call>> stages = new ArrayList<>();
        int offset = 0;
        for (String stage : text.split("\\|", -1)) {
            List<Call> fused = new ArrayList<>();
            int inner = offset;
            for (String term : stage.split("\\+", -1)) {
                fused.add(call(term, inner));
                inner += term.length() + 1;
            }
            stages.add(fused);
            offset += stage.length() + 1;
        }
        return stages;
    }

    /// Parses one `name(key=value, …)` (the parentheses may be omitted when there are no arguments).
    public static Call call(String term, int offset) {
        String t = term.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("empty stage at character " + offset + " (two '|' or '+' in a row?)");
        }
        int open = t.indexOf('(');
        String name = (open < 0 ? t : t.substring(0, open)).strip();
        if (!name.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("'" + t + "' at character " + offset + " is not a call like name(key=value, …)");
        }
        Map<String, String> args = new LinkedHashMap<>();
        if (open >= 0) {
            if (!t.endsWith(")")) {
                throw new IllegalArgumentException("'" + t + "' at character " + offset + ": missing ')'");
            }
            String inside = t.substring(open + 1, t.length() - 1).strip();
            if (!inside.isEmpty()) {
                for (String kv : inside.split(",")) {
                    int eq = kv.indexOf('=');
                    if (eq < 0) {
                        throw new IllegalArgumentException("'" + name + "': '" + kv.strip() + "' is not key=value");
                    }
                    String key = kv.substring(0, eq).strip();
                    if (args.put(key, kv.substring(eq + 1).strip()) != null) {
                        throw new IllegalArgumentException("'" + name + "': '" + key + "' given twice");
                    }
                }
            }
        }
        return new Call(name, args, offset);
    }

    /// A factory of the potential `text` describes (each stage worker gets its own instance): one
    /// call, or calls joined by `+` — a sum (`ModelSum`, LAMMPS's `hybrid/overlay`), each part
    /// computed whole and the energies, forces and virials added.
    public static Supplier<? extends Model> potential(String text) {
        List<String> terms = new java.util.ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int k = 0; k < text.length(); k++) {
            char ch = text.charAt(k);
            depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
            if (ch == '+' && depth == 0) {
                terms.add(text.substring(from, k));
                from = k + 1;
            }
        }
        terms.add(text.substring(from));
        if (terms.size() == 1) {
            return single(text);
        }
        List<Supplier<? extends Model>> parts = new java.util.ArrayList<>();
        for (String t : terms) {
            if (t.isBlank()) {
                throw new IllegalArgumentException("potential '" + text.strip() + "': an empty term around '+'");
            }
            parts.add(single(t));
        }
        return () -> new dev.penstock.atoms.potential.ModelSum(parts.stream().map(Supplier::get).toList());
    }

    private static Supplier<? extends Model> single(String text) {
        Call c = call(text, 0);
        return switch (c.name()) {
            case "lj" -> {
                c.only(Set.of("epsilon", "sigma", "cutoff", "shifted", "every"));
                double eps = c.number("epsilon", null);
                double sigma = c.number("sigma", null);
                double cutoff = c.number("cutoff", 2.5 * sigma);
                boolean shifted = !"false".equals(c.args().getOrDefault("shifted", "true"));
                int every = every(c);
                new LennardJones(eps, sigma, cutoff, shifted).rebuildEvery(every); // validates now, not in a worker
                yield () -> new LennardJones(eps, sigma, cutoff, shifted).rebuildEvery(every);
            }
            case "morse" -> {
                c.only(Set.of("depth", "a", "r0", "cutoff", "every"));
                double d = c.number("depth", null);
                double a = c.number("a", null);
                double r0 = c.number("r0", null);
                double cutoff = c.number("cutoff", null);
                int every = every(c);
                new Morse(d, a, r0, cutoff).rebuildEvery(every);
                yield () -> new Morse(d, a, r0, cutoff).rebuildEvery(every);
            }
            case "zbl" -> {
                c.only(Set.of("inner", "outer"));
                double inner = c.number("inner", null);
                double outer = c.number("outer", null);
                new dev.penstock.atoms.potential.Zbl(inner, outer); // validates now, not in a worker
                yield () -> new dev.penstock.atoms.potential.Zbl(inner, outer);
            }
            case "snap" -> {
                c.only(Set.of("file", "coeff", "param"));
                String file = c.args().get("file");
                String coeff = c.args().get("coeff");
                String param = c.args().get("param");
                try {
                    if (file != null && coeff == null && param == null) {
                        yield dev.penstock.atoms.potential.LammpsPairFile.read(java.nio.file.Path.of(file));
                    }
                    if (file == null && coeff != null && param != null) {
                        yield dev.penstock.atoms.potential.Snap.read(java.nio.file.Path.of(coeff), java.nio.file.Path.of(param))::fresh;
                    }
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("'snap': " + e.getMessage(), e);
                }
                throw new IllegalArgumentException("'snap' needs either 'file' (a LAMMPS *.snap definition) or both 'coeff' (*.snapcoeff) "
                        + "and 'param' (*.snapparam)");
            }
            case "mliap" -> {
                c.only(Set.of("file", "model", "descriptor", "kind"));
                String file = c.args().get("file");
                String model = c.args().get("model");
                String descriptor = c.args().get("descriptor");
                try {
                    if (file != null && model == null && descriptor == null) {
                        yield dev.penstock.atoms.potential.LammpsPairFile.read(java.nio.file.Path.of(file));
                    }
                    if (file == null && model != null && descriptor != null) {
                        String kind = c.args().getOrDefault("kind", "nn");
                        yield dev.penstock.atoms.potential.Mliap.read(kind, java.nio.file.Path.of(model), java.nio.file.Path.of(descriptor))::fresh;
                    }
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("'mliap': " + e.getMessage(), e);
                }
                throw new IllegalArgumentException("'mliap' needs either 'file' (a LAMMPS *.mliap definition) or 'model' (*.mliap.model) and "
                        + "'descriptor' (*.mliap.descriptor, SNAP), with 'kind' linear, quadratic or nn (default nn)");
            }
            case "eam" -> fromFile(c, "a LAMMPS *.eam, *.eam.alloy or *.eam.fs file", path -> Eam.read(path)::fresh);
            case "sw" -> fromFile(c, "a LAMMPS *.sw file", path -> StillingerWeber.read(path)::fresh);
            case "tersoff" -> fromFile(c, "a LAMMPS *.tersoff file", path -> Tersoff.read(path)::fresh);
            default -> throw new IllegalArgumentException("unknown potential '" + c.name() + "' (known: lj, morse, zbl, eam, sw, tersoff, snap, mliap)");
        };
    }

    /// A pair potential's `every`: rebuild its neighbour lists every N steps unchecked (0, the
    /// default: whenever an atom has moved half the skin).
    private static int every(Call c) {
        String v = c.args().getOrDefault("every", "0");
        try {
            int n = Integer.parseInt(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("'" + c.name() + "': 'every' must be a whole number of steps, 0 or more, got '" + v + "'");
    }

    /// The methods and potentials this parser knows, with their arguments, defaults and units (for
    /// `simulate --list`; kept beside the parser so the two agree).
    public static String catalog() {
        return """
                Methods (stages; '+' fuses sub-stages on one worker, '|' chains workers):
                  fire(fmax=EV_PER_A, steps=10000, energy=0)   FIRE in ASE-exact mode until max |F| < fmax (eV/Å)
                                                               and, if energy > 0, |ΔE| < energy (eV), or `steps`
                                                               are spent (the system is then 'unconverged', exit 6);
                                                               fire(steps=N) alone: N steps, a step budget only
                  fire2(fmax=…, steps=10000, energy=0)         FIRE 2.0, same arguments
                  fire_mw(fmax=…, steps=10000, energy=0)       FIRE with mass-weighted velocity updates
                  fire_cell(fmax=EV_PER_A, steps=10000, P=0, mask=111111, hydrostatic=false)
                                                               FIRE over the atoms and the cell together: ASE's
                                                               FIRE(UnitCellFilter(atoms, scalar_pressure=P)) step for
                                                               step; P in bar; mask: the strain components relaxed,
                                                               Voigt xx yy zz yz xz xy (1 relaxed, 0 fixed);
                                                               periodic systems only
                  fire2_cell(fmax=…, steps=10000, P=0, mask=111111, hydrostatic=false)
                                                               FIRE 2.0 over the same atoms-and-cell degrees of freedom
                                                               (the cell's rows weigh the mean atomic mass)
                  langevin(T=K, dt=FS, steps=N, friction=0.01) Langevin BAOAB at T (K), time step dt (fs), friction
                                                               (1/fs), for `steps` steps (required); noise keyed by --seed
                  nve(dt=FS, steps=N)                          velocity Verlet, time step dt (fs), `steps` (required)
                  nvt(T=K, tdamp=FS, dt=FS, steps=N, chain=3, tloop=1)
                                                               Nosé-Hoover chain thermostat at T (K), relaxation time
                                                               tdamp (fs; ~100 dt), `chain` thermostats (≤ 5): LAMMPS's
                                                               fix nvt; 3N-3 degrees of freedom; the output's info has
                                                               temperature (K), conserved_energy and its drift (eV)
                  npt(T=K, P=BAR, tdamp=FS, pdamp=FS, dt=FS, steps=N, couple=iso, chain=3, pchain=3, tloop=1)
                                                               Nosé-Hoover thermostat and MTK barostat at pressure P
                                                               (bar; ~1000 dt for pdamp): LAMMPS's fix npt (MTK terms,
                                                               drag 0, dilate all); couple=iso (one volume), aniso (each
                                                               axis), tri (axes and tilts; aniso/tri need LAMMPS's cell
                                                               orientation); periodic systems only; the cell changes;
                                                               info: pressure, pressure_tensor (eV/Å³), volume (Å³),
                                                               conserved_energy
                  nph(P=BAR, pdamp=FS, dt=FS, steps=N, couple=iso, pchain=3, ptemp=K)
                                                               the barostat alone: LAMMPS's fix nph; its masses take
                                                               each system's starting temperature, or ptemp (K)
                Potentials (--potential):
                  lj(epsilon=EV, sigma=A, cutoff=2.5*sigma, shifted=true, every=0)
                                       Lennard-Jones (eV, Å), cut and shifted at cutoff (Å); neighbour lists (skin 0.3σ)
                                       rebuilt when an atom has moved half the skin, or with every=N every N steps
                                       unchecked (LAMMPS's neigh_modify every N check no; a warning if pairs may be missed)
                  morse(depth=EV, a=PER_A, r0=A, cutoff=A, every=0)        Morse (eV, 1/Å, Å), shifted to 0 at cutoff
                  zbl(inner=A, outer=A)    Ziegler-Biersack-Littmark screened nuclear repulsion (LAMMPS's pair_style zbl),
                                           the atoms' atomic numbers as charges, switched to 0 from inner to outer (Å)
                  eam(file=PATH)       embedded atom from a LAMMPS *.eam (funcfl), *.eam.alloy (setfl) or *.eam.fs file
                  sw(file=PATH)        Stillinger-Weber from a LAMMPS *.sw file (multi-element)
                  tersoff(file=PATH)   Tersoff from a LAMMPS *.tersoff file (multi-element)
                  snap(coeff=PATH, param=PATH)   SNAP (LAMMPS's pair_style snap) from *.snapcoeff and *.snapparam files
                  snap(file=PATH)      a LAMMPS *.snap definition read whole (SNAP, or ZBL overlaid on SNAP)
                  mliap(model=PATH, descriptor=PATH, kind=nn)   ML-IAP (LAMMPS's pair_style mliap): a linear, quadratic
                                       or nn model of the SNAP descriptor
                  mliap(file=PATH)     a LAMMPS *.mliap definition read whole (ML-IAP, or ZBL overlaid on it)
                  (Debian's lammps-data ships such files under /usr/share/lammps/potentials.)
                  A + B + …            a sum of potentials, as LAMMPS's pair_style hybrid/overlay: e.g.
                                       "zbl(inner=3, outer=4) + eam(file=Cu_u3.eam)"
                """;
    }

    /// A model read from a potential file, once (`file=PATH`, the only argument); a bad file fails
    /// here, before anything runs.
    private interface FileModel {
        Supplier<? extends Model> read(java.nio.file.Path file) throws java.io.IOException;
    }

    private static Supplier<? extends Model> fromFile(Call c, String what, FileModel reader) {
        c.only(Set.of("file"));
        String file = c.args().get("file");
        if (file == null || file.isBlank()) {
            throw new IllegalArgumentException("'" + c.name() + "' needs 'file' (" + what + ")");
        }
        try {
            return reader.read(java.nio.file.Path.of(file));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(file + ": cannot be read: " + e.getMessage());
        }
    }

    /// Checks one call: a method this spec knows (`fire`, `fire2`, `fire_mw`, `langevin`,
    /// `nve`, `nvt`, `npt`, `nph`) with its arguments in range; otherwise an error naming the call, the argument and
    /// where it is. Every stage builder asks it before anything runs.
    public static void check(Call c) {
        switch (c.name()) {
            case "fire", "fire2", "fire_mw" -> convergence(c);
            case "fire_cell", "fire2_cell" -> cellRelaxation(c);
            case "langevin" -> langevin(c);
            case "nve" -> verlet(c);
            case "nvt" -> noseHoover(c);
            case "npt", "nph" -> barostat(c);
            default -> throw new IllegalArgumentException("unknown method '" + c.name() + "' at character " + c.offset()
                    + " (known: fire, fire2, fire_mw, fire_cell, fire2_cell, langevin, nve, nvt, npt, nph)");
        }
    }

    /// The convergence rule of a relaxation call (`fire`, `fire2`, `fire_mw`): fmax, energy, steps;
    /// `steps` without `fmax` is a step budget only (`Convergence.budgetOnly`: its systems are not
    /// said to be unconverged).
    public static Convergence convergence(Call c) {
        c.only(Set.of("fmax", "steps", "energy"));
        if (!c.args().containsKey("fmax")) {
            if (!c.args().containsKey("steps") || c.args().containsKey("energy")) {
                throw new IllegalArgumentException("'" + c.name() + "' needs 'fmax' (the force criterion, eV/Å), or 'steps' alone for "
                        + "a step budget only (at character " + c.offset() + ")");
            }
            return Convergence.budgetOnly((int) Math.min(Integer.MAX_VALUE, c.count("steps", null)));
        }
        return new Convergence(c.atLeastZero("fmax", null, true, " eV/Å"), c.atLeastZero("energy", 0.0, false, " eV"),
                (int) Math.min(Integer.MAX_VALUE, c.count("steps", 10_000L)));
    }

    /// The sub-stage of a `fire_cell` (or `fire2_cell`: FIRE 2.0) call: fmax (eV/Å, required), steps (default 10,000), P (bar,
    /// default 0), mask (six 0/1 digits, Voigt xx yy zz yz xz xy; default 111111), hydrostatic
    /// (true/false, default false): ASE's `FIRE(UnitCellFilter(atoms, mask, hydrostatic_strain,
    /// scalar_pressure=P))`.
    public static dev.penstock.atoms.device.SubStage.CellRelaxation cellRelaxation(Call c) {
        c.only(Set.of("fmax", "steps", "P", "mask", "hydrostatic"));
        Convergence rule = new Convergence(c.atLeastZero("fmax", null, true, " eV/Å"), 0,
                (int) Math.min(Integer.MAX_VALUE, c.count("steps", 10_000L)));
        double p = c.number("P", 0.0) / Units.BAR_PER_EV_PER_A3;
        String m = c.args().getOrDefault("mask", "111111");
        if (!m.matches("[01]{6}")) {
            throw new IllegalArgumentException("'" + c.name() + "': 'mask' must be six 0/1 digits (Voigt xx yy zz yz xz xy: 1 relaxed), got '"
                    + m + "' (at character " + c.offset() + ")");
        }
        int[] mask = new int[6];
        for (int q = 0; q < 6; q++) {
            mask[q] = m.charAt(q) - '0';
        }
        String h = c.args().getOrDefault("hydrostatic", "false");
        if (!h.equals("true") && !h.equals("false")) {
            throw new IllegalArgumentException("'" + c.name() + "': 'hydrostatic' must be true or false, got '" + h + "' (at character "
                    + c.offset() + ")");
        }
        return new dev.penstock.atoms.device.SubStage.CellRelaxation(rule, p, mask, h.equals("true"), c.name().equals("fire2_cell"));
    }

    /// The parameters of an `nve` call.
    ///
    /// @param dt    the time step, τ
    /// @param steps the step budget
    public record Verlet(double dt, long steps) {
    }

    /// The time step (from fs) and step budget of an `nve` call: dt, steps (required).
    public static Verlet verlet(Call c) {
        c.only(Set.of("dt", "steps"));
        return new Verlet(Units.fsToTau(c.atLeastZero("dt", null, true, " fs")), requireSteps(c));
    }

    /// The parameters of a `langevin` call, in the units of the integrators.
    ///
    /// @param dt    the time step, τ
    /// @param kT    the temperature, eV
    /// @param gamma the friction, 1/τ
    /// @param steps the step budget
    public record Thermostat(double dt, double kT, double gamma, long steps) {
    }

    /// The parameters of a `langevin` call: T (K), dt (fs), steps (both required), friction
    /// (1/fs, default 0.01).
    public static Thermostat langevin(Call c) {
        c.only(Set.of("T", "dt", "steps", "friction"));
        double kT = Units.KB_EV_PER_K * c.atLeastZero("T", null, false, " K");
        double dt = Units.fsToTau(c.atLeastZero("dt", null, true, " fs"));
        double gamma = c.atLeastZero("friction", 0.01, false, " 1/fs") * Units.TAU_FS; // 1/fs → 1/τ
        return new Thermostat(dt, kT, gamma, requireSteps(c));
    }

    /// The parameters of an `nvt` call, in the units of the integrators.
    ///
    /// @param dt    the time step, τ
    /// @param kT    the temperature, eV
    /// @param tdamp the thermostat's relaxation time, τ
    /// @param chain the thermostats in the chain
    /// @param tloop the loops per half step
    /// @param steps the step budget
    public record NoseHoover(double dt, double kT, double tdamp, int chain, int tloop, long steps) {
    }

    /// The parameters of an `nvt` call: T (K), tdamp (fs), dt (fs), steps (all required), chain
    /// (default 3, at most 5), tloop (default 1): LAMMPS's `fix nvt temp T T tdamp tchain C tloop L`.
    public static NoseHoover noseHoover(Call c) {
        c.only(Set.of("T", "tdamp", "dt", "steps", "chain", "tloop"));
        double kT = Units.KB_EV_PER_K * c.atLeastZero("T", null, true, " K");
        double tdamp = Units.fsToTau(c.atLeastZero("tdamp", null, true, " fs"));
        double dt = Units.fsToTau(c.atLeastZero("dt", null, true, " fs"));
        long chain = c.count("chain", 3L);
        if (chain < 1 || chain > dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN) {
            throw new IllegalArgumentException("'" + c.name() + "': 'chain' must be 1 … " + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN
                    + ", got " + chain + " (at character " + c.offset() + ")");
        }
        long tloop = c.count("tloop", 1L);
        if (tloop < 1 || tloop > 100) {
            throw new IllegalArgumentException("'" + c.name() + "': 'tloop' must be 1 … 100, got " + tloop + " (at character " + c.offset() + ")");
        }
        return new NoseHoover(dt, kT, tdamp, (int) chain, (int) tloop, requireSteps(c));
    }

    /// The sub-stage of an `npt` call — T (K), P (bar), tdamp, pdamp, dt (fs), steps (all
    /// required), couple (iso, aniso or tri; default iso), chain and pchain (default 3, at most 5),
    /// tloop (default 1): LAMMPS's `fix npt temp T T tdamp iso|aniso|tri P P pdamp tchain C pchain
    /// C' tloop L` — or of an `nph` call: P, pdamp, dt, steps, couple, pchain, ptemp (K; default: each
    /// system's own temperature at its start).
    public static dev.penstock.atoms.device.SubStage.Barostat barostat(Call c) {
        boolean npt = c.name().equals("npt");
        c.only(npt ? Set.of("T", "P", "tdamp", "pdamp", "dt", "steps", "couple", "chain", "pchain", "tloop")
                : Set.of("P", "pdamp", "dt", "steps", "couple", "pchain", "ptemp"));
        double kT = npt ? Units.KB_EV_PER_K * c.atLeastZero("T", null, true, " K") : 0;
        double p = c.number("P", null) / Units.BAR_PER_EV_PER_A3;
        double tdamp = npt ? Units.fsToTau(c.atLeastZero("tdamp", null, true, " fs")) : 1;
        double pdamp = Units.fsToTau(c.atLeastZero("pdamp", null, true, " fs"));
        double dt = Units.fsToTau(c.atLeastZero("dt", null, true, " fs"));
        String couple = c.args().getOrDefault("couple", "iso");
        int kind = switch (couple) {
            case "iso" -> dev.penstock.atoms.integrate.Mtk.ISO;
            case "aniso" -> dev.penstock.atoms.integrate.Mtk.ANISO;
            case "tri" -> dev.penstock.atoms.integrate.Mtk.TRI;
            default -> throw new IllegalArgumentException("'" + c.name() + "': 'couple' must be iso, aniso or tri, got '" + couple
                    + "' (at character " + c.offset() + ")");
        };
        long chain = npt ? c.count("chain", 3L) : 1;
        long pchain = c.count("pchain", 3L);
        if (chain < 1 || chain > dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN || pchain > dev.penstock.atoms.integrate.Mtk.MAX_CHAIN) {
            throw new IllegalArgumentException("'" + c.name() + "': 'chain' must be 1 … " + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN
                    + " and 'pchain' 0 … " + dev.penstock.atoms.integrate.Mtk.MAX_CHAIN + ", got " + chain + ", " + pchain + " (at character "
                    + c.offset() + ")");
        }
        long tloop = npt ? c.count("tloop", 1L) : 1;
        if (tloop < 1 || tloop > 100) {
            throw new IllegalArgumentException("'" + c.name() + "': 'tloop' must be 1 … 100, got " + tloop + " (at character " + c.offset() + ")");
        }
        double ptemp = npt ? 0 : Units.KB_EV_PER_K * c.atLeastZero("ptemp", 0.0, false, " K");
        return new dev.penstock.atoms.device.SubStage.Barostat(dt, npt, kT, tdamp, (int) chain, (int) tloop, ptemp,
                new dev.penstock.atoms.integrate.Mtk.Settings(kind, p, 1 / pdamp, (int) pchain), requireSteps(c));
    }

    private static long requireSteps(Call c) {
        if (!c.args().containsKey("steps")) {
            throw new IllegalArgumentException("'" + c.name() + "' needs 'steps' (a step budget): without one its systems would never finish");
        }
        return c.count("steps", null);
    }
}
