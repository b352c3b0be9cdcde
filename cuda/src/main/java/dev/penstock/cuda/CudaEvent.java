package dev.penstock.cuda;

import dev.penstock.device.DeviceException;
import dev.penstock.device.Event;
import dev.penstock.device.Stream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/// A CUDA event recorded on a `CudaStream`; completes when the work enqueued before it has run.
/// `await()` raises the failure of a host op enqueued before it.
final class CudaEvent implements Event {
    private final CudaStream stream;
    private final MemorySegment handle;
    private final long sequence;

    CudaEvent(CudaStream stream, MemorySegment handle, long sequence) {
        this.stream = stream;
        this.handle = handle;
        this.sequence = sequence;
    }

    MemorySegment handle() {
        return handle;
    }

    long sequence() {
        return sequence;
    }

    @Override
    public boolean isDone() {
        if (stream.destroyed()) {
            return true; // ended by the device's close; await() says so
        }
        ((CudaDevice) stream.device()).enter();
        return ((CudaDevice) stream.device()).driver().eventQuery(handle);
    }

    @Override
    public void await() {
        if (!await(Duration.ofDays(365))) {
            throw new DeviceException("await", "an event of stream '" + stream.name() + "' never completed", null);
        }
    }

    /// Polls (so that closing the device ends the wait): a short spin, then 50 µs sleeps.
    @Override
    public boolean await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (true) {
            if (stream.destroyed()) {
                throw new DeviceException("await", "stream '" + stream.name() + "': the device was closed before the event completed", null);
            }
            if (isDone()) {
                break;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            if (++spins > 100) {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            } else {
                Thread.onSpinWait();
            }
        }
        raise();
        return true;
    }

    @Override
    public long completedAtNanos() {
        while (true) {
            if (stream.destroyed()) {
                throw new DeviceException("completedAtNanos", "stream '" + stream.name() + "': the device was closed", null);
            }
            if (isDone()) {
                break;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        return ((CudaDevice) stream.device()).hostNanos(handle);
    }

    private void raise() {
        DeviceException f = stream.failureBefore(sequence);
        if (f != null) {
            throw f;
        }
    }

    @Override
    public Stream stream() {
        return stream;
    }
}
