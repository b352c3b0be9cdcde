package dev.penstock.atoms.neighbor;

import dev.penstock.atoms.system.AtomicSystem;
import java.util.Arrays;

/// A half neighbour list (each pair once) with a skin: pairs closer than `cutoff + skin` at the
/// last build, each with the periodic image shift that brings atom j next to atom i.
///
/// Rebuild rule: rebuild when any atom has moved more than `skin / 2` since the last build.
/// Two atoms can then have closed in by at most `skin`, so a pair inside `cutoff` now was inside
/// `cutoff + skin` at the build: no pair is ever missed.
///
/// Building: cell lists (cells of at least `cutoff + skin`, 27 neighbouring cells, periodic
/// wrap-around) when every periodic axis is at least three cells long; otherwise an all-pairs
/// search over the needed periodic images (small boxes, and the reference the tests use).
public final class NeighborList {
    private final double cutoff;
    private final double skin;
    private int pairs;
    private int[] first = new int[64];
    private int[] second = new int[64];
    private double[] shifts = new double[192];
    private double[] builtAt = new double[0];
    private long builds;

    /// A list for interactions up to `cutoff`, built with `skin` to spare.
    public NeighborList(double cutoff, double skin) {
        if (!(cutoff > 0) || Double.isInfinite(cutoff)) {
            throw new IllegalArgumentException("neighbour list: 'cutoff' must be positive and finite, got " + cutoff);
        }
        if (!(skin >= 0)) {
            throw new IllegalArgumentException("neighbour list: 'skin' must be non-negative, got " + skin);
        }
        this.cutoff = cutoff;
        this.skin = skin;
    }

    /// Rebuilds if the rule says so (or on first use); returns whether it rebuilt.
    public boolean update(AtomicSystem s) {
        double[] r = s.positions();
        if (builtAt.length == r.length && maxDisplacement(r) <= skin / 2) {
            return false;
        }
        build(s);
        return true;
    }

    private double maxDisplacement(double[] r) {
        double max = 0;
        for (int i = 0; i < r.length; i += 3) {
            double dx = r[i] - builtAt[i];
            double dy = r[i + 1] - builtAt[i + 1];
            double dz = r[i + 2] - builtAt[i + 2];
            max = Math.max(max, dx * dx + dy * dy + dz * dz);
        }
        return Math.sqrt(max);
    }

    /// Builds the list now.
    public void build(AtomicSystem s) {
        pairs = 0;
        double rl = cutoff + skin;
        double[] box = s.box();
        boolean cells = s.atoms() > 64;
        for (int d = 0; d < 3 && cells; d++) {
            cells = !s.periodic(d) || box[d] >= 3 * rl;
        }
        if (cells) {
            buildCells(s, rl, box);
        } else {
            buildAllPairs(s, rl, box);
        }
        builtAt = s.positions().clone();
        builds++;
    }

