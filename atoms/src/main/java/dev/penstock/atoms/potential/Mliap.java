package dev.penstock.atoms.potential;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/// ML-IAP as LAMMPS's `pair_style mliap model linear|quadratic|nn MODEL descriptor sna DESCRIPTOR`
/// computes it: each atom's SNAP bispectrum (`Bispectrum`, the settings of a `*.mliap.descriptor`
/// file: `rcutfac`, `twojmax`, `nelems`, `elems`, `radelems`, `welems`, `rfac0`, `rmin0`,
/// `bzeroflag`, `switchflag`, `chemflag`, `bnormflag`, `wselfallflag`) fed to a model of it —
/// linear, quadratic, or a neural network (`*.mliap.model` with a `NET` line: layers of
/// `linear`, `sigmoid`, `tanh` or `relu` nodes, each descriptor first shifted and scaled) — whose
/// gradient dE/dB gives the forces through the descriptor's derivatives. Energies, forces and the
/// virial in metal units.
///
/// Threading: different systems may be computed at once from different threads.
public final class Mliap extends DescriptorModel {
    /// How the model maps descriptors to an energy.
    enum Kind { LINEAR, QUADRATIC, NN }

    private final Kind kind;
    private final double[][] coeff; // per element
    private final int ndescriptors;
    private final int[] nodes; // per layer (nn)
    private final int[] activation; // 0 linear, 1 sigmoid, 2 tanh, 3 relu
    private final double[][][] scale; // per element: shift, scale (nn)
    private final Path modelFile;

    private Mliap(Species species, double cutoff, Bispectrum.Params params, double[] radius, double[] weight, Kind kind, double[][] coeff,
                  int ndescriptors, int[] nodes, int[] activation, double[][][] scale, Path modelFile) {
        super(species, cutoff, params, radius, weight);
        this.kind = kind;
        this.coeff = coeff;
        this.ndescriptors = ndescriptors;
        this.nodes = nodes;
        this.activation = activation;
        this.scale = scale;
        this.modelFile = modelFile;
    }

    /// A model of the same files for another worker.
    public Mliap fresh() {
        return new Mliap(species, cutoff(), params, radius, weight, kind, coeff, ndescriptors, nodes, activation, scale, modelFile);
    }

    private static String[] words(String line) {
        return Bispectrum.words(line);
    }

