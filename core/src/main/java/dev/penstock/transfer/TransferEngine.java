package dev.penstock.transfer;

import dev.penstock.device.Device;
import dev.penstock.device.DeviceException;
import dev.penstock.device.Event;
import dev.penstock.device.Stream;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.Lease;
import dev.penstock.memory.StagingPool;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import dev.penstock.observe.Timeline;
import java.util.concurrent.atomic.AtomicLong;

/// Moves input to a device in chunks through a staging pool, overlapping the host's reads, the
/// copy stream's host→device copies and the compute stream's kernels.
///
/// ```
///  host thread:   read k+2 → staging[s'']      (waits for a staging buffer: backpressure)
///  copy stream:   wait kernelDone[s]; copy staging → device[s]   (chunk k+1)
///  compute:       wait copied(k);     kernel(k, device[s])
///
///  staging buffer: back to the pool once the copy that read it has finished (a source that
///                  fills buffers of its own, `ChunkSource.filled`, hands them over instead:
///                  no staging buffer, no copy into one; each back to its owner once copied)
///  device buffer s = k mod slots: rewritten only after the kernel that read it (event-guarded)
/// ```
///
/// Device memory is `slots × chunkBytes`, allocated once. A failure anywhere stops the run:
/// nothing new is enqueued, what is in flight drains (queued work after a failure is skipped by
/// stream semantics), every staging buffer comes back, and `run` throws a `TransferException`
/// naming the chunk. The engine is usable again afterwards.
///
/// Why one file: the chunk loop, the staging/throttle bookkeeping of in-flight copies, the
/// draining after a failure and the timing of spans share one run's state (the in-flight queue,
/// the device slots' events, the first failing chunk) and one invariant — every buffer handed
/// to a copy comes back exactly once, whatever fails; apart, each piece would need the others'
/// internals to keep it. The interval arithmetic of the overlap figure is its own (`Intervals`).
///
/// Threading: one `run` at a time, from any thread.
public final class TransferEngine implements AutoCloseable {
    private final Device device;
    private final TransferConfig config;
    private final Stream copy;
    private final Stream compute;
    private StagingPool staging; // guarded by this; null until first needed (the default pool)
    private final BlockArena deviceArena;
    private final Block[] deviceBuffers;
    private volatile Timeline timeline;

    /// An in-flight copy; its staging buffer or the source's filled buffer (null for a direct
    /// source) goes back when `copied` completes.
    private record InFlight(long chunk, Lease lease, Event copied) {
    }

    /// A copy or device kernel between two events of its stream, timed once `end` completes.
    private record Span(boolean isCopy, Event start, Event end) {
    }

    /// An engine on `device` with host staging buffers from a page-aligned pool, allocated when
    /// a source first needs one (a source that hands over its own buffers, `ChunkSource.filled`
    /// or `direct`, never does).
    public TransferEngine(Device device, TransferConfig config) {
        this(device, config, null);
    }

    /// An engine on `device` staging through `staging` (for example a pinned pool of a CUDA
    /// device), whose buffers must hold a chunk. The engine closes the pool.
    public TransferEngine(Device device, TransferConfig config, StagingPool staging) {
        if (staging != null && staging.bufferBytes() < config.chunkBytes()) {
            throw new IllegalArgumentException("staging pool '" + staging.name() + "' has buffers of " + staging.bufferBytes()
                    + " bytes, smaller than option 'chunkBytes' = " + config.chunkBytes());
        }
        this.device = device;
        this.config = config;
        this.staging = staging;
        this.copy = device.newStream("transfer-copy");
        this.compute = device.newStream("transfer-compute");
        this.deviceArena = device.newArena("transfer");
        this.deviceBuffers = new Block[config.slots()];
        for (int s = 0; s < deviceBuffers.length; s++) {
            deviceBuffers[s] = deviceArena.allocate(DType.U8, config.chunkBytes());
        }
    }

    /// Moves `totalBytes` from `source` through the pipeline, running `kernel` on every chunk in
    /// order, and waits until the last kernel has finished.
    ///
    /// @throws TransferException naming the chunk whose read, copy or kernel failed
    public TransferStats run(long totalBytes, ChunkSource source, Kernel kernel) throws InterruptedException {
        return run(totalBytes, source, kernel, null);
    }

