package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/// SNAP, the spectral neighbour analysis potential, as LAMMPS's `pair_style snap` computes it:
/// each atom's energy is a linear (or quadratic) function of its bispectrum components B_k — the
/// 4-D hyperspherical harmonic expansion of its neighbour density within (R_i + R_j)·rcutfac,
/// each neighbour weighted by its element's weight and a cosine switch — and the forces are that
/// energy's exact derivative (`Bispectrum`). Read from a LAMMPS `*.snapcoeff` file (elements,
/// their radius and weight, the coefficients) and `*.snapparam` file (`rcutfac`, `twojmax`,
/// `rfac0`, `rmin0`, `switchflag`, `bzeroflag`, `quadraticflag`, `chemflag`, `bnormflag`,
/// `wselfallflag`, with LAMMPS's defaults). Energies, forces and the virial in metal units.
///
/// Threading: different systems may be computed at once from different threads.
public final class Snap extends FileModel {
    private final Bispectrum.Params params;
    private final double[] radius;
    private final double[] weight;
    private final double[][] coeff; // per element: β0, the linear coefficients, then the quadratic ones
    private final int ncoeff;
    private final ThreadLocal<Bispectrum> scratch;

    private Snap(Species species, double cutoff, Bispectrum.Params params, double[] radius, double[] weight, double[][] coeff, int ncoeff) {
        super(species, cutoff);
        this.params = params;
        this.radius = radius;
        this.weight = weight;
        this.coeff = coeff;
        this.ncoeff = ncoeff;
        this.scratch = ThreadLocal.withInitial(() -> new Bispectrum(params, species.symbols().length));
    }

