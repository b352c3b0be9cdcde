package dev.penstock.stage;

/// Where samples go: a result sink receives finished samples only (and never gives them back);
/// an overflow sink holds work that does not fit a buffer yet and gives it back (`poll`).
/// Sinks come in tiers: a write that a sink refuses (`offer` false: full) goes to the next tier;
/// when every tier refuses, the writer waits — backpressure, never loss.
///
/// Threading: a sink is called by one pipeline thread at a time, but `poll` and `offer` of an
/// overflow sink may come from different threads (the buffer serialises them).
///
/// @param <S> the sample type
public interface Sink<S> extends AutoCloseable {
    /// Takes `sample` if there is room; false (taking nothing) when full.
    boolean offer(S sample) throws Exception;

    /// The sink's name in reports ("memory", "results.xyz", …).
    String name();

    /// Samples taken and not given back.
    long held();

    /// Waits, up to `nanos`, for room to be made after `offer` refused a sample (the pipeline
    /// calls it while every result tier is full). A sink that can be full should return as soon
    /// as it is drained (`MemorySink` does); the default waits the whole time, at most 1 ms.
    default void awaitRoom(long nanos) throws InterruptedException {
        java.util.concurrent.locks.LockSupport.parkNanos(Math.min(nanos, 1_000_000L));
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /// Called once by the pipeline after a run that succeeded, before `close()`: makes what the
    /// sink took durable and visible (a file sink renames its output into place). A sink closed
    /// without it (a failed or stopped run) discards what only `commit()` would have published,
    /// so a failure leaves the destination as it was.
    default void commit() throws Exception {
    }

    /// Flushes and releases what the sink holds open (files); samples taken stay delivered.
    @Override
    default void close() throws Exception {
    }

    /// An overflow tier: also gives samples back, oldest first.
    interface Overflow<S> extends Sink<S> {
        /// The oldest sample held, removed; null when empty.
        S poll() throws Exception;

        /// The oldest sample held, left in place; null when empty.
        S peek() throws Exception;
    }
}
