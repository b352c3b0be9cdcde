package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/// Tersoff from a LAMMPS `*.tersoff` file (multi-element), with LAMMPS's `pair_style tersoff`
/// arithmetic — its cutoff function, bond-order branches and force terms — so that energies and
/// forces agree with LAMMPS to rounding:
///
/// ```
///   E = Σ_{i<j} f_c(r_ij) A e^{−λ1 r_ij}  +  ½ Σ_i Σ_{j≠i} b_ij f_c(r_ij) (−B e^{−λ2 r_ij})
///   b_ij = (1 + (β ζ_ij)^n)^{−1/2n},  ζ_ij = Σ_{k≠i,j} f_c(r_ik) g(θ_ijk) e^{(λ3 (r_ij − r_ik))^m}
///   g(θ) = γ (1 + c²/d² − c² / (d² + (h − cos θ)²)),  f_c: 1 → 0 over R − D … R + D (a sine)
/// ```
///
/// Entries `el1 el2 el3 m γ λ3 c d cosθ0(h) n β λ2 B R D λ1 A` (comments `#`; an entry may span
/// lines); pair terms of i–j use entry (i, j, j), the ζ term of k entry (i, j, k). Every triplet
/// of the file's elements must have exactly one entry. Sums run over the full neighbour list
/// (`FullLists`); the virial is tallied as LAMMPS tallies it.
///
/// Threading: different systems may be computed at once from different threads.
public final class Tersoff extends FileModel {
    private static final double PI2 = Math.PI / 2;
    private static final double PI4 = Math.PI / 4;

    // indices into an entry's parameters
    private static final int M = 0;
    private static final int GAMMA = 1;
    private static final int LAM3 = 2;
    private static final int C = 3;
    private static final int D = 4;
    private static final int H = 5;
    private static final int N = 6;
    private static final int BETA = 7;
    private static final int LAM2 = 8;
    private static final int BIGB = 9;
    private static final int BIGR = 10;
    private static final int BIGD = 11;
    private static final int LAM1 = 12;
    private static final int BIGA = 13;
    private static final int CUTSQ = 14;
    private static final int C1 = 15; // …C4 = 18

    private final double[][] p;
    private final int[] elem3;
    private final double cutmax;

    private Tersoff(Species species, double[][] p, int[] elem3, double cutmax) {
        super(species, cutmax);
        this.p = p;
        this.elem3 = elem3;
        this.cutmax = cutmax;
    }

    /// A new model on the same parameters, with no neighbour lists: one per stage worker.
    public Tersoff fresh() {
        return new Tersoff(species, p, elem3, cutmax);
    }

    /// Reads a LAMMPS `*.tersoff` file; a missing, bad or incomplete file fails naming the file
    /// (and the line of a bad entry, or the triplet that has none).
    public static Tersoff read(Path file) throws IOException {
        TripletFile f = TripletFile.read(file, "Tersoff", 14, "m gamma lambda3 c d costheta0 n beta lambda2 B R D lambda1 A");
        double[][] p = new double[f.values().size()][];
        double cutmax = 0;
        for (int m = 0; m < p.length; m++) {
            double[] v = Arrays.copyOf(f.values().get(m), C1 + 4);
            if (v[LAM3] < 0 || v[C] < 0 || v[D] < 0 || v[N] < 0 || v[BETA] < 0 || v[LAM2] < 0 || v[BIGB] < 0 || v[BIGR] < 0 || v[BIGD] < 0
                    || v[BIGD] > v[BIGR] || v[BIGA] < 0 || v[M] - (int) v[M] != 0 || (v[M] != 3 && v[M] != 1) || v[GAMMA] < 0) {
                throw new IllegalArgumentException(f.where(file, m) + " has an illegal Tersoff parameter (as LAMMPS checks them: m 1 or 3, "
                        + "D ≤ R, the rest non-negative)");
            }
            double cut = v[BIGR] + v[BIGD];
            v[CUTSQ] = cut * cut;
            v[C1] = Math.pow(2.0 * v[N] * 1.0e-16, -1.0 / v[N]);
            v[C1 + 1] = Math.pow(2.0 * v[N] * 1.0e-8, -1.0 / v[N]);
            v[C1 + 2] = 1.0 / v[C1 + 1];
            v[C1 + 3] = 1.0 / v[C1];
            p[m] = v;
            cutmax = Math.max(cutmax, cut);
        }
        return new Tersoff(Species.of(file, f.elements()), p, f.index(), cutmax);
    }

