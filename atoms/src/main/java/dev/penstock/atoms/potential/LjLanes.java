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
/// F_i += g·d, and half of e is atom i's; with a virial asked for, each lane also sums g·d⊗d
/// over the range's atoms (six components), and the virial is −½ of the lanes' folds (each pair
/// seen from both its atoms: W = Σ_pairs −g·d⊗d).
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
        double[][] wv = new double[6][lanes()];
        int[] start = list.start();
        int[] nb = list.partners();
        double[] x = list.x();
        double[] y = list.y();
        double[] z = list.z();
        final int lanes = FullList.LANES;
        double[] fx = new double[lanes];
        double[] fy = new double[lanes];
        double[] fz = new double[lanes];
        double[] ev = new double[lanes];
        double energy = 0;
        for (int i = lo; i < hi; i++) {
            double xi = x[i];
            double yi = y[i];
            double zi = z[i];
            java.util.Arrays.fill(fx, 0);
            java.util.Arrays.fill(fy, 0);
            java.util.Arrays.fill(fz, 0);
            java.util.Arrays.fill(ev, 0);
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
                    if (virial) {
                        wv[0][q] += gx * dx;
                        wv[1][q] += gy * dy;
                        wv[2][q] += gz * dz;
                        wv[3][q] += gx * dy;
                        wv[4][q] += gx * dz;
                        wv[5][q] += gy * dz;
                    }
                }
            }
            f[3 * i] = fold(fx);
            f[3 * i + 1] = fold(fy);
            f[3 * i + 2] = fold(fz);
            energy += 0.5 * fold(ev);
        }
        for (int c = 0; virial && c < 6; c++) {
            w[c] = -0.5 * fold(wv[c]);
        }
        return energy;
    }

    private static int lanes() {
        return FullList.LANES;
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
