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

    /// The stream that recorded this event.
    Stream stream();
}