    /// Work on one chunk that enqueues itself on the compute stream — a device kernel launch
    /// (host code on a device stream may not launch device work). Called on the calling thread,
    /// in chunk order; `data` stays valid until the work enqueued after it has run.
    @FunctionalInterface
    public interface DeviceKernel {
        /// Enqueues the work on chunk `chunk` (`data`: its bytes in device memory) on `compute`.
        void enqueue(dev.penstock.device.Stream compute, long chunk, Block data) throws Exception;
    }

    /// As `run(totalBytes, source, kernel)`, with a kernel that enqueues device work itself.
    public TransferStats run(long totalBytes, ChunkSource source, DeviceKernel kernel) throws InterruptedException {
        return run(totalBytes, source, null, kernel);
    }

    private TransferStats run(long totalBytes, ChunkSource source, Kernel kernel, DeviceKernel deviceKernel) throws InterruptedException {
        if (totalBytes < 0) {
            throw new IllegalArgumentException("totalBytes must be non-negative, got " + totalBytes);
        }
        long chunkBytes = config.chunkBytes();
        long chunks = (totalBytes + chunkBytes - 1) / chunkBytes;
        Event[] kernelDone = new Event[config.slots()];
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        AtomicLong failedKernelChunk = new AtomicLong(-1);
        ArrayDeque<Span> spans = new ArrayDeque<>();
        long[] deviceNs = new long[2]; // copies, device kernels: from the events around them
        AtomicLong kernelNs = new AtomicLong(); // host kernels: timed where they run
        AtomicLong firstKernelNs = new AtomicLong(-1); // chunk 0's kernel, however it ran
        Timeline tl = timeline;
        long readNs = 0;
        long slotWaitNs = 0;
        long[] slotWaits = new long[1];
        Intervals copies = new Intervals(); // what ran when: the copy/compute overlap
        Intervals kernels = new Intervals();
        long start = System.nanoTime();
        TransferException failure = null;
        try {
            for (long k = 0; k < chunks; k++) {
                int s = (int) (k % config.slots());
                long bytes = Math.min(chunkBytes, totalBytes - k * chunkBytes);
                MemorySegment direct = source.direct(k * chunkBytes, bytes);
                Lease filled = null;
                if (direct == null) {
                    long r0 = System.nanoTime();
                    try {
                        filled = source.filled(k * chunkBytes, bytes);
                    } catch (Exception e) {
                        throw new TransferException(k, "chunk " + k + ": reading input bytes [" + k * chunkBytes + ", "
                                + (k * chunkBytes + bytes) + ") failed: " + e, e);
                    }
                    if (filled != null) {
                        long r1 = System.nanoTime();
                        readNs += r1 - r0;
                        if (tl != null) {
                            tl.record("host", "wait for reads", r0, r1);
                        }
                    }
                }
                long t0 = System.nanoTime();
                Lease lease = null;
                if (direct == null && filled == null) {
                    lease = nextStagingBuffer(inFlight, failedKernelChunk, slotWaits);
                } else {
                    try {
                        throttle(inFlight, failedKernelChunk, slotWaits); // no more than `slots` copies in flight
                    } catch (RuntimeException e) {
                        if (filled != null) {
                            filled.close();
                        }
                        throw e;
                    }
                }
                long t1 = System.nanoTime();
                slotWaitNs += t1 - t0;
                settle(spans, deviceNs, tl, false, copies, kernels, firstKernelNs);
                if (filled != null) {
                    lease = filled; // copied from, then closed like a staging buffer
                    if (tl != null) {
                        tl.record("host", "wait for staging", t0, t1); // for a copy slot: `slots` copies in flight
                    }
                } else if (lease != null) {
                    try {
                        source.read(k * chunkBytes, lease.segment(), bytes);
                    } catch (Exception e) {
                        lease.close();
                        throw new TransferException(k, "chunk " + k + ": reading input bytes [" + k * chunkBytes + ", "
                                + (k * chunkBytes + bytes) + ") failed: " + e, e);
                    }
                    long t2 = System.nanoTime();
                    readNs += t2 - t1;
                    if (tl != null) {
                        tl.record("host", "wait for staging", t0, t1);
                        tl.record("host", "fill staging", t1, t2);
                    }
                }
                if (kernelDone[s] != null) {
                    copy.waitFor(kernelDone[s]); // device buffer s is free once kernel k - slots has read it
                }
                Block src = lease != null ? lease.block(DType.U8, bytes) : Block.wrap(direct, DType.U8, null, bytes);
                Block dst = deviceBuffers[s].slice(0, bytes);
                long chunk = k;
                // timed by events, so no host code runs in a device's streams for it
                Event copyStart = copy.record();
                copy.copy(src, dst);
                Event copied = copy.record();
                spans.add(new Span(true, copyStart, copied));
                inFlight.add(new InFlight(k, lease, copied));
                compute.waitFor(copied);
                if (deviceKernel != null) {
                    Event kernelStart = compute.record();
                    try {
                        deviceKernel.enqueue(compute, chunk, dst);
                    } catch (Exception e) {
                        throw new TransferException(k, "chunk " + k + ": enqueuing its kernel failed: " + e, e);
                    }
                    kernelDone[s] = compute.record();
                    spans.add(new Span(false, kernelStart, kernelDone[s]));
                    continue;
                }
                compute.launch("kernel on chunk " + k, () -> {
                    long kt = System.nanoTime();
                    try {
                        kernel.run(chunk, dst);
                    } catch (Throwable e) {
                        failedKernelChunk.compareAndSet(-1, chunk);
                        throw e;
                    } finally {
                        long end = System.nanoTime();
                        kernelNs.addAndGet(end - kt);
                        if (chunk == 0) {
                            firstKernelNs.set(end - kt);
                        }
                        kernels.add(kt, end);
                        if (tl != null) {
                            tl.record("compute stream", "kernel", kt, end);
                        }
                    }
                });
                kernelDone[s] = compute.record();
            }
            awaitAll(chunks, failedKernelChunk);
            settle(spans, deviceNs, tl, true, copies, kernels, firstKernelNs);
        } catch (TransferException e) {
            failure = e;
        }
        drain(inFlight);
        if (failure != null) {
            throw failure;
        }
        return new TransferStats(totalBytes, chunks, System.nanoTime() - start, readNs, slotWaitNs, deviceNs[0],
                kernelNs.get() + deviceNs[1], slotWaits[0], copies.overlap(kernels), Math.max(0, firstKernelNs.get()));
    }

