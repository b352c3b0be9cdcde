package dev.penstock.atoms.system;

import java.util.Arrays;

/// A simulation cell: three lattice vectors **a**, **b**, **c** (rows, Å; orthorhombic or
/// triclinic) and periodicity per axis. Immutable.
///
/// ```
///   r = s0·a + s1·b + s2·c          s = fractional coordinates, s_d = r · b*_d
///   face distance d_d = 1 / |b*_d|  (a step of length ℓ changes s_d by at most ℓ / d_d)
/// ```
///
/// Neighbour searches bin atoms by fractional coordinate. On a free axis the stored vector
/// plays no part: binning uses a unit vector orthogonal to the periodic vectors instead (the
/// "effective" basis), so a free coordinate is a plain distance in Å.
public final class Cell {
    private final double[] vectors;
    private final boolean[] pbc;
    private final double[] effective;
    private final double[] reciprocal;

    private Cell(double[] vectors, boolean[] pbc) {
        if (vectors.length != 9 || pbc.length != 3) {
            throw new IllegalArgumentException("a cell needs 9 lattice-vector components and 3 periodicity flags, got "
                    + vectors.length + " and " + pbc.length);
        }
        for (double v : vectors) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("cell vectors must be finite, got " + Arrays.toString(vectors));
            }
        }
        this.vectors = vectors.clone();
        this.pbc = pbc.clone();
        for (int d = 0; d < 3; d++) {
            if (pbc[d] && norm(row(vectors, d)) == 0) {
                throw new IllegalArgumentException("axis " + d + " is periodic but its lattice vector is zero");
            }
        }
        this.effective = effectiveBasis(this.vectors, this.pbc);
        double[] a = row(effective, 0);
        double[] b = row(effective, 1);
        double[] c = row(effective, 2);
        double volume = dot(a, cross(b, c));
        double scale = norm(a) * norm(b) * norm(c);
        if (!(Math.abs(volume) > 1e-10 * scale)) {
            throw new IllegalArgumentException("the periodic lattice vectors are linearly dependent (cell volume "
                    + volume + "): " + Arrays.toString(vectors));
        }
        this.reciprocal = new double[9];
        double[][] rec = {cross(b, c), cross(c, a), cross(a, b)};
        for (int d = 0; d < 3; d++) {
            for (int e = 0; e < 3; e++) {
                reciprocal[3 * d + e] = rec[d][e] / volume;
            }
        }
    }

    /// A cell from lattice vectors `[ax, ay, az, bx, by, bz, cx, cy, cz]`.
    public static Cell of(double[] vectors, boolean[] pbc) {
        return new Cell(vectors, pbc);
    }

    /// An orthorhombic box with edge lengths `box` (0 on a free axis is fine).
    public static Cell orthorhombic(double[] box, boolean[] pbc) {
        if (box.length != 3) {
            throw new IllegalArgumentException("an orthorhombic box needs 3 lengths, got " + box.length);
        }
        for (int d = 0; d < 3; d++) {
            if (pbc.length == 3 && pbc[d] && !(box[d] > 0)) {
                throw new IllegalArgumentException("axis " + d + " is periodic but its box length is " + box[d]);
            }
        }
        return new Cell(new double[] {box[0], 0, 0, 0, box[1], 0, 0, 0, box[2]}, pbc);
    }

    /// No periodicity and no vectors: a free cluster.
    public static Cell free() {
        return new Cell(new double[9], new boolean[3]);
    }

    /// The lattice vectors as stored, `[ax, ay, az, bx, …]` (a copy).
    public double[] vectors() {
        return vectors.clone();
    }

    /// Component `e` of lattice vector `d`.
    public double vector(int d, int e) {
        return vectors[3 * d + e];
    }

    /// Whether axis `d` is periodic.
    public boolean periodic(int d) {
        return pbc[d];
    }

    /// The periodicity flags (a copy).
    public boolean[] pbc() {
        return pbc.clone();
    }

    /// The volume spanned by the three lattice vectors (Å³; 0 for a free cell or a free axis).
    public double volume() {
        if (!periodic(0) || !periodic(1) || !periodic(2)) {
            return 0;
        }
        double[] v = vectors();
        double[] a = {v[0], v[1], v[2]};
        double[] b = {v[3], v[4], v[5]};
        double[] c = {v[6], v[7], v[8]};
        return Math.abs(dot(a, cross(b, c)));
    }

    /// Whether no axis is periodic.
    public boolean isFree() {
        return !pbc[0] && !pbc[1] && !pbc[2];
    }

    /// Whether every lattice vector lies on its own axis (no tilt).
    public boolean isOrthorhombic() {
        for (int d = 0; d < 3; d++) {
            for (int e = 0; e < 3; e++) {
                if (d != e && vectors[3 * d + e] != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /// Fractional coordinate `d` of the point (x, y, z) in the effective basis.
    public double fractional(int d, double x, double y, double z) {
        return reciprocal[3 * d] * x + reciprocal[3 * d + 1] * y + reciprocal[3 * d + 2] * z;
    }

    /// Distance between the two faces of the effective cell across axis `d` (Å); on a free axis 1,
    /// as its fractional coordinate is already a distance.
    public double faceDistance(int d) {
        double x = reciprocal[3 * d];
        double y = reciprocal[3 * d + 1];
        double z = reciprocal[3 * d + 2];
        return 1 / Math.sqrt(x * x + y * y + z * z);
    }

    /// Component `e` of the lattice translation `na·a + nb·b + nc·c` (free axes take no part).
    public double translation(int na, int nb, int nc, int e) {
        return (pbc[0] ? na * vectors[e] : 0) + (pbc[1] ? nb * vectors[3 + e] : 0) + (pbc[2] ? nc * vectors[6 + e] : 0);
    }

    private static double[] effectiveBasis(double[] v, boolean[] pbc) {
        double[] out = new double[9];
        int periodic = 0;
        for (int d = 0; d < 3; d++) {
            if (pbc[d]) {
                System.arraycopy(v, 3 * d, out, 3 * d, 3);
                periodic++;
            }
        }
        if (periodic == 3) {
            return out;
        }
        if (periodic == 0) {
            out[0] = 1;
            out[4] = 1;
            out[8] = 1;
            return out;
        }
        if (periodic == 2) {
            int free = !pbc[0] ? 0 : !pbc[1] ? 1 : 2;
            double[] n = unit(cross(row(out, (free + 1) % 3), row(out, (free + 2) % 3)));
            System.arraycopy(n, 0, out, 3 * free, 3);
            return out;
        }
        int p = pbc[0] ? 0 : pbc[1] ? 1 : 2;
        double[] u = unit(row(out, p));
        // the coordinate axis least aligned with u, made orthogonal to it, then the third by a cross product
        int k = 0;
        for (int e = 1; e < 3; e++) {
            if (Math.abs(u[e]) < Math.abs(u[k])) {
                k = e;
            }
        }
        double[] n1 = new double[3];
        n1[k] = 1;
        double along = dot(n1, u);
        for (int e = 0; e < 3; e++) {
            n1[e] -= along * u[e];
        }
        n1 = unit(n1);
        double[] n2 = cross(u, n1);
        System.arraycopy(n1, 0, out, 3 * ((p + 1) % 3), 3);
        System.arraycopy(n2, 0, out, 3 * ((p + 2) % 3), 3);
        return out;
    }

    private static double[] row(double[] m, int d) {
        return new double[] {m[3 * d], m[3 * d + 1], m[3 * d + 2]};
    }

    private static double[] cross(double[] a, double[] b) {
        return new double[] {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    }

    private static double dot(double[] a, double[] b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    }

    private static double norm(double[] a) {
        return Math.sqrt(dot(a, a));
    }

    private static double[] unit(double[] a) {
        double n = norm(a);
        return new double[] {a[0] / n, a[1] / n, a[2] / n};
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cell c && Arrays.equals(vectors, c.vectors) && Arrays.equals(pbc, c.pbc);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(vectors) + Arrays.hashCode(pbc);
    }

    @Override
    public String toString() {
        return "Cell" + Arrays.toString(vectors) + " pbc " + Arrays.toString(pbc);
    }
}
