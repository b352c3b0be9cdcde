package dev.penstock.memory;

/// No staging buffer came back within the caller's bound; the message names the pool and size.
public final class StagingTimeoutException extends RuntimeException {
    /// A timeout described by `message`.
    public StagingTimeoutException(String message) {
        super(message);
    }
}
