package dev.penstock.cli;

import dev.penstock.memory.Block;
import dev.penstock.quantum.RowSink;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/// A one-line progress bar on a terminal (rows written, rows/s, ETA), redrawn four times a
/// second by a daemon thread; nothing at all when the output is not a terminal.
final class Progress {
    private final long total;
    private final AtomicLong done = new AtomicLong();
    private final long startNs = System.nanoTime();
    private final Thread painter;
    private volatile boolean stopped;

    private Progress(long total, boolean draw) {
        this.total = total;
        this.painter = draw ? Thread.ofPlatform().daemon().name("penstock-progress").start(this::paintLoop) : null;
    }

    /// A progress bar for `total` rows, drawn only when stdout is a terminal.
    static Progress start(long total) {
        return new Progress(total, System.console() != null && System.console().isTerminal());
    }

    /// Wraps `sink` so that every block written advances the bar.
    RowSink counting(RowSink sink) {
        return (Block states) -> {
            sink.write(states);
            done.addAndGet(states.shape(0));
        };
    }

    /// Clears the line and stops drawing.
    void stop() {
        stopped = true;
        if (painter != null) {
            painter.interrupt();
            try {
                painter.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.print("\r\033[2K");
            System.out.flush();
        }
    }

    private void paintLoop() {
        PrintStream o = System.out;
        while (!stopped) {
            long d = done.get();
            double s = (System.nanoTime() - startNs) / 1e9;
            double rate = s > 0 ? d / s : 0;
            int width = 30;
            int filled = total == 0 ? width : (int) (width * Math.min(1.0, (double) d / total));
            String eta = rate > 0 ? String.format(Locale.ROOT, "%.0f s left", (total - d) / rate) : "…";
            o.printf(Locale.ROOT, "\r[%s%s] %,d / %,d rows  %,.0f rows/s  %s ", "#".repeat(filled), " ".repeat(width - filled), d, total,
                    rate, eta);
            o.flush();
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
