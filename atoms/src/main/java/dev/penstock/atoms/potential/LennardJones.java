package dev.penstock.atoms.potential;

/// Lennard-Jones: u(r) = 4ε[(σ/r)¹² − (σ/r)⁶], cut at `cutoff` (infinite: no cutoff), shifted
/// by −u(cutoff) when `shifted` so that the energy is continuous.
public final class LennardJones extends PairPotential {
    private final double epsilon;
    private final double sigma;
    private final double shift;
    private final LjLanes.Terms lanes;

    /// LJ with `epsilon`, `sigma`, `cutoff` (may be `Double.POSITIVE_INFINITY`), `shifted`.
    public LennardJones(double epsilon, double sigma, double cutoff, boolean shifted) {
        super(cutoff, 0.3 * sigma);
        if (!(epsilon > 0) || !(sigma > 0)) {
            throw new IllegalArgumentException("Lennard-Jones: 'epsilon' and 'sigma' must be positive, got " + epsilon + ", " + sigma);
        }
        this.epsilon = epsilon;
        this.sigma = sigma;
        this.shift = shifted && Double.isFinite(cutoff) ? raw(cutoff) : 0;
        double od = overlapDistance();
        this.lanes = new LjLanes.Terms(sigma * sigma, 4 * epsilon, shift, cutoff * cutoff, od * od);
    }

    /// ε, eV.
    public double epsilon() {
        return epsilon;
    }

    /// σ, Å.
    public double sigma() {
        return sigma;
    }

    /// The energy shift subtracted from every pair inside the cutoff (0 unless `shifted`).
    public double energyShift() {
        return shift;
    }

    private double raw(double r) {
        double s6 = Math.pow(sigma / r, 6);
        return 4 * epsilon * (s6 * s6 - s6);
    }

    @Override
    protected double energy(double r) {
        return raw(r) - shift;
    }

    @Override
    protected double derivative(double r) {
        double s6 = Math.pow(sigma / r, 6);
        return 4 * epsilon * (-12 * s6 * s6 + 6 * s6) / r;
    }

    @Override
    protected double energySquared(double r2, double[] g) {
        double inv2 = 1 / r2;
        double s2 = sigma * sigma * inv2;
        double s6 = s2 * s2 * s2;
        g[0] = 4 * epsilon * (-12 * s6 * s6 + 6 * s6) * inv2;
        return 4 * epsilon * (s6 * s6 - s6) - shift;
    }

    /// Lennard-Jones takes the lane sums over a full list (`LjLanes`).
    @Override
    LjLanes.Terms laneTerms() {
        return lanes;
    }

    @Override
    protected double overlapDistance() {
        return 1e-3 * sigma;
    }
}
