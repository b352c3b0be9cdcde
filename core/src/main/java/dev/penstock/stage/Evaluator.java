package dev.penstock.stage;

import java.util.List;

/// The expensive, shared part of a step (for atoms: the model's energies and forces), done once
/// per step for every sample of a batch, whichever sub-stage it is in.
///
/// A problem with one sample (overlapping atoms, non-finite forces) is reported through
/// `failures` and must not stop the evaluation of the others: the engine quarantines that
/// sample with the diagnosis and the rest go on. An exception thrown out of `evaluate` fails
/// the whole stage.
///
/// @param <S> the sample type
public interface Evaluator<S> {
    /// Evaluates every sample in `samples`, reporting per-sample problems to `failures`.
    void evaluate(List<S> samples, Failures<S> failures);

    /// Why this evaluator could never evaluate `sample` (e.g. an element its model's parameter
    /// file does not describe), or null if it can. Asked of every sample before a run
    /// (`Pipeline.check`), so such a sample is refused up front, named, not quarantined mid-run.
    default String refusal(S sample) {
        return null;
    }

    /// Called once when a sample leaves the batch (graduated or quarantined): drop any state
    /// kept for it (e.g. its neighbour list).
    default void forget(S sample) {
    }

    /// Writes the state kept for `sample` that its next evaluations depend on (for a
    /// checkpoint; e.g. where its neighbour list was built). Default: none.
    default void save(S sample, java.io.DataOutput out) throws java.io.IOException {
    }

    /// Takes back what `save` wrote for `sample` (restoring a checkpoint), so that its next
    /// evaluations are bit for bit those it would have had uninterrupted.
    default void restore(S sample, java.io.DataInput in) throws java.io.IOException {
    }

    /// Where an evaluator reports a sample it could not evaluate.
    @FunctionalInterface
    interface Failures<S> {
        /// `sample` could not be evaluated; `diagnosis` says why (it names the sample).
        void fail(S sample, String diagnosis);
    }
}
