package dev.penstock.transfer;

/// A transfer stopped: a read, copy or kernel failed (or a slot did not come back in time) at
/// the chunk named here.
public final class TransferException extends RuntimeException {
    private final long chunk;

    /// A failure at chunk `chunk`.
    public TransferException(long chunk, String message, Throwable cause) {
        super(message, cause);
        this.chunk = chunk;
    }

    /// Index of the chunk that failed.
    public long chunk() {
        return chunk;
    }
}
