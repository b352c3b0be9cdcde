package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.device.Crew;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/// The embedded-atom method from a LAMMPS potential file: funcfl (`*.eam`), setfl
/// (`*.eam.alloy`) or Finnis–Sinclair (`*.eam.fs`), the tables prepared as LAMMPS prepares them
/// (`EamTables`), so that energies and forces agree with LAMMPS's `pair_style eam`, `eam/alloy`
/// and `eam/fs` to rounding.
///
/// ```
///   E = Σ_i F_i(ρ_i) + Σ_{i<j} φ_ij(r_ij),   ρ_i = Σ_{j≠i} ρ_{j→i}(r_ij)
///   pass 1  over the half list: ρ_i += ρ_{j→i}(r), ρ_j += ρ_{i→j}(r)
///   pass 2  per atom: F_i, F'_i (linear beyond the table's last ρ, as LAMMPS)
///   pass 3  over the half list: f = −(F'_i ρ'_{j→i} + F'_j ρ'_{i→j} + φ') r̂
/// ```
///
/// The virial (`AtomicSystem.virial`) is summed over the same pairs, as LAMMPS tallies it.
///
/// Species: each atom's atomic number (`AtomicSystem.numbers()`) picks the file's element of that
/// number; an atom of an element the file lacks fails the system, naming the element and the
/// file's elements. Periodic and free systems, any cell (the neighbour list's images).
///
/// Threading: like `PairPotential`: different systems may be computed at once from different
/// threads (each system's list and scratch are its own); a large system is computed in parts
/// fixed by its size (`RowParts`: each part's rows scatter into its own arrays, summed in part
/// order), run on `threads(n)`'s crew or a crew lent to `compute(system, crew)` — the same
/// numbers on any number of threads; such systems are computed one at a time.
///
/// Why one file over 400 lines: its three passes, whole or split over parts, share the
/// interleaved tables, the scratch of kept pairs that pass 1 hands pass 3, and the one order of
/// additions that keeps LAMMPS's numbers; the tables' reading and preparation are `EamTables`.
public final class Eam extends FileModel {

