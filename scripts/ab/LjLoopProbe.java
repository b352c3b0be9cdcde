/// A probe of the LJ pair loop's variants on one state (an extended XYZ or LAMMPS data file of
/// argon, ε 0.0104 eV, σ 3.4 Å, cutoff 8.5 Å, skin 0.3σ): the loop `PairPotential.listSum` ran
/// before 2026-12-05 (`base`), without the energy sum (`noEnergy`), skipping the shift table for
/// unshifted pairs (`split`, what it runs now) and with the cutoff test as a select
/// (`branchless`); each evaluated 20 times a round, rounds alternating, medians. With a second
/// argument W the atoms are first sorted by cells of W Å (LAMMPS's `atom_modify sort`). Run:
///   javac -cp atoms/target/classes:core/target/classes -d /tmp/probe scripts/ab/LjLoopProbe.java
///   java -cp /tmp/probe:atoms/target/classes:core/target/classes LjLoopProbe target/bench/md-lj/out-full.xyz [4.76]
import dev.penstock.atoms.io.LammpsData;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.system.AtomicSystem;
import java.nio.file.Path;

public class LjLoopProbe {
    static final double EPS = 0.0104, SIG = 3.4, RC = 8.5;
    static short ZERO;

    static double base(NeighborList list, double[] r, double[] f, double rc2) {
        int[] start = list.start(), end = list.end(), b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double e = 0;
        for (int i = 0; i < start.length && i < r.length / 3; i++) {
            double xi = r[3 * i], yi = r[3 * i + 1], zi = r[3 * i + 2];
            double fx = 0, fy = 0, fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int c = 3 * code[p];
                double dx = r[3 * j] + shift[c] - xi;
                double dy = r[3 * j + 1] + shift[c + 1] - yi;
                double dz = r[3 * j + 2] + shift[c + 2] - zi;
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) continue;
                double inv2 = 1 / r2;
                double s2 = SIG * SIG * inv2;
                double s6 = s2 * s2 * s2;
                double g = 4 * EPS * (-12 * s6 * s6 + 6 * s6) * inv2;
                e += 4 * EPS * (s6 * s6 - s6);
                fx += g * dx; fy += g * dy; fz += g * dz;
                f[3 * j] -= g * dx; f[3 * j + 1] -= g * dy; f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx; f[3 * i + 1] += fy; f[3 * i + 2] += fz;
        }
        return e;
    }

    static double noEnergy(NeighborList list, double[] r, double[] f, double rc2) {
        int[] start = list.start(), end = list.end(), b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        for (int i = 0; i < start.length && i < r.length / 3; i++) {
            double xi = r[3 * i], yi = r[3 * i + 1], zi = r[3 * i + 2];
            double fx = 0, fy = 0, fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int c = 3 * code[p];
                double dx = r[3 * j] + shift[c] - xi;
                double dy = r[3 * j + 1] + shift[c + 1] - yi;
                double dz = r[3 * j + 2] + shift[c + 2] - zi;
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) continue;
                double inv2 = 1 / r2;
                double s2 = SIG * SIG * inv2;
                double s6 = s2 * s2 * s2;
                double g = 4 * EPS * (-12 * s6 * s6 + 6 * s6) * inv2;
                fx += g * dx; fy += g * dy; fz += g * dz;
                f[3 * j] -= g * dx; f[3 * j + 1] -= g * dy; f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx; f[3 * i + 1] += fy; f[3 * i + 2] += fz;
        }
        return 0;
    }

    static double split(NeighborList list, double[] r, double[] f, double rc2) {
        int[] start = list.start(), end = list.end(), b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double e = 0;
        for (int i = 0; i < start.length && i < r.length / 3; i++) {
            double xi = r[3 * i], yi = r[3 * i + 1], zi = r[3 * i + 2];
            double fx = 0, fy = 0, fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int k = code[p];
                double dx = r[3 * j] - xi;
                double dy = r[3 * j + 1] - yi;
                double dz = r[3 * j + 2] - zi;
                if (k != ZERO) { int c = 3 * k; dx += shift[c]; dy += shift[c + 1]; dz += shift[c + 2]; }
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 >= rc2) continue;
                double inv2 = 1 / r2;
                double s2 = SIG * SIG * inv2;
                double s6 = s2 * s2 * s2;
                double g = 4 * EPS * (-12 * s6 * s6 + 6 * s6) * inv2;
                e += 4 * EPS * (s6 * s6 - s6);
                fx += g * dx; fy += g * dy; fz += g * dz;
                f[3 * j] -= g * dx; f[3 * j + 1] -= g * dy; f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx; f[3 * i + 1] += fy; f[3 * i + 2] += fz;
        }
        return e;
    }

    static double branchless(NeighborList list, double[] r, double[] f, double rc2) {
        int[] start = list.start(), end = list.end(), b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        double e = 0;
        for (int i = 0; i < start.length && i < r.length / 3; i++) {
            double xi = r[3 * i], yi = r[3 * i + 1], zi = r[3 * i + 2];
            double fx = 0, fy = 0, fz = 0;
            for (int p = start[i]; p < end[i]; p++) {
                int j = b[p];
                int k = code[p];
                double dx, dy, dz;
                if (k == ZERO) { dx = r[3 * j] - xi; dy = r[3 * j + 1] - yi; dz = r[3 * j + 2] - zi; }
                else { int c = 3 * k; dx = r[3 * j] + shift[c] - xi; dy = r[3 * j + 1] + shift[c + 1] - yi; dz = r[3 * j + 2] + shift[c + 2] - zi; }
                double r2 = dx * dx + dy * dy + dz * dz;
                double inv2 = r2 < rc2 ? 1 / r2 : 0;
                double s2 = SIG * SIG * inv2;
                double s6 = s2 * s2 * s2;
                double g = 4 * EPS * (-12 * s6 * s6 + 6 * s6) * inv2;
                e += 4 * EPS * (s6 * s6 - s6);
                fx += g * dx; fy += g * dy; fz += g * dz;
                f[3 * j] -= g * dx; f[3 * j + 1] -= g * dy; f[3 * j + 2] -= g * dz;
            }
            f[3 * i] += fx; f[3 * i + 1] += fy; f[3 * i + 2] += fz;
        }
        return e;
    }

    /// The full list over ghost atoms (LAMMPS's images as atoms of their own, coordinates in
    /// struct-of-arrays), each atom's partners padded to a multiple of the vector length with a
    /// far sentinel: forces gathered per atom, no scatter, the cutoff a lane mask.
    static final jdk.incubator.vector.VectorSpecies<Double> S = jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED;
    static int[] fullStart, nbr;
    static double[] gx, gy, gz;

    static void ghosts(NeighborList list, double[] r, int n) {
        int[] start = list.start(), end = list.end(), b = list.second();
        short[] code = list.imageCodes();
        double[] shift = list.imageShifts();
        java.util.Map<Long, Integer> ghostOf = new java.util.HashMap<>();
        java.util.List<double[]> extra = new java.util.ArrayList<>();
        int[] count = new int[n];
        for (int i = 0; i < n; i++) for (int p = start[i]; p < end[i]; p++) { count[i]++; count[b[p]]++; }
        fullStart = new int[n + 1];
        int L = S.length();
        for (int i = 0; i < n; i++) fullStart[i + 1] = fullStart[i] + (count[i] + L - 1) / L * L;
        nbr = new int[fullStart[n]];
        int[] at = java.util.Arrays.copyOf(fullStart, n);
        java.util.function.BiFunction<Integer, double[], Integer> ghost = (atom, d) -> {
            long key = ((long) atom << 24) ^ (Math.round(d[0] * 8) + 4096) << 16 ^ (Math.round(d[1] * 8) + 4096) << 8 ^ (Math.round(d[2] * 8) + 4096);
            return ghostOf.computeIfAbsent(key, x -> { extra.add(new double[] {r[3 * atom] + d[0], r[3 * atom + 1] + d[1], r[3 * atom + 2] + d[2]}); return n + extra.size() - 1; });
        };
        for (int i = 0; i < n; i++) for (int p = start[i]; p < end[i]; p++) {
            int j = b[p];
            int c = 3 * code[p];
            if (code[p] == ZERO) { nbr[at[i]++] = j; nbr[at[j]++] = i; }
            else {
                nbr[at[i]++] = ghost.apply(j, new double[] {shift[c], shift[c + 1], shift[c + 2]});
                nbr[at[j]++] = ghost.apply(i, new double[] {-shift[c], -shift[c + 1], -shift[c + 2]});
            }
        }
        int total = n + extra.size() + 1;
        gx = new double[total]; gy = new double[total]; gz = new double[total];
        for (int i = 0; i < n; i++) { gx[i] = r[3 * i]; gy[i] = r[3 * i + 1]; gz[i] = r[3 * i + 2]; }
        for (int g = 0; g < extra.size(); g++) { gx[n + g] = extra.get(g)[0]; gy[n + g] = extra.get(g)[1]; gz[n + g] = extra.get(g)[2]; }
        gx[total - 1] = 1e10; gy[total - 1] = 1e10; gz[total - 1] = 1e10;
        for (int i = 0; i < n; i++) for (int p = at[i]; p < fullStart[i + 1]; p++) nbr[p] = total - 1;
        System.out.printf("ghosts %d, full entries %d (padded)%n", extra.size(), nbr.length);
    }

    static double vectorFull(NeighborList list, double[] r, double[] f, double rc2) {
        var ZEROV = jdk.incubator.vector.DoubleVector.zero(S);
        var ONEV = jdk.incubator.vector.DoubleVector.broadcast(S, 1.0);
        int n = fullStart.length - 1;
        double e = 0;
        double c12 = -48 * EPS * Math.pow(SIG, 12), c6 = 24 * EPS * Math.pow(SIG, 6);
        double e12 = 4 * EPS * Math.pow(SIG, 12), e6 = 4 * EPS * Math.pow(SIG, 6);
        int L = S.length();
        for (int i = 0; i < n; i++) {
            double xi = gx[i], yi = gy[i], zi = gz[i];
            var fx = ZEROV; var fy = ZEROV; var fz = ZEROV; var ev = ZEROV;
            for (int p = fullStart[i]; p < fullStart[i + 1]; p += L) {
                var dx = jdk.incubator.vector.DoubleVector.fromArray(S, gx, 0, nbr, p).sub(xi);
                var dy = jdk.incubator.vector.DoubleVector.fromArray(S, gy, 0, nbr, p).sub(yi);
                var dz = jdk.incubator.vector.DoubleVector.fromArray(S, gz, 0, nbr, p).sub(zi);
                var r2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz));
                var in = r2.lt(rc2);
                var inv2 = ZEROV.blend(ONEV.div(r2), in);
                var inv6 = inv2.mul(inv2).mul(inv2);
                var g = inv6.mul(c12).add(c6).mul(inv6).mul(inv2);
                ev = ev.add(inv6.mul(e12).sub(e6).mul(inv6));
                fx = fx.add(g.mul(dx)); fy = fy.add(g.mul(dy)); fz = fz.add(g.mul(dz));
            }
            f[3 * i] += fx.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
            f[3 * i + 1] += fy.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
            f[3 * i + 2] += fz.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
            e += 0.5 * ev.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
        }
        return e;
    }

    interface K { double run(NeighborList l, double[] r, double[] f, double rc2); }

    public static void main(String[] a) throws Exception {
        AtomicSystem s = a[0].endsWith(".xyz") ? dev.penstock.atoms.io.ExtXyz.read(java.nio.file.Files.newBufferedReader(Path.of(a[0])), Path.of(a[0])).getFirst()
                : LammpsData.read(Path.of(a[0]), 1, 18);
        if (a.length > 1) { // sort the atoms by cell (cells of a.length[1] Å), z-y-x order
            double w = Double.parseDouble(a[1]);
            int n = s.atoms();
            double[] pos = s.positions();
            Integer[] idx = new Integer[n];
            for (int i = 0; i < n; i++) idx[i] = i;
            double L = s.cell().vector(0, 0);
            int nc = (int) Math.floor(L / w);
            java.util.function.ToLongFunction<Integer> key = i -> {
                long cx = (long) Math.floorMod((int) Math.floor(pos[3 * i] / w), nc), cy = (long) Math.floorMod((int) Math.floor(pos[3 * i + 1] / w), nc), cz = (long) Math.floorMod((int) Math.floor(pos[3 * i + 2] / w), nc);
                return (cz * nc + cy) * nc + cx;
            };
            java.util.Arrays.sort(idx, java.util.Comparator.comparingLong(key));
            double[] np = new double[3 * n];
            for (int k = 0; k < n; k++) System.arraycopy(pos, 3 * idx[k], np, 3 * k, 3);
            s = new AtomicSystem(1, np, s.masses().clone(), s.numbers().clone(), s.cell());
            System.out.println("sorted by cells of " + w + " Å");
        }
        NeighborList list = new NeighborList(RC, 0.3 * SIG);
        list.build(s);
        double[] r = s.positions();
        double[] f = new double[r.length];
        long pairs = 0, shifted = 0;
        java.util.Map<Short, Integer> counts = new java.util.HashMap<>();
        for (int i = 0; i < s.atoms(); i++) for (int p = list.start()[i]; p < list.end()[i]; p++) { pairs++; counts.merge(list.imageCodes()[p], 1, Integer::sum); }
        short zero = counts.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).get().getKey();
        ZERO = zero;
        shifted = pairs - counts.get(zero);
        System.out.println("zero code " + zero + " shift " + list.imageShifts()[3 * zero] + "," + list.imageShifts()[3 * zero + 1] + "," + list.imageShifts()[3 * zero + 2]);
        System.out.printf("pairs %d, shifted %.3f%n", pairs, (double) shifted / pairs);
        ghosts(list, r, s.atoms());
        double[] fa = new double[r.length], fb = new double[r.length];
        double ea = split(list, r, fa, RC * RC), eb = vectorFull(list, r, fb, RC * RC);
        double worst = 0;
        for (int q = 0; q < fa.length; q++) worst = Math.max(worst, Math.abs(fa[q] - fb[q]));
        System.out.printf("energy %.12g vs %.12g, max |df| %.3g%n", ea, eb, worst);
        K[] ks = {LjLoopProbe::base, LjLoopProbe::noEnergy, LjLoopProbe::split, LjLoopProbe::branchless, LjLoopProbe::vectorFull};
        String[] names = {"base", "noEnergy", "split", "branchless", "vectorFull"};
        double[][] t = new double[5][7];
        for (int round = -3; round < 7; round++) {
            for (int k = 0; k < 5; k++) {
                long t0 = System.nanoTime();
                for (int rep = 0; rep < 20; rep++) { java.util.Arrays.fill(f, 0); ks[k].run(list, r, f, RC * RC); }
                if (round >= 0) t[k][round] = (System.nanoTime() - t0) / 20e6;
            }
        }
        for (int k = 0; k < 5; k++) { java.util.Arrays.sort(t[k]); System.out.printf("%s: %.2f ms per evaluation (median), %.2f ns/pair%n", names[k], t[k][3], t[k][3] * 1e6 / pairs); }
    }
}
