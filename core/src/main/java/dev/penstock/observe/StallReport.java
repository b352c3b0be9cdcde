package dev.penstock.observe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/// Per-batch account of where a loader's time went, and its totals.
///
/// Threading: the loader thread appends; prep times arrive from the prep stream thread, so
/// the report is synchronised. Read it after the epoch (or at any time, as a snapshot).
public final class StallReport {
    private final List<BatchStall> batches = new ArrayList<>();
    private final java.util.Map<Long, Integer> position = new java.util.HashMap<>();
    private final java.util.Map<Long, Long> earlyPrepNs = new java.util.HashMap<>();
    private long startNs = System.nanoTime();
    private long endNs;

    /// Restarts the wall clock (called when an epoch starts).
    public synchronized void start() {
        startNs = System.nanoTime();
        endNs = 0;
    }

    /// Stops the wall clock (called when an epoch ends or the loader closes).
    public synchronized void stop() {
        if (endNs == 0) {
            endNs = System.nanoTime();
        }
    }

    /// Records a delivered batch. A `prepNs` of -1 means "not finished yet": `prepFinished`
    /// fills it in (whichever of the two calls comes first).
    public synchronized void add(BatchStall stall) {
        Long early = earlyPrepNs.remove(stall.batch());
        if (early != null && stall.prepNs() < 0) {
            stall = new BatchStall(stall.epoch(), stall.batch(), stall.waitNs(), stall.loadBusyNs(), early);
        }
        position.put(stall.batch(), batches.size());
        batches.add(stall);
    }

    /// Records that batch `batch`'s preparation took `prepNs` (called from the prep stream).
    public synchronized void prepFinished(long batch, long prepNs) {
        Integer at = position.get(batch);
        if (at == null) {
            earlyPrepNs.put(batch, prepNs);
            return;
        }
        BatchStall s = batches.get(at);
        batches.set(at, new BatchStall(s.epoch(), s.batch(), s.waitNs(), s.loadBusyNs(), prepNs));
    }

    /// A snapshot of the per-batch records.
    public synchronized List<BatchStall> batches() {
        return Collections.unmodifiableList(new ArrayList<>(batches));
    }

    /// Batches delivered so far.
    public synchronized int count() {
        return batches.size();
    }

    /// Wall time from `start()` to `stop()` (or to now), in nanoseconds.
    public synchronized long wallNs() {
        return (endNs == 0 ? System.nanoTime() : endNs) - startNs;
    }

    /// Sum of the consumer's waits, in nanoseconds.
    public synchronized long totalWaitNs() {
        return batches.stream().mapToLong(BatchStall::waitNs).sum();
    }

    /// Sum of host-load busy times, in nanoseconds.
    public synchronized long totalLoadBusyNs() {
        return batches.stream().mapToLong(BatchStall::loadBusyNs).sum();
    }

    /// Sum of finished prep times, in nanoseconds.
    public synchronized long totalPrepNs() {
        return batches.stream().mapToLong(b -> Math.max(0, b.prepNs())).sum();
    }

    /// Share of wall time the consumer spent waiting for data: 0 means I/O and prep were
    /// fully hidden behind the consumer's own work.
    public synchronized double exposedWaitFraction() {
        long wall = wallNs();
        return wall <= 0 ? 0 : (double) totalWaitNs() / wall;
    }

    /// A short human summary, e.g. for logs and the CLI.
    public synchronized String summary() {
        return String.format(Locale.ROOT, "%d batches in %.1f ms: consumer waited %.1f ms (%.1f%%), load busy %.1f ms, prep %.1f ms",
                batches.size(), wallNs() / 1e6, totalWaitNs() / 1e6, 100 * exposedWaitFraction(),
                totalLoadBusyNs() / 1e6, totalPrepNs() / 1e6);
    }

    /// The `summary()` line.
    @Override
    public String toString() {
        return "StallReport[" + summary() + "]";
    }
}
