package dev.penstock.cuda;

import dev.penstock.memory.StagingPool;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/// Page-locked host memory (`cuMemHostAlloc`) for a `StagingPool`: copies from it to the device
/// run at the bus's full speed and truly asynchronously. Freed by `close()`.
public final class PinnedBacking implements StagingPool.Backing {
    private final CudaDevice device;
    private final List<MemorySegment> held = new ArrayList<>();

    PinnedBacking(CudaDevice device) {
        this.device = device;
    }

    @Override
    public synchronized MemorySegment allocate(long bytes, long alignment) {
        device.enter();
        MemorySegment s = device.driver().memHostAlloc(bytes); // page-aligned
        if (s.address() % alignment != 0) {
            throw new IllegalStateException("pinned memory at " + s.address() + " is not aligned to " + alignment);
        }
        held.add(s);
        return s;
    }

    @Override
    public synchronized void close() {
        device.enter();
        for (MemorySegment s : held) {
            device.driver().memFreeHost(s);
        }
        held.clear();
    }
}
