package dev.penstock.atoms.optimize;

/// ASE 3.22's `UnitCellFilter` (Tadmor et al. 1999) as arrays: a system of n atoms in a cell H
/// that began its relaxation in cell H₀ is n + 3 "atoms" to an optimiser — the positions with the
/// cell's deformation taken out, and the deformation gradient F (H = H₀·Fᵀ, rows the lattice
/// vectors) times `cellFactor` (n by default) — whose "forces" are the atoms' forces through F
/// and the virial under a scalar pressure P through F⁻ᵀ, over `cellFactor`:
///
/// ```
///   F = (H₀⁻¹·H)ᵀ          x_i = F⁻¹·r_i            x_{n+d} = cellFactor · F_d (row d of F)
///   g_i = f_i·F           g_{n+d} = (V_ase·F⁻ᵀ)_d / cellFactor,   V_ase = W − P·V·I (masked)
///   back: F' = x_{n..}/cellFactor, H' = H₀·F'ᵀ, r_i = F'·x_i
/// ```
///
/// W is Penstock's virial (`AtomicSystem.virial`: ASE's stress is −W/V); `mask` (Voigt xx yy zz
/// yz xz xy, 1 relaxed, 0 fixed) zeroes the fixed components of V_ase, `hydrostatic` replaces it
/// by its trace over 3 on the diagonal (ASE's `hydrostatic_strain`). The 3×3 solves are Gaussian
/// elimination with partial pivoting, LAPACK's `gesv` (ASE's `np.linalg.solve`), so the optimiser
/// sees ASE's numbers to rounding.
public final class CellFilter {
    private CellFilter() {
    }

