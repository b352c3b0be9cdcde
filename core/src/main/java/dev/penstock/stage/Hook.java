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

    /// After step `step` of stage `stage` (0-based, in chain order) with the samples it holds.
    default void onStep(int stage, String name, long step, List<S> samples) throws Exception {
    }

    /// When something happens to a sample in stage `stage`.
    default void onEvent(int stage, Event<S> event) throws Exception {
    }
}
