package dev.penstock.device;

import dev.penstock.memory.Block;

/// An in-order queue of work on a device (a CUDA stream).
///
/// `launch` returns at once; the work runs after everything enqueued before it on this stream,
/// and after every event this stream was told to `waitFor` before it. If a piece of work
/// throws, the stream records the failure (naming the operation), skips the work queued after
/// it, fails the events recorded after it, and raises a `DeviceException` at the next
/// synchronisation point: `synchronize()`, or `await()` of such an event. The failure is
/// cleared once `synchronize()` has reported it.
///
/// Threading: any thread may enqueue; the order of two enqueues from different threads is
/// the order in which the calls took effect.
public interface Stream {

    /// Work enqueued on a stream. It may throw; the failure is attributed to its name.
    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    String name();

    Device device();

    /// Enqueues `op`, named `opName` in errors and traces.
    void launch(String opName, Op op);

    /// Enqueues a copy of `src` into `dst` (same dtype and shape).
    default void copy(Block src, Block dst) {
        launch("copy " + src + " -> " + dst, () -> dst.copyFrom(src));
    }

    /// An event that completes when all work enqueued so far on this stream has run.
    Event record();

    /// Makes work enqueued after this call wait for `event`, without blocking the host.
    /// If the event's stream failed, this stream fails too, naming both.
    void waitFor(Event event);

    /// Blocks the host until all enqueued work has run; throws the first failure since the last
    /// synchronisation, then clears it.
    void synchronize();
}
