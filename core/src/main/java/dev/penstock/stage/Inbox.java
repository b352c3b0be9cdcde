package dev.penstock.stage;

import java.util.ArrayList;
import java.util.List;

/// The room a stage has committed: its batch plus its inbox (async receive). The receiver adds
/// what it took from the upstream buffer; the worker takes it all between steps. Waits are
/// signalled: an arrival or the end wakes a waiting worker, and a release (room freed by a
/// sample leaving the batch) pokes the upstream buffer, where the receiver waits for something
/// that fits.
final class Inbox<S> {
    final long[] committed;
    final List<S> arrived = new ArrayList<>();
    private boolean done;

    private final Sizer<S> sizer;
    private final Runnable roomFreed;

    Inbox(Sizer<S> sizer, int dims, Runnable roomFreed) {
        this.sizer = sizer;
        this.committed = new long[dims];
        this.roomFreed = roomFreed;
    }

    synchronized long[] snapshot() {
        return committed.clone();
    }

    synchronized void add(List<S> samples) {
        for (S s : samples) {
            arrived.add(s);
            for (int d = 0; d < committed.length; d++) {
                committed[d] += sizer.size(s, d);
            }
        }
        notifyAll();
    }

    /// No more arrivals.
    synchronized void finish() {
        done = true;
        notifyAll();
    }

    /// Waits until something has arrived or nothing more will (interrupted when the run stops).
    synchronized void awaitArrival() throws InterruptedException {
        while (arrived.isEmpty() && !done) {
            wait();
        }
    }

    synchronized boolean isDone() {
        return done;
    }

    synchronized List<S> takeAll() {
        List<S> out = new ArrayList<>(arrived);
        arrived.clear();
        return out;
    }

    void release(S s) {
        synchronized (this) {
            for (int d = 0; d < committed.length; d++) {
                committed[d] -= sizer.size(s, d);
            }
        }
        roomFreed.run(); // outside this lock: the receiver holds the buffer's lock, then takes this one
    }

    synchronized boolean isEmpty() {
        return arrived.isEmpty();
    }
}
