package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/// The Ziegler–Biersack–Littmark screened nuclear repulsion as LAMMPS's `pair_style zbl inner
/// outer` computes it (metal units), with the nuclear charges the atoms' atomic numbers:
///
/// E(r) = Z_i Z_j e²/(4πε₀ r) · Σ_k c_k exp(−d_k r / a) + S(r),  a = 0.46850 / (Z_i^0.23 + Z_j^0.23) Å,
///
/// c = (0.02817, 0.28022, 0.50986, 0.18175), d = (0.20162, 0.40290, 0.94229, 3.19980), e²/(4πε₀) =
/// 14.399645 eV·Å, and S the switching polynomial that takes the energy and its first two
/// derivatives to zero at `outer`, from `inner` on (a constant below `inner`: LAMMPS's `sw5`).
/// The force and energy of a pair are LAMMPS's operation for operation; the virial is tallied.
///
/// Threading: different systems may be computed at once from different threads.
public final class Zbl implements Model {
    private static final double QQR2E = 14.399645; // LAMMPS's metal units: e²/(4πε₀), eV·Å
    private static final double A0 = 0.46850;
    private static final double PZBL = 0.23;
    private static final double C1 = 0.02817;
    private static final double C2 = 0.28022;
    private static final double C3 = 0.50986;
    private static final double C4 = 0.18175;
    private static final double D1 = 0.20162;
    private static final double D2 = 0.40290;
    private static final double D3 = 0.94229;
    private static final double D4 = 3.19980;
    private static final int ELEMENTS = 119;

    private final double inner;
    private final double outer;
    private final NeighborLists lists;
    /// Per pair of atomic numbers (zi · 119 + zj), made on first use: d1a…d4a, zze, sw1…sw5.
    private final double[][] pairs = new double[ELEMENTS * ELEMENTS][];

    /// ZBL switched off between `inner` and `outer` (Å; 0 < inner ≤ outer).
    public Zbl(double inner, double outer) {
        if (!(inner > 0) || !(outer >= inner) || Double.isInfinite(outer)) {
            throw new IllegalArgumentException("zbl: 'inner' and 'outer' must satisfy 0 < inner ≤ outer < ∞, got " + inner + ", " + outer);
        }
        this.inner = inner;
        this.outer = outer;
        this.lists = new NeighborLists(outer, 1.0);
    }

    /// The coefficients of atomic numbers `zi`, `zj`, as LAMMPS's `set_coeff` computes them.
    private double[] coefficients(int zi, int zj) {
        int key = zi * ELEMENTS + zj;
        double[] c = pairs[key];
        if (c != null) {
            return c;
        }
        double ainv = (Math.pow(zi, PZBL) + Math.pow(zj, PZBL)) / A0;
        c = new double[10];
        c[0] = D1 * ainv;
        c[1] = D2 * ainv;
        c[2] = D3 * ainv;
        c[3] = D4 * ainv;
        c[4] = (double) zi * zj * QQR2E; // LAMMPS: zi·zj·qqr2e·qelectron², qelectron = 1
        double tc = outer - inner;
        double fc = energy(c, outer);
        double fcp = derivative(c, outer);
        double fcpp = second(c, outer);
        double swa = (-3.0 * fcp + tc * fcpp) / (tc * tc);
        double swb = (2.0 * fcp - tc * fcpp) / (tc * tc * tc);
        double swc = -fc + (tc / 2.0) * fcp - (tc * tc / 12.0) * fcpp;
        c[5] = swa;
        c[6] = swb;
        c[7] = swa / 3.0;
        c[8] = swb / 4.0;
        c[9] = swc;
        pairs[key] = c; // a benign race: every thread computes the same array
        return c;
    }

    /// The coefficients of the pair of atomic numbers `zi`, `zj` as a device reads them (a copy):
    /// d_k/a (4), Z_i·Z_j·e²/(4πε₀), then the switch's swa, swb, swa/3, swb/4 and swc.
    public double[] pairCoefficients(int zi, int zj) {
        return coefficients(zi, zj).clone();
    }

    /// Where the switch starts (Å).
    public double inner() {
        return inner;
    }

    /// The cutoff (Å).
    public double outer() {
        return outer;
    }

