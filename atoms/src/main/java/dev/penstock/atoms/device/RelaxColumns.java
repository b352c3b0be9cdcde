package dev.penstock.atoms.device;

import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.stage.PackedColumns;
import java.util.List;

/// The packed columns of an in-flight relaxation batch, in one arena (a device's, or host
/// staging of the same shape): systems are rows `0 … systems−1` of the per-system columns, and
/// system k's atoms the rows `start[k] … start[k]+count[k]−1` of the per-atom columns, packed in
/// system order with no holes (compaction keeps them so).
///
/// ```
///   per atom   (capacity A): pos[A,3] vel[A,3] force[A,3] last[A,3] mass[A] atomEnergy[A] atomSystem[A]
///   per system (capacity S): start count fresh taken nsteps started flag done idLo idHi sub
///                            cellKind imagesA imagesB imagesC                       (int32)
///                            energy prevEnergy fmax dt alpha cell[9] reciprocal[9] virial[9]
///                            nhKe nhConserved0 eta[5] etaDot[5] etaDotDot[5] baro[30]  (float64)
/// ```
///
/// FIRE's state is per system (`dt`, `alpha`, `nsteps` = its N, `started`; velocity Verlet uses
/// `dt` as its time step and `mass`); `taken` counts the
/// optimiser steps, `fresh` marks a system admitted since the last step (its first evaluation
/// is the step's shared one, and it takes no step before it); `flag` says why a system cannot
/// go on (`FLAG_*`), `done` that it leaves after this step; `idLo`/`idHi` are the system's id
/// (the key of its Langevin noise, with `taken` the step's); `sub` the sub-stage it is in (of a
/// fused stage: each step moves a system by its sub-stage's kernels), `taken` counting that
/// sub-stage's steps; the cell columns say which periodic images its pairs take (`CellImages`);
/// `virial` is the last evaluation's virial where the model gives one (`ModelTerms`; NaN
/// otherwise); the `nh…` and `eta…` columns a Nosé–Hoover chain's state (`SubStage.NoseHoover`,
/// and the thermostat of `SubStage.Barostat`), `baro` an MTK barostat's (`Mtk`), which also
/// changes the cell columns as it steps.
///
/// The layout is `PackedColumns`' (core's packed batch: per-sample int and double blocks, per-element
/// blocks, the owner column written by a gather), these the relaxation's names for its columns.
public final class RelaxColumns {
    private final PackedColumns columns;

    private RelaxColumns(PackedColumns columns) {
        this.columns = columns;
    }