    private final EamTables t;
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);
    private Scratch[] parts = new Scratch[0]; // a system in parts: each part's scratch, under `partsLock`
    private double[] rhoSum = new double[0];   // … its densities summed, and F'(ρ) of each atom
    private double[] fpAll = new double[0];
    private volatile boolean virial = true;

    /// One thread's work arrays: densities, F'(ρ), and the listed pairs inside the cutoff (pass
    /// 1 finds them; pass 3 takes only those, without the distance test's unpredictable branch).
    private static final class Scratch {
        double[] rho = new double[0];
        double[] fp = new double[0];
        int[] insideEnd = new int[0];
        // per pair inside the cutoff: j, 3 · its image code, its pair table's base in `force`
        int[] j = new int[0];
        int[] c3 = new int[0];
        int[] base = new int[0];
        double[] r = new double[0]; // rsq as pass 1 finds it, then its square root for pass 3
        final double[] sums = new double[7];
        double[] force = new double[0]; // a part's forces (a system in parts)
        double embedding;               // a part's embedding energies

        void fit(int atoms, int pairs) {
            if (rho.length < atoms) {
                rho = new double[atoms];
                fp = new double[atoms];
                insideEnd = new int[atoms];
                force = new double[3 * atoms];
            }
            if (j.length < pairs) {
                j = new int[pairs];
                c3 = new int[pairs];
                base = new int[pairs];
                r = new double[pairs];
            }
        }
    }

    /// Per ordered pair of elements (ti · n + tj), the splines the pair loops read, interleaved
    /// per grid point m so that one lookup touches one or two cache lines (as LAMMPS's `eam/opt`
    /// packs them): `density` 8 per point — ρ_{j→i}'s value coefficients, then ρ_{i→j}'s;
    /// `force` 16 per point — ρ_{i→j}', ρ_{j→i}', φr' (3 each), φr's value (4), 3 unused.
    /// Each is every pair's table, one after another; `densityBase`/`forceBase` say where pair
    /// ti · n + tj's starts.
    private final double[] density;
    private final int[] densityBase;
    private final double[] force;
    private final int[] forceBase;
    /// Whether the pair's two density functions are one (a single element, or funcfl/setfl
    /// pairs of one element): pass 1 then computes each pair's value once, the same number.
    private final boolean[] oneDensity;

    private Eam(EamTables t) {
        super(new Species(t.file, t.elements, t.numbers), t.cut);
        this.t = t;
        int n = t.elements.length;
        densityBase = new int[n * n];
        forceBase = new int[n * n];
        oneDensity = new boolean[n * n];
        int points = t.rhorSpline[0].length / 7;
        force = new double[n * n * 16 * points];
        density = new double[n * n * 8 * points];
        for (int ti = 0; ti < n; ti++) {
            for (int tj = 0; tj < n; tj++) {
                double[] intoI = t.rhorSpline[t.rhorOf(tj, ti)];
                double[] intoJ = t.rhorSpline[t.rhorOf(ti, tj)];
                double[] z2 = t.z2rSpline[t.z2rOf(ti, tj)];
                int dBase = (ti * n + tj) * 8 * points;
                densityBase[ti * n + tj] = dBase;
                int base = (ti * n + tj) * 16 * points;
                forceBase[ti * n + tj] = base;
                for (int m = 0; m < points; m++) {
                    System.arraycopy(intoI, 7 * m + 3, density, dBase + 8 * m, 4);
                    System.arraycopy(intoJ, 7 * m + 3, density, dBase + 8 * m + 4, 4);
                    System.arraycopy(intoJ, 7 * m, force, base + 16 * m, 3);
                    System.arraycopy(intoI, 7 * m, force, base + 16 * m + 3, 3);
                    System.arraycopy(z2, 7 * m, force, base + 16 * m + 6, 3);
                    System.arraycopy(z2, 7 * m + 3, force, base + 16 * m + 9, 4);
                }
                oneDensity[ti * n + tj] = t.rhorOf(tj, ti) == t.rhorOf(ti, tj);
            }
        }
    }

    /// Reads `file` (its format from its name); a missing, bad or truncated file fails here,
    /// naming the file and line.
    public static Eam read(Path file) throws IOException {
        return new Eam(EamTables.read(file));
    }

    /// A new model on the same tables (read once), with no neighbour lists yet: one per stage
    /// worker.
    public Eam fresh() {
        return new Eam(t);
    }

    /// Runs a large system's parts (`RowParts`: part p of k takes rows [n_atoms·p/k,
    /// n_atoms·(p+1)/k), scattering densities and forces into its own arrays, summed in part
    /// order) on `n` threads; 1 (the default) runs them on the caller. The numbers are the same
    /// for any `n`. Returns this.
    public Eam threads(int n) {
        split(n, "penstock-eam");
        return this;
    }

    /// Whether `compute` sums the virial (default true). Off, as LAMMPS leaves it out when nothing
    /// asks for the pressure (an NVE run that reports energies only), pass 3 skips its six sums
    /// per pair and the system's virial is null; energies and forces are the same bits. Returns this.
    public Eam virial(boolean on) {
        virial = on;
        return this;
    }

    /// The prepared tables as a device kernel takes them (`cuda/src/main/cuda/eam.cu`): the grid,
    /// the splines (seven coefficients per point, one flat array per function) and which spline
    /// each role of each element (pair) uses: `frhoOf[e]`, `rhorOf[tj · n + ti]` (summed into
    /// ρ_i), `z2rOf[ti · n + tj]`. Copies.
    ///
    /// @param numbers atomic number of each element, in file order
    public record Tables(int[] numbers, int nrho, int nr, double rdrho, double rdr, double rhomax, double cutoff, double[][] frho,
                         double[][] rhor, double[][] z2r, int[] frhoOf, int[] rhorOf, int[] z2rOf) {
    }

    /// The prepared tables (see `Tables`).
    public Tables tables() {
        int n = t.elements.length;
        int[] frhoOf = new int[n];
        int[] rhorOf = new int[n * n];
        int[] z2rOf = new int[n * n];
        for (int i = 0; i < n; i++) {
            frhoOf[i] = t.frhoOf(i);
            for (int j = 0; j < n; j++) {
                rhorOf[i * n + j] = t.rhorOf(i, j);
                z2rOf[i * n + j] = t.z2rOf(i, j);
            }
        }
        return new Tables(t.numbers.clone(), t.nrho, t.nr, 1.0 / t.drho, 1.0 / t.dr, t.rhomax, t.cut, deep(t.frhoSpline), deep(t.rhorSpline),
                deep(t.z2rSpline), frhoOf, rhorOf, z2rOf);
    }

    private static double[][] deep(double[][] a) {
        double[][] c = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    /// The file's mass of element `symbol` (amu).
    public double mass(String symbol) {
        for (int e = 0; e < t.elements.length; e++) {
            if (t.elements[e].equals(symbol)) {
                return t.masses[e];
            }
        }
        throw new IllegalArgumentException(t.file + " has no element " + symbol + " (it has " + String.join(", ", t.elements) + ")");
    }


    @Override
    public void compute(AtomicSystem s, Crew crew) {
        boolean withVirial = virial;
        int n = s.atoms();
        int k = RowParts.count(n);
        if (k > 1) {
            synchronized (partsLock) { // one system in parts at a time: the parts' scratch is the model's
                computeSplit(s, crew, k, withVirial);
            }
            return;
        }
        int[] type = species.types(s);
        NeighborList list = lists.current(s, null);
        double[] r = s.positions();
        double[] f = s.forces();
        Arrays.fill(f, 0);
        int[] start = list.start();
        int[] end = list.end();
        Scratch work = scratch.get();
        work.fit(n, list.second().length);
        double[] rho = work.rho;
        double[] fp = work.fp;
        int[] insideEnd = work.insideEnd;
        Arrays.fill(rho, 0, n, 0);
        int[] second = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        // pass 1: densities; the pairs inside the cutoff kept for pass 3
        int kept = 0;
        for (int i = 0; i < n; i++) {
            kept = densities(s, work, i, start[i], end[i], kept, type, second, code, r, shift);
            insideEnd[i] = kept;
        }
        // pass 2: embedding energies and their derivatives
        double energy = embed(type, rho, fp, 0, n);
        // pass 3: pair energies, forces and the virial (LAMMPS's ev_tally terms: del ⊗ del · fpair)
        double[] sums = work.sums;
        Arrays.fill(sums, 0);
        sums[0] = energy;
        for (int i = 0; i < n; i++) {
            pairForces(work, i, i == 0 ? 0 : insideEnd[i - 1], insideEnd[i], r, f, shift, fp, withVirial);
        }
        finish(s, sums, withVirial);
    }

    /// Pass 2 for atoms `[from, to)`: F'(ρ_i) into `fp`; returns their embedding energies' sum.
    private double embed(int[] type, double[] rho, double[] fp, int from, int to) {
        double rdrho = 1.0 / t.drho;
        double energy = 0;
        for (int i = from; i < to; i++) {
            double p = rho[i] * rdrho + 1.0;
            int m = Math.max(1, Math.min((int) p, t.nrho - 1));
            p = Math.min(p - m, 1.0);
            double[] sp = t.frhoSpline[t.frhoOf(type[i])];
            fp[i] = derivative(sp, m, p);
            double phi = value(sp, m, p);
            if (rho[i] > t.rhomax) {
                phi += fp[i] * (rho[i] - t.rhomax); // beyond the table: linear, as LAMMPS continues it
            }
            energy += phi;
        }
        return energy;
    }

    /// The energy and virial of `sums` (energy, xx yy zz xy xz yz) into the system (no virial
    /// unless `withVirial`).
    private static void finish(AtomicSystem s, double[] sums, boolean withVirial) {
        double energy = sums[0];
        if (!Double.isFinite(energy)) {
            throw new IllegalStateException("system " + s.id() + ": the EAM energy is " + energy);
        }
        s.energy(energy);
        s.virial(withVirial ? new double[] {sums[1], sums[4], sums[5], sums[4], sums[2], sums[6], sums[5], sums[6], sums[3]} : null);
    }

    /// `compute` in `k` parts (`RowParts`) run on `crew` (null: the caller), each over the blocks
    /// of atoms it writes (`PartPlan`): pass 1 per part into its own densities, summed per atom in
    /// part order; pass 2 per share of the atoms; pass 3 per part into its own forces and sums,
    /// summed the same way. The caller holds `partsLock`.
    private void computeSplit(AtomicSystem s, Crew crew, int k, boolean withVirial) {
        int n = s.atoms();
        int[] type = species.types(s);
        NeighborList list = lists.current(s, crew);
        int[] start = list.start();
        int[] end = list.end();
        int[] second = list.second();
        PartPlan plan = plans.of(s.id(), list, list.builds(), n, k, second, start, end);
        if (parts.length < k) {
            Scratch[] more = Arrays.copyOf(parts, k);
            for (int p = parts.length; p < k; p++) {
                more[p] = new Scratch();
            }
            parts = more;
        }
        Scratch[] ps = parts;
        double[] r = s.positions();
        double[] f = s.forces();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double[][] rhos = new double[k][];
        double[][] forces = new double[k][];
        for (int p = 0; p < k; p++) { // each part's pair slots for its own rows' listed pairs
            ps[p].fit(n, plan.listed(p));
            rhos[p] = ps[p].rho;
            forces[p] = ps[p].force;
        }
        if (rhoSum.length < n) {
            rhoSum = new double[n];
            fpAll = new double[n];
        }
        double[] rho = rhoSum;
        double[] fp = fpAll;
        PartPlan rows = plan;
        RowParts.run(crew, k, p -> {
            Scratch w = ps[p];
            rows.clear(p, w.rho, 1);
            int kept = 0;
            for (int i = rows.bounds[p]; i < rows.bounds[p + 1]; i++) {
                kept = densities(s, w, i, start[i], end[i], kept, type, second, code, r, shift);
                w.insideEnd[i] = kept;
            }
        });
        RowParts.run(crew, k, p -> {
            int from = RowParts.from(n, p, k);
            int to = RowParts.from(n, p + 1, k);
            rows.sum(rhos, rho, 1, from, to);
            ps[p].embedding = embed(type, rho, fp, from, to);
        });
        RowParts.run(crew, k, p -> {
            Scratch w = ps[p];
            rows.clear(p, w.force, 3);
            Arrays.fill(w.sums, 0);
            int from = rows.bounds[p];
            for (int i = from; i < rows.bounds[p + 1]; i++) {
                pairForces(w, i, i == from ? 0 : w.insideEnd[i - 1], w.insideEnd[i], r, w.force, shift, fp, withVirial);
            }
        });
        RowParts.run(crew, k, p -> rows.sum(forces, f, 3, RowParts.from(n, p, k), RowParts.from(n, p + 1, k)));
        double[] sums = new double[7];
        for (int p = 0; p < k; p++) {
            sums[0] += ps[p].embedding;
        }
        for (int p = 0; p < k; p++) {
            for (int c = 0; c < 7; c++) {
                sums[c] += ps[p].sums[c];
            }
        }
        finish(s, sums, withVirial);
    }

    /// Pass 1 for atom i's listed pairs `[from, to)`: the ones inside the cutoff are kept (from
    /// `kept` on) for pass 3 — found without a branch on the distance (a slot is written for every
    /// listed pair and kept only if it is inside: about half are, unpredictably) — then add their
    /// densities, each keeping its distance for pass 3. Returns the new count kept.
    private int densities(AtomicSystem s, Scratch w, int i, int from, int to, int kept, int[] type, int[] second, short[] code, double[] r,
                          double[] shift) {
        int row = type[i] * t.elements.length;
        double xi = r[3 * i];
        double yi = r[3 * i + 1];
        double zi = r[3 * i + 2];
        double cutsq = t.cut * t.cut;
        double rdr = 1.0 / t.dr;
        int last = t.nr - 1;
        double[] rho = w.rho;
        double[] d = density;
        int[] kj = w.j;
        int[] kc = w.c3;
        double[] kr = w.r;
        int first = kept;
        for (int q = from; q < to; q++) {
            int j = second[q];
            int c = 3 * code[q];
            double dx = xi - (r[3 * j] + shift[c]);
            double dy = yi - (r[3 * j + 1] + shift[c + 1]);
            double dz = zi - (r[3 * j + 2] + shift[c + 2]);
            double rsq = dx * dx + dy * dy + dz * dz;
            kj[kept] = j;
            kc[kept] = c;
            kr[kept] = rsq;
            kept += rsq < cutsq ? 1 : 0;
        }
        for (int e = first; e < kept; e++) {
            int j = kj[e];
            double rsq = kr[e];
            overlap(s, i, j, rsq);
            int pt = row + type[j];
            double rij = Math.sqrt(rsq);
            kr[e] = rij;
            double p = rij * rdr + 1.0;
            int m = Math.min((int) p, last);
            p = Math.min(p - m, 1.0);
            int b = densityBase[pt] + 8 * m;
            double intoI = ((d[b] * p + d[b + 1]) * p + d[b + 2]) * p + d[b + 3];
            rho[i] += intoI;
            rho[j] += oneDensity[pt] ? intoI : ((d[b + 4] * p + d[b + 5]) * p + d[b + 6]) * p + d[b + 7];
            w.base[e] = forceBase[pt];
        }
        return kept;
    }

    /// Pass 3 for atom i's pairs `[from, to)` of those pass 1 kept (inside the cutoff): no
    /// distance test, so no unpredictable branch; the arithmetic and order of LAMMPS's loop.
    private void pairForces(Scratch w, int i, int from, int to, double[] r, double[] f, double[] shift, double[] fp, boolean withVirial) {
        double xi = r[3 * i];
        double yi = r[3 * i + 1];
        double zi = r[3 * i + 2];
        double fpi = fp[i];
        double rdr = 1.0 / t.dr;
        int last = t.nr - 1;
        double[] g = force;
        int[] kj = w.j;
        int[] kc = w.c3;
        int[] kb = w.base;
        double[] kr = w.r;
        double fxi = 0;
        double fyi = 0;
        double fzi = 0;
        double[] sums = w.sums;
        double energy = sums[0];
        double wxx = sums[1];
        double wyy = sums[2];
        double wzz = sums[3];
        double wxy = sums[4];
        double wxz = sums[5];
        double wyz = sums[6];
        for (int e = from; e < to; e++) {
            int j = kj[e];
            int c = kc[e];
            double dx = xi - (r[3 * j] + shift[c]);
            double dy = yi - (r[3 * j + 1] + shift[c + 1]);
            double dz = zi - (r[3 * j + 2] + shift[c + 2]);
            double rij = kr[e]; // pass 1's, of the same dx, dy, dz
            double p = rij * rdr + 1.0;
            int m = Math.min((int) p, last);
            p = Math.min(p - m, 1.0);
            int b = kb[e] + 16 * m;
            double rhoip = (g[b] * p + g[b + 1]) * p + g[b + 2];
            double rhojp = (g[b + 3] * p + g[b + 4]) * p + g[b + 5];
            double z2p = (g[b + 6] * p + g[b + 7]) * p + g[b + 8];
            double z2v = ((g[b + 9] * p + g[b + 10]) * p + g[b + 11]) * p + g[b + 12];
            double recip = 1.0 / rij;
            double phi = z2v * recip;
            double phip = z2p * recip - phi * recip;
            double psip = fpi * rhojp + fp[j] * rhoip + phip;
            double fpair = -psip * recip;
            fxi += dx * fpair;
            fyi += dy * fpair;
            fzi += dz * fpair;
            f[3 * j] -= dx * fpair;
            f[3 * j + 1] -= dy * fpair;
            f[3 * j + 2] -= dz * fpair;
            energy += phi;
            if (withVirial) {
                wxx += dx * dx * fpair;
                wyy += dy * dy * fpair;
                wzz += dz * dz * fpair;
                wxy += dx * dy * fpair;
                wxz += dx * dz * fpair;
                wyz += dy * dz * fpair;
            }
        }
        f[3 * i] += fxi;
        f[3 * i + 1] += fyi;
        f[3 * i + 2] += fzi;
        sums[0] = energy;
        sums[1] = wxx;
        sums[2] = wyy;
        sums[3] = wzz;
        sums[4] = wxy;
        sums[5] = wxz;
        sums[6] = wyz;
    }

    private static double value(double[] sp, int m, double p) {
        int b = 7 * m;
        return ((sp[b + 3] * p + sp[b + 4]) * p + sp[b + 5]) * p + sp[b + 6];
    }

    private static double derivative(double[] sp, int m, double p) {
        int b = 7 * m;
        return (sp[b] * p + sp[b + 1]) * p + sp[b + 2];
    }

    private static void overlap(AtomicSystem s, int i, int j, double rsq) {
        if (rsq < 1e-6) { // r < 1 mÅ: the tables start at r = 0 but no physics does
            throw new IllegalStateException("system " + s.id() + ": atoms " + i + " and " + j + " overlap (r = " + Math.sqrt(rsq) + " Å)");
        }
    }

}