    @Override
    public void compute(AtomicSystem s) {
        int n = s.atoms();
        int ne = species.symbols().length;
        int[] type = species.types(s);
        FullLists.Full fl = full.of(s);
        int[] start = fl.start();
        int[] nbr = fl.nbr();
        double[] shift = fl.shift();
        boolean[] half = fl.half();
        double[] r = s.positions();
        double[] f = s.forces();
        Arrays.fill(f, 0);
        double energy = 0;
        double[] w = new double[6]; // xx yy zz xy xz yz
        double[] d1 = new double[3];
        double[] d2 = new double[3];
        double[] fi = new double[3];
        double[] fj = new double[3];
        double[] fk = new double[3];
        double[] near = new double[0];
        double[] nearSq = new double[0];
        for (int i = 0; i < n; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            int ti = type[i];
            // two-body repulsion, each pair once
            for (int q = start[i]; q < start[i + 1]; q++) {
                if (!half[q]) {
                    continue;
                }
                int j = nbr[q];
                double dx = xi - (r[3 * j] + shift[3 * q]);
                double dy = yi - (r[3 * j + 1] + shift[3 * q + 1]);
                double dz = zi - (r[3 * j + 2] + shift[3 * q + 2]);
                double rsq = dx * dx + dy * dy + dz * dz;
                double[] ij = p[elem3[(ti * ne + type[j]) * ne + type[j]]];
                if (rsq >= ij[CUTSQ]) {
                    continue;
                }
                double rr = Math.sqrt(rsq);
                double fc = fc(rr, ij);
                double fcd = fcD(rr, ij);
                double ex = Math.exp(-ij[LAM1] * rr);
                double fpair = -ij[BIGA] * ex * (fcd - fc * ij[LAM1]) / rr;
                energy += fc * ij[BIGA] * ex;
                f[3 * i] += dx * fpair;
                f[3 * i + 1] += dy * fpair;
                f[3 * i + 2] += dz * fpair;
                f[3 * j] -= dx * fpair;
                f[3 * j + 1] -= dy * fpair;
                f[3 * j + 2] -= dz * fpair;
                w[0] += dx * dx * fpair;
                w[1] += dy * dy * fpair;
                w[2] += dz * dz * fpair;
                w[3] += dx * dy * fpair;
                w[4] += dx * dz * fpair;
                w[5] += dy * dz * fpair;
            }
            // three-body: the bond order of every i–j within the cutoff. Every neighbour's vector
            // from i is worked out once (as LAMMPS works it out in each of its loops)
            int count = start[i + 1] - start[i];
            if (near.length < 3 * count) {
                near = new double[3 * count];
                nearSq = new double[count];
            }
            for (int b = 0; b < count; b++) {
                int q = start[i] + b;
                int k = nbr[q];
                near[3 * b] = r[3 * k] + shift[3 * q] - xi;
                near[3 * b + 1] = r[3 * k + 1] + shift[3 * q + 1] - yi;
                near[3 * b + 2] = r[3 * k + 2] + shift[3 * q + 2] - zi;
                nearSq[b] = near[3 * b] * near[3 * b] + near[3 * b + 1] * near[3 * b + 1] + near[3 * b + 2] * near[3 * b + 2];
            }
            for (int a = 0; a < count; a++) {
                int j = nbr[start[i] + a];
                int tj = type[j];
                double[] ij = p[elem3[(ti * ne + tj) * ne + tj]];
                double rsq1 = nearSq[a];
                if (rsq1 >= ij[CUTSQ]) {
                    continue;
                }
                d1[0] = near[3 * a];
                d1[1] = near[3 * a + 1];
                d1[2] = near[3 * a + 2];
                double zeta = 0;
                for (int b = 0; b < count; b++) {
                    double[] ijk = p[elem3[(ti * ne + tj) * ne + type[nbr[start[i] + b]]]];
                    if (b == a || nearSq[b] >= ijk[CUTSQ]) {
                        continue;
                    }
                    d2[0] = near[3 * b];
                    d2[1] = near[3 * b + 1];
                    d2[2] = near[3 * b + 2];
                    zeta += zeta(ijk, rsq1, nearSq[b], d1, d2);
                }
                // pairwise force due to zeta (LAMMPS's force_zeta)
                double r1 = Math.sqrt(rsq1);
                double fa = fa(r1, ij);
                double faD = faD(r1, ij);
                double bij = bij(zeta, ij);
                double fpair = 0.5 * bij * faD / r1;
                double prefactor = -0.5 * fa * bijD(zeta, ij);
                energy += 0.5 * bij * fa;
                f[3 * i] += d1[0] * fpair;
                f[3 * i + 1] += d1[1] * fpair;
                f[3 * i + 2] += d1[2] * fpair;
                f[3 * j] -= d1[0] * fpair;
                f[3 * j + 1] -= d1[1] * fpair;
                f[3 * j + 2] -= d1[2] * fpair;
                // ev_tally(…, −fpair, −delr1): the same products, signs cancelling
                w[0] -= d1[0] * d1[0] * fpair;
                w[1] -= d1[1] * d1[1] * fpair;
                w[2] -= d1[2] * d1[2] * fpair;
                w[3] -= d1[0] * d1[1] * fpair;
                w[4] -= d1[0] * d1[2] * fpair;
                w[5] -= d1[1] * d1[2] * fpair;
                // attractive term via every k
                for (int b = 0; b < count; b++) {
                    int k = nbr[start[i] + b];
                    double[] ijk = p[elem3[(ti * ne + tj) * ne + type[k]]];
                    if (b == a || nearSq[b] >= ijk[CUTSQ]) {
                        continue;
                    }
                    d2[0] = near[3 * b];
                    d2[1] = near[3 * b + 1];
                    d2[2] = near[3 * b + 2];
                    attractive(ijk, prefactor, rsq1, nearSq[b], d1, d2, fi, fj, fk);
                    f[3 * i] += fi[0];
                    f[3 * i + 1] += fi[1];
                    f[3 * i + 2] += fi[2];
                    f[3 * j] += fj[0];
                    f[3 * j + 1] += fj[1];
                    f[3 * j + 2] += fj[2];
                    f[3 * k] += fk[0];
                    f[3 * k + 1] += fk[1];
                    f[3 * k + 2] += fk[2];
                    w[0] += d1[0] * fj[0] + d2[0] * fk[0];
                    w[1] += d1[1] * fj[1] + d2[1] * fk[1];
                    w[2] += d1[2] * fj[2] + d2[2] * fk[2];
                    w[3] += d1[0] * fj[1] + d2[0] * fk[1];
                    w[4] += d1[0] * fj[2] + d2[0] * fk[2];
                    w[5] += d1[1] * fj[2] + d2[1] * fk[2];
                }
            }
        }
        if (!Double.isFinite(energy)) {
            throw new IllegalStateException("system " + s.id() + ": the Tersoff energy is " + energy);
        }
        s.energy(energy);
        s.virial(new double[] {w[0], w[3], w[4], w[3], w[1], w[5], w[4], w[5], w[2]});
    }

