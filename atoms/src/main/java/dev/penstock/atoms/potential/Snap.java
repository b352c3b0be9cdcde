package dev.penstock.atoms.potential;

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
public final class Snap extends DescriptorModel {
    private final double[][] coeff; // per element: β0, the linear coefficients, then the quadratic ones
    private final int ncoeff;

    private Snap(Species species, double cutoff, Bispectrum.Params params, double[] radius, double[] weight, double[][] coeff, int ncoeff) {
        super(species, cutoff, params, radius, weight);
        this.coeff = coeff;
        this.ncoeff = ncoeff;
    }

    /// A SNAP model from LAMMPS's `coeffFile` (`*.snapcoeff`) and `paramFile` (`*.snapparam`),
    /// over all of the coefficient file's elements; a malformed file fails naming it and the line.
    public static Snap read(Path coeffFile, Path paramFile) throws IOException {
        Bispectrum.Settings set = new Bispectrum.Settings();
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
                if (!set.set(w[0], w[1])) {
                    throw new IllegalArgumentException(paramFile + ", line " + (ln + 1) + ": unknown SNAP keyword '" + w[0] + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(paramFile + ", line " + (ln + 1) + ": '" + w[1] + "' is not a number for " + w[0]);
            }
        }
        Bispectrum.Params p = set.params(paramFile);
        int twojmax = p.twojmax();
        boolean quadratic = p.quadratic();
        boolean chem = p.chem();
        double rcutfac = p.rcutfac();
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
            try {
                radius[e] = Double.parseDouble(w[1]);
                weight[e] = Double.parseDouble(w[2]);
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException(coeffFile + ", line " + (at + 1) + ": expected 'element radius weight', got '"
                        + clines.get(at).strip() + "'");
            }
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
        return Bispectrum.words(line);
    }

    /// A model of the same file for another worker (its own lists and scratch).
    public Snap fresh() {
        return new Snap(species, cutoff(), params, radius, weight, coeff, ncoeff);
    }

    @Override
    public Tables tables() {
        return tables(params.quadratic() ? Tables.QUADRATIC : Tables.LINEAR, false, coeff, null, null, null);
    }

    @Override
    double energy(int ti, double[] b, double[] g) {
        return Bispectrum.linear(coeff[ti], ncoeff, params.quadratic(), b, g);
    }

    @Override
    int descriptors() {
        return ncoeff;
    }

    @Override
    boolean inside(int ti, int tj, double rsq) {
        double rc = rcut(ti, tj);
        return rsq < rc * rc && rsq > 1e-20;
    }

    @Override
    double rcut(int ti, int tj) {
        return (radius[ti] + radius[tj]) * params.rcutfac();
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "snap(coeff=%s)", species.file().getFileName());
    }
}
