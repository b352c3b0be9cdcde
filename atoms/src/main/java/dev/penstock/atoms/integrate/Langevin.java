package dev.penstock.atoms.integrate;

/// Langevin dynamics (NVT) by the BAOAB splitting (docs/definitions.md):
///
/// ```
///   B: v += ½dt·F/m    A: r += ½dt·v    O: v = c1·v + √((1 − c1²)·kT/m)·ξ,  c1 = e^(−γ·dt)
///   A: r += ½dt·v      force            B: v += ½dt·F/m
/// ```
///
/// The normal draws ξ of step k are `LangevinNoise`'s, keyed by (seed, system id, k), draw j
/// for atom j / 3, axis j mod 3: a system's trajectory depends on its seed, id and step only,
/// never on which other systems share its batch or thread, and the device stages (CPU and CUDA)
/// draw the same numbers. Per system: dt (τ), kT (eV) and γ (1/τ).
public final class Langevin {
    /// Domain of the keyed noise.
    public static final String DOMAIN = "penstock.langevin";

    private Langevin() {
    }

    /// O's velocity factor c1 = e^(−γ·dt).
    public static double damping(double gamma, double dt) {
        return Math.exp(-gamma * dt);
    }

    /// O's noise factor √(1 − c1²) (times √(kT/m) per atom).
    public static double noise(double c1) {
        return Math.sqrt(1 - c1 * c1);
    }

    /// B, A, O, A of a BAOAB step over atoms `[0, n)` of the arrays (forces current), the O's
    /// normal draws `LangevinNoise`'s `3i + axis` of `key` (made into `xi`, scratch of at least
    /// 3n + 1): what every Langevin step runs, per system here and in the device stages' CPU kernels
    /// (`CpuRelaxKernels`; `relax.cu` the same per atom).
    public static void baoab(double[] r, double[] v, double[] f, double[] m, int n, double dt, double kT, double c1, double c2, long key,
                             double[] xi) {
        VelocityVerlet.halfKick(v, f, m, n, dt);
        VelocityVerlet.drift(r, v, 3 * n, 0.5 * dt);
        LangevinNoise.normals(key, xi, 3 * n);
        for (int i = 0; i < n; i++) {
            double sd = c2 * Math.sqrt(kT / m[i]);
            v[3 * i] = c1 * v[3 * i] + sd * xi[3 * i];
            v[3 * i + 1] = c1 * v[3 * i + 1] + sd * xi[3 * i + 1];
            v[3 * i + 2] = c1 * v[3 * i + 2] + sd * xi[3 * i + 2];
        }
        VelocityVerlet.drift(r, v, 3 * n, 0.5 * dt);
    }
}
