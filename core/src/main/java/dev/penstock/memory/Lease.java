package dev.penstock.memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/// One buffer of a `StagingPool`, held until `close()` returns it — exactly once: a second
/// `close()` does nothing, so a buffer can never be handed out twice.
///
/// The lease owns its buffer's contents while held; blocks viewing it (`block`) must not be
/// used after `close()`.
public final class Lease implements AutoCloseable {
    private final StagingPool pool;
    private final int index;
    private final MemorySegment segment;
    private final Throwable takenAt;
    private final AtomicBoolean returned = new AtomicBoolean();

    Lease(StagingPool pool, int index, MemorySegment segment, Throwable takenAt) {
        this.pool = pool;
        this.index = index;
        this.segment = segment;
        this.takenAt = takenAt;
    }

    /// Which buffer of the pool this is.
    public int index() {
        return index;
    }

    /// The whole buffer.
    public MemorySegment segment() {
        return segment;
    }

    /// A C-ordered block view of the start of the buffer, owned by this lease.
    public Block block(DType dtype, long... shape) {
        return Block.wrap(segment, dtype, this, shape);
    }

    /// The pool it came from.
    public StagingPool pool() {
        return pool;
    }

    /// Where the lease was taken (for leak reports).
    Throwable takenAt() {
        return takenAt;
    }

    /// Returns the buffer to the pool; later calls do nothing.
    @Override
    public void close() {
        if (returned.compareAndSet(false, true)) {
            pool.giveBack(this);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + pool.name() + " #" + index + (returned.get() ? ", returned" : "") + "]";
    }
}
