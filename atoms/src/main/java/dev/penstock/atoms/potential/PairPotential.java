package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import java.util.Arrays;

/// A model from a radial pair energy u(r): E = Σ_pairs u(r_ij), F_i = −∂E/∂r_i. With a finite
/// cutoff it uses a neighbour list per system (skin 0.3 of the length scale unless set); with
/// an infinite cutoff it sums every pair of a free system.
///
/// Threading: several threads may compute different systems at once (each system's neighbour
/// list is its own); one system is computed by one thread at a time. `threads(n)` splits the
/// force loop itself over n threads (such sums run one at a time).
public abstract class PairPotential implements Model, AutoCloseable {
    private final double cutoff;
    private int threads = 1;
    private java.util.concurrent.ExecutorService pool;
    private double[][] threadForces = new double[0][];
    private final NeighborLists lists;

    /// A pair model with `cutoff` (may be infinite) and neighbour-list `skin`.
    protected PairPotential(double cutoff, double skin) {
        if (!(cutoff > 0)) {
            throw new IllegalArgumentException("option 'cutoff' must be positive (or infinite), got " + cutoff);
        }
        this.cutoff = cutoff;
        this.lists = Double.isInfinite(cutoff) ? null : new NeighborLists(cutoff, skin);
    }

    /// u(r) for r < cutoff.
    protected abstract double energy(double r);

    /// du/dr for r < cutoff.
    protected abstract double derivative(double r);

    /// u as a function of r², also writing (du/dr)/r into `g[0]`: one call per pair, so that a
    /// potential like Lennard-Jones computes its powers once and needs no square root. `g` is
    /// the calling thread's own scratch.
    protected double energySquared(double r2, double[] g) {
        double r = Math.sqrt(r2);
        g[0] = derivative(r) / r;
        return energy(r);
    }

    /// The smallest separation the model accepts before calling it an overlap.
    protected abstract double overlapDistance();

    /// The smallest separation the model accepts before calling it an overlap, Å.
    public final double overlap() {
        return overlapDistance();
    }

    /// The cutoff.
    public double cutoff() {
        return cutoff;
    }

