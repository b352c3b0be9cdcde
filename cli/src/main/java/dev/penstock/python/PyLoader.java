package dev.penstock.python;

import dev.penstock.data.Batch;
import dev.penstock.data.Collate;
import dev.penstock.data.DataLoader;
import dev.penstock.data.LoaderState;
import dev.penstock.memory.Block;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;

/// What the Python package's `penstock.DataLoader` iterates: core's `DataLoader` over a
/// `PyDataset` (I/O threads loading and transforming samples, collation one batch ahead on the
/// preparation stream), each batch's memory handed to Python as a view — valid until the next
/// batch is asked for, when the loader recycles it.
public final class PyLoader implements AutoCloseable {
    private final DataLoader<Block, Block, Packed> loader;
    private Iterator<Batch<Packed>> epoch;
    private long[] shape = new long[0];
    private long[][] shapes;
    private String dtype = "float32";

    /// A loader of `batchSize` samples of `dataset`, in a shuffled order (`shuffle`; a function
    /// of `seed` and the epoch only) or in order, `workers` I/O threads (virtual), about
    /// `prefetch` batches loaded ahead.
    public PyLoader(PyDataset dataset, int batchSize, boolean shuffle, long seed, boolean dropLast, int workers, int prefetch) {
        if (batchSize < 1 || workers < 1 || prefetch < 1) {
            throw new IllegalArgumentException("batch_size, workers and prefetch must be positive, got " + batchSize + ", " + workers
                    + ", " + prefetch);
        }
        this.loader = DataLoader.builder(dataset).batchSize(batchSize).dropLast(dropLast).workers(workers).virtualThreads(true)
                .prefetchDepth(Math.max(batchSize * prefetch, workers)).sampler(shuffle ? "shuffled" : "sequential").seed(seed)
                .collate(dataset.ragged() ? PyLoader::pack : stack()).build();
    }

    /// A batch: one block, and for samples of several shapes each one's shape (their values one
    /// after another in the block); null when the block is the samples stacked.
    record Packed(Block data, long[][] shapes) {
    }

    private static Collate<Block, Packed> stack() {
        Collate<Block, Block> stack = Collate.stack();
        return (samples, ctx) -> new Packed(stack.collate(samples, ctx), null);
    }

    /// Samples of several shapes, one after another in one 1-D block (the device's copies, as
    /// `Collate.stack` makes them).
    private static Packed pack(java.util.List<Block> samples, dev.penstock.data.PrepContext ctx) {
        long total = 0;
        long[][] shapes = new long[samples.size()][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = samples.get(i).shape();
            total += samples.get(i).elementCount();
        }
        Block out = ctx.arena().allocate(samples.getFirst().dtype(), Math.max(1, total));
        long at = 0;
        for (Block s : samples) {
            long n = s.elementCount();
            ctx.stream().copy(s.reshape(n), out.slice(at, at + n));
            at += n;
        }
        return new Packed(out, shapes);
    }

    /// Batches an epoch holds.
    public long batchesPerEpoch() {
        return loader.batchesPerEpoch();
    }

    /// Starts iterating the current epoch (from where a restored state left it).
    public void begin() {
        epoch = loader.iterator();
    }

    /// The next batch's bytes (native order; `shape()` gives its shape), waiting for it; null at
    /// the epoch's end. A sample that failed to load fails its batch here, naming it.
    public ByteBuffer next() {
        if (epoch == null || !epoch.hasNext()) {
            epoch = null;
            return null;
        }
        Batch<Packed> b = epoch.next();
        b.ready().await();
        Block data = b.data().data();
        shape = data.shape();
        shapes = b.data().shapes();
        dtype = data.dtype() == dev.penstock.memory.DType.F64 ? "float64" : "float32";
        return data.segment().asSlice(0, data.byteSize()).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /// The shape of the batch `next()` returned last.
    public long[] shape() {
        return shape.clone();
    }

    /// For samples of several shapes, each sample's shape in the batch `next()` returned last (its
    /// values one after another); null when that batch is the samples stacked (`shape()`).
    public long[][] sampleShapes() {
        return shapes == null ? null : shapes.clone();
    }

    /// The element type of the batch `next()` returned last: `float32` or `float64`.
    public String dtype() {
        return dtype;
    }

    /// Seed, epoch and batches delivered in it: where a resumed loader picks up.
    public long[] state() {
        LoaderState s = loader.state();
        return new long[] {s.seed(), s.epoch(), s.batchesDelivered()};
    }

    /// Resumes at `state()`'s point: the next batches are the very ones an uninterrupted run yields.
    public void restore(long seed, int epochIndex, long delivered) {
        epoch = null;
        loader.restore(new LoaderState(seed, epochIndex, delivered));
    }

    /// Sets the epoch the next iteration runs (its order a function of the seed and it).
    public void setEpoch(int e) {
        epoch = null;
        loader.setEpoch(e);
    }

    @Override
    public void close() {
        epoch = null;
        loader.close();
    }
}
