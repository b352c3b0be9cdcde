package dev.penstock.atoms.device;

import java.util.Arrays;

/// A Verlet list of one system whose cell the kernels scan (`CellImages.IMAGES`), or of a large
/// one (`ATOMS` or more, free or nearest-image: its partners only, from bins): for each atom
/// i, its partners j > i and their images n = (na, nb, nc) that were within the cutoff plus a
/// skin when the list was built, in the scan's order — j ascending, then n ascending
/// lexicographically (the scan's offsets around a pair's base image are ascending, so its images
/// are too, whatever the base). `PairGather` sums a listed system's pairs in that order; an entry
/// beyond the cutoff adds nothing, as it adds nothing in the scan, so a list gives the scan's
/// sums bit for bit — whenever it was built, as long as it holds every pair within the cutoff.
/// It does while no atom has moved more than half the skin since the build (two atoms then close
/// in by less than the skin); `PairGather` rebuilds it when one has.
///
/// Kept by `CpuRelaxKernels` per system (by id) between evaluations: its arrays grow and are
/// reused, so a rebuild allocates only when the list outgrows them.
final class PairList {
    /// The skin as a fraction of the cutoff.
    static final double SKIN = 0.12;
    /// The atoms from which a free system or a nearest-image cell is listed too (built from bins,
    /// `PairGather.binned`): below, all pairs 8 at a time cost less than a list's scattered sums.
    static final int ATOMS = 1024;

    /// positions at the build (3 per atom), atoms at the build, the build's list radius squared
    double[] at = new double[0];
    int atoms = -1;
    /// entries of atom i: `[start[i], start[i + 1])`
    int[] start = new int[1];
    int[] partner = new int[0];
    double[] na = new double[0];
    double[] nb = new double[0];
    double[] nc = new double[0];
    int size;
    /// the evaluation that last used it (`CpuRelaxKernels` drops lists no evaluation used)
    long used;
    /// the system it lists
    final long id;

    /// An empty list of system `id`.
    PairList(long id) {
        this.id = id;
    }

    /// the cell of the build (`PairGather.cell`: lattice and reciprocal rows)
    final double[] cell = new double[18];
    /// whether each atom's entries are all its partners (j < i too: a full list, for a gather per
    /// atom split over threads), not only those after it
    boolean full;

    /// Whether the list must be rebuilt before it serves the `n` atoms at `r` in cell `h`: never
    /// built for them or that cell, or an atom moved more than half the skin (`halfSkin2` =
    /// (skin/2)²) since.
    boolean stale(double[] r, int n, double[] h, double halfSkin2) {
        return atoms != n || !Arrays.equals(cell, h) || CpuRelaxKernels.runaway(at, r, 3 * n, halfSkin2);
    }

    /// Starts a build for the `n` atoms at `r` in cell `h`.
    void begin(double[] r, int n, double[] h) {
        System.arraycopy(h, 0, cell, 0, cell.length);
        if (at.length < 3 * n) {
            at = new double[3 * n];
            start = new int[n + 1];
        }
        System.arraycopy(r, 0, at, 0, 3 * n);
        atoms = n;
        size = 0;
    }

    /// Appends partners `js[0 … count)` (no images: a free system or the nearest image) to the
    /// current atom.
    void addPartners(int[] js, int count) {
        if (size + count > partner.length) {
            partner = Arrays.copyOf(partner, Math.max(64, Math.max(size + count, 2 * size)));
        }
        System.arraycopy(js, 0, partner, size, count);
        size += count;
    }

    /// Appends partner j at image (a, b, c) to the current atom.
    void add(int j, double a, double b, double c) {
        if (size == partner.length) {
            int grown = Math.max(64, 2 * size);
            partner = Arrays.copyOf(partner, grown);
            na = Arrays.copyOf(na, grown);
            nb = Arrays.copyOf(nb, grown);
            nc = Arrays.copyOf(nc, grown);
        }
        partner[size] = j;
        na[size] = a;
        nb[size] = b;
        nc[size] = c;
        size++;
    }
}