    /// int column: first atom row
    public static final int START = PackedColumns.START;
    /// int column: atoms
    public static final int COUNT = PackedColumns.COUNT;
    /// int column: 1 until the system's first evaluation
    public static final int FRESH = 2;
    /// int column: optimiser steps taken
    public static final int TAKEN = 3;
    /// int column: FIRE's steps since the power last turned negative (its N)
    public static final int NSTEPS = 4;
    /// int column: whether FIRE has taken its first step (velocities zeroed)
    public static final int STARTED = 5;
    /// int column: 0, or `FLAG_*`
    public static final int FLAG = 6;
    /// int column: 1 when the system leaves after this step
    public static final int DONE = 7;
    /// int column: the low 32 bits of the system's id
    public static final int ID_LO = 8;
    /// int column: the high 32 bits of the system's id
    public static final int ID_HI = 9;
    /// int column: the sub-stage of a fused stage the system is in (0 … sub-stages − 1)
    public static final int SUB = 10;
    /// int column: how the system's pairs meet their periodic images (`CellImages`: free,
    /// nearest image, or a scan of images)
    public static final int CELL_KIND = 11;
    /// int columns: how many whole cell translations beyond the nearest image along a, b, c a
    /// scan of images takes on either side (`CellImages.IMAGES`; 0 on a free axis)
    public static final int IMAGES_A = 12;
    /// int column: as `IMAGES_A`, along b
    public static final int IMAGES_B = 13;
    /// int column: as `IMAGES_A`, along c
    public static final int IMAGES_C = 14;
    /// int columns
    public static final int INT_COLUMNS = 15;
    /// double column: energy, eV
    public static final int ENERGY = 0;
    /// double column: the energy before the last step (the convergence rule's energy change)
    public static final int PREV_ENERGY = 1;
    /// double column: max |F_i|
    public static final int FMAX = 2;
    /// double column: FIRE's time step
    public static final int DT = 3;
    /// double column: FIRE's mixing α
    public static final int ALPHA = 4;
    /// double columns `CELL … CELL + 8`: the cell's lattice vectors a, b, c (Å), row after row
    /// (a_x a_y a_z b_x …); a free axis's row is zero
    public static final int CELL = 5;
    /// double columns `RECIPROCAL … RECIPROCAL + 8`: the rows that give a separation's fractional
    /// coordinates along a, b, c (`Cell.fractional`); a free axis's row is zero
    public static final int RECIPROCAL = 14;
    /// double columns `VIRIAL … VIRIAL + 8`: the last evaluation's virial W (eV, row-major
    /// xx xy xz yx …, as `AtomicSystem.virial`), where the model gives one; NaN otherwise
    public static final int VIRIAL = 23;
    /// double column: Σ m v² of a Nosé–Hoover system as its chain's last half step left it
    /// (LAMMPS's tdof·k_B·t_current; `NoseHoover`)
    public static final int NH_KE = 32;
    /// double column: a Nosé–Hoover system's conserved quantity at its first step (E + ½Σmv²)
    public static final int NH_CONSERVED0 = 33;
    /// double columns `NH_ETA … NH_ETA + NoseHoover.MAX_CHAIN − 1`: the chain's positions η
    public static final int NH_ETA = 34;
    /// double columns: the chain's velocities η̇, as `NH_ETA`
    public static final int NH_ETA_DOT = NH_ETA + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN;
    /// double columns: the chain's forces η̈, as `NH_ETA`
    public static final int NH_ETA_DOTDOT = NH_ETA_DOT + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN;
    /// double columns `BARO … BARO + Mtk.STATE − 1`: an MTK barostat's state (`Mtk`: the cell's
    /// velocity gradient, its chain, V₀, kT, the cell's corner and fixed point; `SubStage.Barostat`)
    public static final int BARO = NH_ETA_DOTDOT + dev.penstock.atoms.integrate.NoseHoover.MAX_CHAIN;
    /// double columns `CELL_START … + 8`: a variable-cell relaxation's starting cell (`CellFilter`'s
    /// H₀), the first of the barostat's columns (a system is in one sub-stage at a time, and each
    /// sets them when the system enters it)
    public static final int CELL_START = BARO;
    /// double columns `CELL_VELOCITY … + 8`: a variable-cell relaxation's velocities of the cell's
    /// degrees of freedom (FIRE's, as the atoms' in `vel`)
    public static final int CELL_VELOCITY = BARO + 9;
    /// double columns `CELL_LAST … + 8`: FIRE 2.0's last step of the cell's degrees of freedom
    /// (`fire2_cell`; the atoms' are the `last` column)
    public static final int CELL_LAST = BARO + 18;
    /// double columns
    public static final int DOUBLE_COLUMNS = BARO + dev.penstock.atoms.integrate.Mtk.STATE;

    /// flag: two atoms closer than the potential's overlap distance
    public static final int FLAG_OVERLAP = 1;
    /// flag: a non-finite energy or force
    public static final int FLAG_NON_FINITE = 2;
    /// flag: an atom moved more than the stage's largest step in one step
    public static final int FLAG_RUNAWAY = 3;
    /// flag: the model refused the system while evaluating it (`ModelTerms` keeps why)
    public static final int FLAG_MODEL = 4;
    /// flag: a barostat's system whose model computed no virial (a pressure needs one)
    public static final int FLAG_NO_VIRIAL = 5;

