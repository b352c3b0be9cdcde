package dev.penstock.data;

/// Where a loader is: enough to resume it exactly. A loader restored from this state yields,
/// bit for bit, the batches a continuous run would have yielded next.
///
/// @param seed              the loader's seed (checked on restore)
/// @param epoch             the epoch in progress (or next to start)
/// @param batchesDelivered  batches of that epoch already handed to the consumer
public record LoaderState(long seed, int epoch, long batchesDelivered) {
    /// Rejects negative positions.
    public LoaderState {
        if (epoch < 0 || batchesDelivered < 0) {
            throw new IllegalArgumentException("invalid loader state: epoch " + epoch + ", batchesDelivered " + batchesDelivered);
        }
    }
}
