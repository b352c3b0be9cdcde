package dev.penstock.stage;

import java.util.List;
import java.util.function.Consumer;

/// A stage's active batch: the samples it is stepping, within a capacity in every dimension of
/// the sizer. `admit` takes in samples, `step` steps every sample once with one shared
/// evaluation; both report graduations and quarantines as events, and samples that leave free
/// their room at once. The work is done by the stage's `BatchEngine`: its device engine
/// (`Stage.onDevice`: samples packed in device memory, batch kernels) or the per-sample batch.
///
/// Threading: one thread at a time (a pipeline worker owns its stage's batch); with
/// `Stage.threads` > 1 a step uses helper threads, stopped by `close`.
///
/// @param <S> the sample type
public final class StageBatch<S> {
    private final Stage<S> stage;
    private final Capacity capacity;
    private final BatchEngine<S> engine;

    /// An empty batch of `stage` with room `capacity` (in `sizer`'s dimensions).
    public StageBatch(Stage<S> stage, Sizer<S> sizer, Capacity capacity) {
        if (capacity.dimensions() != sizer.dimensions().size()) {
            throw new IllegalArgumentException("capacity has " + capacity.dimensions() + " dimensions but the sample type declares "
                    + sizer.dimensions());
        }
        this.stage = stage;
        this.capacity = capacity;
        this.engine = stage.engine() != null ? stage.engine().create(stage, sizer, capacity) : new PerSampleBatch<>(stage, sizer, capacity);
    }

    /// A held sample as a checkpoint keeps it: the sample, its sub-stage, its motion's state and
    /// the evaluator's state for it.
    ///
    /// @param sample     the sample (its evaluation current)
    /// @param status     its sub-stage
    /// @param motion     what its `Motion.save` wrote (a device engine writes the same bytes)
    /// @param evaluation what `Evaluator.save` wrote for it (empty: nothing to restore)
    public record Held<S>(S sample, int status, byte[] motion, byte[] evaluation) {
    }

    /// Whether `sample` fits in the room left now.
    public boolean fits(S sample) {
        return engine.fits(sample);
    }

    /// Takes in, in order, each of `samples` that fits the room left (a later, smaller one may
    /// fit after a larger one did not) and starts them in the first sub-stage. Returns the
    /// samples that did not fit, in order. A sample that could never fit, even into an empty
    /// batch, is an error naming its id.
    public List<S> admit(List<S> samples, Consumer<Event<S>> events) {
        return engine.admit(samples, events);
    }

    /// One step of every sample: each sample's sub-stage moves it around one shared evaluation;
    /// then every sample whose sub-stage says `finished` graduates (see `Stage`).
    public void step(Consumer<Event<S>> events) {
        engine.step(events);
    }

    /// Frees the engine's helpers and memory (a per-sample batch may step again afterwards).
    public void close() {
        engine.close();
    }

    /// Removes `sample` from the batch as quarantined for `diagnosis` (a hook's verdict): one
    /// QUARANTINED event, its room freed. Fails if the batch does not hold it.
    public void quarantine(S sample, String diagnosis, Consumer<Event<S>> events) {
        engine.quarantine(sample, diagnosis, events);
    }

    /// Every held sample with its sub-stage and motion state, in admission order (for a checkpoint).
    public List<Held<S>> save() throws java.io.IOException {
        return engine.save();
    }

    /// Takes back a sample saved by `save` (restoring a checkpoint): no evaluation, the sample
    /// continues exactly where it was. Fails if it does not fit.
    public void restore(Held<S> held) throws java.io.IOException {
        engine.restore(held);
    }

    /// Samples held.
    public int size() {
        return engine.size();
    }

    /// Whether no sample is held.
    public boolean isEmpty() {
        return engine.size() == 0;
    }

    /// Room used in dimension `d`.
    public long used(int d) {
        return engine.used(d);
    }

    /// The samples held, in admission order (a copy), their state current.
    public List<S> samples() {
        return engine.samples();
    }

    /// The sub-stage each held sample is in, in the order of `samples()`.
    public int[] statuses() {
        return engine.statuses();
    }

    /// Evaluations so far (one per step; the per-sample batch adds one per admission of newcomers).
    public long evaluations() {
        return engine.evaluations();
    }

    /// Steps so far.
    public long steps() {
        return engine.steps();
    }

    /// The stage this batch runs.
    public Stage<S> stage() {
        return stage;
    }

    /// The batch's room.
    public Capacity capacity() {
        return capacity;
    }
}
