package dev.penstock.stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/// Stages chained on workers: `a.then(b)` gives each stage its own worker thread and active
/// batch, with a bounded buffer (capacity in every dimension of the sizer) between neighbours.
///
/// ```
///   samples ─size-aware refill every k steps─▶ [stage 0] ─buffer─▶ [stage 1] ─…─▶ result sinks
///                                                  │ overflow tiers (memory, disk) behind a buffer
/// ```
///
/// Configure, then `run()` once: `try (Pipeline<S> p = a.then(b).sizer(z).samples(list)) { p.run(); }`.
/// `run()` takes the settings as they stand into an immutable `PipelineConfig`, checked before
/// any thread starts; setters refuse once it has.
///
/// - Every sample is delivered exactly once: to a result sink (finished), or to the
///   quarantine with a diagnosis; a sample that does not fit waits, it is never dropped.
/// - Done only when the samples are exhausted and no stage, buffer or overflow tier holds
///   work. Every stage's methods must terminate (step budget or convergence rule): checked
///   before the run, as are samples larger than any stage or buffer (named by id).
/// - Modes `SYNC` (receive between steps), `ASYNC_RECEIVE` (a receiver thread fills an inbox
///   during the step), `FULLY_ASYNC` (a sender thread empties an outbox too) give the same
///   per-sample results: a sample's trajectory never depends on its batch neighbours.
/// - `debug` records buffer populations per step; `synchronizedSteps` puts a barrier after
///   every step of every stage (debugging only: sends never block then, exits wait in an
///   outbox and the stage admits nothing new until it has left).
/// - An exception in any stage, hook or sink stops every worker within `stopTimeout` and
///   surfaces from `run()` as a `PipelineException`; `close()` stops whatever still runs.
///
/// @param <S> the sample type
public final class Pipeline<S> implements AutoCloseable {
    /// How a stage's worker receives from and sends to its neighbours.
    public enum Mode {
        /// Receive between steps, send during the step (blocking).
        SYNC,
        /// A receiver thread per stage fills an inbox while the stage steps.
        ASYNC_RECEIVE,
        /// As `ASYNC_RECEIVE`, and a sender thread per stage empties an outbox.
        FULLY_ASYNC
    }

    final List<Stage<S>> stages = new ArrayList<>();
    final Map<Integer, Capacity> stageCapacity = new HashMap<>();
    final List<Sink<S>> results = new ArrayList<>();
    final List<Hook<S>> hooks = new ArrayList<>();
    Sizer<S> sizer;
    Capacity batchCapacity;
    Capacity bufferCapacity;
    Supplier<List<Sink.Overflow<S>>> overflow = List::of;
    List<S> samples;
    int refillEvery = 1;
    Mode mode = Mode.SYNC;
    boolean debug;
    dev.penstock.observe.Timeline timeline;
    boolean synchronizedSteps;
    Duration stopTimeout = Duration.ofSeconds(10);
    private Run<S> run;

    Pipeline(Stage<S> first) {
        stages.add(first);
    }

    /// A pipeline of one stage (for a fused stage run on one worker).
    public static <S> Pipeline<S> of(Stage<S> stage) {
        return new Pipeline<>(stage);
    }

    /// Appends `next` on its own worker.
    public Pipeline<S> then(Stage<S> next) {
        configurable();
        stages.add(next);
        return this;
    }

    /// Appends the stages of `other` (renumbered after this pipeline's; its settings are not
    /// taken over).
    public Pipeline<S> then(Pipeline<S> other) {
        configurable();
        stages.addAll(other.stages);
        return this;
    }

    /// The sample type's id and sizes (required).
    public Pipeline<S> sizer(Sizer<S> sizer) {
        configurable();
        this.sizer = sizer;
        return this;
    }

    /// The samples, in the order the first stage is offered them (required).
    public Pipeline<S> samples(List<S> samples) {
        configurable();
        this.samples = List.copyOf(samples);
        return this;
    }

    /// Every stage's active-batch room (required unless each stage has its own).
    public Pipeline<S> batchCapacity(Capacity capacity) {
        configurable();
        this.batchCapacity = capacity;
        return this;
    }

    /// Stage `index`'s active-batch room.
    public Pipeline<S> batchCapacity(int index, Capacity capacity) {
        configurable();
        stageCapacity.put(index, capacity);
        return this;
    }

