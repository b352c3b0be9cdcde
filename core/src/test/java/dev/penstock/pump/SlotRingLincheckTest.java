package dev.penstock.pump;

import java.util.HashMap;
import java.util.Map;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/// Model-checks the pump's bounded FIFO: one consumer dispatches and polls while two completer
/// threads publish results out of order, including stale (already polled, slot recycled) and
/// future (not yet dispatched) sequence numbers. As in the pump, a sequence number belongs to
/// one completer (a worker completes only what it claimed): even numbers to one thread, odd to
/// the other. A capacity of 2 forces slot reuse, where a stale completion must not land.
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "half", gen = IntGen.class, conf = "0:2")
public class SlotRingLincheckTest {
    private final SlotRing ring = new SlotRing(2);

    @Operation(nonParallelGroup = "consumer")
    public boolean dispatch(@Param(name = "key") int key) {
        return ring.dispatch(key);
    }

    @Operation(nonParallelGroup = "consumer")
    public Integer poll() {
        return (Integer) ring.poll();
    }

    @Operation(nonParallelGroup = "even")
    public boolean completeEven(@Param(name = "half") int half) {
        return ring.complete(2 * half, 2 * half * 10 + 1);
    }

    @Operation(nonParallelGroup = "odd")
    public boolean completeOdd(@Param(name = "half") int half) {
        return ring.complete(2 * half + 1, (2 * half + 1) * 10 + 1);
    }

    @Test
    public void modelCheck() {
        new ModelCheckingOptions()
                .iterations(30)
                .invocationsPerIteration(300)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .sequentialSpecification(Spec.class)
                .check(SlotRingLincheckTest.class);
    }

    /// The sequential behaviour: a FIFO of capacity 2 whose items become pollable once completed.
    public static final class Spec {
        private long head;
        private long tail;
        private final Map<Long, Integer> done = new HashMap<>();

        public boolean dispatch(int key) {
            if (tail - head >= 2) {
                return false;
            }
            tail++;
            return true;
        }

        public Integer poll() {
            if (head < tail && done.containsKey(head)) {
                return done.remove(head++);
            }
            return null;
        }

        public boolean completeEven(int half) {
            return complete(2 * half);
        }

        public boolean completeOdd(int half) {
            return complete(2 * half + 1);
        }

        private boolean complete(int seq) {
            if (seq < head || seq >= tail || done.containsKey((long) seq)) {
                return false;
            }
            done.put((long) seq, seq * 10 + 1);
            return true;
        }
    }
}
