package dev.penstock.pump;

import dev.penstock.internal.Threads;
import dev.penstock.observe.PumpWaitEvent;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/// A self-priming, bounded FIFO prefetcher: keeps up to `depth` items loading on I/O threads
/// and hands their results to one consumer in pull order, whatever order they finish in.
///
/// ```
///  source ──keys──▶ dispatch (consumer thread, lazily, up to depth / byte budget)
///                      │                     ▲ poll in order
///                      ▼                     │
///                  SlotRing ◀── complete ── I/O threads: loader.load(key)
/// ```
///
/// Contracts: (1) results come out in source order; (2) at most `depth` items are dispatched
/// and not yet returned by `next()`, and the source is pulled lazily; (3) loading starts when
/// the pump is built, before the first `next()`; (4) an item's failure is raised by the
/// `next()` that reaches it, after all earlier items, and later items still follow; (5)
/// `close()` cancels queued loads, interrupts running ones, returns within
/// `closeTimeout` and logs any I/O thread that did not stop.
///
/// Threading: one consumer at a time calls `next` and `hasNext` (it may be a different thread from
/// call to call, as under JMH); `close` may come from any thread. Steady state allocates nothing: slots, keys and results circulate.
public final class Pump<R> implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Pump.class.getName());
    private static final int SPINS = 64;
    private static final int RUNNING = 0;
    private static final int PARKED = 1;
    private static final int SIGNALLED = 2;
    private static final int MAX_WAKING = 4;

    /// Loads the item for `key`. Runs on an I/O thread; must not return null.
    @FunctionalInterface
    public interface Loader<R> {
        R load(long key) throws Exception;
    }

    private record Failure(Throwable error) {
    }

    private final PumpConfig config;
    private final PrimitiveIterator.OfLong source;
    private final Loader<R> loader;
    private final ToLongFunction<? super R> sizer;
    private final Consumer<? super R> discard;
    private final SlotRing ring;
    private final long[] slotBytes;
    private final long[] slotLoadNs;
    private final Thread[] slotThread;
    private final Thread[] workers;
    private final AtomicIntegerArray parked;
    private final AtomicLong heldBytes = new AtomicLong();
    private final AtomicInteger spinning = new AtomicInteger();
    private final AtomicInteger waking = new AtomicInteger();
    private final int refill;
    private volatile Thread consumer; // the thread waiting in next(), for workers to unpark
    private volatile long consumerWaitingFor = -1;
    private volatile boolean closed;
    private PumpException broken;
    private long lastKey = -1;
    private long lastLoadNs;
    private long lastWaitNs;
    private long totalWaitNs;

    Pump(PumpBuilder<R> b) {
        this.config = b.config;
        this.source = b.source;
        this.loader = b.loader;
        this.sizer = b.sizer;
        this.discard = b.discard;
        this.ring = new SlotRing(config.depth());
        this.refill = Math.max(1, config.depth() / 16);
        this.slotBytes = new long[config.depth()];
        this.slotLoadNs = new long[config.depth()];
        this.slotThread = new Thread[config.depth()];
        this.workers = new Thread[config.workers()];
        this.parked = new AtomicIntegerArray(config.workers());
        for (int i = 0; i < workers.length; i++) {
            int id = i;
            Thread.Builder kind = config.virtualThreads() ? Thread.ofVirtual() : Thread.ofPlatform().daemon();
            workers[i] = kind.name("penstock-io-" + config.name() + "-" + i).unstarted(() -> work(id));
        }
        for (Thread w : workers) {
            w.start();
        }
        topUp(); // self-priming: loads start before the first next()
    }

    /// Starts building a pump around `loader`.
    public static <R> PumpBuilder<R> builder(Loader<R> loader) {
        return new PumpBuilder<>(loader);
    }

    /// Whether another `next()` will return an item or raise an item's error.
    public boolean hasNext() {
        return ring.inFlight() > 0 || (!closed && source.hasNext());
    }

    /// The next result in pull order, waiting for it if needed.
    ///
    /// @throws PumpException if this item's load failed (the pump stays usable) or did not
    ///                       finish within `loadTimeout` (the pump is then broken)
    @SuppressWarnings("unchecked")
    public R next() {
        if (broken != null) {
            throw broken;
        }
        if (closed) {
            throw new IllegalStateException("pump " + config.name() + " is closed");
        }
        if (ring.inFlight() == 0) {
            topUp();
            if (ring.inFlight() == 0) {
                throw new NoSuchElementException("pump " + config.name() + ": source exhausted");
            }
        }
        long seq = ring.head();
        int slot = (int) (seq % ring.capacity());
        long key = ring.key(seq);
        lastWaitNs = 0;
        Object r = ring.poll();
        if (r == null) {
            r = awaitHeadSlowPath(seq, key);
        }
        if (sizer != null) {
            heldBytes.addAndGet(-slotBytes[slot]);
        }
        lastKey = key;
        lastLoadNs = slotLoadNs[slot];
        topUp();
        if (r instanceof Failure f) {
            throw new PumpException(seq, key, "pump " + config.name() + ": loading item " + seq + " (key " + key
                    + ") failed: " + f.error, f.error);
        }
        return (R) r;
    }

    /// Key of the item the last `next()` returned or failed on.
    public long lastKey() {
        return lastKey;
    }

    /// Wall time the loader spent on the last item, in nanoseconds.
    public long lastLoadNs() {
        return lastLoadNs;
    }

    /// Time the last `next()` waited for its item, in nanoseconds (0 if it was ready).
    public long lastWaitNs() {
        return lastWaitNs;
    }

    /// Total time `next()` has waited, in nanoseconds.
    public long totalWaitNs() {
        return totalWaitNs;
    }

    /// Items dispatched and not yet returned.
    public int inFlight() {
        return ring.inFlight();
    }

    /// Bytes held by loaded items that the consumer has not taken yet.
    public long heldBytes() {
        return heldBytes.get();
    }

    /// The validated settings.
    public PumpConfig config() {
        return config;
    }

    private Object awaitHeadSlowPath(long seq, long key) {
        PumpWaitEvent event = new PumpWaitEvent();
        event.begin();
        long start = System.nanoTime();
        long deadline = start + config.loadTimeout().toNanos();
        Object r;
        int spins = 0;
        while ((r = ring.poll()) == null) {
            if (closed) {
                throw new IllegalStateException("pump " + config.name() + " was closed while waiting for item " + seq);
            }
            if (spins < SPINS) {
                spins++;
                Thread.onSpinWait();
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw timeout(seq, key);
            }
            consumer = Thread.currentThread();
            consumerWaitingFor = seq;
            if (!ring.isHeadDone()) {
                LockSupport.parkNanos(this, left);
            }
            consumerWaitingFor = -1;
        }
        lastWaitNs = System.nanoTime() - start;
        totalWaitNs += lastWaitNs;
        event.end();
        if (event.shouldCommit()) {
            event.pump = config.name();
            event.sequence = seq;
            event.key = key;
            event.commit();
        }
        return r;
    }

    private PumpException timeout(long seq, long key) {
        Thread t = slotThread[(int) (seq % ring.capacity())];
        String where = t == null ? "no I/O thread had started it (all busy)"
                : "I/O thread " + t.getName() + " is at " + Arrays.toString(t.getStackTrace());
        broken = new PumpException(seq, key, "pump " + config.name() + ": item " + seq + " (key " + key
                + ") did not finish loading within " + config.loadTimeout() + "; " + where, null);
        return broken;
    }

    /// Dispatches source items while under depth and byte budget (consumer thread). Once
    /// primed, it refills only when `refill` slots are free, so the shared cursor and the
    /// wake-up check are touched once per `refill` items rather than once per item.
    private void topUp() {
        if (ring.inFlight() > config.depth() - refill) {
            return;
        }
        boolean dispatched = false;
        while (!closed && ring.inFlight() < config.depth() && (sizer == null || heldBytes.get() < config.budgetBytes())
                && source.hasNext()) {
            ring.dispatch(source.nextLong());
            dispatched = true;
        }
        if (dispatched) {
            signalWork();
        }
    }

    /// Wakes one parked worker when unclaimed items outnumber the spinning workers and fewer
    /// than `MAX_WAKING` wake-ups are under way. Each woken worker calls this again once it has
    /// claimed an item, so wake-ups fan out through the workers (a few chains in parallel): the
    /// consumer makes a few unpark (futex) calls per burst of dispatches instead of one per
    /// item, and sixteen workers are all running after about four hops.
    private void signalWork() {
        int w = waking.get();
        if (w >= MAX_WAKING || ring.unclaimed() <= spinning.get() || !waking.compareAndSet(w, w + 1)) {
            return;
        }
        for (int i = 0; i < workers.length; i++) {
            if (parked.get(i) == PARKED && parked.compareAndSet(i, PARKED, SIGNALLED)) {
                LockSupport.unpark(workers[i]);
                return;
            }
        }
        // Nobody is parked: every worker is loading or spinning and will claim on its own. A
        // worker that parks after this scan re-checks for work after announcing itself.
        waking.decrementAndGet();
    }

    private void work(int id) {
        while (!closed) {
            long seq = ring.claim();
            if (seq < 0) {
                seq = idleSlowPath(id);
            }
            if (seq >= 0) {
                if (workers.length > 1) {
                    signalWork(); // pass the wake-up on before the (long) load
                }
                load(seq);
            }
        }
    }

    /// Spins briefly (counted in `spinning`, so nobody wakes a worker for work it will take),
    /// then announces itself parked, re-checks, and parks. Returns a claimed sequence or -1.
    private long idleSlowPath(int id) {
        spinning.incrementAndGet();
        long seq = -1;
        for (int i = 0; i < SPINS && seq < 0 && !closed; i++) {
            Thread.onSpinWait();
            seq = ring.claim();
        }
        spinning.decrementAndGet();
        if (seq >= 0 || closed) {
            return seq;
        }
        parked.set(id, PARKED);
        seq = ring.claim(); // re-check after announcing: no lost wake-up
        if (seq < 0 && !closed) {
            LockSupport.park(this);
        }
        if (!parked.compareAndSet(id, PARKED, RUNNING)) {
            // signalled: the wake-up under way is this one; end it before looking for work, so a
            // dispatcher that saw it under way knows this worker will see its items
            parked.set(id, RUNNING);
            waking.decrementAndGet();
        }
        return seq;
    }

    private void load(long seq) {
        int slot = (int) (seq % ring.capacity());
        long key = ring.key(seq);
        slotThread[slot] = Thread.currentThread();
        long start = System.nanoTime();
        Object result;
        long bytes = 0;
        try {
            R value = loader.load(key);
            if (value == null) {
                result = new Failure(new NullPointerException("the loader returned null for key " + key));
            } else {
                result = value;
                bytes = sizer == null ? 0 : sizer.applyAsLong(value);
            }
        } catch (Throwable e) {
            result = new Failure(e);
        }
        slotLoadNs[slot] = System.nanoTime() - start;
        if (sizer != null) {
            slotBytes[slot] = bytes;
            heldBytes.addAndGet(bytes);
        }
        slotThread[slot] = null;
        if (closed) {
            discard(result);
            return;
        }
        ring.complete(seq, result);
        if (consumerWaitingFor == seq) {
            LockSupport.unpark(consumer);
        }
    }

    @SuppressWarnings("unchecked")
    private void discard(Object result) {
        if (discard != null && !(result instanceof Failure)) {
            try {
                discard.accept((R) result);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "pump " + config.name() + ": discarding a result failed", e);
            }
        }
    }

    /// Stops the pump: queued loads are cancelled, running loads interrupted, loaded but
    /// unconsumed results passed to the discard callback. Returns within `closeTimeout`;
    /// an I/O thread still running then is logged with its stack. Idempotent.
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ring.cancelUnclaimed();
        for (Thread w : workers) {
            w.interrupt();
            LockSupport.unpark(w);
        }
        Threads.joinUntil(Arrays.asList(workers), System.nanoTime() + config.closeTimeout().toNanos(),
                "pump " + config.name());
        Object r;
        while (ring.inFlight() > 0 && (r = ring.poll()) != null) {
            discard(r);
        }
    }

    /// Whether every I/O thread has ended (after `close()`).
    public boolean isTerminated() {
        for (Thread w : workers) {
            if (w.isAlive()) {
                return false;
            }
        }
        return true;
    }
}
