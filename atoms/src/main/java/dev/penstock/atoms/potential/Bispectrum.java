package dev.penstock.atoms.potential;

/// One atom's SNAP bispectrum and its derivatives (Thompson et al., J. Comput. Phys. 285, 316
/// (2015); the quantities and their layout as LAMMPS's `SNA`): the neighbours' Wigner U-functions
/// from their Cayley–Klein parameters, summed into U_tot; Z from U_tot through the Clebsch–Gordan
/// coefficients; B = Σ conj(U_tot)·Z; then, for the forces, Y = Σ β·Z-terms and dE/dr_j =
/// 2·Re Σ dU_j/dr · Y over the half of U's indices that are independent. A worker's scratch:
/// `clear`, `add` each neighbour, `compute`, then `force` per neighbour.
///
/// Why one file over 400 lines: the index tables (`idxu`, `idxz`, `idxb`, the Clebsch–Gordan block
/// offsets) are the layout every stage of the computation walks — U's recursion, Z, B, Y and
/// dU/dr each index the same flat arrays by the same offsets — so splitting the tables from their
/// loops would hand a dozen arrays across a class boundary for no reader's gain.
final class Bispectrum {
    /// The descriptor's settings, from a `*.snapparam` file.
    record Params(int twojmax, double rfac0, double rmin0, boolean switchFlag, boolean bzeroFlag, boolean chem, boolean bnorm,
                  boolean wselfall, double rcutfac, boolean quadratic) {
    }

    /// The descriptor's keywords as a `*.snapparam` or `*.mliap.descriptor` file gives them, with
    /// LAMMPS's defaults (rfac0 0.99363, rmin0 0, switchflag and bzeroflag on, the rest off).
    static final class Settings {
        double rcutfac = Double.NaN;
        int twojmax = -1;
        double rfac0 = 0.99363;
        double rmin0 = 0;
        boolean switchFlag = true;
        boolean bzeroFlag = true;
        boolean quadratic;
        boolean chem;
        boolean bnorm;
        boolean wselfall;

        /// Takes `key value`; returns false for a key the descriptor does not know (the caller's,
        /// or an error). A bad number throws `NumberFormatException`.
        boolean set(String key, String value) {
            switch (key) {
                case "rcutfac" -> rcutfac = Double.parseDouble(value);
                case "twojmax" -> twojmax = Integer.parseInt(value);
                case "rfac0" -> rfac0 = Double.parseDouble(value);
                case "rmin0" -> rmin0 = Double.parseDouble(value);
                case "switchflag" -> switchFlag = Integer.parseInt(value) != 0;
                case "bzeroflag" -> bzeroFlag = Integer.parseInt(value) != 0;
                case "quadraticflag" -> quadratic = Integer.parseInt(value) != 0;
                case "chemflag" -> chem = Integer.parseInt(value) != 0;
                case "bnormflag" -> bnorm = Integer.parseInt(value) != 0;
                case "wselfallflag" -> wselfall = Integer.parseInt(value) != 0;
                default -> {
                    return false;
                }
            }
            return true;
        }

        /// The settings, `rcutfac` and `twojmax` required (else an error naming `file`).
        Params params(java.nio.file.Path file) {
            if (Double.isNaN(rcutfac) || twojmax < 0) {
                throw new IllegalArgumentException(file + ": rcutfac and twojmax are required");
            }
            return new Params(twojmax, rfac0, rmin0, switchFlag, bzeroFlag, chem, bnorm, wselfall, rcutfac, quadratic);
        }
    }

    /// A line's words, a `#` comment dropped.
    static String[] words(String line) {
        int hash = line.indexOf('#');
        String t = (hash < 0 ? line : line.substring(0, hash)).strip();
        return t.isEmpty() ? new String[0] : t.split("\\s+");
    }

    private final Params p;
    private final int twojmax;
    private final int nelements; // of the descriptor: the model's with chemflag, else 1
    // index tables
    private final int[] idxuBlock;
    private final int idxuMax;
    private final int[][][] idxcgBlock;
    private final double[] cglist;
    private final int[] idxbJ1;
    private final int[] idxbJ2;
    private final int[] idxbJ;
    private final int[][][] idxbBlock;
    private final int idxbMax;
    private final int[] zJ1;
    private final int[] zJ2;
    private final int[] zJ;
    private final int[] zMa1min;
    private final int[] zMa2max;
    private final int[] zNa;
    private final int[] zMb1min;
    private final int[] zMb2max;
    private final int[] zNb;
    private final int[] zJju;
    private final int[][][] idxzBlock;
    private final int idxzMax;
    private final double[][] rootpq;
    private final double[] bzero;
    // per atom
    private final double[] utotR;
    private final double[] utotI;
    private final double[] zR;
    private final double[] zI;
    private final double[] blist;
    private final double[] yR;
    private final double[] yI;
    private final double[] beta;
    private double energy;
    private int count;
    private double[] rx = new double[16];
    private double[] ry = new double[16];
    private double[] rz = new double[16];
    private double[] wj = new double[16];
    private double[] rcut = new double[16];
    private int[] elem = new int[16];
    private int[] atom = new int[16];
    private double[][] uR = new double[16][];
    private double[][] uI = new double[16][];
    private final double[] duR;
    private final double[] duI;

