package dev.penstock.atoms.device;

import dev.penstock.atoms.integrate.Langevin;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.potential.Morse;
import dev.penstock.atoms.potential.PairPotential;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;

/// The batch operations of an in-flight FIRE relaxation on a device: each enqueues one kernel
/// over the whole packed batch (`RelaxColumns`) on a stream of that device and returns at once.
/// `CpuRelaxKernels` (Java, split over cores) and the `cuda` module's `CudaRelaxKernels` (the
/// same arithmetic in CUDA C, `relax.cu`) implement it.
///
/// Every sum is a per-atom gather or a per-system loop in atom order, so a system's numbers do
/// not depend on which systems share its batch, on the split over threads, or on the device:
/// the two implementations agree bit for bit where the device rounds as IEEE 754 without fused
/// multiply-adds (the host emulation does; the PTX is built with `-fmad=false`).
public interface RelaxKernels {
    /// The number of partial sums an atom's partners after it are striped over in the force
    /// gather (`CpuRelaxKernels.pairs` gives the order; `relax.cu`'s `RELAX_STRIPE` is the same):
    /// fixed, so that the result does not depend on a machine's vector width.
    int STRIPE = 8;

    /// A pair potential as the kernels take it: Lennard-Jones (`kind` LJ: a = 4ε, b = σ²) or
    /// Morse (`kind` MORSE: a = D, b = the stiffness, c = r0; its exponential `PortableMath.exp`).
    ///
    /// @param kind  `LJ` or `MORSE`
    /// @param a     the first parameter
    /// @param b     the second
    /// @param c     the third (Morse's r0; 0 for LJ)
    /// @param rc2   the cutoff squared (infinite: none)
    /// @param shift subtracted from each pair energy inside the cutoff
    /// @param od2   the overlap distance squared
    record Pair(int kind, double a, double b, double c, double rc2, double shift, double od2) {
        /// Lennard-Jones.
        public static final int LJ = 0;
        /// Morse.
        public static final int MORSE = 1;

        /// The parameters of `model`: a `LennardJones` or a `Morse`; anything else is refused.
        public static Pair of(PairPotential model) {
            double rc2 = model.cutoff() * model.cutoff();
            return switch (model) {
                case LennardJones lj -> new Pair(LJ, 4 * lj.epsilon(), lj.sigma() * lj.sigma(), 0, rc2, lj.energyShift(),
                        lj.overlap() * lj.overlap());
                case Morse m -> new Pair(MORSE, m.depth(), m.stiffness(), m.minimum(), rc2, m.energyShift(), m.overlap() * m.overlap());
                default -> throw new IllegalArgumentException("the relaxation kernels run Lennard-Jones and Morse, not " + model);
            };
        }

    }

    /// Langevin BAOAB's constants as the kernels take them (`Langevin`'s arithmetic).
    ///
    /// @param kT   the temperature, eV
    /// @param c1   O's velocity factor e^(−γ·dt)
    /// @param c2   O's noise factor √(1 − c1²)
    /// @param seed the run's seed (the noise of a system's step k is keyed by seed, its id and k)
    record Thermostat(double kT, double c1, double c2, long seed) {
        /// The constants of Langevin dynamics at `kT` with friction `gamma` (1/τ) and step `dt` (τ).
        public static Thermostat of(double dt, double kT, double gamma, long seed) {
            double c1 = Langevin.damping(gamma, dt);
            return new Thermostat(kT, c1, Langevin.noise(c1), seed);
        }
    }

