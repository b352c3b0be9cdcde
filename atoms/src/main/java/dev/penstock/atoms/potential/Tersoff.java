package dev.penstock.atoms.potential;

import dev.penstock.atoms.io.Elements;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
public final class Tersoff implements Model {
    private static final double SKIN = 1.0;
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

    private final Path file;
    private final String[] elements;
    private final int[] numbers;
    private final double[][] p;
    private final int[] elem3;
    private final double cutmax;
    private final NeighborLists lists;
    private final FullLists full;

    private Tersoff(Path file, String[] elements, double[][] p, int[] elem3, double cutmax) {
        this.file = file;
        this.elements = elements;
        this.numbers = new int[elements.length];
        for (int e = 0; e < elements.length; e++) {
            numbers[e] = Elements.number(elements[e]);
        }
        this.p = p;
        this.elem3 = elem3;
        this.cutmax = cutmax;
        this.lists = new NeighborLists(cutmax, SKIN);
        this.full = new FullLists(lists);
    }

    /// A new model on the same parameters, with no neighbour lists: one per stage worker.
    public Tersoff fresh() {
        return new Tersoff(file, elements, p, elem3, cutmax);
    }

    /// Reads a LAMMPS `*.tersoff` file; a missing, bad or incomplete file fails naming the file
    /// (and the line of a bad entry, or the triplet that has none).
    public static Tersoff read(Path file) throws IOException {
        List<String> lines = PotentialFiles.lines(file, "Tersoff");
        List<String> tokens = new ArrayList<>();
        List<Integer> lineOf = new ArrayList<>();
        for (int n = 0; n < lines.size(); n++) {
            String t = lines.get(n);
            int hash = t.indexOf('#');
            t = (hash >= 0 ? t.substring(0, hash) : t).strip();
            if (!t.isEmpty()) {
                for (String w : t.split("\\s+")) {
                    tokens.add(w);
                    lineOf.add(n + 1);
                }
            }
        }
        if (tokens.isEmpty()) {
            throw new IllegalArgumentException(file + ": no Tersoff entries");
        }
        if (tokens.size() % 17 != 0) {
            throw new IllegalArgumentException(file + " line " + lineOf.getLast() + ": the last entry is incomplete (an entry is 3 elements "
                    + "and 14 numbers: m gamma lambda3 c d costheta0 n beta lambda2 B R D lambda1 A)");
        }
        List<String> names = new ArrayList<>();
        List<String[]> triplets = new ArrayList<>();
        List<double[]> entries = new ArrayList<>();
        for (int e = 0; e < tokens.size(); e += 17) {
            String[] el = {tokens.get(e), tokens.get(e + 1), tokens.get(e + 2)};
            for (String name : el) {
                if (Elements.number(name) < 1) {
                    throw new IllegalArgumentException(file + " line " + lineOf.get(e) + ": '" + name + "' is not an element symbol");
                }
                if (!names.contains(name)) {
                    names.add(name);
                }
            }
            double[] v = new double[C1 + 4];
            for (int k = 0; k < 14; k++) {
                String w = tokens.get(e + 3 + k);
                try {
                    v[k] = Double.parseDouble(w);
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(file + " line " + lineOf.get(e + 3 + k) + ": '" + w + "' is not a number (entry "
                            + String.join(" ", el) + ")");
                }
            }
            if (v[LAM3] < 0 || v[C] < 0 || v[D] < 0 || v[N] < 0 || v[BETA] < 0 || v[LAM2] < 0 || v[BIGB] < 0 || v[BIGR] < 0 || v[BIGD] < 0
                    || v[BIGD] > v[BIGR] || v[BIGA] < 0 || v[M] - (int) v[M] != 0 || (v[M] != 3 && v[M] != 1) || v[GAMMA] < 0) {
                throw new IllegalArgumentException(file + " line " + lineOf.get(e) + ": entry " + String.join(" ", el) + " has an illegal "
                        + "Tersoff parameter (as LAMMPS checks them: m 1 or 3, D ≤ R, the rest non-negative)");
            }
            double cut = v[BIGR] + v[BIGD];
            v[CUTSQ] = cut * cut;
            v[C1] = Math.pow(2.0 * v[N] * 1.0e-16, -1.0 / v[N]);
            v[C1 + 1] = Math.pow(2.0 * v[N] * 1.0e-8, -1.0 / v[N]);
            v[C1 + 2] = 1.0 / v[C1 + 1];
            v[C1 + 3] = 1.0 / v[C1];
            triplets.add(el);
            entries.add(v);
        }
        int n = names.size();
        int[] elem3 = new int[n * n * n];
        Arrays.fill(elem3, -1);
        double cutmax = 0;
        for (int m = 0; m < triplets.size(); m++) {
            int idx = (names.indexOf(triplets.get(m)[0]) * n + names.indexOf(triplets.get(m)[1])) * n + names.indexOf(triplets.get(m)[2]);
            if (elem3[idx] >= 0) {
                throw new IllegalArgumentException(file + ": two entries for " + String.join(" ", triplets.get(m)));
            }
            elem3[idx] = m;
            cutmax = Math.max(cutmax, entries.get(m)[BIGR] + entries.get(m)[BIGD]);
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < n; k++) {
                    if (elem3[(i * n + j) * n + k] < 0) {
                        throw new IllegalArgumentException(file + ": no entry for " + names.get(i) + " " + names.get(j) + " " + names.get(k));
                    }
                }
            }
        }
        return new Tersoff(file, names.toArray(String[]::new), entries.toArray(double[][]::new), elem3, cutmax);
    }

    /// The file's elements, in order of first appearance.
    public List<String> elements() {
        return List.of(elements);
    }

    @Override
    public double cutoff() {
        return cutmax;
    }

    @Override
    public String refusal(AtomicSystem s) {
        int[] z = s.numbers();
        for (int i = 0; i < z.length; i++) {
            if (elementOf(z[i]) < 0) {
                String symbol = z[i] >= 1 && z[i] <= Elements.LAST ? Elements.symbol(z[i]) : "atomic number " + z[i];
                return "system " + s.id() + ": atom " + i + " is " + symbol + ", which " + file.getFileName() + " does not describe (it has "
                        + String.join(", ", elements) + ")";
            }
        }
        return null;
    }

    @Override
    public void forget(long id) {
        lists.forget(id);
        full.forget(id);
    }

    @Override
    public void save(long id, java.io.DataOutput out) throws IOException {
        lists.save(id, out);
    }

    @Override
    public void restore(AtomicSystem s, java.io.DataInput in) throws IOException {
        full.forget(s.id());
        lists.restore(s, in, null, 1);
    }

    @Override
    public void compute(AtomicSystem s) {
        String bad = refusal(s);
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
        int n = s.atoms();
        int ne = elements.length;
        int[] type = new int[n];
        for (int i = 0; i < n; i++) {
            type[i] = elementOf(s.numbers()[i]);
        }
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
        double[] work = new double[12];
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
            // three-body: the bond order of every i–j within the cutoff
            for (int a = start[i]; a < start[i + 1]; a++) {
                int j = nbr[a];
                int tj = type[j];
                double[] ij = p[elem3[(ti * ne + tj) * ne + tj]];
                d1[0] = r[3 * j] + shift[3 * a] - xi;
                d1[1] = r[3 * j + 1] + shift[3 * a + 1] - yi;
                d1[2] = r[3 * j + 2] + shift[3 * a + 2] - zi;
                double rsq1 = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2];
                if (rsq1 >= ij[CUTSQ]) {
                    continue;
                }
                double zeta = 0;
                for (int b = start[i]; b < start[i + 1]; b++) {
                    if (b == a) {
                        continue;
                    }
                    int k = nbr[b];
                    double[] ijk = p[elem3[(ti * ne + tj) * ne + type[k]]];
                    d2[0] = r[3 * k] + shift[3 * b] - xi;
                    d2[1] = r[3 * k + 1] + shift[3 * b + 1] - yi;
                    d2[2] = r[3 * k + 2] + shift[3 * b + 2] - zi;
                    double rsq2 = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
                    if (rsq2 >= ijk[CUTSQ]) {
                        continue;
                    }
                    zeta += zeta(ijk, rsq1, rsq2, d1, d2);
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
                for (int b = start[i]; b < start[i + 1]; b++) {
                    if (b == a) {
                        continue;
                    }
                    int k = nbr[b];
                    double[] ijk = p[elem3[(ti * ne + tj) * ne + type[k]]];
                    d2[0] = r[3 * k] + shift[3 * b] - xi;
                    d2[1] = r[3 * k + 1] + shift[3 * b + 1] - yi;
                    d2[2] = r[3 * k + 2] + shift[3 * b + 2] - zi;
                    double rsq2 = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
                    if (rsq2 >= ijk[CUTSQ]) {
                        continue;
                    }
                    attractive(ijk, prefactor, rsq1, rsq2, d1, d2, fi, fj, fk, work);
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
    /// `t` is scratch for the unit vectors and cos θ derivatives (12 values).
    private static void attractive(double[] q, double prefactor, double rsqij, double rsqik, double[] dij, double[] dik, double[] dri,
                                   double[] drj, double[] drk, double[] t) {
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

    private int elementOf(int z) {
        for (int e = 0; e < numbers.length; e++) {
            if (numbers[e] == z) {
                return e;
            }
        }
        return -1;
    }
}
