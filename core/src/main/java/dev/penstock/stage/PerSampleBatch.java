package dev.penstock.stage;

import dev.penstock.device.Crew;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/// The batch of a stage without a device engine: its samples as objects, each moved by its own
/// `Method.Motion`, evaluated together by the stage's evaluator — within a capacity in every
/// dimension of the sizer. `admit` takes in samples (evaluating the newcomers once), `step` steps every
/// sample once with one shared evaluation; both report graduations and quarantines as events,
/// and samples that leave free their room at once.
///
/// Threading: one thread at a time (a pipeline worker owns its stage's batch); with
/// `Stage.threads` > 1 a step uses helper threads, stopped by `close`.
///
/// @param <S> the sample type
final class PerSampleBatch<S> implements BatchEngine<S> {
    private final Stage<S> stage;
    private final Sizer<S> sizer;
    private final Capacity capacity;
    private final List<Entry<S>> active = new ArrayList<>();
    private final long[] used;
    private long evaluations;
    private Crew crew;
    private long steps;

    private static final class Entry<S> {
        final S sample;
        int status;
        Method.Motion motion;

        Entry(S sample) {
            this.sample = sample;
        }
    }

    /// An empty batch of `stage` with room `capacity` (in `sizer`'s dimensions).
    PerSampleBatch(Stage<S> stage, Sizer<S> sizer, Capacity capacity) {
        if (capacity.dimensions() != sizer.dimensions().size()) {
            throw new IllegalArgumentException("capacity has " + capacity.dimensions() + " dimensions but the sample type declares "
                    + sizer.dimensions());
        }
        this.stage = stage;
        this.sizer = sizer;
        this.capacity = capacity;
        this.used = new long[capacity.dimensions()];
    }

    /// Whether `sample` fits in the room left now.
    @Override
    public boolean fits(S sample) {
        return capacity.fits(sizer, sample, used);
    }

    /// Takes in, in order, each of `samples` that fits the room left (a later, smaller one may
    /// fit after a larger one did not), evaluates the newcomers once and starts them in the
    /// first sub-stage. Returns the samples that did not fit, in order. A sample that could
    /// never fit, even into an empty batch, is an error naming its id.
    @Override
    public List<S> admit(List<S> samples, Consumer<Event<S>> events) {
        List<S> rest = new ArrayList<>();
        List<Entry<S>> fresh = new ArrayList<>();
        for (S s : samples) {
            if (!capacity.admits(sizer, s)) {
                throw new IllegalArgumentException("sample " + sizer.id(s) + " is larger than stage '" + stage.name()
                        + "' can ever hold (" + capacity.describe(sizer.dimensions()) + ")");
            }
            if (!fits(s)) {
                rest.add(s);
                continue;
            }
            for (int d = 0; d < used.length; d++) {
                used[d] += sizer.size(s, d);
            }
            Entry<S> e = new Entry<>(s);
            fresh.add(e);
            active.add(e);
        }
        if (!fresh.isEmpty()) {
            int parts = Math.min(stage.threads(), fresh.size());
            List<Entry<S>> failed = parts <= 1 ? evaluate(fresh) : split(fresh, parts, this::evaluate);
            for (Entry<S> e : fresh) {
                if (!failed.contains(e)) {
                    e.motion = stage.methods().getFirst().enter(e.sample);
                    advance(e, events);
                }
            }
            removeLeft(failed, events);
        }
        return rest;
    }

    /// One step of every sample: each sample's sub-stage moves it before and after one shared
    /// evaluation; then every sample whose sub-stage says `finished` graduates (see `Stage`).
    /// With `Stage.threads` > 1 the batch is split into runs of consecutive samples, each run
    /// moved, evaluated and moved again by its own thread; graduations and quarantines are then
    /// taken in batch order on this thread, as without the split.
    @Override
    public void step(Consumer<Event<S>> events) {
        if (active.isEmpty()) {
            return;
        }
        List<Entry<S>> all = active;
        int parts = Math.min(stage.threads(), all.size());
        List<Entry<S>> failed = parts <= 1 ? stepRun(all) : split(all, parts, this::stepRun);
        for (Entry<S> e : all) {
            if (failed.isEmpty() || !failed.contains(e)) {
                advance(e, events);
            }
        }
        steps++;
        removeLeft(failed, events);
    }

