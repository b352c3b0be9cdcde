package dev.penstock.atoms.device;

import java.util.Arrays;

/// Builds `PairList`s for `PairGather` (one per gather, so per thread): by a scan of every pair's
/// images for a scanned cell, or from bins for a large free system or nearest-image cell. Its
/// arrays grow to the largest system seen and are kept.
final class PairListBuilder {
    private static final double SHIFTER = 6755399441055744.0; // 1.5·2^52: x + it − it is rint(x)

    /// Builds `list` for the `n` atoms at `r` (also as `x`, `y`, `z`) in the scanned cell `cell`
    /// (`PairGather.cell`'s layout): every partner j > i and image within the list radius `rl`,
    /// in the scan's order, over the offsets that radius can reach.
    void scan(PairList list, double[] r, double[] x, double[] y, double[] z, int n, double[] cell, int[] images, double rl) {
        double[] h = cell;
        double rl2 = rl * rl;
        for (int d = 0; d < 3; d++) {
            reachL[d] = PairGather.reach(cell, rl2, 9 + 3 * d);
            double norm2 = h[9 + 3 * d] * h[9 + 3 * d] + h[10 + 3 * d] * h[10 + 3 * d] + h[11 + 3 * d] * h[11 + 3 * d];
            imagesL[d] = norm2 == 0 ? 0 : (int) Math.floor(rl * Math.sqrt(norm2) * (1 + 1e-12) + 0.5);
        }
        list.begin(r, n, cell);
        list.full = false;
        for (int i = 0; i < n; i++) {
            list.start[i] = list.size;
            for (int j = i + 1; j < n; j++) {
                double dx0 = x[j] - x[i];
                double dy0 = y[j] - y[i];
                double dz0 = z[j] - z[i];
                double sa = dx0 * h[9] + dy0 * h[10] + dz0 * h[11];
                double sb = dx0 * h[12] + dy0 * h[13] + dz0 * h[14];
                double sc = dx0 * h[15] + dy0 * h[16] + dz0 * h[17];
                double ba = -((sa + SHIFTER) - SHIFTER);
                double bb = -((sb + SHIFTER) - SHIFTER);
                double bc = -((sc + SHIFTER) - SHIFTER);
                for (int oa = -imagesL[0]; oa <= imagesL[0]; oa++) {
                    if (!(Math.abs(sa + ba + oa) < reachL[0])) {
                        continue;
                    }
                    for (int ob = -imagesL[1]; ob <= imagesL[1]; ob++) {
                        if (!(Math.abs(sb + bb + ob) < reachL[1])) {
                            continue;
                        }
                        for (int oc = -imagesL[2]; oc <= imagesL[2]; oc++) {
                            if (!(Math.abs(sc + bc + oc) < reachL[2])) {
                                continue;
                            }
                            double na = ba + oa;
                            double nb = bb + ob;
                            double nc = bc + oc;
                            double dx = dx0 + ((na * h[0] + nb * h[3]) + nc * h[6]);
                            double dy = dy0 + ((na * h[1] + nb * h[4]) + nc * h[7]);
                            double dz = dz0 + ((na * h[2] + nb * h[5]) + nc * h[8]);
                            if (dx * dx + dy * dy + dz * dz < rl2) {
                                list.add(j, na, nb, nc);
                            }
                        }
                    }
                }
            }
        }
        list.start[n] = list.size;
    }

