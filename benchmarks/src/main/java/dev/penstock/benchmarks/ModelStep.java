package dev.penstock.benchmarks;

import dev.penstock.memory.Block;

/// The consumer's "model step" of the `loader` workload: a fixed amount of float64 work,
/// calibrated once to take a target time, plus a read of the batch so that the data is used.
///
/// The work is a chain of dependent fused multiply-adds: its speed is set by FMA latency, so it
/// cannot be vectorised or reordered by the JIT and a step takes the same time early and late
/// in a run. (A matrix product, the first choice, ran 5.0, 2.5 or 0.8 ms for the same size
/// depending on which C2 compilation won, which made the ideal bound meaningless.)
public final class ModelStep {
    private static final int CHUNK = 10_000;
    private long chunks = 1;
    private double sink = 1;

    /// Chooses the number of FMA chunks so that one step takes `targetNs` on this machine.
    public ModelStep calibrate(long targetNs) {
        long deadline = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < deadline) {
            chain(50); // warm up until C2 has compiled the chain
        }
        long best = Long.MAX_VALUE;
        for (int trial = 0; trial < 20; trial++) {
            long t0 = System.nanoTime();
            chain(100);
            best = Math.min(best, System.nanoTime() - t0);
        }
        chunks = Math.max(1, Math.round(targetNs * 100.0 / best));
        return this;
    }

    /// FMA chunks of 10,000 per step, as calibrated.
    public long chunks() {
        return chunks;
    }

    /// One step over `batch` (may be null for calibration runs).
    public void step(Block batch) {
        chain(chunks);
        if (batch != null) {
            long rows = batch.shape(0);
            long cols = batch.elementCount() / rows;
            double s = 0;
            for (long row = 0; row < rows; row++) {
                s += batch.getFloat(row * cols + (row % cols));
            }
            sink += s * 1e-30;
        }
    }

    private void chain(long n) {
        double x = sink;
        for (long c = 0; c < n; c++) {
            for (int i = 0; i < CHUNK; i++) {
                x = Math.fma(x, 0.999999, 1e-9);
            }
        }
        sink = x;
    }

    /// Keeps the JIT from removing the work.
    public double sink() {
        return sink;
    }
}