    /// Moves, evaluates and moves again the entries of one run; returns those that failed.
    private List<Entry<S>> stepRun(List<Entry<S>> run) {
        for (Entry<S> e : run) {
            e.motion.beforeEvaluation();
        }
        List<Entry<S>> failed = evaluate(run);
        for (Entry<S> e : run) {
            if (failed.isEmpty() || !failed.contains(e)) {
                e.motion.afterEvaluation();
            }
        }
        return failed;
    }

    /// Runs `job` on `parts` runs of consecutive entries at once (the crew); returns the entries
    /// that failed, in batch order.
    private List<Entry<S>> split(List<Entry<S>> all, int parts, java.util.function.Function<List<Entry<S>>, List<Entry<S>>> job) {
        if (crew == null) {
            crew = new Crew("penstock-stage-" + stage.name() + "-helper", stage.threads());
        }
        int[] bounds = runs(all.size(), parts);
        @SuppressWarnings("unchecked")
        List<Entry<S>>[] failed = new List[parts];
        crew.run(parts, part -> failed[part] = job.apply(all.subList(bounds[part], bounds[part + 1])));
        evaluations -= parts - 1; // one shared evaluation per step, however it was split
        List<Entry<S>> merged = new ArrayList<>(0);
        for (List<Entry<S>> f : failed) {
            merged.addAll(f);
        }
        return merged;
    }

    /// Run boundaries of equal sample counts (tried against runs of equal atom counts for the
    /// in-flight relaxation: no better, within this machine's noise).
    private static int[] runs(int n, int parts) {
        int[] b = new int[parts + 1];
        for (int k = 0; k <= parts; k++) {
            b[k] = (int) ((long) n * k / parts);
        }
        return b;
    }

    /// Stops the helper threads of a split step (if any were started). The batch may step again
    /// afterwards; it starts new ones.
    @Override
    public void close() {
        if (crew != null) {
            crew.close();
            crew = null;
        }
    }

    private final Map<Entry<S>, String> diagnoses = java.util.Collections.synchronizedMap(new IdentityHashMap<>());
    private final List<S> scratch = new ArrayList<>();

    private List<Entry<S>> evaluate(List<Entry<S>> entries) {
        List<S> samples = entries.size() == active.size() ? scratch : new ArrayList<>(entries.size());
        samples.clear();
        for (Entry<S> e : entries) {
            samples.add(e.sample);
        }
        List<Entry<S>> failed = new ArrayList<>(0);
        synchronized (this) {
            evaluations++;
        }
        stage.evaluator().evaluate(samples, (s, why) -> {
            Entry<S> e = null;
            for (Entry<S> x : entries) { // failures are rare: a scan beats a map per step
                if (x.sample == s) {
                    e = x;
                    break;
                }
            }
            if (e == null) {
                throw new IllegalStateException("evaluator of stage '" + stage.name() + "' reported a sample it was not given");
            }
            if (!diagnoses.containsKey(e)) {
                diagnoses.put(e, why);
                failed.add(e);
            }
        });
        return failed;
    }

