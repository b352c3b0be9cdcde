package dev.penstock.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/// Bounded stopping of threads: every component's `close()` joins its threads against one
/// deadline and reports, with its stack, any thread still running then, instead of hanging.
public final class Threads {
    private static final System.Logger LOG = System.getLogger(Threads.class.getName());

    private Threads() {
    }

    /// Joins `threads` until `deadlineNs` (a `System.nanoTime()` value); logs each one still
    /// alive with `owner` and its stack. Returns whether all ended.
    public static boolean joinUntil(List<Thread> threads, long deadlineNs, String owner) {
        // an interrupt of the closing thread (Flink cancels a failing task's thread so) does not cut
        // the wait short: the threads get the whole bound to stop, the interrupt is kept for later
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                long left = deadlineNs - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    t.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        boolean allEnded = true;
        for (Thread t : threads) {
            if (t.isAlive()) {
                allEnded = false;
                LOG.log(System.Logger.Level.WARNING, "{0}: thread {1} did not stop within the close bound; it is at {2}",
                        owner, t.getName(), Arrays.toString(t.getStackTrace()));
            }
        }
        return allEnded;
    }
}