    /// Energies, forces, max |F_i| and flags of systems `[0, systems)` (atoms `[0, atoms)`) at
    /// their positions: one all-pairs gather per atom within its system, then one loop per system;
    /// and their virials (`VIRIAL`) where the kernels say so (`pairVirial`).
    void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, Pair pair);

    /// Whether `evaluate(…, Pair)` writes each system's virial into its `VIRIAL` columns (W =
    /// Σ over pairs of d ⊗ d · fpair, as the models give it). Default: false.
    default boolean pairVirial() {
        return false;
    }

    /// Energies, forces, max |F_i|, virials (NaN where the model or the kernels give none) and
    /// flags (`FLAG_MODEL` where the model refused a system, `FLAG_NON_FINITE`) of systems
    /// `[0, systems)`, each computed from its packed positions by `terms`' model (`ModelTerms`).
    /// Kernels run the models they say they run (`runs`) and throw for any other.
    default void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, ModelTerms terms) {
        throw new UnsupportedOperationException("these relaxation kernels do not run " + terms.model());
    }

    /// Whether `evaluate(…, ModelTerms)` runs `model` (one that is not Lennard-Jones or Morse) on
    /// these kernels. Default: none.
    default boolean runs(Model model) {
        return false;
    }

    /// Whether a device stage on these kernels sums Lennard-Jones and Morse pairs with
    /// `evaluate(…, Pair)` (`relax.cu`'s per-atom gather); false: the model computes them over
    /// each system's rows as any other (`evaluate(…, ModelTerms)`, the numbers of the model on
    /// its own). Default: true (a GPU's pair kernels).
    default boolean sumsPairs() {
        return true;
    }

    /// Copies the per-system columns (no atom column) of rows `map[0 … systems)` of `from` to rows
    /// `0 … systems − 1` of `to` (`map` in the device's memory): a fused stage reads back only the
    /// rows that finished a sub-stage, packed (`RelaxColumns.compact`).
    void pickSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems);

    /// The reverse of `pickSystems`: rows `0 … systems − 1` of `from` to rows `map[k]` of `to`.
    void putSystems(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems);

    /// Says that no system of the batch holds more than `atoms` atoms, from the next kernel on (a
    /// device stage says so whenever its rows change): kernels may then leave out work that only
    /// larger systems need — CUDA's Verlet lists, their launches and their memory, below
    /// `CudaRelaxKernels.LIST_ATOMS` — never changing a number. Until told: any size. Default:
    /// nothing to leave out.
    default void largestSystem(int atoms) {
    }

    /// One FIRE step (ASE-exact, or `massWeighted`: v += dt·F/m, `Fire.massWeighted`) of every
    /// system of `[0, systems)` that is neither fresh, flagged nor done, with `Fire`'s constants: it keeps its energy as `PREV_ENERGY`, then moves; a system
    /// with an atom that moved more than √`maxStep2` Å (|r_new − r_old|², +∞: no limit) is flagged
    /// `FLAG_RUNAWAY`. Every kernel that moves or checks systems takes only those in sub-stage
    /// `sub` (`RelaxColumns.SUB`; 0 for a stage of one method).
    void fireStep(Stream stream, RelaxColumns c, int systems, boolean massWeighted, double maxStep2, int sub);

    /// One FIRE 2.0 step (`Fire2`'s arithmetic, its per-system state in `DT`, `ALPHA`, `NSTEPS` =
    /// the positive-power run and `TAKEN` = the steps taken, its last step in the `last` column) of
    /// every system of `[0, systems)` in sub-stage `sub` that is neither fresh, flagged nor done;
    /// it keeps its energy as `PREV_ENERGY` first. A system whose step moved an atom more than
    /// √`maxStep2` Å (|last step|²) is flagged `FLAG_RUNAWAY`.
    void fire2Step(Stream stream, RelaxColumns c, int systems, double maxStep2, int sub);

    /// The first half of a velocity Verlet step (as `VelocityVerlet`: v += ½dt·F/m, then
    /// r += dt·v, per atom) of every system of `[0, systems)` that is neither fresh, flagged nor
    /// done, with its `DT` as the time step; an atom that drifts more than √`maxStep2` flags its
    /// system `FLAG_RUNAWAY`.
    void nveBefore(Stream stream, RelaxColumns c, int systems, int atoms, double maxStep2, int sub);

    /// B, A, O, A of a Langevin BAOAB step (`Langevin.baoab`, with its `DT` as the time step)
    /// of every system of `[0, systems)` that is neither fresh, flagged nor done, the O's noise
    /// drawn by `LangevinNoise` keyed by (seed, id, taken) — the per-system stage's
    /// draws, so a system's trajectory is the same in either; an atom that moves more than
    /// √`maxStep2` in the step flags its system `FLAG_RUNAWAY`. The last B is `nveAfter`.
    /// Kernels without this step say so (`langevin()` false) and throw.
    default void langevinBefore(Stream stream, RelaxColumns c, int systems, int atoms, Thermostat t, double maxStep2, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no Langevin step");
    }

    /// Whether `langevinBefore` runs on these kernels. Default: false.
    default boolean langevin() {
        return false;
    }

    /// The first half of a Nosé–Hoover chain step (`SubStage.NoseHoover`: the chain's half step,
    /// which scales the velocities, then v += ½dt·F/m and r += dt·v) of every system of
    /// `[0, systems)` in sub-stage `sub` that is neither fresh, flagged nor done; a system's first
    /// step sets its chain at rest and Σ m v² from its velocities (LAMMPS's `setup`). An atom that
    /// drifts more than √`maxStep2` flags its system `FLAG_RUNAWAY`. Kernels without it say so
    /// (`noseHoover()` false) and throw.
    default void noseHooverBefore(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, double maxStep2, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no Nosé–Hoover step");
    }

    /// The second half: v += ½dt·F/m with the new forces, Σ m v², the chain's half step.
    default void noseHooverAfter(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.NoseHoover nh, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no Nosé–Hoover step");
    }

    /// Whether `noseHooverBefore` and `noseHooverAfter` run on these kernels. Default: false.
    default boolean noseHoover() {
        return false;
    }

    /// The first half of an MTK barostat's step (`SubStage.Barostat`, `Mtk`: the barostat's chain,
    /// the thermostat's where it has one, ω̇ under the pressure of the last evaluation's virial,
    /// the velocities scaled, the half kick, the cell and the atoms dilated around the drift) of
    /// every system of `[0, systems)` in sub-stage `sub` that is neither fresh, flagged nor done;
    /// the `CELL` and `RECIPROCAL` columns take the new cell. A system's first step sets the
    /// barostat at rest (LAMMPS's `setup`); one without a virial is flagged `FLAG_NO_VIRIAL`, an
    /// atom that moves more than √`maxStep2` flags its system `FLAG_RUNAWAY`. Kernels without it
    /// say so (`barostat()` false) and throw.
    default void barostatBefore(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.Barostat b, double maxStep2, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no barostat");
    }

    /// The second half: the half kick with the new forces, the velocities scaled, ω̇ under the
    /// new pressure, the thermostat's and the barostat's chains.
    default void barostatAfter(Stream stream, RelaxColumns c, int systems, int atoms, SubStage.Barostat b, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no barostat");
    }

    /// Whether `barostatBefore` and `barostatAfter` run on these kernels. Default: false.
    default boolean barostat() {
        return false;
    }

    /// Whether they run on these kernels under `model` (whose evaluation must follow a changing
    /// cell). Default: `barostat()`.
    default boolean barostat(dev.penstock.atoms.potential.Model model) {
        return barostat();
    }

    /// One FIRE step (ASE-exact) of every system of `[0, systems)` in sub-stage `sub` that is neither
    /// fresh, flagged nor done, over its atoms and its cell together (`CellFilter`: ASE's
    /// `UnitCellFilter` under `r`'s pressure, mask and hydrostatic choice): it keeps its energy as
    /// `PREV_ENERGY`, moves, and writes the new cell to the `CELL` and `RECIPROCAL` columns. A
    /// system without a virial is flagged `FLAG_NO_VIRIAL`, one with an atom moved more than
    /// √`maxStep2` Å `FLAG_RUNAWAY`. Kernels without it say so (`cellRelaxation()` false) and throw.
    default void fireCellStep(Stream stream, RelaxColumns c, int systems, SubStage.CellRelaxation r, double maxStep2, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no variable-cell relaxation");
    }

    /// After an evaluation: `FMAX` of every unflagged system of `[0, systems)` in sub-stage `sub`
    /// (fresh ones too) becomes its filter's (`CellFilter.fmax`, the atoms' and the cell's rows);
    /// a fresh system takes its cell now as its starting cell.
    default void cellForces(Stream stream, RelaxColumns c, int systems, SubStage.CellRelaxation r, int sub) {
        throw new UnsupportedOperationException("these relaxation kernels have no variable-cell relaxation");
    }

    /// Whether `fireCellStep` and `cellForces` run on these kernels. Default: false.
    default boolean cellRelaxation() {
        return false;
    }

    /// Whether they run `r` on these kernels under `model`. Default: `cellRelaxation()`.
    default boolean cellRelaxation(SubStage.CellRelaxation r, dev.penstock.atoms.potential.Model model) {
        return cellRelaxation();
    }

    /// The last half kick (v += ½dt·F/m with the new forces) of every system `nveBefore` or
    /// `langevinBefore` moved (neither fresh nor flagged).
    void nveAfter(Stream stream, RelaxColumns c, int systems, int atoms, int sub);

    /// After an evaluation: counts the step (or clears `FRESH`), and sets `DONE` where the
    /// system converged (max |F_i| < `fmax` and, if `energyTolerance` > 0, |ΔE| below it), spent
    /// its `budget`, or was flagged. (For velocity Verlet `fmax` is −∞: only the budget ends a system.)
    void check(Stream stream, RelaxColumns c, int systems, double fmax, double energyTolerance, int budget, int sub);

    /// Copies systems into `to`, packed: `to`'s system k is `from`'s system `map[k]`, starting at
    /// atom row `map[systems + k]`; `to`'s atom row a is `from`'s row `map[2·systems + a]`.
    /// `map` is an int32 block on the device of at least `2·systems + atoms` elements.
    void gather(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int atoms);

    /// Releases what the kernels hold (threads, modules). Default: nothing.
    default void close() {
    }
}
