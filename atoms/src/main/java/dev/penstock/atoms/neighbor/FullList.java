package dev.penstock.atoms.neighbor;

import dev.penstock.device.Crew;
import java.util.Arrays;

/// A full neighbour list over ghost atoms, derived from a `NeighborList` (half list, image codes)
/// at each of its builds: every pair twice, once under each of its atoms, and a partner across a
/// periodic boundary an atom of its own — a ghost, its owner's position plus the image's shift
/// (LAMMPS's ghost atoms) — so that a pair loop reads a partner's coordinates by one index and
/// adds no shift. Coordinates are kept as three arrays (x, y, z: atoms, then ghosts, then one
/// sentinel far from everything), and each atom's partners are padded with the sentinel to a
/// multiple of `LANES`, so a loop takes them `LANES` at a time without a tail.
///
/// An atom's partners come in the half list's order: its own pairs first, as listed, then those
/// listed under other atoms, in row order. The partners' coordinates are a function of the half
/// list and the positions alone; which ghost index holds a partner is not (the derivation is
/// split over threads by atom ranges, each range making the ghosts it names: a ghost may be made
/// twice, with the same coordinates), so a loop over this list gives the same bits on any split.
public final class FullList {
    /// Partners an atom's run is padded to a multiple of.
    public static final int LANES = 4;

    private int atoms;
    private int[] start = new int[1];
    private int[] partner = new int[0];
    private int ghosts;
    private int[] ghostOwner = new int[0];
    private int[] ghostCode = new int[0];
    private double[] x = new double[0];
    private double[] y = new double[0];
    private double[] z = new double[0];
    private int[] count = new int[0];
    private Range[] ranges = new Range[0];
    private long derivedFrom = -1;

    /// One range of atoms' share of the derivation: the ghosts its rows name, found through a
    /// table by (code slot, owner), emptied after each derivation.
    private static final class Range {
        int[] slotOfCode = new int[0];
        int slots;
        int[] ghostAt = new int[0];
        int ghosts;
        int[] owner = new int[0];
        int[] code = new int[0];
    }

    /// Brings this list up to `half`'s last build over `n` atoms (a no-op when it already is),
    /// the derivation split over `crew` (null: the caller alone), then writes the coordinates of
    /// atoms and ghosts from positions `r` (3 per atom).
    public void update(NeighborList half, int n, double[] r, Crew crew) {
        if (derivedFrom != half.generation() || atoms != n) {
            derive(half, n, crew);
            derivedFrom = half.generation();
        }
        double[] shift = half.imageShifts();
        for (int i = 0; i < n; i++) {
            x[i] = r[3 * i];
            y[i] = r[3 * i + 1];
            z[i] = r[3 * i + 2];
        }
        for (int g = 0; g < ghosts; g++) {
            int o = ghostOwner[g];
            int c = 3 * ghostCode[g];
            x[n + g] = r[3 * o] + shift[c];
            y[n + g] = r[3 * o + 1] + shift[c + 1];
            z[n + g] = r[3 * o + 2] + shift[c + 2];
        }
    }

