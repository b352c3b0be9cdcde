package dev.penstock.cli.readme;

// README:dataset begin
import dev.penstock.data.Dataset;
import dev.penstock.data.PrepContext;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.random.RandomGenerator;

/// 1,000 samples of 256 float32 features, made on the loader's I/O threads.
public final class Features implements Dataset<Block, Block>, AutoCloseable {
    private final HostArena arena = Memory.newSharedArena("features"); // off-heap host memory
    private final Queue<Block> free = new ConcurrentLinkedQueue<>();  // host blocks to reuse

    @Override
    public long size() {
        return 1_000;
    }

    @Override
    public Block loadHost(long index, RandomGenerator rng) {    // I/O threads: host work only
        Block b = free.poll();
        if (b == null) {
            synchronized (arena) {
                b = arena.allocate(DType.F32, 256);               // a [256] float32 block
            }
        }
        for (int j = 0; j < 256; j++) {
            b.setFloat(j, rng.nextFloat());                       // rng: this sample's own draws
        }
        return b;
    }

    @Override
    public Block consume(Block host, PrepContext ctx) {         // loader thread: enqueue the copy
        return host;             // on the CPU device host memory is device memory; collate copies it
    }

    @Override
    public void releaseHost(Block host) {                       // its batch is done with it
        free.add(host);
    }

    @Override
    public void close() {
        arena.close();
    }
}
// README:dataset end
