package dev.penstock.atoms.device;

import dev.penstock.atoms.device.RelaxKernels.Pair;
import java.util.Arrays;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// One thread's pair sums for `CpuRelaxKernels.evaluate`: every atom's force and pair-energy sum
/// over the other atoms of one system and their periodic images (`CellImages`), each pair
/// computed once, yet `relax.cu`'s per-atom gather bit for bit. Its arrays grow to the largest
/// system seen and are kept, so a step allocates nothing.
///
/// The gather's order for atom i (`RelaxKernels.STRIPE` = W): first its partners k < i in row
/// order into one running sum; then its m partners k > i, the first W·⌊m/W⌋ of them into W
/// partial sums (partner i + 1 + q into sum q mod W, each started at −0.0), added to the running
/// sum in order 0 … W−1; then the last m mod W partners in row order. A partner's images, where
/// the cell scans them, are added one after the other: ascending for a partner after i,
/// descending for one before it. Here atom j's running sum receives the partners i < j as the
/// outer loop reaches them, then, in row j, its partners k > j in that striped order — the same
/// additions in the same order, each term the same number (the pair's r² is the same both ways,
/// x_i − x_j is exactly −(x_j − x_i), its base and translations are exact negations, so
/// g·(x_i − x_j) is exactly −g·(x_j − x_i)). A pair beyond the cutoff adds −0.0, which leaves
/// every sum as it was (as skipping it does), so no branch is needed.
///
/// Row i is W pairs at a time (the Vector API, `W / L` vectors of `L` lanes: lanewise IEEE
/// operations in the scalar order, no fused multiply-adds): the partners' running sums take
/// their terms at once (one lane per partner) and atom i's W partial sums are lanes too, so no
/// step of the row is serial but the last `m mod W` pairs and the W-term fold.
///
/// A listed system (`PairList`: scanned cells, and large systems) takes its partners from the
/// list instead, in the same order, so with the same sums bit for bit.
///
/// Why one file over 400 lines: its pair loops (all pairs; a list's rows, half or full) share
/// the thread's arrays, the run's constants and the one order of additions each must reproduce
/// bit for bit, and each writes its pair terms out rather than calling a helper that takes
/// vectors (`nearestRows` says why); the lists' builds are `PairListBuilder`.
final class PairGather {
    /// The widest vectors up to `STRIPE` lanes (a 4-lane machine runs each stripe as two).
    private static final VectorSpecies<Double> D =
            DoubleVector.SPECIES_PREFERRED.length() > RelaxKernels.STRIPE ? DoubleVector.SPECIES_512 : DoubleVector.SPECIES_PREFERRED;
    private static final int L = D.length();
    private static final int W = RelaxKernels.STRIPE;
    private static final double SHIFTER = 6755399441055744.0; // 1.5·2^52: x + it − it is rint(x)

    static {
        // Every vector class the loops touch, loaded before any loop is compiled: the JIT
        // compiles a loop's vector and mask calls against the classes loaded so far, and one
        // loaded later (the index gather's IntVector, the exponential's LongVector) threw away the
        // compiled pair loop mid-run (-XX:+PrintCompilation: "marked for deoptimization"; on the
        // README example it ran interpreted for another second).
        double[] a = new double[L];
        int[] index = new int[L];
        DoubleVector v = DoubleVector.fromArray(D, a, 0, index, 0);
        VectorMask<Double> m = v.compare(VectorOperators.LT, 1.0).and(v.abs().compare(VectorOperators.LT, 1.0));
        PortableMath.exp(v.blend(DoubleVector.broadcast(D, -0.0), m)).lanewise(VectorOperators.SQRT).intoArray(a, 0);
    }

    /// The system's cell: its kind (`CellImages`), lattice rows a, b, c (`cell[0 … 8]`),
    /// reciprocal rows (`cell[9 … 17]`) and scanned offsets along a, b, c.
    final double[] cell = new double[18];
    final int[] images = new int[3];
    int kind;
    /// The system's Verlet list where its cell is scanned (null: scan every pair's images).
    PairList list;
    /// Lists this gather built.
    long builds;
    private final PairListBuilder builder = new PairListBuilder();

