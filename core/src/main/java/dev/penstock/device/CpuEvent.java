package dev.penstock.device;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/// An event of a `CpuStream`: a latch completed by the stream thread, with the stream's sticky
/// failure (if any) at the point it was recorded.
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
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeviceException("await", "interrupted while waiting for an event of stream " + stream.name(), e);
        }
    }

    @Override
    public boolean await(Duration timeout) {
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
