package dev.penstock.atoms.integrate;

import dev.penstock.atoms.system.AtomicSystem;

/// Velocity Verlet on one system, the per-system reference of the tests (main code runs NVE only
/// as the device stages' batch kernels, over the same `VelocityVerlet` kick and drift). Each
/// instance carries its system's `dt` (τ); `step` assumes the forces are current.
public final class NveReference implements Integrator {
    private final double dt;

    /// An integrator with time step `dt` (τ; positive).
    public NveReference(double dt) {
        if (!(dt > 0) || Double.isInfinite(dt)) {
            throw new IllegalArgumentException("option 'dt' must be positive and finite, got " + dt);
        }
        this.dt = dt;
    }

    @Override
    public void beforeForces(AtomicSystem s) {
        VelocityVerlet.halfKick(s.velocities(), s.forces(), s.masses(), s.atoms(), dt);
        VelocityVerlet.drift(s.positions(), s.velocities(), s.positions().length, dt);
    }

    @Override
    public void afterForces(AtomicSystem s) {
        VelocityVerlet.halfKick(s.velocities(), s.forces(), s.masses(), s.atoms(), dt);
    }

    /// Kinetic energy ½ Σ m v².
    public static double kineticEnergy(AtomicSystem s) {
        double[] v = s.velocities();
        double[] m = s.masses();
        double ke = 0;
        for (int i = 0; i < s.atoms(); i++) {
            ke += 0.5 * m[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        }
        return ke;
    }
}
