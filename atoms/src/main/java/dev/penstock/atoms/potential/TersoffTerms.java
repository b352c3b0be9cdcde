package dev.penstock.atoms.potential;

/// The terms of LAMMPS's `pair_style tersoff`, function by function, in LAMMPS's order of
/// operations (so that `Tersoff` agrees with LAMMPS to rounding): the cutoff function and its
/// derivative, the attractive pair term, the bond order b(ζ) with LAMMPS's four asymptotic
/// branches, the angular term g(θ), ζ's k term and the forces of its derivative. An entry's
/// parameters are one `double[]`, indexed by the constants below (as `Tersoff.read` fills it).
final class TersoffTerms {
    static final double PI2 = Math.PI / 2;
    static final double PI4 = Math.PI / 4;

    // indices into an entry's parameters
    static final int M = 0;
    static final int GAMMA = 1;
    static final int LAM3 = 2;
    static final int C = 3;
    static final int D = 4;
    static final int H = 5;
    static final int N = 6;
    static final int BETA = 7;
    static final int LAM2 = 8;
    static final int BIGB = 9;
    static final int BIGR = 10;
    static final int BIGD = 11;
    static final int LAM1 = 12;
    static final int BIGA = 13;
    static final int CUTSQ = 14;
    static final int C1 = 15; // …C4 = 18

    private TersoffTerms() {
    }

    static double fc(double r, double[] q) {
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

    static double fcD(double r, double[] q) {
        double bigr = q[BIGR];
        double bigd = q[BIGD];
        if (r < bigr - bigd || r > bigr + bigd) {
            return 0.0;
        }
        return -(PI4 / bigd) * Math.cos(PI2 * (r - bigr) / bigd);
    }

    static double fa(double r, double[] q) {
        if (r > q[BIGR] + q[BIGD]) {
            return 0.0;
        }
        return -q[BIGB] * Math.exp(-q[LAM2] * r) * fc(r, q);
    }

    static double faD(double r, double[] q) {
        if (r > q[BIGR] + q[BIGD]) {
            return 0.0;
        }
        return q[BIGB] * Math.exp(-q[LAM2] * r) * (q[LAM2] * fc(r, q) - fcD(r, q));
    }

    static double bij(double zeta, double[] q) {
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

    static double bijD(double zeta, double[] q) {
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

    static double gijk(double costheta, double[] q) {
        double c2 = q[C] * q[C];
        double d2 = q[D] * q[D];
        double hcth = q[H] - costheta;
        return q[GAMMA] * (1.0 + c2 / d2 - c2 / (d2 + hcth * hcth));
    }

    static double gijkD(double costheta, double[] q) {
        double c2 = q[C] * q[C];
        double d2 = q[D] * q[D];
        double hcth = q[H] - costheta;
        double numerator = -2.0 * c2 * hcth;
        double denominator = 1.0 / (d2 + hcth * hcth);
        return q[GAMMA] * numerator * denominator * denominator;
    }

    /// e^{(λ3 (r_ij − r_ik))^m}, clamped as LAMMPS clamps it.
    static double exDelr(double[] q, double rij, double rik) {
        double arg = q[M] == 3 ? cube(q[LAM3] * (rij - rik)) : q[LAM3] * (rij - rik);
        if (arg > 69.0776) {
            return 1.e30;
        }
        if (arg < -69.0776) {
            return 0.0;
        }
        return Math.exp(arg);
    }

    static double cube(double x) {
        return x * x * x;
    }

    static double zeta(double[] q, double rsqij, double rsqik, double[] dij, double[] dik) {
        double rij = Math.sqrt(rsqij);
        double rik = Math.sqrt(rsqik);
        double costheta = (dij[0] * dik[0] + dij[1] * dik[1] + dij[2] * dik[2]) / (rij * rik);
        return fc(rik, q) * gijk(costheta, q) * exDelr(q, rij, rik);
    }

    /// LAMMPS's `attractive` and `ters_zetaterm_d`: the forces on i, j and k of ζ_ij's k term.
    static void attractive(double[] q, double prefactor, double rsqij, double rsqik, double[] dij, double[] dik, double[] dri,
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