    /// Adds the spans whose end has completed (all of them with `all`) to the copy and kernel
    /// times, and to the timeline; the first device kernel's time to `firstKernelNs` (still −1).
    private static void settle(ArrayDeque<Span> spans, long[] deviceNs, Timeline tl, boolean all, Intervals copies, Intervals kernels,
                               AtomicLong firstKernelNs) {
        while (!spans.isEmpty() && (all || spans.peekFirst().end().isDone())) {
            Span sp = spans.pollFirst();
            long t0 = sp.start().completedAtNanos();
            long t1 = sp.end().completedAtNanos();
            deviceNs[sp.isCopy() ? 0 : 1] += t1 - t0;
            if (!sp.isCopy()) {
                firstKernelNs.compareAndSet(-1, t1 - t0); // spans settle in order: the first kernel span is chunk 0's
            }
            (sp.isCopy() ? copies : kernels).add(t0, t1);
            if (tl != null) {
                tl.record(sp.isCopy() ? "copy stream" : "compute stream", sp.isCopy() ? "copy" : "kernel", t0, t1);
            }
        }
    }

    /// A free staging buffer: returns the buffers of finished copies first; if none is free,
    /// waits for the oldest copy (bounded), and fails if it failed.
    /// For a direct source: retires finished copies, then waits for the oldest while `slots`
    /// are in flight.
    private void throttle(ArrayDeque<InFlight> inFlight, AtomicLong failedKernelChunk, long[] waits) {
        retireFinished(inFlight, failedKernelChunk);
        if (inFlight.size() >= config.slots()) {
            waits[0]++; // every device slot is being copied into: this chunk waits for one
        }
        while (inFlight.size() >= config.slots()) {
            InFlight oldest = inFlight.peekFirst();
            if (!awaitQuietly(oldest.copied)) {
                throw new TransferException(oldest.chunk, "chunk " + oldest.chunk + ": its copy did not finish within "
                        + config.waitTimeout(), null);
            }
            retireFinished(inFlight, failedKernelChunk);
        }
    }

