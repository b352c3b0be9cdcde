package dev.penstock.stage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/// The settings of one run of a `Pipeline`, fixed when `run()` (or `check()`) is called and
/// checked in the constructor: a run reads nothing of the `Pipeline` it came from, so a setter
/// called during a run cannot change it (they refuse anyway), and every refusal — a missing
/// setting, a method without an end, duplicate ids, a sample no stage or buffer could ever hold,
/// a sample a stage's evaluator could never evaluate (`Evaluator.refusal`) —
/// comes before any thread starts.
///
/// @param stages            the stages in chain order
/// @param stageCapacities   each stage's active-batch room (resolved: its own, else the common one)
/// @param bufferCapacities  the room of the buffer after stage i, for i < stages − 1
/// @param sizer             the sample type's ids and sizes
/// @param samples           the samples, in the order stage 0 is offered them
/// @param results           the result tiers (a memory sink when none were given)
/// @param hooks             the hooks
/// @param overflow          a fresh list of overflow tiers per buffer
/// @param refillEvery       stage 0 is refilled every k steps (and whenever it is empty)
/// @param mode              the communication mode
/// @param debug             record buffer populations per step
/// @param synchronizedSteps a barrier after every step of every stage
/// @param stopTimeout       how long stopping may take
/// @param timeline          where each stage worker's steps and waits are recorded (null: nowhere)
record PipelineConfig<S>(List<Stage<S>> stages, List<Capacity> stageCapacities, List<Capacity> bufferCapacities, Sizer<S> sizer,
                         List<S> samples, List<Sink<S>> results, List<Hook<S>> hooks,
                         Supplier<List<Sink.Overflow<S>>> overflow, int refillEvery, Pipeline.Mode mode, boolean debug,
                         boolean synchronizedSteps, Duration stopTimeout, dev.penstock.observe.Timeline timeline) {

    PipelineConfig {
        if (sizer == null || samples == null) {
            throw new IllegalArgumentException("a pipeline needs a sizer and samples before run()");
        }
        stages = List.copyOf(stages);
        stageCapacities = List.copyOf(stageCapacities);
        bufferCapacities = List.copyOf(bufferCapacities);
        samples = List.copyOf(samples);
        results = results.isEmpty() ? List.of(MemorySink.unbounded("results")) : List.copyOf(results);
        hooks = List.copyOf(hooks);
        int n = stages.size();
        for (int i = 0; i < n; i++) {
            Capacity c = stageCapacities.get(i);
            if (c.dimensions() != sizer.dimensions().size()) {
                throw new IllegalArgumentException("stage " + i + " ('" + stages.get(i).name() + "'): its batch capacity has "
                        + c.dimensions() + " dimensions but the sample type declares " + sizer.dimensions());
            }
            for (Method<S> m : stages.get(i).methods()) {
                if (!m.terminates()) {
                    throw new IllegalArgumentException("stage " + i + " ('" + stages.get(i).name() + "'): method '" + m.name()
                            + "' has no step budget or convergence rule, so its samples might never finish");
                }
            }
        }
        for (int i = 0; i < bufferCapacities.size(); i++) {
            if (bufferCapacities.get(i).dimensions() != sizer.dimensions().size()) {
                throw new IllegalArgumentException("the buffer after stage " + i + " has " + bufferCapacities.get(i).dimensions()
                        + " dimensions but the sample type declares " + sizer.dimensions());
            }
        }
        Set<Long> ids = new HashSet<>();
        java.util.Map<String, List<String>> oversize = new java.util.LinkedHashMap<>(); // by the room that is too small
        int tooLarge = 0;
        for (S s : samples) {
            if (!ids.add(sizer.id(s))) {
                throw new IllegalArgumentException("two samples have the id " + sizer.id(s) + "; ids must be unique");
            }
            for (int i = 0; i < n; i++) {
                String why = stages.get(i).evaluator().refusal(s);
                if (why != null) {
                    throw new IllegalArgumentException("stage " + i + " ('" + stages.get(i).name() + "'): " + why);
                }
            }
            for (int i = 0; i < n; i++) {
                Capacity c = stageCapacities.get(i);
                Capacity b = i == 0 ? c : bufferCapacities.get(i - 1);
                if (!c.admits(sizer, s) || !b.admits(sizer, s)) {
                    Capacity small = c.admits(sizer, s) ? b : c;
                    String room = (small == c ? "stage " + i : "the buffer before stage " + i) + " holds " + small.describe(sizer.dimensions());
                    StringBuilder over = new StringBuilder();
                    for (int d = 0; d < sizer.dimensions().size(); d++) {
                        if (sizer.size(s, d) > small.limit(d)) {
                            over.append(over.isEmpty() ? "" : ", ").append(sizer.dimensions().get(d)).append(' ').append(sizer.size(s, d));
                        }
                    }
                    if (tooLarge++ < 20) {
                        oversize.computeIfAbsent(room, k -> new ArrayList<>()).add(sizer.id(s) + " (" + over + ")");
                    }
                    break;
                }
            }
        }
        if (tooLarge > 0) {
            // one line: each room that is too small once, then the samples it cannot hold with
            // their sizes where they exceed it (the first 20 samples)
            StringBuilder msg = new StringBuilder().append(tooLarge).append(tooLarge == 1 ? " sample is" : " samples are")
                    .append(" larger than a stage or buffer can ever hold: ");
            String sep = "";
            for (var e : oversize.entrySet()) {
                msg.append(sep).append(e.getKey()).append(" — ").append(String.join(", ", e.getValue()));
                sep = "; ";
            }
            throw new IllegalArgumentException(msg.append(tooLarge > 20 ? ", … (" + tooLarge + " in all)" : "").toString());
        }
    }

    /// Stages in the chain.
    int size() {
        return stages.size();
    }
}
