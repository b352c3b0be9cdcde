package dev.penstock.atoms.potential;

/// Morse: u(r) = D[(1 − e^{−a(r − r0)})² − 1], cut at `cutoff` and shifted to 0 there.
public final class Morse extends PairPotential {
    private final double depth;
    private final double a;
    private final double r0;
    private final double shift;

    /// Morse with well `depth` (eV), stiffness `a` (1/Å), minimum `r0` (Å) and `cutoff` (Å).
    public Morse(double depth, double a, double r0, double cutoff) {
        super(cutoff, 0.3);
        if (!(depth > 0) || !(a > 0) || !(r0 > 0)) {
            throw new IllegalArgumentException("Morse: 'depth', 'a' and 'r0' must be positive");
        }
        this.depth = depth;
        this.a = a;
        this.r0 = r0;
        this.shift = Double.isFinite(cutoff) ? raw(cutoff) : 0;
    }

    /// The well depth D, eV.
    public double depth() {
        return depth;
    }

    /// The stiffness a, 1/Å.
    public double stiffness() {
        return a;
    }

    /// The minimum r0, Å.
    public double minimum() {
        return r0;
    }

    /// What is subtracted from every pair energy inside the cutoff (u at the cutoff; 0 if none).
    public double energyShift() {
        return shift;
    }

    private double raw(double r) {
        double x = 1 - Math.exp(-a * (r - r0));
        return depth * (x * x - 1);
    }

    @Override
    protected double energy(double r) {
        return raw(r) - shift;
    }

    @Override
    protected double derivative(double r) {
        double ex = Math.exp(-a * (r - r0));
        return 2 * depth * a * (1 - ex) * ex;
    }

    @Override
    protected double overlapDistance() {
        return 1e-3 * r0;
    }
}
