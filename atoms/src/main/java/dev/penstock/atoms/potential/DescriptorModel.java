package dev.penstock.atoms.potential;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;

/// What SNAP and ML-IAP share: each atom's SNAP descriptors over its neighbours (`Bispectrum`),
/// a model of them giving the atom's energy and its gradient dE/dB, and the forces and virial
/// from that gradient. A system of 128 atoms or more is computed in parts (fixed by its size,
/// `parts`: each atom's terms into its part's own arrays, summed in part order) on the crew: the
/// same bits on any number of threads.
///
/// Threading: different systems may be computed at once from different threads.
public abstract sealed class DescriptorModel extends FileModel permits Snap, Mliap {
    final Bispectrum.Params params;
    final double[] radius;
    final double[] weight;
    private final ThreadLocal<Bispectrum> scratch;

    DescriptorModel(Species species, double cutoff, Bispectrum.Params params, double[] radius, double[] weight) {
        super(species, cutoff);
        this.params = params;
        this.radius = radius;
        this.weight = weight;
        this.scratch = ThreadLocal.withInitial(() -> new Bispectrum(params, species.symbols().length));
    }

    /// Parts of 64 atoms or more, at most 16, a power of two: an atom's descriptors cost ~100
    /// times a pair potential's terms, so a system of a few hundred atoms is worth sharing out.
    @Override
    public int parts(int atoms) {
        int k = atoms / 64;
        return k < 2 ? 1 : Math.min(16, Integer.highestOneBit(k));
    }

    /// ~100 times a many-body model's: an atom's descriptors and their derivatives cost ~70 µs
    /// (twojmax 6, 14 neighbours, this project's machine), EAM's terms well under one.
    @Override
    public long termsPerAtom() {
        return 10_000;
    }

    /// Runs a large system's parts on `n` threads (1, the default: the caller alone); the numbers
    /// do not depend on it. Returns this.
    public DescriptorModel threads(int n) {
        split(n, "penstock-descriptors");
        return this;
    }

    /// The energy of an atom of element `ti` with descriptors `b`, its gradient dE/dB into `g`.
    abstract double energy(int ti, double[] b, double[] g);

    /// The number of descriptors (the gradient's length).
    abstract int descriptors();

    /// The squared cutoff of a pair of elements, and whether a pair at `rsq` is inside it (LAMMPS's
    /// `pair_style snap` and `mliap` test slightly differently).
    abstract boolean inside(int ti, int tj, double rsq);

    /// The cutoff of a pair of elements handed to the descriptor (its switching function).
    abstract double rcut(int ti, int tj);

    /// What a device needs to evaluate this model over a batch (the CUDA kernels of `snap.cu`): the
    /// descriptor's settings and flat index tables (`Bispectrum.indexTable`, `constantTable`), and
    /// the model over the descriptors.
    ///
    /// @param numbers            the model's elements' atomic numbers, in its order (an atom's type)
    /// @param cutoff             the largest pair cutoff (Å)
    /// @param flags              `SWITCH`, `BZERO`, `CHEM`, `BNORM`, `WSELFALL`, `MLIAP_CUT` (ML-IAP's pair cutoff test)
    /// @param descriptorElements the descriptor's elements (the model's with chemflag, else 1)
    /// @param descriptors        the descriptors per atom (the model's inputs)
    /// @param kind               `LINEAR`, `QUADRATIC` or `NN`
    /// @param coeff              each element's coefficients, `coeffStride` apart (nn: each node's bias, then its weights)
    /// @param nodes              nn: each layer's nodes (else empty)
    /// @param activation         nn: each layer's activation (0 linear, 1 sigmoid, 2 tanh, 3 relu)
    /// @param scale              nn: each element's descriptor shifts, then divisors (2 · `descriptors` apart)
    public record Tables(int[] numbers, double cutoff, int twojmax, int idxuMax, int idxzMax, int idxbMax, int descriptorElements, int flags,
                         double rfac0, double rmin0, double rcutfac, double[] radius, double[] weight, int[] index, double[] constants,
                         int descriptors, int kind, double[] coeff, int coeffStride, int[] nodes, int[] activation, double[] scale) {
        public static final int SWITCH = 1;
        public static final int BZERO = 2;
        public static final int CHEM = 4;
        public static final int BNORM = 8;
        public static final int WSELFALL = 16;
        public static final int MLIAP_CUT = 32;
        public static final int LINEAR = 0;
        public static final int QUADRATIC = 1;
        public static final int NN = 2;
    }

    /// The model's device tables.
    public abstract Tables tables();

