package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.FullList;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.util.Arrays;

/// A model from a radial pair energy u(r): E = Σ_pairs u(r_ij), F_i = −∂E/∂r_i. With a finite
/// cutoff it uses a neighbour list per system (skin 0.3 of the length scale unless set); with
/// an infinite cutoff it sums every pair of a free system.
///
/// Threading: several threads may compute different systems at once (each system's neighbour
/// list is its own). A large system's list sum is computed in parts fixed by its size
/// (`RowParts`: ranges of atoms of about equal pair counts, each into its own force array, summed
/// in part order), run on `threads(n)`'s crew or a crew lent to `compute(system, crew)` — the
/// same numbers on any number of threads; such sums run one at a time.
public abstract class PairPotential implements Model, AutoCloseable {
    private final double cutoff;
    private Crew crew; // null: the caller alone
    private final Object partsLock = new Object();
    private double[][] partForces = new double[0][]; // a system in parts: each part's forces, under `partsLock`
    private final PartPlan.Cache plans = new PartPlan.Cache();
    private final NeighborLists lists;
    private volatile boolean virial;

    /// A pair model with `cutoff` (may be infinite) and neighbour-list `skin`.
    protected PairPotential(double cutoff, double skin) {
        if (!(cutoff > 0)) {
            throw new IllegalArgumentException("option 'cutoff' must be positive (or infinite), got " + cutoff);
        }
        this.cutoff = cutoff;
        this.lists = Double.isInfinite(cutoff) ? null : new NeighborLists(cutoff, skin);
    }

    /// u(r) for r < cutoff.
    protected abstract double energy(double r);

    /// du/dr for r < cutoff.
    protected abstract double derivative(double r);

    /// u as a function of r², also writing (du/dr)/r into `g[0]`: one call per pair, so that a
    /// potential like Lennard-Jones computes its powers once and needs no square root. `g` is
    /// the calling thread's own scratch.
    protected double energySquared(double r2, double[] g) {
        double r = Math.sqrt(r2);
        g[0] = derivative(r) / r;
        return energy(r);
    }

    /// The smallest separation the model accepts before calling it an overlap.
    protected abstract double overlapDistance();

    /// The smallest separation the model accepts before calling it an overlap, Å.
    public final double overlap() {
        return overlapDistance();
    }

    /// The cutoff.
    public double cutoff() {
        return cutoff;
    }

