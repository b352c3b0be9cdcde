package dev.penstock.atoms.optimize;

/// FIRE (fast inertial relaxation engine) in ASE-exact mode: the same arithmetic as ASE's
/// `FIRE` optimiser, step for step, so that it takes ASE's number of steps (docs/definitions.md).
/// Masses are ignored; the system's velocity array holds FIRE's velocities.
///
/// ```
///   first step: v = 0
///   otherwise:  P = F·v
///               P > 0: v = (1−a)v + a|v| F/|F|;  if steps > Nmin: dt = min(dt·finc, dtmax), a ·= fa
///                      steps += 1
///               else:  v = 0, a = astart, dt ·= fdec, steps = 0
///   v += dt F;  dr = dt v;  |dr| over all 3N > maxstep → dr ·= maxstep/|dr|;  r += dr
/// ```
///
/// `massWeighted()` is the same loop with v += dt·F/m. Not thread-safe: one instance per system.
public final class Fire {
    /// ASE's defaults (docs/definitions.md).
    public static final double DT = 0.1;
    public static final double MAXSTEP = 0.2;
    public static final double DTMAX = 1.0;
    public static final int NMIN = 5;
    public static final double FINC = 1.1;
    public static final double FDEC = 0.5;
    public static final double ASTART = 0.1;
    public static final double FA = 0.99;

    private final boolean massWeighted;
    private double dt = DT;
    private double a = ASTART;
    private int steps;
    private boolean started;

    /// FIRE in ASE-exact mode (masses ignored).
    public Fire() {
        this(false);
    }

    private Fire(boolean massWeighted) {
        this.massWeighted = massWeighted;
    }

    /// FIRE in mass-weighted mode: the velocity update uses accelerations F/m, so heavy atoms
    /// move less per step. With all masses 1 it is the ASE-exact mode.
    public static Fire massWeighted() {
        return new Fire(true);
    }

    /// One FIRE step of a system whose first `n3` elements of `f`, `v`, `r` are its forces,
    /// FIRE velocities and positions (`masses` per atom, read in mass-weighted mode only): the
    /// loop every FIRE in Penstock runs, a stage's motion or a packed batch's kernel
    /// (`CpuRelaxKernels`, with the state of each system set by `state` and read back).
    public void step(double[] f, double[] v, double[] r, double[] masses, int n3) {
        if (!started) {
            java.util.Arrays.fill(v, 0, n3, 0);
            started = true;
        } else {
            double vf = 0;
            for (int i = 0; i < n3; i++) {
                vf += f[i] * v[i];
            }
            if (vf > 0) {
                double ff = 0;
                double vv = 0;
                for (int i = 0; i < n3; i++) {
                    ff += f[i] * f[i];
                    vv += v[i] * v[i];
                }
                double nf = Math.sqrt(ff);
                double nv = Math.sqrt(vv);
                for (int i = 0; i < n3; i++) {
                    // NumPy's order of operations in ASE: (1 − a)·v + ((a·f) / |f|) · |v|
                    v[i] = (1.0 - a) * v[i] + a * f[i] / nf * nv;
                }
                if (steps > NMIN) {
                    dt = Math.min(dt * FINC, DTMAX);
                    a *= FA;
                }
                steps++;
            } else {
                java.util.Arrays.fill(v, 0, n3, 0);
                a = ASTART;
                dt *= FDEC;
                steps = 0;
            }
        }
        double drr = 0;
        for (int i = 0; i < n3; i++) {
            v[i] += massWeighted ? dt * f[i] / masses[i / 3] : dt * f[i];
            double dr = dt * v[i];
            drr += dr * dr;
        }
        double norm = Math.sqrt(drr);
        for (int i = 0; i < n3; i++) {
            double dr = dt * v[i];
            r[i] += norm > MAXSTEP ? MAXSTEP * dr / norm : dr;
        }
    }

    /// Sets the optimiser's state: its time step, mixing α, steps since the power turned
    /// negative (N), and whether it has taken its first step.
    public void state(double dt, double alpha, int n, boolean started) {
        this.dt = dt;
        this.a = alpha;
        this.steps = n;
        this.started = started;
    }

    /// The time step now.
    public double dt() {
        return dt;
    }

    /// The mixing α now.
    public double alpha() {
        return a;
    }

    /// Steps since the power last turned negative (FIRE's N).
    public int n() {
        return steps;
    }

    /// Whether the first step has been taken.
    public boolean started() {
        return started;
    }
}
