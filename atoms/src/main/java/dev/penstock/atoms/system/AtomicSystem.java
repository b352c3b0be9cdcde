package dev.penstock.atoms.system;

import java.util.Arrays;

/// One atomic system in structure-of-arrays form (units: Å, eV, amu): positions, velocities
/// and forces as `[x0, y0, z0, x1, …]`, masses, atomic numbers and a `Cell` (lattice vectors,
/// orthorhombic or triclinic, and periodicity per axis).
///
/// Threading: not thread-safe; one stage works on a system at a time.
public final class AtomicSystem {
    private final long id;
    private final int atoms;
    private final double[] positions;
    private final double[] velocities;
    private final double[] forces;
    private final double[] masses;
    private final int[] numbers;
    private Cell cell;
    private double energy = Double.NaN;
    private double[] virial; // 3×3, row-major, eV; null unless the model computed it
    private final java.util.Map<String, String> info = new java.util.LinkedHashMap<>();
    private final java.util.Map<String, AtomArray> arrays = new java.util.LinkedHashMap<>();
    private String heldIn; // the sub-stage a stage's view last found it in (not written anywhere)
    private long heldStep = -1;

    /// A system `id` of `positions.length / 3` atoms in an orthorhombic box with edge lengths
    /// `box` (0 on a free axis); every array is copied.
    public AtomicSystem(long id, double[] positions, double[] masses, int[] numbers, double[] box, boolean[] pbc) {
        this(id, positions, masses, numbers, orthorhombic(id, box, pbc));
    }

    private static Cell orthorhombic(long id, double[] box, boolean[] pbc) {
        try {
            return Cell.orthorhombic(box, pbc);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("system " + id + ": " + e.getMessage(), e);
        }
    }

    /// A system `id` of `positions.length / 3` atoms in `cell`; every array is copied.
    public AtomicSystem(long id, double[] positions, double[] masses, int[] numbers, Cell cell) {
        if (positions.length % 3 != 0) {
            throw new IllegalArgumentException("system " + id + ": positions must hold 3 values per atom, got " + positions.length);
        }
        this.id = id;
        this.atoms = positions.length / 3;
        if (masses.length != atoms || numbers.length != atoms) {
            throw new IllegalArgumentException("system " + id + ": " + atoms + " atoms but " + masses.length + " masses and "
                    + numbers.length + " atomic numbers");
        }
        this.positions = positions.clone();
        this.velocities = new double[3 * atoms];
        this.forces = new double[3 * atoms];
        this.masses = masses.clone();
        this.numbers = numbers.clone();
        this.cell = cell;
    }

    /// A free (non-periodic) system of identical atoms of mass 1 and atomic number 0, as in
    /// reduced Lennard-Jones units.
    public static AtomicSystem free(long id, double[] positions) {
        int n = positions.length / 3;
        double[] m = new double[n];
        Arrays.fill(m, 1);
        return new AtomicSystem(id, positions, m, new int[n], Cell.free());
    }

    /// A copy of this system under id `newId`: every array, the cell, energy, virial, info and
    /// per-atom arrays the same.
    public AtomicSystem withId(long newId) {
        AtomicSystem c = new AtomicSystem(newId, positions, masses, numbers, cell);
        System.arraycopy(velocities, 0, c.velocities, 0, velocities.length);
        System.arraycopy(forces, 0, c.forces, 0, forces.length);
        c.energy = energy;
        c.virial = virial == null ? null : virial.clone();
        c.info.putAll(info);
        c.arrays.putAll(arrays);
        return c;
    }

    /// Sets where a stage's view of the system found it: in sub-stage `method`, its state the one
    /// after `step` steps there (what a snapshot of it is labelled with; never written out).
    public void held(String method, long step) {
        this.heldIn = method;
        this.heldStep = step;
    }

    /// The sub-stage a stage's view last found the system in (`held`); null if none said.
    public String heldIn() {
        return heldIn;
    }

    /// The steps taken in `heldIn()` to reach the state the system holds; −1 if no stage said.
    public long heldStep() {
        return heldStep;
    }

