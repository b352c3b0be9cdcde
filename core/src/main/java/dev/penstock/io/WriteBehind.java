package dev.penstock.io;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/// Flushes a file being written to its disk while the writer goes on writing, so that the
/// `fsync` a durable output ends with (`PendingOutput.commit()`) finds little left to flush.
///
/// ```
///   writer:   write ─ write ─ write ─ write ─ write ─ write ─ finish() ─▶ commit: fsync (the tail)
///   flusher:          └─ force (bytes so far) ─┘   └─ force ─┘
/// ```
///
/// Without it every byte of a large output waits in the page cache until the commit, and the
/// commit then flushes all of them after the work that produced them is done: on the machine
/// this was measured on (PERFORMANCE.md, `encode-file`) that flush was a third of a 210 MB
/// output's end-to-end time. Each `wrote(n)` counts the bytes written; once `every` bytes have
/// accumulated and no flush is running, one starts (`FileChannel.force(false)`) on a daemon
/// thread of its own. At most one flush runs at a time, so a writer faster than its disk never
/// queues flushes; it never waits for one either, until `finish()`.
///
/// A flush that fails keeps its exception: the next `wrote` or `finish()` throws it, so a
/// durable output is never committed over a failed write-back. `close()` waits for a running
/// flush and drops its outcome (the output is being discarded).
///
/// Threading: one writing thread calls `wrote`, `finish` and `close`; the flusher is internal.
public final class WriteBehind implements AutoCloseable {
    /// Bytes between two flushes by default: large enough that a flush's fixed cost is small
    /// against its bytes, small enough that the commit's last flush is short (≈ 40 ms of this
    /// VM's disk).
    public static final long DEFAULT_EVERY = 32L << 20;

    private final FileChannel channel;
    private final long every;
    private long unflushed;
    private Thread flusher;
    private int started;
    private volatile IOException failure;

    /// A write-behind of `channel`, starting a flush each `every` bytes written.
    public WriteBehind(FileChannel channel, long every) {
        if (every < 1) {
            throw new IllegalArgumentException("bytes between flushes must be at least 1, got " + every);
        }
        this.channel = channel;
        this.every = every;
    }

    /// A write-behind of `channel` with `DEFAULT_EVERY`.
    public WriteBehind(FileChannel channel) {
        this(channel, DEFAULT_EVERY);
    }

    /// Counts `bytes` just written; starts a flush when enough are unflushed and none runs.
    /// Throws the failure of an earlier flush.
    public void wrote(long bytes) throws IOException {
        rethrow();
        unflushed += bytes;
        if (unflushed >= every && (flusher == null || !flusher.isAlive())) {
            unflushed = 0;
            started++;
            flusher = Thread.ofPlatform().daemon().name("penstock-write-behind").start(this::flush);
        }
    }

    /// How many flushes have started so far.
    public int flushesStarted() {
        return started;
    }

    private void flush() {
        try {
            channel.force(false);
        } catch (ClosedChannelException e) {
            // the output was closed under the flush: it is being discarded or was committed
        } catch (IOException e) {
            failure = e;
        }
    }

    /// Waits for a running flush; throws its failure. The writer then syncs and commits.
    public void finish() throws IOException {
        join();
        rethrow();
    }

    /// Waits for a running flush and forgets its outcome.
    @Override
    public void close() throws IOException {
        join();
    }

    private void join() throws IOException {
        Thread t = flusher;
        if (t == null) {
            return;
        }
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the flush of a file being written");
        }
    }

    private void rethrow() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("flushing a file being written failed: " + e.getMessage(), e);
        }
    }
}