    /// ML-IAP of `kind` ("linear", "quadratic" or "nn") with `modelFile` over the SNAP
    /// descriptor of `descriptorFile`; a malformed file fails naming it and the line.
    public static Mliap read(String kind, Path modelFile, Path descriptorFile) throws IOException {
        Kind k = switch (kind) {
            case "linear" -> Kind.LINEAR;
            case "quadratic" -> Kind.QUADRATIC;
            case "nn" -> Kind.NN;
            default -> throw new IllegalArgumentException("mliap: model '" + kind + "' is not one Penstock runs (linear, quadratic, nn)");
        };
        // the descriptor
        Bispectrum.Settings set = new Bispectrum.Settings();
        String[] elems = null;
        double[] radius = null;
        double[] weight = null;
        List<String> dl = PotentialFiles.lines(descriptorFile, "ML-IAP descriptor");
        for (int ln = 0; ln < dl.size(); ln++) {
            String[] w = words(dl.get(ln));
            if (w.length == 0) {
                continue;
            }
            try {
                switch (w[0]) {
                    case "nelems" -> Integer.parseInt(w[1]);
                    case "elems" -> elems = java.util.Arrays.copyOfRange(w, 1, w.length);
                    case "radelems" -> radius = numbers(w);
                    case "welems" -> weight = numbers(w);
                    case "quadraticflag" -> throw new IllegalArgumentException(descriptorFile + ", line " + (ln + 1)
                            + ": quadraticflag belongs to the model (model quadratic), not the descriptor");
                    default -> {
                        if (!set.set(w[0], w[1])) {
                            throw new IllegalArgumentException(descriptorFile + ", line " + (ln + 1) + ": unknown keyword '" + w[0] + "'");
                        }
                    }
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IllegalArgumentException(descriptorFile + ", line " + (ln + 1) + ": '" + dl.get(ln).strip() + "' is not 'keyword value'");
            }
        }
        set.quadratic = k == Kind.QUADRATIC;
        Bispectrum.Params p = set.params(descriptorFile);
        if (elems == null || radius == null || weight == null || radius.length != elems.length || weight.length != elems.length) {
            throw new IllegalArgumentException(descriptorFile + ": elems, radelems and welems (one per element) are required");
        }
        int twojmax = p.twojmax();
        boolean chem = p.chem();
        double rcutfac = p.rcutfac();
        int nel = elems.length;
        int nd = Bispectrum.coefficients(twojmax) * (chem ? nel * nel * nel : 1);
        // the model
        List<String> ml = PotentialFiles.lines(modelFile, "ML-IAP model");
        List<double[]> numbersRead = new ArrayList<>();
        int[] nodes = null;
        int[] act = null;
        int nelements = -1;
        int nparams = -1;
        for (int ln = 0; ln < ml.size(); ln++) {
            String[] w = words(ml.get(ln));
            if (w.length == 0) {
                continue;
            }
            if (nelements < 0) {
                if (w.length != 2) {
                    throw new IllegalArgumentException(modelFile + ", line " + (ln + 1) + ": expected 'nelements nparams'");
                }
                nelements = Integer.parseInt(w[0]);
                nparams = Integer.parseInt(w[1]);
                continue;
            }
            if (w[0].equals("NET")) {
                if (k != Kind.NN || Integer.parseInt(w[1]) != nd) {
                    throw new IllegalArgumentException(modelFile + ", line " + (ln + 1) + ": a NET line needs model nn and " + nd
                            + " descriptors");
                }
                int layers = Integer.parseInt(w[2]);
                nodes = new int[layers];
                act = new int[layers];
                for (int l = 0; l < layers; l++) {
                    act[l] = switch (w[3 + 2 * l]) {
                        case "linear" -> 0;
                        case "sigmoid" -> 1;
                        case "tanh" -> 2;
                        case "relu" -> 3;
                        default -> throw new IllegalArgumentException(modelFile + ", line " + (ln + 1) + ": activation '" + w[3 + 2 * l]
                                + "' is not one Penstock runs (linear, sigmoid, tanh, relu)");
                    };
                    nodes[l] = Integer.parseInt(w[4 + 2 * l]);
                }
                continue;
            }
            try {
                numbersRead.add(numbers(w, 0));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(modelFile + ", line " + (ln + 1) + ": '" + ml.get(ln).strip() + "' is not numbers");
            }
        }
        if (nelements != nel) {
            throw new IllegalArgumentException(modelFile + ": " + nelements + " elements, the descriptor " + descriptorFile.getFileName() + " has "
                    + nel);
        }
        double[] all = numbersRead.stream().flatMapToDouble(java.util.Arrays::stream).toArray();
        double[][] coeff = new double[nel][];
        double[][][] scale = null;
        int at = 0;
        if (k == Kind.NN) {
            if (nodes == null) {
                throw new IllegalArgumentException(modelFile + ": model nn needs a NET line");
            }
            scale = new double[nel][2][];
            for (int e = 0; e < nel; e++) {
                scale[e][0] = java.util.Arrays.copyOfRange(all, at, at + nd);
                at += nd;
                scale[e][1] = java.util.Arrays.copyOfRange(all, at, at + nd);
                at += nd;
                coeff[e] = java.util.Arrays.copyOfRange(all, at, at + nparams);
                at += nparams;
            }
        } else {
            int expected = k == Kind.QUADRATIC ? 1 + nd + nd * (nd + 1) / 2 : 1 + nd;
            if (nparams != expected) {
                throw new IllegalArgumentException(modelFile + ": " + nparams + " parameters per element, a " + kind + " model of " + nd
                        + " descriptors has " + expected);
            }
            for (int e = 0; e < nel; e++) {
                coeff[e] = java.util.Arrays.copyOfRange(all, at, at + nparams);
                at += nparams;
            }
        }
        if (at != all.length) {
            throw new IllegalArgumentException(modelFile + ": " + all.length + " numbers, the model needs " + at);
        }
        double cutoff = 0;
        for (double r : radius) {
            cutoff = Math.max(cutoff, 2 * r * rcutfac);
        }
        return new Mliap(Species.of(descriptorFile, elems), cutoff, p, radius, weight, k, coeff, nd, nodes, act, scale, modelFile);
    }

    private static double[] numbers(String[] w) {
        return numbers(w, 1);
    }

    private static double[] numbers(String[] w, int from) {
        double[] v = new double[w.length - from];
        for (int q = from; q < w.length; q++) {
            v[q - from] = Double.parseDouble(w[q]);
        }
        return v;
    }

    @Override
    public Tables tables() {
        int k = switch (kind) {
            case LINEAR -> Tables.LINEAR;
            case QUADRATIC -> Tables.QUADRATIC;
            case NN -> Tables.NN;
        };
        return tables(k, true, coeff, nodes, activation, scale);
    }

    @Override
    double energy(int ti, double[] b, double[] g) {
        return kind == Kind.NN ? network(ti, b, g) : Bispectrum.linear(coeff[ti], ndescriptors, kind == Kind.QUADRATIC, b, g);
    }

    @Override
    int descriptors() {
        return ndescriptors;
    }

    @Override
    boolean inside(int ti, int tj, double rsq) {
        double cut = ti == tj ? 2.0 * radius[ti] * params.rcutfac() : (radius[ti] + radius[tj]) * params.rcutfac();
        return rsq < cut * cut;
    }

    @Override
    double rcut(int ti, int tj) {
        double cut = ti == tj ? 2.0 * radius[ti] * params.rcutfac() : (radius[ti] + radius[tj]) * params.rcutfac();
        return Math.sqrt(cut * cut); // LAMMPS's: √cutsq
    }

    /// The network's energy of descriptors `d` for element `ti`, its gradient dE/dB into `g`
    /// (back-propagated through the layers, then through the descriptors' scaling).
    private double network(int ti, double[] d, double[] g) {
        double[] c = coeff[ti];
        double[] shift = scale[ti][0];
        double[] div = scale[ti][1];
        int nl = nodes.length;
        double[][] out = new double[nl][];
        double[][] deriv = new double[nl][];
        for (int l = 0; l < nl; l++) {
            out[l] = new double[nodes[l]];
            deriv[l] = new double[nodes[l]];
        }
        int nd = ndescriptors;
        for (int m = 0; m < nodes[0]; m++) {
            double sum = 0;
            for (int q = 0; q < nd; q++) {
                sum += c[m * (nd + 1) + q + 1] * (d[q] - shift[q]) / div[q];
            }
            out[0][m] = activate(activation[0], sum, c[m * (nd + 1)], deriv[0], m);
        }
        int k = 0;
        if (nl > 1) {
            k += (nd + 1) * nodes[0];
            for (int l = 1; l < nl; l++) {
                for (int m = 0; m < nodes[l]; m++) {
                    double sum = 0;
                    for (int j = 0; j < nodes[l - 1]; j++) {
                        sum += c[k + m * (nodes[l - 1] + 1) + j + 1] * out[l - 1][j];
                    }
                    out[l][m] = activate(activation[l], sum, c[k + m * (nodes[l - 1] + 1)], deriv[l], m);
                }
                k += (nodes[l - 1] + 1) * nodes[l];
            }
        }
        double[][] back = new double[nl][];
        for (int l = 0; l < nl; l++) {
            back[l] = new double[nodes[l]];
        }
        for (int m = 0; m < nodes[nl - 1]; m++) {
            back[nl - 1][m] = activation[nl - 1] == 0 ? 1 : deriv[nl - 1][m];
        }
        for (int l = nl - 1; l > 0; l--) {
            k -= (nodes[l - 1] + 1) * nodes[l];
            for (int m = 0; m < nodes[l - 1]; m++) {
                double sum = 0;
                for (int j = 0; j < nodes[l]; j++) {
                    sum += c[k + j * (nodes[l - 1] + 1) + m + 1] * back[l][j];
                }
                back[l - 1][m] = activation[l - 1] >= 1 ? sum * deriv[l - 1][m] : sum;
            }
        }
        for (int q = 0; q < nd; q++) {
            double sum = 0;
            for (int j = 0; j < nodes[0]; j++) {
                sum += c[j * (nd + 1) + q + 1] * back[0][j];
            }
            g[q] = sum / div[q];
        }
        return out[nl - 1][0];
    }

    /// A node's value from its weighted sum `x` and bias `bias` (LAMMPS's forms: tanh as
    /// 2/(1 + e^{−2x}) − 1), its derivative into `deriv[m]`.
    private static double activate(int kind, double x, double bias, double[] deriv, int m) {
        switch (kind) {
            case 1 -> {
                double v = 1. / (1. + Math.exp(-(x + bias)));
                deriv[m] = v * (1 - v);
                return v;
            }
            case 2 -> {
                double v = 2. / (1. + Math.exp(-2. * (x + bias))) - 1;
                deriv[m] = 1. - v * v;
                return v;
            }
            case 3 -> {
                double y = x + bias;
                deriv[m] = y > 0 ? 1. : 0.;
                return y > 0 ? y : 0.;
            }
            default -> {
                deriv[m] = 1;
                return x + bias;
            }
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "mliap(model=%s)", modelFile.getFileName());
    }
}
