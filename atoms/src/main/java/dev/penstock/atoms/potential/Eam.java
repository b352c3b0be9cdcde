package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/// The embedded-atom method from a LAMMPS potential file: funcfl (`*.eam`), setfl
/// (`*.eam.alloy`) or Finnis–Sinclair (`*.eam.fs`), the tables prepared as LAMMPS prepares them
/// (`EamTables`), so that energies and forces agree with LAMMPS's `pair_style eam`, `eam/alloy`
/// and `eam/fs` to rounding.
///
/// ```
///   E = Σ_i F_i(ρ_i) + Σ_{i<j} φ_ij(r_ij),   ρ_i = Σ_{j≠i} ρ_{j→i}(r_ij)
///   pass 1  over the half list: ρ_i += ρ_{j→i}(r), ρ_j += ρ_{i→j}(r)
///   pass 2  per atom: F_i, F'_i (linear beyond the table's last ρ, as LAMMPS)
///   pass 3  over the half list: f = −(F'_i ρ'_{j→i} + F'_j ρ'_{i→j} + φ') r̂
/// ```
///
/// The virial (`AtomicSystem.virial`) is summed over the same pairs, as LAMMPS tallies it.
///
/// Species: each atom's atomic number (`AtomicSystem.numbers()`) picks the file's element of that
/// number; an atom of an element the file lacks fails the system, naming the element and the
/// file's elements. Periodic and free systems, any cell (the neighbour list's images).
///
/// Threading: like `PairPotential`: different systems may be computed at once from different
/// threads (each system's list and scratch are its own).
public final class Eam extends FileModel {

    private final EamTables t;
    private final ThreadLocal<double[][]> scratch = ThreadLocal.withInitial(() -> new double[][] {new double[0], new double[0]});

    private Eam(EamTables t) {
        super(new Species(t.file, t.elements, t.numbers), t.cut);
        this.t = t;
    }

    /// Reads `file` (its format from its name); a missing, bad or truncated file fails here,
    /// naming the file and line.
    public static Eam read(Path file) throws IOException {
        return new Eam(EamTables.read(file));
    }

    /// A new model on the same tables (read once), with no neighbour lists yet: one per stage
    /// worker.
    public Eam fresh() {
        return new Eam(t);
    }

    /// The prepared tables as a device kernel takes them (`cuda/src/main/cuda/eam.cu`): the grid,
    /// the splines (seven coefficients per point, one flat array per function) and which spline
    /// each role of each element (pair) uses: `frhoOf[e]`, `rhorOf[tj · n + ti]` (summed into
    /// ρ_i), `z2rOf[ti · n + tj]`. Copies.
    ///
    /// @param numbers atomic number of each element, in file order
    public record Tables(int[] numbers, int nrho, int nr, double rdrho, double rdr, double rhomax, double cutoff, double[][] frho,
                         double[][] rhor, double[][] z2r, int[] frhoOf, int[] rhorOf, int[] z2rOf) {
    }

    /// The prepared tables (see `Tables`).
    public Tables tables() {
        int n = t.elements.length;
        int[] frhoOf = new int[n];
        int[] rhorOf = new int[n * n];
        int[] z2rOf = new int[n * n];
        for (int i = 0; i < n; i++) {
            frhoOf[i] = t.frhoOf(i);
            for (int j = 0; j < n; j++) {
                rhorOf[i * n + j] = t.rhorOf(i, j);
                z2rOf[i * n + j] = t.z2rOf(i, j);
            }
        }
        return new Tables(t.numbers.clone(), t.nrho, t.nr, 1.0 / t.drho, 1.0 / t.dr, t.rhomax, t.cut, deep(t.frhoSpline), deep(t.rhorSpline),
                deep(t.z2rSpline), frhoOf, rhorOf, z2rOf);
    }

