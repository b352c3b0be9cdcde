package dev.penstock.atoms.device;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;

/// An exponential made of IEEE 754 additions, multiplications and exact scalings only, so that
/// the CPU kernels (scalar and vector lanes) and `relax.cu` (built without fused multiply-adds)
/// compute the same bits — which `Math.exp` and CUDA's `exp` do not promise each other.
///
/// e^x = 2^k · p(r): k = rint(x / ln 2) (by the add-and-subtract of 1.5·2^52), r = x − k·ln 2 in
/// two parts (the high part's product exact), p the Taylor polynomial of degree 13 by Horner's
/// rule (|r| ≤ 0.347: the truncation is below 1e-17), 2^k built from k's bits. Within 2 ulp of
/// the true value for x in [−708, 709]; below that 0, above it +∞, NaN for NaN.
public final class PortableMath {
    static final double INV_LN2 = 1.4426950408889634;
    /// ln 2 with its low 32 significand bits cleared (so k·LN2_HI is exact for |k| < 2^11).
    static final double LN2_HI = 0.6931467056274414;
    /// ln 2 − LN2_HI.
    static final double LN2_LO = 4.7493250390316726e-07;
    /// 1.5·2^52: adding and subtracting it rounds to an integer (|t| < 2^51); the sum's low bits are that integer.
    static final double SHIFTER = 6755399441055744.0;
    static final long SHIFTER_BITS = Double.doubleToRawLongBits(SHIFTER);
    static final double LOW = -708;
    static final double HIGH = 709;
    /// 1/k! for k = 13 … 2 (Horner's order).
    static final double[] C = {1.6059043836821613e-10, 2.08767569878681e-09, 2.505210838544172e-08, 2.755731922398589e-07,
        2.7557319223985893e-06, 2.48015873015873e-05, 0.0001984126984126984, 0.001388888888888889, 0.008333333333333333,
        0.041666666666666664, 0.16666666666666666, 0.5};

    private PortableMath() {
    }

    /// e^x (see the class).
    public static double exp(double x) {
        if (x < LOW) {
            return 0;
        }
        if (x > HIGH) {
            return Double.POSITIVE_INFINITY;
        }
        double t = x * INV_LN2 + SHIFTER;
        double k = t - SHIFTER;
        double r = (x - k * LN2_HI) - k * LN2_LO;
        double p = C[0];
        for (int i = 1; i < C.length; i++) {
            p = p * r + C[i];
        }
        p = p * r + 1;
        p = p * r + 1;
        long bits = Double.doubleToRawLongBits(t) - SHIFTER_BITS;
        return p * Double.longBitsToDouble((bits + 1023) << 52);
    }

    /// e^x lane by lane, the same bits as `exp(double)` in every lane.
    public static DoubleVector exp(DoubleVector x) {
        DoubleVector t = x.mul(INV_LN2).add(SHIFTER);
        DoubleVector k = t.sub(SHIFTER);
        DoubleVector r = x.sub(k.mul(LN2_HI)).sub(k.mul(LN2_LO));
        DoubleVector p = DoubleVector.broadcast(x.species(), C[0]);
        for (int i = 1; i < C.length; i++) {
            p = p.mul(r).add(C[i]);
        }
        p = p.mul(r).add(1);
        p = p.mul(r).add(1);
        LongVector bits = (LongVector) t.reinterpretAsLongs();
        DoubleVector scale = bits.sub(SHIFTER_BITS).add(1023).lanewise(VectorOperators.LSHL, 52).reinterpretAsDoubles();
        DoubleVector e = p.mul(scale);
        e = e.blend(0.0, x.compare(VectorOperators.LT, LOW));
        return e.blend(Double.POSITIVE_INFINITY, x.compare(VectorOperators.GT, HIGH));
    }
}
