package dev.penstock.data;

import dev.penstock.device.DeviceException;
import dev.penstock.device.Event;
import dev.penstock.memory.BlockArena;
import dev.penstock.observe.BatchStall;
import dev.penstock.observe.PrepEvent;
import dev.penstock.observe.StallReport;
import dev.penstock.pump.Pump;
import dev.penstock.pump.PumpConfig;
import dev.penstock.pump.PumpException;
import dev.penstock.random.Seeds;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.function.LongUnaryOperator;

/// One epoch's iteration of a `DataLoader`: the pump, the batch prepared ahead, and the
/// delivered batches whose memory waits for the compute stream to finish with it.
///
/// Thread: the consumer's. The prep stream thread touches only a batch's `PrepTiming` and
/// reports prep time to the (synchronised) `StallReport`.
final class LoaderIterator<H, D, B> implements Iterator<Batch<B>>, AutoCloseable {

    /// Times a batch's prep; touched only by the prep stream thread.
    private static final class PrepTiming {
        long beginNs;
        PrepEvent event;
    }

    /// A batch enqueued on the prep stream and not yet handed out (or handed out, not retired).
    private record Prepared<B>(Batch<B> batch, BlockArena arena, long loadBusyNs) {
    }

    /// A handed-out batch whose memory is freed once `computeDone` completes.
    private record Delivered<B>(Prepared<B> prepared, Event computeDone) {
    }

    /// Host samples to give back once the prep work enqueued for them (up to `prepDone`) has run,
    /// successfully or not; and the arena of a batch that failed on the loader thread.
    private record PendingRelease<H>(Event prepDone, List<H> hosts, BlockArena failedArena) {
    }

    private final DataLoader<H, D, B> loader;
    private final int epoch;
    private final long totalBatches;     // -1: unbounded
    private final long endPosition;      // exclusive; Long.MAX_VALUE when unbounded
    private final int batchSize;
    private final Pump<H> pump;
    private final StallReport report;
    private final ArrayDeque<Delivered<B>> retiring = new ArrayDeque<>();
    private final ArrayDeque<PendingRelease<H>> releasing = new ArrayDeque<>();
    private long nextToPrepare;
    private Prepared<B> current;
    private Prepared<B> lastDelivered;
    private LoaderException held;
    private boolean closed;

    LoaderIterator(DataLoader<H, D, B> loader, int epoch, long startBatch, StallReport report) {
        this.loader = loader;
        this.epoch = epoch;
        this.report = report;
        this.batchSize = loader.config.batchSize();
        this.totalBatches = loader.batchesPerEpoch();
        long n = loader.sampler.length();
        this.endPosition = n < 0 ? Long.MAX_VALUE : (loader.config.dropLast() ? totalBatches * batchSize : n);
        this.nextToPrepare = startBatch;
        LoaderConfig c = loader.config;
        LongUnaryOperator order = loader.sampler.order(epoch);
        long seed = c.seed();
        SampleSource<H, D> source = loader.source;
        PumpConfig pc = new PumpConfig(c.prefetchDepth(), c.budgetBytes(), c.workers(), c.loadTimeout(),
                c.closeTimeout(), loader.name + "-e" + epoch, c.virtualThreads());
        report.start();
        this.pump = Pump.<H>builder(index -> source.loadHost(index, Seeds.generator(seed, Seeds.SAMPLE, epoch, index)))
                .config(pc)
                .source(positions(startBatch * (long) batchSize, endPosition, order))
                .sizer(source::hostBytes)
                .estimate(source::expectedHostBytes)
                .onDiscard(source::releaseHost)
                .start();
    }

    private static PrimitiveIterator.OfLong positions(long from, long to, LongUnaryOperator order) {
        return new PrimitiveIterator.OfLong() {
            private long p = from;

            @Override
            public boolean hasNext() {
                return p < to;
            }

            @Override
            public long nextLong() {
                if (p >= to) {
                    throw new NoSuchElementException();
                }
                return order.applyAsLong(p++);
            }
        };
    }

    private boolean morePrepare() {
        return totalBatches < 0 || nextToPrepare < totalBatches;
    }

    @Override
    public boolean hasNext() {
        return !closed && (held != null || current != null || morePrepare());
    }

