package dev.penstock.atoms.integrate;

/// Velocity Verlet (NVE): v += ½dt·F/m; r += dt·v; F = F(r); v += ½dt·F/m. Time-reversible
/// and symplectic: the energy error oscillates with amplitude ∝ dt² and does not drift. The
/// kick and drift every NVE and Langevin step runs (the device stages' CPU kernels,
/// `CpuRelaxKernels`; `relax.cu` the same per atom).
public final class VelocityVerlet {
    private VelocityVerlet() {
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

    /// r += t·v for the first `n3` coordinates.
    public static void drift(double[] r, double[] v, int n3, double t) {
        for (int i = 0; i < n3; i++) {
            r[i] += t * v[i];
        }
    }
}