    /// Splits the force loop over `n` threads (each accumulating into its own force array, summed
    /// afterwards); 1 (the default) runs it on the caller. Results are deterministic for a given
    /// `n` (the summation order depends on it). Returns this.
    public synchronized PairPotential threads(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("option 'threads' must be at least 1, got " + n);
        }
        close();
        threads = n;
        if (n > 1) {
            pool = java.util.concurrent.Executors.newFixedThreadPool(n - 1,
                    Thread.ofPlatform().daemon().name("penstock-forces-", 0).factory());
        }
        return this;
    }

    /// Stops the force threads (if any).
    @Override
    public synchronized void close() {
        if (pool != null) {
            pool.shutdownNow();
            pool = null;
        }
        threads = 1;
    }

    @Override
    public void forget(long id) {
        if (lists != null) {
            lists.forget(id);
        }
    }

    /// Writes where system `id`'s neighbour list was last built (and how many builds it has had),
    /// or that it has none.
    @Override
    public void save(long id, java.io.DataOutput out) throws java.io.IOException {
        if (lists == null) {
            out.writeBoolean(false);
        } else {
            lists.save(id, out);
        }
    }

    /// Rebuilds the saved list from its saved build positions (`NeighborList.rebuildAt`).
    @Override
    public void restore(AtomicSystem s, java.io.DataInput in) throws java.io.IOException {
        if (lists == null) {
            in.readBoolean();
        } else {
            lists.restore(s, in, pool, threads);
        }
    }

    /// Systems whose neighbour lists are kept.
    public int listsHeld() {
        return lists == null ? 0 : lists.size();
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
            NeighborList list = lists.current(s, pool, threads);
            if (threads == 1) {
                e = listSum(s, list, r, f, rc2, 0, s.atoms());
            } else {
                synchronized (this) { // one parallel sum at a time: the force threads and their arrays are shared
                    e = parallelListSum(s, list, r, f, rc2);
                }
            }
        }
        if (!Double.isFinite(e)) {
            throw new IllegalStateException("system " + s.id() + ": the energy is " + e);
        }
        s.energy(e);
    }

    /// The list sum split into `threads` ranges of atoms with about equal pair counts, each into
    /// its own force array; the caller runs the last range, then adds the arrays up.
    private double parallelListSum(AtomicSystem s, NeighborList list, double[] r, double[] f, double rc2) {
        int n = s.atoms();
        if (threadForces.length != threads || threadForces[0].length != 3 * n) {
            threadForces = new double[threads][3 * n];
        }
        int[] start = list.start();
        int[] end = list.end();
        long total = list.pairCount();
        int[] bounds = new int[threads + 1];
        long acc = 0;
        int t = 1;
        for (int i = 0; i < n && t < threads; i++) {
            acc += end[i] - start[i];
            if (acc >= total * t / threads) {
                bounds[t++] = i + 1;
            }
        }
        while (t <= threads) {
            bounds[t++] = n;
        }
        java.util.List<java.util.concurrent.Future<Double>> parts = new java.util.ArrayList<>();
        for (int k = 0; k < threads - 1; k++) {
            double[] fk = threadForces[k];
            int lo = bounds[k];
            int hi = bounds[k + 1];
            parts.add(pool.submit(() -> {
                java.util.Arrays.fill(fk, 0);
                return listSum(s, list, r, fk, rc2, lo, hi);
            }));
        }
        double[] own = threadForces[threads - 1];
        java.util.Arrays.fill(own, 0);
        double e = listSum(s, list, r, own, rc2, bounds[threads - 1], n);
        for (java.util.concurrent.Future<Double> part : parts) {
            try {
                e += part.get();
            } catch (java.util.concurrent.ExecutionException ex) {
                if (ex.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw new IllegalStateException(ex.getCause());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted computing forces of system " + s.id(), ex);
            }
        }
        for (double[] fk : threadForces) {
            for (int i = 0; i < f.length; i++) {
                f[i] += fk[i];
            }
        }
        return e;
    }

    /// The sum over the neighbour list for atoms `[lo, hi)`, atom by atom: atom i's position and
    /// force stay in registers across its pairs; image shifts come from a small table by code.
    private double listSum(AtomicSystem s, NeighborList list, double[] r, double[] f, double rc2, int lo, int hi) {
        int[] start = list.start();
        int[] end = list.end();
        int[] b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double od2 = overlapDistance() * overlapDistance();
        double[] scratch = new double[1];
        double e = 0;
        for (int i = lo; i < hi; i++) {
            double xi = r[3 * i];
            double yi = r[3 * i + 1];
            double zi = r[3 * i + 2];
            double fx = 0;
            double fy = 0;
            double fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int c = 3 * code[p];
                double dx = r[3 * j] + shift[c] - xi;
                double dy = r[3 * j + 1] + shift[c + 1] - yi;
                double dz = r[3 * j + 2] + shift[c + 2] - zi;
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) {
                    continue;
                }
                if (r2 < od2) {
                    throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = "
                            + Math.sqrt(r2) + " Å)");
                }
                e += energySquared(r2, scratch);
                double g = scratch[0];
                fx += g * dx;
                fy += g * dy;
                fz += g * dz;
                f[3 * j] -= g * dx;
                f[3 * j + 1] -= g * dy;
                f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx;
            f[3 * i + 1] += fy;
            f[3 * i + 2] += fz;
        }
        return e;
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
        double[] scratch = new double[1];
        double e = energySquared(r2, scratch);
        double g = scratch[0]; // F_i = +du/dr · d/r (d = r_j − r_i), F_j = −F_i
        f[3 * i] += g * dx;
        f[3 * i + 1] += g * dy;
        f[3 * i + 2] += g * dz;
        f[3 * j] -= g * dx;
        f[3 * j + 1] -= g * dy;
        f[3 * j + 2] -= g * dz;
        return e;
    }

    /// The neighbour list of system `id` (for tests and diagnostics), or null.
    public NeighborList neighborList(long id) {
        return lists == null ? null : lists.get(id);
    }
}
