package dev.penstock.testing;

import java.time.Duration;
import java.util.List;

/// Counts live threads by name prefix, to prove that a component left none behind.
public final class ThreadCensus {
    private ThreadCensus() {
    }

    /// Names of live threads whose name starts with `prefix`.
    public static List<String> live(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith(prefix))
                .sorted()
                .toList();
    }

    /// Waits up to `timeout` for no thread named `prefix…` to be alive; returns those still alive.
    public static List<String> awaitNone(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> alive = live(prefix);
        while (!alive.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
            alive = live(prefix);
        }
        return alive;
    }
}
