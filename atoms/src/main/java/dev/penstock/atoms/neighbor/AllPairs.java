package dev.penstock.atoms.neighbor;

import dev.penstock.atoms.system.AtomicSystem;

/// The all-pairs neighbour search over periodic images: for small systems and for boxes too
/// short for cell lists (an axis below three list radii, even below one: then an atom meets its
/// own images, each ± pair counted once). Also the reference the tests compare cell lists with.
final class AllPairs {
    private AllPairs() {
    }

    /// The image code of a shift vector.
    interface ShiftCode {
        short of(double sx, double sy, double sz);
    }

    /// Every pair within `rl` over the periodic images an axis shorter than `rl` needs, into
    /// `out`, with per-atom `start`/`end`; `code` turns a shift into its image code.
    static void search(AtomicSystem s, double rl, double[] box, PairBuffer out, int[] start, int[] end, ShiftCode code) {
        double[] r = s.positions();
        int n = s.atoms();
        int[] images = new int[3];
        for (int d = 0; d < 3; d++) {
            images[d] = s.periodic(d) ? (int) Math.ceil(rl / box[d]) : 0;
        }
        double rl2 = rl * rl;
        for (int i = 0; i < n; i++) {
            start[i] = out.size;
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
                                out.add(i, j, code.of(sx, sy, sz));
                            }
                        }
                    }
                }
            }
            end[i] = out.size;
        }
    }

    private static boolean positiveImage(double sx, double sy, double sz) {
        return sx > 0 || (sx == 0 && (sy > 0 || (sy == 0 && sz > 0)));
    }
}