    private static double[][] deep(double[][] a) {
        double[][] c = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    /// The file's mass of element `symbol` (amu).
    public double mass(String symbol) {
        for (int e = 0; e < t.elements.length; e++) {
            if (t.elements[e].equals(symbol)) {
                return t.masses[e];
            }
        }
        throw new IllegalArgumentException(t.file + " has no element " + symbol + " (it has " + String.join(", ", t.elements) + ")");
    }

    @Override
    public void compute(AtomicSystem s) {
        int n = s.atoms();
        int[] type = species.types(s);
        NeighborList list = lists.current(s, null, 1);
        double[] r = s.positions();
        double[] f = s.forces();
        Arrays.fill(f, 0);
        double[][] work = scratch.get();
        if (work[0].length < n) {
            work[0] = new double[n];
            work[1] = new double[n];
        }
        double[] rho = work[0];
        double[] fp = work[1];
        Arrays.fill(rho, 0, n, 0);
        int[] start = list.start();
        int[] end = list.end();
        int[] second = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double cutsq = t.cut * t.cut;
        double rdr = 1.0 / t.dr;
        double rdrho = 1.0 / t.drho;
        int nr = t.nr;
        // pass 1: densities
        for (int i = 0; i < n; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            int ti = type[i];
            for (int q = start[i]; q < end[i]; q++) {
                int j = second[q];
                int c = 3 * code[q];
                double dx = xi - (r[3 * j] + shift[c]);
                double dy = yi - (r[3 * j + 1] + shift[c + 1]);
                double dz = zi - (r[3 * j + 2] + shift[c + 2]);
                double rsq = dx * dx + dy * dy + dz * dz;
                if (rsq < cutsq) {
                    overlap(s, i, j, rsq);
                    int tj = type[j];
                    double p = Math.sqrt(rsq) * rdr + 1.0;
                    int m = Math.min((int) p, nr - 1);
                    p = Math.min(p - m, 1.0);
                    rho[i] += value(t.rhorSpline[t.rhorOf(tj, ti)], m, p);
                    rho[j] += value(t.rhorSpline[t.rhorOf(ti, tj)], m, p);
                }
            }
        }
        // pass 2: embedding energies and their derivatives
        double energy = 0;
        for (int i = 0; i < n; i++) {
            double p = rho[i] * rdrho + 1.0;
            int m = Math.max(1, Math.min((int) p, t.nrho - 1));
            p = Math.min(p - m, 1.0);
            double[] sp = t.frhoSpline[t.frhoOf(type[i])];
            fp[i] = derivative(sp, m, p);
            double phi = value(sp, m, p);
            if (rho[i] > t.rhomax) {
                phi += fp[i] * (rho[i] - t.rhomax); // beyond the table: linear, as LAMMPS continues it
            }
            energy += phi;
        }
        // pass 3: pair energies, forces and the virial (LAMMPS's ev_tally terms: del ⊗ del · fpair)
        double wxx = 0;
        double wyy = 0;
        double wzz = 0;
        double wxy = 0;
        double wxz = 0;
        double wyz = 0;
        for (int i = 0; i < n; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            int ti = type[i];
            double fxi = 0;
            double fyi = 0;
            double fzi = 0;
            for (int q = start[i]; q < end[i]; q++) {
                int j = second[q];
                int c = 3 * code[q];
                double dx = xi - (r[3 * j] + shift[c]);
                double dy = yi - (r[3 * j + 1] + shift[c + 1]);
                double dz = zi - (r[3 * j + 2] + shift[c + 2]);
                double rsq = dx * dx + dy * dy + dz * dz;
                if (rsq < cutsq) {
                    int tj = type[j];
                    double rij = Math.sqrt(rsq);
                    double p = rij * rdr + 1.0;
                    int m = Math.min((int) p, nr - 1);
                    p = Math.min(p - m, 1.0);
                    double rhoip = derivative(t.rhorSpline[t.rhorOf(ti, tj)], m, p);
                    double rhojp = derivative(t.rhorSpline[t.rhorOf(tj, ti)], m, p);
                    double[] z2 = t.z2rSpline[t.z2rOf(ti, tj)];
                    double z2p = derivative(z2, m, p);
                    double z2v = value(z2, m, p);
                    double recip = 1.0 / rij;
                    double phi = z2v * recip;
                    double phip = z2p * recip - phi * recip;
                    double psip = fp[i] * rhojp + fp[j] * rhoip + phip;
                    double fpair = -psip * recip;
                    fxi += dx * fpair;
                    fyi += dy * fpair;
                    fzi += dz * fpair;
                    f[3 * j] -= dx * fpair;
                    f[3 * j + 1] -= dy * fpair;
                    f[3 * j + 2] -= dz * fpair;
                    energy += phi;
                    wxx += dx * dx * fpair;
                    wyy += dy * dy * fpair;
                    wzz += dz * dz * fpair;
                    wxy += dx * dy * fpair;
                    wxz += dx * dz * fpair;
                    wyz += dy * dz * fpair;
                }
            }
            f[3 * i] += fxi;
            f[3 * i + 1] += fyi;
            f[3 * i + 2] += fzi;
        }
        if (!Double.isFinite(energy)) {
            throw new IllegalStateException("system " + s.id() + ": the EAM energy is " + energy);
        }
        s.energy(energy);
        s.virial(new double[] {wxx, wxy, wxz, wxy, wyy, wyz, wxz, wyz, wzz});
    }

    private static double value(double[] sp, int m, double p) {
        int b = 7 * m;
        return ((sp[b + 3] * p + sp[b + 4]) * p + sp[b + 5]) * p + sp[b + 6];
    }

    private static double derivative(double[] sp, int m, double p) {
        int b = 7 * m;
        return (sp[b] * p + sp[b + 1]) * p + sp[b + 2];
    }

    private static void overlap(AtomicSystem s, int i, int j, double rsq) {
        if (rsq < 1e-6) { // r < 1 mÅ: the tables start at r = 0 but no physics does
            throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = " + Math.sqrt(rsq) + " Å)");
        }
    }

}
