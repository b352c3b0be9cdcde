package dev.penstock.atoms.device;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;

/// Which periodic images a system's pairs take in the relaxation kernels, as its cell columns
/// say (`RelaxColumns.CELL_KIND`, `IMAGES_*`, `CELL`, `RECIPROCAL`): any cell, orthorhombic or
/// triclinic, periodic along any axes, however short against the cutoff.
///
/// - `FREE`: no periodic axis; a pair is its two atoms.
/// - `NEAREST`: an orthorhombic cell longer than twice the cutoff along each periodic axis: a
///   pair within the cutoff has one image within it, the nearest, d − L·rint(d / L).
/// - `IMAGES`: any other cell. A pair's separation d = r_j − r_i is first brought to its nearest
///   image in fractional coordinates, base = −rint(s(d)) (`Cell.fractional`'s rows); every image
///   within the cutoff is then base + o, |o_a| ≤ `IMAGES_A` (and so along b, c), as
///   |s_a + n_a|·(the face distance along a) ≤ |d + T(n)| < cutoff with |s_a + base_a| ≤ ½. The
///   kernels scan those offsets, o_a outermost, each ascending; the translation of n is
///   T_e = (n_a·a_e + n_b·b_e) + n_c·c_e. An atom also meets its own images (the
///   lexicographically positive offsets around 0, each ± pair once: its energy sum starts at
///   twice their energies; their forces cancel and are not added).
///
/// An atom's gather over partner j takes j's images in ascending order when j comes after it and
/// in descending order when j comes before it — the order in which the CPU's half loop, which
/// computes each pair once from the lower row, hands the partner its terms; a pair's terms
/// both ways are then exact negations, so CPU and `relax.cu` agree bit for bit.
public final class CellImages {
    /// no periodic axis
    public static final int FREE = 0;
    /// an orthorhombic cell longer than twice the cutoff: the nearest image only
    public static final int NEAREST = 1;
    /// any other periodic cell: a scan of images
    public static final int IMAGES = 2;

    private CellImages() {
    }

    /// Why the kernels could never take `s` under a model cut at `cutoff`, or null: a periodic
    /// system needs a finite cutoff (its images would be endless).
    public static String refusal(AtomicSystem s, double cutoff) {
        if (!s.cell().isFree() && !(cutoff < Double.POSITIVE_INFINITY)) {
            return "system " + s.id() + " is periodic, and the potential has no cutoff: its pairs over the periodic images would never end";
        }
        return null;
    }

    /// Writes system `s`'s cell columns, row `k` of `c` (host memory), for a model cut at `cutoff`.
    public static void pack(AtomicSystem s, double cutoff, RelaxColumns c, int k) {
        Cell cell = s.cell();
        boolean orthorhombic = cell.isOrthorhombic();
        int scanned = 0;
        for (int d = 0; d < 3; d++) {
            boolean p = s.periodic(d);
            int images = p ? images(cell, d, cutoff) : 0;
            scanned += images;
            c.setInt(RelaxColumns.IMAGES_A + d, k, images);
            for (int e = 0; e < 3; e++) {
                double[] unit = {0, 0, 0};
                unit[e] = 1;
                c.setDouble(RelaxColumns.CELL + 3 * d + e, k, p ? cell.vector(d, e) : 0);
                c.setDouble(RelaxColumns.RECIPROCAL + 3 * d + e, k, p ? cell.fractional(d, unit[0], unit[1], unit[2]) : 0);
            }
        }
        int kind = cell.isFree() ? FREE : orthorhombic && scanned == 0 ? NEAREST : IMAGES;
        c.setInt(RelaxColumns.CELL_KIND, k, kind);
    }

    /// The offsets beyond the nearest image a scan along periodic axis `d` takes on either side:
    /// the whole o below cutoff / (face distance) + ½, with a margin for rounding (an image too
    /// many is only tested and skipped; one too few would lose a pair).
    static int images(Cell cell, int d, double cutoff) {
        return (int) Math.floor(cutoff / cell.faceDistance(d) * (1 + 1e-12) + 0.5);
    }
}
