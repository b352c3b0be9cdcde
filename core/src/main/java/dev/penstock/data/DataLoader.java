package dev.penstock.data;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.device.Stream;
import dev.penstock.observe.StallReport;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/// Feeds a device: samples load on I/O threads through a `Pump`, are consumed in order on a
/// preprocessing stream, collated, and handed out as `Batch`es with one batch of lookahead.
///
/// ```
///  sampler ─positions─▶ Pump (depth, byte budget) ─▶ I/O threads: loadHost(i, rng_i)
///                          │ host samples, in sampler order
///  next() on this thread ◀─┘
///    consume + transforms + collate of batch N+1 enqueued on the prep stream, event E(N+1)
///    compute.waitFor(E(N))        ◀─ only now: N+1 is already on its way
///    return batch N               ─▶ the caller's work on the compute stream
/// ```
///
/// Each `iterator()` runs the current epoch from where the loader stands (0, or the point a
/// restored `LoaderState` names) to its end; a finished epoch advances the epoch. Errors of a
/// sample surface at its batch, after every earlier batch was delivered.
///
/// Threading: one consumer thread iterates. `close()` (or starting a new iterator) stops the
/// active iteration: the pump's I/O threads end within `closeTimeout`. A for-each loop left
/// by `break` keeps its I/O threads until the loader is closed — use try-with-resources.
public final class DataLoader<H, D, B> implements Iterable<Batch<B>>, AutoCloseable {
    final SampleSource<H, D> source;
    final LoaderConfig config;
    final Collate<D, B> collate;
    final List<Transform<D>> transforms;
    final Device device;
    final Stream prep;
    final Stream compute;
    final Sampler sampler;
    final String name;
    private static final java.util.concurrent.atomic.AtomicInteger IDS = new java.util.concurrent.atomic.AtomicInteger();
    private final boolean ownsDevice;
    final BatchMemoryPool batchMemory;
    private int epoch;
    private long delivered;
    private LoaderIterator<H, D, B> active;
    private StallReport lastReport = new StallReport();
    private boolean closed;

    private DataLoader(Builder<H, D, B> b) {
        this.source = b.source;
        this.config = b.config;
        this.collate = b.collate;
        this.transforms = List.copyOf(b.transforms);
        this.name = "loader" + IDS.incrementAndGet();
        this.ownsDevice = b.device == null;
        this.device = ownsDevice ? new CpuDevice(name, java.time.Duration.ofSeconds(1)) : b.device;
        this.prep = device.newStream("prep");
        this.compute = b.compute != null ? b.compute : device.newStream("compute");
        this.sampler = resolveSampler(b);
        this.batchMemory = new BatchMemoryPool(device, name);
        this.epoch = b.epoch;
    }

    /// Starts building a loader over `source` (a `Dataset` or a `StreamingDataset`).
    public static <H, D> Builder<H, D, List<D>> builder(SampleSource<H, D> source) {
        return new Builder<>(source, Collate.asList());
    }

    private Sampler resolveSampler(Builder<H, D, B> b) {
        if (source instanceof StreamingDataset<H, D>) {
            int rank = config.rank();
            int world = config.worldSize();
            Sampler base = Samplers.unbounded();
            return world == 1 ? base : new Sampler() {
                @Override
                public long length() {
                    return -1;
                }

                @Override
                public java.util.function.LongUnaryOperator order(int e) {
                    return p -> rank + p * world;
                }
            };
        }
        if (!(source instanceof Dataset<H, D> dataset)) {
            throw new IllegalArgumentException("the source must be a Dataset or a StreamingDataset, got " + source.getClass().getName());
        }
        Sampler base = b.sampler != null ? b.sampler : Samplers.named(config.sampler(), dataset.size(), config.seed());
        return config.worldSize() == 1 ? base : Samplers.sharded(base, config.rank(), config.worldSize(), config.dropLast());
    }

