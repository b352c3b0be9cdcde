package dev.penstock.cli;

import dev.penstock.memory.Block;
import dev.penstock.quantum.RowSink;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/// A one-line progress bar on a terminal (rows written, the recent rows/s, the time left at that
/// rate, the time so far); nothing when the output is not a terminal.
final class Progress {
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private final long startNs = System.nanoTime();
    private final TerminalLine line;
    private final Eta eta = new Eta();

    private Progress(long total, boolean wanted) {
        this.total = total;
        this.line = TerminalLine.start(this::render, wanted);
    }

    /// A progress bar for `total` rows, drawn only when `wanted` (not `--quiet`) and stdout is a
    /// terminal.
    static Progress start(long total, boolean wanted) {
        return new Progress(total, wanted);
    }

    /// Wraps `sink` so that every block written advances the bar.
    RowSink counting(RowSink sink) {
        return (Block states) -> {
            sink.write(states);
            done.addAndGet(states.shape(0));
        };
    }

    /// `n` more rows done.
    void advance(long n) {
        done.addAndGet(n);
    }

    /// Clears the line and stops drawing.
    void stop() {
        line.stop();
    }

    private String render() {
        long d = done.get();
        long now = System.nanoTime();
        double rate = eta.rate(d, now); // the recent rate: the JIT's warm-up is not counted in the estimate
        int width = 30;
        int filled = total == 0 ? width : (int) (width * Math.min(1.0, (double) d / total));
        return String.format(Locale.ROOT, "[%s%s] %,d / %,d rows  %,.0f rows/s  %s  %.0f s ", "#".repeat(filled), " ".repeat(width - filled), d,
                total, rate, Eta.left(d, total, rate), (now - startNs) / 1e9);
    }
}
