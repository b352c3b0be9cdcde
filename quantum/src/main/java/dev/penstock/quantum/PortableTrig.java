package dev.penstock.quantum;

/// sin and cos made of IEEE additions and multiplications only — no library call, no fused
/// multiply-add — so that the Vector API's lanes (`VectorKernels.sinCos`, the same operations), compiled or
/// interpreted, and this scalar form give the same bits on every run. (The Vector API's `SIN`/`COS` call one library when C2 has compiled
/// the loop and `Math.sin` lane by lane before: a state could differ in its last bit between two
/// runs of the same input, depending on when the JIT got there.)
///
/// t = k·π/2 + r with k = rint(t·2/π) (by the add-and-subtract of 1.5·2^52) and r = t − k·π/2 in
/// three parts (π/2's first two parts have 33 significant bits, so k·part is exact for |k| < 2^20);
/// sin r and cos r by their Taylor polynomials to degree 23 and 24 by Horner's rule (|r| ≤ π/4:
/// the truncation is below 1e-24); the quadrant k mod 4 swaps and negates them. Within 2 ulp of
/// the true values for |t| ≤ 2^20 (tested against `StrictMath`); beyond that, and for non-finite
/// t, `StrictMath` (fdlibm, itself the same bits everywhere).
final class PortableTrig {
    static final double LIMIT = 1 << 20;
    static final double TWO_OVER_PI = 0.6366197723675814;
    static final double PIO2_1 = 1.5707963267341256;
    static final double PIO2_2 = 6.077100506303966e-11;
    static final double PIO2_3 = 2.0222662487959506e-21;
    static final double SHIFTER = 6755399441055744.0; // 1.5·2^52
    static final long SHIFTER_BITS = Double.doubleToRawLongBits(SHIFTER);
    /// (−1)^k/(2k+1)! for k = 11 … 1 (Horner's order): sin's terms after r.
    static final double[] S = {-3.868170170630684e-23, 1.9572941063391263e-20, -8.22063524662433e-18, 2.8114572543455206e-15,
        -7.647163731819816e-13, 1.6059043836821613e-10, -2.505210838544172e-08, 2.7557319223985893e-06, -0.0001984126984126984,
        0.008333333333333333, -0.16666666666666666};
    /// (−1)^k/(2k)! for k = 12 … 1: cos's terms after 1.
    static final double[] C = {1.6117375710961184e-24, -8.896791392450574e-22, 4.110317623312165e-19, -1.5619206968586225e-16,
        4.779477332387385e-14, -1.1470745597729725e-11, 2.08767569878681e-09, -2.755731922398589e-07, 2.48015873015873e-05,
        -0.001388888888888889, 0.041666666666666664, -0.5};

    private PortableTrig() {
    }

    /// sin t into `sin`, cos t into `cos` (see the class), for t = `t[i]`, i in [from, to).
    static void sinCos(double[] t, int from, int to, double[] sin, double[] cos) {
        for (int i = from; i < to; i++) {
            double x = t[i];
            if (!(Math.abs(x) <= LIMIT)) {
                sin[i] = StrictMath.sin(x);
                cos[i] = StrictMath.cos(x);
                continue;
            }
            double shifted = x * TWO_OVER_PI + SHIFTER;
            double k = shifted - SHIFTER;
            double r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
            double r2 = r * r;
            double ps = S[0];
            for (int j = 1; j < S.length; j++) {
                ps = ps * r2 + S[j];
            }
            double s = r + r * (r2 * ps);
            double pc = C[0];
            for (int j = 1; j < C.length; j++) {
                pc = pc * r2 + C[j];
            }
            double c = 1 + r2 * pc;
            long q = Double.doubleToRawLongBits(shifted) - SHIFTER_BITS;
            double a = (q & 1) == 0 ? s : c;
            double b = (q & 1) == 0 ? c : s;
            sin[i] = (q & 2) == 0 ? a : -a;
            cos[i] = ((q + 1) & 2) == 0 ? b : -b;
        }
    }
}
