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
        K[] ks = {LjLoopProbe::base, LjLoopProbe::noEnergy, LjLoopProbe::split, LjLoopProbe::branchless};
        String[] names = {"base", "noEnergy", "split", "branchless"};
        double[][] t = new double[4][7];
        for (int round = -3; round < 7; round++) {
            for (int k = 0; k < 4; k++) {
                long t0 = System.nanoTime();
                for (int rep = 0; rep < 20; rep++) { java.util.Arrays.fill(f, 0); ks[k].run(list, r, f, RC * RC); }
                if (round >= 0) t[k][round] = (System.nanoTime() - t0) / 20e6;
            }
        }
        for (int k = 0; k < 4; k++) { java.util.Arrays.sort(t[k]); System.out.printf("%s: %.2f ms per evaluation (median), %.2f ns/pair%n", names[k], t[k][3], t[k][3] * 1e6 / pairs); }
    }
}
