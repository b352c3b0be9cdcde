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
        double[] lanes = new double[FullList.LANES];
        double energy = 0;
        DoubleVector wxx = zero;
        DoubleVector wyy = zero;
        DoubleVector wzz = zero;
        DoubleVector wxy = zero;
        DoubleVector wxz = zero;
        DoubleVector wyz = zero;
        for (int i = lo; i < hi; i++) {
            double xi = x[i];
            double yi = y[i];
            double zi = z[i];
            DoubleVector fx = zero;
            DoubleVector fy = zero;
            DoubleVector fz = zero;
            DoubleVector ev = zero;
            for (int p = start[i]; p < start[i + 1]; p += FullList.LANES) {
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
                DoubleVector gx = g.mul(dx);
                DoubleVector gy = g.mul(dy);
                DoubleVector gz = g.mul(dz);
                fx = fx.add(gx);
                fy = fy.add(gy);
                fz = fz.add(gz);
                ev = ev.add(e);
                if (virial) {
                    wxx = wxx.add(gx.mul(dx));
                    wyy = wyy.add(gy.mul(dy));
                    wzz = wzz.add(gz.mul(dz));
                    wxy = wxy.add(gx.mul(dy));
                    wxz = wxz.add(gx.mul(dz));
                    wyz = wyz.add(gy.mul(dz));
                }
            }
            fx.intoArray(lanes, 0);
            f[3 * i] = LjLanes.fold(lanes);
            fy.intoArray(lanes, 0);
            f[3 * i + 1] = LjLanes.fold(lanes);
            fz.intoArray(lanes, 0);
            f[3 * i + 2] = LjLanes.fold(lanes);
            ev.intoArray(lanes, 0);
            energy += 0.5 * LjLanes.fold(lanes);
        }
        if (virial) { // each sum stored on its own (an array of the vectors would box them: a third of the loop's speed lost)
            wxx.intoArray(lanes, 0);
            w[0] = -0.5 * LjLanes.fold(lanes);
            wyy.intoArray(lanes, 0);
            w[1] = -0.5 * LjLanes.fold(lanes);
            wzz.intoArray(lanes, 0);
            w[2] = -0.5 * LjLanes.fold(lanes);
            wxy.intoArray(lanes, 0);
            w[3] = -0.5 * LjLanes.fold(lanes);
            wxz.intoArray(lanes, 0);
            w[4] = -0.5 * LjLanes.fold(lanes);
            wyz.intoArray(lanes, 0);
            w[5] = -0.5 * LjLanes.fold(lanes);
        }
        return energy;
    }
}