    /// Removes `sample` from the batch as quarantined for `diagnosis` (a hook's verdict): one
    /// QUARANTINED event, its room freed. Fails if the batch does not hold it.
    @Override
    public void quarantine(S sample, String diagnosis, Consumer<Event<S>> events) {
        Entry<S> found = null;
        for (Entry<S> e : active) {
            if (e.sample == sample) {
                found = e;
                break;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("stage '" + stage.name() + "' does not hold sample " + sizer.id(sample));
        }
        diagnoses.put(found, diagnosis);
        removeLeft(List.of(found), events);
    }

    private void advance(Entry<S> e, Consumer<Event<S>> events) {
        List<Method<S>> methods = stage.methods();
        while (e.status < methods.size() && e.motion.finished()) {
            int from = e.status++;
            boolean last = e.status == methods.size();
            events.accept(new Event<>(last ? Event.Kind.EXITED : Event.Kind.GRADUATED, e.sample, from,
                    methods.get(from).name(), e.motion.steps(), null, e.motion.ending()));
            if (!last) {
                e.motion = methods.get(e.status).enter(e.sample);
            }
        }
    }

    private void removeLeft(List<Entry<S>> failed, Consumer<Event<S>> events) {
        for (Entry<S> e : failed) {
            String why = diagnoses.remove(e);
            events.accept(new Event<>(Event.Kind.QUARANTINED, e.sample, e.status, stage.methods().get(e.status).name(),
                    e.motion == null ? 0 : e.motion.steps(), why));
            e.status = -1;
        }
        int kept = 0;
        for (int i = 0; i < active.size(); i++) {
            Entry<S> e = active.get(i);
            if (e.status >= 0 && e.status < stage.methods().size()) {
                active.set(kept++, e);
            } else {
                for (int d = 0; d < used.length; d++) {
                    used[d] -= sizer.size(e.sample, d);
                }
                stage.evaluator().forget(e.sample);
            }
        }
        active.subList(kept, active.size()).clear();
    }

    /// Every held sample with its sub-stage and motion state, in admission order (for a checkpoint).
    @Override
    public List<StageBatch.Held<S>> save() throws java.io.IOException {
        List<StageBatch.Held<S>> out = new ArrayList<>(active.size());
        for (Entry<S> e : active) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            e.motion.save(new java.io.DataOutputStream(bytes));
            java.io.ByteArrayOutputStream evaluation = new java.io.ByteArrayOutputStream();
            java.io.DataOutputStream evaluationOut = new java.io.DataOutputStream(evaluation);
            stage.evaluator().save(e.sample, evaluationOut);
            evaluationOut.flush();
            out.add(new StageBatch.Held<>(e.sample, e.status, bytes.toByteArray(), evaluation.toByteArray()));
        }
        return out;
    }

    /// Takes back a sample saved by `save` (restoring a checkpoint): no evaluation, the motion
    /// rebuilt by its method's `restore`, the evaluator's state for it by `Evaluator.restore`.
    /// Fails if it does not fit.
    @Override
    public void restore(StageBatch.Held<S> held) throws java.io.IOException {
        if (!fits(held.sample())) {
            throw new IllegalStateException("restoring sample " + sizer.id(held.sample()) + " into stage '" + stage.name()
                    + "': it does not fit (" + capacity.describe(sizer.dimensions()) + ")");
        }
        if (held.status() < 0 || held.status() >= stage.methods().size()) {
            throw new IllegalStateException("restoring sample " + sizer.id(held.sample()) + ": sub-stage " + held.status()
                    + " of stage '" + stage.name() + "' does not exist");
        }
        Entry<S> e = new Entry<>(held.sample());
        e.status = held.status();
        e.motion = stage.methods().get(e.status).restore(held.sample(),
                new java.io.DataInputStream(new java.io.ByteArrayInputStream(held.motion())));
        if (held.evaluation().length > 0) {
            stage.evaluator().restore(held.sample(), new java.io.DataInputStream(new java.io.ByteArrayInputStream(held.evaluation())));
        }
        for (int d = 0; d < used.length; d++) {
            used[d] += sizer.size(held.sample(), d);
        }
        active.add(e);
    }

    /// Samples held.
    @Override
    public int size() {
        return active.size();
    }

    /// Whether no sample is held.

    /// Room used in dimension `d`.
    @Override
    public long used(int d) {
        return used[d];
    }

    /// The samples held, in admission order (a copy).
    @Override
    public List<S> samples() {
        List<S> out = new ArrayList<>(active.size());
        for (Entry<S> e : active) {
            out.add(e.sample);
        }
        return out;
    }

    /// The sub-stage each held sample is in, in the order of `samples()`.
    @Override
    public int[] statuses() {
        int[] out = new int[active.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = active.get(i).status;
        }
        return out;
    }

    /// Evaluations so far (one per step, plus one per admission of newcomers).
    @Override
    public long evaluations() {
        return evaluations;
    }

    /// Steps so far.
    @Override
    public long steps() {
        return steps;
    }
}
