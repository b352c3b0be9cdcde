package dev.penstock.device;

import dev.penstock.memory.BlockArena;
import dev.penstock.memory.Memory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/// The default device: device memory is host off-heap memory and every stream is one platform
/// thread running its work in order (or, made by `newDrivenStream`, run by the thread that
/// waits for it).
///
/// `close()` cancels queued work, interrupts running work, and returns within the close bound
/// (1 s unless configured), logging any stream thread that did not stop.
public final class CpuDevice implements Device {
    private final String name;
    private final Duration closeTimeout;
    private final List<CpuStream> streams = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /// A device named `cpu` with a 1 s close bound.
    public CpuDevice() {
        this("cpu", Duration.ofSeconds(1));
    }

    /// A device whose stream threads are named `penstock-NAME-STREAM`.
    public CpuDevice(String name, Duration closeTimeout) {
        if (closeTimeout.isNegative() || closeTimeout.isZero()) {
            throw new IllegalArgumentException("closeTimeout must be positive, got " + closeTimeout);
        }
        this.name = name;
        this.closeTimeout = closeTimeout;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized Stream newStream(String streamName) {
        return add(new CpuStream(this, streamName, false));
    }

    /// A stream without a thread of its own: its work runs on the thread that waits for it
    /// (`synchronize`, an event's `await`, or another stream's `waitFor` reaching it), so a
    /// stage that launches its step's kernels and then synchronizes runs them itself, without
    /// a hand-off to a stream thread and back (tens of µs a step on a busy machine).
    @Override
    public synchronized Stream newDrivenStream(String streamName) {
        return add(new CpuStream(this, streamName, true));
    }

    private CpuStream add(CpuStream s) {
        if (closed) {
            throw new IllegalStateException("device " + name + " is closed");
        }
        streams.add(s);
        return s;
    }

    @Override
    public BlockArena newArena(String arenaName) {
        return Memory.newSharedArena(name + ":" + arenaName);
    }

    @Override
    public boolean isHostMemory() {
        return true;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        for (CpuStream s : streams) {
            s.beginStop();
        }
        for (CpuStream s : streams) {
            s.awaitStop(deadline);
        }
    }

    @Override
    public String toString() {
        return "CpuDevice[" + name + ", " + streams.size() + " streams]";
    }
}
