package dev.penstock.atoms.integrate;

import dev.penstock.atoms.system.AtomicSystem;

/// Langevin BAOAB on one system, the per-system reference of the tests (main code runs it only as
/// the device stages' batch kernels, over the same `Langevin.baoab`): dt (τ), kT (eV), γ (1/τ),
/// the noise keyed by (seed, system id, step).
public final class LangevinReference implements Integrator {
    private final double dt;
    private final double kT;
    private final double c1;
    private final double c2;
    private final long seed;
    private long step;
    private double[] xi = new double[0];

    /// An integrator with time step `dt` (τ), temperature `kT` (eV), friction `gamma` (1/τ).
    public LangevinReference(double dt, double kT, double gamma, long seed) {
        if (!(dt > 0) || !(kT >= 0) || !(gamma >= 0)) {
            throw new IllegalArgumentException("Langevin: 'dt' must be positive and 'kT', 'gamma' non-negative, got "
                    + dt + ", " + kT + ", " + gamma);
        }
        this.dt = dt;
        this.kT = kT;
        this.c1 = Langevin.damping(gamma, dt);
        this.c2 = Langevin.noise(c1);
        this.seed = seed;
    }

    /// The next step's index (the key of its noise).
    public long stepIndex() {
        return step;
    }

    /// Continues from step `k`.
    public void stepIndex(long k) {
        this.step = k;
    }

    @Override
    public void save(java.io.DataOutput out) throws java.io.IOException {
        out.writeLong(step);
    }

    @Override
    public void restore(java.io.DataInput in) throws java.io.IOException {
        step = in.readLong();
    }

    @Override
    public void beforeForces(AtomicSystem s) {
        if (xi.length < 3 * s.atoms() + 1) {
            xi = new double[3 * s.atoms() + 1];
        }
        Langevin.baoab(s.positions(), s.velocities(), s.forces(), s.masses(), s.atoms(), dt, kT, c1, c2,
                LangevinNoise.key(seed, s.id(), step++), xi);
    }

    @Override
    public void afterForces(AtomicSystem s) {
        VelocityVerlet.halfKick(s.velocities(), s.forces(), s.masses(), s.atoms(), dt);
    }
}
