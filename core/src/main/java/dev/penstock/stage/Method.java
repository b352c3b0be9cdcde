package dev.penstock.stage;

/// What a stage does to each of its samples: a relaxation, an integrator. `enter` makes the
/// per-sample state (a `Motion`) when a sample enters the stage; the engine then drives it
/// around the shared evaluation of every step:
///
/// ```
///   enter (evaluation current) → finished? → beforeEvaluation → evaluate → afterEvaluation
///                                   ↑                                         │
///                                   └─────────────── steps += 1 ──────────────┘
/// ```
///
/// @param <S> the sample type
public interface Method<S> {
    /// The stage's name in reports ("fire", "langevin", …).
    String name();

    /// The per-sample state for `sample`, which has just entered; its evaluation is current.
    Motion enter(S sample);

    /// Whether every sample is sure to finish: the method has a step budget (or another rule
    /// that always ends). A pipeline refuses, before it runs, a method that does not.
    boolean terminates();

    /// Rebuilds the motion of `sample` from what its `Motion.save` wrote (restoring a
    /// checkpoint): the sample continues exactly where it was, steps and budget included.
    default Motion restore(S sample, java.io.DataInput in) throws java.io.IOException {
        throw new UnsupportedOperationException("method '" + name() + "' cannot restore its state from a checkpoint");
    }

    /// One sample's progress through a method.
    interface Motion {
        /// The part of a step before the evaluation (e.g. move positions).
        void beforeEvaluation();

        /// The part of a step after it (e.g. finish the velocities).
        void afterEvaluation();

        /// Whether the sample graduates now: its convergence rule or step budget says so.
        /// Checked on entry (the evaluation is current then) and after every step.
        boolean finished();

        /// Steps taken in this method.
        long steps();

        /// How the method ended for its sample, once `finished()`: its convergence rule met, its
        /// step budget spent before it, or (the default: dynamics, budgets only) its steps run.
        default Event.Ending ending() {
            return Event.Ending.STEPS_RUN;
        }

        /// Writes the motion's state (for a checkpoint), read back by `Method.restore`.
        default void save(java.io.DataOutput out) throws java.io.IOException {
            throw new UnsupportedOperationException("this motion cannot save its state for a checkpoint");
        }
    }
}