    @Override
    public Batch<B> next() {
        if (closed) {
            throw new NoSuchElementException("the loader's iteration was closed");
        }
        long start = System.nanoTime();
        retireFinished();
        releasePrepared();
        if (held != null) {
            LoaderException e = held;
            held = null;
            close();
            throw e;
        }
        if (current == null) {
            if (!morePrepare()) {
                throw new NoSuchElementException("epoch " + epoch + " has no more batches");
            }
            try {
                current = prepare(nextToPrepare++);
            } catch (LoaderException e) {
                close();
                throw e;
            }
        }
        Prepared<B> upcoming = null;
        if (morePrepare()) {
            try {
                upcoming = prepare(nextToPrepare++);
            } catch (LoaderException e) {
                held = e; // batch N is still delivered; the error waits for the next call
            }
        }
        DeviceException prepFailure = failureOf(current.batch.ready());
        if (prepFailure != null) {
            long failed = current.batch.index();
            close();
            throw new LoaderException(epoch, failed, -1, "epoch " + epoch + ", batch " + failed
                    + ": preparation failed in operation '" + prepFailure.operation() + "': " + prepFailure.getCause(), prepFailure);
        }
        // Deferred gating: the compute stream waits for batch N only now that N+1 is enqueued.
        loader.compute.waitFor(current.batch.ready());
        if (lastDelivered != null) {
            retiring.add(new Delivered<>(lastDelivered, loader.compute.record()));
        }
        Prepared<B> out = current;
        current = upcoming;
        lastDelivered = out;
        report.add(new BatchStall(epoch, out.batch.index(), System.nanoTime() - start, out.loadBusyNs, -1));
        boolean finished = held == null && current == null && !morePrepare();
        loader.delivered(epoch, out.batch.index(), finished);
        if (finished) {
            report.stop();
        }
        return out.batch;
    }

    private Prepared<B> prepare(long batchIndex) {
        long first = batchIndex * batchSize;
        int count = (int) Math.min(batchSize, endPosition - first);
        BlockArena arena = loader.batchMemory.open("epoch " + epoch + " batch " + batchIndex);
        PrepContext ctx = new PrepContext(loader.device, loader.prep, arena, epoch, batchIndex);
        PrepTiming timing = new PrepTiming();
        loader.prep.launch("begin batch " + batchIndex, () -> {
            timing.beginNs = System.nanoTime();
            timing.event = new PrepEvent();
            timing.event.begin();
        });
        long[] indices = new long[count];
        List<H> hosts = new ArrayList<>(count);
        List<D> samples = new ArrayList<>(count);
        long loadBusy = 0;
        B data;
        try {
            for (int j = 0; j < count; j++) {
                H host = pullSample(batchIndex);
                indices[j] = pump.lastKey();
                loadBusy += pump.lastLoadNs();
                hosts.add(host);
                samples.add(consume(host, indices[j], ctx));
            }
            data = collate(samples, ctx);
        } catch (LoaderException e) {
            releasing.add(new PendingRelease<>(loader.prep.record(), List.copyOf(hosts), arena));
            throw e;
        }
        loader.prep.launch("end batch " + batchIndex, () -> {
            report.prepFinished(batchIndex, System.nanoTime() - timing.beginNs);
            PrepEvent ev = timing.event;
            ev.end();
            if (ev.shouldCommit()) {
                ev.epoch = epoch;
                ev.batch = batchIndex;
                ev.samples = count;
                ev.commit();
            }
        });
        Event ready = loader.prep.record();
        releasing.add(new PendingRelease<>(ready, List.copyOf(hosts), null));
        return new Prepared<>(new Batch<>(data, epoch, batchIndex, indices, ready), arena, loadBusy);
    }

    private H pullSample(long batchIndex) {
        try {
            return pump.next();
        } catch (PumpException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new LoaderException(epoch, batchIndex, e.key(), "epoch " + epoch + ", batch " + batchIndex + ": sample "
                    + e.key() + " could not be loaded: " + (e.getCause() != null ? e.getCause() : e.getMessage()), cause);
        }
    }

    private D consume(H host, long index, PrepContext ctx) {
        String step = "consume";
        try {
            D d = loader.source.consume(host, ctx);
            for (int t = 0; t < loader.transforms.size(); t++) {
                step = "transform " + t;
                d = loader.transforms.get(t).apply(d, ctx, Seeds.generator(loader.config.seed(), Seeds.TRANSFORM, epoch, index, t));
            }
            return d;
        } catch (RuntimeException e) {
            throw new LoaderException(epoch, ctx.batch(), index, "epoch " + epoch + ", batch " + ctx.batch() + ": " + step
                    + " of sample " + index + " failed: " + e, e);
        }
    }

