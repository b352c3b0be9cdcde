package dev.penstock.atoms.optimize;

import java.util.Arrays;

/// FIRE 2.0 (Guénolé et al., Comput. Mater. Sci. 175, 109584, 2020) with the semi-implicit Euler
/// integrator:
///
/// ```
///   P = F·v
///   P > 0:  Npos += 1; if Npos > Ndelay: dt = min(dt·finc, dtmax), α ·= fα
///   else:   Npos = 0; unless still in the initial delay: dt = max(dt·fdec, dtmin), α = αstart
///           r −= ½·(last step taken) (undo half the uphill step);  v = 0
///   v += dt·F/m;  v = (1−α)v + α|v| F/|F|;  dr = dt·v (scaled to maxstep if longer);  r += dr
/// ```
///
/// Defaults from the paper's Table 1 with ASE's FIRE time step 0.1: dtmax = 1.0, dtmin = 0.002,
/// Ndelay = 20, finc = 1.1, fdec = 0.5, αstart = 0.25, fα = 0.99, initial delay on; the step
/// is capped at 0.2 Å as in ASE's FIRE. Not thread-safe: one instance per system.
public final class Fire2 {
    private static final double DTMAX = 1.0;
    private static final double DTMIN = 0.002;
    private static final int NDELAY = 20;
    private static final double FINC = 1.1;
    private static final double FDEC = 0.5;
    private static final double ASTART = 0.25;
    private static final double FA = 0.99;
    private static final double MAXSTEP = 0.2;

    private double dt = START_DT;
    private double a = ASTART;
    private int npos;
    private int stepIndex;

    /// One FIRE 2.0 step of a system whose first `n3` elements of `f`, `v`, `r` and `last` are its
    /// forces, velocities, positions and last step taken (`m` per atom): the loop every FIRE 2.0
    /// in Penstock runs, a stage's motion or a packed batch's kernel (`CpuRelaxKernels`, with each
    /// system's state set by `state` and read back).
    public void step(double[] f, double[] v, double[] r, double[] m, int n3, double[] last) {
        double[] lastStep = last;
        if (stepIndex == 0) {
            Arrays.fill(v, 0, n3, 0);
            Arrays.fill(lastStep, 0, n3, 0);
        }
        double p = 0;
        for (int i = 0; i < n3; i++) {
            p += f[i] * v[i];
        }
        if (p > 0) {
            npos++;
            if (npos > NDELAY) {
                dt = Math.min(dt * FINC, DTMAX);
                a *= FA;
            }
        } else {
            npos = 0;
            if (stepIndex >= NDELAY) {
                dt = Math.max(dt * FDEC, DTMIN);
                a = ASTART;
            }
            for (int i = 0; i < n3; i++) {
                // undo half of the step actually taken (dt·v capped to maxstep): with the cap,
                // ½dt·v itself can be far longer than the step that went uphill
                r[i] -= 0.5 * lastStep[i];
                v[i] = 0;
            }
        }
        double ff = 0;
        double vv = 0;
        for (int i = 0; i < n3; i++) {
            v[i] += dt * f[i] / m[i / 3];
            ff += f[i] * f[i];
            vv += v[i] * v[i];
        }
        double nf = Math.sqrt(ff);
        double nv = Math.sqrt(vv);
        double drr = 0;
        for (int i = 0; i < n3; i++) {
            v[i] = (1 - a) * v[i] + (nf > 0 ? a * f[i] / nf * nv : 0);
            drr += dt * v[i] * dt * v[i];
        }
        double norm = Math.sqrt(drr);
        double k = norm > MAXSTEP ? MAXSTEP / norm : 1;
        for (int i = 0; i < n3; i++) {
            lastStep[i] = k * dt * v[i];
            r[i] += lastStep[i];
        }
        stepIndex++;
    }

    /// Sets the optimiser's state: its time step, mixing α, uphill-free steps in a row and steps
    /// taken (the last step taken is the caller's array).
    public void state(double dt, double alpha, int npos, int stepIndex) {
        this.dt = dt;
        this.a = alpha;
        this.npos = npos;
        this.stepIndex = stepIndex;
    }

    /// The time step now.
    public double dt() {
        return dt;
    }

    /// The mixing α now.
    public double alpha() {
        return a;
    }

    /// Steps in a row with positive power.
    public int npos() {
        return npos;
    }

    /// FIRE 2.0's starting time step and α.
    public static final double START_DT = 0.1;
    /// FIRE 2.0's α after a reset.
    public static final double START_ALPHA = ASTART;
}
