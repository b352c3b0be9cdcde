package dev.penstock.data;

import java.util.random.RandomGenerator;

/// What every dataset does: its work split in two halves that run on different threads.
///
/// - `loadHost` runs on the loader's I/O threads. It does host work only (read, decode,
///   fill host memory) and must never touch a device or a stream.
/// - `consume` runs on the loader's own thread, in sample order. It enqueues the transfer and
///   any device-side work on the preprocessing stream (`ctx.stream()`) and returns at once.
///
/// Ownership: the host sample belongs to the loader from `loadHost`'s return until
/// `releaseHost`, which the loader calls exactly once for every sample `loadHost` returned:
/// on its own thread once all work enqueued by `consume`, the transforms and collation for its
/// batch has run on the preprocessing stream (successfully or not); or, for a sample loaded
/// but not yet taken into a batch when the iteration stops (the epoch's end, `break` and
/// `close()`, an error, a new `iterator()`), by `close()` or, for a load still running then,
/// by its I/O thread when the load returns. A sample that `hostBytes` says is larger than the
/// whole byte budget is released at once and fails its batch.
///
/// Memory: with a byte budget (`LoaderConfig.budgetBytes`), the bytes of samples loading or
/// loaded ahead of the consumer never exceed the budget by more than one sample. A load's
/// bytes are reserved before it is dispatched, as `expectedHostBytes` says, or as the largest
/// sample seen so far if that is larger; the samples of the batches being prepared and handed
/// out are the consumer's and outside the budget.
public interface SampleSource<H, D> {

    /// Loads sample `index` into host memory (I/O thread). `rng` is this sample's own
    /// generator: the same for any worker count, load order or resume point.
    H loadHost(long index, RandomGenerator rng) throws Exception;

    /// Enqueues the transfer of `host` to the device on `ctx.stream()` (loader thread).
    D consume(H host, PrepContext ctx);

    /// Bytes the host sample holds, for the loader's byte budget.
    default long hostBytes(H host) {
        return 0;
    }

    /// Bytes sample `index` is expected to hold once loaded, or ≤ 0 when unknown; reserved
    /// against the byte budget before its load starts (any thread). Without an estimate the
    /// loader reserves the largest sample seen so far, and loads one sample at a time until
    /// the consumer has taken the first (a slow start after that: 1, 2, 4, … loads ahead).
    default long expectedHostBytes(long index) {
        return -1;
    }

    /// Gives the host sample back (called once per sample; see the class comment).
    default void releaseHost(H host) {
    }
}
