package dev.penstock.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/// A progress line for a stage pipeline — one bar per stage (systems that have left it out of
/// all systems) — redrawn four times a second on a terminal; nothing when not a terminal.
final class StageProgress {
    private final AtomicLongArray left;
    private final long total;
    private final long startNs = System.nanoTime();
    private final Thread painter;
    private volatile boolean stopped;

    private StageProgress(int stages, long total, boolean draw) {
        this.left = new AtomicLongArray(stages);
        this.total = total;
        this.painter = draw ? Thread.ofPlatform().daemon().name("penstock-progress").start(this::paintLoop) : null;
    }

    static StageProgress start(int stages, long total) {
        return new StageProgress(stages, total, System.console() != null && System.console().isTerminal());
    }

    /// A system has left stage `stage` (finished or quarantined).
    void left(int stage) {
        left.incrementAndGet(stage);
    }

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
            StringBuilder sb = new StringBuilder("\r");
            for (int i = 0; i < left.length(); i++) {
                long d = left.get(i);
                int width = 12;
                int filled = total == 0 ? width : (int) (width * Math.min(1.0, (double) d / total));
                sb.append(String.format(Locale.ROOT, "stage %d [%s%s] %d/%d  ", i, "#".repeat(filled), " ".repeat(width - filled), d, total));
            }
            sb.append(String.format(Locale.ROOT, "%.0f s ", (System.nanoTime() - startNs) / 1e9));
            o.print(sb);
            o.flush();
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
