package dev.penstock.quantum;

import dev.penstock.memory.Block;
import dev.penstock.memory.Lease;
import dev.penstock.memory.StagingPool;
import dev.penstock.observe.Timeline;
import dev.penstock.pump.Pump;
import dev.penstock.pump.PumpException;
import dev.penstock.transfer.TransferException;
import dev.penstock.transfer.TransferStats;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/// The skeleton every encode run shares, whatever encodes its chunks (`EncodePipeline` on a
/// device whose memory the host reads, `DeviceEncodePipeline` on one it cannot): the chunk
/// geometry, the read pool and the I/O pump, the pool of state buffers with its backpressure, the
/// writer thread that writes states in order, the counters, and the summary or the failure at
/// the end.
///
/// ```
///   pump (I/O threads) → nextChunk → [the strategy's staging, copy, encode] → acquireOutput
///   → hand(out, states, good) → writer thread → sink;  finish(stats) or failed(e) at the end
/// ```
///
/// Threading: `nextChunk` is called by the transfer engine's host thread, `acquireOutput` and
/// `hand` by whichever thread the strategy encodes on; the writer runs on its own thread.
final class EncodeRun implements AutoCloseable {
    final RowSource source;
    final EncodePipeline.Config config;
    final Timeline timeline;
    final int rowLength;
    final long rows;
    final int chunkRows;
    final long rowBytesIn;
    final long chunkBytesIn;
    final long chunks;
    final int stateSize;
    final List<EncodingException> skipped = Collections.synchronizedList(new ArrayList<>());

    private final RowSink sink;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong writeNs = new AtomicLong();
    private final AtomicLong outputWaitNs = new AtomicLong();
    private final AtomicReference<Exception> writeFailure = new AtomicReference<>();
    private volatile boolean closing; // close(): writes still queued return their buffers unwritten
    private final long start = System.nanoTime();
    private final ExecutorService writer;
    private final StagingPool reads;
    private final StagingPool states;
    private final Pump<Lease> pump;