    private Lease nextStagingBuffer(ArrayDeque<InFlight> inFlight, AtomicLong failedKernelChunk, long[] waits) {
        Lease lease;
        boolean waited = false;
        while ((lease = returnFinished(inFlight, failedKernelChunk)) == null) {
            if (!waited) {
                waited = true;
                waits[0]++; // the pool had no free buffer: this chunk waits for one (starvation)
            }
            InFlight oldest = inFlight.peekFirst();
            if (oldest == null) {
                throw new IllegalStateException("staging pool '" + staging().name() + "' is empty with no copy in flight");
            }
            if (!awaitQuietly(oldest.copied)) {
                throw new TransferException(oldest.chunk, "chunk " + oldest.chunk + ": its copy did not finish within "
                        + config.waitTimeout(), null);
            }
        }
        return lease;
    }

    private Lease returnFinished(ArrayDeque<InFlight> inFlight, AtomicLong failedKernelChunk) {
        retireFinished(inFlight, failedKernelChunk);
        return staging().tryAcquire();
    }

    /// Retires the copies that finished, oldest first, returning their staging buffers; raises
    /// the failure of one that failed.
    private void retireFinished(ArrayDeque<InFlight> inFlight, AtomicLong failedKernelChunk) {
        while (!inFlight.isEmpty() && inFlight.peekFirst().copied.isDone()) {
            InFlight f = inFlight.pollFirst();
            if (f.lease != null) {
                f.lease.close();
            }
            DeviceException e = failureOf(f.copied);
            if (e != null) {
                throw attribute(f.chunk, e, failedKernelChunk);
            }
        }
    }

    private void awaitAll(long chunks, AtomicLong failedKernelChunk) {
        Event done = compute.record();
        if (!awaitQuietly(done)) {
            throw new TransferException(chunks - 1, "the last kernels did not finish within " + config.waitTimeout(), null);
        }
        DeviceException e = failureOf(done);
        if (e != null) {
            throw attribute(chunks - 1, e, failedKernelChunk);
        }
    }

    private static TransferException attribute(long fallbackChunk, DeviceException e, AtomicLong failedKernelChunk) {
        long k = failedKernelChunk.get();
        if (k >= 0) {
            return new TransferException(k, "chunk " + k + ": kernel failed: " + e.getCause(), e);
        }
        return new TransferException(fallbackChunk, "chunk " + fallbackChunk + ": operation '" + e.operation()
                + "' failed: " + e.getCause(), e);
    }

    /// Lets in-flight work finish (skipped if a stream failed), returns every staging buffer and
    /// clears the streams' failures so the engine can run again.
    private void drain(ArrayDeque<InFlight> inFlight) {
        awaitQuietly(copy.record());
        awaitQuietly(compute.record());
        for (InFlight f : inFlight) {
            if (f.lease != null) {
                f.lease.close();
            }
        }
        inFlight.clear();
        clear(copy);
        clear(compute);
    }

    private static void clear(Stream s) {
        try {
            s.synchronize();
        } catch (DeviceException reported) {
            // already raised as this run's TransferException
        }
    }

    private boolean awaitQuietly(Event e) {
        try {
            return e.await(config.waitTimeout());
        } catch (DeviceException failed) {
            return true;
        }
    }

    private static DeviceException failureOf(Event e) {
        try {
            e.await();
            return null;
        } catch (DeviceException failed) {
            return failed;
        }
    }

    /// Records the copies and kernels of later runs on `timeline` (lanes `copy stream` and
    /// `compute stream`); null stops recording.
    public void record(Timeline timeline) {
        this.timeline = timeline;
    }

    /// Device bytes this engine holds: `slots × chunkBytes`, whatever the input size.
    public long deviceBytes() {
        return deviceArena.allocatedBytes();
    }

    /// The staging pool (for its wait time and occupancy), allocated now if no run needed it yet.
    public synchronized StagingPool staging() {
        if (staging == null) {
            staging = StagingPool.allocate(device.name() + " transfer staging", config.slots(), config.chunkBytes());
        }
        return staging;
    }

    /// The settings.
    public TransferConfig config() {
        return config;
    }

    /// The device.
    public Device device() {
        return device;
    }

    /// Frees the device buffers and the staging pool (the device's streams end with the device).
    @Override
    public void close() {
        deviceArena.close();
        synchronized (this) {
            if (staging != null) {
                staging.close();
            }
        }
    }
}