    private B collate(List<D> samples, PrepContext ctx) {
        try {
            return loader.collate.collate(samples, ctx);
        } catch (RuntimeException e) {
            throw new LoaderException(epoch, ctx.batch(), -1, "epoch " + epoch + ", batch " + ctx.batch()
                    + ": collate failed: " + e, e);
        }
    }

    /// Gives host samples back (and frees the arena of a batch that failed on this thread) once
    /// the prep work enqueued for them has run — on this thread, never blocking, so that a failed
    /// prep stream (which skips its queued work) cannot strand them.
    private void releasePrepared() {
        while (!releasing.isEmpty() && releasing.peekFirst().prepDone().isDone()) {
            release(releasing.pollFirst());
        }
    }

    private void release(PendingRelease<H> r) {
        for (H h : r.hosts()) {
            loader.source.releaseHost(h);
        }
        if (r.failedArena() != null) {
            r.failedArena().close();
        }
    }

    /// The failure of `e` if it has completed with one; null if it succeeded or is not done.
    private static DeviceException failureOf(Event e) {
        if (!e.isDone()) {
            return null;
        }
        try {
            e.await();
            return null;
        } catch (DeviceException failed) {
            return failed;
        }
    }

    /// Frees the memory of delivered batches whose compute work has finished (never blocks).
    private void retireFinished() {
        while (!retiring.isEmpty() && retiring.peekFirst().computeDone().isDone()) {
            retiring.pollFirst().prepared().arena().close();
        }
    }

    /// Stops the pump, waits (within the close bound) for the streams to finish with this
    /// iteration's batches, and frees them. Memory whose last writer has not been seen to finish
    /// is never recycled: when the bound runs out, what the streams may still write (batch
    /// memory, host samples being copied) is left to them — a leak, reported, and the loader's
    /// batch memory is then kept past its own close (`BatchMemoryPool.abandon`). Idempotent.
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        report.stop();
        pump.close();
        if (lastDelivered != null) {
            retiring.add(new Delivered<>(lastDelivered, loader.compute.record()));
            lastDelivered = null;
        }
        Event prepDone = loader.prep.record();
        java.time.Duration bound = loader.config.closeTimeout();
        boolean prepDrained = awaitQuietly(prepDone, bound);
        int abandonedBatches = 0;
        int abandonedHosts = 0;
        while (!retiring.isEmpty()) {
            Delivered<B> d = retiring.pollFirst();
            if (prepDrained && awaitQuietly(d.computeDone(), bound)) {
                d.prepared().arena().close();
            } else {
                abandonedBatches++;
            }
        }
        while (!releasing.isEmpty()) {
            PendingRelease<H> r = releasing.pollFirst();
            if (r.prepDone().isDone()) {
                release(r);
            } else {
                abandonedHosts += r.hosts().size();
                abandonedBatches += r.failedArena() == null ? 0 : 1;
            }
        }
        if (current != null) {
            if (prepDrained) {
                current.arena().close();
            } else {
                abandonedBatches++;
            }
            current = null;
        }
        if (prepDrained && abandonedBatches == 0) {
            clearPrepFailure();
            return;
        }
        loader.batchMemory.abandon();
        System.getLogger(LoaderIterator.class.getName()).log(System.Logger.Level.WARNING,
                "loader epoch {0}: the streams did not finish within {1} (closeTimeout); {2} batches'' memory and {3} host samples"
                        + " they may still write are left to them, not recycled (leaked; the loader''s batch memory is kept past its close)",
                epoch, bound, abandonedBatches, abandonedHosts);
    }

    /// The loader owns the prep stream: a failure already reported (or abandoned with this
    /// iteration) must not poison the next iteration's work.
    private void clearPrepFailure() {
        try {
            loader.prep.synchronize();
        } catch (DeviceException reported) {
            // raised to the consumer already, at its batch or at its own synchronisation point
        }
    }

    private static boolean awaitQuietly(Event e, java.time.Duration bound) {
        try {
            return e.await(bound);
        } catch (RuntimeException failed) {
            return true; // a failed event is done; its failure is the caller's to see at their sync point
        }
    }
}