    private static double fc(double r, double[] q) {
        double bigr = q[BIGR];
        double bigd = q[BIGD];
        if (r < bigr - bigd) {
            return 1.0;
        }
        if (r > bigr + bigd) {
            return 0.0;
        }
        return 0.5 * (1.0 - Math.sin(PI2 * (r - bigr) / bigd));
    }

    private static double fcD(double r, double[] q) {
        double bigr = q[BIGR];
        double bigd = q[BIGD];
        if (r < bigr - bigd || r > bigr + bigd) {
            return 0.0;
        }
        return -(PI4 / bigd) * Math.cos(PI2 * (r - bigr) / bigd);
    }

    private static double fa(double r, double[] q) {
        if (r > q[BIGR] + q[BIGD]) {
            return 0.0;
        }
        return -q[BIGB] * Math.exp(-q[LAM2] * r) * fc(r, q);
    }

    private static double faD(double r, double[] q) {
        if (r > q[BIGR] + q[BIGD]) {
            return 0.0;
        }
        return q[BIGB] * Math.exp(-q[LAM2] * r) * (q[LAM2] * fc(r, q) - fcD(r, q));
    }

    private static double bij(double zeta, double[] q) {
        double tmp = q[BETA] * zeta;
        double n = q[N];
        if (tmp > q[C1]) {
            return 1.0 / Math.sqrt(tmp);
        }
        if (tmp > q[C1 + 1]) {
            return (1.0 - Math.pow(tmp, -n) / (2.0 * n)) / Math.sqrt(tmp);
        }
        if (tmp < q[C1 + 3]) {
            return 1.0;
        }
        if (tmp < q[C1 + 2]) {
            return 1.0 - Math.pow(tmp, n) / (2.0 * n);
        }
        return Math.pow(1.0 + Math.pow(tmp, n), -1.0 / (2.0 * n));
    }

