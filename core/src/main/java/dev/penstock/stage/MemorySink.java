package dev.penstock.stage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/// A sink in memory with room for `capacity` samples: a result sink (read it with `drain` or
/// `samples`) or an overflow tier (`poll`). Thread-safe.
///
/// @param <S> the sample type
public final class MemorySink<S> implements Sink.Overflow<S> {
    private final String name;
    private final long capacity;
    private final ArrayDeque<S> held = new ArrayDeque<>();
    private long taken;

    /// A sink called `name` holding up to `capacity` samples.
    public MemorySink(String name, long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("memory sink '" + name + "': capacity must be at least 1, got " + capacity);
        }
        this.name = name;
        this.capacity = capacity;
    }

    /// An unbounded sink.
    public static <S> MemorySink<S> unbounded(String name) {
        return new MemorySink<>(name, Long.MAX_VALUE);
    }

    @Override
    public synchronized boolean offer(S sample) {
        if (held.size() >= capacity) {
            return false;
        }
        held.addLast(sample);
        taken++;
        notifyAll();
        return true;
    }

    /// Returns once room was made (a `poll` or `drain`), or after `nanos`.
    @Override
    public synchronized void awaitRoom(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (held.size() >= capacity) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    @Override
    public synchronized S poll() {
        S s = held.pollFirst();
        if (s != null) {
            notifyAll();
        }
        return s;
    }

    @Override
    public synchronized S peek() {
        return held.peekFirst();
    }

    /// Removes and returns everything held (frees the room for a pipeline waiting on it).
    public synchronized List<S> drain() {
        List<S> out = new ArrayList<>(held);
        held.clear();
        notifyAll();
        return out;
    }

    /// What is held now (a copy), oldest first.
    public synchronized List<S> samples() {
        return new ArrayList<>(held);
    }

    @Override
    public synchronized long held() {
        return held.size();
    }

    /// Samples ever taken.
    public synchronized long taken() {
        return taken;
    }

    @Override
    public String name() {
        return name;
    }
}
