package dev.penstock.device;

import dev.penstock.memory.BlockArena;

/// A place where work runs and memory lives, with CUDA semantics.
///
/// Work is enqueued on a `Stream` and runs in order on that stream; streams of one device run
/// concurrently. Ordering between streams is expressed with `Event`s, never by blocking the
/// host. Engine code is written once against these interfaces; `CpuDevice` is the default,
/// and the `cuda` module provides a CUDA device.
///
/// Threading: all methods are thread-safe. `close()` stops every stream within a bound and
/// reports any work that did not stop.
public interface Device extends AutoCloseable {

    /// A name such as `cpu` or `cuda:0`.
    String name();

    /// A new stream. Streams live until the device is closed.
    Stream newStream(String name);

    /// A new stream for a host thread that launches work and then waits for it: the work may run
    /// on the waiting thread itself, when it waits (`Stream.synchronize`, an event's `await`, or
    /// another stream's `waitFor` of its event) — `CpuDevice`'s does, with no thread of its own —
    /// so nothing on it goes on while nobody waits. The default is `newStream(name)` (a GPU runs
    /// the work itself).
    default Stream newDrivenStream(String name) {
        return newStream(name);
    }

    /// A new arena of this device's memory.
    BlockArena newArena(String name);

    /// Whether device memory is the host's own memory (true for `CpuDevice`), so the host may
    /// read a device block once the event that wrote it has completed.
    boolean isHostMemory();

    /// Stops every stream: work still queued is cancelled, running work is interrupted, and the
    /// call returns within the device's close bound, logging any thread that did not stop.
    @Override
    void close();
}