    /// Batches per epoch for this rank, or -1 for an unbounded dataset.
    public long batchesPerEpoch() {
        long n = sampler.length();
        if (n < 0) {
            return -1;
        }
        long b = config.batchSize();
        return config.dropLast() ? n / b : (n + b - 1) / b;
    }

    /// Iterates the current epoch from the current position. Closes any active iteration.
    @Override
    public Iterator<Batch<B>> iterator() {
        if (closed) {
            throw new IllegalStateException("loader is closed");
        }
        closeActive();
        lastReport = new StallReport();
        active = new LoaderIterator<>(this, epoch, delivered, lastReport);
        return active;
    }

    /// The loader's name, `loaderN`: its I/O threads are `penstock-io-loaderN-eE-k` and, when it
    /// owns its device, its stream threads `penstock-loaderN-…`.
    public String name() {
        return name;
    }

    /// The stream batches are gated on: enqueue model work here.
    public Stream computeStream() {
        return compute;
    }

    /// The preprocessing stream `consume`, transforms and collation enqueue on.
    public Stream prepStream() {
        return prep;
    }

    /// The device batches are prepared on.
    public Device device() {
        return device;
    }

    /// The validated settings.
    public LoaderConfig config() {
        return config;
    }

    /// Where the loader stands: resume from it with `restore`.
    public synchronized LoaderState state() {
        return new LoaderState(config.seed(), epoch, delivered);
    }

    /// Continues from `state` at the next `iterator()`: the batches that follow are exactly those
    /// a continuous run would have delivered. Closes any active iteration.
    public synchronized void restore(LoaderState state) {
        if (state.seed() != config.seed()) {
            throw new IllegalArgumentException("loader state was taken with seed " + state.seed()
                    + " but this loader has seed " + config.seed() + " (option 'seed')");
        }
        long per = batchesPerEpoch();
        if (per >= 0 && state.batchesDelivered() > per) {
            throw new IllegalArgumentException("loader state names batch " + state.batchesDelivered()
                    + " but an epoch has only " + per + " batches");
        }
        closeActive();
        this.epoch = state.epoch();
        this.delivered = state.batchesDelivered();
    }

    /// Sets the epoch the next `iterator()` runs, from its start. Closes any active iteration.
    public synchronized void setEpoch(int e) {
        if (e < 0) {
            throw new IllegalArgumentException("option 'epoch' must be non-negative, got " + e);
        }
        closeActive();
        this.epoch = e;
        this.delivered = 0;
    }

    /// The stall report of the current (or last) iteration.
    public StallReport stallReport() {
        return lastReport;
    }

    synchronized void delivered(int e, long batchIndex, boolean epochFinished) {
        if (epochFinished) {
            epoch = e + 1;
            delivered = 0;
        } else {
            epoch = e;
            delivered = batchIndex + 1;
        }
    }

    private void closeActive() {
        if (active != null) {
            active.close();
            active = null;
        }
    }