    private double[] x = new double[0];
    private double[] y = new double[0];
    private double[] z = new double[0];
    private double[] fx = new double[0];
    private double[] fy = new double[0];
    private double[] fz = new double[0];
    private double[] en = new double[0];
    private final double[] px = new double[W]; // atom i's W partial sums (one lane each)
    private final double[] py = new double[W];
    private final double[] pz = new double[W];
    private final double[] pu = new double[W];

    private void fit(int n) {
        if (x.length < n) {
            x = new double[n];
            y = new double[n];
            z = new double[n];
            fx = new double[n];
            fy = new double[n];
            fz = new double[n];
            en = new double[n];
        }
    }

    /// Forces into `f` (3n) and each atom's pair-energy sum (twice its share) into `e` (n) of the
    /// `n` atoms at `r` (3n) in this gather's cell. Returns whether a pair overlaps.
    boolean run(double[] r, int n, Pair pair, double[] f, double[] e) {
        fit(n);
        for (int i = 0; i < n; i++) {
            x[i] = r[3 * i];
            y[i] = r[3 * i + 1];
            z[i] = r[3 * i + 2];
        }
        Arrays.fill(fx, 0, n, 0);
        Arrays.fill(fy, 0, n, 0);
        Arrays.fill(fz, 0, n, 0);
        boolean scan = kind == CellImages.IMAGES;
        constants(pair);
        double self = 0;
        if (scan) {
            double own = selfEnergy();
            self = 0.0 + (own + own); // relax.cu: e = 0; e += t + t
        }
        Arrays.fill(en, 0, n, self);
        if (list != null) {
            double cutoff = Math.sqrt(pair.rc2());
            double halfSkin = 0.5 * cutoff * PairList.SKIN;
            if (list.full || list.stale(r, n, cell, halfSkin * halfSkin)) {
                if (scan) {
                    builder.scan(list, r, x, y, z, n, cell, images, cutoff * (1 + PairList.SKIN));
                } else {
                    builder.binned(list, r, x, y, z, n, cell, kind == CellImages.NEAREST, cutoff * (1 + PairList.SKIN), false);
                }
                builds++;
            }
        } else if (scan) {
            throw new IllegalStateException("a scanned cell's pairs are summed through its Verlet list, and this gather has none");
        }
        boolean overlap = rows(n, pair);
        for (int i = 0; i < n; i++) {
            f[3 * i] = fx[i];
            f[3 * i + 1] = fy[i];
            f[3 * i + 2] = fz[i];
            e[i] = en[i];
        }
        return overlap;
    }

    /// The pair energies of an atom with its own images (the positive offsets, ascending, from
    /// −0.0), as `pairTerm` computes them (one closer than the overlap distance sets `overlapped`).
    private double selfEnergy() {
        double t = -0.0;
        for (int oa = -images[0]; oa <= images[0]; oa++) {
            for (int ob = -images[1]; ob <= images[1]; ob++) {
                for (int oc = -images[2]; oc <= images[2]; oc++) {
                    if (!(oa > 0 || (oa == 0 && (ob > 0 || (ob == 0 && oc > 0))))) {
                        continue;
                    }
                    double dx = (oa * cell[0] + ob * cell[3]) + oc * cell[6];
                    double dy = (oa * cell[1] + ob * cell[4]) + oc * cell[7];
                    double dz = (oa * cell[2] + ob * cell[5]) + oc * cell[8];
                    if (pairTerm(dx * dx + dy * dy + dz * dz)) {
                        t += tu;
                    }
                }
            }
        }
        return t;
    }

    /// How far, in fractional coordinates along the axis of reciprocal row `row`, an image within
    /// the cutoff can lie: cutoff / (face distance), with a margin over rounding. An offset whose
    /// |δ + o| is not below it is skipped: every such image lies beyond the cutoff (|s|·face
    /// distance ≤ |d|), where its terms would be −0.0 and add nothing — so skipping leaves the sums
    /// bit for bit as they were (`relax.cu`'s scan; `PairListBuilder.scan` with the list radius).
    /// A free axis (its row zero) reaches everywhere: δ is 0 there and its one offset is 0. `h`:
    /// the cell rows in `PairGather.cell`'s layout.
    static double reach(double[] h, double rc2, int row) {
        double norm2 = h[row] * h[row] + h[row + 1] * h[row + 1] + h[row + 2] * h[row + 2];
        return norm2 == 0 ? Double.POSITIVE_INFINITY : Math.sqrt(rc2) * Math.sqrt(norm2) * (1 + 1e-9);
    }

