package dev.penstock.atoms.system;

import dev.penstock.atoms.io.Elements;
import java.util.SplittableRandom;

/// Perturbed crystals and clusters of real elements for the tests that check models against
/// LAMMPS and device stages against per-system ones: every position off its site by up to
/// ±0.1 Å (from `seed`), each atom's mass its element's. Positions and draws are fixed: the same
/// arguments give the same system bit for bit.
public final class Lattices {
    private static final double[][] FCC = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};

    private Lattices() {
    }

    /// `k`³ conventional fcc cells of lattice constant `a`, the a axis tilted by `tiltXy` along
    /// b (LAMMPS's lower-triangular cell), periodic along z or a slab with 12 Å of vacuum; each
    /// atom `species[1]` with probability `mix`, else `species[0]`.
    public static AtomicSystem fcc(long id, int k, double a, double tiltXy, boolean periodicZ, int[] species, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 4 * k * k * k;
        double[] r = new double[3 * n];
        int[] z = new int[n];
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int w = 0; w < k; w++) {
                    for (double[] b : FCC) {
                        site(r, p, (x + b[0]) / k, (y + b[1]) / k, (w + b[2]) / k, k, a, tiltXy, rnd);
                        z[p++] = rnd.nextDouble() < mix ? species[1] : species[0];
                    }
                }
            }
        }
        double lz = periodicZ ? k * a : k * a + 12;
        return system(id, r, z, Cell.of(new double[] {k * a, 0, 0, tiltXy, k * a, 0, 0, 0, lz},
                new boolean[] {true, true, periodicZ}));
    }

    /// `k`³ conventional diamond cells (zincblende for two species: `species[0]` on the fcc
    /// sites, `species[1]` a quarter diagonal away), periodic, the a axis tilted by `tiltXy`.
    public static AtomicSystem diamond(long id, int k, double a, double tiltXy, int[] species, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 8 * k * k * k;
        double[] r = new double[3 * n];
        int[] z = new int[n];
        int p = 0;
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                for (int w = 0; w < k; w++) {
                    for (int sub = 0; sub < 2; sub++) {
                        for (double[] b : FCC) {
                            site(r, p, (x + b[0] + 0.25 * sub) / k, (y + b[1] + 0.25 * sub) / k, (w + b[2] + 0.25 * sub) / k, k, a,
                                    tiltXy, rnd);
                            z[p++] = species[sub];
                        }
                    }
                }
            }
        }
        return system(id, r, z, Cell.of(new double[] {k * a, 0, 0, tiltXy, k * a, 0, 0, 0, k * a}, new boolean[] {true, true, true}));
    }

    /// A free fcc cluster of `n` atoms (`Clusters.fccSites`, nearest neighbours `nearest` Å);
    /// each atom `species[1]` with probability `mix`, else `species[0]`.
    public static AtomicSystem cluster(long id, int n, double nearest, int[] species, double mix, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] r = Clusters.fccSites(n, nearest);
        int[] z = new int[n];
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                r[3 * i + d] += rnd.nextDouble(-0.1, 0.1);
            }
            z[i] = rnd.nextDouble() < mix ? species[1] : species[0];
        }
        return system(id, r, z, Cell.free());
    }

    /// Atom `p` at fractional (fx, fy, fz) of `k` cells of side `a` tilted by `tiltXy`, perturbed.
    private static void site(double[] r, int p, double fx, double fy, double fz, int k, double a, double tiltXy, SplittableRandom rnd) {
        r[3 * p] = fx * k * a + fy * tiltXy + rnd.nextDouble(-0.1, 0.1);
        r[3 * p + 1] = fy * k * a + rnd.nextDouble(-0.1, 0.1);
        r[3 * p + 2] = fz * k * a + rnd.nextDouble(-0.1, 0.1);
    }

    private static AtomicSystem system(long id, double[] r, int[] z, Cell cell) {
        double[] m = new double[z.length];
        for (int i = 0; i < z.length; i++) {
            m[i] = Elements.mass(z[i]);
        }
        return new AtomicSystem(id, r, m, z, cell);
    }
}
