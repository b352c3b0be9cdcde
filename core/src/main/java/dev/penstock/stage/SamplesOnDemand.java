package dev.penstock.stage;

import java.util.AbstractList;
import java.util.List;

/// The samples a stage holds, as a hook's `onStep` and `check` are handed them: asked of the
/// batch only when a hook first reads the list. A device engine unpacks its whole batch for
/// `samples()` (a copy back from the device and into every sample), which a hook of events
/// alone — or one whose `onStep` and `check` are the defaults — never needs; nor does one that
/// only counts them (`size()` asks the batch its count).
///
/// Threading: the stage's worker only; `reset` before each hook's call, since a hook's
/// quarantine changes what the batch holds.
final class SamplesOnDemand<S> extends AbstractList<S> {
    private final StageBatch<S> batch;
    private List<S> samples; // null until read

    SamplesOnDemand(StageBatch<S> batch) {
        this.batch = batch;
    }

    /// Forgets the samples read: the next read asks the batch again.
    SamplesOnDemand<S> reset() {
        samples = null;
        return this;
    }

    private List<S> samples() {
        if (samples == null) {
            samples = batch.samples();
        }
        return samples;
    }

    @Override
    public S get(int index) {
        return samples().get(index);
    }

    /// The batch's count, without reading the samples (a device batch knows it on the host).
    @Override
    public int size() {
        return samples != null ? samples.size() : batch.size();
    }
}
