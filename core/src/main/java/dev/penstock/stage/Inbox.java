package dev.penstock.stage;

import java.util.ArrayList;
import java.util.List;

/// The room a stage has committed: its batch plus its inbox (async receive).
final class Inbox<S> {
    final long[] committed;
    final List<S> arrived = new ArrayList<>();
    volatile boolean done;

    private final Sizer<S> sizer;

    Inbox(Sizer<S> sizer, int dims) {
        this.sizer = sizer;
        committed = new long[dims];
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
    }

    synchronized List<S> takeAll() {
        List<S> out = new ArrayList<>(arrived);
        arrived.clear();
        return out;
    }

    synchronized void release(S s) {
        for (int d = 0; d < committed.length; d++) {
            committed[d] -= sizer.size(s, d);
        }
    }

    synchronized boolean isEmpty() {
        return arrived.isEmpty();
    }
}
