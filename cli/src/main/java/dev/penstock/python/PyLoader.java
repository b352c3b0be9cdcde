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
    private final DataLoader<Block, Block, Block> loader;
    private Iterator<Batch<Block>> epoch;
    private long[] shape = new long[0];
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
                .collate(Collate.stack()).build();
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
        Batch<Block> b = epoch.next();
        b.ready().await();
        Block data = b.data();
        shape = data.shape();
        dtype = data.dtype() == dev.penstock.memory.DType.F64 ? "float64" : "float32";
        return data.segment().asSlice(0, data.byteSize()).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /// The shape of the batch `next()` returned last.
    public long[] shape() {
        return shape.clone();
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