    /// The system's id.
    public long id() {
        return id;
    }

    /// Number of atoms.
    public int atoms() {
        return atoms;
    }

    /// Positions `[x0, y0, z0, …]` (live array).
    public double[] positions() {
        return positions;
    }

    /// Velocities (live array).
    public double[] velocities() {
        return velocities;
    }

    /// Forces from the last model evaluation (live array).
    public double[] forces() {
        return forces;
    }

    /// Masses in amu (live array).
    public double[] masses() {
        return masses;
    }

    /// Atomic numbers (live array).
    public int[] numbers() {
        return numbers;
    }

    /// The cell (lattice vectors and periodicity).
    public Cell cell() {
        return cell;
    }

    /// Sets the cell: a barostat's or a variable-cell relaxation's new shape, with the same
    /// periodicity (the positions are the caller's to move with it).
    public void cell(Cell c) {
        if (!java.util.Arrays.equals(c.pbc(), cell.pbc())) {
            throw new IllegalArgumentException("system " + id + ": a new cell must keep the periodicity " + java.util.Arrays.toString(cell.pbc())
                    + ", got " + java.util.Arrays.toString(c.pbc()));
        }
        this.cell = c;
    }

    /// Whether axis `d` is periodic.
    public boolean periodic(int d) {
        return cell.periodic(d);
    }

    /// Energy from the last model evaluation (NaN before the first).
    public double energy() {
        return energy;
    }

    /// The virial W_ab = Σ_pairs (r_i − r_j)_a (F_ij)_b (eV; 3×3, row-major, a copy) of the last
    /// evaluation, or null if the model did not compute one. The stress of a periodic system is
    /// −W/V (ASE's sign: negative under compression), kinetic part aside.
    public double[] virial() {
        return virial == null ? null : virial.clone();
    }

    /// Sets the virial (9 values, row-major), or clears it with null.
    public void virial(double[] w) {
        if (w != null && w.length != 9) {
            throw new IllegalArgumentException("system " + id + ": a virial has 9 components, got " + w.length);
        }
        this.virial = w == null ? null : w.clone();
    }

    /// Sets the energy (models do, after filling `forces()`).
    public void energy(double e) {
        this.energy = e;
    }

    /// Free-form per-system annotations (extended XYZ comment keys such as the stage history),
    /// in insertion order (live map).
    public java.util.Map<String, String> info() {
        return info;
    }

    /// The per-atom arrays the system carries beyond its own (an input's `tags`, charges,
    /// labels), by name in insertion order (read-only view; `array` adds).
    public java.util.Map<String, AtomArray> arrays() {
        return java.util.Collections.unmodifiableMap(arrays);
    }

    /// Adds (or replaces) per-atom array `name`, which must cover this system's atoms.
    public void array(String name, AtomArray a) {
        if (a.atoms() != atoms) {
            throw new IllegalArgumentException("system " + id + ": per-atom array '" + name + "' covers " + a.atoms() + " atoms, the system has "
                    + atoms);
        }
        arrays.put(name, a);
    }

    /// Largest per-atom force norm, √max_i |F_i|².
    public double maxForce() {
        double max = 0;
        for (int i = 0; i < atoms; i++) {
            double fx = forces[3 * i];
            double fy = forces[3 * i + 1];
            double fz = forces[3 * i + 2];
            max = Math.max(max, fx * fx + fy * fy + fz * fz);
        }
        return Math.sqrt(max);
    }

    /// `AtomicSystem[id=3, 13 atoms, energy=-0.37 eV, periodic FFF, info {stages=fire:32}]`: the
    /// system at a glance (no per-atom values).
    @Override
    public String toString() {
        return "AtomicSystem[id=" + id + ", " + atoms + " atoms, energy=" + energy + " eV, periodic " + (periodic(0) ? "T" : "F")
                + (periodic(1) ? "T" : "F") + (periodic(2) ? "T" : "F") + (arrays.isEmpty() ? "" : ", arrays " + arrays.keySet())
                + (info.isEmpty() ? "" : ", info " + info) + "]";
    }
}
