package dev.penstock.atoms.neighbor;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.system.Cell;

/// The all-pairs neighbour search over periodic images: for small systems and for cells too
/// thin for cell lists (an axis below three list radii, even below one: then an atom meets its
/// own images, each ± pair counted once). Orthorhombic and triclinic cells alike.
final class AllPairs {
    private AllPairs() {
    }

    /// The image code of a lattice translation (counts of a, b, c).
    interface ImageCode {
        short of(int na, int nb, int nc);
    }

    /// Every pair within `rl` over the periodic images, into `out`, with per-atom `start`/`end`.
    ///
    /// For each pair, j is first brought to the image nearest i in fractional coordinates
    /// (|Δs_d| ≤ ½); a separation shorter than `rl` then needs at most ⌈rl / d_d⌉ more whole
    /// translations along axis d (d_d: the cell's face distance), which are scanned.
    static void search(AtomicSystem s, double rl, PairBuffer out, int[] start, int[] end, ImageCode code) {
        double[] r = s.positions();
        int n = s.atoms();
        Cell cell = s.cell();
        int[] images = new int[3];
        boolean[] p = new boolean[3];
        for (int d = 0; d < 3; d++) {
            p[d] = s.periodic(d);
            images[d] = p[d] ? (int) Math.ceil(rl / cell.faceDistance(d)) : 0;
        }
        double rl2 = rl * rl;
        int[] base = new int[3];
        for (int i = 0; i < n; i++) {
            start[i] = out.size;
            for (int j = i; j < n; j++) {
                double dx = r[3 * j] - r[3 * i];
                double dy = r[3 * j + 1] - r[3 * i + 1];
                double dz = r[3 * j + 2] - r[3 * i + 2];
                for (int d = 0; d < 3; d++) {
                    base[d] = p[d] ? (int) -Math.rint(cell.fractional(d, dx, dy, dz)) : 0;
                }
                for (int a = base[0] - images[0]; a <= base[0] + images[0]; a++) {
                    for (int b = base[1] - images[1]; b <= base[1] + images[1]; b++) {
                        for (int c = base[2] - images[2]; c <= base[2] + images[2]; c++) {
                            if (i == j && !positive(a, b, c)) {
                                continue; // an atom's own images: count each ± pair once
                            }
                            double x = dx + cell.translation(a, b, c, 0);
                            double y = dy + cell.translation(a, b, c, 1);
                            double z = dz + cell.translation(a, b, c, 2);
                            if (x * x + y * y + z * z < rl2) {
                                out.add(i, j, code.of(a, b, c));
                            }
                        }
                    }
                }
            }
            end[i] = out.size;
        }
    }

    private static boolean positive(int a, int b, int c) {
        return a > 0 || (a == 0 && (b > 0 || (b == 0 && c > 0)));
    }
}
