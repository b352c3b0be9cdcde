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
/// @param ending    how the sub-stage ended for it (`Ending.STEPS_RUN` for a quarantine)
/// @param <S>       the sample type
public record Event<S>(Kind kind, S sample, int subStage, String method, long steps, String diagnosis, Ending ending) {
    /// An event of a sub-stage that ends by its steps (`Ending.STEPS_RUN`).
    public Event(Kind kind, S sample, int subStage, String method, long steps, String diagnosis) {
        this(kind, sample, subStage, method, steps, diagnosis, Ending.STEPS_RUN);
    }

    /// How a sub-stage ended for a sample that finished it.
    public enum Ending {
        /// It met the sub-stage's convergence rule.
        CONVERGED,
        /// It spent the step budget without meeting the convergence rule it was asked to meet.
        BUDGET_SPENT,
        /// It ran the steps it was given (dynamics, or a relaxation with a step budget only).
        STEPS_RUN
    }

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
