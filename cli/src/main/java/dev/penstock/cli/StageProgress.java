package dev.penstock.cli;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/// A progress line for a stage pipeline: one bar per stage (systems that have left it, out of
/// all systems), on a terminal only.
final class StageProgress {
    private final AtomicLongArray left;
    private final long total;
    private final long startNs = System.nanoTime();
    private final TerminalLine line;

    private StageProgress(int stages, long total) {
        this.left = new AtomicLongArray(stages);
        this.total = total;
        this.line = TerminalLine.start(this::render);
    }

    static StageProgress start(int stages, long total) {
        return new StageProgress(stages, total);
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
        return sb.append(String.format(Locale.ROOT, "%.0f s ", (System.nanoTime() - startNs) / 1e9)).toString();
    }
}