    /// Stops the active iteration (its I/O threads end within `closeTimeout`), frees batch
    /// memory and closes the device if the loader created it. Idempotent.
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeActive();
        batchMemory.close();
        if (ownsDevice) {
            device.close();
        }
    }

    /// Builds a `DataLoader`.
    public static final class Builder<H, D, B> {
        private final SampleSource<H, D> source;
        private Collate<D, B> collate;
        private LoaderConfig config = LoaderConfig.of(1);
        private final List<Transform<D>> transforms = new ArrayList<>();
        private Device device;
        private Stream compute;
        private Sampler sampler;
        private int epoch;

        private Builder(SampleSource<H, D> source, Collate<D, B> collate) {
            this.source = Objects.requireNonNull(source, "source");
            this.collate = collate;
        }

        private <B2> Builder<H, D, B2> withCollate(Collate<D, B2> c) {
            Builder<H, D, B2> b = new Builder<>(source, c);
            b.config = config;
            b.transforms.addAll(transforms);
            b.device = device;
            b.compute = compute;
            b.sampler = sampler;
            b.epoch = epoch;
            return b;
        }

        /// How samples become a batch (default: the list of samples).
        public <B2> Builder<H, D, B2> collate(Collate<D, B2> c) {
            return withCollate(Objects.requireNonNull(c, "collate"));
        }

        /// Replaces every setting at once, exactly as `c` holds them (its prefetch depth too, or
        /// two batches if `c` leaves it unset).
        public Builder<H, D, B> config(LoaderConfig c) {
            this.config = Objects.requireNonNull(c, "config");
            return this;
        }

        /// Sets the batch size; the prefetch depth defaults to two batches unless set.
        public Builder<H, D, B> batchSize(int b) {
            config = config.withBatchSize(b);
            return this;
        }

        /// Drop a short last batch (⌊n/B⌋ batches) instead of keeping it.
        public Builder<H, D, B> dropLast(boolean v) {
            config = config.withDropLast(v);
            return this;
        }

        /// I/O threads running `loadHost`.
        public Builder<H, D, B> workers(int n) {
            config = config.withWorkers(n);
            return this;
        }

        /// Run `loadHost` on virtual threads instead of platform threads.
        public Builder<H, D, B> virtualThreads(boolean v) {
            config = config.withVirtualThreads(v);
            return this;
        }

        /// Samples loading or loaded ahead of the consumer (default, or `LoaderConfig.TWO_BATCHES`:
        /// two batches of the batch size the loader is built with).
        public Builder<H, D, B> prefetchDepth(int samples) {
            config = config.withPrefetchDepth(samples);
            return this;
        }

        /// A bound on the bytes of samples loading or loaded ahead of the consumer (see
        /// `LoaderConfig.budgetBytes`).
        public Builder<H, D, B> budgetBytes(long bytes) {
            config = config.withBudgetBytes(bytes);
            return this;
        }

        /// How long one sample may take to load before it fails with its index.
        public Builder<H, D, B> loadTimeout(java.time.Duration d) {
            config = config.withLoadTimeout(d);
            return this;
        }

        /// The bound on `close()`.
        public Builder<H, D, B> closeTimeout(java.time.Duration d) {
            config = config.withCloseTimeout(d);
            return this;
        }

        /// Root of every random draw: shuffles, sample and transform generators.
        public Builder<H, D, B> seed(long s) {
            config = config.withSeed(s);
            return this;
        }

        /// `sequential` or `shuffled`.
        public Builder<H, D, B> sampler(String name) {
            config = config.withSampler(name);
            return this;
        }

        /// A custom sampler (sharding by rank still applies on top).
        public Builder<H, D, B> sampler(Sampler s) {
            this.sampler = Objects.requireNonNull(s, "sampler");
            return this;
        }

        /// This process's share of the dataset: rank `rank` of `worldSize`, equal batch counts.
        public Builder<H, D, B> shard(int rank, int worldSize) {
            config = config.withShard(rank, worldSize);
            return this;
        }

        /// Appends a per-sample transform (applied in the order added).
        public Builder<H, D, B> transform(Transform<D> t) {
            transforms.add(Objects.requireNonNull(t, "transform"));
            return this;
        }

        /// The device to prepare batches on (default: a `CpuDevice` the loader owns and closes).
        public Builder<H, D, B> device(Device d) {
            this.device = d;
            return this;
        }

        /// The stream the caller computes on (default: a new stream of the device).
        public Builder<H, D, B> computeStream(Stream s) {
            this.compute = s;
            return this;
        }

        /// The epoch the first iteration runs.
        public Builder<H, D, B> epoch(int e) {
            if (e < 0) {
                throw new IllegalArgumentException("option 'epoch' must be non-negative, got " + e);
            }
            this.epoch = e;
            return this;
        }

        /// The loader; it starts no thread until the first `iterator()`, except its device's streams.
        public DataLoader<H, D, B> build() {
            return new DataLoader<>(this);
        }
    }
}
