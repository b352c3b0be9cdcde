package dev.penstock.cli;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/// A progress line for a stage pipeline: one bar per stage (systems that have left it, out of
/// all systems), the time so far and the time left at the recent rate of systems leaving the
/// last stage (`Eta`), on a terminal only.
final class StageProgress {
    private final AtomicLongArray left;
    private final long total;
    private final long startNs = System.nanoTime();
    private final TerminalLine line;
    private final Eta eta = new Eta();

    private StageProgress(int stages, long total, boolean wanted) {
        this.left = new AtomicLongArray(stages);
        this.total = total;
        this.line = TerminalLine.start(this::render, wanted);
    }

    /// A progress line for `stages` stages and `total` systems, drawn when `wanted` (not
    /// `--quiet`) and stdout is a terminal.
    static StageProgress start(int stages, long total, boolean wanted) {
        return new StageProgress(stages, total, wanted);
    }

    /// A system has left stage `stage` (finished or quarantined).
    void left(int stage) {
        left.incrementAndGet(stage);
    }

    void stop() {
        line.stop();
    }

    private String render() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < left.length(); i++) {
            long d = left.get(i);
            int width = 12;
            int filled = total == 0 ? width : (int) (width * Math.min(1.0, (double) d / total));
            sb.append(String.format(Locale.ROOT, "stage %d [%s%s] %d/%d  ", i, "#".repeat(filled), " ".repeat(width - filled), d, total));
        }
        long now = System.nanoTime();
        long finished = left.length() == 0 ? 0 : left.get(left.length() - 1); // out of the last stage: done
        double rate = eta.rate(finished, now);
        return sb.append(String.format(Locale.ROOT, "%.0f s, %s ", (now - startNs) / 1e9, Eta.left(finished, total, rate))).toString();
    }
}
