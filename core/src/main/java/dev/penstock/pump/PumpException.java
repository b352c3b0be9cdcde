package dev.penstock.pump;

/// Loading an item failed (it threw, returned null, or did not finish in time). Raised by
/// `Pump.next()` at that item's position, after every earlier item was delivered.
public final class PumpException extends RuntimeException {
    private final long sequence;
    private final long key;

    /// A failure of item `sequence`, loaded for `key`.
    public PumpException(long sequence, long key, String message, Throwable cause) {
        super(message, cause);
        this.sequence = sequence;
        this.key = key;
    }

    /// Position of the item in pull order (0 for the first item the pump dispatched).
    public long sequence() {
        return sequence;
    }

    /// The key the item was loaded for (for the loader: the sample index).
    public long key() {
        return key;
    }
}
