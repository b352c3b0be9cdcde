package dev.penstock.data;

import dev.penstock.device.Device;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/// Device memory for batches, recycled: a retired batch's blocks go back to a free list keyed
/// by size and the next batch of the same shape takes them without allocating or zeroing.
///
/// ```
///   backing arena (device memory, lives as long as the loader)
///        │ first use of a size: allocate
///        ▼
///   BatchArena of batch N ──close (batch retired)──▶ free[size] ──allocate──▶ BatchArena of N+k
/// ```
///
/// Steady state therefore allocates nothing and never touches the memory on the consumer thread
/// (zeroing 8 MB per batch there cost ~1 ms of consumer time per batch in the `loader`
/// benchmark). Blocks from a batch arena hold stale contents: collation overwrites them.
///
/// Threading: batch arenas are opened on the loader thread and closed there or on the prep
/// stream thread; the pool is synchronised.
final class BatchMemoryPool implements AutoCloseable {
    private final BlockArena backing;
    private final Map<Long, ArrayDeque<MemorySegment>> free = new HashMap<>();
    private boolean closed;
    private boolean abandoned;

    BatchMemoryPool(Device device, String name) {
        this.backing = device.newArena(name + " batches");
    }

    /// A new arena for one batch.
    BlockArena open(String name) {
        return new BatchArena(name);
    }

    private synchronized MemorySegment take(long bytes) {
        if (closed) {
            throw new IllegalStateException("the loader's batch memory is closed");
        }
        ArrayDeque<MemorySegment> q = free.get(bytes);
        MemorySegment s = q == null ? null : q.pollFirst();
        return s != null ? s : backing.allocate(DType.U8, bytes).segment();
    }

    private synchronized void giveBack(List<MemorySegment> segments) {
        if (closed) {
            return;
        }
        for (MemorySegment s : segments) {
            free.computeIfAbsent(s.byteSize(), k -> new ArrayDeque<>()).addFirst(s);
        }
    }

    /// Bytes allocated from the device so far (live until the pool closes).
    long allocatedBytes() {
        return backing.allocatedBytes();
    }

    /// Says that an iteration gave up waiting for its streams and left them batch arenas it never
    /// closed (so their blocks never come back to the free list): `close()` then keeps the
    /// backing (a reported leak) instead of freeing memory under a writer.
    synchronized void abandon() {
        abandoned = true;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        free.clear();
        if (abandoned) {
            System.getLogger(BatchMemoryPool.class.getName()).log(System.Logger.Level.WARNING,
                    "loader batch memory ({0} bytes) is not freed: a stream gave up on by a close may still write it", backing.allocatedBytes());
            return;
        }
        backing.close();
    }

    /// The blocks of one batch; `close()` hands them back to the pool.
    private final class BatchArena implements BlockArena {
        private final String name;
        private final List<MemorySegment> taken = new ArrayList<>(2);
        private long bytes;
        private boolean released;

        BatchArena(String name) {
            this.name = name;
        }

        @Override
        public synchronized Block allocate(DType dtype, long... shape) {
            long size = Math.multiplyExact(Block.elementCount(shape), (long) dtype.byteSize());
            MemorySegment s = take(size);
            taken.add(s);
            bytes += size;
            return Block.wrap(s, dtype, this, shape);
        }

        @Override
        public synchronized long allocatedBytes() {
            return bytes;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void close() {
            List<MemorySegment> back;
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
                back = List.copyOf(taken);
                taken.clear();
                bytes = 0;
            }
            giveBack(back);
        }
    }
}