    private void buildAllPairs(AtomicSystem s, double rl, double[] box) {
        double[] r = s.positions();
        int n = s.atoms();
        int[] images = new int[3];
        for (int d = 0; d < 3; d++) {
            images[d] = s.periodic(d) ? (int) Math.ceil(rl / box[d]) : 0;
        }
        double rl2 = rl * rl;
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                double dx = r[3 * j] - r[3 * i];
                double dy = r[3 * j + 1] - r[3 * i + 1];
                double dz = r[3 * j + 2] - r[3 * i + 2];
                // bring j to the image nearest i first, then scan the images around it
                double bx = s.periodic(0) ? -box[0] * Math.rint(dx / box[0]) : 0;
                double by = s.periodic(1) ? -box[1] * Math.rint(dy / box[1]) : 0;
                double bz = s.periodic(2) ? -box[2] * Math.rint(dz / box[2]) : 0;
                for (int a = -images[0]; a <= images[0]; a++) {
                    for (int b = -images[1]; b <= images[1]; b++) {
                        for (int c = -images[2]; c <= images[2]; c++) {
                            double sx = bx + a * box[0];
                            double sy = by + b * box[1];
                            double sz = bz + c * box[2];
                            if (i == j && !positiveImage(sx, sy, sz)) {
                                continue; // an atom's own images: count each ± pair once
                            }
                            double x = dx + sx;
                            double y = dy + sy;
                            double z = dz + sz;
                            if (x * x + y * y + z * z < rl2) {
                                add(i, j, sx, sy, sz);
                            }
                        }
                    }
                }
            }
        }
    }

    private static boolean positiveImage(double sx, double sy, double sz) {
        return sx > 0 || (sx == 0 && (sy > 0 || (sy == 0 && sz > 0)));
    }

    private void buildCells(AtomicSystem s, double rl, double[] box) {
        double[] r = s.positions();
        int n = s.atoms();
        double[] lo = new double[3];
        double[] len = new double[3];
        int[] nc = new int[3];
        for (int d = 0; d < 3; d++) {
            if (s.periodic(d)) {
                lo[d] = 0;
                len[d] = box[d];
            } else {
                double mn = Double.POSITIVE_INFINITY;
                double mx = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    mn = Math.min(mn, r[3 * i + d]);
                    mx = Math.max(mx, r[3 * i + d]);
                }
                lo[d] = mn;
                len[d] = Math.max(mx - mn, 1e-9);
            }
            nc[d] = Math.max(1, (int) Math.floor(len[d] / rl));
            if (!s.periodic(d)) {
                nc[d] = Math.max(1, nc[d]);
            }
        }
        int cellsTotal = nc[0] * nc[1] * nc[2];
        int[] head = new int[cellsTotal];
        Arrays.fill(head, -1);
        int[] next = new int[n];
        int[] cellOf = new int[3 * n];
        for (int i = 0; i < n; i++) {
            int c = 0;
            for (int d = 0; d < 3; d++) {
                double x = r[3 * i + d] - lo[d];
                if (s.periodic(d)) {
                    x -= len[d] * Math.floor(x / len[d]);
                }
                int k = Math.min(nc[d] - 1, Math.max(0, (int) (x / len[d] * nc[d])));
                cellOf[3 * i + d] = k;
                c = c * nc[d] + k;
            }
            next[i] = head[c];
            head[c] = i;
        }
        double rl2 = rl * rl;
        for (int i = 0; i < n; i++) {
            int ci = cellOf[3 * i];
            int cj = cellOf[3 * i + 1];
            int ck = cellOf[3 * i + 2];
            for (int a = -1; a <= 1; a++) {
                int x = wrap(ci + a, nc[0], s.periodic(0));
                for (int b = -1; b <= 1; b++) {
                    int y = wrap(cj + b, nc[1], s.periodic(1));
                    for (int c = -1; c <= 1; c++) {
                        int z = wrap(ck + c, nc[2], s.periodic(2));
                        if (x < 0 || y < 0 || z < 0) {
                            continue;
                        }
                        for (int j = head[(x * nc[1] + y) * nc[2] + z]; j >= 0; j = next[j]) {
                            if (j <= i) {
                                continue;
                            }
                            double dx = r[3 * j] - r[3 * i];
                            double dy = r[3 * j + 1] - r[3 * i + 1];
                            double dz = r[3 * j + 2] - r[3 * i + 2];
                            double sx = s.periodic(0) ? -box[0] * Math.rint(dx / box[0]) : 0;
                            double sy = s.periodic(1) ? -box[1] * Math.rint(dy / box[1]) : 0;
                            double sz = s.periodic(2) ? -box[2] * Math.rint(dz / box[2]) : 0;
                            dx += sx;
                            dy += sy;
                            dz += sz;
                            if (dx * dx + dy * dy + dz * dz < rl2) {
                                add(i, j, sx, sy, sz);
                            }
                        }
                    }
                }
            }
        }
    }

    private static int wrap(int k, int n, boolean periodic) {
        if (k >= 0 && k < n) {
            return k;
        }
        return periodic ? Math.floorMod(k, n) : -1;
    }

    private void add(int i, int j, double sx, double sy, double sz) {
        if (pairs == first.length) {
            first = Arrays.copyOf(first, 2 * pairs);
            second = Arrays.copyOf(second, 2 * pairs);
            shifts = Arrays.copyOf(shifts, 6 * pairs);
        }
        first[pairs] = i;
        second[pairs] = j;
        shifts[3 * pairs] = sx;
        shifts[3 * pairs + 1] = sy;
        shifts[3 * pairs + 2] = sz;
        pairs++;
    }

    /// Pairs in the list.
    public int pairCount() {
        return pairs;
    }

    /// First atoms of the pairs (live array, `pairCount()` valid entries).
    public int[] first() {
        return first;
    }

    /// Second atoms of the pairs.
    public int[] second() {
        return second;
    }

    /// Image shifts (Å, 3 per pair): r_j + shift − r_i is the pair's separation.
    public double[] shifts() {
        return shifts;
    }

    /// Builds so far.
    public long builds() {
        return builds;
    }

    /// The interaction cutoff.
    public double cutoff() {
        return cutoff;
    }
}
