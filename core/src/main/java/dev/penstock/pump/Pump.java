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
import java.util.function.LongUnaryOperator;
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
/// `closeTimeout` and logs any I/O thread that did not stop; (6) every loaded result is handed
/// out exactly once: by `next()`, or to the discard callback (on close, whatever order the loads
/// finished in, and by the I/O thread itself for a load that finishes after close); (7) with a
/// sizer and a byte budget, the bytes of items loading or loaded and not yet returned never
/// exceed the budget by more than one item: each dispatch first reserves the item's expected
/// size (the estimate, else the largest result seen so far, else the whole budget), a landed
/// result settles its reservation to its real size, and nothing is dispatched that does not
/// fit, unless nothing is in flight at all (with no size known yet, one item loads until the
/// consumer has taken it). A result larger than the whole budget is that item's failure (the
/// result is discarded).
///
/// Threading: one consumer at a time calls `next` and `hasNext` (it may be a different thread from
/// call to call, as under JMH); `close` may come from any thread. Steady state allocates nothing: slots, keys and results circulate.
///
/// Why one file of this length: dispatch (`topUp`, with the budget reservations), the wake-up
/// protocol (`signalWork`, `idleSlowPath`, the consumer's park), completion (`load`) and `close`
/// (drain) form one handshake over shared fields; each half is only correct read beside the
/// other, so they stay together. The lock-free ring itself is `SlotRing`.
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
    private final LongUnaryOperator estimate;
    private final boolean budgeted;
    private final AtomicLong largest = new AtomicLong();
    private final AtomicLong sized = new AtomicLong();      // results whose size has landed
    private final AtomicInteger guessed = new AtomicInteger(); // loading on the largest-seen guess
    private final Consumer<? super R> discard;
    private final SlotRing ring;
    private final long[] slotBytes;
    private final boolean[] slotGuessed;
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
    private long peekedKey;      // the source's next key, pulled but not dispatched (budget full)
    private boolean peeked;
    private long lastLoadNs;
    private long lastWaitNs;
    private long totalWaitNs;

    Pump(PumpBuilder<R> b) {
        this.config = b.config;
        this.source = b.source;
        this.loader = b.loader;
        this.sizer = b.sizer;
        this.estimate = b.estimate;
        this.budgeted = b.sizer != null && config.budgetBytes() != Long.MAX_VALUE;
        this.discard = b.discard;
        this.ring = new SlotRing(config.depth());
        this.refill = Math.max(1, config.depth() / 16);
        this.slotBytes = new long[config.depth()];
        this.slotGuessed = new boolean[config.depth()];
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
        return ring.inFlight() > 0 || (!closed && (peeked || source.hasNext()));
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

    /// Bytes held by loaded items that the consumer has not taken yet, plus, with a byte budget,
    /// the bytes reserved for items still loading.
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
        while (!closed && ring.inFlight() < config.depth() && (peeked || source.hasNext())) {
            long key = peeked ? peekedKey : source.nextLong();
            peeked = false;
            if (sizer != null) {
                long estimated = budgeted && estimate != null ? estimate.applyAsLong(key) : 0;
                long reserve = reservation(estimated);
                boolean guess = budgeted && estimated <= 0;
                if (budgeted && ring.inFlight() > 0 && (heldBytes.get() + reserve > config.budgetBytes()
                        || guess && guessed.get() >= sized.get())) {
                    peekedKey = key; // it does not fit yet: dispatched once landed items are taken
                    peeked = true;
                    break;
                }
                int slot = (int) (ring.tail() % ring.capacity());
                slotBytes[slot] = reserve;
                slotGuessed[slot] = guess;
                if (guess) {
                    guessed.incrementAndGet();
                }
                heldBytes.addAndGet(reserve);
            }
            ring.dispatch(key);
            dispatched = true;
        }
        if (dispatched) {
            signalWork();
        }
    }

    /// Bytes to reserve for an item before it loads: its estimate, or the largest result seen
    /// so far if that is more; with a budget and nothing known yet, the whole budget (one item
    /// at a time until the first lands). Without a budget nothing is reserved.
    ///
    /// Items reserved on the largest-seen guess alone (no estimate) are at most as many as the
    /// results sized so far (a slow start: 1, 2, 4, …): for sizes drawn independently, a new
    /// item exceeds the largest of k earlier ones with probability 1/(k+1), so k such items
    /// together are expected to exceed their reservations by less than one item.
    private long reservation(long estimated) {
        if (!budgeted) {
            return 0;
        }
        long e = Math.max(estimated, largest.get());
        return e > 0 || sized.get() > 0 ? e : config.budgetBytes();
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
        R value = null;
        try {
            value = loader.load(key);
            if (value == null) {
                result = new Failure(new NullPointerException("the loader returned null for key " + key));
            } else {
                result = value;
                bytes = sizer == null ? 0 : sizer.applyAsLong(value);
            }
        } catch (Throwable e) {
            if (value != null) {
                discard(value); // the sizer failed: the result is still given back
            }
            result = new Failure(e);
        }
        slotLoadNs[slot] = System.nanoTime() - start;
        if (sizer != null) {
            if (budgeted && !(result instanceof Failure)) {
                largest.accumulateAndGet(bytes, Math::max);
                sized.incrementAndGet();
            }
            if (slotGuessed[slot]) {
                guessed.decrementAndGet();
            }
            if (budgeted && bytes > config.budgetBytes()) {
                discard(result);
                result = new Failure(new IllegalStateException("it holds " + bytes + " bytes, more than the whole byte budget of "
                        + config.budgetBytes() + " (option 'budgetBytes')"));
                bytes = 0;
            }
            heldBytes.addAndGet(bytes - slotBytes[slot]); // settle the reservation
            slotBytes[slot] = bytes;
        }
        slotThread[slot] = null;
        if (closed || !ring.complete(seq, result)) {
            discard(result); // closed, or drained by close(): the result is this thread's to give back
            return;
        }
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

    /// Stops the pump: queued loads are cancelled, running loads interrupted, and every loaded
    /// result the consumer did not take is passed to the discard callback exactly once. Returns within `closeTimeout`;
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
        // every result published and not taken, behind an unfinished head or not; a load still
        // running (it ignored its interrupt) finds its slot drained and discards its own result
        ring.drain(this::discard);
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
