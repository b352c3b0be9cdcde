package dev.penstock.atoms.potential;

import java.util.Arrays;

/// Which atoms each part of a system in parts (`RowParts`) writes, in blocks of `BLOCK` atoms:
/// its own rows and their listed neighbours. A part's arrays are cleared and summed over its
/// blocks only, so in a system whose atoms are stored roughly in space order (a lattice, a LAMMPS
/// data file) each part touches about its own share of the atoms instead of all of them — the
/// difference between parts that cost nothing on one thread and 16 parts costing ~12% of a
/// Lennard-Jones step at 32,000 atoms. Made from the neighbour list, once per build: it depends
/// on the list alone, never on the threads, so neither do the sums.
///
/// ```
///   atoms   |0 ......... n|        part p's rows [bounds[p], bounds[p+1])
///   blocks  |b0|b1|b2|...|         touched[p][b]: a row of p, or a neighbour of one, is in b
///   sum     into[c] = Σ_q part_q[c] over the parts q that touched c's block, in part order
/// ```
final class PartPlan {
    /// Atoms per block.
    static final int BLOCK = 64;

    final int atoms;
    final int[] bounds;
    private final Object list;
    private final long builds;
    private final boolean[][] touched;
    private final int[] listed; // per part: its rows' neighbours

    /// The plan of `parts` row ranges `bounds` (parts + 1 entries) over `list`, whose row i's
    /// neighbours are `neighbours[from[i] … to[i])` (`to` null: `from[i + 1]`, a full list), made
    /// at its `builds`-th build.
    PartPlan(Object list, long builds, int atoms, int[] bounds, int[] neighbours, int[] from, int[] to) {
        this.list = list;
        this.atoms = atoms;
        this.bounds = bounds;
        this.builds = builds;
        int parts = bounds.length - 1;
        int blocks = (atoms + BLOCK - 1) / BLOCK;
        touched = new boolean[parts][blocks];
        listed = new int[parts];
        for (int p = 0; p < parts; p++) {
            boolean[] t = touched[p];
            for (int i = bounds[p]; i < bounds[p + 1]; i++) {
                t[i / BLOCK] = true;
                int end = to == null ? from[i + 1] : to[i];
                listed[p] += end - from[i];
                for (int q = from[i]; q < end; q++) {
                    t[neighbours[q] / BLOCK] = true;
                }
            }
        }
    }

    /// Whether the plan still describes `list` of `atoms` atoms at its `builds`-th build in
    /// `parts` parts.
    boolean fits(Object list, long builds, int atoms, int parts) {
        return this.list == list && this.builds == builds && this.atoms == atoms && bounds.length == parts + 1;
    }

    /// Rows split into `parts` ranges of about equal neighbour counts (row i has `to[i] −
    /// from[i]`; `to` null: `from[i + 1] − from[i]`): `parts` + 1 bounds.
    static int[] balanced(int atoms, int parts, int[] from, int[] to) {
        long total = 0;
        for (int i = 0; i < atoms; i++) {
            total += (to == null ? from[i + 1] : to[i]) - from[i];
        }
        int[] bounds = new int[parts + 1];
        long acc = 0;
        int t = 1;
        for (int i = 0; i < atoms && t < parts; i++) {
            acc += (to == null ? from[i + 1] : to[i]) - from[i];
            if (acc >= total * t / parts) {
                bounds[t++] = i + 1;
            }
        }
        while (t <= parts) {
            bounds[t++] = atoms;
        }
        return bounds;
    }

    /// How many neighbours part `p`'s rows list.
    int listed(int p) {
        return listed[p];
    }

    /// Clears part `p`'s `array` (`width` values per atom) over the blocks it writes.
    void clear(int p, double[] array, int width) {
        boolean[] t = touched[p];
        for (int b = 0; b < t.length; b++) {
            if (t[b]) {
                Arrays.fill(array, width * b * BLOCK, width * Math.min(atoms, (b + 1) * BLOCK), 0);
            }
        }
    }

    /// Atoms `[from, to)` of `into` (`width` values per atom) set to the sum of the parts'
    /// arrays, in part order, over the parts that wrote their block.
    void sum(double[][] parts, double[] into, int width, int from, int to) {
        int c = from;
        while (c < to) {
            int b = c / BLOCK;
            int end = Math.min(to, (b + 1) * BLOCK);
            boolean first = true;
            for (int q = 0; q < touched.length; q++) {
                if (!touched[q][b]) {
                    continue;
                }
                double[] part = parts[q];
                if (first) {
                    System.arraycopy(part, width * c, into, width * c, width * (end - c));
                    first = false;
                } else {
                    for (int x = width * c; x < width * end; x++) {
                        into[x] += part[x];
                    }
                }
            }
            c = end;
        }
    }

    /// The plans of a model's systems in parts, by system id: each made when its system's list
    /// was built again (or first asked for), dropped when the system leaves (`Model.forget`).
    static final class Cache {
        private final java.util.Map<Long, PartPlan> plans = new java.util.concurrent.ConcurrentHashMap<>();

        /// System `id`'s plan in `parts` parts of rows balanced by neighbour counts, over `list`
        /// (at its `builds`-th build; row i's neighbours `neighbours[from[i] … to[i])`, `to` null:
        /// `from[i + 1]`).
        PartPlan of(long id, Object list, long builds, int atoms, int parts, int[] neighbours, int[] from, int[] to) {
            PartPlan plan = plans.get(id);
            if (plan == null || !plan.fits(list, builds, atoms, parts)) {
                plan = new PartPlan(list, builds, atoms, balanced(atoms, parts, from, to), neighbours, from, to);
                plans.put(id, plan);
            }
            return plan;
        }

        void forget(long id) {
            plans.remove(id);
        }
    }
}
