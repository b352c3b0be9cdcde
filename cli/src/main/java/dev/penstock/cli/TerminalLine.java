package dev.penstock.cli;

import java.io.PrintStream;
import java.util.function.Supplier;

/// One status line on a terminal, redrawn four times a second by a daemon thread from
/// `render`; nothing at all when the output is not a terminal. `stop()` clears it.
final class TerminalLine {
    private final Thread painter;
    private volatile boolean stopped;

    private TerminalLine(Supplier<String> render, boolean draw) {
        this.painter = draw ? Thread.ofPlatform().daemon().name("penstock-progress").start(() -> paintLoop(render)) : null;
    }

    /// Starts drawing `render`'s line if `wanted` (not `--quiet`) and stdout is a terminal.
    static TerminalLine start(Supplier<String> render, boolean wanted) {
        return new TerminalLine(render, wanted && System.console() != null && System.console().isTerminal());
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

    private void paintLoop(Supplier<String> render) {
        PrintStream o = System.out;
        while (!stopped) {
            o.print("\r" + render.get());
            o.flush();
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
