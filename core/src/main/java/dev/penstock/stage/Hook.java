package dev.penstock.stage;

import java.util.List;

/// Watches a running pipeline: every `every()` steps of each stage, and at every event
/// (graduation, exit, quarantine). Called on the stage's worker thread — a hook shared by
/// several stages is called from several threads and must be thread-safe; a hook that throws
/// stops the pipeline like a failing stage.
///
/// @param <S> the sample type
public interface Hook<S> {
    /// How often `onStep` runs, in steps of a stage (≥ 1).
    default int every() {
        return 1;
    }

    /// After step `step` of stage `stage` (0-based, in chain order) with the samples it holds
    /// (a list valid during the call, read from the stage's batch only when the hook reads it: a
    /// device stage unpacks its batch for it).
    default void onStep(int stage, String name, long step, List<S> samples) throws Exception {
    }

    /// When something happens to a sample in stage `stage`.
    default void onEvent(int stage, Event<S> event) throws Exception {
    }

    /// Every `every()` steps, after `onStep`: the samples to quarantine now, each with its
    /// diagnosis (e.g. a NaN check). They leave the stage as QUARANTINED events; the rest go on.
    default java.util.List<Verdict<S>> check(int stage, long step, java.util.List<S> samples) throws Exception {
        return java.util.List.of();
    }

    /// A sample a hook quarantines, and why (the diagnosis names the sample).
    ///
    /// @param sample    the sample
    /// @param diagnosis why it must leave
    /// @param <S>       the sample type
    record Verdict<S>(S sample, String diagnosis) {
    }
}
