package dev.penstock.cuda;

import dev.penstock.memory.StagingPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/// Page-locked host memory (`cuMemHostAlloc`) for a `StagingPool`: copies from it to the device
/// run at the bus's full speed and truly asynchronously. Freed by `close()`.
///
/// Every segment handed out belongs to this backing's own shared scope, not the global one:
/// `close()` closes that scope first (a touch from any thread then throws
/// `IllegalStateException`, and a segment can no longer be passed to the driver) and only then
/// gives the pages back with `cuMemFreeHost`. A pinned buffer is never reachable after its free.
public final class PinnedBacking implements StagingPool.Backing {
    private final CudaDevice device;
    private final Arena scope = Arena.ofShared();
    private final List<Long> held = new ArrayList<>();
    private boolean closed;

    PinnedBacking(CudaDevice device) {
        this.device = device;
    }

    @Override
    public synchronized MemorySegment allocate(long bytes, long alignment) {
        if (closed) {
            throw new IllegalStateException("pinned memory of " + device.name() + " is closed");
        }
        device.enter();
        MemorySegment s = device.driver().memHostAlloc(bytes, scope); // page-aligned
        held.add(s.address());
        if (s.address() % alignment != 0) {
            throw new IllegalStateException("pinned memory at " + s.address() + " is not aligned to " + alignment);
        }
        return s;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        scope.close(); // every view dies before its pages go back
        if (device.isClosed()) {
            held.clear(); // releasing the device's context freed its pinned memory with it
            return;
        }
        device.enter();
        for (long address : held) {
            device.driver().memFreeHost(address);
        }
        held.clear();
    }
}
