package dev.penstock.data;

/// An unbounded dataset (online simulation, a generator): samples `0, 1, 2, …` with no
/// length. The loader batches it on the fly and never ends an epoch by itself; stop by
/// breaking out of the loop and closing the loader.
///
/// `loadHost(sequence, rng)` is called in parallel on I/O threads and must depend only on its
/// arguments, which is what makes resume exact.
public interface StreamingDataset<H, D> extends SampleSource<H, D> {
}
