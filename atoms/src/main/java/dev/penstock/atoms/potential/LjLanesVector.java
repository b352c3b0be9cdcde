package dev.penstock.atoms.potential;

import dev.penstock.atoms.neighbor.FullList;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/// `LjLanes.sum` with the `FullList.LANES` lanes as one vector of the Vector API (256 bits: four
/// doubles, on any x86-64 with AVX2): gathers of the partners' coordinates, the cutoff a mask.
/// Loaded only when the JVM has the Vector API.
final class LjLanesVector {
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;

    static {
        if (S.length() != FullList.LANES) {
            throw new AssertionError("lanes: " + S.length());
        }
    }

    private LjLanesVector() {
    }

    static double sum(FullList list, LjLanes.Terms t, double[] f, int lo, int hi, int[] overlap, double[] w) {
        boolean virial = w != null;
        int[] start = list.start();
        int[] localEnd = list.localEnd();
        int[] nb = list.partners();
        double[] x = list.x();
        double[] y = list.y();
        double[] z = list.z();
        DoubleVector zero = DoubleVector.zero(S);
        DoubleVector one = DoubleVector.broadcast(S, 1);
        double rc2 = t.rc2();
        double od2 = t.od2();
        double sigma2 = t.sigma2();
        double fourEps = t.fourEps();
        double shift = t.shift();
        int lanes = FullList.LANES;
        double[] fold = new double[lanes];
        // the ghosts' pairs (virial only): lanes of g·d⊗d over the range (xx yy zz xy xz yz), then
        // the row's force from its ghosts (x y z), kept here between rows so that only the groups
        // from a row's first ghost on (the second loop) carry the virial's vectors
        double[] ghost = new double[9 * lanes];
        double[] local = new double[6]; // Σ (F_i − F_i from ghosts) ⊗ r_i: the atoms' pairs with each other
        double energy = 0;
        for (int i = lo; i < hi; i++) {
            double xi = x[i];
            double yi = y[i];
            double zi = z[i];
            DoubleVector fx = zero;
            DoubleVector fy = zero;
            DoubleVector fz = zero;
            DoubleVector ev = zero;
            int le = localEnd[i];
            int end = start[i + 1];
            // the virial's groups: from the one holding the first ghost (none without a virial)
            int from = virial ? Math.min(end, start[i] + (le - start[i]) / lanes * lanes) : end;
            // two loops, not one with a branch for the virial: its nine vectors would then live
            // across every group (and spill), where here only the groups from the first ghost carry them
            for (int p = start[i]; p < from; p += lanes) { // as the loop below, without the virial
                DoubleVector dx = DoubleVector.fromArray(S, x, 0, nb, p).sub(xi);
                DoubleVector dy = DoubleVector.fromArray(S, y, 0, nb, p).sub(yi);
                DoubleVector dz = DoubleVector.fromArray(S, z, 0, nb, p).sub(zi);
                DoubleVector r2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz));
                if (overlap[0] < 0 && r2.lt(od2).anyTrue()) {
                    overlap[0] = i;
                }
                VectorMask<Double> in = r2.compare(VectorOperators.GE, rc2).not(); // NaN inside: it reaches the energy
                DoubleVector inv2 = zero.blend(one.div(r2), in);
                DoubleVector s2 = inv2.mul(sigma2);
                DoubleVector s6 = s2.mul(s2).mul(s2);
                DoubleVector g = s6.mul(-12).add(6).mul(s6).mul(fourEps).mul(inv2);
                DoubleVector e = zero.blend(s6.sub(1).mul(s6).mul(fourEps).sub(shift), in);
                fx = fx.add(g.mul(dx));
                fy = fy.add(g.mul(dy));
                fz = fz.add(g.mul(dz));
                ev = ev.add(e);
            }
            if (from < end) {
                DoubleVector wxx = DoubleVector.fromArray(S, ghost, 0);
                DoubleVector wyy = DoubleVector.fromArray(S, ghost, lanes);
                DoubleVector wzz = DoubleVector.fromArray(S, ghost, 2 * lanes);
                DoubleVector wxy = DoubleVector.fromArray(S, ghost, 3 * lanes);
                DoubleVector wxz = DoubleVector.fromArray(S, ghost, 4 * lanes);
                DoubleVector wyz = DoubleVector.fromArray(S, ghost, 5 * lanes);
                DoubleVector hfx = zero;
                DoubleVector hfy = zero;
                DoubleVector hfz = zero;
                for (int p = from; p < end; p += lanes) {
                    DoubleVector dx = DoubleVector.fromArray(S, x, 0, nb, p).sub(xi);
                    DoubleVector dy = DoubleVector.fromArray(S, y, 0, nb, p).sub(yi);
                    DoubleVector dz = DoubleVector.fromArray(S, z, 0, nb, p).sub(zi);
                    DoubleVector r2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz));
                    if (overlap[0] < 0 && r2.lt(od2).anyTrue()) {
                        overlap[0] = i;
                    }
                    VectorMask<Double> in = r2.compare(VectorOperators.GE, rc2).not();
                    DoubleVector inv2 = zero.blend(one.div(r2), in);
                    DoubleVector s2 = inv2.mul(sigma2);
                    DoubleVector s6 = s2.mul(s2).mul(s2);
                    DoubleVector g = s6.mul(-12).add(6).mul(s6).mul(fourEps).mul(inv2);
                    DoubleVector e = zero.blend(s6.sub(1).mul(s6).mul(fourEps).sub(shift), in);
                    DoubleVector gx = g.mul(dx);
                    DoubleVector gy = g.mul(dy);
                    DoubleVector gz = g.mul(dz);
                    fx = fx.add(gx);
                    fy = fy.add(gy);
                    fz = fz.add(gz);
                    ev = ev.add(e);
                    VectorMask<Double> ghosts = S.indexInRange(p, le).not(); // lanes p + q ≥ le
                    DoubleVector hx = zero.blend(gx, ghosts);
                    DoubleVector hy = zero.blend(gy, ghosts);
                    DoubleVector hz = zero.blend(gz, ghosts);
                    wxx = wxx.add(hx.mul(dx));
                    wyy = wyy.add(hy.mul(dy));
                    wzz = wzz.add(hz.mul(dz));
                    wxy = wxy.add(hx.mul(dy));
                    wxz = wxz.add(hx.mul(dz));
                    wyz = wyz.add(hy.mul(dz));
                    hfx = hfx.add(hx);
                    hfy = hfy.add(hy);
                    hfz = hfz.add(hz);
                }
                // each stored on its own (an array of the vectors would box them)
                wxx.intoArray(ghost, 0);
                wyy.intoArray(ghost, lanes);
                wzz.intoArray(ghost, 2 * lanes);
                wxy.intoArray(ghost, 3 * lanes);
                wxz.intoArray(ghost, 4 * lanes);
                wyz.intoArray(ghost, 5 * lanes);
                hfx.intoArray(ghost, 6 * lanes);
                hfy.intoArray(ghost, 7 * lanes);
                hfz.intoArray(ghost, 8 * lanes);
            }
            fx.intoArray(fold, 0);
            f[3 * i] = LjLanes.fold(fold);
            fy.intoArray(fold, 0);
            f[3 * i + 1] = LjLanes.fold(fold);
            fz.intoArray(fold, 0);
            f[3 * i + 2] = LjLanes.fold(fold);
            ev.intoArray(fold, 0);
            energy += 0.5 * LjLanes.fold(fold);
            if (virial) {
                LjLanes.local(f, i, xi, yi, zi, ghost, from < end, local);
            }
        }
        if (virial) {
            LjLanes.virial(ghost, local, w);
        }
        return energy;
    }
}