    /// The number of bispectrum components of one element triple for `twojmax`.
    static int coefficients(int twojmax) {
        int n = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    if (j >= j1) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    Bispectrum(Params p, int modelElements) {
        this.p = p;
        this.twojmax = p.twojmax();
        this.nelements = p.chem() ? modelElements : 1;
        int jdim = twojmax + 1;
        idxcgBlock = new int[jdim][jdim][jdim];
        int cg = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    idxcgBlock[j1][j2][j] = cg;
                    cg += (j1 + 1) * (j2 + 1);
                }
            }
        }
        cglist = new double[cg];
        idxuBlock = new int[jdim];
        int u = 0;
        for (int j = 0; j <= twojmax; j++) {
            idxuBlock[j] = u;
            u += (j + 1) * (j + 1);
        }
        idxuMax = u;
        idxbMax = coefficients(twojmax);
        idxbJ1 = new int[idxbMax];
        idxbJ2 = new int[idxbMax];
        idxbJ = new int[idxbMax];
        idxbBlock = new int[jdim][jdim][jdim];
        int b = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    if (j >= j1) {
                        idxbJ1[b] = j1;
                        idxbJ2[b] = j2;
                        idxbJ[b] = j;
                        idxbBlock[j1][j2][j] = b;
                        b++;
                    }
                }
            }
        }
        int z = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    z += (j / 2 + 1) * (j + 1);
                }
            }
        }
        idxzMax = z;
        zJ1 = new int[z];
        zJ2 = new int[z];
        zJ = new int[z];
        zMa1min = new int[z];
        zMa2max = new int[z];
        zNa = new int[z];
        zMb1min = new int[z];
        zMb2max = new int[z];
        zNb = new int[z];
        zJju = new int[z];
        idxzBlock = new int[jdim][jdim][jdim];
        z = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    idxzBlock[j1][j2][j] = z;
                    for (int mb = 0; 2 * mb <= j; mb++) {
                        for (int ma = 0; ma <= j; ma++) {
                            zJ1[z] = j1;
                            zJ2[z] = j2;
                            zJ[z] = j;
                            zMa1min[z] = Math.max(0, (2 * ma - j - j2 + j1) / 2);
                            zMa2max[z] = (2 * ma - j - (2 * zMa1min[z] - j1) + j2) / 2;
                            zNa[z] = Math.min(j1, (2 * ma - j + j2 + j1) / 2) - zMa1min[z] + 1;
                            zMb1min[z] = Math.max(0, (2 * mb - j - j2 + j1) / 2);
                            zMb2max[z] = (2 * mb - j - (2 * zMb1min[z] - j1) + j2) / 2;
                            zNb[z] = Math.min(j1, (2 * mb - j + j2 + j1) / 2) - zMb1min[z] + 1;
                            zJju[z] = idxuBlock[j] + (j + 1) * mb + ma;
                            z++;
                        }
                    }
                }
            }
        }
        clebschGordan();
        rootpq = new double[jdim + 1][jdim + 1];
        for (int a = 1; a <= twojmax; a++) {
            for (int c = 1; c <= twojmax; c++) {
                rootpq[a][c] = Math.sqrt((double) a / c);
            }
        }
        bzero = new double[jdim];
        if (p.bzeroFlag()) {
            double www = 1.0; // wself³, wself = 1
            for (int j = 0; j <= twojmax; j++) {
                bzero[j] = p.bnorm() ? www : www * (j + 1);
            }
        }
        utotR = new double[nelements * idxuMax];
        utotI = new double[nelements * idxuMax];
        zR = new double[nelements * nelements * idxzMax];
        zI = new double[nelements * nelements * idxzMax];
        blist = new double[nelements * nelements * nelements * idxbMax];
        yR = new double[nelements * idxuMax];
        yI = new double[nelements * idxuMax];
        beta = new double[blist.length];
        duR = new double[3 * idxuMax];
        duI = new double[3 * idxuMax];
    }

    private static double factorial(int n) {
        double f = 1;
        for (int k = 2; k <= n; k++) {
            f *= k;
        }
        return f;
    }

    private static double deltacg(int j1, int j2, int j) {
        double sfaccg = factorial((j1 + j2 + j) / 2 + 1);
        return Math.sqrt(factorial((j1 + j2 - j) / 2) * factorial((j1 - j2 + j) / 2) * factorial((-j1 + j2 + j) / 2) / sfaccg);
    }

    /// Clebsch–Gordan coefficients by the quasi-binomial formula (Varshalovich et al., 8.2.1(3)).
    private void clebschGordan() {
        int at = 0;
        for (int j1 = 0; j1 <= twojmax; j1++) {
            for (int j2 = 0; j2 <= j1; j2++) {
                for (int j = j1 - j2; j <= Math.min(twojmax, j1 + j2); j += 2) {
                    for (int m1 = 0; m1 <= j1; m1++) {
                        int aa2 = 2 * m1 - j1;
                        for (int m2 = 0; m2 <= j2; m2++) {
                            int bb2 = 2 * m2 - j2;
                            int m = (aa2 + bb2 + j) / 2;
                            if (m < 0 || m > j) {
                                cglist[at++] = 0.0;
                                continue;
                            }
                            double sum = 0.0;
                            for (int zz = Math.max(0, Math.max(-(j - j2 + aa2) / 2, -(j - j1 - bb2) / 2));
                                 zz <= Math.min((j1 + j2 - j) / 2, Math.min((j1 - aa2) / 2, (j2 + bb2) / 2)); zz++) {
                                int sign = zz % 2 != 0 ? -1 : 1;
                                sum += sign / (factorial(zz) * factorial((j1 + j2 - j) / 2 - zz) * factorial((j1 - aa2) / 2 - zz)
                                        * factorial((j2 + bb2) / 2 - zz) * factorial((j - j2 + aa2) / 2 + zz) * factorial((j - j1 - bb2) / 2 + zz));
                            }
                            int cc2 = 2 * m - j;
                            double dcg = deltacg(j1, j2, j);
                            double sfaccg = Math.sqrt(factorial((j1 + aa2) / 2) * factorial((j1 - aa2) / 2) * factorial((j2 + bb2) / 2)
                                    * factorial((j2 - bb2) / 2) * factorial((j + cc2) / 2) * factorial((j - cc2) / 2) * (j + 1));
                            cglist[at++] = sum * dcg * sfaccg;
                        }
                    }
                }
            }
        }
    }

    /// The index tables flat, in the order a device walks them (`snap.cu`): idxu_block[jdim],
    /// idxcg_block, idxb_block and idxz_block [jdim³ each, by (j1·jdim + j2)·jdim + j], then
    /// (j1, j2, j) of each B index and the ten numbers of each Z index (j1 j2 j ma1min ma2max na
    /// mb1min mb2max nb jju).
    int[] indexTable() {
        int jdim = twojmax + 1;
        int j3 = jdim * jdim * jdim;
        int[] t = new int[jdim + 3 * j3 + 3 * idxbMax + 10 * idxzMax];
        System.arraycopy(idxuBlock, 0, t, 0, jdim);
        for (int j1 = 0; j1 < jdim; j1++) {
            for (int j2 = 0; j2 < jdim; j2++) {
                for (int j = 0; j < jdim; j++) {
                    int at = (j1 * jdim + j2) * jdim + j;
                    t[jdim + at] = idxcgBlock[j1][j2][j];
                    t[jdim + j3 + at] = idxbBlock[j1][j2][j];
                    t[jdim + 2 * j3 + at] = idxzBlock[j1][j2][j];
                }
            }
        }
        int at = jdim + 3 * j3;
        for (int b = 0; b < idxbMax; b++) {
            t[at++] = idxbJ1[b];
            t[at++] = idxbJ2[b];
            t[at++] = idxbJ[b];
        }
        for (int z = 0; z < idxzMax; z++) {
            t[at++] = zJ1[z];
            t[at++] = zJ2[z];
            t[at++] = zJ[z];
            t[at++] = zMa1min[z];
            t[at++] = zMa2max[z];
            t[at++] = zNa[z];
            t[at++] = zMb1min[z];
            t[at++] = zMb2max[z];
            t[at++] = zNb[z];
            t[at++] = zJju[z];
        }
        return t;
    }

    /// The constants flat, as a device reads them: rootpq [(jdim + 1)², row-major], B_0 by j
    /// [jdim], then the Clebsch–Gordan coefficients.
    double[] constantTable() {
        int jdim = twojmax + 1;
        double[] c = new double[(jdim + 1) * (jdim + 1) + jdim + cglist.length];
        for (int a = 0; a <= jdim; a++) {
            System.arraycopy(rootpq[a], 0, c, a * (jdim + 1), jdim + 1);
        }
        System.arraycopy(bzero, 0, c, (jdim + 1) * (jdim + 1), jdim);
        System.arraycopy(cglist, 0, c, (jdim + 1) * (jdim + 1) + jdim, cglist.length);
        return c;
    }

    int idxuMax() {
        return idxuMax;
    }

    int idxzMax() {
        return idxzMax;
    }

    int idxbMax() {
        return idxbMax;
    }

    /// The descriptor's elements (the model's with chemflag, else 1).
    int elements() {
        return nelements;
    }

    /// Forgets the last atom's neighbours.
    void clear() {
        count = 0;
    }

    /// Adds a neighbour at r_j − r_i = (`x`, `y`, `z`), weight `w`, pair cutoff `rc`, model element
    /// `e`, atom `j`.
    void add(double x, double y, double z, double w, double rc, int e, int j) {
        if (count == rx.length) {
            int n = 2 * count;
            rx = java.util.Arrays.copyOf(rx, n);
            ry = java.util.Arrays.copyOf(ry, n);
            rz = java.util.Arrays.copyOf(rz, n);
            wj = java.util.Arrays.copyOf(wj, n);
            rcut = java.util.Arrays.copyOf(rcut, n);
            elem = java.util.Arrays.copyOf(elem, n);
            atom = java.util.Arrays.copyOf(atom, n);
            uR = java.util.Arrays.copyOf(uR, n);
            uI = java.util.Arrays.copyOf(uI, n);
        }
        rx[count] = x;
        ry[count] = y;
        rz[count] = z;
        wj[count] = w;
        rcut[count] = rc;
        elem[count] = p.chem() ? e : 0;
        atom[count] = j;
        if (uR[count] == null) {
            uR[count] = new double[idxuMax];
            uI[count] = new double[idxuMax];
        }
        count++;
    }

    int neighbours() {
        return count;
    }

    int atom(int k) {
        return atom[k];
    }

    double rx(int k) {
        return rx[k];
    }

    double ry(int k) {
        return ry[k];
    }

    double rz(int k) {
        return rz[k];
    }

    double energy() {
        return energy;
    }

    /// U_tot, Z, B, the atom's energy and β (dE/dB), then Y, for an atom of model element
    /// `ielem` whose coefficient row is `coeff` (β0, `ncoeff` linear, then the quadratic ones).
    void compute(int ielem, double[] coeff, int ncoeff) {
        descriptors(ielem);
        energy = linear(coeff, ncoeff, p.quadratic(), blist, beta);
        yarray();
    }

    /// The energy of descriptors `b` under a linear (or `quadratic`) model's coefficient row
    /// `coeff` (β0, `ncoeff` linear, then the upper triangle of the quadratic ones), its
    /// gradient dE/dB into `beta`.
    static double linear(double[] coeff, int ncoeff, boolean quadratic, double[] b, double[] beta) {
        double e = coeff[0];
        for (int k = 0; k < ncoeff; k++) {
            e += coeff[k + 1] * b[k];
            beta[k] = coeff[k + 1];
        }
        if (quadratic) {
            int q = ncoeff + 1;
            for (int a = 0; a < ncoeff; a++) {
                double ba = b[a];
                e += 0.5 * coeff[q] * ba * ba;
                beta[a] += coeff[q] * ba;
                q++;
                for (int c = a + 1; c < ncoeff; c++) {
                    double bc = b[c];
                    e += coeff[q] * ba * bc;
                    beta[a] += coeff[q] * bc;
                    beta[c] += coeff[q] * ba;
                    q++;
                }
            }
        }
        return e;
    }

    /// The descriptors B of the neighbours added, for an atom of model element `ielem` (a view:
    /// valid until the next call).
    double[] descriptors(int ielem) {
        int ie = p.chem() ? ielem : 0;
        // U_tot: the self term on the diagonal, then every neighbour's U times its switch and weight
        java.util.Arrays.fill(utotR, 0);
        java.util.Arrays.fill(utotI, 0);
        for (int e = 0; e < nelements; e++) {
            for (int j = 0; j <= twojmax; j++) {
                int jju = idxuBlock[j];
                for (int mb = 0; mb <= j; mb++) {
                    for (int ma = 0; ma <= j; ma++) {
                        if ((e == ie || p.wselfall()) && ma == mb) {
                            utotR[e * idxuMax + jju] = 1.0;
                        }
                        jju++;
                    }
                }
            }
        }
        for (int k = 0; k < count; k++) {
            double r = Math.sqrt(rx[k] * rx[k] + ry[k] * ry[k] + rz[k] * rz[k]);
            double theta0 = (r - p.rmin0()) * p.rfac0() * Math.PI / (rcut[k] - p.rmin0());
            double z0 = r / Math.tan(theta0);
            uarray(rx[k], ry[k], rz[k], z0, r, uR[k], uI[k]);
            double sfac = sfac(r, rcut[k]) * wj[k];
            int base = elem[k] * idxuMax;
            for (int q = 0; q < idxuMax; q++) {
                utotR[base + q] += sfac * uR[k][q];
                utotI[base + q] += sfac * uI[k][q];
            }
        }
        // Z, for every pair of descriptor elements
        for (int e1 = 0, d = 0; e1 < nelements; e1++) {
            for (int e2 = 0; e2 < nelements; e2++, d++) {
                for (int jjz = 0; jjz < idxzMax; jjz++) {
                    double[] t = zterm(jjz, e1, e2);
                    zR[d * idxzMax + jjz] = t[0];
                    zI[d * idxzMax + jjz] = t[1];
                }
            }
        }
        // B = 2·Σ conj(U_tot)·Z over the independent half of (ma, mb)
        for (int e1 = 0, t = 0, d = 0; e1 < nelements; e1++) {
            for (int e2 = 0; e2 < nelements; e2++, d++) {
                for (int e3 = 0; e3 < nelements; e3++, t++) {
                    for (int jjb = 0; jjb < idxbMax; jjb++) {
                        int j1 = idxbJ1[jjb];
                        int j2 = idxbJ2[jjb];
                        int j = idxbJ[jjb];
                        int jjz = d * idxzMax + idxzBlock[j1][j2][j];
                        int jju = e3 * idxuMax + idxuBlock[j];
                        double sumzu = 0.0;
                        for (int mb = 0; 2 * mb < j; mb++) {
                            for (int ma = 0; ma <= j; ma++) {
                                sumzu += utotR[jju] * zR[jjz] + utotI[jju] * zI[jjz];
                                jjz++;
                                jju++;
                            }
                        }
                        if (j % 2 == 0) {
                            int mb = j / 2;
                            for (int ma = 0; ma < mb; ma++) {
                                sumzu += utotR[jju] * zR[jjz] + utotI[jju] * zI[jjz];
                                jjz++;
                                jju++;
                            }
                            sumzu += 0.5 * (utotR[jju] * zR[jjz] + utotI[jju] * zI[jjz]);
                        }
                        blist[t * idxbMax + jjb] = 2.0 * sumzu;
                    }
                }
            }
        }
        if (p.bzeroFlag()) {
            int ntriples = nelements * nelements * nelements;
            for (int t = 0; t < ntriples; t++) {
                if (!p.wselfall() && t != (ie * nelements + ie) * nelements + ie) {
                    continue;
                }
                for (int jjb = 0; jjb < idxbMax; jjb++) {
                    blist[t * idxbMax + jjb] -= bzero[idxbJ[jjb]];
                }
            }
        }
        return blist;
    }

    /// Y for gradient `g` = dE/dB (the model's, over the descriptors `descriptors` returned);
    /// then `force` per neighbour.
    void gradient(double[] g, double e) {
        System.arraycopy(g, 0, beta, 0, beta.length);
        energy = e;
        yarray();
    }

    /// Z(j1, j2, j; ma, mb) of elements `e1`, `e2` at z-index `jjz`: {re, im}.
    private final double[] zt = new double[2];

    private double[] zterm(int jjz, int e1, int e2) {
        int j1 = zJ1[jjz];
        int j2 = zJ2[jjz];
        int j = zJ[jjz];
        int cgb = idxcgBlock[j1][j2][j];
        double sr = 0.0;
        double si = 0.0;
        int jju1 = e1 * idxuMax + idxuBlock[j1] + (j1 + 1) * zMb1min[jjz];
        int jju2 = e2 * idxuMax + idxuBlock[j2] + (j2 + 1) * zMb2max[jjz];
        int icgb = zMb1min[jjz] * (j2 + 1) + zMb2max[jjz];
        for (int ib = 0; ib < zNb[jjz]; ib++) {
            double ar = 0.0;
            double ai = 0.0;
            int ma1 = zMa1min[jjz];
            int ma2 = zMa2max[jjz];
            int icga = zMa1min[jjz] * (j2 + 1) + zMa2max[jjz];
            for (int ia = 0; ia < zNa[jjz]; ia++) {
                double c = cglist[cgb + icga];
                ar += c * (utotR[jju1 + ma1] * utotR[jju2 + ma2] - utotI[jju1 + ma1] * utotI[jju2 + ma2]);
                ai += c * (utotR[jju1 + ma1] * utotI[jju2 + ma2] + utotI[jju1 + ma1] * utotR[jju2 + ma2]);
                ma1++;
                ma2--;
                icga += j2;
            }
            sr += cglist[cgb + icgb] * ar;
            si += cglist[cgb + icgb] * ai;
            jju1 += j1 + 1;
            jju2 -= j2 + 1;
            icgb += j2;
        }
        if (p.bnorm()) {
            sr /= j + 1;
            si /= j + 1;
        }
        zt[0] = sr;
        zt[1] = si;
        return zt;
    }

    /// Y: each Z term weighted by the β of the bispectrum component it enters (the Z terms those
    /// `descriptors` computed: LAMMPS's `compute_yi` computes them again, to the same bits).
    private void yarray() {
        java.util.Arrays.fill(yR, 0);
        java.util.Arrays.fill(yI, 0);
        for (int e1 = 0, d = 0; e1 < nelements; e1++) {
            for (int e2 = 0; e2 < nelements; e2++, d++) {
                for (int jjz = 0; jjz < idxzMax; jjz++) {
                    int j1 = zJ1[jjz];
                    int j2 = zJ2[jjz];
                    int j = zJ[jjz];
                    double tr = zR[d * idxzMax + jjz];
                    double ti = zI[d * idxzMax + jjz];
                    int jju = zJju[jjz];
                    for (int e3 = 0; e3 < nelements; e3++) {
                        double betaj;
                        if (j >= j1) {
                            int jjb = idxbBlock[j1][j2][j];
                            int triple = ((e1 * nelements + e2) * nelements + e3) * idxbMax + jjb;
                            betaj = j1 == j ? (j2 == j ? 3 * beta[triple] : 2 * beta[triple]) : beta[triple];
                        } else if (j >= j2) {
                            int jjb = idxbBlock[j][j2][j1];
                            int triple = ((e3 * nelements + e2) * nelements + e1) * idxbMax + jjb;
                            betaj = j2 == j ? 2 * beta[triple] : beta[triple];
                        } else {
                            int jjb = idxbBlock[j2][j][j1];
                            int triple = ((e2 * nelements + e3) * nelements + e1) * idxbMax + jjb;
                            betaj = beta[triple];
                        }
                        if (!p.bnorm() && j1 > j) {
                            betaj *= (j1 + 1) / (j + 1.0);
                        }
                        yR[e3 * idxuMax + jju] += betaj * tr;
                        yI[e3 * idxuMax + jju] += betaj * ti;
                    }
                }
            }
        }
    }

    /// dE_i/dr_j of neighbour `k` into `out` (the force it adds to atom i; atom j takes −out).
    void force(int k, double[] out) {
        double x = rx[k];
        double y = ry[k];
        double z = rz[k];
        double rsq = x * x + y * y + z * z;
        double r = Math.sqrt(rsq);
        double rscale0 = p.rfac0() * Math.PI / (rcut[k] - p.rmin0());
        double theta0 = (r - p.rmin0()) * rscale0;
        double cs = Math.cos(theta0);
        double sn = Math.sin(theta0);
        double z0 = r * cs / sn;
        double dz0dr = z0 / r - (r * rscale0) * (rsq + z0 * z0) / rsq;
        duarray(x, y, z, z0, r, dz0dr, wj[k], rcut[k], uR[k], uI[k]);
        int base = elem[k] * idxuMax;
        double d0 = 0;
        double d1 = 0;
        double d2 = 0;
        for (int j = 0; j <= twojmax; j++) {
            int jju = idxuBlock[j];
            for (int mb = 0; 2 * mb < j; mb++) {
                for (int ma = 0; ma <= j; ma++) {
                    double yr = yR[base + jju];
                    double yi = yI[base + jju];
                    d0 += duR[3 * jju] * yr + duI[3 * jju] * yi;
                    d1 += duR[3 * jju + 1] * yr + duI[3 * jju + 1] * yi;
                    d2 += duR[3 * jju + 2] * yr + duI[3 * jju + 2] * yi;
                    jju++;
                }
            }
            if (j % 2 == 0) {
                int mb = j / 2;
                for (int ma = 0; ma < mb; ma++) {
                    double yr = yR[base + jju];
                    double yi = yI[base + jju];
                    d0 += duR[3 * jju] * yr + duI[3 * jju] * yi;
                    d1 += duR[3 * jju + 1] * yr + duI[3 * jju + 1] * yi;
                    d2 += duR[3 * jju + 2] * yr + duI[3 * jju + 2] * yi;
                    jju++;
                }
                double yr = yR[base + jju];
                double yi = yI[base + jju];
                d0 += (duR[3 * jju] * yr + duI[3 * jju] * yi) * 0.5;
                d1 += (duR[3 * jju + 1] * yr + duI[3 * jju + 1] * yi) * 0.5;
                d2 += (duR[3 * jju + 2] * yr + duI[3 * jju + 2] * yi) * 0.5;
            }
        }
        out[0] = 2.0 * d0;
        out[1] = 2.0 * d1;
        out[2] = 2.0 * d2;
    }

    private double sfac(double r, double rc) {
        if (!p.switchFlag()) {
            return 1.0;
        }
        if (r <= p.rmin0()) {
            return 1.0;
        }
        if (r > rc) {
            return 0.0;
        }
        double rcutfac = Math.PI / (rc - p.rmin0());
        return 0.5 * (Math.cos((r - p.rmin0()) * rcutfac) + 1.0);
    }

    private double dsfac(double r, double rc) {
        if (!p.switchFlag() || r <= p.rmin0() || r > rc) {
            return 0.0;
        }
        double rcutfac = Math.PI / (rc - p.rmin0());
        return -0.5 * Math.sin((r - p.rmin0()) * rcutfac) * rcutfac;
    }

    /// The Wigner U-functions of a neighbour, layer by layer from its Cayley–Klein parameters
    /// (Varshalovich et al. 4.8.2), the right half of each layer by inversion symmetry.
    private void uarray(double x, double y, double z, double z0, double r, double[] ur, double[] ui) {
        double r0inv = 1.0 / Math.sqrt(r * r + z0 * z0);
        double ar = r0inv * z0;
        double ai = -r0inv * z;
        double br = r0inv * y;
        double bi = -r0inv * x;
        ur[0] = 1.0;
        ui[0] = 0.0;
        for (int j = 1; j <= twojmax; j++) {
            int jju = idxuBlock[j];
            int jjup = idxuBlock[j - 1];
            for (int mb = 0; 2 * mb <= j; mb++) {
                ur[jju] = 0.0;
                ui[jju] = 0.0;
                for (int ma = 0; ma < j; ma++) {
                    double rq = rootpq[j - ma][j - mb];
                    ur[jju] += rq * (ar * ur[jjup] + ai * ui[jjup]);
                    ui[jju] += rq * (ar * ui[jjup] - ai * ur[jjup]);
                    rq = rootpq[ma + 1][j - mb];
                    ur[jju + 1] = -rq * (br * ur[jjup] + bi * ui[jjup]);
                    ui[jju + 1] = -rq * (br * ui[jjup] - bi * ur[jjup]);
                    jju++;
                    jjup++;
                }
                jju++;
            }
            jju = idxuBlock[j];
            jjup = jju + (j + 1) * (j + 1) - 1;
            int mbpar = 1;
            for (int mb = 0; 2 * mb <= j; mb++) {
                int mapar = mbpar;
                for (int ma = 0; ma <= j; ma++) {
                    if (mapar == 1) {
                        ur[jjup] = ur[jju];
                        ui[jjup] = -ui[jju];
                    } else {
                        ur[jjup] = -ur[jju];
                        ui[jjup] = ui[jju];
                    }
                    mapar = -mapar;
                    jju++;
                    jjup--;
                }
                mbpar = -mbpar;
            }
        }
    }

    /// The derivatives of a neighbour's U-functions with respect to r_j, times its switch and
    /// weight (and the switch's derivative times U), into `duR`/`duI` (3 per index).
    private void duarray(double x, double y, double z, double z0, double r, double dz0dr, double w, double rc, double[] ur, double[] ui) {
        double rinv = 1.0 / r;
        double ux = x * rinv;
        double uy = y * rinv;
        double uz = z * rinv;
        double r0inv = 1.0 / Math.sqrt(r * r + z0 * z0);
        double ar = z0 * r0inv;
        double ai = -z * r0inv;
        double br = y * r0inv;
        double bi = -x * r0inv;
        double dr0invdr = -Math.pow(r0inv, 3.0) * (r + z0 * dz0dr);
        double[] dr0inv = {dr0invdr * ux, dr0invdr * uy, dr0invdr * uz};
        double[] dz0 = {dz0dr * ux, dz0dr * uy, dz0dr * uz};
        double[] dar = new double[3];
        double[] dai = new double[3];
        double[] dbr = new double[3];
        double[] dbi = new double[3];
        for (int c = 0; c < 3; c++) {
            dar[c] = dz0[c] * r0inv + z0 * dr0inv[c];
            dai[c] = -z * dr0inv[c];
        }
        dai[2] += -r0inv;
        for (int c = 0; c < 3; c++) {
            dbr[c] = y * dr0inv[c];
            dbi[c] = -x * dr0inv[c];
        }
        dbi[0] += -r0inv;
        dbr[1] += r0inv;
        duR[0] = 0;
        duR[1] = 0;
        duR[2] = 0;
        duI[0] = 0;
        duI[1] = 0;
        duI[2] = 0;
        // the three components written out (the same operations as a loop over them, in registers)
        double dar0 = dar[0];
        double dar1 = dar[1];
        double dar2 = dar[2];
        double dai0 = dai[0];
        double dai1 = dai[1];
        double dai2 = dai[2];
        double dbr0 = dbr[0];
        double dbr1 = dbr[1];
        double dbr2 = dbr[2];
        double dbi0 = dbi[0];
        double dbi1 = dbi[1];
        double dbi2 = dbi[2];
        for (int j = 1; j <= twojmax; j++) {
            int jju = idxuBlock[j];
            int jjup = idxuBlock[j - 1];
            for (int mb = 0; 2 * mb <= j; mb++) {
                double r0 = 0;
                double r1 = 0;
                double r2 = 0;
                double i0 = 0;
                double i1 = 0;
                double i2 = 0;
                for (int ma = 0; ma < j; ma++) {
                    double urp = ur[jjup];
                    double uip = ui[jjup];
                    int p3 = 3 * jjup;
                    double pr0 = duR[p3];
                    double pr1 = duR[p3 + 1];
                    double pr2 = duR[p3 + 2];
                    double pi0 = duI[p3];
                    double pi1 = duI[p3 + 1];
                    double pi2 = duI[p3 + 2];
                    double rq = rootpq[j - ma][j - mb];
                    r0 += rq * (dar0 * urp + dai0 * uip + ar * pr0 + ai * pi0);
                    r1 += rq * (dar1 * urp + dai1 * uip + ar * pr1 + ai * pi1);
                    r2 += rq * (dar2 * urp + dai2 * uip + ar * pr2 + ai * pi2);
                    i0 += rq * (dar0 * uip - dai0 * urp + ar * pi0 - ai * pr0);
                    i1 += rq * (dar1 * uip - dai1 * urp + ar * pi1 - ai * pr1);
                    i2 += rq * (dar2 * uip - dai2 * urp + ar * pi2 - ai * pr2);
                    int q3 = 3 * jju;
                    duR[q3] = r0;
                    duR[q3 + 1] = r1;
                    duR[q3 + 2] = r2;
                    duI[q3] = i0;
                    duI[q3 + 1] = i1;
                    duI[q3 + 2] = i2;
                    rq = rootpq[ma + 1][j - mb];
                    // the next entry starts from this term (LAMMPS assigns it, then adds to it)
                    r0 = -rq * (dbr0 * urp + dbi0 * uip + br * pr0 + bi * pi0);
                    r1 = -rq * (dbr1 * urp + dbi1 * uip + br * pr1 + bi * pi1);
                    r2 = -rq * (dbr2 * urp + dbi2 * uip + br * pr2 + bi * pi2);
                    i0 = -rq * (dbr0 * uip - dbi0 * urp + br * pi0 - bi * pr0);
                    i1 = -rq * (dbr1 * uip - dbi1 * urp + br * pi1 - bi * pr1);
                    i2 = -rq * (dbr2 * uip - dbi2 * urp + br * pi2 - bi * pr2);
                    jju++;
                    jjup++;
                }
                int q3 = 3 * jju;
                duR[q3] = r0;
                duR[q3 + 1] = r1;
                duR[q3 + 2] = r2;
                duI[q3] = i0;
                duI[q3 + 1] = i1;
                duI[q3 + 2] = i2;
                jju++;
            }
            // the mirrored rows this layer's readers need: the middle row (j even: onto itself, as
            // LAMMPS overwrites it) or the row past the middle (j odd: the next layer reads it); the
            // other mirrored rows are read by nobody (force() takes the left half, the next layer
            // the rows up to (j + 1)/2), so LAMMPS's values there are not made
            int first = j / 2;
            jju = idxuBlock[j] + (j + 1) * first;
            jjup = idxuBlock[j] + (j + 1) * (j + 1) - 1 - (j + 1) * first;
            int mbpar = first % 2 == 0 ? 1 : -1;
            for (int mb = first; 2 * mb <= j; mb++) {
                int mapar = mbpar;
                for (int ma = 0; ma <= j; ma++) {
                    for (int c = 0; c < 3; c++) {
                        if (mapar == 1) {
                            duR[3 * jjup + c] = duR[3 * jju + c];
                            duI[3 * jjup + c] = -duI[3 * jju + c];
                        } else {
                            duR[3 * jjup + c] = -duR[3 * jju + c];
                            duI[3 * jjup + c] = duI[3 * jju + c];
                        }
                    }
                    mapar = -mapar;
                    jju++;
                    jjup--;
                }
                mbpar = -mbpar;
            }
        }
        double sfac = sfac(r, rc) * w;
        double dsfac = dsfac(r, rc) * w;
        for (int j = 0; j <= twojmax; j++) {
            int jju = idxuBlock[j];
            for (int mb = 0; 2 * mb <= j; mb++) {
                for (int ma = 0; ma <= j; ma++) {
                    int q3 = 3 * jju;
                    double dr = dsfac * ur[jju];
                    double di = dsfac * ui[jju];
                    duR[q3] = dr * ux + sfac * duR[q3];
                    duI[q3] = di * ux + sfac * duI[q3];
                    duR[q3 + 1] = dr * uy + sfac * duR[q3 + 1];
                    duI[q3 + 1] = di * uy + sfac * duI[q3 + 1];
                    duR[q3 + 2] = dr * uz + sfac * duR[q3 + 2];
                    duI[q3 + 2] = di * uz + sfac * duI[q3 + 2];
                    jju++;
                }
            }
        }
    }
}
