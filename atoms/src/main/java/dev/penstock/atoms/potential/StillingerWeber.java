package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/// Stillinger–Weber from a LAMMPS `*.sw` file (multi-element), with LAMMPS's `pair_style sw`
/// arithmetic, so that energies and forces agree with LAMMPS to rounding:
///
/// ```
///   E = Σ_{i<j} φ2(r_ij) + Σ_i Σ_{j<k} φ3(r_ij, r_ik, θ_jik)
///   φ2 = A ε (B (σ/r)^p − (σ/r)^q) exp(σ / (r − aσ))
///   φ3 = λ ε (cos θ − cos θ0)² exp(γσ / (r_ij − aσ)) exp(γσ / (r_ik − aσ))
/// ```
///
/// Entries `el1 el2 el3 ε σ a λ γ cosθ0 A B p q tol` (comments `#`; an entry may span lines); the
/// two-body terms of the pair i–j use entry (i, j, j), the three-body term of j–i–k entry (i, j, k).
/// Every triplet of the file's elements must have exactly one entry. The three-body sum runs over
/// the full neighbour list (both directions of every pair of the half list, with its image shift).
/// The virial is tallied as LAMMPS tallies it (`ev_tally`, `ev_tally3`).
///
/// Threading: as `TripletModel`'s (a large system in parts, the same numbers on any number of
/// threads).
public final class StillingerWeber extends TripletModel {

    // indices into an entry's parameters
    private static final int EPS = 0;
    private static final int SIGMA = 1;
    private static final int CUT = 2;
    private static final int CUTSQ = 3;
    private static final int SIGMA_GAMMA = 4;
    private static final int LAMBDA_EPS = 5;
    private static final int LAMBDA_EPS2 = 6;
    private static final int COS0 = 7;
    private static final int P = 8;
    private static final int Q = 9;
    private static final int C1 = 10;

    private StillingerWeber(Species species, double[][] p, int[] elem3, double cutmax) {
        super(species, p, elem3, cutmax);
    }

    /// A new model on the same parameters, with no neighbour lists: one per stage worker.
    public StillingerWeber fresh() {
        return new StillingerWeber(species, p, elem3, cutmax);
    }

    /// Reads a LAMMPS `*.sw` file; a missing, bad or incomplete file fails naming the file (and
    /// the line of a bad entry, or the triplet that has none).
    public static StillingerWeber read(Path file) throws IOException {
        TripletFile f = TripletFile.read(file, "Stillinger-Weber", 11, "epsilon sigma a lambda gamma costheta0 A B p q tol");
        double[][] p = new double[f.values().size()][];
        double cutmax = 0;
        for (int m = 0; m < p.length; m++) {
            double[] v = f.values().get(m);
            for (int k = 0; k < 11; k++) {
                if (!(v[k] >= 0) && k != 5) { // all but cos θ0 are non-negative, as LAMMPS requires
                    throw new IllegalArgumentException(f.where(file, m) + " has the negative parameter " + v[k]);
                }
            }
            p[m] = derived(v);
            cutmax = Math.max(cutmax, Math.sqrt(p[m][CUTSQ]));
        }
        return new StillingerWeber(Species.of(file, f.elements()), p, f.index(), cutmax);
    }