    /// F = (H₀⁻¹·H)ᵀ, row-major into `out`.
    public static void deformation(double[] orig, double[] cell, double[] out) {
        double[] t = new double[9];
        solve(orig, cell, t); // H₀·X = H: X = H₀⁻¹·H
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                out[3 * a + b] = t[3 * b + a];
            }
        }
    }

    /// The filter's positions (3(n + 3)) of `n` atoms at `r` in `cell` begun in `orig`.
    public static void positions(double[] r, int n, double[] cell, double[] orig, double cellFactor, double[] x) {
        double[] f = new double[9];
        deformation(orig, cell, f);
        double[] lu = new double[9];
        int[] piv = new int[3];
        factor(f, lu, piv);
        double[] col = new double[3];
        for (int i = 0; i < n; i++) {
            col[0] = r[3 * i];
            col[1] = r[3 * i + 1];
            col[2] = r[3 * i + 2];
            substitute(lu, piv, col);
            x[3 * i] = col[0];
            x[3 * i + 1] = col[1];
            x[3 * i + 2] = col[2];
        }
        for (int q = 0; q < 9; q++) {
            x[3 * n + q] = cellFactor * f[q];
        }
    }

    /// The filter's forces (3(n + 3)) from the atoms' forces `f` and virial `w` (9, Penstock's) at
    /// scalar pressure `p` (eV/Å³), `mask` (6, Voigt) and `hydrostatic`.
    public static void forces(double[] f, double[] w, int n, double[] cell, double[] orig, double p, int[] mask, boolean hydrostatic,
                              double cellFactor, double[] g) {
        double[] def = new double[9];
        deformation(orig, cell, def);
        for (int i = 0; i < n; i++) {
            double fx = f[3 * i];
            double fy = f[3 * i + 1];
            double fz = f[3 * i + 2];
            for (int b = 0; b < 3; b++) {
                g[3 * i + b] = fx * def[b] + fy * def[3 + b] + fz * def[6 + b];
            }
        }
        double volume = volume(cell);
        // ASE: virial = −V·(σ + P·I), σ = −W/V; then solve(F, virialᵀ)ᵀ
        double[] v = new double[9];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                double stress = -w[3 * a + b] / volume + (a == b ? p : 0);
                v[3 * a + b] = -volume * stress;
            }
        }
        double[] vt = transpose(v);
        double[] s = new double[9];
        solve(def, vt, s);
        double[] vir = transpose(s);
        if (hydrostatic) {
            double tr = vir[0] + vir[4] + vir[8];
            java.util.Arrays.fill(vir, 0);
            vir[0] = tr / 3.0;
            vir[4] = tr / 3.0;
            vir[8] = tr / 3.0;
        }
        int[] voigt = {0, 5, 4, 5, 1, 3, 4, 3, 2}; // full (a, b) → Voigt xx yy zz yz xz xy
        for (int q = 0; q < 9; q++) {
            if (mask[voigt[q]] == 0) {
                vir[q] *= 0;
            }
            g[3 * n + q] = vir[q] / cellFactor;
        }
    }

    /// The atoms' positions `r` and the cell (into `cell`) from the filter's positions `x`.
    public static void unfilter(double[] x, int n, double[] orig, double cellFactor, double[] r, double[] cell) {
        double[] f = new double[9];
        for (int q = 0; q < 9; q++) {
            f[q] = x[3 * n + q] / cellFactor;
        }
        for (int a = 0; a < 3; a++) { // H₀ @ Fᵀ
            for (int b = 0; b < 3; b++) {
                cell[3 * a + b] = orig[3 * a] * f[3 * b] + orig[3 * a + 1] * f[3 * b + 1] + orig[3 * a + 2] * f[3 * b + 2];
            }
        }
        for (int i = 0; i < n; i++) { // x @ Fᵀ
            double x0 = x[3 * i];
            double x1 = x[3 * i + 1];
            double x2 = x[3 * i + 2];
            for (int b = 0; b < 3; b++) {
                r[3 * i + b] = x0 * f[3 * b] + x1 * f[3 * b + 1] + x2 * f[3 * b + 2];
            }
        }
    }

    /// max over the n + 3 rows of |g_row| (ASE's FIRE convergence: √max Σ g²).
    public static double fmax(double[] g, int n) {
        double max = 0;
        for (int i = 0; i < n + 3; i++) {
            max = Math.max(max, g[3 * i] * g[3 * i] + g[3 * i + 1] * g[3 * i + 1] + g[3 * i + 2] * g[3 * i + 2]);
        }
        return Math.sqrt(max);
    }

    /// |det| of a cell (ASE's `get_volume`).
    public static double volume(double[] c) {
        return Math.abs(c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) + c[2] * (c[3] * c[7] - c[4] * c[6]));
    }

    private static double[] transpose(double[] m) {
        return new double[] {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
    }

    /// X with A·X = B (3×3 each, row-major): LU with partial pivoting, as LAPACK's gesv.
    static void solve(double[] a, double[] b, double[] x) {
        double[] lu = new double[9];
        int[] piv = new int[3];
        factor(a, lu, piv);
        double[] col = new double[3];
        for (int j = 0; j < 3; j++) {
            col[0] = b[j];
            col[1] = b[3 + j];
            col[2] = b[6 + j];
            substitute(lu, piv, col);
            x[j] = col[0];
            x[3 + j] = col[1];
            x[6 + j] = col[2];
        }
    }

    /// LU factors of `a` with partial pivoting (LAPACK's dgetf2: the pivot the largest |entry| of
    /// its column, multipliers by the pivot's reciprocal), rows swapped as `piv` records.
    static void factor(double[] a, double[] lu, int[] piv) {
        System.arraycopy(a, 0, lu, 0, 9);
        for (int j = 0; j < 3; j++) {
            int p = j;
            for (int i = j + 1; i < 3; i++) {
                if (Math.abs(lu[3 * i + j]) > Math.abs(lu[3 * p + j])) {
                    p = i;
                }
            }
            piv[j] = p;
            if (p != j) {
                for (int c = 0; c < 3; c++) {
                    double t = lu[3 * j + c];
                    lu[3 * j + c] = lu[3 * p + c];
                    lu[3 * p + c] = t;
                }
            }
            if (lu[3 * j + j] == 0) {
                throw new IllegalStateException("the cell's deformation is singular");
            }
            double r = 1.0 / lu[3 * j + j];
            for (int i = j + 1; i < 3; i++) {
                lu[3 * i + j] *= r;
            }
            for (int i = j + 1; i < 3; i++) {
                for (int c = j + 1; c < 3; c++) {
                    lu[3 * i + c] -= lu[3 * i + j] * lu[3 * j + c];
                }
            }
        }
    }

    /// Solves L·U·x = P·b in place for one column `b` (dgetrs).
    static void substitute(double[] lu, int[] piv, double[] b) {
        for (int j = 0; j < 3; j++) {
            int p = piv[j];
            if (p != j) {
                double t = b[j];
                b[j] = b[p];
                b[p] = t;
            }
        }
        for (int i = 1; i < 3; i++) {
            for (int k = 0; k < i; k++) {
                b[i] -= lu[3 * i + k] * b[k];
            }
        }
        for (int i = 2; i >= 0; i--) {
            for (int k = i + 1; k < 3; k++) {
                b[i] -= lu[3 * i + k] * b[k];
            }
            b[i] /= lu[3 * i + i];
        }
    }
}
