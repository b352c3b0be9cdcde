package dev.penstock.stage;

/// Thrown by a result sink's `offer` for one sample it cannot write (a value its format cannot
/// hold): the pipeline quarantines that sample with this message as the diagnosis and the run
/// goes on. Any other exception from a sink stops the run.
public final class SampleRefusedException extends Exception {
    /// A refusal whose message names the sample and why.
    public SampleRefusedException(String diagnosis) {
        super(diagnosis);
    }
}
