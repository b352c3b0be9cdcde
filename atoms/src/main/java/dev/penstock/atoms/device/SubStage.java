package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.ALPHA;
import static dev.penstock.atoms.device.RelaxColumns.DONE;
import static dev.penstock.atoms.device.RelaxColumns.DT;
import static dev.penstock.atoms.device.RelaxColumns.NSTEPS;
import static dev.penstock.atoms.device.RelaxColumns.PREV_ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.STARTED;
import static dev.penstock.atoms.device.RelaxColumns.SUB;
import static dev.penstock.atoms.device.RelaxColumns.TAKEN;

import dev.penstock.atoms.optimize.Convergence;
import dev.penstock.atoms.optimize.Fire;
import dev.penstock.device.Stream;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/// What one sub-stage of a packed device stage (`PackedStage`) does to its systems: FIRE
/// (ASE-exact), velocity Verlet or Langevin BAOAB, each as the kernels it enqueues around a
/// step's shared evaluation, the state a system starts it with, whether a system is finished on
/// entry, and its motion state in a checkpoint — in the per-system motions' format (`Methods`),
/// so a checkpoint reads the same either way.
///
/// Why one file over 400 lines: the sealed family of sub-stages — each a record of its
/// parameters with its kernels, entry rule, checkpoint format and `describe` — whose formats
/// must stay those of the per-system motions, read side by side; the Nosé–Hoover chain's
/// checkpoint and energy helpers are shared by the barostat here.
public sealed interface SubStage permits SubStage.Optimising, SubStage.Dynamics {
    /// Enqueues the move before the step's evaluation of the systems in sub-stage `sub`.
    void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub);

    /// Enqueues the move after the evaluation, and the check that sets `DONE`, of sub-stage `sub`.
    void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub);

    /// Whether a system entering with this max |F_i| and energy is finished at once (the
    /// per-system motion's `finished` before its first step).
    boolean finishedOnEntry(double fmax, double energy);

    /// The time step a system starts this sub-stage with.
    double startDt();

    /// The mixing α a system starts this sub-stage with (FIRE's; unused by dynamics).
    default double startAlpha() {
        return Fire.ASTART;
    }

    /// Writes row `k`'s motion state from host columns `c` (taken is written by the caller).
    default void save(DataOutput out, RelaxColumns c, int k) throws IOException {
    }

    /// Writes what this sub-stage knows of row `x` of host columns `c` into `s` (its atoms already
    /// unpacked into it) — a Nosé–Hoover system's temperature and conserved quantity in its info.
    /// Default: nothing.
    default void describe(dev.penstock.atoms.system.AtomicSystem s, RelaxColumns c, int x) {
    }

    /// Why this sub-stage could never take `s`, or null (default: it takes any system the model
    /// takes). Asked before the run, for every system a stage is given.
    default String refusal(dev.penstock.atoms.system.AtomicSystem s) {
        return null;
    }

    /// Reads back what `save` wrote into staging row `k` (which has `taken` steps); returns
    /// whether the motion had started.
    default boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
        return taken > 0;
    }

    /// Row `k` of host columns `c` entering sub-stage `sub` of `stage`: no steps taken there,
    /// FIRE's starting dt and α (its velocities zeroed by its first step) or the time step.
    static void enter(SubStage stage, RelaxColumns c, int k, int sub) {
        c.setInt(SUB, k, sub);
        c.setInt(TAKEN, k, 0);
        c.setInt(NSTEPS, k, 0);
        c.setInt(STARTED, k, 0);
        c.setInt(DONE, k, 0);
        c.setDouble(PREV_ENERGY, k, Double.NaN);
        c.setDouble(DT, k, stage.startDt());
        c.setDouble(ALPHA, k, stage.startAlpha());
    }

    /// An optimiser under a convergence rule: the check after the evaluation is the rule's, and a
    /// system is finished on entry if it already meets it (or has no steps to take).
    sealed interface Optimising extends SubStage permits Relaxation, Fire2Relaxation, CellRelaxation {
        /// The convergence rule and step budget.
        Convergence rule();

        @Override
        default void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub) {
            k.check(s, c, systems, rule().fmax(), rule().energyTolerance(), rule().maxSteps(), sub);
        }

        @Override
        default boolean finishedOnEntry(double fmax, double energy) {
            return rule().converged(fmax, energy, Double.NaN) || rule().maxSteps() <= 0;
        }

        /// What both FIREs' checkpoints begin with: the energy before the last step, dt, α, N.
        static void saveState(DataOutput out, RelaxColumns c, int k) throws IOException {
            out.writeDouble(c.getDouble(PREV_ENERGY, k));
            out.writeDouble(c.getDouble(DT, k));
            out.writeDouble(c.getDouble(ALPHA, k));
            out.writeInt(c.getInt(NSTEPS, k));
        }

        /// Reads what `saveState` wrote into row `k` of `staging`.
        static void restoreState(DataInput in, RelaxColumns staging, int k) throws IOException {
            staging.setDouble(PREV_ENERGY, k, in.readDouble());
            staging.setDouble(DT, k, in.readDouble());
            staging.setDouble(ALPHA, k, in.readDouble());
            staging.setInt(NSTEPS, k, in.readInt());
        }
    }

    /// FIRE (ASE-exact, or `massWeighted`: v += dt·F/m, `fire_mw`) until `rule` says converged or
    /// its step budget is spent.
    ///
    /// @param rule         the convergence rule and budget
    /// @param massWeighted whether the velocity update divides by the masses
    record Relaxation(Convergence rule, boolean massWeighted) implements Optimising {
        /// ASE-exact FIRE under `rule`.
        public Relaxation(Convergence rule) {
            this(rule, false);
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.fireStep(s, c, systems, massWeighted, maxStep2, sub);
        }

        @Override
        public double startDt() {
            return Fire.DT;
        }

        /// The energy before the last step, then `Fire.save`'s dt, α, N, started.
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            Optimising.saveState(out, c, k);
            out.writeBoolean(c.getInt(STARTED, k) != 0);
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            Optimising.restoreState(in, staging, k);
            boolean started = in.readBoolean();
            staging.setInt(STARTED, k, started ? 1 : 0);
            return started;
        }
    }

    /// FIRE 2.0 (`dev.penstock.atoms.optimize.Fire2`, `fire2`) until `rule` says converged or its
    /// step budget is spent: its steps taken are `TAKEN`, its positive-power run `NSTEPS`, its last
    /// step the per-atom `last` column.
    ///
    /// @param rule the convergence rule and budget
    record Fire2Relaxation(Convergence rule) implements Optimising {
        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.fire2Step(s, c, systems, maxStep2, sub);
        }

        @Override
        public double startDt() {
            return dev.penstock.atoms.optimize.Fire2.START_DT;
        }

        @Override
        public double startAlpha() {
            return dev.penstock.atoms.optimize.Fire2.START_ALPHA;
        }

        /// As `Methods`' relaxing motion with `Fire2.save`: the energy before the last step, dt,
        /// α, the positive-power run, the steps taken, then the last step (none before the first).
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            Optimising.saveState(out, c, k);
            int taken = c.getInt(TAKEN, k);
            out.writeInt(taken);
            int n3 = taken == 0 ? 0 : 3 * c.getInt(RelaxColumns.COUNT, k);
            out.writeInt(n3);
            long start = 3L * c.getInt(RelaxColumns.START, k);
            for (int i = 0; i < n3; i++) {
                out.writeDouble(c.last().getDouble(start + i));
            }
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            Optimising.restoreState(in, staging, k);
            int stepIndex = in.readInt();
            if (stepIndex != taken) {
                throw new IllegalStateException("its FIRE 2.0 has taken " + stepIndex + " steps after " + taken + " (a device stage counts one)");
            }
            int n3 = in.readInt();
            for (int i = 0; i < n3; i++) {
                staging.last().setDouble(i, in.readDouble()); // a restored system is staging's first rows
            }
            return taken > 0;
        }
    }

    /// FIRE (ASE-exact) over each system's atoms and cell together — ASE 3.22's `FIRE(UnitCellFilter(
    /// atoms, mask, hydrostatic_strain, scalar_pressure=p))` step for step (`CellFilter`) — or, with
    /// `fire2`, FIRE 2.0 (`Fire2`) over the same degrees of freedom (the cell's rows weighing the
    /// system's mean atomic mass), until `rule` says converged (max |g| over the atoms' rows and the
    /// cell's below fmax) or its budget is spent. Its starting cell is the system's cell as it
    /// enters; the cell is then the system's own. Periodic systems only.
    ///
    /// @param rule        the convergence rule and budget (its energy tolerance unused: 0)
    /// @param p           the scalar pressure, eV/Å³
    /// @param mask        the relaxed strain components, Voigt xx yy zz yz xz xy (1 relaxed, 0 fixed)
    /// @param hydrostatic whether the cell only scales (ASE's `hydrostatic_strain`)
    /// @param fire2       FIRE 2.0 rather than ASE's FIRE
    record CellRelaxation(Convergence rule, double p, int[] mask, boolean hydrostatic, boolean fire2) implements Optimising {
        /// Validates.
        public CellRelaxation {
            if (!Double.isFinite(p) || mask.length != 6) {
                throw new IllegalArgumentException("fire_cell: 'P' must be finite and 'mask' six 0/1 flags, got " + p + ", "
                        + java.util.Arrays.toString(mask));
            }
            mask = mask.clone();
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.fireCellStep(s, c, systems, this, maxStep2, sub);
        }

        @Override
        public void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub) {
            k.cellForces(s, c, systems, this, sub);
            Optimising.super.after(k, s, c, systems, atoms, sub);
        }

        /// Finished on entry only with no steps to take: the atoms' max |F| a fused stage hands
        /// over is not the filter's (the cell's rows), which the first step's check judges.
        @Override
        public boolean finishedOnEntry(double fmax, double energy) {
            return rule().maxSteps() <= 0;
        }

        @Override
        public double startDt() {
            return fire2 ? dev.penstock.atoms.optimize.Fire2.START_DT : Fire.DT;
        }

        @Override
        public double startAlpha() {
            return fire2 ? dev.penstock.atoms.optimize.Fire2.START_ALPHA : Fire.ASTART;
        }

        /// `fire_cell` or `fire2_cell`.
        public String name() {
            return fire2 ? "fire2_cell" : "fire_cell";
        }

        @Override
        public String refusal(dev.penstock.atoms.system.AtomicSystem s) {
            for (int d = 0; d < 3; d++) {
                if (!s.periodic(d)) {
                    return "system " + s.id() + " is not periodic along every axis: stage '" + name() + "' relaxes a periodic cell";
                }
            }
            return null;
        }

        /// As `Relaxation`'s (`fire2`: the steps taken and the atoms' last step, as `Fire2Relaxation`'s),
        /// then the starting cell, the cell's velocities and (`fire2`) its last step.
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            Optimising.saveState(out, c, k);
            if (fire2) {
                out.writeInt(c.getInt(TAKEN, k));
                int n3 = 3 * c.getInt(RelaxColumns.COUNT, k);
                long start = 3L * c.getInt(RelaxColumns.START, k);
                for (int i = 0; i < n3; i++) {
                    out.writeDouble(c.last().getDouble(start + i));
                }
            } else {
                out.writeBoolean(c.getInt(STARTED, k) != 0);
            }
            for (int q = 0; q < 27; q++) {
                out.writeDouble(c.getDouble(RelaxColumns.CELL_START + q, k));
            }
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            Optimising.restoreState(in, staging, k);
            boolean started = taken > 0;
            if (fire2) {
                int stepIndex = in.readInt();
                if (stepIndex != taken) {
                    throw new IllegalStateException("its FIRE 2.0 has taken " + stepIndex + " steps after " + taken + " (a device stage counts one)");
                }
                int n3 = 3 * staging.getInt(RelaxColumns.COUNT, k);
                for (int i = 0; i < n3; i++) {
                    staging.last().setDouble(i, in.readDouble()); // a restored system is staging's first rows
                }
            } else {
                started = in.readBoolean();
                staging.setInt(STARTED, k, started ? 1 : 0);
            }
            for (int q = 0; q < 27; q++) {
                staging.setDouble(RelaxColumns.CELL_START + q, k, in.readDouble());
            }
            return started;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CellRelaxation r && r.rule.equals(rule) && Double.compare(r.p, p) == 0
                    && java.util.Arrays.equals(r.mask, mask) && r.hydrostatic == hydrostatic && r.fire2 == fire2;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(rule, p, java.util.Arrays.hashCode(mask), hydrostatic, fire2);
        }
    }

    /// Dynamics for a budget of steps of a time step: the last half kick and the budget after the
    /// evaluation, finished on entry only with no steps to take.
    sealed interface Dynamics extends SubStage permits Verlet, Thermostat, NoseHoover, Barostat {
        /// The time step, τ.
        double dt();

        /// The step budget.
        long steps();

        @Override
        default void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub) {
            k.nveAfter(s, c, systems, atoms, sub);
            k.check(s, c, systems, Double.NEGATIVE_INFINITY, 0, (int) steps(), sub);
        }

        @Override
        default boolean finishedOnEntry(double fmax, double energy) {
            return steps() <= 0;
        }

        @Override
        default double startDt() {
            return dt();
        }
    }

    /// Velocity Verlet for `steps` steps of `dt` (τ) (it keeps no state but the steps taken).
    ///
    /// @param dt    the time step
    /// @param steps the step budget (at most `Integer.MAX_VALUE`)
    record Verlet(double dt, long steps) implements Dynamics {
        /// Validates the parameters.
        public Verlet {
            if (!(dt > 0) || Double.isInfinite(dt) || steps < 0 || steps > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("nve on a device: 'dt' must be positive and finite and 'steps' in [0, "
                        + Integer.MAX_VALUE + "], got " + dt + ", " + steps);
            }
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.nveBefore(s, c, systems, atoms, maxStep2, sub);
        }
    }

    /// Langevin BAOAB (NVT) for `steps` steps of `dt` (τ) at `kT` (eV) with friction `gamma`
    /// (1/τ), its noise keyed by `seed` (`Langevin`'s, so a system's trajectory is the
    /// per-system stage's).
    ///
    /// @param dt    the time step
    /// @param kT    the temperature
    /// @param gamma the friction
    /// @param seed  the noise's seed
    /// @param steps the step budget (at most `Integer.MAX_VALUE`)
    record Thermostat(double dt, double kT, double gamma, long seed, long steps) implements Dynamics {
        /// Validates the parameters.
        public Thermostat {
            if (!(dt > 0) || Double.isInfinite(dt) || !(kT >= 0) || Double.isInfinite(kT) || !(gamma >= 0) || Double.isInfinite(gamma)
                    || steps < 0 || steps > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("langevin on a device: 'dt' must be positive and finite, 'kT' and 'gamma' finite and "
                        + "not negative, 'steps' in [0, " + Integer.MAX_VALUE + "], got " + dt + ", " + kT + ", " + gamma + ", " + steps);
            }
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.langevinBefore(s, c, systems, atoms, RelaxKernels.Thermostat.of(dt, kT, gamma, seed), maxStep2, sub);
        }

        /// The next step's index (the key of its noise): the steps taken.
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            out.writeLong(c.getInt(TAKEN, k));
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            long next = in.readLong();
            if (next != taken) {
                throw new IllegalStateException("its Langevin noise is at step " + next + " after " + taken + " steps (a device stage keys the noise by "
                        + "the steps taken)");
            }
            return taken > 0;
        }
    }

    /// A Nosé–Hoover chain thermostat (NVT) for `steps` steps of `dt` (τ) at `kT` (eV), relaxation
    /// time `tdamp` (τ), `chain` thermostats and `tloop` loops per half step: LAMMPS's `fix nvt temp
    /// T T tdamp` (`dev.penstock.atoms.integrate.NoseHoover`), each system with 3N − 3 degrees of
    /// freedom. Its state — the chain's η, η̇, η̈ and Σ m v² — is columns of the batch, set at the
    /// system's first step from its velocities then.
    ///
    /// @param dt    the time step
    /// @param kT    the temperature
    /// @param tdamp the thermostat's relaxation time
    /// @param chain the thermostats in the chain (1 … `NoseHoover.MAX_CHAIN`)
    /// @param tloop the loops per half step
    /// @param steps the step budget (at most `Integer.MAX_VALUE`)
    record NoseHoover(double dt, double kT, double tdamp, int chain, int tloop, long steps) implements Dynamics {
        /// Validates the parameters.
        public NoseHoover {
            if (!(dt > 0) || Double.isInfinite(dt) || !(kT > 0) || Double.isInfinite(kT) || !(tdamp > 0) || Double.isInfinite(tdamp)
                    || chain < 1 || chain > dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN || tloop < 1 || steps < 0
                    || steps > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("nvt on a device: 'dt', 'kT' and 'tdamp' must be positive and finite, 'chain' in [1, "
                        + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN + "], 'tloop' at least 1 and 'steps' in [0, " + Integer.MAX_VALUE
                        + "], got " + dt + ", " + kT + ", " + tdamp + ", " + chain + ", " + tloop + ", " + steps);
            }
        }

        /// The degrees of freedom of a system of `atoms` atoms (LAMMPS's `compute temp`: 3N − 3).
        public static double dof(int atoms) {
            return 3.0 * atoms - 3;
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.noseHooverBefore(s, c, systems, atoms, this, maxStep2, sub);
        }

        @Override
        public void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub) {
            k.noseHooverAfter(s, c, systems, atoms, this, sub);
            k.check(s, c, systems, Double.NEGATIVE_INFINITY, 0, (int) steps(), sub);
        }

        /// `conserved_energy` (eV: E + ½Σmv² + the chain's share) and `conserved_energy_drift` (eV,
        /// since the first step). (`History` writes the temperature as a system leaves.)
        @Override
        public void describe(dev.penstock.atoms.system.AtomicSystem s, RelaxColumns c, int x) {
            boolean begun = c.getInt(TAKEN, x) > 0;
            conserved(s, c, x, s.energy() + 0.5 * dev.penstock.atoms.integrate.Mtk.mv2(s.velocities(), s.masses(), s.atoms())
                    + (begun ? chainEnergy(c, x, chain, kT, tdamp, s.atoms()) : 0));
        }

        /// The chain's share of the conserved quantity from row `x`'s columns.
        static double chainEnergy(RelaxColumns c, int x, int chain, double kT, double tdamp, int atoms) {
            double[] eta = new double[chain];
            double[] etaDot = new double[chain + 1];
            for (int q = 0; q < chain; q++) {
                eta[q] = c.getDouble(RelaxColumns.NH_ETA + q, x);
                etaDot[q] = c.getDouble(RelaxColumns.NH_ETA_DOT + q, x);
            }
            return dev.penstock.atoms.integrate.NoseHoover.energy(eta, etaDot, chain, dof(atoms), kT, 1 / tdamp);
        }

        /// `conserved_energy` and, against row `x`'s value at its first step, `conserved_energy_drift`
        /// (0 before the first step) into `s`'s info.
        static void conserved(dev.penstock.atoms.system.AtomicSystem s, RelaxColumns c, int x, double conserved) {
            boolean begun = c.getInt(TAKEN, x) > 0;
            s.info().put("conserved_energy", Double.toString(conserved));
            s.info().put("conserved_energy_drift", Double.toString(begun ? conserved - c.getDouble(RelaxColumns.NH_CONSERVED0, x) : 0.0));
        }

        /// The steps taken, Σmv², the conserved quantity at the start and the chain.
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            saveChain(out, c, k, chain);
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            restoreChain(in, staging, k, taken, chain, "Nosé–Hoover chain");
            return taken > 0;
        }

        /// What `save` writes of a thermostatted system: the steps taken, Σmv², the conserved
        /// quantity at its first step, and `chain` thermostats' η, η̇, η̈ (none for 0).
        static void saveChain(DataOutput out, RelaxColumns c, int k, int chain) throws IOException {
            out.writeLong(c.getInt(TAKEN, k));
            out.writeDouble(c.getDouble(RelaxColumns.NH_KE, k));
            out.writeDouble(c.getDouble(RelaxColumns.NH_CONSERVED0, k));
            for (int q = 0; q < chain; q++) {
                out.writeDouble(c.getDouble(RelaxColumns.NH_ETA + q, k));
                out.writeDouble(c.getDouble(RelaxColumns.NH_ETA_DOT + q, k));
                out.writeDouble(c.getDouble(RelaxColumns.NH_ETA_DOTDOT + q, k));
            }
        }

        /// Reads what `saveChain` wrote into staging row `k` (which has `taken` steps; `what` names
        /// the motion in the error of a mismatch).
        static void restoreChain(DataInput in, RelaxColumns staging, int k, long taken, int chain, String what) throws IOException {
            long saved = in.readLong();
            if (saved != taken) {
                throw new IllegalStateException("its " + what + " is at step " + saved + " after " + taken + " steps");
            }
            staging.setDouble(RelaxColumns.NH_KE, k, in.readDouble());
            staging.setDouble(RelaxColumns.NH_CONSERVED0, k, in.readDouble());
            for (int q = 0; q < chain; q++) {
                staging.setDouble(RelaxColumns.NH_ETA + q, k, in.readDouble());
                staging.setDouble(RelaxColumns.NH_ETA_DOT + q, k, in.readDouble());
                staging.setDouble(RelaxColumns.NH_ETA_DOTDOT + q, k, in.readDouble());
            }
        }
    }

    /// An MTK barostat (`Mtk`: LAMMPS's `fix npt`, or `fix nph` without the thermostat) for `steps`
    /// steps of `dt` (τ): with `thermostat`, a Nosé–Hoover chain of `chain` thermostats at `kT`
    /// (eV) with relaxation time `tdamp` (τ) and `tloop` loops, as `NoseHoover`; without, the
    /// barostat's masses take the temperature each system starts with (LAMMPS's `t0`), or
    /// `ptempKT` (eV) where it is positive. The barostat's state and the cell are columns of the
    /// batch, set at a system's first step (LAMMPS's `setup`), saved in checkpoints.
    ///
    /// @param dt         the time step
    /// @param thermostat whether a thermostat runs with it (`npt`) or not (`nph`)
    /// @param kT         the thermostat's temperature (`npt`; ignored otherwise)
    /// @param tdamp      the thermostat's relaxation time (`npt`)
    /// @param chain      the thermostat's chain length (`npt`)
    /// @param tloop      the thermostat's loops per half step (`npt`)
    /// @param ptempKT    `nph`'s barostat temperature (eV), 0: the system's own at its start
    /// @param baro       the barostat: couple, pressure, 1/pdamp, pchain
    /// @param steps      the step budget (at most `Integer.MAX_VALUE`)
    record Barostat(double dt, boolean thermostat, double kT, double tdamp, int chain, int tloop, double ptempKT,
                    dev.penstock.atoms.integrate.Mtk.Settings baro, long steps) implements Dynamics {
        /// Validates the parameters.
        public Barostat {
            boolean thermo = !thermostat || (kT > 0 && Double.isFinite(kT) && tdamp > 0 && Double.isFinite(tdamp) && chain >= 1
                    && chain <= dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN && tloop >= 1);
            if (!(dt > 0) || Double.isInfinite(dt) || !thermo || !(ptempKT >= 0) || Double.isInfinite(ptempKT) || steps < 0
                    || steps > Integer.MAX_VALUE) {
                throw new IllegalArgumentException((thermostat ? "npt" : "nph") + " on a device: 'dt' must be positive and finite"
                        + (thermostat ? ", 'kT' and 'tdamp' positive and finite, 'chain' in [1, " + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN
                        + "], 'tloop' at least 1" : ", 'ptemp' not negative") + " and 'steps' in [0, " + Integer.MAX_VALUE + "], got dt "
                        + dt + ", kT " + kT + ", tdamp " + tdamp + ", chain " + chain + ", tloop " + tloop + ", ptemp " + ptempKT + ", steps "
                        + steps);
            }
        }

        /// The method's name: `npt` or `nph`.
        public String name() {
            return thermostat ? "npt" : "nph";
        }

        @Override
        public void before(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, double maxStep2, int sub) {
            k.barostatBefore(s, c, systems, atoms, this, maxStep2, sub);
        }

        @Override
        public void after(RelaxKernels k, Stream s, RelaxColumns c, int systems, int atoms, int sub) {
            k.barostatAfter(s, c, systems, atoms, this, sub);
            k.check(s, c, systems, Double.NEGATIVE_INFINITY, 0, (int) steps(), sub);
        }

        @Override
        public String refusal(dev.penstock.atoms.system.AtomicSystem s) {
            String why = dev.penstock.atoms.integrate.Mtk.refusal(s.cell().vectors(), s.cell().pbc(), baro.couple());
            return why == null ? null : "system " + s.id() + " " + why + " (stage '" + name() + "')";
        }

        /// `conserved_energy` (eV: E + ½Σmv² + the thermostat's and the barostat's shares, LAMMPS's
        /// etotal + the fix's scalar) and `conserved_energy_drift` (eV, since the first step).
        @Override
        public void describe(dev.penstock.atoms.system.AtomicSystem s, RelaxColumns c, int x) {
            double conserved = s.energy() + 0.5 * dev.penstock.atoms.integrate.Mtk.mv2(s.velocities(), s.masses(), s.atoms());
            if (c.getInt(TAKEN, x) > 0) {
                double[] state = new double[dev.penstock.atoms.integrate.Mtk.STATE];
                for (int q = 0; q < state.length; q++) {
                    state[q] = c.getDouble(RelaxColumns.BARO + q, x);
                }
                double[] cell = new double[9];
                for (int q = 0; q < 9; q++) {
                    cell[q] = c.getDouble(RelaxColumns.CELL + q, x);
                }
                conserved += dev.penstock.atoms.integrate.Mtk.energy(state, cell, s.atoms(), baro);
                conserved += thermostat ? NoseHoover.chainEnergy(c, x, chain, kT, tdamp, s.atoms()) : 0;
            }
            NoseHoover.conserved(s, c, x, conserved);
        }

        /// The steps taken, Σmv², the conserved quantity at the start, the thermostat's chain
        /// (`npt`), the barostat's state (the cell is the system's own).
        @Override
        public void save(DataOutput out, RelaxColumns c, int k) throws IOException {
            NoseHoover.saveChain(out, c, k, thermostat ? chain : 0);
            for (int q = 0; q < dev.penstock.atoms.integrate.Mtk.STATE; q++) {
                out.writeDouble(c.getDouble(RelaxColumns.BARO + q, k));
            }
        }

        @Override
        public boolean restore(DataInput in, RelaxColumns staging, int k, long taken) throws IOException {
            NoseHoover.restoreChain(in, staging, k, taken, thermostat ? chain : 0, "barostat");
            for (int q = 0; q < dev.penstock.atoms.integrate.Mtk.STATE; q++) {
                staging.setDouble(RelaxColumns.BARO + q, k, in.readDouble());
            }
            return taken > 0;
        }
    }
}
