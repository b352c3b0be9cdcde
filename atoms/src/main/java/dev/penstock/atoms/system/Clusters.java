package dev.penstock.atoms.system;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/// Starting geometries for cluster workloads (tests, benchmarks, examples).
public final class Clusters {
    private static final int HALF_CELLS = 4;

    private Clusters() {
    }

    /// The `n` sites of an fcc lattice with nearest-neighbour distance `nearest` closest to the
    /// origin, as `[x0, y0, z0, …]`: taken from the sites within ±4 half cells on each axis
    /// (365 sites), ordered by distance with fixed tie-breaks, so the same `n` always gives the
    /// same cluster.
    public static double[] fccSites(int n, double nearest) {
        double a = nearest * Math.sqrt(2);
        List<double[]> sites = new ArrayList<>();
        for (int x = -HALF_CELLS; x <= HALF_CELLS; x++) {
            for (int y = -HALF_CELLS; y <= HALF_CELLS; y++) {
                for (int z = -HALF_CELLS; z <= HALF_CELLS; z++) {
                    if (((x + y + z) & 1) == 0) {
                        sites.add(new double[] {x * a / 2, y * a / 2, z * a / 2});
                    }
                }
            }
        }
        if (n < 1 || n > sites.size()) {
            throw new IllegalArgumentException("fcc cluster: 'n' must be in [1, " + sites.size() + "], got " + n);
        }
        sites.sort(Comparator.comparingDouble(p -> p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + 1e-9 * p[0] + 1e-12 * p[1]));
        double[] r = new double[3 * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(sites.get(i), 0, r, 3 * i, 3);
        }
        return r;
    }

    /// System `id`: the `n` fcc sites nearest the origin (nearest-neighbour distance 1.1σ, n ≤
    /// 365) with uniform ±`noise` displacements drawn from `seed` (the relaxation workloads).
    public static AtomicSystem perturbed(long id, int n, double noise, long seed) {
        double[] r = fccSites(n, 1.1);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        for (int i = 0; i < r.length; i++) {
            r[i] += rnd.nextDouble(-noise, noise);
        }
        return AtomicSystem.free(id, r);
    }

    /// The in-flight relaxation workload (docs/workloads.md `inflight`): `count` perturbed clusters
    /// (system k has id k) of 13–147 atoms, uniform, each with noise 0.02σ, 0.1σ or 0.2σ, drawn
    /// from `seed` (the benchmarks use 2026), so that FIRE needs from a few to ~1,000 steps.
    public static List<AtomicSystem> inflight(int count, long seed) {
        double[] noise = {0.02, 0.1, 0.2};
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        List<AtomicSystem> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            int n = 13 + rnd.nextInt(135);
            out.add(perturbed(k, n, noise[rnd.nextInt(noise.length)], 7_000 + k));
        }
        return out;
    }
}
