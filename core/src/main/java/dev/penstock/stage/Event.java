package dev.penstock.stage;

/// Something that happened to one sample in a stage: it graduated from a sub-stage (and, from
/// the last, left the stage), or it was quarantined.
///
/// @param kind      what happened
/// @param sample    the sample
/// @param subStage  the sub-stage it graduated from or was in
/// @param method    that sub-stage's method name
/// @param steps     steps it took in that sub-stage
/// @param diagnosis why it was quarantined (null otherwise)
/// @param <S>       the sample type
public record Event<S>(Kind kind, S sample, int subStage, String method, long steps, String diagnosis) {
    /// Kinds of events.
    public enum Kind {
        /// Finished a sub-stage and moved on to the next one in the same stage.
        GRADUATED,
        /// Finished the last sub-stage: the sample has left the stage.
        EXITED,
        /// Could not be evaluated: removed from the stage with a diagnosis; the others go on.
        QUARANTINED
    }

    /// Whether the sample has left the stage (exited or quarantined).
    public boolean left() {
        return kind != Kind.GRADUATED;
    }
}
