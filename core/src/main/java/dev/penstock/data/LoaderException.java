package dev.penstock.data;

/// A sample could not be loaded or prepared. Raised by the loader at the position of the batch
/// holding that sample, after every earlier batch was delivered.
public final class LoaderException extends RuntimeException {
    private final int epoch;
    private final long batch;
    private final long sampleIndex;

    /// A failure of sample `sampleIndex` in batch `batch` of epoch `epoch`.
    public LoaderException(int epoch, long batch, long sampleIndex, String message, Throwable cause) {
        super(message, cause);
        this.epoch = epoch;
        this.batch = batch;
        this.sampleIndex = sampleIndex;
    }

    /// The epoch.
    public int epoch() {
        return epoch;
    }

    /// The batch the sample belongs to, within the epoch.
    public long batch() {
        return batch;
    }

    /// The dataset index of the sample that failed.
    public long sampleIndex() {
        return sampleIndex;
    }
}