    /// LAMMPS's `setup_params` for one entry.
    private static double[] derived(double[] v) {
        double epsilon = v[0];
        double sigma = v[1];
        double littlea = v[2];
        double lambda = v[3];
        double gamma = v[4];
        double costheta = v[5];
        double biga = v[6];
        double bigb = v[7];
        double powerp = v[8];
        double powerq = v[9];
        double tol = v[10];
        double cut = sigma * littlea;
        double rtmp = cut;
        if (tol > 0.0) {
            tol = Math.min(tol, 0.01);
            rtmp = gamma < 1.0 ? rtmp + gamma * sigma / Math.log(tol) : rtmp + sigma / Math.log(tol);
        }
        double[] d = new double[C1 + 6];
        d[EPS] = epsilon;
        d[SIGMA] = sigma;
        d[CUT] = cut;
        d[CUTSQ] = rtmp * rtmp;
        d[SIGMA_GAMMA] = sigma * gamma;
        d[LAMBDA_EPS] = lambda * epsilon;
        d[LAMBDA_EPS2] = 2.0 * lambda * epsilon;
        d[COS0] = costheta;
        d[P] = powerp;
        d[Q] = powerq;
        d[C1] = biga * epsilon * powerp * bigb * Math.pow(sigma, powerp);
        d[C1 + 1] = biga * epsilon * powerq * Math.pow(sigma, powerq);
        d[C1 + 2] = biga * epsilon * bigb * Math.pow(sigma, powerp + 1.0);
        d[C1 + 3] = biga * epsilon * Math.pow(sigma, powerq + 1.0);
        d[C1 + 4] = biga * epsilon * bigb * Math.pow(sigma, powerp);
        d[C1 + 5] = biga * epsilon * Math.pow(sigma, powerq);
        return d;
    }

    /// Runs a large system's parts (`RowParts`) on `n` threads; 1 (the default) runs them on the
    /// caller. The numbers are the same for any `n`. Returns this.
    public StillingerWeber threads(int n) {
        split(n, "penstock-sw");
        return this;
    }

    @Override
    String label() {
        return "Stillinger-Weber";
    }

