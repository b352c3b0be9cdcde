package dev.penstock.atoms.potential;

import static dev.penstock.atoms.potential.TersoffTerms.*;

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
/// Threading: as `TripletModel`'s (a large system in parts, the same numbers on any number of
/// threads).
public final class Tersoff extends TripletModel {
    private volatile boolean virial = true;

    private Tersoff(Species species, double[][] p, int[] elem3, double cutmax) {
        super(species, p, elem3, cutmax);
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

    /// Runs a large system's parts (`RowParts`: each part's rows add their forces into the part's
    /// own array, summed in part order; energies and virials likewise) on `n` threads; 1 (the
    /// default) runs them on the caller. The numbers are the same for any `n`. Returns this.
    public Tersoff threads(int n) {
        split(n, "penstock-tersoff");
        return this;
    }

    /// Whether `compute` sums the virial (default true). Off, as LAMMPS leaves it out when nothing
    /// asks for the pressure, the loops skip its sums and the system's virial is null; energies
    /// and forces are the same bits. Returns this.
    public Tersoff virial(boolean on) {
        virial = on;
        return this;
    }

    @Override
    boolean sumsVirial() {
        return virial;
    }

    @Override
    String label() {
        return "Tersoff";
    }

    /// Rows (atoms i) `[from, to)`: their terms added into `f` and `w` (virial xx yy zz xy xz yz,
    /// then the energy), as LAMMPS's loop over i adds them.
    @Override
    void rows(AtomicSystem s, FullLists.Full fl, int[] type, int from, int to, double[] f, double[] w, boolean withVirial) {
        int ne = species.symbols().length;
        int[] start = fl.start();
        int[] nbr = fl.nbr();
        double[] shift = fl.shift();
        boolean[] half = fl.half();
        double[] r = s.positions();
        double energy = w[6];
        double[] d1 = new double[3];
        double[] d2 = new double[3];
        double[] fi = new double[3];
        double[] fj = new double[3];
        double[] fk = new double[3];
        double[] near = new double[0];
        double[] nearSq = new double[0];
        int[] close = new int[0];
        double cutmaxSq = cutoff() * cutoff();
        for (int i = from; i < to; i++) {
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
                if (withVirial) {
                    w[0] += dx * dx * fpair;
                    w[1] += dy * dy * fpair;
                    w[2] += dz * dz * fpair;
                    w[3] += dx * dy * fpair;
                    w[4] += dx * dz * fpair;
                    w[5] += dy * dz * fpair;
                }
            }
            // three-body: the bond order of every i–j within the cutoff. Every neighbour's vector
            // from i is worked out once (as LAMMPS works it out in each of its loops)
            int count = start[i + 1] - start[i];
            if (near.length < 3 * count) {
                near = new double[3 * count];
                nearSq = new double[count];
                close = new int[count];
            }
            for (int b = 0; b < count; b++) {
                int q = start[i] + b;
                int k = nbr[q];
                near[3 * b] = r[3 * k] + shift[3 * q] - xi;
                near[3 * b + 1] = r[3 * k + 1] + shift[3 * q + 1] - yi;
                near[3 * b + 2] = r[3 * k + 2] + shift[3 * q + 2] - zi;
                nearSq[b] = near[3 * b] * near[3 * b] + near[3 * b + 1] * near[3 * b + 1] + near[3 * b + 2] * near[3 * b + 2];
            }
            // the short list (as LAMMPS's neighshort): the neighbours inside the largest cutoff, in
            // list order — every one the loops below skip is outside its triple's cutoff anyway, so
            // the sums are the same, term for term (a NaN distance stays in, to fail the energy)
            int shortCount = 0;
            for (int b = 0; b < count; b++) {
                close[shortCount] = b;
                shortCount += nearSq[b] >= cutmaxSq ? 0 : 1;
            }
            for (int sa = 0; sa < shortCount; sa++) {
                int a = close[sa];
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
                for (int sb = 0; sb < shortCount; sb++) {
                    int b = close[sb];
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
                if (withVirial) {
                    w[0] -= d1[0] * d1[0] * fpair;
                    w[1] -= d1[1] * d1[1] * fpair;
                    w[2] -= d1[2] * d1[2] * fpair;
                    w[3] -= d1[0] * d1[1] * fpair;
                    w[4] -= d1[0] * d1[2] * fpair;
                    w[5] -= d1[1] * d1[2] * fpair;
                }
                // attractive term via every k
                for (int sb = 0; sb < shortCount; sb++) {
                    int b = close[sb];
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
                    if (withVirial) {
                        w[0] += d1[0] * fj[0] + d2[0] * fk[0];
                        w[1] += d1[1] * fj[1] + d2[1] * fk[1];
                        w[2] += d1[2] * fj[2] + d2[2] * fk[2];
                        w[3] += d1[0] * fj[1] + d2[0] * fk[1];
                        w[4] += d1[0] * fj[2] + d2[0] * fk[2];
                        w[5] += d1[1] * fj[2] + d2[1] * fk[2];
                    }
                }
            }
        }
        w[6] = energy;
    }
}
