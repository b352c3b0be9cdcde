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
/// `releaseHost`, which the loader calls on its own thread once all work enqueued by
/// `consume`, the transforms and collation for its batch has run on the preprocessing stream
/// (successfully or not), or when the sample is dropped on close.
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

    /// Gives the host sample back (called once per sample; see the class comment).
    default void releaseHost(H host) {
    }
}
