package dev.penstock.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/// A fixed set of equal host buffers, allocated once, handed out as `Lease`s.
///
/// ```
///   free stack (LIFO: the most recently returned, cache-warm buffer goes out first)
///   ┌───┬───┬───┐        acquire ──▶ Lease(i) ──close()──▶ back on the stack, once
///   │ 2 │ 0 │ 3 │ ◀─┐
///   └───┴───┴───┘   └── a lease still out at pool close() is reported with where it was taken,
///                          and the memory is freed when the last such lease comes back
/// ```
///
/// Closing never frees memory a live lease can reach: with leases out, `close()` reports each
/// one and defers the free to the last `Lease.close()` (a lease never returned keeps its pool's
/// memory, a reported leak, never a use after free). Once freed, every buffer's segment is dead:
/// a touch throws `IllegalStateException` (the `Backing` ties each segment to a scope that closes
/// before the memory goes back).
///
/// On the CPU the buffers are page-aligned off-heap memory; the CUDA module backs the same pool
/// with pinned (page-locked) memory through the `Backing` hook. Backpressure comes from here:
/// `acquire` blocks, with a bound, while every buffer is out.
///
/// Threading: every method is thread-safe. Wait time, acquisitions and occupancy are counted.
public final class StagingPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(StagingPool.class.getName());
    private static final long PAGE = 4096;

    /// Where the buffers' memory comes from (host pages on CPU, pinned memory on CUDA). A backing
    /// belongs to the one pool made with it: the pool closes it, freeing every buffer it gave.
    public interface Backing extends AutoCloseable {
        /// One buffer of `bytes`, aligned to `alignment`.
        MemorySegment allocate(long bytes, long alignment);

        /// Frees every buffer. Each segment `allocate` returned must be dead before its memory goes
        /// back (its scope closed first), so that a stale touch throws instead of writing freed
        /// memory.
        @Override
        void close();
    }

    private final String name;
    private final long bufferBytes;
    private final MemorySegment[] buffers;
    private final Backing backing;
    private final Lease[] out;
    private final int[] free;
    private int freeCount;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    private boolean closed;
    private boolean freed;
    private long acquisitions;
    private long waitNs;
    private int peakInUse;
    private static final java.util.Set<StagingPool> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private StagingPool(String name, int count, long bufferBytes, Backing backing) {
        if (count < 1) {
            throw new IllegalArgumentException("staging pool '" + name + "': option 'buffers' must be at least 1, got " + count);
        }
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("staging pool '" + name + "': option 'bufferBytes' must be positive, got " + bufferBytes);
        }
        this.name = name;
        this.bufferBytes = bufferBytes;
        this.backing = backing;
        this.buffers = new MemorySegment[count];
        this.out = new Lease[count];
        this.free = new int[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = backing.allocate(bufferBytes, PAGE);
            free[i] = count - 1 - i; // buffer 0 on top
        }
        this.freeCount = count;
        LIVE.add(this);
    }

    /// The pools made and not yet closed in this JVM (a snapshot): what process-wide meters of
    /// staging use read (`PenstockMetrics.staging`).
    public static List<StagingPool> live() {
        return List.copyOf(LIVE);
    }

    /// A pool of `count` page-aligned host buffers of `bufferBytes` each, counted in
    /// `Memory.liveBytes()` until the pool closes.
    public static StagingPool allocate(String name, int count, long bufferBytes) {
        return new StagingPool(name, count, bufferBytes, new HostBacking());
    }

    /// A pool whose buffers come from `backing` (pinned memory, for a device module).
    public static StagingPool withBacking(String name, int count, long bufferBytes, Backing backing) {
        return new StagingPool(name, count, bufferBytes, backing);
    }

    /// A lease on buffer `i`, or null when every buffer is out. Never blocks.
    public Lease tryAcquire() {
        lock.lock();
        try {
            requireOpen();
            return freeCount == 0 ? null : take();
        } finally {
            lock.unlock();
        }
    }

    /// A lease, waiting up to `timeout` for a buffer to come back.
    ///
    /// @throws StagingTimeoutException naming the pool and its size when none came back in time
    /// @throws IllegalStateException if the pool is or gets closed while waiting
    public Lease acquire(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            requireOpen();
            if (freeCount > 0) {
                return take();
            }
            long start = System.nanoTime();
            long left = timeout.toNanos();
            while (freeCount == 0 && !closed) {
                if (left <= 0) {
                    waitNs += System.nanoTime() - start;
                    throw new StagingTimeoutException("staging pool '" + name + "': no buffer free within " + timeout
                            + " (all " + buffers.length + " buffers of " + bufferBytes + " bytes are leased)");
                }
                left = returned.awaitNanos(left);
            }
            waitNs += System.nanoTime() - start;
            requireOpen();
            return take();
        } finally {
            lock.unlock();
        }
    }

    private Lease take() {
        int i = free[--freeCount];
        Lease lease = new Lease(this, i, buffers[i], new Throwable("lease of buffer " + i + " taken here"));
        out[i] = lease;
        acquisitions++;
        peakInUse = Math.max(peakInUse, buffers.length - freeCount);
        return lease;
    }

    void giveBack(Lease lease) {
        boolean lastAfterClose;
        lock.lock();
        try {
            if (out[lease.index()] != lease) {
                return;
            }
            out[lease.index()] = null;
            free[freeCount++] = lease.index();
            returned.signalAll(); // an acquirer, and whoever awaits every lease back
            lastAfterClose = closed && freeCount == buffers.length && !freed;
            freed |= lastAfterClose;
        } finally {
            lock.unlock();
        }
        if (lastAfterClose) {
            LOG.log(System.Logger.Level.DEBUG, "staging pool '" + name + "': the last lease out at close came back; memory freed");
            backing.close();
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("staging pool '" + name + "' (" + buffers.length + " buffers of "
                    + bufferBytes + " bytes) is closed");
        }
    }

    /// The pool's name.
    public String name() {
        return name;
    }

    /// Number of buffers.
    public int size() {
        return buffers.length;
    }

    /// Bytes per buffer.
    public long bufferBytes() {
        return bufferBytes;
    }

    /// Buffers free right now.
    public int available() {
        lock.lock();
        try {
            return freeCount;
        } finally {
            lock.unlock();
        }
    }

    /// Leases handed out so far.
    public long acquisitions() {
        lock.lock();
        try {
            return acquisitions;
        } finally {
            lock.unlock();
        }
    }

    /// Total time callers waited in `acquire`, in nanoseconds.
    public long waitNs() {
        lock.lock();
        try {
            return waitNs;
        } finally {
            lock.unlock();
        }
    }

    /// Most buffers out at once.
    public int peakInUse() {
        lock.lock();
        try {
            return peakInUse;
        } finally {
            lock.unlock();
        }
    }

    /// Fails current and future waiters and frees the buffers — at once when every lease is
    /// back; otherwise it reports each lease still out (with where it was taken) and the last
    /// of them to come back frees the memory. Idempotent.
    @Override
    public void close() {
        List<Lease> leaked = new ArrayList<>();
        boolean freeNow;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            LIVE.remove(this);
            for (Lease l : out) {
                if (l != null) {
                    leaked.add(l);
                }
            }
            freeNow = leaked.isEmpty();
            freed = freeNow;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        for (Lease l : leaked) {
            LOG.log(System.Logger.Level.WARNING, "staging pool '" + name + "' closed with buffer " + l.index()
                    + " still leased: its memory is freed when the last lease out comes back", l.takenAt());
        }
        if (freeNow) {
            backing.close();
        }
    }

    /// Waits up to `timeout` for every lease to come back (signalled by each return, not polled);
    /// an interrupt does not cut the wait short and is kept for the caller. Returns whether all
    /// came back: a run's close waits so for the buffers its streams still hold.
    public boolean awaitAllReturned(Duration timeout) {
        boolean interrupted = false;
        lock.lock();
        try {
            long left = timeout.toNanos();
            while (freeCount < buffers.length && left > 0) {
                try {
                    left = returned.awaitNanos(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return freeCount == buffers.length;
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /// Leases out right now (for tests and leak checks).
    public int leased() {
        lock.lock();
        try {
            return buffers.length - freeCount;
        } finally {
            lock.unlock();
        }
    }

    /// Host memory: page-aligned segments of one shared arena, counted in `Memory`.
    private static final class HostBacking implements Backing {
        private final Arena arena = Arena.ofShared();
        private long bytes;

        HostBacking() {
            Memory.arenaOpened();
        }

        @Override
        public synchronized MemorySegment allocate(long size, long alignment) {
            MemorySegment s = arena.allocate(size, alignment);
            bytes += size;
            Memory.allocated(size);
            return s;
        }

        @Override
        public synchronized void close() {
            arena.close();
            Memory.freed(bytes);
            bytes = 0;
            Memory.arenaClosed();
        }
    }

}
