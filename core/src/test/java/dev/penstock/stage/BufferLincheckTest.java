package dev.penstock.stage;

import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/// Model-checks the buffer between two stages with an overflow tier behind it: concurrent
/// offers (which spill to the tier when the buffer is full), takes (which refill from the tier)
/// and population reads must be linearizable — every interleaving explains as some sequential
/// order of the same calls on one buffer. A buffer of 2 samples / 5 atoms and a tier of 1
/// sample force spills and refills within a few calls.
@Param(name = "size", gen = IntGen.class, conf = "1:4")
public class BufferLincheckTest {
    /// A sample: its atoms (results compare sizes: ids would depend on the interleaving).
    record Item(int atoms) {
    }

    private static final Sizer<Item> SIZER = new Sizer<>() {
        @Override
        public List<String> dimensions() {
            return List.of("samples", "atoms");
        }

        @Override
        public long size(Item s, int d) {
            return d == 0 ? 1 : s.atoms();
        }

        @Override
        public long id(Item s) {
            return 0;
        }
    };

    private final Buffer<Item> buffer = new Buffer<>("lincheck", SIZER, Capacity.of(2, 5), List.of(new MemorySink<>("tier", 1)));
    @Operation
    public boolean offer(@Param(name = "size") int size) throws Exception {
        return buffer.offer(new Item(size));
    }

    @Operation
    public List<Item> take() throws Exception {
        return buffer.take(s -> true, 0);
    }

    @Operation
    public List<Item> takeSmall() throws Exception {
        return buffer.take(s -> s.atoms() <= 2, 0);
    }

    @Operation
    public long population() {
        return buffer.population();
    }

    @Test
    public void modelCheck() {
        new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .check(BufferLincheckTest.class);
    }
}
