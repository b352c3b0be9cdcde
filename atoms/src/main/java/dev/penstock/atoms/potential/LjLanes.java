package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.FullList;
import dev.penstock.device.VectorSupport;

/// Lennard-Jones over a full list of ghost atoms (`FullList`), `FullList.LANES` partners at a time:
/// each atom gathers its own force and pair energies — no scatter to its partners, so atoms are
/// independent and any split over threads gives the same bits — with the cutoff a lane mask
/// rather than a branch (a liquid's partners fall inside and outside at random, which a branch
/// mispredicts). Lane q of an atom takes partners q, q + LANES, …, each lane in its own sum; the
/// lanes are then added in order, 0 to LANES − 1. The Vector API runs the lanes as one vector
/// (`LjLanesVector`); without it, the same operations one lane at a time here: the same bits.
///
/// Per pair, with d = r_j − r_i, r² = d·d, inside the cutoff (else every term 0):
/// s2 = σ²/r², s6 = s2³, g = (−12·s6 + 6)·s6·4ε/r² = (du/dr)/r, e = (s6 − 1)·s6·4ε − shift;
/// F_i += g·d, and half of e is atom i's. The virial W = Σ_pairs −g·d⊗d, when asked for, costs
/// the ghosts' pairs alone (each atom's ghosts come after its atoms in `FullList`): a pair of two
/// atoms i, j gives F_i ⊗ r_i + F_j ⊗ r_j its −g·d⊗d, so the atoms' pairs with each other are
/// Σ_i (F_i − F_i^ghosts) ⊗ r_i, and each lane sums g·d⊗d and F_i^ghosts over the ghosts' pairs
/// only (a pair with a ghost is seen from both its atoms: −½ of those lanes' folds). LAMMPS's
/// `virial_fdotr_compute` rests on the same identity.
final class LjLanes {
    private static final boolean VECTOR = VectorSupport.orFallBack("the Lennard-Jones lane sums");

    private LjLanes() {
    }

    /// The constants of one model: σ², 4ε, the energy shift, the squared cutoff, the squared
    /// overlap distance.
    record Terms(double sigma2, double fourEps, double shift, double rc2, double od2) {
    }

    /// Forces of atoms `[lo, hi)` into `f` (set, not added); returns their energy, each atom's
    /// half of its pair terms added in atom order. `overlap[0]` is set to the first of them with a
    /// partner closer than the overlap distance (else left as it is). `w` (null: none) takes
    /// their share of the virial, xx yy zz xy xz yz.
    static double sum(FullList list, Terms t, double[] f, int lo, int hi, int[] overlap, double[] w) {
        return VECTOR ? LjLanesVector.sum(list, t, f, lo, hi, overlap, w) : scalar(list, t, f, lo, hi, overlap, w);
    }