    /// The tables of this descriptor under a model of `kind` with per-element rows `coeff` (and
    /// for nn its layers and scaling; else empty arrays).
    final Tables tables(int kind, boolean mliapCut, double[][] coeff, int[] nodes, int[] activation, double[][][] scale) {
        Bispectrum b = new Bispectrum(params, species.symbols().length);
        int flags = (params.switchFlag() ? Tables.SWITCH : 0) | (params.bzeroFlag() ? Tables.BZERO : 0) | (params.chem() ? Tables.CHEM : 0)
                | (params.bnorm() ? Tables.BNORM : 0) | (params.wselfall() ? Tables.WSELFALL : 0) | (mliapCut ? Tables.MLIAP_CUT : 0);
        int stride = coeff[0].length;
        double[] flat = new double[coeff.length * stride];
        for (int e = 0; e < coeff.length; e++) {
            System.arraycopy(coeff[e], 0, flat, e * stride, stride);
        }
        int nd = descriptors();
        double[] sc = new double[scale == null ? 0 : coeff.length * 2 * nd];
        for (int e = 0; scale != null && e < coeff.length; e++) {
            System.arraycopy(scale[e][0], 0, sc, 2 * e * nd, nd);
            System.arraycopy(scale[e][1], 0, sc, (2 * e + 1) * nd, nd);
        }
        return new Tables(species.numbers().clone(), cutoff(), params.twojmax(), b.idxuMax(), b.idxzMax(), b.idxbMax(), b.elements(), flags,
                params.rfac0(), params.rmin0(), params.rcutfac(), radius.clone(), weight.clone(), b.indexTable(), b.constantTable(), nd, kind,
                flat, stride, nodes == null ? new int[0] : nodes.clone(), activation == null ? new int[0] : activation.clone(), sc);
    }

    @Override
    public void compute(AtomicSystem s, Crew crew) {
        int n = s.atoms();
        int[] type = species.types(s);
        FullLists.Full fl = full.of(s, crew);
        int k = parts(n);
        double[] f = s.forces();
        if (k == 1) {
            double[] w = new double[9];
            java.util.Arrays.fill(f, 0);
            double e = rows(s, fl, type, 0, n, f, w);
            finish(s, e, w);
            return;
        }
        double[][] forces = new double[k][3 * n];
        double[][] virials = new double[k][9];
        double[] energies = new double[k];
        RowParts.run(crew, k, p -> energies[p] = rows(s, fl, type, RowParts.from(n, p, k), RowParts.from(n, p + 1, k), forces[p], virials[p]));
        java.util.Arrays.fill(f, 0);
        double e = 0;
        double[] w = new double[9];
        for (int p = 0; p < k; p++) { // in part order: the same sums on any thread count
            for (int q = 0; q < 3 * n; q++) {
                f[q] += forces[p][q];
            }
            for (int q = 0; q < 9; q++) {
                w[q] += virials[p][q];
            }
            e += energies[p];
        }
        finish(s, e, w);
    }

    private static void finish(AtomicSystem s, double e, double[] w) {
        if (!Double.isFinite(e)) {
            throw new IllegalStateException("system " + s.id() + ": the energy is " + e);
        }
        s.energy(e);
        s.virial(w);
    }

    /// Atoms `[from, to)`: their energies' sum (returned), their pair forces into `f` (i's and
    /// its neighbours'), the virial into `w`.
    private double rows(AtomicSystem s, FullLists.Full fl, int[] type, int from, int to, double[] f, double[] w) {
        double[] r = s.positions();
        Bispectrum b = scratch.get();
        double[] g = new double[descriptors()];
        double[] fij = new double[3];
        double e = 0;
        for (int i = from; i < to; i++) {
            int ti = type[i];
            b.clear();
            for (int q = fl.start()[i]; q < fl.start()[i + 1]; q++) {
                int j = fl.nbr()[q];
                double dx = r[3 * j] + fl.shift()[3 * q] - r[3 * i]; // LAMMPS's rij = x_j − x_i
                double dy = r[3 * j + 1] + fl.shift()[3 * q + 1] - r[3 * i + 1];
                double dz = r[3 * j + 2] + fl.shift()[3 * q + 2] - r[3 * i + 2];
                int tj = type[j];
                if (inside(ti, tj, dx * dx + dy * dy + dz * dz)) {
                    b.add(dx, dy, dz, weight[tj], rcut(ti, tj), tj, j);
                }
            }
            double ei = energy(ti, b.descriptors(ti), g);
            if (!Double.isFinite(ei)) {
                throw new IllegalStateException("system " + s.id() + ": atom " + i + "'s energy is " + ei);
            }
            b.gradient(g, ei);
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
                double dx = -b.rx(k); // x_i − x_j, as LAMMPS tallies it
                double dy = -b.ry(k);
                double dz = -b.rz(k);
                w[0] += dx * fij[0];
                w[1] += dx * fij[1];
                w[2] += dx * fij[2];
                w[3] += dy * fij[0];
                w[4] += dy * fij[1];
                w[5] += dy * fij[2];
                w[6] += dz * fij[0];
                w[7] += dz * fij[1];
                w[8] += dz * fij[2];
            }
        }
        return e;
    }
}
