package dev.penstock.atoms.neighbor;

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
/// listed under earlier atoms, in their order. The list is a function of the half list alone.
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
    // scratch of the derivation: each atom's partners counted, a cursor, and which ghost an
    // (atom, code slot) pair already has (-1: none), reset after each derivation
    private int[] count = new int[0];
    private int[] slotOfCode = new int[0];
    private int[] ghostAt = new int[0];
    private long derivedFrom = -1;

    /// Brings this list up to `half`'s last build over `n` atoms (a no-op when it already is), then
    /// writes the coordinates of atoms and ghosts from positions `r` (3 per atom).
    public void update(NeighborList half, int n, double[] r) {
        if (derivedFrom != half.generation() || atoms != n) {
            derive(half, n);
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

    private void derive(NeighborList half, int n) {
        int[] hs = half.start();
        int[] he = half.end();
        int[] b = half.second();
        short[] code = half.imageCodes();
        int none = half.unshiftedCode();
        int codes = half.imageShifts().length / 3;
        atoms = n;
        if (count.length < n) {
            count = new int[n];
        }
        Arrays.fill(count, 0, n, 0);
        for (int i = 0; i < n; i++) {
            count[i] += he[i] - hs[i];
            for (int p = hs[i]; p < he[i]; p++) {
                count[b[p]]++;
            }
        }
        if (start.length < n + 1) {
            start = new int[n + 1];
        }
        start[0] = 0;
        for (int i = 0; i < n; i++) {
            start[i + 1] = start[i] + (count[i] + LANES - 1) / LANES * LANES;
        }
        int total = start[n];
        if (partner.length < total) {
            partner = new int[total + total / 8];
        }
        // each atom's cursor: its own pairs first, then the earlier atoms' pairs that name it
        for (int i = 0; i < n; i++) {
            count[i] = start[i] + (he[i] - hs[i]);
        }
        if (slotOfCode.length < codes) {
            slotOfCode = new int[codes];
        }
        Arrays.fill(slotOfCode, 0, codes, -1);
        int slots = 0;
        ghosts = 0;
        for (int i = 0; i < n; i++) {
            int own = start[i];
            for (int p = hs[i]; p < he[i]; p++) {
                int j = b[p];
                int c = code[p];
                if (c == none) {
                    partner[own++] = j;
                    partner[count[j]++] = i;
                    continue;
                }
                int back = codes - 1 - c; // the opposite image: (a, b, c) → (−a, −b, −c)
                if (slotOfCode[c] < 0) {
                    slotOfCode[c] = slots++;
                }
                if (slotOfCode[back] < 0) {
                    slotOfCode[back] = slots++;
                }
                partner[own++] = ghost(j, c, slotOfCode[c], n);
                partner[count[j]++] = ghost(i, back, slotOfCode[back], n);
            }
        }
        int sentinel = n + ghosts;
        for (int i = 0; i < n; i++) {
            Arrays.fill(partner, count[i], start[i + 1], sentinel);
        }
        for (int g = 0; g < ghosts; g++) { // leave the slot table empty for the next derivation
            ghostAt[slotOfCode[ghostCode[g]] * n + ghostOwner[g]] = -1;
        }
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

    /// The ghost of `owner` under image `code` (slot `slot` of the codes in use), made on first use.
    private int ghost(int owner, int code, int slot, int n) {
        long at = (long) slot * n + owner;
        if (ghostAt.length <= at) {
            int[] grown = new int[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(at + 1, 2L * ghostAt.length))];
            Arrays.fill(grown, -1);
            System.arraycopy(ghostAt, 0, grown, 0, ghostAt.length);
            ghostAt = grown;
        }
        int g = ghostAt[(int) at];
        if (g < 0) {
            if (ghostOwner.length == ghosts) {
                ghostOwner = Arrays.copyOf(ghostOwner, Math.max(16, 2 * ghosts));
                ghostCode = Arrays.copyOf(ghostCode, ghostOwner.length);
            }
            g = ghosts++;
            ghostOwner[g] = owner;
            ghostCode[g] = code;
            ghostAt[(int) at] = g;
        }
        return n + g;
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