    private void derive(NeighborList half, int n, Crew crew) {
        int[] hs = half.start();
        int[] he = half.end();
        int[] b = half.second();
        short[] code = half.imageCodes();
        int none = half.unshiftedCode();
        int codes = half.imageShifts().length / 3;
        atoms = n;
        int parts = crew == null || n < 4096 ? 1 : Math.min(crew.size(), 8);
        if (ranges.length < parts) {
            Range[] grown = Arrays.copyOf(ranges, parts);
            for (int q = ranges.length; q < parts; q++) {
                grown[q] = new Range();
            }
            ranges = grown;
        }
        if (count.length < n) {
            count = new int[n];
        }
        if (start.length < n + 1) {
            start = new int[n + 1];
        }
        // each range counts its atoms' partners: their own pairs, and every pair naming them
        run(crew, parts, q -> {
            int lo = from(n, q, parts);
            int hi = from(n, q + 1, parts);
            for (int i = lo; i < hi; i++) {
                count[i] = he[i] - hs[i];
            }
            for (int k = 0; k < n; k++) {
                for (int p = hs[k]; p < he[k]; p++) {
                    int j = b[p];
                    if (j >= lo && j < hi) {
                        count[j]++;
                    }
                }
            }
        });
        start[0] = 0;
        for (int i = 0; i < n; i++) {
            start[i + 1] = start[i] + (count[i] + LANES - 1) / LANES * LANES;
        }
        int total = start[n];
        if (partner.length < total) {
            partner = new int[total + total / 8];
        }
        // each range writes its atoms' rows: own pairs, then the pairs naming them in row order;
        // a ghost is numbered within its range (n + its index there) and renumbered after
        run(crew, parts, q -> {
            int lo = from(n, q, parts);
            int hi = from(n, q + 1, parts);
            Range g = ranges[q];
            g.ghosts = 0;
            g.slots = 0;
            if (g.slotOfCode.length < codes) {
                g.slotOfCode = new int[codes];
            }
            Arrays.fill(g.slotOfCode, 0, codes, -1);
            for (int i = lo; i < hi; i++) {
                int own = start[i];
                for (int p = hs[i]; p < he[i]; p++) {
                    partner[own++] = code[p] == none ? b[p] : ghost(g, b[p], code[p], n);
                }
                count[i] = own; // the row's cursor for the pairs naming it
            }
            for (int k = 0; k < n; k++) {
                for (int p = hs[k]; p < he[k]; p++) {
                    int j = b[p];
                    if (j >= lo && j < hi) {
                        int c = code[p];
                        partner[count[j]++] = c == none ? k : ghost(g, k, codes - 1 - c, n); // the opposite image: (a, b, c) → (−a, −b, −c)
                    }
                }
            }
        });
        int[] offset = new int[parts + 1];
        for (int q = 0; q < parts; q++) {
            offset[q + 1] = offset[q] + ranges[q].ghosts;
        }
        ghosts = offset[parts];
        int sentinel = n + ghosts;
        if (ghostOwner.length < ghosts) {
            ghostOwner = new int[ghosts + ghosts / 8];
            ghostCode = new int[ghostOwner.length];
        }
        run(crew, parts, q -> {
            int lo = from(n, q, parts);
            int hi = from(n, q + 1, parts);
            Range g = ranges[q];
            System.arraycopy(g.owner, 0, ghostOwner, offset[q], g.ghosts);
            System.arraycopy(g.code, 0, ghostCode, offset[q], g.ghosts);
            for (int i = lo; i < hi; i++) {
                for (int p = start[i]; p < count[i]; p++) {
                    if (partner[p] >= n) {
                        partner[p] += offset[q];
                    }
                }
                Arrays.fill(partner, count[i], start[i + 1], sentinel);
            }
            for (int k = 0; k < g.ghosts; k++) { // leave the table empty for the next derivation
                g.ghostAt[g.slotOfCode[g.code[k]] * n + g.owner[k]] = -1;
            }
        });
        int coords = n + ghosts + 1;
        if (x.length < coords) {
            x = new double[coords + coords / 8];
            y = new double[x.length];
            z = new double[x.length];
        }
        x[sentinel] = 1e300; // farther from every atom than any cutoff: r² = +∞ from every atom
        y[sentinel] = 1e300;
        z[sentinel] = 1e300;
    }

    /// Range `g`'s ghost of `owner` under image `code`, made on first use: n + its index in `g`.
    private static int ghost(Range g, int owner, int code, int n) {
        int slot = g.slotOfCode[code];
        if (slot < 0) {
            slot = g.slots++;
            g.slotOfCode[code] = slot;
        }
        long at = (long) slot * n + owner;
        if (g.ghostAt.length <= at) {
            int[] grown = new int[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(at + 1, 2L * g.ghostAt.length))];
            Arrays.fill(grown, -1);
            System.arraycopy(g.ghostAt, 0, grown, 0, g.ghostAt.length);
            g.ghostAt = grown;
        }
        int k = g.ghostAt[(int) at];
        if (k < 0) {
            if (g.owner.length == g.ghosts) {
                g.owner = Arrays.copyOf(g.owner, Math.max(16, 2 * g.ghosts));
                g.code = Arrays.copyOf(g.code, g.owner.length);
            }
            k = g.ghosts++;
            g.owner[k] = owner;
            g.code[k] = code;
            g.ghostAt[(int) at] = k;
        }
        return n + k;
    }

    private static int from(int n, int q, int parts) {
        return (int) ((long) n * q / parts);
    }

    private static void run(Crew crew, int parts, java.util.function.IntConsumer part) {
        if (parts == 1) {
            part.accept(0);
        } else {
            crew.run(parts, part);
        }
    }

    /// Where atom i's partners begin in `partners()`: `[start()[i], start()[i + 1])`, a multiple
    /// of `LANES` long, padded with `sentinel()`.
    public int[] start() {
        return start;
    }

    /// The partners: indices into `x()`, `y()`, `z()` (an atom, a ghost, or the sentinel).
    public int[] partners() {
        return partner;
    }

    /// The x coordinates of the atoms, then the ghosts, then the sentinel.
    public double[] x() {
        return x;
    }

    /// The y coordinates, as `x()`.
    public double[] y() {
        return y;
    }

    /// The z coordinates, as `x()`.
    public double[] z() {
        return z;
    }

    /// Ghost atoms of the last derivation.
    public int ghosts() {
        return ghosts;
    }

    /// The atom a partner index stands for (itself, or a ghost's owner).
    public int owner(int index) {
        return index < atoms ? index : ghostOwner[index - atoms];
    }
}
