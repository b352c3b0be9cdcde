package dev.penstock.atoms.integrate;

import dev.penstock.atoms.system.AtomicSystem;

/// Velocity Verlet (NVE): v += ½dt·F/m; r += dt·v; F = F(r); v += ½dt·F/m. Time-reversible
/// and symplectic: the energy error oscillates with amplitude ∝ dt² and does not drift.
///
/// Per system: each instance carries its system's `dt` (τ). `step` assumes the system's
/// forces are current (call `model.compute` once before the first step).
public final class VelocityVerlet implements Integrator {
    private final double dt;

    /// An integrator with time step `dt` (τ; positive).
    public VelocityVerlet(double dt) {
        if (!(dt > 0) || Double.isInfinite(dt)) {
            throw new IllegalArgumentException("option 'dt' must be positive and finite, got " + dt);
        }
        this.dt = dt;
    }

    @Override
    public void beforeForces(AtomicSystem s) {
        halfKick(s, dt);
        drift(s, dt);
    }

    @Override
    public void afterForces(AtomicSystem s) {
        halfKick(s, dt);
    }

    static void halfKick(AtomicSystem s, double dt) {
        halfKick(s.velocities(), s.forces(), s.masses(), s.atoms(), dt);
    }

    /// v += ½dt·F/m for atoms `[0, n)` of the arrays (k = 0.5·dt / m first, as every kernel).
    public static void halfKick(double[] v, double[] f, double[] m, int n, double dt) {
        for (int i = 0; i < n; i++) {
            double k = 0.5 * dt / m[i];
            v[3 * i] += k * f[3 * i];
            v[3 * i + 1] += k * f[3 * i + 1];
            v[3 * i + 2] += k * f[3 * i + 2];
        }
    }

    static void drift(AtomicSystem s, double t) {
        drift(s.positions(), s.velocities(), s.positions().length, t);
    }

    /// r += t·v for the first `n3` coordinates.
    public static void drift(double[] r, double[] v, int n3, double t) {
        for (int i = 0; i < n3; i++) {
            r[i] += t * v[i];
        }
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
