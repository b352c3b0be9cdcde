package dev.penstock.flink;

import dev.penstock.atoms.potential.Model;
import dev.penstock.atoms.stage.PerSystemStages;
import dev.penstock.atoms.stage.PipelineSpec;
import dev.penstock.atoms.system.AtomicSystem;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/// The argon Lennard-Jones made slower by `sleepMs` per system evaluation (a slow device), and
/// optionally failing once, with an Error, at its first evaluation after a test has `ARMED` it
/// (a lost device: an Error is not quarantined, it fails the task). Flags are static: the
/// tests' MiniClusters share the JVM.
final class SlowLj implements Model {
    static final AtomicLong CALLS = new AtomicLong();
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicBoolean ARMED = new AtomicBoolean();

    private final Model lj = PipelineSpec.potential(Argon.LJ).get();
    private final long sleepMs;
    private final boolean failOnce;

    SlowLj(long sleepMs, boolean failOnce) {
        this.sleepMs = sleepMs;
        this.failOnce = failOnce;
    }

    /// Resets the counters (before a test that reads them).
    static void reset() {
        CALLS.set(0);
        FAILED.set(false);
        ARMED.set(false);
    }

    @Override
    public void compute(AtomicSystem s) {
        CALLS.incrementAndGet();
        if (failOnce && ARMED.get() && FAILED.compareAndSet(false, true)) {
            throw new Error("injected failure (a lost device)");
        }
        try {
            Thread.sleep(sleepMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        lj.compute(s);
    }

    @Override
    public void forget(long id) {
        lj.forget(id);
    }

    // what a checkpoint keeps of a system (its neighbour list) is the LJ's: without it a restored
    // system's list is built anew at another step than the run without a failure built it, and its
    // pair sums differ in the last bit (RecoveryTest failed so about one run in three)
    @Override
    public void save(long id, java.io.DataOutput out) throws java.io.IOException {
        lj.save(id, out);
    }

    @Override
    public void restore(AtomicSystem s, java.io.DataInput in) throws java.io.IOException {
        lj.restore(s, in);
    }

    @Override
    public double cutoff() {
        return lj.cutoff();
    }

    @Override
    public String refusal(AtomicSystem s) {
        return lj.refusal(s);
    }

    /// The argon job spec with stage `index` evaluated by a `SlowLj(sleepMs, failOnce)`.
    static JobSpec<AtomicSystem> spec(long[] room, int index, long sleepMs, boolean failOnce) {
        return spec(Argon.PIPELINE, room, index, sleepMs, failOnce);
    }

    /// The job spec of `pipeline` over the argon LJ, with stage `index` evaluated by a `SlowLj`.
    static JobSpec<AtomicSystem> spec(String pipeline, long[] room, int index, long sleepMs, boolean failOnce) {
        JobSpec<AtomicSystem> plain = AtomsJob.spec(pipeline, Argon.LJ, 5, room);
        java.util.List<JobSpec.StageFactory<AtomicSystem>> stages = new java.util.ArrayList<>(plain.stages());
        stages.set(index, () -> PerSystemStages.stage(PipelineSpec.parse(pipeline).get(index), () -> new SlowLj(sleepMs, failOnce), 5));
        return new JobSpec<>(stages, plain.sizer(), plain.codec(), plain.capacities(), plain.format(), plain.notes());
    }
}