    /// A SNAP model from LAMMPS's `coeffFile` (`*.snapcoeff`) and `paramFile` (`*.snapparam`),
    /// over all of the coefficient file's elements; a malformed file fails naming it and the line.
    public static Snap read(Path coeffFile, Path paramFile) throws IOException {
        double rcutfac = Double.NaN;
        int twojmax = -1;
        double rfac0 = 0.99363;
        double rmin0 = 0;
        boolean switchFlag = true;
        boolean bzeroFlag = true;
        boolean quadratic = false;
        boolean chem = false;
        boolean bnorm = false;
        boolean wselfall = false;
        List<String> plines = PotentialFiles.lines(paramFile, "SNAP parameter");
        for (int ln = 0; ln < plines.size(); ln++) {
            String[] w = words(plines.get(ln));
            if (w.length == 0) {
                continue;
            }
            if (w.length != 2) {
                throw new IllegalArgumentException(paramFile + ", line " + (ln + 1) + ": expected 'keyword value', got '" + plines.get(ln).strip()
                        + "'");
            }
            try {
                switch (w[0]) {
                    case "rcutfac" -> rcutfac = Double.parseDouble(w[1]);
                    case "twojmax" -> twojmax = Integer.parseInt(w[1]);
                    case "rfac0" -> rfac0 = Double.parseDouble(w[1]);
                    case "rmin0" -> rmin0 = Double.parseDouble(w[1]);
                    case "switchflag" -> switchFlag = Integer.parseInt(w[1]) != 0;
                    case "bzeroflag" -> bzeroFlag = Integer.parseInt(w[1]) != 0;
                    case "quadraticflag" -> quadratic = Integer.parseInt(w[1]) != 0;
                    case "chemflag" -> chem = Integer.parseInt(w[1]) != 0;
                    case "bnormflag" -> bnorm = Integer.parseInt(w[1]) != 0;
                    case "wselfallflag" -> wselfall = Integer.parseInt(w[1]) != 0;
                    default -> throw new IllegalArgumentException(paramFile + ", line " + (ln + 1) + ": unknown SNAP keyword '" + w[0] + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(paramFile + ", line " + (ln + 1) + ": '" + w[1] + "' is not a number for " + w[0]);
            }
        }
        if (Double.isNaN(rcutfac) || twojmax < 0) {
            throw new IllegalArgumentException(paramFile + ": rcutfac and twojmax are required");
        }
        List<String> clines = PotentialFiles.lines(coeffFile, "SNAP coefficient");
        int at = 0;
        String[] head = null;
        while (at < clines.size() && (head = words(clines.get(at))).length == 0) {
            at++;
        }
        if (head == null || head.length != 2) {
            throw new IllegalArgumentException(coeffFile + ": expected 'nelements ncoeff' first");
        }
        int nelements;
        int ncoeffAll;
        try {
            nelements = Integer.parseInt(head[0]);
            ncoeffAll = Integer.parseInt(head[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(coeffFile + ", line " + (at + 1) + ": expected 'nelements ncoeff', got '" + clines.get(at).strip()
                    + "'");
        }
        at++;
        Bispectrum.Params p = new Bispectrum.Params(twojmax, rfac0, rmin0, switchFlag, bzeroFlag, chem, bnorm, wselfall, rcutfac, quadratic);
        int ncoeff = Bispectrum.coefficients(twojmax) * (chem ? nelements * nelements * nelements : 1);
        int expected = quadratic ? 1 + ncoeff + ncoeff * (ncoeff + 1) / 2 : 1 + ncoeff;
        if (ncoeffAll != expected) {
            throw new IllegalArgumentException(coeffFile + ": " + ncoeffAll + " coefficients per element, but twojmax " + twojmax
                    + (quadratic ? " (quadratic)" : "") + (chem ? " with chemflag" : "") + " needs " + expected);
        }
        String[] symbols = new String[nelements];
        double[] radius = new double[nelements];
        double[] weight = new double[nelements];
        double[][] coeff = new double[nelements][ncoeffAll];
        for (int e = 0; e < nelements; e++) {
            String[] w;
            while ((w = words(clines.get(at))).length == 0) {
                at++;
            }
            if (w.length != 3) {
                throw new IllegalArgumentException(coeffFile + ", line " + (at + 1) + ": expected 'element radius weight', got '"
                        + clines.get(at).strip() + "'");
            }
            symbols[e] = w[0];
            radius[e] = Double.parseDouble(w[1]);
            weight[e] = Double.parseDouble(w[2]);
            at++;
            for (int k = 0; k < ncoeffAll; k++) {
                while (at < clines.size() && words(clines.get(at)).length == 0) {
                    at++;
                }
                if (at >= clines.size()) {
                    throw new IllegalArgumentException(coeffFile + ": ends after " + k + " of element " + symbols[e] + "'s " + ncoeffAll
                            + " coefficients");
                }
                try {
                    coeff[e][k] = Double.parseDouble(words(clines.get(at))[0]);
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(coeffFile + ", line " + (at + 1) + ": '" + clines.get(at).strip() + "' is not a number");
                }
                at++;
            }
        }
        double cutoff = 0;
        for (double r : radius) {
            cutoff = Math.max(cutoff, 2 * r * rcutfac);
        }
        return new Snap(Species.of(coeffFile, symbols), cutoff, p, radius, weight, coeff, ncoeff);
    }

    private static String[] words(String line) {
        int hash = line.indexOf('#');
        String t = (hash < 0 ? line : line.substring(0, hash)).strip();
        return t.isEmpty() ? new String[0] : t.split("\\s+");
    }

    /// A model of the same file for another worker (its own lists and scratch).
    public Snap fresh() {
        return new Snap(species, cutoff(), params, radius, weight, coeff, ncoeff);
    }

    @Override
    public void compute(AtomicSystem s, Crew crew) {
        int n = s.atoms();
        int[] type = species.types(s);
        double[] r = s.positions();
        double[] f = s.forces();
        java.util.Arrays.fill(f, 0);
        FullLists.Full fl = full.of(s, crew);
        Bispectrum b = scratch.get();
        double rcutfac = params.rcutfac();
        double e = 0;
        double[] w = new double[9];
        double[] fij = new double[3];
        for (int i = 0; i < n; i++) {
            int ti = type[i];
            b.clear();
            for (int q = fl.start()[i]; q < fl.start()[i + 1]; q++) {
                int j = fl.nbr()[q];
                double dx = r[3 * j] + fl.shift()[3 * q] - r[3 * i]; // LAMMPS's rij = x_j − x_i
                double dy = r[3 * j + 1] + fl.shift()[3 * q + 1] - r[3 * i + 1];
                double dz = r[3 * j + 2] + fl.shift()[3 * q + 2] - r[3 * i + 2];
                double rsq = dx * dx + dy * dy + dz * dz;
                int tj = type[j];
                double rc = (radius[ti] + radius[tj]) * rcutfac;
                if (rsq < rc * rc && rsq > 1e-20) {
                    b.add(dx, dy, dz, weight[tj], rc, tj, j);
                }
            }
            b.compute(ti, coeff[ti], ncoeff);
            double ei = b.energy();
            if (!Double.isFinite(ei)) {
                throw new IllegalStateException("system " + s.id() + ": atom " + i + "'s SNAP energy is " + ei);
            }
            e += ei;
            for (int k = 0; k < b.neighbours(); k++) {
                b.force(k, fij);
                int j = b.atom(k);
                f[3 * i] += fij[0];
                f[3 * i + 1] += fij[1];
                f[3 * i + 2] += fij[2];
                f[3 * j] -= fij[0];
                f[3 * j + 1] -= fij[1];
                f[3 * j + 2] -= fij[2];
                double[] d = {-b.rx(k), -b.ry(k), -b.rz(k)}; // x_i − x_j, as LAMMPS tallies it
                for (int a = 0; a < 3; a++) {
                    for (int c = 0; c < 3; c++) {
                        w[3 * a + c] += d[a] * fij[c];
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
    public String toString() {
        return String.format(Locale.ROOT, "snap(coeff=%s)", species.file().getFileName());
    }
}