    /// The relaxation's layout: 15 int and 79 double columns per system; per atom pos, vel,
    /// force, last (3 float64 each), mass, atomEnergy (float64) and atomSystem (the owner).
    public static final PackedColumns.Layout LAYOUT = new PackedColumns.Layout(INT_COLUMNS, DOUBLE_COLUMNS, List.of(
            new PackedColumns.Element("pos", DType.F64, 3), new PackedColumns.Element("vel", DType.F64, 3),
            new PackedColumns.Element("force", DType.F64, 3), new PackedColumns.Element("last", DType.F64, 3),
            new PackedColumns.Element("mass", DType.F64, 1), new PackedColumns.Element("atomEnergy", DType.F64, 1),
            new PackedColumns.Element("atomSystem", DType.I32, 1)), 6);

    /// Columns for `systems` systems and `atoms` atoms, allocated in `arena` (zeroed if the
    /// arena zeroes).
    public static RelaxColumns allocate(BlockArena arena, int systems, int atoms) {
        if (systems < 1 || atoms < 1) {
            throw new IllegalArgumentException("a relaxation batch needs room for at least one system and one atom, got " + systems
                    + " systems, " + atoms + " atoms");
        }
        return new RelaxColumns(PackedColumns.allocate(arena, LAYOUT, systems, atoms));
    }

    /// A view of these columns whose per-system columns hold `systems` rows packed at the start
    /// of the same memory (column c's rows at `c · systems …`), the per-atom columns as they are:
    /// rows gathered into it are read back in one copy per block.
    public RelaxColumns compact(int systems) {
        return new RelaxColumns(columns.compact(systems));
    }

    /// The packed columns these name.
    public PackedColumns columns() {
        return columns;
    }

    /// positions, Å (`[A, 3]`)
    public Block pos() {
        return columns.element(0);
    }

    /// FIRE's velocities (`[A, 3]`)
    public Block vel() {
        return columns.element(1);
    }

    /// forces, eV/Å (`[A, 3]`)
    public Block force() {
        return columns.element(2);
    }

    /// FIRE2's last step taken, Å (what it undoes half of after an uphill step; `[A, 3]`)
    public Block last() {
        return columns.element(3);
    }

    /// atomic masses (velocity Verlet's; FIRE in ASE-exact mode ignores them)
    public Block mass() {
        return columns.element(4);
    }

    /// each atom's half of its pair energies
    public Block atomEnergy() {
        return columns.element(5);
    }

    /// the system row each atom belongs to
    public Block atomSystem() {
        return columns.element(6);
    }

    /// the int32 per-system columns, `[INT_COLUMNS, S]` (see `START` …)
    public Block ints() {
        return columns.ints();
    }

    /// the float64 per-system columns, `[DOUBLE_COLUMNS, S]` (see `ENERGY` …)
    public Block doubles() {
        return columns.doubles();
    }

    /// Systems these columns can hold.
    public int systemCapacity() {
        return columns.sampleCapacity();
    }

    /// Atoms these columns can hold.
    public int atomCapacity() {
        return columns.elementCapacity();
    }

    /// Rows `[from, to)` of int column `column`.
    public Block ints(int column, int from, int to) {
        return columns.ints(column, from, to);
    }

    /// Rows `[from, to)` of double column `column`.
    public Block doubles(int column, int from, int to) {
        return columns.doubles(column, from, to);
    }

    /// Element (column, system) of the int columns (host memory only).
    public int getInt(int column, int system) {
        return columns.getInt(column, system);
    }

    /// Sets element (column, system) of the int columns (host memory only).
    public void setInt(int column, int system, int value) {
        columns.setInt(column, system, value);
    }

    /// Element (column, system) of the double columns (host memory only).
    public double getDouble(int column, int system) {
        return columns.getDouble(column, system);
    }

    /// System `system`'s id, from its two int columns (host memory only).
    public long id(int system) {
        return ((long) getInt(ID_HI, system) << 32) | (getInt(ID_LO, system) & 0xFFFF_FFFFL);
    }

    /// Sets system `system`'s id (host memory only).
    public void id(int system, long id) {
        setInt(ID_LO, system, (int) id);
        setInt(ID_HI, system, (int) (id >>> 32));
    }

    /// Sets element (column, system) of the double columns (host memory only).
    public void setDouble(int column, int system, double value) {
        columns.setDouble(column, system, value);
    }
}
