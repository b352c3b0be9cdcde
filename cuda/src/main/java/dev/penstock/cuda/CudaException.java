package dev.penstock.cuda;

/// A CUDA driver call failed.
public final class CudaException extends RuntimeException {
    private final String call;
    private final int result;

    /// `call` returned `result` (-1: it could not be made); `message` says what happened.
    public CudaException(String call, int result, String message) {
        super(message);
        this.call = call;
        this.result = result;
    }

    /// The driver call, e.g. `cuMemAlloc_v2`.
    public String call() {
        return call;
    }

    /// The driver's result code (-1 when the call could not be made).
    public int result() {
        return result;
    }
}
