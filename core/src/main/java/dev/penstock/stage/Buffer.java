package dev.penstock.stage;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/// The bounded buffer between two neighbouring stages, with a capacity in every dimension of
/// the sizer, and optional overflow tiers behind it. `put` places a sample in the buffer if it
/// fits, else in the first overflow tier that takes it, else waits: a sample is never dropped.
/// Taking frees room, which is refilled from the overflow tiers in tier order (memory before
/// disk). `close` marks the end of the stream: takers then see `isDrained()` once empty.
///
/// Threading: any number of putters and takers.
final class Buffer<S> {
    private final String name;
    private final Sizer<S> sizer;
    private final Capacity capacity;
    private final List<Sink.Overflow<S>> overflow;
    private final LinkedList<S> queue = new LinkedList<>();
    private final long[] used;
    private final long[] spilled;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean closed;
    private boolean failed;
    private long inOverflow;
    private long highWater;

    Buffer(String name, Sizer<S> sizer, Capacity capacity, List<Sink.Overflow<S>> overflow) {
        this.name = name;
        this.sizer = sizer;
        this.capacity = capacity;
        this.overflow = List.copyOf(overflow);
        this.used = new long[capacity.dimensions()];
        this.spilled = new long[overflow.size()];
    }

    /// Puts `sample` into the buffer or an overflow tier, waiting while all are full.
    void put(S sample) throws Exception {
        lock.lockInterruptibly();
        try {
            while (true) {
                checkOpen();
                refill();
                if (capacity.fits(sizer, sample, used)) {
                    if (inOverflow == 0) { // nothing older waits in overflow: keep arrival order
                        add(sample);
                        return;
                    }
                }
                for (int t = 0; t < overflow.size(); t++) {
                    if (overflow.get(t).offer(sample)) {
                        spilled[t]++;
                        inOverflow++;
                        changed.signalAll();
                        return;
                    }
                }
                changed.await(); // a take, a close or a failure signals
            }
        } finally {
            lock.unlock();
        }
    }

    /// Tries once to place `sample` without waiting; false if the buffer and every tier are full.
    boolean offer(S sample) throws Exception {
        lock.lockInterruptibly();
        try {
            checkOpen();
            if (capacity.fits(sizer, sample, used) && inOverflow == 0) {
                add(sample);
                return true;
            }
            for (int t = 0; t < overflow.size(); t++) {
                if (overflow.get(t).offer(sample)) {
                    spilled[t]++;
                    inOverflow++;
                    changed.signalAll();
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen() {
        if (failed) {
            throw new IllegalStateException("buffer '" + name + "' was closed: the pipeline is stopping");
        }
        if (closed) {
            throw new IllegalStateException("buffer '" + name + "' is closed to new samples");
        }
    }

    private void add(S sample) {
        queue.addLast(sample);
        for (int d = 0; d < used.length; d++) {
            used[d] += sizer.size(sample, d);
        }
        highWater = Math.max(highWater, queue.size());
        changed.signalAll();
    }

    /// Removes and returns, in order, the samples that `accept` takes (it is asked in order and
    /// may refuse some — e.g. those that do not fit a batch — which stay). Waits up to `waitNs`
    /// for a first sample when there is none (`Long.MAX_VALUE`: until one comes, the buffer is
    /// closed or it fails; every such change signals).
    List<S> take(Predicate<S> accept, long waitNs) throws Exception {
        lock.lockInterruptibly();
        try {
            long deadline = waitNs == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + waitNs;
            while (queue.isEmpty() && inOverflow == 0 && !closed && !failed) {
                if (deadline == Long.MAX_VALUE) {
                    changed.await();
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return List.of();
                }
                changed.awaitNanos(left);
            }
            if (failed) {
                throw new IllegalStateException("buffer '" + name + "' was closed: the pipeline is stopping");
            }
            return takeLocked(accept);
        } finally {
            lock.unlock();
        }
    }

    /// Waits until the predicate made by `accept` (asked again after every change: an arrival,
    /// or a `poke` from the taker's side saying its room grew) takes at least one sample, the
    /// buffer is drained, or it fails; returns what it took (empty only when drained or failed).
    List<S> takeWhenAccepted(java.util.function.Supplier<Predicate<S>> accept) throws Exception {
        lock.lockInterruptibly();
        try {
            while (true) {
                if (failed) {
                    throw new IllegalStateException("buffer '" + name + "' was closed: the pipeline is stopping");
                }
                if (!queue.isEmpty() || inOverflow > 0) {
                    List<S> out = takeLocked(accept.get());
                    if (!out.isEmpty()) {
                        return out;
                    }
                } else if (closed) {
                    return List.of();
                }
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    /// Wakes the waiters to look again: the taker's room changed outside the buffer.
    void poke() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private List<S> takeLocked(Predicate<S> accept) throws Exception {
        refill();
        List<S> out = new ArrayList<>();
        for (Iterator<S> it = queue.iterator(); it.hasNext(); ) {
            S s = it.next();
            if (accept.test(s)) {
                it.remove();
                for (int d = 0; d < used.length; d++) {
                    used[d] -= sizer.size(s, d);
                }
                out.add(s);
            }
        }
        if (!out.isEmpty()) {
            refill();
            changed.signalAll();
        }
        return out;
    }

    /// Moves samples back from the overflow tiers, in tier order, while they fit.
    private void refill() throws Exception {
        for (Sink.Overflow<S> tier : overflow) {
            while (inOverflow > 0) {
                S s = tier.peek();
                if (s == null) {
                    break;
                }
                if (!capacity.fits(sizer, s, used)) {
                    return;
                }
                tier.poll();
                inOverflow--;
                add(s);
            }
        }
    }

    /// No more puts: takers see the end once the buffer and its overflow are empty.
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /// Wakes and fails every waiter (the pipeline is stopping).
    void fail() {
        lock.lock();
        try {
            failed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /// Closed and empty, overflow included.
    boolean isDrained() {
        lock.lock();
        try {
            return closed && queue.isEmpty() && inOverflow == 0;
        } finally {
            lock.unlock();
        }
    }

    /// Samples in the buffer and its overflow tiers now.
    long population() {
        lock.lock();
        try {
            return queue.size() + inOverflow;
        } finally {
            lock.unlock();
        }
    }

    /// Samples placed in each overflow tier so far.
    long[] spilled() {
        lock.lock();
        try {
            return spilled.clone();
        } finally {
            lock.unlock();
        }
    }

    /// The most samples the buffer itself held at once.
    long highWater() {
        lock.lock();
        try {
            return highWater;
        } finally {
            lock.unlock();
        }
    }

    String name() {
        return name;
    }
}
