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
/// An atom's partners come the system's atoms first, then its ghosts (`localEnd()`: where they
/// begin), each part in the half list's order: its own pairs first, as listed, then those listed
/// under other atoms, in row order. (A pair loop that needs the virial then sums r ⊗ f over
/// the atoms for their pairs with each other and d ⊗ f only over the ghosts' pairs: `LjLanes`.)
/// The partners' coordinates are a function of the half list and the positions alone, whatever
/// the derivation's split over threads (by atom ranges, each writing its atoms' rows; the ghosts
/// numbered first, by image code then owner).
public final class FullList {
    /// Partners an atom's run is padded to a multiple of.
    public static final int LANES = 4;

    private int atoms;
    private int[] start = new int[1];
    private int[] localEnd = new int[0];
    private int[] partner = new int[0];
    private int ghosts;
    private int[] ghostOwner = new int[0];
    private int[] ghostCode = new int[0];
    private double[] x = new double[0];
    private double[] y = new double[0];
    private double[] z = new double[0];
    private int[] count = new int[0];
    private long derivedFrom = -1;
    // the ghosts as bitmaps: for each image code in use (its slot), bit `owner` set when that
    // atom's image under the code is a partner; a ghost's index is its slot's first index plus
    // the set bits before it (a rank: per-word prefix counts), so no table is searched per pair
    private int[] slotOfCode = new int[0];
    private int[] codeOfSlot = new int[0];
    private long[][] marks = new long[0][];
    private int[][] rank = new int[0][];
    private int[] slotBase = new int[0];

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
        if (count.length < n) {
            count = new int[n];
        }
        if (start.length < n + 1) {
            start = new int[n + 1];
        }
        if (localEnd.length < n) {
            localEnd = new int[n];
        }
        markGhosts(hs, he, b, code, none, codes, n);
        // each range counts its atoms' partners (and, in localEnd, those that are atoms): their
        // own pairs, and every pair naming them
        run(crew, parts, q -> {
            int lo = from(n, q, parts);
            int hi = from(n, q + 1, parts);
            for (int i = lo; i < hi; i++) {
                count[i] = he[i] - hs[i];
                int locals = 0;
                for (int p = hs[i]; p < he[i]; p++) {
                    locals += code[p] == none ? 1 : 0;
                }
                localEnd[i] = locals;
            }
            for (int k = 0; k < n; k++) {
                for (int p = hs[k]; p < he[k]; p++) {
                    int j = b[p];
                    if (j >= lo && j < hi) {
                        count[j]++;
                        localEnd[j] += code[p] == none ? 1 : 0;
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
        int sentinel = n + ghosts;
        // each range writes its atoms' rows: own pairs, then the pairs naming them in row order,
        // the atoms from the row's start (cursor: localEnd) and the ghosts from after them (count)
        run(crew, parts, q -> {
            int lo = from(n, q, parts);
            int hi = from(n, q + 1, parts);
            for (int i = lo; i < hi; i++) {
                int atom = start[i];
                int ghost = atom + localEnd[i];
                for (int p = hs[i]; p < he[i]; p++) {
                    if (code[p] == none) {
                        partner[atom++] = b[p];
                    } else {
                        partner[ghost++] = ghost(b[p], code[p], n);
                    }
                }
                localEnd[i] = atom; // the rows' cursors for the pairs naming it
                count[i] = ghost;
            }
            for (int k = 0; k < n; k++) {
                for (int p = hs[k]; p < he[k]; p++) {
                    int j = b[p];
                    if (j >= lo && j < hi) {
                        int c = code[p];
                        if (c == none) {
                            partner[localEnd[j]++] = k;
                        } else {
                            partner[count[j]++] = ghost(k, codes - 1 - c, n); // the opposite image: (a, b, c) → (−a, −b, −c)
                        }
                    }
                }
            }
            for (int i = lo; i < hi; i++) {
                Arrays.fill(partner, count[i], start[i + 1], sentinel);
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

    /// Marks every ghost the half list's shifted pairs name — atom j's image under the pair's
    /// code, atom i's under the opposite — and numbers them: by code slot (codes in order of first
    /// use), then owner.
    private void markGhosts(int[] hs, int[] he, int[] b, short[] code, int none, int codes, int n) {
        if (slotOfCode.length < codes) {
            slotOfCode = new int[codes];
        }
        Arrays.fill(slotOfCode, 0, codes, -1);
        int words = (n + 63) >>> 6;
        int slots = 0;
        for (int i = 0; i < n; i++) {
            for (int p = hs[i]; p < he[i]; p++) {
                int c = code[p];
                if (c == none) {
                    continue;
                }
                int back = codes - 1 - c;
                for (int k = 0; k < 2; k++) {
                    int cc = k == 0 ? c : back;
                    int owner = k == 0 ? b[p] : i;
                    int slot = slotOfCode[cc];
                    if (slot < 0) {
                        slot = slots++;
                        slotOfCode[cc] = slot;
                        if (marks.length < slots) {
                            marks = Arrays.copyOf(marks, Math.max(8, 2 * slots));
                            rank = Arrays.copyOf(rank, marks.length);
                            codeOfSlot = Arrays.copyOf(codeOfSlot, marks.length);
                        }
                        if (marks[slot] == null || marks[slot].length < words) {
                            marks[slot] = new long[words];
                            rank[slot] = new int[words];
                        } else {
                            Arrays.fill(marks[slot], 0, words, 0);
                        }
                        codeOfSlot[slot] = cc;
                    }
                    marks[slot][owner >>> 6] |= 1L << owner;
                }
            }
        }
        if (slotBase.length < slots + 1) {
            slotBase = new int[slots + 1];
        }
        int g = 0;
        for (int s = 0; s < slots; s++) {
            slotBase[s] = g;
            long[] m = marks[s];
            int[] r = rank[s];
            int before = 0;
            for (int w = 0; w < words; w++) {
                r[w] = before;
                before += Long.bitCount(m[w]);
            }
            g += before;
        }
        slotBase[slots] = g;
        ghosts = g;
        if (ghostOwner.length < g) {
            ghostOwner = new int[g + g / 8];
            ghostCode = new int[ghostOwner.length];
        }
        for (int s = 0; s < slots; s++) {
            long[] m = marks[s];
            int at = slotBase[s];
            for (int w = 0; w < words; w++) {
                for (long bits = m[w]; bits != 0; bits &= bits - 1) {
                    ghostOwner[at] = (w << 6) + Long.numberOfTrailingZeros(bits);
                    ghostCode[at++] = codeOfSlot[s];
                }
            }
        }
    }

    /// The index of `owner`'s ghost under image `code` (marked by `markGhosts`).
    private int ghost(int owner, int code, int n) {
        int s = slotOfCode[code];
        long word = marks[s][owner >>> 6];
        return n + slotBase[s] + rank[s][owner >>> 6] + Long.bitCount(word & ((1L << owner) - 1));
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

    /// Where atom i's ghosts (and its padding) begin among its partners: `[start()[i],
    /// localEnd()[i])` are atoms of the system.
    public int[] localEnd() {
        return localEnd;
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