    /// The room of each buffer between neighbours (default: the receiving stage's batch room).
    public Pipeline<S> bufferCapacity(Capacity capacity) {
        configurable();
        this.bufferCapacity = capacity;
        return this;
    }

    /// Overflow tiers behind each buffer, in drain-back priority order (a fresh list per buffer).
    public Pipeline<S> overflow(Supplier<List<Sink.Overflow<S>>> tiers) {
        configurable();
        this.overflow = tiers;
        return this;
    }

    /// A result sink; several are tiers (a write one refuses goes to the next).
    public Pipeline<S> results(Sink<S> sink) {
        configurable();
        results.add(sink);
        return this;
    }

    /// The first stage is refilled from the samples every `k` steps (and whenever it is empty).
    public Pipeline<S> refillEvery(int k) {
        configurable();
        if (k < 1) {
            throw new IllegalArgumentException("option 'refillEvery' must be at least 1, got " + k);
        }
        this.refillEvery = k;
        return this;
    }

    /// The communication mode.
    public Pipeline<S> mode(Mode mode) {
        configurable();
        this.mode = mode;
        return this;
    }

    /// Records buffer populations after every step (in the summary's `trace`).
    public Pipeline<S> debug(boolean on) {
        configurable();
        this.debug = on;
        return this;
    }

    /// Records each stage worker's work on `timeline`, a lane per stage (`stage i: name`):
    /// `step` (its steps and hooks, consecutive steps joined), `wait for input` (an empty batch
    /// waiting for upstream), `wait for room` (a finished sample waiting for room downstream),
    /// and on the last stage `write results` (handing finished samples to the result sinks).
    public Pipeline<S> timeline(dev.penstock.observe.Timeline timeline) {
        configurable();
        this.timeline = timeline;
        return this;
    }

    /// A barrier after every step of every stage (debugging only).
    public Pipeline<S> synchronizedSteps(boolean on) {
        configurable();
        this.synchronizedSteps = on;
        return this;
    }

    /// A hook.
    public Pipeline<S> hook(Hook<S> hook) {
        configurable();
        if (hook.every() < 1) {
            throw new IllegalArgumentException("hook frequency must be at least 1, got " + hook.every());
        }
        hooks.add(hook);
        return this;
    }

    /// How long stopping may take after a failure or `close()`.
    public Pipeline<S> stopTimeout(Duration timeout) {
        configurable();
        this.stopTimeout = timeout;
        return this;
    }

    /// The stages in chain order.
    public List<Stage<S>> stages() {
        return List.copyOf(stages);
    }

    private void configurable() {
        if (run != null) {
            throw new IllegalStateException("the pipeline has started; configure it before run()");
        }
    }

    /// The settings as they stand, fixed and checked (see `PipelineConfig`).
    PipelineConfig<S> config() {
        List<Capacity> rooms = new ArrayList<>();
        for (int i = 0; i < stages.size(); i++) {
            Capacity c = stageCapacity.getOrDefault(i, batchCapacity);
            if (c == null) {
                throw new IllegalArgumentException("stage " + i + " ('" + stages.get(i).name() + "') has no batch capacity: set batchCapacity");
            }
            rooms.add(c);
        }
        List<Capacity> buffers = new ArrayList<>();
        for (int i = 0; i + 1 < stages.size(); i++) {
            buffers.add(bufferCapacity != null ? bufferCapacity : rooms.get(i + 1));
        }
        return new PipelineConfig<>(stages, rooms, buffers, sizer, samples, results, hooks, overflow, refillEvery, mode, debug,
                synchronizedSteps, stopTimeout, timeline);
    }

    /// The checks `run()` makes before anything runs (a method without an end, a sample larger
    /// than a stage or buffer, duplicate ids, missing settings), without running: to fail before
    /// opening output files.
    public void check() {
        config();
    }

    /// Runs every sample through every stage; returns when all are delivered. Once only.
    public Summary<S> run() {
        synchronized (this) {
            if (run != null) {
                throw new IllegalStateException("a pipeline runs once");
            }
            run = new Run<>(config());
        }
        return run.execute();
    }

    /// Stops the workers if they still run (bounded by `stopTimeout`).
    @Override
    public void close() {
        Run<S> r;
        synchronized (this) {
            r = run;
        }
        if (r != null) {
            r.stop(null);
        }
    }
}