    /// Builds `list` (`full`: every partner of each atom, else those after it) for a free system
    /// or a nearest-image cell (no scan) from bins at least `rl` wide: along a periodic axis ⌊L / rl⌋ of them (one if that is under three), wrapped; along a
    /// free one over the atoms' extent. Each atom's partners (j > i, or all) within `rl` by the evaluation's
    /// own separation (the nearest image's in a `NEAREST` cell) come from its bin and the ones
    /// next to it, sorted into row order.
    void binned(PairList list, double[] r, double[] x, double[] y, double[] z, int n, double[] cell, boolean nearest, double rl, boolean full) {
        double rl2 = rl * rl;
        double[][] coords = {x, y, z};
        for (int d = 0; d < 3; d++) {
            double length = nearest ? cell[4 * d] : 0;
            double[] c = coords[d];
            binWraps[d] = length != 0;
            if (length != 0) {
                binOrigin[d] = 0;
                binExtent[d] = length;
            } else {
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    min = Math.min(min, c[i]);
                    max = Math.max(max, c[i]);
                }
                boolean finite = max - min < Double.POSITIVE_INFINITY; // false too for a NaN (the evaluation flags the system)
                binOrigin[d] = finite ? min : 0;
                binExtent[d] = finite ? max - min : 0; // then one bin: every atom a candidate, still a complete list
            }
            binCount[d] = (int) Math.max(1, Math.min(1024, Math.floor(binExtent[d] / rl)));
        }
        while ((long) binCount[0] * binCount[1] * binCount[2] > 8L * n + 64) { // a sparse system: fewer, wider bins
            int d = binCount[0] >= binCount[1] && binCount[0] >= binCount[2] ? 0 : binCount[1] >= binCount[2] ? 1 : 2;
            binCount[d] = Math.max(1, binCount[d] / 2);
        }
        for (int d = 0; d < 3; d++) {
            if (binWraps[d] && binCount[d] < 3) {
                binCount[d] = 1; // two wrapped bins would meet twice: one bin takes every atom along the axis
            }
            binWraps[d] &= binCount[d] >= 3;
            binWidth[d] = binExtent[d] > 0 ? binExtent[d] / binCount[d] : 1;
        }
        int bins = binCount[0] * binCount[1] * binCount[2];
        if (binOf.length < n) {
            binOf = new int[n];
            binAtoms = new int[n];
            candidates = new int[n];
        }
        if (binStart.length < bins + 1) {
            binStart = new int[Math.max(bins + 1, 2 * binStart.length)];
        }
        Arrays.fill(binStart, 0, bins + 1, 0);
        for (int i = 0; i < n; i++) {
            int id = 0;
            for (int d = 0; d < 3; d++) {
                id = id * binCount[d] + binIndex(d, coords[d][i]);
            }
            binOf[i] = id;
            binStart[id + 1]++;
        }
        for (int b = 0; b < bins; b++) {
            binStart[b + 1] += binStart[b];
        }
        if (binCursor.length < bins) {
            binCursor = new int[bins];
        }
        System.arraycopy(binStart, 0, binCursor, 0, bins);
        for (int i = 0; i < n; i++) {
            binAtoms[binCursor[binOf[i]]++] = i;
        }
        double lx = nearest ? cell[0] : 0;
        double ly = nearest ? cell[4] : 0;
        double lz = nearest ? cell[8] : 0;
        double ilx = lx == 0 ? 0 : 1 / lx;
        double ily = ly == 0 ? 0 : 1 / ly;
        double ilz = lz == 0 ? 0 : 1 / lz;
        list.begin(r, n, cell);
        list.full = full;
        for (int i = 0; i < n; i++) {
            list.start[i] = list.size;
            int found = 0;
            int id = binOf[i];
            int bc = id % binCount[2];
            int bb = id / binCount[2] % binCount[1];
            int ba = id / binCount[2] / binCount[1];
            for (int oa = -1; oa <= 1; oa++) {
                int na = neighbourBin(0, ba, oa);
                for (int ob = -1; ob <= 1 && na >= 0; ob++) {
                    int nb = neighbourBin(1, bb, ob);
                    for (int oc = -1; oc <= 1 && nb >= 0; oc++) {
                        int nc = neighbourBin(2, bc, oc);
                        if (nc < 0) {
                            continue;
                        }
                        int b = (na * binCount[1] + nb) * binCount[2] + nc;
                        for (int t = binStart[b]; t < binStart[b + 1]; t++) {
                            int j = binAtoms[t];
                            if (full ? j == i : j <= i) {
                                continue;
                            }
                            double dx = x[j] - x[i];
                            double dy = y[j] - y[i];
                            double dz = z[j] - z[i];
                            if (nearest) {
                                dx = dx - lx * ((dx * ilx + SHIFTER) - SHIFTER);
                                dy = dy - ly * ((dy * ily + SHIFTER) - SHIFTER);
                                dz = dz - lz * ((dz * ilz + SHIFTER) - SHIFTER);
                            }
                            if (dx * dx + dy * dy + dz * dz < rl2) {
                                candidates[found++] = j;
                            }
                        }
                    }
                }
            }
            Arrays.sort(candidates, 0, found);
            list.addPartners(candidates, found);
        }
        list.start[n] = list.size;
    }

    /// The bin of coordinate `c` along axis `d`.
    private int binIndex(int d, double c) {
        double f = (c - binOrigin[d]) / binWidth[d];
        if (binWraps[d]) {
            f -= binCount[d] * Math.floor(f / binCount[d]);
        }
        return (int) Math.max(0, Math.min(binCount[d] - 1, Math.floor(f)));
    }

    /// The bin `offset` (−1, 0, 1) from bin `b` along axis `d`, or −1: wrapped where the bins
    /// wrap, none past a free axis's edge, and only the one bin of an axis with one.
    private int neighbourBin(int d, int b, int offset) {
        if (binCount[d] == 1) {
            return offset == 0 ? 0 : -1;
        }
        int to = b + offset;
        if (binWraps[d]) {
            return (to + binCount[d]) % binCount[d];
        }
        return to >= 0 && to < binCount[d] ? to : -1;
    }

    private final int[] binCount = new int[3];
    private final double[] binOrigin = new double[3];
    private final double[] binWidth = new double[3];
    private final double[] binExtent = new double[3];
    private int[] binCursor = new int[0];
    private final boolean[] binWraps = new boolean[3];
    private int[] binOf = new int[0];
    private int[] binStart = new int[1];
    private int[] binAtoms = new int[0];
    private int[] candidates = new int[0];

    private final double[] reachL = new double[3]; // build's reach and offsets along a, b, c
    private final int[] imagesL = new int[3];

}
