package dev.penstock.atoms.device;

import static dev.penstock.atoms.device.RelaxColumns.ALPHA;
import static dev.penstock.atoms.device.RelaxColumns.COUNT;
import static dev.penstock.atoms.device.RelaxColumns.DONE;
import static dev.penstock.atoms.device.RelaxColumns.DT;
import static dev.penstock.atoms.device.RelaxColumns.ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.FLAG;
import static dev.penstock.atoms.device.RelaxColumns.FMAX;
import static dev.penstock.atoms.device.RelaxColumns.FRESH;
import static dev.penstock.atoms.device.RelaxColumns.NSTEPS;
import static dev.penstock.atoms.device.RelaxColumns.PREV_ENERGY;
import static dev.penstock.atoms.device.RelaxColumns.START;
import static dev.penstock.atoms.device.RelaxColumns.STARTED;
import static dev.penstock.atoms.device.RelaxColumns.TAKEN;

import dev.penstock.atoms.optimize.Fire;
import dev.penstock.device.Crew;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntConsumer;

/// The relaxation kernels on `CpuDevice` (host memory): each kernel is one op on the stream,
/// its systems split into `threads` runs of consecutive rows, one per thread of a `Crew`
/// (the stream's thread and `threads − 1` helpers). A system is one thread's for the whole
/// kernel, so the split changes no result. The loops are `relax.cu`'s, statement for statement.
///
/// Threading: the ops of one instance must run on one stream (they share the crew).
public final class CpuRelaxKernels implements RelaxKernels {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT;

    private final int threads;
    private Crew crew;

