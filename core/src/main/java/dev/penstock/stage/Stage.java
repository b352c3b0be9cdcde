package dev.penstock.stage;

import java.util.ArrayList;
import java.util.List;

/// A stage: one or more methods (sub-stages) over one shared evaluator. `fuse` joins stages on
/// one device: each step evaluates every sample once, whichever sub-stage it is in, and a
/// sample's status (0, 1, …) says which sub-stage's method moves it; status = number of
/// sub-stages means it has left the stage. `then` chains stages on workers (see `Pipeline`).
///
/// Graduation rule (fused stages): a sample whose sub-stage says `finished` graduates from it
/// and enters the next sub-stage at once — in the same step, as its evaluation is current —
/// where `finished` is asked again before any step is taken. A sample can so pass several
/// sub-stages in one step (each graduation reported once, in order) but takes at most one step
/// per step of the stage, in the sub-stage it was in when the step began.
///
/// @param <S> the sample type
public final class Stage<S> {
    private final Evaluator<S> evaluator;
    private final List<Method<S>> methods;
    private final int threads;
    private final BatchEngine.Factory<S> engine;
    private final String name; // made once: a hook's onStep takes it every step

    private Stage(Evaluator<S> evaluator, List<Method<S>> methods, int threads, BatchEngine.Factory<S> engine) {
        this.evaluator = evaluator;
        this.methods = List.copyOf(methods);
        this.threads = threads;
        this.engine = engine;
        StringBuilder sb = new StringBuilder();
        for (Method<S> m : this.methods) {
            sb.append(sb.isEmpty() ? "" : "+").append(m.name());
        }
        this.name = sb.toString();
    }

    /// A stage of one method over `evaluator`.
    public static <S> Stage<S> of(Evaluator<S> evaluator, Method<S> method) {
        if (evaluator == null || method == null) {
            throw new IllegalArgumentException("a stage needs an evaluator and a method");
        }
        return new Stage<>(evaluator, List.of(method), 1, null);
    }

    /// This stage with each step split over `n` threads: the caller and `n − 1` virtual threads,
    /// each taking a run of consecutive samples through the part of the step before the
    /// evaluation, the evaluation of its run, and the part after. The evaluator is then called
    /// once per run, from several threads at once, with disjoint samples: it must allow that (an
    /// `atoms` `ModelEvaluator` over a `PairPotential` does). A sample is still one thread's for
    /// the whole step, so no result depends on `n`; graduations, quarantines and hooks stay on the
    /// stage's worker, in batch order.
    public Stage<S> threads(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("stage '" + name() + "': option 'threads' must be at least 1, got " + n);
        }
        return new Stage<>(evaluator, methods, n, engine);
    }

    /// This stage with its batch kept and stepped by the engine `factory` makes (a device
    /// engine: samples packed in a device's memory, batch kernels) instead of the per-sample
    /// batch. The factory fails when the pipeline starts if the stage is not one it can run.
    public Stage<S> onDevice(BatchEngine.Factory<S> factory) {
        if (factory == null) {
            throw new IllegalArgumentException("stage '" + name() + "': the device engine factory is null");
        }
        return new Stage<>(evaluator, methods, threads, factory);
    }

    /// The device engine's factory, or null: the per-sample batch.
    public BatchEngine.Factory<S> engine() {
        return engine;
    }

    /// Threads a step's motions are split over.
    public int threads() {
        return threads;
    }

    /// This stage's sub-stages followed by `next`'s, sharing one evaluation per step. Both must
    /// use the same evaluator (one model on one device), else it fails naming both stages.
    public Stage<S> fuse(Stage<S> next) {
        if (next.evaluator != evaluator) {
            throw new IllegalArgumentException("cannot fuse '" + name() + "' with '" + next.name()
                    + "': fused stages share one evaluation, so they need the same evaluator (model)");
        }
        if (engine != null || next.engine != null) {
            throw new IllegalArgumentException("cannot fuse '" + name() + "' with '" + next.name()
                    + "': a stage on a device engine runs its own method alone (fuse before choosing the device)");
        }
        List<Method<S>> all = new ArrayList<>(methods);
        all.addAll(next.methods);
        return new Stage<>(evaluator, all, Math.max(threads, next.threads), null);
    }

    /// A pipeline of this stage followed by `next` on its own worker.
    public Pipeline<S> then(Stage<S> next) {
        return new Pipeline<>(this).then(next);
    }

    /// The shared evaluator.
    public Evaluator<S> evaluator() {
        return evaluator;
    }

    /// The sub-stages' methods, in routing order (status k → `methods().get(k)`).
    public List<Method<S>> methods() {
        return methods;
    }

    /// "fire+langevin".
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name();
    }
}
