package dev.penstock.stage;

import java.time.Duration;
import java.util.List;

/// What a pipeline run did.
///
/// @param stages      per stage, in chain order
/// @param delivered   samples delivered to the result sinks
/// @param quarantined samples removed with a diagnosis (quarantine events), in order
/// @param spilled     samples placed in each overflow tier, per buffer
/// @param wall        wall time of the run
/// @param trace       buffer populations per step (debug mode only; empty otherwise)
/// @param <S>         the sample type
public record Summary<S>(List<StageReport> stages, long delivered, List<Event<S>> quarantined, List<long[]> spilled,
                         Duration wall, List<String> trace) {

    /// The summary with its arrays spelled out (quarantined samples by their diagnoses).
    @Override
    public String toString() {
        return "Summary[stages=" + stages + ", delivered=" + delivered + ", quarantined="
                + quarantined.stream().map(Event::diagnosis).toList() + ", spilled="
                + spilled.stream().map(java.util.Arrays::toString).toList() + ", wall=" + wall + ", trace=" + trace.size()
                + " lines]";
    }

    /// The value in µs below which a share `q` (0…1) of `sortedNs` (nanoseconds, ascending)
    /// lies (nearest rank); NaN when empty.
    public static double percentileUs(long[] sortedNs, double q) {
        if (sortedNs.length == 0) {
            return Double.NaN;
        }
        int k = (int) Math.min(sortedNs.length - 1, Math.max(0, Math.ceil(q * sortedNs.length) - 1));
        return sortedNs[k] / 1e3;
    }

    /// One stage's figures.
    ///
    /// @param name          the stage ("fire+langevin")
    /// @param steps         steps taken
    /// @param evaluations   shared evaluations (one per step, plus one per admission)
    /// @param graduated     graduations per sub-stage
    /// @param exited        samples that left the stage finished
    /// @param quarantined   samples removed with a diagnosis
    /// @param sampleSteps   Σ over steps of the batch's size, per dimension (e.g. atom-steps)
    /// @param capacity      the batch's room
    /// @param waitInNs      time the worker waited for samples with an empty batch
    /// @param waitOutNs     time it waited for room downstream
    public record StageReport(String name, long steps, long evaluations, long[] graduated, long exited, long quarantined,
                              long[] sampleSteps, Capacity capacity, long waitInNs, long waitOutNs, long[] handoffNs,
                              long[] idleHandoffNs) {
        /// The hand-off latency below which a share `q` (0…1) of this stage's admissions from
        /// upstream fell, in µs: from the step a sample exited the stage before to the step this
        /// one admitted it — waiting for room included (buffer, overflow and inbox). NaN for the
        /// first stage. `handoffNs` holds them all, sorted.
        public double handoffPercentileUs(double q) {
            return percentileUs(handoffNs, q);
        }

        /// As `handoffPercentileUs`, over the admissions into an empty batch that was waiting
        /// for input (`idleHandoffNs`): what the hand-off itself costs, with no room to wait for.
        public double idleHandoffPercentileUs(double q) {
            return percentileUs(idleHandoffNs, q);
        }

        /// Mean share of the batch's room used per step in dimension `d`.
        public double meanOccupancy(int d) {
            return steps == 0 ? 0 : (double) sampleSteps[d] / steps / capacity.limit(d);
        }

        /// The report with its arrays spelled out (a record prints arrays as `[J@…`).
        @Override
        public String toString() {
            return "StageReport[name=" + name + ", steps=" + steps + ", evaluations=" + evaluations + ", graduated="
                    + java.util.Arrays.toString(graduated) + ", exited=" + exited + ", quarantined=" + quarantined
                    + ", sampleSteps=" + java.util.Arrays.toString(sampleSteps) + ", capacity=" + capacity + ", waitInNs="
                    + waitInNs + ", waitOutNs=" + waitOutNs + ", handoffs=" + handoffNs.length + "]";
        }
    }
}