    private static double bijD(double zeta, double[] q) {
        double tmp = q[BETA] * zeta;
        double n = q[N];
        if (tmp > q[C1]) {
            return q[BETA] * -0.5 * Math.pow(tmp, -1.5);
        }
        if (tmp > q[C1 + 1]) {
            return q[BETA] * (-0.5 * Math.pow(tmp, -1.5) * (1.0 - (1.0 + 1.0 / (2.0 * n)) * Math.pow(tmp, -n)));
        }
        if (tmp < q[C1 + 3]) {
            return 0.0;
        }
        if (tmp < q[C1 + 2]) {
            return -0.5 * q[BETA] * Math.pow(tmp, n - 1.0);
        }
        double tmpN = Math.pow(tmp, n);
        return -0.5 * Math.pow(1.0 + tmpN, -1.0 - (1.0 / (2.0 * n))) * tmpN / zeta;
    }

    private static double gijk(double costheta, double[] q) {
        double c2 = q[C] * q[C];
        double d2 = q[D] * q[D];
        double hcth = q[H] - costheta;
        return q[GAMMA] * (1.0 + c2 / d2 - c2 / (d2 + hcth * hcth));
    }

    private static double gijkD(double costheta, double[] q) {
        double c2 = q[C] * q[C];
        double d2 = q[D] * q[D];
        double hcth = q[H] - costheta;
        double numerator = -2.0 * c2 * hcth;
        double denominator = 1.0 / (d2 + hcth * hcth);
        return q[GAMMA] * numerator * denominator * denominator;
    }

    /// e^{(λ3 (r_ij − r_ik))^m}, clamped as LAMMPS clamps it.
    private static double exDelr(double[] q, double rij, double rik) {
        double arg = q[M] == 3 ? cube(q[LAM3] * (rij - rik)) : q[LAM3] * (rij - rik);
        if (arg > 69.0776) {
            return 1.e30;
        }
        if (arg < -69.0776) {
            return 0.0;
        }
        return Math.exp(arg);
    }

    private static double cube(double x) {
        return x * x * x;
    }

