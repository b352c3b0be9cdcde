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
        ((CudaDevice) stream.device()).enter();
        return ((CudaDevice) stream.device()).driver().eventQuery(handle);
    }

    @Override
    public void await() {
        ((CudaDevice) stream.device()).enter();
        ((CudaDevice) stream.device()).driver().eventSynchronize(handle);
        raise();
    }

    @Override
    public boolean await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isDone()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.onSpinWait();
        }
        raise();
        return true;
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
