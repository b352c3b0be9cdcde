package dev.penstock.stage;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/// How a stage keeps and steps its batch: `StageBatch` runs one of these, the per-sample batch
/// (samples as objects, `Method.Motion`s, one evaluator call per step) unless the stage names a
/// device engine (`Stage.onDevice`): one that keeps its samples packed in a device's memory and
/// steps them with batch kernels. Either way the contract is `StageBatch`'s: room in every
/// dimension of the sizer, graduations and quarantines as events, exits the step they happen,
/// checkpoints as `StageBatch.Held`, a sample's trajectory independent of its batch neighbours.
///
/// Threading: one thread at a time (the stage's worker).
///
/// @param <S> the sample type
public interface BatchEngine<S> {
    /// Whether `sample` fits in the room left now.
    boolean fits(S sample);

    /// Takes in, in order, each of `samples` that fits; returns those that did not, in order;
    /// a sample that could never fit is an error naming it. Newcomers may be evaluated at once
    /// or with the next step's shared evaluation (their trajectories are the same).
    List<S> admit(List<S> samples, Consumer<Event<S>> events);

    /// One step of every sample, reporting graduations, exits and quarantines.
    void step(Consumer<Event<S>> events);

    /// Takes `sample` out as quarantined for `diagnosis` (a hook's verdict).
    void quarantine(S sample, String diagnosis, Consumer<Event<S>> events);

    /// Every held sample, its state current, in admission order (for a checkpoint).
    List<StageBatch.Held<S>> save() throws IOException;

    /// Takes back a sample `save` gave.
    void restore(StageBatch.Held<S> held) throws IOException;

    /// Samples held.
    int size();

    /// Room used in dimension `d`.
    long used(int d);

    /// The samples held, in admission order, their state current (a hook reads them).
    List<S> samples();

    /// The sub-stage of each held sample, in the order of `samples()`.
    int[] statuses();

    /// Evaluations so far.
    long evaluations();

    /// Steps so far.
    long steps();

    /// Frees what the engine holds (threads, device memory). It may not be used afterwards,
    /// except that a per-sample batch may step again.
    void close();

    /// Makes the engine of a stage's batch.
    @FunctionalInterface
    interface Factory<S> {
        /// The engine of `stage` with room `capacity` in `sizer`'s dimensions; fails, saying
        /// why, if the stage is not one it can run.
        BatchEngine<S> create(Stage<S> stage, Sizer<S> sizer, Capacity capacity);
    }
}
