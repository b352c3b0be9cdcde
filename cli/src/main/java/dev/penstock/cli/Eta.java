package dev.penstock.cli;

import java.util.Locale;

/// The time left of a run, from its recent rate: the progress over the last `WINDOW_NS`
/// (samples taken as the progress line is drawn), not since the start — a rate since the start
/// counts the JIT's warm-up and the pipeline filling up, and made every early estimate too long.
/// Until progress is seen, and over no progress, "…".
///
/// Threading: the drawing thread alone.
final class Eta {
    /// How far back the rate looks.
    static final long WINDOW_NS = 10_000_000_000L;
    private static final int SAMPLES = 256;

    private final long[] at = new long[SAMPLES];
    private final long[] done = new long[SAMPLES];
    private int count;
    private int next;

    /// Records `d` of `total` done at `nowNs`; returns the rate per second over the window
    /// (0 until it is known).
    double rate(long d, long nowNs) {
        at[next] = nowNs;
        done[next] = d;
        next = (next + 1) % SAMPLES;
        count = Math.min(count + 1, SAMPLES);
        int oldest = -1;
        for (int k = 1; k <= count; k++) { // newest to oldest: the oldest still inside the window
            int i = Math.floorMod(next - k, SAMPLES);
            if (nowNs - at[i] > WINDOW_NS) {
                break;
            }
            oldest = i;
        }
        if (oldest < 0 || at[oldest] == nowNs || done[oldest] == d) {
            return 0;
        }
        return (d - done[oldest]) * 1e9 / (nowNs - at[oldest]);
    }

    /// "N s left" (or "N min left") at `rate` per second for the `total − d` left, or "…".
    static String left(long d, long total, double rate) {
        if (!(rate > 0) || d >= total) {
            return d >= total ? "0 s left" : "…";
        }
        double s = (total - d) / rate;
        return s >= 120 ? String.format(Locale.ROOT, "%.0f min left", s / 60) : String.format(Locale.ROOT, "%.0f s left", s);
    }
}