    /// Kernels split over `threads` threads (1: on the stream's thread alone).
    public CpuRelaxKernels(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("option 'threads' must be at least 1, got " + threads);
        }
        this.threads = threads;
    }

    /// Threads each kernel is split over.
    public int threads() {
        return threads;
    }

    /// Runs `rows(from, to)` over `[0, n)` in up to `threads` runs.
    private void split(int n, RowRun rows) {
        int parts = Math.min(threads, Math.max(1, n / 4));
        if (parts <= 1) {
            rows.run(0, n);
            return;
        }
        if (crew == null) {
            crew = new Crew("penstock-relax-kernels", threads);
        }
        IntConsumer job = p -> rows.run((int) ((long) n * p / parts), (int) ((long) n * (p + 1) / parts));
        crew.run(parts, job);
    }

    @FunctionalInterface
    private interface RowRun {
        void run(int from, int to);
    }

    @Override
    public void evaluate(Stream stream, RelaxColumns c, int systems, int atoms, Lj lj) {
        MemorySegment pos = c.pos().segment();
        MemorySegment force = c.force().segment();
        MemorySegment atomEnergy = c.atomEnergy().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax evaluate (" + systems + " systems)", () -> split(systems, (from, to) -> {
            for (int k = from; k < to; k++) {
                int start = ints.getAtIndex(I32, START * cap + k);
                int n = ints.getAtIndex(I32, COUNT * cap + k);
                boolean overlap = false;
                for (int i = start; i < start + n; i++) {
                    overlap |= gather(pos, force, atomEnergy, i, start, n, lj);
                }
                double e = 0;
                double max = 0;
                boolean finite = true;
                for (int i = start; i < start + n; i++) {
                    e += atomEnergy.getAtIndex(F64, i);
                    double fx = force.getAtIndex(F64, 3L * i);
                    double fy = force.getAtIndex(F64, 3L * i + 1);
                    double fz = force.getAtIndex(F64, 3L * i + 2);
                    double f2 = fx * fx + fy * fy + fz * fz;
                    finite &= f2 <= Double.MAX_VALUE;
                    max = Math.max(max, f2);
                }
                finite &= Math.abs(e) <= Double.MAX_VALUE;
                doubles.setAtIndex(F64, ENERGY * cap + k, e);
                doubles.setAtIndex(F64, FMAX * cap + k, Math.sqrt(max));
                if (overlap) {
                    ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_OVERLAP);
                } else if (!finite) {
                    ints.setAtIndex(I32, FLAG * cap + k, RelaxColumns.FLAG_NON_FINITE);
                }
            }
        }));
    }

    /// Atom i's force and half its pair energies, summed over the other atoms of its system in
    /// row order; returns whether a pair overlaps.
    private static boolean gather(MemorySegment pos, MemorySegment force, MemorySegment atomEnergy, int i, int start, int n, Lj lj) {
        double xi = pos.getAtIndex(F64, 3L * i);
        double yi = pos.getAtIndex(F64, 3L * i + 1);
        double zi = pos.getAtIndex(F64, 3L * i + 2);
        double fx = 0;
        double fy = 0;
        double fz = 0;
        double e = 0;
        boolean overlap = false;
        for (int j = start; j < start + n; j++) {
            if (j == i) {
                continue;
            }
            double dx = pos.getAtIndex(F64, 3L * j) - xi;
            double dy = pos.getAtIndex(F64, 3L * j + 1) - yi;
            double dz = pos.getAtIndex(F64, 3L * j + 2) - zi;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= lj.rc2()) {
                continue;
            }
            overlap |= r2 < lj.od2();
            double inv2 = 1 / r2;
            double s2 = lj.sigma2() * inv2;
            double s6 = s2 * s2 * s2;
            double g = lj.eps4() * (-12 * s6 * s6 + 6 * s6) * inv2;
            e += lj.eps4() * (s6 * s6 - s6) - lj.shift();
            fx += g * dx;
            fy += g * dy;
            fz += g * dz;
        }
        force.setAtIndex(F64, 3L * i, fx);
        force.setAtIndex(F64, 3L * i + 1, fy);
        force.setAtIndex(F64, 3L * i + 2, fz);
        atomEnergy.setAtIndex(F64, i, 0.5 * e);
        return overlap;
    }

    @Override
    public void fireStep(Stream stream, RelaxColumns c, int systems) {
        MemorySegment pos = c.pos().segment();
        MemorySegment vel = c.vel().segment();
        MemorySegment force = c.force().segment();
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax fire step (" + systems + " systems)", () -> split(systems, (from, to) -> {
            for (int k = from; k < to; k++) {
                if (ints.getAtIndex(I32, FRESH * cap + k) != 0 || ints.getAtIndex(I32, FLAG * cap + k) != 0
                        || ints.getAtIndex(I32, DONE * cap + k) != 0) {
                    continue;
                }
                long a = 3L * ints.getAtIndex(I32, START * cap + k);
                long b = a + 3L * ints.getAtIndex(I32, COUNT * cap + k);
                doubles.setAtIndex(F64, PREV_ENERGY * cap + k, doubles.getAtIndex(F64, ENERGY * cap + k));
                double dt = doubles.getAtIndex(F64, DT * cap + k);
                double alpha = doubles.getAtIndex(F64, ALPHA * cap + k);
                int nsteps = ints.getAtIndex(I32, NSTEPS * cap + k);
                if (ints.getAtIndex(I32, STARTED * cap + k) == 0) {
                    for (long i = a; i < b; i++) {
                        vel.setAtIndex(F64, i, 0);
                    }
                    ints.setAtIndex(I32, STARTED * cap + k, 1);
                } else {
                    double vf = 0;
                    for (long i = a; i < b; i++) {
                        vf += force.getAtIndex(F64, i) * vel.getAtIndex(F64, i);
                    }
                    if (vf > 0) {
                        double ff = 0;
                        double vv = 0;
                        for (long i = a; i < b; i++) {
                            double f = force.getAtIndex(F64, i);
                            double v = vel.getAtIndex(F64, i);
                            ff += f * f;
                            vv += v * v;
                        }
                        double nf = Math.sqrt(ff);
                        double nv = Math.sqrt(vv);
                        for (long i = a; i < b; i++) {
                            // NumPy's order of operations in ASE (as Fire): (1 − a)·v + ((a·f) / |f|) · |v|
                            vel.setAtIndex(F64, i, (1.0 - alpha) * vel.getAtIndex(F64, i) + alpha * force.getAtIndex(F64, i) / nf * nv);
                        }
                        if (nsteps > Fire.NMIN) {
                            dt = Math.min(dt * Fire.FINC, Fire.DTMAX);
                            alpha *= Fire.FA;
                        }
                        nsteps++;
                    } else {
                        for (long i = a; i < b; i++) {
                            vel.setAtIndex(F64, i, 0);
                        }
                        alpha = Fire.ASTART;
                        dt *= Fire.FDEC;
                        nsteps = 0;
                    }
                }
                double drr = 0;
                for (long i = a; i < b; i++) {
                    double v = vel.getAtIndex(F64, i) + dt * force.getAtIndex(F64, i);
                    vel.setAtIndex(F64, i, v);
                    double dr = dt * v;
                    drr += dr * dr;
                }
                double norm = Math.sqrt(drr);
                for (long i = a; i < b; i++) {
                    double dr = dt * vel.getAtIndex(F64, i);
                    pos.setAtIndex(F64, i, pos.getAtIndex(F64, i) + (norm > Fire.MAXSTEP ? Fire.MAXSTEP * dr / norm : dr));
                }
                doubles.setAtIndex(F64, DT * cap + k, dt);
                doubles.setAtIndex(F64, ALPHA * cap + k, alpha);
                ints.setAtIndex(I32, NSTEPS * cap + k, nsteps);
            }
        }));
    }

    @Override
    public void check(Stream stream, RelaxColumns c, int systems, double fmax, double energyTolerance, int budget) {
        MemorySegment ints = c.ints().segment();
        MemorySegment doubles = c.doubles().segment();
        long cap = c.systemCapacity();
        stream.launch("relax check (" + systems + " systems)", () -> {
            for (int k = 0; k < systems; k++) {
                if (ints.getAtIndex(I32, FLAG * cap + k) != 0) {
                    ints.setAtIndex(I32, DONE * cap + k, 1);
                    continue;
                }
                int taken = ints.getAtIndex(I32, TAKEN * cap + k);
                if (ints.getAtIndex(I32, FRESH * cap + k) != 0) {
                    ints.setAtIndex(I32, FRESH * cap + k, 0);
                } else {
                    ints.setAtIndex(I32, TAKEN * cap + k, ++taken);
                }
                double e = doubles.getAtIndex(F64, ENERGY * cap + k);
                boolean converged = doubles.getAtIndex(F64, FMAX * cap + k) < fmax
                        && (energyTolerance == 0 || Math.abs(e - doubles.getAtIndex(F64, PREV_ENERGY * cap + k)) < energyTolerance);
                ints.setAtIndex(I32, DONE * cap + k, converged || taken >= budget ? 1 : 0);
            }
        });
    }

    @Override
    public void gather(Stream stream, RelaxColumns from, RelaxColumns to, Block map, int systems, int atoms) {
        MemorySegment m = map.segment();
        stream.launch("relax gather (" + systems + " systems, " + atoms + " atoms)", () -> {
            long fromCap = from.systemCapacity();
            long toCap = to.systemCapacity();
            MemorySegment si = from.ints().segment();
            MemorySegment sd = from.doubles().segment();
            MemorySegment di = to.ints().segment();
            MemorySegment dd = to.doubles().segment();
            for (int k = 0; k < systems; k++) {
                int src = m.getAtIndex(I32, k);
                for (int col = 0; col < RelaxColumns.INT_COLUMNS; col++) {
                    di.setAtIndex(I32, col * toCap + k, si.getAtIndex(I32, col * fromCap + src));
                }
                for (int col = 0; col < RelaxColumns.DOUBLE_COLUMNS; col++) {
                    dd.setAtIndex(F64, col * toCap + k, sd.getAtIndex(F64, col * fromCap + src));
                }
                int start = m.getAtIndex(I32, systems + k);
                di.setAtIndex(I32, START * toCap + k, start);
                int n = si.getAtIndex(I32, COUNT * fromCap + src);
                for (int i = start; i < start + n; i++) {
                    to.atomSystem().segment().setAtIndex(I32, i, k);
                }
            }
            MemorySegment fe = from.atomEnergy().segment();
            MemorySegment te = to.atomEnergy().segment();
            for (int a = 0; a < atoms; a++) {
                long src = m.getAtIndex(I32, 2L * systems + a);
                te.setAtIndex(F64, a, fe.getAtIndex(F64, src));
                MemorySegment.copy(from.pos().segment(), 24 * src, to.pos().segment(), 24L * a, 24);
                MemorySegment.copy(from.vel().segment(), 24 * src, to.vel().segment(), 24L * a, 24);
                MemorySegment.copy(from.force().segment(), 24 * src, to.force().segment(), 24L * a, 24);
            }
        });
    }

    @Override
    public void close() {
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }
}
