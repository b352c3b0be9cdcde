package dev.penstock.device;

import java.time.Duration;

/// A point in a stream's work (a CUDA event): complete once every operation enqueued on the
/// stream before `record()` has run.
public interface Event {

    /// Whether the event has completed (successfully or not). Never blocks.
    boolean isDone();

    /// Blocks the host until the event completes; throws `DeviceException` naming the failed
    /// operation if work before it failed.
    void await();

    /// Like `await()`, but gives up after `timeout` and returns false.
    boolean await(Duration timeout);

    /// When the stream reached this event, on the `System.nanoTime()` clock, whether or not work
    /// before it failed; waits for it first. Two events on one stream bracket the work between
    /// them, so a device times its copies and kernels without running host code in its streams
    /// (a CUDA event's GPU timestamp, mapped onto the host clock to within microseconds).
    long completedAtNanos();

    /// The stream that recorded this event.
    Stream stream();
}
