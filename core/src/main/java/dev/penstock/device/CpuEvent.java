package dev.penstock.device;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/// An event of a `CpuStream`: a latch completed by whoever runs the stream's queue, with the
/// stream's sticky failure (if any) at the point it was recorded. Waiting for it runs a driven
/// stream's queue up to it on the waiting thread; `isDone` runs nothing.
final class CpuEvent implements Event {
    private final CpuStream stream;
    private final CountDownLatch latch = new CountDownLatch(1);
    private volatile DeviceException failure;
    private volatile long completedAt;

    CpuEvent(CpuStream stream) {
        this.stream = stream;
    }

    void complete(DeviceException failureOrNull) {
        this.completedAt = System.nanoTime();
        this.failure = failureOrNull;
        latch.countDown();
    }

    DeviceException failure() {
        return failure;
    }

    @Override
    public boolean isDone() {
        return latch.getCount() == 0;
    }

    @Override
    public void await() {
        awaitCompletion();
        throwIfFailed();
    }

    /// Waits for completion; an interrupt becomes a `DeviceException` (interrupt status kept).
    private void awaitCompletion() {
        stream.drive(this);
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeviceException("await", "interrupted while waiting for an event of stream " + stream.name(), e);
        }
    }

    @Override
    public boolean await(Duration timeout) {
        stream.drive(this); // a driven stream's work runs here, whatever the timeout
        try {
            if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeviceException("await", "interrupted while waiting for an event of stream " + stream.name(), e);
        }
        throwIfFailed();
        return true;
    }

    @Override
    public long completedAtNanos() {
        awaitCompletion();
        return completedAt;
    }

    /// Waits without raising the failure; used by the stream thread, which attributes it itself.
    void awaitQuietly() throws InterruptedException {
        stream.drive(this);
        latch.await();
    }

    private void throwIfFailed() {
        DeviceException f = failure;
        if (f != null) {
            throw new DeviceException(f.operation(), f.getMessage(), f);
        }
    }

    @Override
    public Stream stream() {
        return stream;
    }
}