    /// Opens a run: `stateSize` amplitudes per state; the state buffers backed by `hostMemory`
    /// (pinned memory for a GPU; null: plain native memory). With `handsReadsOver` the strategy
    /// takes the read buffers themselves (`readChunk`) and holds up to `slots` of them while the
    /// device copies from them; otherwise it copies each chunk out (`nextChunk`).
    EncodeRun(RowSource source, RowSink sink, EncodePipeline.Config config, Timeline timeline, int stateSize,
              java.util.function.Supplier<StagingPool.Backing> hostMemory, boolean handsReadsOver) {
        this.source = source;
        this.sink = sink;
        this.config = config;
        this.timeline = timeline;
        this.rowLength = source.rowLength();
        this.rows = source.rows();
        this.chunkRows = EncodePipeline.chunkRows(rows, config);
        this.rowBytesIn = (long) rowLength * source.dtype().byteSize();
        this.chunkBytesIn = Math.max(1, chunkRows * rowBytesIn);
        this.chunks = (rows + chunkRows - 1) / chunkRows;
        this.stateSize = stateSize;
        int ioThreads = source.sequential() ? 1 : config.ioThreads();
        int depth = Math.max(2, ioThreads * 2);
        long stateBytes = (long) stateSize * config.output().byteSize();
        this.writer = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("penstock-encode-writer").factory());
        StagingPool r = null;
        StagingPool s = null;
        try {
            // depth read ahead, one being read, and the ones handed to the device's copies
            r = StagingPool.allocate("encode reads", depth + 1 + (handsReadsOver ? config.slots() : 0), chunkBytesIn);
            s = hostMemory == null ? StagingPool.allocate("encode states", config.slots() + 1, chunkRows * stateBytes)
                    : StagingPool.withBacking("encode states", config.slots() + 1, chunkRows * stateBytes, hostMemory.get());
            this.pump = EncodePipeline.readPump(r, source, chunkRows, chunks, depth, ioThreads, timeline);
        } catch (RuntimeException e) {
            writer.shutdownNow();
            if (s != null) {
                s.close();
            }
            if (r != null) {
                r.close();
            }
            throw e;
        }
        this.reads = r;
        this.states = s;
    }

    /// The next chunk's rows as the pump read them, in a buffer of the read pool: the caller
    /// closes it (a transfer engine once its copy to the device has finished).
    Lease readChunk() throws Exception {
        return pump.next();
    }

    /// Copies the next chunk's rows, as the pump read them, into `staging` (`bytes` of them).
    void nextChunk(MemorySegment staging, long bytes) throws Exception {
        try (Lease lease = pump.next()) {
            MemorySegment.copy(lease.segment(), 0, staging, 0, bytes);
        }
    }

    /// A free state buffer, waiting for the writer to return one (backpressure); a wait over
    /// 50 µs is recorded on the timeline's `lane`.
    Lease acquireOutput(String lane) throws Exception {
        long w0 = System.nanoTime();
        Lease out = states.acquire(EncodePipeline.WAIT);
        long w1 = System.nanoTime();
        outputWaitNs.addAndGet(w1 - w0);
        if (timeline != null && w1 - w0 > 50_000) {
            timeline.record(lane, "wait for writer", w0, w1);
        }
        return out;
    }

    /// Hands the first `good` states of `outBlock` (in `out`) to the writer thread, in order; the
    /// buffer goes back to the pool once written (or skipped after a write failure).
    void hand(Lease out, Block outBlock, long good) {
        Runnable write = () -> {
            try (out) {
                if (good > 0 && writeFailure.get() == null && !closing) {
                    long t0 = System.nanoTime();
                    sink.write(outBlock.slice(0, good));
                    long t1 = System.nanoTime();
                    writeNs.addAndGet(t1 - t0);
                    if (timeline != null) {
                        timeline.record("writer", "write", t0, t1);
                    }
                    written.addAndGet(good);
                }
            } catch (Exception e) {
                writeFailure.compareAndSet(null, e);
            }
        };
        try {
            writer.execute(write);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            out.close(); // the run is being stopped (another failure, a cancel): the buffer goes back here
            throw stopped;
        }
    }

    /// After the transfer: waits for the writer and returns the summary (or the write failure).
    EncodeSummary finish(TransferStats stats) throws Exception {
        finishWrites();
        if (writeFailure.get() != null) {
            throw new IOException("writing states failed: " + writeFailure.get(), writeFailure.get());
        }
        List<EncodingException> sorted = new ArrayList<>(skipped);
        sorted.sort((a, b) -> Long.compare(a.row(), b.row()));
        return new EncodeSummary(rows, written.get(), List.copyOf(sorted), System.nanoTime() - start, pump.totalWaitNs(), stats,
                outputWaitNs.get(), writeNs.get());
    }

    /// After a failed transfer: the good states handed before it are still written; returns the
    /// most useful cause to throw (the bad row, or the read that failed).
    Exception failed(TransferException e) throws InterruptedException {
        finishWrites();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof EncodingException enc) {
                return enc;
            }
            if (t instanceof PumpException pe) {
                return new IOException("reading input chunk " + pe.key() + " failed: " + pe.getCause(), pe.getCause());
            }
        }
        return e;
    }

    private void finishWrites() throws InterruptedException {
        writer.shutdown();
        if (!writer.awaitTermination(EncodePipeline.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the writer did not finish within " + EncodePipeline.WAIT);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        for (Runnable queued : writer.shutdownNow()) {
            queued.run(); // never ran: it only gives its buffer back
        }
        // an interrupt (Flink cancelling a failed task) does not cut the wait short: the writer
        // returns its buffers before the pools close; the interrupt is kept for the caller
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!writer.isTerminated() && System.nanoTime() < deadline) {
            try {
                writer.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try (reads; states) {
            pump.close();
            // a stream op cut off by a failure may still hold a state or read buffer for a moment
            // (it gives it back as it ends): the pools close once they are back, within a bound
            states.awaitAllReturned(java.time.Duration.ofSeconds(1));
            reads.awaitAllReturned(java.time.Duration.ofSeconds(1));
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