    private static double zeta(double[] q, double rsqij, double rsqik, double[] dij, double[] dik) {
        double rij = Math.sqrt(rsqij);
        double rik = Math.sqrt(rsqik);
        double costheta = (dij[0] * dik[0] + dij[1] * dik[1] + dij[2] * dik[2]) / (rij * rik);
        return fc(rik, q) * gijk(costheta, q) * exDelr(q, rij, rik);
    }

    /// LAMMPS's `attractive` and `ters_zetaterm_d`: the forces on i, j and k of ζ_ij's k term.
    private static void attractive(double[] q, double prefactor, double rsqij, double rsqik, double[] dij, double[] dik, double[] dri,
                                   double[] drj, double[] drk) {
        double rij = Math.sqrt(rsqij);
        double rijinv = 1.0 / rij;
        double rik = Math.sqrt(rsqik);
        double rikinv = 1.0 / rik;
        double hx = rijinv * dij[0];
        double hy = rijinv * dij[1];
        double hz = rijinv * dij[2];
        double kx = rikinv * dik[0];
        double ky = rikinv * dik[1];
        double kz = rikinv * dik[2];
        double fc = fc(rik, q);
        double dfc = fcD(rik, q);
        double tmp = q[M] == 3 ? cube(q[LAM3] * (rij - rik)) : q[LAM3] * (rij - rik);
        double exDelr;
        if (tmp > 69.0776) {
            exDelr = 1.e30;
        } else if (tmp < -69.0776) {
            exDelr = 0.0;
        } else {
            exDelr = Math.exp(tmp);
        }
        double dr = rij - rik;
        double exDelrD = q[M] == 3 ? 3.0 * cube(q[LAM3]) * (dr * dr) * exDelr : q[LAM3] * exDelr;
        double cosTheta = hx * kx + hy * ky + hz * kz;
        double g = gijk(cosTheta, q);
        double gD = gijkD(cosTheta, q);
        // LAMMPS's costheta_d: dcos/drj = (k − cos·h)/r_ij, dcos/drk = (h − cos·k)/r_ik, dcos/dri = −(both)
        double jx = (-cosTheta * hx + kx) * rijinv;
        double jy = (-cosTheta * hy + ky) * rijinv;
        double jz = (-cosTheta * hz + kz) * rijinv;
        double lx = (-cosTheta * kx + hx) * rikinv;
        double ly = (-cosTheta * ky + hy) * rikinv;
        double lz = (-cosTheta * kz + hz) * rikinv;
        double ix = -(jx + lx);
        double iy = -(jy + ly);
        double iz = -(jz + lz);
        double a1 = -dfc * g * exDelr;
        double a2 = fc * gD * exDelr;
        double a3 = fc * g * exDelrD;
        // dri = a1 k + a2 dcos/dri + a3 k − a3 h, in LAMMPS's order of operations
        dri[0] = prefactor * (((a1 * kx + a2 * ix) + a3 * kx) + -a3 * hx);
        dri[1] = prefactor * (((a1 * ky + a2 * iy) + a3 * ky) + -a3 * hy);
        dri[2] = prefactor * (((a1 * kz + a2 * iz) + a3 * kz) + -a3 * hz);
        // drj = a2 dcos/drj + a3 h
        drj[0] = prefactor * (a2 * jx + a3 * hx);
        drj[1] = prefactor * (a2 * jy + a3 * hy);
        drj[2] = prefactor * (a2 * jz + a3 * hz);
        // drk = dfc g e k + a2 dcos/drk − a3 k
        double b1 = dfc * g * exDelr;
        drk[0] = prefactor * ((b1 * kx + a2 * lx) + -a3 * kx);
        drk[1] = prefactor * ((b1 * ky + a2 * ly) + -a3 * ky);
        drk[2] = prefactor * ((b1 * kz + a2 * lz) + -a3 * kz);
    }

}
