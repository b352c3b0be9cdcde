package dev.penstock.pump;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/// The bounded FIFO at the heart of the `Pump`: one consumer dispatches keys and polls
/// results in dispatch order; any number of completers fill results in any order.
///
/// ```
///   sequence:  head ............ claimed ........ tail
///              |  dispatched, results filled in any order  |
///   slot of sequence s = s % capacity;  tail - head <= capacity
///
///   state[slot] = s << 2 | PENDING     dispatched, waiting for its result
///               = s << 2 | COMPLETING  one completer won the slot and is writing
///               = s << 2 | DONE        result published; the consumer may take it
///               = s << 2 | TAKEN       its result was taken (poll or drain), or it was
///                                      cancelled by drain before any result came
/// ```
///
/// Every published result is handed out exactly once: `poll` and `drain` both move a slot from
/// DONE to TAKEN by compare-and-set, and a completer that finds its slot no longer PENDING
/// (drained on close) is told so and keeps its result.
///
/// Stamping the state with the sequence makes a late or duplicate `complete(s)` for a
/// recycled slot fail instead of overwriting a newer item. Pre-allocated arrays circulate:
/// nothing is allocated per item.
///
/// Threading: `dispatch`, `poll`, `isHeadDone` and `claim`'s bookkeeping of `tail` belong to
/// the single consumer thread; `claim` and `complete` may be called from any thread.
final class SlotRing extends SlotRingPadClaimed {
    private static final int TAKEN = 0;
    private static final int PENDING = 1;
    private static final int COMPLETING = 2;
    private static final int DONE = 3;
    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CLAIMED;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLAIMED = lookup.findVarHandle(SlotRingClaimed.class, "claimed", long.class);
            TAIL = lookup.findVarHandle(SlotRingTail.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final long[] state;
    private final long[] keys;
    private final Object[] results;
    private long head;              // consumer only
    // tail (written by the consumer, read by completers) and claimed (CAS by completers) live
    // in the padded superclasses below, each on its own cache line.

    SlotRing(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.state = new long[capacity];
        this.keys = new long[capacity];
        this.results = new Object[capacity];
        for (int i = 0; i < capacity; i++) {
            state[i] = -1L; // no sequence yet
        }
    }

    int capacity() {
        return capacity;
    }

    /// Items dispatched and not yet polled (consumer thread).
    int inFlight() {
        return (int) (tail - head);
    }

    /// Sequence number of the next item `poll` returns (consumer thread).
    long head() {
        return head;
    }

    long tail() {
        return tail;
    }

    /// Consumer: appends `key`; false when `capacity` items are already in flight.
    boolean dispatch(long key) {
        long t = tail;
        if (t - head >= capacity) {
            return false;
        }
        int slot = (int) (t % capacity);
        keys[slot] = key;
        STATE.setRelease(state, slot, t << 2 | PENDING);
        TAIL.setVolatile(this, t + 1);
        return true;
    }

    /// Any thread: takes the oldest unclaimed item; returns its sequence, or -1 if none.
    long claim() {
        while (true) {
            long c = claimed;
            if (c >= tail) {
                return -1;
            }
            if (CLAIMED.compareAndSet(this, c, c + 1)) {
                return c;
            }
        }
    }

    /// Items dispatched and not yet claimed (a snapshot).
    long unclaimed() {
        return tail - claimed;
    }

    /// Any thread: drops every item not yet claimed (they will never be completed).
    void cancelUnclaimed() {
        while (true) {
            long c = claimed;
            long t = tail;
            if (c >= t || CLAIMED.compareAndSet(this, c, t)) {
                return;
            }
        }
    }

    /// The key dispatched as `sequence`; valid while the item is in flight.
    long key(long sequence) {
        return keys[(int) (sequence % capacity)];
    }

    /// Any thread: publishes the result of item `sequence`. Returns false if the item is not
    /// pending (already completed, or not dispatched, or recycled).
    boolean complete(long sequence, Object result) {
        int slot = (int) (sequence % capacity);
        if (!STATE.compareAndSet(state, slot, sequence << 2 | PENDING, sequence << 2 | COMPLETING)) {
            return false;
        }
        results[slot] = result;
        // Volatile, not release: the completer reads the consumer's "waiting for" flag next, and
        // that load must not pass this store (Dekker), or the wake-up of a parking consumer is lost.
        STATE.setVolatile(state, slot, sequence << 2 | DONE);
        return true;
    }

    /// Consumer: whether the head item's result is published.
    boolean isHeadDone() {
        long h = head;
        return h < tail && (long) STATE.getVolatile(state, (int) (h % capacity)) == (h << 2 | DONE);
    }

    /// Consumer: removes and returns the head result, or `null` if it is not published yet (or
    /// `drain` took it). A completer never publishes `null`; the pump wraps null results.
    Object poll() {
        long h = head;
        if (h >= tail) {
            return null;
        }
        int slot = (int) (h % capacity);
        if (!STATE.compareAndSet(state, slot, h << 2 | DONE, h << 2 | TAKEN)) {
            return null;
        }
        Object r = results[slot];
        results[slot] = null;
        head = h + 1;
        return r;
    }

    /// Any thread, once no more items are dispatched (on close): hands every published result
    /// not yet taken to `taker`, and marks every item still pending as taken, so that its
    /// completer's `complete` returns false and the completer keeps its result. With `poll`,
    /// every published result is handed out exactly once, whatever order the items finished in.
    void drain(java.util.function.Consumer<Object> taker) {
        long t = tail;
        for (long s = Math.max(0, t - capacity); s < t; s++) {
            int slot = (int) (s % capacity);
            while (true) {
                long st = (long) STATE.getVolatile(state, slot);
                if (st == (s << 2 | PENDING)) {
                    if (STATE.compareAndSet(state, slot, st, s << 2 | TAKEN)) {
                        break;
                    }
                } else if (st == (s << 2 | DONE)) {
                    if (STATE.compareAndSet(state, slot, st, s << 2 | TAKEN)) {
                        Object r = results[slot];
                        results[slot] = null;
                        taker.accept(r);
                        break;
                    }
                } else if (st == (s << 2 | COMPLETING)) {
                    Thread.onSpinWait(); // the completer is between its two writes
                } else {
                    break; // taken, or recycled for a later sequence
                }
            }
        }
    }
}

// Cache-line padding (JCTools style): the consumer's `tail` and the completers' `claimed` must not
// share a line, or every dispatch and every claim would bounce it between cores.

abstract class SlotRingPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

abstract class SlotRingTail extends SlotRingPad0 {
    volatile long tail;
}

abstract class SlotRingPadTail extends SlotRingTail {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

abstract class SlotRingClaimed extends SlotRingPadTail {
    volatile long claimed;
}

abstract class SlotRingPadClaimed extends SlotRingClaimed {
    long p20, p21, p22, p23, p24, p25, p26, p27;
}
