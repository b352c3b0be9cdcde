package dev.penstock.data;

/// A map-style dataset: `size()` samples addressed by index `0 … size-1`.
///
/// `loadHost(i, rng)` must be a function of `i` and `rng` alone so that any load order, worker
/// count or resume point gives the same samples.
public interface Dataset<H, D> extends SampleSource<H, D> {

    /// Number of samples.
    long size();
}
