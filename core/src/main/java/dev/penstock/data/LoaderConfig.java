package dev.penstock.data;

import java.time.Duration;

/// Per-loader settings, validated at construction: every error names the option and value.
///
/// A setting means the same thing however it is set: `DataLoader.Builder`'s setters,
/// `Builder.config(LoaderConfig)` (which replaces every setting) and the `with…` copies here
/// all go through these components. The one derived default is the prefetch depth: unless it
/// is set, it is two batches of whatever the batch size is when the loader is built.
///
/// @param batchSize      samples per batch (≥ 1)
/// @param dropLast       drop a short last batch (⌊n/B⌋ batches) or keep it (⌈n/B⌉)
/// @param workers        I/O threads running `loadHost` (≥ 1); they are cheap, use many
/// @param prefetchDepth  samples loading or loaded ahead of the consumer (≥ 1), kept exactly as
///                       set; `0` (`TWO_BATCHES`, the default) means two batches, so that batch
///                       N+1 is ready when batch N is handed out, and follows the batch size
/// @param budgetBytes    a bound on the bytes (`SampleSource.hostBytes`) of samples loading or
///                       loaded ahead of the consumer: never exceeded by more than one sample.
///                       Each load's expected size (`SampleSource.expectedHostBytes`, else the
///                       largest sample seen so far) is reserved before it is dispatched and
///                       settled when it lands; a load that does not fit waits. A sample larger
///                       than the whole budget fails its batch. The batches being prepared and
///                       handed out are outside it. `Long.MAX_VALUE` (the default): no budget
/// @param seed           root of every random draw (shuffle, samples, transforms)
/// @param sampler        `sequential` or `shuffled`
/// @param rank           this process's rank for sharding, in `[0, worldSize)`
/// @param worldSize      number of ranks sharing the dataset (≥ 1)
/// @param loadTimeout    a sample that takes longer to load fails with its index
/// @param closeTimeout   bound on `close()`
/// @param virtualThreads run `loadHost` on virtual threads (cheap to block, cheap to wake)
public record LoaderConfig(int batchSize, boolean dropLast, int workers, int prefetchDepth, long budgetBytes,
                           long seed, String sampler, int rank, int worldSize,
                           Duration loadTimeout, Duration closeTimeout, boolean virtualThreads) {

    /// The `prefetchDepth` that means "two batches of the batch size".
    public static final int TWO_BATCHES = 0;

    /// Validates every option, naming the option and value on error.
    public LoaderConfig {
        if (batchSize < 1) {
            throw new IllegalArgumentException("option 'batchSize' must be at least 1, got " + batchSize);
        }
        if (workers < 1) {
            throw new IllegalArgumentException("option 'workers' must be at least 1, got " + workers);
        }
        if (prefetchDepth < 0) {
            throw new IllegalArgumentException("option 'prefetchDepth' must be at least 1 (or 0 for two batches), got " + prefetchDepth);
        }
        if (budgetBytes < 1) {
            throw new IllegalArgumentException("option 'budgetBytes' must be positive, got " + budgetBytes);
        }
        if (worldSize < 1) {
            throw new IllegalArgumentException("option 'worldSize' must be at least 1, got " + worldSize);
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("option 'rank' must be in [0, " + worldSize + ") for worldSize "
                    + worldSize + ", got " + rank);
        }
        if (!sampler.equalsIgnoreCase("sequential") && !sampler.equalsIgnoreCase("shuffled")
                && !sampler.equalsIgnoreCase("shuffle")) {
            throw new IllegalArgumentException("option 'sampler': unknown sampler '" + sampler
                    + "'; expected 'sequential' or 'shuffled'");
        }
        if (loadTimeout == null || loadTimeout.isNegative() || loadTimeout.isZero()) {
            throw new IllegalArgumentException("option 'loadTimeout' must be a positive duration, got " + loadTimeout);
        }
        if (closeTimeout == null || closeTimeout.isNegative() || closeTimeout.isZero()) {
            throw new IllegalArgumentException("option 'closeTimeout' must be a positive duration, got " + closeTimeout);
        }
    }

    /// Batch size `batchSize`, 4 workers, two batches of prefetch, sequential, seed 0.
    public static LoaderConfig of(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("option 'batchSize' must be at least 1, got " + batchSize);
        }
        return new LoaderConfig(batchSize, false, 4, TWO_BATCHES, Long.MAX_VALUE, 0L, "sequential", 0, 1,
                Duration.ofMinutes(5), Duration.ofSeconds(1), false);
    }

    /// Samples loading or loaded ahead of the consumer: as set, or two batches when not set.
    @Override
    public int prefetchDepth() {
        return prefetchDepth == TWO_BATCHES ? (int) Math.min(Integer.MAX_VALUE, 2L * batchSize) : prefetchDepth;
    }

    @Override
    public String toString() {
        return "LoaderConfig[batchSize=" + batchSize + ", dropLast=" + dropLast + ", workers=" + workers + ", prefetchDepth="
                + prefetchDepth() + (prefetchDepthSet() ? "" : " (two batches)") + ", budgetBytes=" + budgetBytes + ", seed=" + seed
                + ", sampler=" + sampler + ", rank=" + rank + ", worldSize=" + worldSize + ", loadTimeout=" + loadTimeout
                + ", closeTimeout=" + closeTimeout + ", virtualThreads=" + virtualThreads + "]";
    }

    /// Whether the prefetch depth was set (false: two batches, following the batch size).
    public boolean prefetchDepthSet() {
        return prefetchDepth != TWO_BATCHES;
    }

    /// A copy with `batchSize` set (validated).
    public LoaderConfig withBatchSize(int v) {
        return new LoaderConfig(v, dropLast, workers, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `dropLast` set (validated).
    public LoaderConfig withDropLast(boolean v) {
        return new LoaderConfig(batchSize, v, workers, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `workers` set (validated).
    public LoaderConfig withWorkers(int v) {
        return new LoaderConfig(batchSize, dropLast, v, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `prefetchDepth` set (validated; at least 1, or `TWO_BATCHES`).
    public LoaderConfig withPrefetchDepth(int v) {
        return new LoaderConfig(batchSize, dropLast, workers, v, budgetBytes, seed, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `budgetBytes` set (validated).
    public LoaderConfig withBudgetBytes(long v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, v, seed, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `seed` set (validated).
    public LoaderConfig withSeed(long v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, v, sampler, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `sampler` set (validated).
    public LoaderConfig withSampler(String v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, seed, v, rank, worldSize, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `shard` set (validated).
    public LoaderConfig withShard(int r, int world) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, seed, sampler, r, world, loadTimeout, closeTimeout, virtualThreads);
    }

    /// A copy with `loadTimeout` set (validated).
    public LoaderConfig withLoadTimeout(Duration v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize, v, closeTimeout, virtualThreads);
    }

    /// A copy with `closeTimeout` set (validated).
    public LoaderConfig withCloseTimeout(Duration v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize, loadTimeout, v, virtualThreads);
    }

    /// A copy with `virtualThreads` set.
    public LoaderConfig withVirtualThreads(boolean v) {
        return new LoaderConfig(batchSize, dropLast, workers, prefetchDepth, budgetBytes, seed, sampler, rank, worldSize,
                loadTimeout, closeTimeout, v);
    }
}
