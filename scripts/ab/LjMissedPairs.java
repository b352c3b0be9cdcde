/// How many pairs inside the cutoff a neighbour-list schedule leaves out: NVE of an extended XYZ (argon,
/// bench md's LJ liquid) with `lj(…, every=N)`, and at every step a fresh exact list (radius = cutoff) compared
/// with the list in use. Run (after ./penstock bench md has written target/bench/md-lj):
///   java --add-modules jdk.incubator.vector -cp "atoms/target/classes:core/target/classes:cli/target/lib/*" \
///     scripts/ab/LjMissedPairs.java target/bench/md-lj/full.xyz 300 20
import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.neighbor.NeighborList;
import dev.penstock.atoms.potential.LennardJones;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.atoms.integrate.VelocityVerlet;
import java.nio.file.*;
import java.util.*;

public class LjMissedPairs {
    static long[] keys(NeighborList l, int n) {
        int[] st = l.start(), en = l.end(), b = l.second(); short[] c = l.imageCodes();
        long[] k = new long[l.pairCount()]; int q = 0;
        for (int i = 0; i < n; i++) for (int p = st[i]; p < en[i]; p++) { int j = b[p]; k[q++] = Math.min(i, j) * (long) n + Math.max(i, j); }
        Arrays.sort(k); return k;
    }
    public static void main(String[] a) throws Exception {
        AtomicSystem sys = ExtXyz.read(Files.newBufferedReader(Path.of(a[0])), Path.of(a[0])).getFirst();
        int every = Integer.parseInt(a[2]);
        LennardJones lj = new LennardJones(0.0104, 3.4, 8.5, false);
        lj.rebuildEvery(every);
        int steps = Integer.parseInt(a[1]);
        double dt = 10.7262795276 * 0.09822694788464063;
        int n = sys.atoms();
        lj.compute(sys);
        long[] listed = keys(lj.neighborList(sys.id()), n);
        long missedTotal = 0; int buildsWithMiss = 0;
        for (int k = 1; k <= steps; k++) {
            VelocityVerlet.halfKick(sys.velocities(), sys.forces(), sys.masses(), n, dt);
            VelocityVerlet.drift(sys.positions(), sys.velocities(), 3 * n, dt);
            long before = lj.neighborList(sys.id()).builds();
            lj.compute(sys);
            if (lj.neighborList(sys.id()).builds() != before) listed = keys(lj.neighborList(sys.id()), n);
            // pairs inside the cutoff at this evaluation that the list it used lacks
            NeighborList exact = new NeighborList(8.5, 0);
            exact.build(sys);
            long[] inside = keys(exact, n);
            long missed = 0;
            for (long key : inside) if (Arrays.binarySearch(listed, key) < 0) missed++;
            if (missed > 0) { missedTotal += missed; buildsWithMiss++; }
            VelocityVerlet.halfKick(sys.velocities(), sys.forces(), sys.masses(), n, dt);
        }
        System.out.printf("every %d: %d steps, dangerous builds %d of %d, steps with a pair inside the cutoff unlisted %d, such pair-steps %d%n",
                every, steps, lj.dangerousBuilds(), lj.neighborList(sys.id()).builds(), buildsWithMiss, missedTotal);
    }
}
