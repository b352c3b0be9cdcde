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
    private short[] imageCode = new short[64];
    private int[] start = new int[1];
    private int[] end = new int[1];
    private int imageRange;       // image counts per axis lie in [-imageRange, imageRange]
    private double[] imageShift = new double[3]; // table: code -> (sx, sy, sz)
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
        imageRange = 1;
        for (int d = 0; d < 3; d++) {
            if (s.periodic(d)) {
                imageRange = Math.max(imageRange, (int) Math.ceil(rl / box[d]) + 1);
            }
        }
        int side = 2 * imageRange + 1;
        imageShift = new double[3 * side * side * side];
        for (int a = -imageRange; a <= imageRange; a++) {
            for (int b = -imageRange; b <= imageRange; b++) {
                for (int c = -imageRange; c <= imageRange; c++) {
                    int code = ((a + imageRange) * side + (b + imageRange)) * side + (c + imageRange);
                    imageShift[3 * code] = a * box[0];
                    imageShift[3 * code + 1] = b * box[1];
                    imageShift[3 * code + 2] = c * box[2];
                }
            }
        }
        this.box = box;
        if (start.length < s.atoms() + 1) {
            start = new int[s.atoms() + 1];
            end = new int[s.atoms() + 1];
        }
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
            start[i] = pairs;
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
            end[i] = pairs;
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
        // Counting sort of the atoms by cell: each cell's atoms (and their wrapped coordinates)
        // lie contiguously, so scanning a neighbour cell streams memory instead of chasing a
        // linked list through random atoms (the list version spent ~3 µs per atom on misses).
        int[] cellOf = new int[3 * n];
        int[] image = new int[3 * n]; // how many boxes each atom sits away from the primary box
        int[] cell = new int[n];
        int[] cellStart = new int[cellsTotal + 1];
        for (int i = 0; i < n; i++) {
            int c = 0;
            for (int d = 0; d < 3; d++) {
                double x = r[3 * i + d] - lo[d];
                if (s.periodic(d)) {
                    int img = (int) Math.floor(x / len[d]);
                    image[3 * i + d] = img;
                    x -= img * len[d];
                }
                int k = Math.min(nc[d] - 1, Math.max(0, (int) (x / len[d] * nc[d])));
                cellOf[3 * i + d] = k;
                c = c * nc[d] + k;
            }
            cell[i] = c;
            cellStart[c + 1]++;
        }
        for (int c = 0; c < cellsTotal; c++) {
            cellStart[c + 1] += cellStart[c];
        }
        int[] fill = Arrays.copyOf(cellStart, cellsTotal);
        int[] sorted = new int[n];
        double[] wx = new double[n];
        double[] wy = new double[n];
        double[] wz = new double[n];
        for (int i = 0; i < n; i++) {
            int q = fill[cell[i]]++;
            sorted[q] = i;
            wx[q] = r[3 * i] - image[3 * i] * box[0];
            wy[q] = r[3 * i + 1] - image[3 * i + 1] * box[1];
            wz[q] = r[3 * i + 2] - image[3 * i + 2] * box[2];
        }
        double rl2 = rl * rl;
        // Half stencil: each atom meets the later atoms of its own cell and every atom of the 13
        // "forward" neighbour cells, so each pair is found once with no i < j test. Atoms are
        // visited in cell order; their pairs stay contiguous (start/end per atom).
        for (int qi = 0; qi < n; qi++) {
            int i = sorted[qi];
            int ci = cellOf[3 * i];
            int cj = cellOf[3 * i + 1];
            int ck = cellOf[3 * i + 2];
            double xi = wx[qi];
            double yi = wy[qi];
            double zi = wz[qi];
            start[i] = pairs;
            for (int o = 0; o < 14; o++) {
                int a = HALF[3 * o];
                int b = HALF[3 * o + 1];
                int c = HALF[3 * o + 2];
                int x = wrap(ci + a, nc[0], s.periodic(0));
                int y = wrap(cj + b, nc[1], s.periodic(1));
                int z = wrap(ck + c, nc[2], s.periodic(2));
                if (x < 0 || y < 0 || z < 0) {
                    continue;
                }
                double ox = Math.floorDiv(ci + a, nc[0]) * box[0]; // crossing the edge: one box
                double oy = Math.floorDiv(cj + b, nc[1]) * box[1];
                double oz = Math.floorDiv(ck + c, nc[2]) * box[2];
                int cc = (x * nc[1] + y) * nc[2] + z;
                for (int q = o == 0 ? qi + 1 : cellStart[cc]; q < cellStart[cc + 1]; q++) {
                    double dx = wx[q] + ox - xi;
                    double dy = wy[q] + oy - yi;
                    double dz = wz[q] + oz - zi;
                    if (dx * dx + dy * dy + dz * dz < rl2) {
                        int j = sorted[q];
                        // the shift that turns the stored positions into this separation
                        add(i, j, dx - (r[3 * j] - r[3 * i]), dy - (r[3 * j + 1] - r[3 * i + 1]),
                                dz - (r[3 * j + 2] - r[3 * i + 2]));
                    }
                }
            }
            end[i] = pairs;
        }
    }

    /// The own cell (first) and the 13 neighbour offsets lexicographically after (0, 0, 0).
    private static final int[] HALF = {
        0, 0, 0,
        0, 0, 1,
        0, 1, -1, 0, 1, 0, 0, 1, 1,
        1, -1, -1, 1, -1, 0, 1, -1, 1, 1, 0, -1, 1, 0, 0, 1, 0, 1, 1, 1, -1, 1, 1, 0, 1, 1, 1,
    };

    private static int wrap(int k, int n, boolean periodic) {
        if (k >= 0 && k < n) {
            return k;
        }
        return periodic ? Math.floorMod(k, n) : -1;
    }

    private double[] box = new double[3];

    private void add(int i, int j, double sx, double sy, double sz) {
        if (pairs == first.length) {
            first = Arrays.copyOf(first, 2 * pairs);
            second = Arrays.copyOf(second, 2 * pairs);
            shifts = Arrays.copyOf(shifts, 6 * pairs);
            imageCode = Arrays.copyOf(imageCode, 2 * pairs);
        }
        int side = 2 * imageRange + 1;
        int a = box[0] > 0 ? (int) Math.rint(sx / box[0]) : 0;
        int b = box[1] > 0 ? (int) Math.rint(sy / box[1]) : 0;
        int c = box[2] > 0 ? (int) Math.rint(sz / box[2]) : 0;
        imageCode[pairs] = (short) (((a + imageRange) * side + (b + imageRange)) * side + (c + imageRange));
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

    /// Where each atom's pairs begin: atom i's pairs are `[start()[i], end()[i])`, each with `i`
    /// as its first atom (a pair is listed once, under one of its two atoms).
    public int[] start() {
        return start;
    }

    /// Where each atom's pairs end (exclusive).
    public int[] end() {
        return end;
    }

    /// Image code per pair, an index into `imageShifts()` (3 doubles per code).
    public short[] imageCodes() {
        return imageCode;
    }

    /// The shift vector of every image code.
    public double[] imageShifts() {
        return imageShift;
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
