package dev.penstock.data;

import dev.penstock.device.Event;

/// One batch handed out by a `DataLoader`.
///
/// The loader's compute stream already waits for `ready()`: work enqueued on it sees the
/// batch. Host code that reads `data()` directly must `ready().await()` first. The batch's
/// memory stays valid until the compute work enqueued before the loader's next `next()` has
/// finished; copy what must live longer.
///
/// @param data     the collated batch
/// @param epoch    its epoch
/// @param index    its index within the epoch
/// @param samples  the dataset indices of its samples, in order
/// @param ready    completes when its preparation on the preprocessing stream has run
public record Batch<B>(B data, int epoch, long index, long[] samples, Event ready) {

    /// Number of samples in this batch.
    public int size() {
        return samples.length;
    }
}