    /// Runs a large system's parts (`RowParts`) on `n` threads; 1 (the default) runs them on the
    /// caller. The numbers are the same for any `n`. Returns this.
    public synchronized PairPotential threads(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("option 'threads' must be at least 1, got " + n);
        }
        close();
        if (n > 1) {
            crew = new Crew("penstock-forces", n);
        }
        return this;
    }

    private synchronized Crew crew() {
        return crew;
    }

    /// Stops the force threads (if any).
    @Override
    public synchronized void close() {
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }

    @Override
    public void forget(long id) {
        plans.forget(id);
        if (lists != null) {
            lists.forget(id);
        }
    }

    /// Writes where system `id`'s neighbour list was last built (and how many builds it has had),
    /// or that it has none.
    @Override
    public void save(long id, java.io.DataOutput out) throws java.io.IOException {
        if (lists == null) {
            out.writeBoolean(false);
        } else {
            lists.save(id, out);
        }
    }

    /// Rebuilds the saved list from its saved build positions (`NeighborList.rebuildAt`).
    @Override
    public void restore(AtomicSystem s, java.io.DataInput in) throws java.io.IOException {
        if (lists == null) {
            in.readBoolean();
        } else {
            lists.restore(s, in, null);
        }
    }

    /// Rebuilds each system's neighbour list every `n` evaluations, unchecked, as LAMMPS's
    /// `neigh_modify every n delay 0 check no` (`NeighborList.rebuildEvery`; a warning is logged
    /// once when a build finds that pairs may have been missed); 0, the default: whenever an atom
    /// has moved half the skin. Returns this.
    public PairPotential rebuildEvery(int n) {
        if (lists == null) {
            throw new IllegalArgumentException("option 'every': a potential without a cutoff keeps no neighbour lists");
        }
        lists.rebuildEvery(n);
        return this;
    }

    /// Builds under `rebuildEvery` after which an atom had moved more than half the skin.
    public long dangerousBuilds() {
        return lists == null ? 0 : lists.dangerousBuilds();
    }

    /// Whether `compute` always sums the virial (`AtomicSystem.virial`, W = Σ_pairs −(du/dr)/r ·
    /// d⊗d). Default false: six more sums per pair cost Lennard-Jones ~20% (`bench md`), so the
    /// virial is summed only when asked (`compute(system, crew, true)`: a barostat, a variable-cell
    /// relaxation) or set on here (an ASE calculator's stress); otherwise the system's virial is
    /// null. Energies and forces are the same bits either way. Returns this.
    public PairPotential virial(boolean on) {
        virial = on;
        return this;
    }

    /// Whether `virial(true)` set the virial on for every `compute` (a device stage's pair kernels
    /// then give it too).
    public boolean virialAlways() {
        return virial;
    }

    /// Systems whose neighbour lists are kept.
    public int listsHeld() {
        return lists == null ? 0 : lists.size();
    }

    @Override
    public void compute(AtomicSystem s) {
        compute(s, crew());
    }

    @Override
    public void compute(AtomicSystem s, Crew crew) {
        compute(s, crew, false);
    }

    @Override
    public void compute(AtomicSystem s, Crew crew, boolean asked) {
        double[] r = s.positions();
        double[] f = s.forces();
        Arrays.fill(f, 0);
        double e = 0;
        double rc2 = cutoff * cutoff;
        double[] w = asked || virial ? new double[6] : null; // xx yy zz xy xz yz
        if (Double.isInfinite(cutoff)) {
            for (int d = 0; d < 3; d++) {
                if (s.periodic(d)) {
                    throw new IllegalArgumentException("system " + s.id() + ": a periodic system needs a finite cutoff");
                }
            }
            int n = s.atoms();
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    e += pair(s, i, j, r[3 * j] - r[3 * i], r[3 * j + 1] - r[3 * i + 1], r[3 * j + 2] - r[3 * i + 2], rc2, f, w);
                }
            }
        } else if (laneTerms() != null) {
            e = laneSum(s, lists.current(s, crew), crew, w);
        } else {
            int k = RowParts.count(s.atoms());
            if (k == 1) {
                e = listSum(s, lists.current(s, null), r, f, rc2, 0, s.atoms(), w);
            } else {
                synchronized (partsLock) { // one system in parts at a time: the parts' arrays are kept for the next
                    e = partsListSum(s, lists.current(s, crew), r, f, rc2, crew, k, w);
                }
            }
        }
        if (!Double.isFinite(e)) {
            throw new IllegalStateException("system " + s.id() + ": the energy is " + e);
        }
        s.energy(e);
        s.virial(w == null ? null : new double[] {w[0], w[3], w[4], w[3], w[1], w[5], w[4], w[5], w[2]});
    }

    /// Adds part virials `parts` (xx yy zz xy xz yz each) into `w` in part order (null: none).
    private static void addVirials(double[][] parts, double[] w) {
        for (int p = 0; w != null && p < parts.length; p++) {
            for (int c = 0; c < 6; c++) {
                w[c] += parts[p][c];
            }
        }
    }

    /// The constants of the lane sums over a full list (`LjLanes`) when this model has them
    /// (Lennard-Jones), else null: the half list's sum, term by term through `energySquared`.
    LjLanes.Terms laneTerms() {
        return null;
    }

    /// The lane sums over `list`'s full list (`LjLanes`), in `RowParts` parts run on `crew` when the
    /// system is large — each atom's numbers its own, whatever the split — the parts' energies
    /// added in part order (the parts fixed by the system's size). The forces are set, every
    /// atom's. Nothing is shared between calls: systems may be computed on several threads at once.
    private double laneSum(AtomicSystem s, NeighborList list, Crew crew, double[] w) {
        int n = s.atoms();
        double[] r = s.positions();
        double[] f = s.forces();
        int k = RowParts.count(n);
        FullList full = list.full(n, r, k == 1 ? null : crew);
        LjLanes.Terms t = laneTerms();
        int[] overlap = {-1};
        double e;
        if (k == 1) {
            e = LjLanes.sum(full, t, f, 0, n, overlap, w);
        } else {
            double[] energies = new double[k];
            int[][] overlaps = new int[k][];
            double[][] virials = new double[k][6];
            RowParts.run(crew, k, p -> {
                overlaps[p] = new int[] {-1};
                energies[p] = LjLanes.sum(full, t, f, RowParts.from(n, p, k), RowParts.from(n, p + 1, k), overlaps[p],
                        w == null ? null : virials[p]);
            });
            addVirials(virials, w);
            e = 0;
            for (int p = k - 1; p >= 0; p--) { // the first part's first overlap is the one named
                overlap[0] = overlaps[p][0] >= 0 ? overlaps[p][0] : overlap[0];
            }
            for (double part : energies) {
                e += part;
            }
        }
        if (overlap[0] >= 0) {
            throw overlap(s, full, overlap[0], t.od2());
        }
        return e;
    }

    /// The overlap atom `i` has with its closest partner in `full` (closer than √`od2`).
    private IllegalStateException overlap(AtomicSystem s, FullList full, int i, double od2) {
        double best = Double.POSITIVE_INFINITY;
        int partner = -1;
        int[] nb = full.partners();
        for (int p = full.start()[i]; p < full.start()[i + 1]; p++) {
            int j = nb[p];
            double dx = full.x()[j] - full.x()[i];
            double dy = full.y()[j] - full.y()[i];
            double dz = full.z()[j] - full.z()[i];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < best) {
                best = r2;
                partner = full.owner(j);
            }
        }
        int a = Math.min(i, partner);
        int b = Math.max(i, partner);
        return new IllegalStateException("system " + s.id() + ": atoms " + a + " and " + b + " overlap (r = " + Math.sqrt(best) + " Å)");
    }

    /// The list sum in `k` parts (`RowParts`) run on `crew` (null: the caller): ranges of atoms
    /// with about equal pair counts (fixed by the list, not by the threads), each into its own
    /// force array over the blocks it writes (`PartPlan`); then each atom's forces summed in part
    /// order, and the energies likewise. The caller holds `partsLock`.
    private double partsListSum(AtomicSystem s, NeighborList list, double[] r, double[] f, double rc2, Crew crew, int k, double[] w) {
        int n = s.atoms();
        if (partForces.length < k || partForces[0].length < 3 * n) {
            partForces = new double[k][3 * n];
        }
        double[][] forces = partForces;
        PartPlan parts = plans.of(s.id(), list, list.builds(), n, k, list.second(), list.start(), list.end());
        double[] energies = new double[k];
        double[][] virials = new double[k][6];
        RowParts.run(crew, k, p -> {
            parts.clear(p, forces[p], 3);
            energies[p] = listSum(s, list, r, forces[p], rc2, parts.bounds[p], parts.bounds[p + 1], w == null ? null : virials[p]);
        });
        addVirials(virials, w);
        RowParts.run(crew, k, p -> parts.sum(forces, f, 3, RowParts.from(n, p, k), RowParts.from(n, p + 1, k)));
        double e = 0;
        for (double part : energies) {
            e += part;
        }
        return e;
    }

    /// The sum over the neighbour list for atoms `[lo, hi)`, atom by atom: atom i's position and
    /// force stay in registers across its pairs; image shifts come from a small table by code,
    /// loaded only for the pairs that have one (~10% of a large box's: the others skip three loads
    /// and adds, and r_j + 0 − r_i is r_j − r_i to the bit).
    private double listSum(AtomicSystem s, NeighborList list, double[] r, double[] f, double rc2, int lo, int hi, double[] w) {
        int[] start = list.start();
        int[] end = list.end();
        int[] b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        short none = list.unshiftedCode();
        double od2 = overlapDistance() * overlapDistance();
        double[] scratch = new double[1];
        double e = 0;
        for (int i = lo; i < hi; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            double fx = 0;
            double fy = 0;
            double fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                short k = code[p];
                double dx;
                double dy;
                double dz;
                if (k == none) {
                    dx = r[3 * j] - xi;
                    dy = r[3 * j + 1] - yi;
                    dz = r[3 * j + 2] - zi;
                } else {
                    int c = 3 * k;
                    dx = r[3 * j] + shift[c] - xi;
                    dy = r[3 * j + 1] + shift[c + 1] - yi;
                    dz = r[3 * j + 2] + shift[c + 2] - zi;
                }
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) {
                    continue;
                }
                if (r2 < od2) {
                    throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = "
                            + Math.sqrt(r2) + " Å)");
                }
                e += energySquared(r2, scratch);
                double g = scratch[0];
                if (w != null) {
                    tally(w, g, dx, dy, dz);
                }
                fx += g * dx;
                fy += g * dy;
                fz += g * dz;
                f[3 * j] -= g * dx;
                f[3 * j + 1] -= g * dy;
                f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx;
            f[3 * i + 1] += fy;
            f[3 * i + 2] += fz;
        }
        return e;
    }

    /// Adds one pair's −g·d⊗d to `w` (xx yy zz xy xz yz).
    private static void tally(double[] w, double g, double dx, double dy, double dz) {
        w[0] -= g * dx * dx;
        w[1] -= g * dy * dy;
        w[2] -= g * dz * dz;
        w[3] -= g * dx * dy;
        w[4] -= g * dx * dz;
        w[5] -= g * dy * dz;
    }

    private double pair(AtomicSystem s, int i, int j, double dx, double dy, double dz, double rc2, double[] f, double[] w) {
        double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) {
            return 0;
        }
        double od = overlapDistance();
        if (r2 < od * od) {
            throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = " + Math.sqrt(r2) + " Å)");
        }
        double[] scratch = new double[1];
        double e = energySquared(r2, scratch);
        double g = scratch[0]; // F_i = +du/dr · d/r (d = r_j − r_i), F_j = −F_i
        if (w != null) {
            tally(w, g, dx, dy, dz);
        }
        f[3 * i] += g * dx;
        f[3 * i + 1] += g * dy;
        f[3 * i + 2] += g * dz;
        f[3 * j] -= g * dx;
        f[3 * j + 1] -= g * dy;
        f[3 * j + 2] -= g * dz;
        return e;
    }

    /// The neighbour list of system `id` (for tests and diagnostics), or null.
    public NeighborList neighborList(long id) {
        return lists == null ? null : lists.get(id);
    }
}
