package dev.penstock.stage;

/// A stage, hook or sink failed: the pipeline stopped every worker and raises this on the
/// thread that called `run`, naming the stage.
public final class PipelineException extends RuntimeException {
    /// A failure with a message naming the stage, and its cause.
    public PipelineException(String message, Throwable cause) {
        super(message, cause);
    }
}