    @Override
    void rows(AtomicSystem s, FullLists.Full fl, int[] type, int from, int to, double[] f, double[] w, boolean withVirial) {
        int ne = species.symbols().length;
        double[] r = s.positions();
        double energy = w[6];
        double[] fj = new double[3];
        double[] fk = new double[3];
        double[] d1 = new double[3];
        double[] d2 = new double[3];
        int[] shortJ = new int[64];
        double[] shortR = new double[64 * 3]; // neighbour positions (image applied)
        for (int i = from; i < to; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            int ti = type[i];
            double fxi = 0;
            double fyi = 0;
            double fzi = 0;
            int count = 0;
            for (int q = fl.start()[i]; q < fl.start()[i + 1]; q++) {
                int j = fl.nbr()[q];
                double xj = r[3 * j] + fl.shift()[3 * q];
                double yj = r[3 * j + 1] + fl.shift()[3 * q + 1];
                double zj = r[3 * j + 2] + fl.shift()[3 * q + 2];
                double dx = xi - xj;
                double dy = yi - yj;
                double dz = zi - zj;
                double rsq = dx * dx + dy * dy + dz * dz;
                double[] ij = p[elem3[(ti * ne + type[j]) * ne + type[j]]];
                if (rsq >= ij[CUTSQ]) {
                    continue;
                }
                if (count == shortJ.length) {
                    shortJ = Arrays.copyOf(shortJ, 2 * count);
                    shortR = Arrays.copyOf(shortR, 6 * count);
                }
                shortJ[count] = j;
                shortR[3 * count] = xj;
                shortR[3 * count + 1] = yj;
                shortR[3 * count + 2] = zj;
                count++;
                if (!fl.half()[q]) {
                    continue; // each pair's two-body term once: from its half-list direction
                }
                double rr = Math.sqrt(rsq);
                double rinvsq = 1.0 / rsq;
                double rp = Math.pow(rr, -ij[P]);
                double rq = Math.pow(rr, -ij[Q]);
                double rainv = 1.0 / (rr - ij[CUT]);
                double rainvsq = rainv * rainv * rr;
                double expsrainv = Math.exp(ij[SIGMA] * rainv);
                double fpair = (ij[C1] * rp - ij[C1 + 1] * rq + (ij[C1 + 2] * rp - ij[C1 + 3] * rq) * rainvsq) * expsrainv * rinvsq;
                energy += (ij[C1 + 4] * rp - ij[C1 + 5] * rq) * expsrainv;
                fxi += dx * fpair;
                fyi += dy * fpair;
                fzi += dz * fpair;
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
            for (int a = 0; a < count - 1; a++) {
                int j = shortJ[a];
                int tj = type[j];
                double[] ij = p[elem3[(ti * ne + tj) * ne + tj]];
                d1[0] = shortR[3 * a] - xi;
                d1[1] = shortR[3 * a + 1] - yi;
                d1[2] = shortR[3 * a + 2] - zi;
                double rsq1 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
                double fjx = 0;
                double fjy = 0;
                double fjz = 0;
                for (int b = a + 1; b < count; b++) {
                    int k = shortJ[b];
                    int tk = type[k];
                    double[] ik = p[elem3[(ti * ne + tk) * ne + tk]];
                    double[] ijk = p[elem3[(ti * ne + tj) * ne + tk]];
                    d2[0] = shortR[3 * b] - xi;
                    d2[1] = shortR[3 * b + 1] - yi;
                    d2[2] = shortR[3 * b + 2] - zi;
                    double rsq2 = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
                    energy += threebody(ij, ik, ijk, rsq1, rsq2, d1, d2, fj, fk);
                    fxi -= fj[0] + fk[0];
                    fyi -= fj[1] + fk[1];
                    fzi -= fj[2] + fk[2];
                    fjx += fj[0];
                    fjy += fj[1];
                    fjz += fj[2];
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
                f[3 * j] += fjx;
                f[3 * j + 1] += fjy;
                f[3 * j + 2] += fjz;
            }
            f[3 * i] += fxi;
            f[3 * i + 1] += fyi;
            f[3 * i + 2] += fzi;
        }
        w[6] = energy;
    }

    /// LAMMPS's `PairSW::threebody`: the forces on j and k of the j–i–k term; returns its energy.
    private static double threebody(double[] ij, double[] ik, double[] ijk, double rsq1, double rsq2, double[] d1, double[] d2,
                                    double[] fj, double[] fk) {
        double r1 = Math.sqrt(rsq1);
        double rinvsq1 = 1.0 / rsq1;
        double rainv1 = 1.0 / (r1 - ij[CUT]);
        double gsrainv1 = ij[SIGMA_GAMMA] * rainv1;
        double gsrainvsq1 = gsrainv1 * rainv1 / r1;
        double expgsrainv1 = Math.exp(gsrainv1);
        double r2 = Math.sqrt(rsq2);
        double rinvsq2 = 1.0 / rsq2;
        double rainv2 = 1.0 / (r2 - ik[CUT]);
        double gsrainv2 = ik[SIGMA_GAMMA] * rainv2;
        double gsrainvsq2 = gsrainv2 * rainv2 / r2;
        double expgsrainv2 = Math.exp(gsrainv2);
        double rinv12 = 1.0 / (r1 * r2);
        double cs = (d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]) * rinv12;
        double delcs = cs - ijk[COS0];
        double delcssq = delcs * delcs;
        double facexp = expgsrainv1 * expgsrainv2;
        double facrad = ijk[LAMBDA_EPS] * facexp * delcssq;
        double frad1 = facrad * gsrainvsq1;
        double frad2 = facrad * gsrainvsq2;
        double facang = ijk[LAMBDA_EPS2] * facexp * delcs;
        double facang12 = rinv12 * facang;
        double csfacang = cs * facang;
        double csfac1 = rinvsq1 * csfacang;
        fj[0] = d1[0] * (frad1 + csfac1) - d2[0] * facang12;
        fj[1] = d1[1] * (frad1 + csfac1) - d2[1] * facang12;
        fj[2] = d1[2] * (frad1 + csfac1) - d2[2] * facang12;
        double csfac2 = rinvsq2 * csfacang;
        fk[0] = d2[0] * (frad2 + csfac2) - d1[0] * facang12;
        fk[1] = d2[1] * (frad2 + csfac2) - d1[1] * facang12;
        fk[2] = d2[2] * (frad2 + csfac2) - d1[2] * facang12;
        return facrad;
    }


}
