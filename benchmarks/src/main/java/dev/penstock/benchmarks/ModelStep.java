package dev.penstock.benchmarks;

import dev.penstock.memory.Block;

/// The consumer's "model step" of the `loader` workload: a float64 matrix product repeated
/// to take a target time, calibrated once at start, plus a read of the batch so that the data
/// is really used.
public final class ModelStep {
    private static final int N = 64;
    private final double[] a = new double[N * N];
    private final double[] b = new double[N * N];
    private final double[] c = new double[N * N];
    private int reps = 1;
    private double sink;

    /// A step with fixed input matrices; call `calibrate` before use.
    public ModelStep() {
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 7) * 0.25;
            b[i] = (i % 5) * 0.5;
        }
    }

    /// Chooses the repetition count so that one step takes `targetNs` on this machine.
    public ModelStep calibrate(long targetNs) {
        for (int i = 0; i < 200; i++) {
            multiply(); // warm up
        }
        long best = Long.MAX_VALUE;
        for (int trial = 0; trial < 15; trial++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                multiply();
            }
            best = Math.min(best, (System.nanoTime() - t0) / 10);
        }
        reps = (int) Math.max(1, Math.round((double) targetNs / best));
        return this;
    }

    /// Matrix products per step, as calibrated.
    public int reps() {
        return reps;
    }

    /// One step over `batch` (may be null for calibration runs).
    public void step(Block batch) {
        for (int r = 0; r < reps; r++) {
            multiply();
        }
        if (batch != null) {
            long rows = batch.shape(0);
            long cols = batch.elementCount() / rows;
            for (long row = 0; row < rows; row++) {
                sink += batch.getFloat(row * cols + (row % cols));
            }
        }
    }

    private void multiply() {
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < N; k++) {
                double aik = a[i * N + k];
                for (int j = 0; j < N; j++) {
                    c[i * N + j] += aik * b[k * N + j];
                }
            }
        }
        sink += c[(int) (sink != sink ? 0 : 1)];
    }

    /// Keeps the JIT from removing the work.
    public double sink() {
        return sink + c[0];
    }
}
