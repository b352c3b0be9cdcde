package dev.penstock.device;

/// Work enqueued on a stream failed; raised at the next synchronisation point.
public final class DeviceException extends RuntimeException {
    private final String operation;

    /// A failure of `operation`.
    public DeviceException(String operation, String message, Throwable cause) {
        super(message, cause);
        this.operation = operation;
    }

    /// The name of the operation that failed.
    public String operation() {
        return operation;
    }
}
