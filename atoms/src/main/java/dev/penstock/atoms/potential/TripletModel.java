package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.util.Arrays;

/// A three-body model from a LAMMPS triplet file (`TripletFile`: Stillinger–Weber, Tersoff): per
/// entry its parameters, the entry of each element triplet, and the largest cutoff of any entry
/// (the lists' radius).
///
/// Both sum over the full neighbour list row by row (`rows`); a large system is computed in parts
/// fixed by its size (`RowParts`: each part's rows into the part's own forces and sums, over the
/// blocks it writes, `PartPlan`, summed in part order), run on `threads(n)`'s crew or a crew lent
/// to `compute(system, crew)`: the same numbers on any number of threads.
///
/// Threading: different systems may be computed at once from different threads; systems in
/// parts one at a time.
abstract class TripletModel extends FileModel {
    /// Per entry: its parameters (each model's layout).
    final double[][] p;
    /// `[i][j][k]` (flattened over the file's elements) → entry.
    final int[] elem3;
    /// The largest cutoff of any entry, Å.
    final double cutmax;

    TripletModel(Species species, double[][] p, int[] elem3, double cutmax) {
        super(species, cutmax);
        this.p = p;
        this.elem3 = elem3;
        this.cutmax = cutmax;
    }

    private double[][] partForces = new double[0][]; // a system in parts: each part's forces, under `partsLock`

    /// Rows (atoms i) `[from, to)`: their terms added into `f` and `w` (virial xx yy zz xy xz yz,
    /// then the energy), as LAMMPS's loop over i adds them (the virial only `withVirial`).
    abstract void rows(AtomicSystem s, FullLists.Full fl, int[] type, int from, int to, double[] f, double[] w, boolean withVirial);

    /// The model's name in messages ("Tersoff").
    abstract String label();

    /// Whether `compute` sums the virial.
    boolean sumsVirial() {
        return true;
    }


    @Override
    public void compute(AtomicSystem s, Crew crew) {
        boolean withVirial = sumsVirial();
        int n = s.atoms();
        int k = RowParts.count(n);
        int[] type = species.types(s);
        double[] f = s.forces();
        double[] w;
        if (k == 1) {
            FullLists.Full fl = full.of(s);
            Arrays.fill(f, 0);
            w = new double[7]; // xx yy zz xy xz yz, energy
            rows(s, fl, type, 0, n, f, w, withVirial);
        } else {
            synchronized (partsLock) { // one system in parts at a time: the parts' arrays are kept for the next
                w = computeSplit(s, full.of(s, crew), type, crew, k, withVirial);
            }
        }
        double energy = w[6];
        if (!Double.isFinite(energy)) {
            throw new IllegalStateException("system " + s.id() + ": the " + label() + " energy is " + energy);
        }
        s.energy(energy);
        s.virial(withVirial ? new double[] {w[0], w[3], w[4], w[3], w[1], w[5], w[4], w[5], w[2]} : null);
    }

    /// `compute` in `k` parts (`RowParts`) run on `crew` (null: the caller; the caller holds
    /// `partsLock`): each part's rows into its own forces and sums (kept between calls), summed
    /// in part order; returns the sums.
    private double[] computeSplit(AtomicSystem s, FullLists.Full fl, int[] type, Crew crew, int k, boolean withVirial) {
        int n = s.atoms();
        if (partForces.length < k || partForces[0].length < 3 * n) {
            partForces = new double[k][3 * n];
        }
        double[][] forces = partForces;
        double[][] sums = new double[k][7];
        double[] f = s.forces();
        PartPlan parts = plans.of(s.id(), fl, fl.builds(), n, k, fl.nbr(), fl.start(), null);
        RowParts.run(crew, k, p -> {
            parts.clear(p, forces[p], 3);
            rows(s, fl, type, parts.bounds[p], parts.bounds[p + 1], forces[p], sums[p], withVirial);
        });
        RowParts.run(crew, k, p -> parts.sum(forces, f, 3, RowParts.from(n, p, k), RowParts.from(n, p + 1, k)));
        double[] w = sums[0];
        for (int q = 1; q < k; q++) {
            for (int c = 0; c < 7; c++) {
                w[c] += sums[q][c];
            }
        }
        return w;
    }
}