    // the pair potential and the cell of the current run, as the loops read them
    private double rc2;
    private double od2;
    private double shift;
    private boolean morse;
    private double eps4; // Lennard-Jones: 4ε, σ²
    private double sigma2;
    private double depth; // Morse: D, a, r0, and 2·D·a as Morse.derivative multiplies them
    private double stiffness;
    private double r0;
    private double twoDa;
    private boolean overlapped;

    /// The rows without a scan (a free system or the nearest image): each partner's one
    /// separation. The pair terms are written out here and in `scanStripes`/`term`, not shared:
    /// a helper taking vectors is past the JIT's inlining size, and vectors passed to a call that
    /// is not inlined are boxed (it ran 2× slower); and this loop, kept whole, runs 20–30% faster
    /// than the same split into per-row calls (`bench inflight`, 2026-12-01).
    private boolean nearestRows(int n, Pair pair) {
        double[] x = this.x;
        double[] y = this.y;
        double[] z = this.z;
        double[] fx = this.fx;
        double[] fy = this.fy;
        double[] fz = this.fz;
        double[] en = this.en;
        double[] px = this.px;
        double[] py = this.py;
        double[] pz = this.pz;
        double[] pu = this.pu;
        double rc2 = pair.rc2();
        double od2 = pair.od2();
        double shift = pair.shift();
        boolean morse = pair.kind() == Pair.MORSE;
        double eps4 = pair.a(); // Lennard-Jones: 4ε, σ²
        double sigma2 = pair.b();
        double depth = pair.a(); // Morse: D, a, r0, and 2·D·a as Morse.derivative multiplies them
        double stiffness = pair.b();
        double r0 = pair.c();
        double twoDa = 2 * depth * stiffness;
        DoubleVector none = DoubleVector.broadcast(D, -0.0);
        DoubleVector one = DoubleVector.broadcast(D, 1);
        // the nearest image along a periodic axis: d − L·rint(d / L), rint by adding and taking away
        // 1.5·2^52 (0 along a free axis: d − 0·0 = d exactly); relax.cu wraps the same way
        boolean periodic = kind == CellImages.NEAREST;
        double lx = periodic ? cell[0] : 0;
        double ly = periodic ? cell[4] : 0;
        double lz = periodic ? cell[8] : 0;
        double ilx = lx == 0 ? 0 : 1 / lx;
        double ily = ly == 0 ? 0 : 1 / ly;
        double ilz = lz == 0 ? 0 : 1 / lz;
        VectorMask<Double> overlaps = D.maskAll(false);
        boolean overlap = false;
        for (int i = 0; i < n; i++) {
            double xi = x[i];
            double yi = y[i];
            double zi = z[i];
            DoubleVector vxi = DoubleVector.broadcast(D, xi);
            DoubleVector vyi = DoubleVector.broadcast(D, yi);
            DoubleVector vzi = DoubleVector.broadcast(D, zi);
            int m = n - 1 - i;
            int striped = i + 1 + m - m % W;
            for (int v = 0; v < W; v += L) {
                none.intoArray(px, v);
                none.intoArray(py, v);
                none.intoArray(pz, v);
                none.intoArray(pu, v);
            }
            for (int c = i + 1; c < striped; c += W) {
                for (int v = 0; v < W; v += L) {
                    int j = c + v;
                    DoubleVector dx = DoubleVector.fromArray(D, x, j).sub(vxi);
                    DoubleVector dy = DoubleVector.fromArray(D, y, j).sub(vyi);
                    DoubleVector dz = DoubleVector.fromArray(D, z, j).sub(vzi);
                    if (periodic) {
                        dx = dx.sub(dx.mul(ilx).add(SHIFTER).sub(SHIFTER).mul(lx));
                        dy = dy.sub(dy.mul(ily).add(SHIFTER).sub(SHIFTER).mul(ly));
                        dz = dz.sub(dz.mul(ilz).add(SHIFTER).sub(SHIFTER).mul(lz));
                    }
                    DoubleVector r2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz));
                    VectorMask<Double> in = r2.compare(VectorOperators.LT, rc2);
                    overlaps = overlaps.or(r2.compare(VectorOperators.LT, od2).and(in));
                    DoubleVector g;
                    DoubleVector u;
                    if (morse) { // Morse.derivative(r) / r and Morse.energy(r), the exponential PortableMath's
                        DoubleVector dist = r2.lanewise(VectorOperators.SQRT);
                        DoubleVector e = PortableMath.exp(dist.sub(r0).mul(-stiffness));
                        DoubleVector q = one.sub(e);
                        g = q.mul(twoDa).mul(e).div(dist);
                        u = none.blend(q.mul(q).sub(1).mul(depth).sub(shift), in);
                    } else {
                        DoubleVector inv2 = one.div(r2);
                        DoubleVector s2 = inv2.mul(sigma2);
                        DoubleVector s6 = s2.mul(s2).mul(s2);
                        g = s6.mul(-12).mul(s6).add(s6.mul(6)).mul(eps4).mul(inv2);
                        u = none.blend(s6.mul(s6).sub(s6).mul(eps4).sub(shift), in);
                    }
                    DoubleVector.fromArray(D, pu, v).add(u).intoArray(pu, v);
                    DoubleVector.fromArray(D, px, v).add(none.blend(g.mul(dx), in)).intoArray(px, v);
                    DoubleVector.fromArray(D, py, v).add(none.blend(g.mul(dy), in)).intoArray(py, v);
                    DoubleVector.fromArray(D, pz, v).add(none.blend(g.mul(dz), in)).intoArray(pz, v);
                    DoubleVector.fromArray(D, en, j).add(u).intoArray(en, j);
                    DoubleVector.fromArray(D, fx, j).add(none.blend(g.mul(dx.neg()), in)).intoArray(fx, j);
                    DoubleVector.fromArray(D, fy, j).add(none.blend(g.mul(dy.neg()), in)).intoArray(fy, j);
                    DoubleVector.fromArray(D, fz, j).add(none.blend(g.mul(dz.neg()), in)).intoArray(fz, j);
                }
            }
            double sx = fx[i];
            double sy = fy[i];
            double sz = fz[i];
            double se = en[i];
            if (striped > i + 1) {
                for (int q = 0; q < W; q++) {
                    sx += px[q];
                    sy += py[q];
                    sz += pz[q];
                    se += pu[q];
                }
            }
            for (int j = striped; j < n; j++) {
                double dx = x[j] - xi;
                double dy = y[j] - yi;
                double dz = z[j] - zi;
                if (periodic) {
                    dx = dx - lx * ((dx * ilx + SHIFTER) - SHIFTER);
                    dy = dy - ly * ((dy * ily + SHIFTER) - SHIFTER);
                    dz = dz - lz * ((dz * ilz + SHIFTER) - SHIFTER);
                }
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) {
                    continue;
                }
                overlap |= r2 < od2;
                double g;
                double u;
                if (morse) {
                    double dist = Math.sqrt(r2);
                    double e = PortableMath.exp(-stiffness * (dist - r0));
                    double q = 1 - e;
                    g = twoDa * q * e / dist;
                    u = depth * (q * q - 1) - shift;
                } else {
                    double inv2 = 1 / r2;
                    double s2 = sigma2 * inv2;
                    double s6 = s2 * s2 * s2;
                    g = eps4 * (-12 * s6 * s6 + 6 * s6) * inv2;
                    u = eps4 * (s6 * s6 - s6) - shift;
                }
                se += u;
                sx += g * dx;
                sy += g * dy;
                sz += g * dz;
                en[j] += u;
                fx[j] += g * -dx;
                fy[j] += g * -dy;
                fz[j] += g * -dz;
            }
            fx[i] = sx;
            fy[i] = sy;
            fz[i] = sz;
            en[i] = se;
        }
        return overlap || overlaps.anyTrue();
    }

    /// Sets the run's constants from `pair` and this gather's cell.
    private void constants(Pair pair) {
        rc2 = pair.rc2();
        od2 = pair.od2();
        shift = pair.shift();
        morse = pair.kind() == Pair.MORSE;
        eps4 = pair.a();
        sigma2 = pair.b();
        depth = pair.a();
        stiffness = pair.b();
        r0 = pair.c();
        twoDa = 2 * depth * stiffness;
        overlapped = false;
    }

    /// The rows: `listRows` for a listed system (every scanned cell has a list), else
    /// `nearestRows`.
    private boolean rows(int n, Pair pair) {
        return list != null ? listRows(n, list) : nearestRows(n, pair);
    }

    private double tg; // pairTerm's g and u
    private double tu;

    /// A pair's g (the force over the separation) and energy at r² into `tg` and `tu`, as the
    /// vector loops compute them; false (nothing to add) beyond the cutoff.
    private boolean pairTerm(double r2) {
        if (r2 >= rc2) {
            return false;
        }
        overlapped |= r2 < od2;
        if (morse) {
            double dist = Math.sqrt(r2);
            double ex = PortableMath.exp(-stiffness * (dist - r0));
            double q = 1 - ex;
            tg = twoDa * q * ex / dist;
            tu = depth * (q * q - 1) - shift;
        } else {
            double inv2 = 1 / r2;
            double s2 = sigma2 * inv2;
            double s6 = s2 * s2 * s2;
            tg = eps4 * (-12 * s6 * s6 + 6 * s6) * inv2;
            tu = eps4 * (s6 * s6 - s6) - shift;
        }
        return true;
    }

    /// Row i's terms with its list entries `[first, end)` into `termX` … `termU` (entry e at
    /// e − first; −0.0 beyond the cutoff): `L` entries at a time, the partners' coordinates
    /// gathered by index, the last ones one by one as the lanes compute them; each separation as
    /// the evaluation takes it (a scanned cell's listed image, a cell's nearest image, or the
    /// atoms' difference). Returns whether one of these pairs overlaps.
    private boolean rowTerms(PairList list, int i, int first, int end) {
        double[] h = cell;
        int[] partner = list.partner;
        double[] la = list.na;
        double[] lb = list.nb;
        double[] lc = list.nc;
        double rc2 = this.rc2;
        double od2 = this.od2;
        double shift = this.shift;
        boolean morse = this.morse;
        double eps4 = this.eps4;
        double sigma2 = this.sigma2;
        double depth = this.depth;
        double stiffness = this.stiffness;
        double r0 = this.r0;
        double twoDa = this.twoDa;
        boolean scan = kind == CellImages.IMAGES;
        boolean nearest = kind == CellImages.NEAREST;
        double lx = nearest ? h[0] : 0;
        double ly = nearest ? h[4] : 0;
        double lz = nearest ? h[8] : 0;
        double ilx = lx == 0 ? 0 : 1 / lx;
        double ily = ly == 0 ? 0 : 1 / ly;
        double ilz = lz == 0 ? 0 : 1 / lz;
        DoubleVector none = DoubleVector.broadcast(D, -0.0);
        DoubleVector one = DoubleVector.broadcast(D, 1);
        VectorMask<Double> overlaps = D.maskAll(false);
        int count = end - first;
        if (termX.length < count + L) {
            termX = new double[count + L];
            termY = new double[count + L];
            termZ = new double[count + L];
            termU = new double[count + L];
        }
        DoubleVector vxi = DoubleVector.broadcast(D, x[i]);
        DoubleVector vyi = DoubleVector.broadcast(D, y[i]);
        DoubleVector vzi = DoubleVector.broadcast(D, z[i]);
        int e = first;
        for (; e + L <= end; e += L) {
            DoubleVector dx = DoubleVector.fromArray(D, x, 0, partner, e).sub(vxi);
            DoubleVector dy = DoubleVector.fromArray(D, y, 0, partner, e).sub(vyi);
            DoubleVector dz = DoubleVector.fromArray(D, z, 0, partner, e).sub(vzi);
            if (scan) { // the listed image's translation (a list without a scan keeps no images)
                DoubleVector na = DoubleVector.fromArray(D, la, e);
                DoubleVector nb = DoubleVector.fromArray(D, lb, e);
                DoubleVector nc = DoubleVector.fromArray(D, lc, e);
                dx = dx.add(na.mul(h[0]).add(nb.mul(h[3])).add(nc.mul(h[6])));
                dy = dy.add(na.mul(h[1]).add(nb.mul(h[4])).add(nc.mul(h[7])));
                dz = dz.add(na.mul(h[2]).add(nb.mul(h[5])).add(nc.mul(h[8])));
            } else if (nearest) { // nearestRows' nearest image
                dx = dx.sub(dx.mul(ilx).add(SHIFTER).sub(SHIFTER).mul(lx));
                dy = dy.sub(dy.mul(ily).add(SHIFTER).sub(SHIFTER).mul(ly));
                dz = dz.sub(dz.mul(ilz).add(SHIFTER).sub(SHIFTER).mul(lz));
            }
            DoubleVector r2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz));
            VectorMask<Double> in = r2.compare(VectorOperators.LT, rc2);
            overlaps = overlaps.or(r2.compare(VectorOperators.LT, od2).and(in));
            DoubleVector g;
            DoubleVector u;
            if (morse) {
                DoubleVector dist = r2.lanewise(VectorOperators.SQRT);
                DoubleVector ex = PortableMath.exp(dist.sub(r0).mul(-stiffness));
                DoubleVector q = one.sub(ex);
                g = q.mul(twoDa).mul(ex).div(dist);
                u = none.blend(q.mul(q).sub(1).mul(depth).sub(shift), in);
            } else {
                DoubleVector inv2 = one.div(r2);
                DoubleVector s2 = inv2.mul(sigma2);
                DoubleVector s6 = s2.mul(s2).mul(s2);
                g = s6.mul(-12).mul(s6).add(s6.mul(6)).mul(eps4).mul(inv2);
                u = none.blend(s6.mul(s6).sub(s6).mul(eps4).sub(shift), in);
            }
            int o = e - first;
            u.intoArray(termU, o);
            none.blend(g.mul(dx), in).intoArray(termX, o);
            none.blend(g.mul(dy), in).intoArray(termY, o);
            none.blend(g.mul(dz), in).intoArray(termZ, o);
        }
        for (; e < end; e++) { // the last entries one by one, as the lanes compute them
            int j = partner[e];
            double dx = x[j] - x[i];
            double dy = y[j] - y[i];
            double dz = z[j] - z[i];
            if (scan) {
                dx = dx + ((la[e] * h[0] + lb[e] * h[3]) + lc[e] * h[6]);
                dy = dy + ((la[e] * h[1] + lb[e] * h[4]) + lc[e] * h[7]);
                dz = dz + ((la[e] * h[2] + lb[e] * h[5]) + lc[e] * h[8]);
            } else if (nearest) {
                dx = dx - lx * ((dx * ilx + SHIFTER) - SHIFTER);
                dy = dy - ly * ((dy * ily + SHIFTER) - SHIFTER);
                dz = dz - lz * ((dz * ilz + SHIFTER) - SHIFTER);
            }
            int o = e - first;
            if (pairTerm(dx * dx + dy * dy + dz * dz)) {
                termU[o] = tu;
                termX[o] = tg * dx;
                termY[o] = tg * dy;
                termZ[o] = tg * dz;
            } else {
                termU[o] = -0.0;
                termX[o] = -0.0;
                termY[o] = -0.0;
                termZ[o] = -0.0;
            }
        }
        return overlaps.anyTrue();
    }

    /// The rows of a listed system: row i's entries in list order, those with j in the stripes
    /// into partial sum (j − i − 1) mod W, the rest into the running sum after the fold — the
    /// scan's additions in the scan's order, without the pairs the list left out (all beyond
    /// the cutoff, where the scan adds nothing). Each row's terms are computed `L` entries at a
    /// time (the partners' coordinates gathered by index), then added in list order.
    private boolean listRows(int n, PairList list) {
        int[] start = list.start;
        int[] partner = list.partner;
        boolean overlap = false;
        for (int i = 0; i < n; i++) {
            int first = start[i];
            int end = start[i + 1];
            overlap |= rowTerms(list, i, first, end);
            // the additions, in list order: a term beyond the cutoff is −0.0 and changes no sum
            for (int q = 0; q < W; q++) {
                px[q] = -0.0;
                py[q] = -0.0;
                pz[q] = -0.0;
                pu[q] = -0.0;
            }
            int m = n - 1 - i;
            int striped = i + 1 + m - m % W;
            int e = first;
            for (; e < end && partner[e] < striped; e++) {
                int j = partner[e];
                int q = (j - i - 1) & (W - 1); // (j − i − 1) mod W: j > i, W a power of two
                int o = e - first;
                pu[q] += termU[o];
                px[q] += termX[o];
                py[q] += termY[o];
                pz[q] += termZ[o];
                en[j] += termU[o];
                fx[j] += -termX[o];
                fy[j] += -termY[o];
                fz[j] += -termZ[o];
            }
            double sx = fx[i];
            double sy = fy[i];
            double sz = fz[i];
            double se = en[i];
            if (striped > i + 1) {
                for (int q = 0; q < W; q++) {
                    sx += px[q];
                    sy += py[q];
                    sz += pz[q];
                    se += pu[q];
                }
            }
            for (; e < end; e++) {
                int j = partner[e];
                int o = e - first;
                se += termU[o];
                sx += termX[o];
                sy += termY[o];
                sz += termZ[o];
                en[j] += termU[o];
                fx[j] += -termX[o];
                fy[j] += -termY[o];
                fz[j] += -termZ[o];
            }
            fx[i] = sx;
            fy[i] = sy;
            fz[i] = sz;
            en[i] = se;
        }
        return overlapped || overlap;
    }

    /// Takes the `n` atoms at `r` and `pair` for `fullRows` (its cell and kind set, no scan),
    /// building `list` as a full list first where `build` and it is stale; every thread's gather
    /// over one large system loads it, one of them (before the others start) builds.
    void load(double[] r, int n, Pair pair, boolean build) {
        fit(n);
        for (int i = 0; i < n; i++) {
            x[i] = r[3 * i];
            y[i] = r[3 * i + 1];
            z[i] = r[3 * i + 2];
        }
        constants(pair);
        if (build) {
            double cutoff = Math.sqrt(pair.rc2());
            double halfSkin = 0.5 * cutoff * PairList.SKIN;
            if (!list.full || list.stale(r, n, cell, halfSkin * halfSkin)) {
                builder.binned(list, r, x, y, z, n, cell, kind == CellImages.NEAREST, cutoff * (1 + PairList.SKIN), true);
                builds++;
            }
        }
    }

    /// Forces and pair-energy sums (twice the share) of atoms `[from, to)` of the loaded system
    /// into `f` (3 per atom) and `e`, at their own rows, from its full list: each atom gathers its
    /// own terms (its partners before it, then the striped ones after it, the fold, the rest) in
    /// the half loop's order — a partner k before it gave it g·(r_k − r_i) there too, the same
    /// number, as r_k − r_i is exactly −(r_i − r_k) and the nearest image of a negation is the
    /// negation of the nearest image — so `run`'s sums bit for bit, whatever the split. Returns
    /// whether a pair of these atoms overlaps.
    boolean fullRows(int from, int to, double[] f, double[] e) {
        int[] start = list.start;
        int[] partner = list.partner;
        int n = list.atoms;
        boolean overlap = false;
        overlapped = false;
        for (int i = from; i < to; i++) {
            int first = start[i];
            int end = start[i + 1];
            overlap |= rowTerms(list, i, first, end);
            // the half loop's order: the running sums from +0.0 over the partners before i, then
            // the striped partners' W partial sums from −0.0 folded in, then the rest
            double sx = 0;
            double sy = 0;
            double sz = 0;
            double se = 0;
            int t = first;
            for (; t < end && partner[t] < i; t++) {
                int o = t - first;
                sx += termX[o];
                sy += termY[o];
                sz += termZ[o];
                se += termU[o];
            }
            int m = n - 1 - i;
            int striped = i + 1 + m - m % W;
            for (int q = 0; q < W; q++) {
                px[q] = -0.0;
                py[q] = -0.0;
                pz[q] = -0.0;
                pu[q] = -0.0;
            }
            for (; t < end && partner[t] < striped; t++) {
                int q = (partner[t] - i - 1) & (W - 1);
                int o = t - first;
                px[q] += termX[o];
                py[q] += termY[o];
                pz[q] += termZ[o];
                pu[q] += termU[o];
            }
            if (striped > i + 1) {
                for (int q = 0; q < W; q++) {
                    sx += px[q];
                    sy += py[q];
                    sz += pz[q];
                    se += pu[q];
                }
            }
            for (; t < end; t++) {
                int o = t - first;
                sx += termX[o];
                sy += termY[o];
                sz += termZ[o];
                se += termU[o];
            }
            f[3 * i] = sx;
            f[3 * i + 1] = sy;
            f[3 * i + 2] = sz;
            e[i] = se;
        }
        return overlapped || overlap;
    }

    // a listed row's terms, by entry: g·d (x, y, z) and the pair energy, −0.0 beyond the cutoff
    private double[] termX = new double[0];
    private double[] termY = new double[0];
    private double[] termZ = new double[0];
    private double[] termU = new double[0];
}
