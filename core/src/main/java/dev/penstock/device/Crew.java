package dev.penstock.device;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/// The helper threads of a CPU kernel split over cores (a stage's step, a packed batch's
/// kernels on `CpuDevice`): `run(parts, job)` runs `job(0)` on the caller and `job(1 … parts−1)`
/// on the helpers, and returns when all are done. A step lasts well under
/// a millisecond, so a fresh thread per part (or a parked pool) would spend a good share of it
/// waking up: helpers spin about 50 µs for the next job before they park, and the caller spins
/// as long for the last part before it parks. Wake-ups go through `LockSupport` permits, so none
/// is lost whichever side gets there first.
///
/// Threading: one caller at a time (the stage's worker); `close` from that caller.
public final class Crew implements AutoCloseable {
    private static final long SPIN_NS = 50_000;

    private final Thread[] helpers;
    private final Throwable[] thrown;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile int generation;
    private volatile IntConsumer job;
    private volatile int parts;
    private volatile Thread caller;
    private volatile boolean closed;

    /// `size − 1` helper threads named `NAME-k`.
    public Crew(String name, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a crew needs at least one part (its caller), got " + size);
        }
        helpers = new Thread[size - 1];
        thrown = new Throwable[size];
        for (int k = 0; k < helpers.length; k++) {
            int part = k + 1;
            helpers[k] = Thread.ofPlatform().daemon().name(name + "-" + part).unstarted(() -> loop(part));
            helpers[k].start();
        }
    }

    /// The most parts one `run` can take.
    public int size() {
        return helpers.length + 1;
    }

    /// Runs `job(p)` for every part p < `parts` (≤ `size()`), part 0 on this thread; rethrows the
    /// first part's exception after every part has finished.
    public void run(int parts, IntConsumer job) {
        if (parts < 1 || parts > size()) {
            throw new IllegalArgumentException("a crew of " + size() + " cannot run " + parts + " parts");
        }
        java.util.Arrays.fill(thrown, null);
        this.job = job;
        this.parts = parts;
        this.caller = Thread.currentThread();
        pending.set(parts - 1);
        generation++; // publishes job, parts and caller to the helpers
        for (int k = 1; k < parts; k++) {
            LockSupport.unpark(helpers[k - 1]);
        }
        try {
            job.accept(0);
        } catch (Throwable e) {
            thrown[0] = e;
        }
        long spinUntil = System.nanoTime() + SPIN_NS;
        while (pending.get() > 0) {
            if (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
            }
        }
        for (Throwable e : thrown) {
            if (e instanceof RuntimeException re) {
                throw re;
            }
            if (e instanceof Error er) {
                throw er;
            }
        }
    }

    private void loop(int part) {
        int seen = 0;
        while (!closed) {
            int g = generation;
            if (g != seen) {
                seen = g;
                if (part < parts) {
                    try {
                        job.accept(part);
                    } catch (Throwable e) {
                        thrown[part] = e;
                    }
                    if (pending.decrementAndGet() == 0) {
                        LockSupport.unpark(caller);
                    }
                }
                continue;
            }
            long spinUntil = System.nanoTime() + SPIN_NS;
            while (generation == seen && !closed && System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            if (generation == seen && !closed) {
                LockSupport.park(this); // a new job unparks: its permit is kept if it came first
            }
        }
    }

    /// Stops the helpers (they end within a spin).
    @Override
    public void close() {
        closed = true;
        for (Thread h : helpers) {
            LockSupport.unpark(h);
        }
    }
}
