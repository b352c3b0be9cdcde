package dev.penstock.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/// A `BlockArena` of host off-heap memory backed by a `java.lang.foreign.Arena`, with its
/// bytes counted in `Memory.liveBytes()` until it is closed.
///
/// Threading: a shared arena may allocate and be closed from any thread; a confined one only
/// from its owner thread. Blocks are 64-byte aligned.
public final class HostArena implements BlockArena {
    private static final long ALIGNMENT = 64;

    private final String name;
    private final Arena arena;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    HostArena(String name, boolean shared) {
        this.name = name;
        this.arena = shared ? Arena.ofShared() : Arena.ofConfined();
        Memory.arenaOpened();
    }

    @Override
    public Block allocate(DType dtype, long... shape) {
        long count = Block.elementCount(shape);
        long size = Math.multiplyExact(count, (long) dtype.byteSize());
        MemorySegment segment = allocateBytes(size);
        return Block.wrap(segment, dtype, this, shape);
    }

    /// Allocates `byteSize` raw zeroed bytes owned by this arena.
    public MemorySegment allocateBytes(long byteSize) {
        if (closed.get()) {
            throw new IllegalStateException("arena '" + name + "' is closed");
        }
        MemorySegment segment = arena.allocate(Math.max(byteSize, 1), ALIGNMENT);
        bytes.addAndGet(byteSize);
        Memory.allocated(byteSize);
        return segment.asSlice(0, byteSize);
    }

    @Override
    public long allocatedBytes() {
        return bytes.get();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            arena.close();
            Memory.freed(bytes.getAndSet(0));
            Memory.arenaClosed();
        }
    }

    @Override
    public String toString() {
        return "HostArena[" + name + ", " + bytes.get() + " B]";
    }
}