    /// Σ_k C_k·exp(−d_k·r/a)·(d_k/a)^`power`: the screening function and its derivatives' sums.
    private static double screening(double[] c, double r, int power) {
        double[] coefficient = {C1, C2, C3, C4};
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            double term = coefficient[k] * Math.exp(-c[k] * r);
            for (int q = 0; q < power; q++) {
                term *= c[k];
            }
            sum += term;
        }
        return sum;
    }

    private static double energy(double[] c, double r) {
        return c[4] * screening(c, r, 0) / r;
    }

    private static double derivative(double[] c, double r) {
        double rinv = 1.0 / r;
        return c[4] * (-screening(c, r, 1) - screening(c, r, 0) * rinv) * rinv;
    }

    private static double second(double[] c, double r) {
        double rinv = 1.0 / r;
        return c[4] * (screening(c, r, 2) + 2.0 * screening(c, r, 1) * rinv + 2.0 * screening(c, r, 0) * rinv * rinv) * rinv;
    }

    @Override
    public void compute(AtomicSystem s) {
        double[] r = s.positions();
        double[] f = s.forces();
        int[] z = s.numbers();
        java.util.Arrays.fill(f, 0);
        NeighborList list = lists.current(s, null);
        int[] start = list.start();
        int[] end = list.end();
        int[] b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double outer2 = outer * outer;
        double inner2 = inner * inner;
        double e = 0;
        double[] w = new double[9];
        for (int i = 0; i < s.atoms(); i++) {
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int c3 = 3 * code[p];
                double delx = r[3 * i] - (r[3 * j] + shift[c3]); // LAMMPS's del = x_i − x_j
                double dely = r[3 * i + 1] - (r[3 * j + 1] + shift[c3 + 1]);
                double delz = r[3 * i + 2] - (r[3 * j + 2] + shift[c3 + 2]);
                double rsq = delx * delx + dely * dely + delz * delz;
                if (!(rsq < outer2)) {
                    if (Double.isNaN(rsq)) {
                        e = Double.NaN;
                    }
                    continue;
                }
                if (rsq == 0) {
                    throw new IllegalStateException("system " + s.id() + ": atoms " + Math.min(i, j) + " and " + Math.max(i, j)
                            + " overlap (r = 0.0 Å)");
                }
                double[] c = coefficients(z[i], z[j]);
                double rr = Math.sqrt(rsq);
                double fpair = derivative(c, rr);
                double t = rr - inner;
                if (rsq > inner2) {
                    fpair += t * t * (c[5] + c[6] * t);
                }
                fpair *= -1.0 / rr;
                f[3 * i] += delx * fpair;
                f[3 * i + 1] += dely * fpair;
                f[3 * i + 2] += delz * fpair;
                f[3 * j] -= delx * fpair;
                f[3 * j + 1] -= dely * fpair;
                f[3 * j + 2] -= delz * fpair;
                double evdwl = energy(c, rr) + c[9];
                if (rsq > inner2) {
                    evdwl += t * t * t * (c[7] + c[8] * t);
                }
                e += evdwl;
                double[] d = {delx, dely, delz}; // W_ab = Σ del_a · del_b · fpair (LAMMPS's ev_tally)
                for (int a = 0; a < 3; a++) {
                    for (int q = 0; q < 3; q++) {
                        w[3 * a + q] += d[a] * d[q] * fpair;
                    }
                }
            }
        }
        if (!Double.isFinite(e)) {
            throw new IllegalStateException("system " + s.id() + ": the energy is " + e);
        }
        s.energy(e);
        s.virial(w);
    }

    @Override
    public double cutoff() {
        return outer;
    }

    @Override
    public String refusal(AtomicSystem s) {
        for (int i = 0; i < s.atoms(); i++) {
            int z = s.numbers()[i];
            if (z < 1 || z >= ELEMENTS) {
                return "zbl: atom " + i + " has no element (atomic number " + z + "); ZBL needs the nuclear charges";
            }
        }
        return null;
    }

    @Override
    public void forget(long id) {
        lists.forget(id);
    }

    @Override
    public void save(long id, DataOutput out) throws IOException {
        lists.save(id, out);
    }

    @Override
    public void restore(AtomicSystem s, DataInput in) throws IOException {
        lists.restore(s, in, null);
    }

    /// The model as the CLI names it.
    @Override
    public String toString() {
        return "zbl(inner=" + inner + ", outer=" + outer + ")";
    }
}