    /// `sum` one lane at a time (the same operations in the same order as the vector form).
    static double scalar(FullList list, Terms t, double[] f, int lo, int hi, int[] overlap, double[] w) {
        boolean virial = w != null;
        int[] start = list.start();
        int[] localEnd = list.localEnd();
        int[] nb = list.partners();
        double[] x = list.x();
        double[] y = list.y();
        double[] z = list.z();
        final int lanes = FullList.LANES;
        double[] fx = new double[lanes];
        double[] fy = new double[lanes];
        double[] fz = new double[lanes];
        double[] ev = new double[lanes];
        double[] ghost = new double[9 * lanes];
        double[] local = new double[6];
        double energy = 0;
        for (int i = lo; i < hi; i++) {
            double xi = x[i];
            double yi = y[i];
            double zi = z[i];
            java.util.Arrays.fill(fx, 0);
            java.util.Arrays.fill(fy, 0);
            java.util.Arrays.fill(fz, 0);
            java.util.Arrays.fill(ev, 0);
            int le = localEnd[i];
            int from = virial ? Math.min(start[i + 1], start[i] + (le - start[i]) / lanes * lanes) : start[i + 1];
            if (from < start[i + 1]) {
                java.util.Arrays.fill(ghost, 6 * lanes, 9 * lanes, 0);
            }
            for (int p = start[i]; p < start[i + 1]; p += lanes) {
                for (int q = 0; q < lanes; q++) {
                    int j = nb[p + q];
                    double dx = x[j] - xi;
                    double dy = y[j] - yi;
                    double dz = z[j] - zi;
                    double r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < t.od2() && overlap[0] < 0) {
                        overlap[0] = i;
                    }
                    boolean in = !(r2 >= t.rc2()); // NaN inside: it reaches the energy
                    double inv2 = in ? 1 / r2 : 0;
                    double s2 = inv2 * t.sigma2();
                    double s6 = s2 * s2 * s2;
                    double g = (s6 * -12 + 6) * s6 * t.fourEps() * inv2;
                    double e = in ? (s6 - 1) * s6 * t.fourEps() - t.shift() : 0;
                    double gx = g * dx;
                    double gy = g * dy;
                    double gz = g * dz;
                    fx[q] += gx;
                    fy[q] += gy;
                    fz[q] += gz;
                    ev[q] += e;
                    if (p >= from) {
                        boolean isGhost = p + q >= le;
                        double hx = isGhost ? gx : 0;
                        double hy = isGhost ? gy : 0;
                        double hz = isGhost ? gz : 0;
                        ghost[q] += hx * dx;
                        ghost[lanes + q] += hy * dy;
                        ghost[2 * lanes + q] += hz * dz;
                        ghost[3 * lanes + q] += hx * dy;
                        ghost[4 * lanes + q] += hx * dz;
                        ghost[5 * lanes + q] += hy * dz;
                        ghost[6 * lanes + q] += hx;
                        ghost[7 * lanes + q] += hy;
                        ghost[8 * lanes + q] += hz;
                    }
                }
            }
            f[3 * i] = fold(fx);
            f[3 * i + 1] = fold(fy);
            f[3 * i + 2] = fold(fz);
            energy += 0.5 * fold(ev);
            if (virial) {
                local(f, i, xi, yi, zi, ghost, from < start[i + 1], local);
            }
        }
        if (virial) {
            virial(ghost, local, w);
        }
        return energy;
    }

    /// Atom i's share of the atoms' pairs with each other, (F_i − F_i^ghosts) ⊗ r_i (F_i^ghosts the
    /// lanes `ghost[6·LANES …]` folded when `hasGhosts`), added into `local` (xx yy zz xy xz yz).
    static void local(double[] f, int i, double xi, double yi, double zi, double[] ghost, boolean hasGhosts, double[] local) {
        double lx = f[3 * i];
        double ly = f[3 * i + 1];
        double lz = f[3 * i + 2];
        if (hasGhosts) {
            lx -= fold(ghost, 6);
            ly -= fold(ghost, 7);
            lz -= fold(ghost, 8);
        }
        local[0] += lx * xi;
        local[1] += ly * yi;
        local[2] += lz * zi;
        local[3] += lx * yi;
        local[4] += lx * zi;
        local[5] += ly * zi;
    }

    /// The range's virial (xx yy zz xy xz yz) into `w`: the atoms' pairs with each other plus −½
    /// of the ghosts' lanes, folded.
    static void virial(double[] ghost, double[] local, double[] w) {
        for (int c = 0; c < 6; c++) {
            w[c] = local[c] - 0.5 * fold(ghost, c);
        }
    }

    /// Lanes `[c·LANES, (c + 1)·LANES)` of `lanes` added in order.
    private static double fold(double[] lanes, int c) {
        int l = FullList.LANES;
        double s = lanes[c * l];
        for (int q = 1; q < l; q++) {
            s += lanes[c * l + q];
        }
        return s;
    }

    /// Lanes 0 … LANES − 1 added in order.
    static double fold(double[] lanes) {
        double s = lanes[0];
        for (int q = 1; q < lanes.length; q++) {
            s += lanes[q];
        }
        return s;
    }
}
