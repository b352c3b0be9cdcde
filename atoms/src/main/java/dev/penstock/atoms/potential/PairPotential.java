package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import java.util.Arrays;

/// A model from a radial pair energy u(r): E = Σ_pairs u(r_ij), F_i = −∂E/∂r_i. With a finite
/// cutoff it uses a neighbour list per system (skin 0.3 of the length scale unless set); with
/// an infinite cutoff it sums every pair of a free system.
public abstract class PairPotential implements Model {
    private final double cutoff;
    private final double skin;
    private final java.util.Map<Long, NeighborList> lists = new java.util.HashMap<>();

    /// A pair model with `cutoff` (may be infinite) and neighbour-list `skin`.
    protected PairPotential(double cutoff, double skin) {
        if (!(cutoff > 0)) {
            throw new IllegalArgumentException("option 'cutoff' must be positive (or infinite), got " + cutoff);
        }
        this.cutoff = cutoff;
        this.skin = skin;
    }

    /// u(r) for r < cutoff.
    protected abstract double energy(double r);

    /// du/dr for r < cutoff.
    protected abstract double derivative(double r);

    /// u as a function of r² (override to avoid the square root, as Lennard-Jones does).
    protected double energySquared(double r2) {
        return energy(Math.sqrt(r2));
    }

    /// (du/dr)/r as a function of r² (override to avoid the square root).
    protected double derivativeOverR(double r2) {
        double r = Math.sqrt(r2);
        return derivative(r) / r;
    }

    /// The smallest separation the model accepts before calling it an overlap.
    protected abstract double overlapDistance();

    /// The cutoff.
    public double cutoff() {
        return cutoff;
    }

    @Override
    public void compute(AtomicSystem s) {
        double[] r = s.positions();
        double[] f = s.forces();
        Arrays.fill(f, 0);
        double e = 0;
        double rc2 = cutoff * cutoff;
        if (Double.isInfinite(cutoff)) {
            for (int d = 0; d < 3; d++) {
                if (s.periodic(d)) {
                    throw new IllegalArgumentException("system " + s.id() + ": a periodic system needs a finite cutoff");
                }
            }
            int n = s.atoms();
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    e += pair(s, i, j, r[3 * j] - r[3 * i], r[3 * j + 1] - r[3 * i + 1], r[3 * j + 2] - r[3 * i + 2], rc2, f);
                }
            }
        } else {
            NeighborList list = lists.computeIfAbsent(s.id(), k -> new NeighborList(cutoff, skin));
            list.update(s);
            int[] a = list.first();
            int[] b = list.second();
            double[] sh = list.shifts();
            for (int p = 0; p < list.pairCount(); p++) {
                int i = a[p];
                int j = b[p];
                e += pair(s, i, j, r[3 * j] + sh[3 * p] - r[3 * i], r[3 * j + 1] + sh[3 * p + 1] - r[3 * i + 1],
                        r[3 * j + 2] + sh[3 * p + 2] - r[3 * i + 2], rc2, f);
            }
        }
        if (!Double.isFinite(e)) {
            throw new IllegalStateException("system " + s.id() + ": the energy is " + e);
        }
        s.energy(e);
    }

    private double pair(AtomicSystem s, int i, int j, double dx, double dy, double dz, double rc2, double[] f) {
        double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) {
            return 0;
        }
        double od = overlapDistance();
        if (r2 < od * od) {
            throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = " + Math.sqrt(r2) + " Å)");
        }
        double g = derivativeOverR(r2); // F_i = +du/dr · d/r (d = r_j − r_i), F_j = −F_i
        f[3 * i] += g * dx;
        f[3 * i + 1] += g * dy;
        f[3 * i + 2] += g * dz;
        f[3 * j] -= g * dx;
        f[3 * j + 1] -= g * dy;
        f[3 * j + 2] -= g * dz;
        return energySquared(r2);
    }

    /// The neighbour list of system `id` (for tests and diagnostics), or null.
    public NeighborList neighborList(long id) {
        return lists.get(id);
    }
}
