package dev.penstock.flink;

import dev.penstock.stage.Event;
import dev.penstock.stage.StageBatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.accumulators.Histogram;
import org.apache.flink.api.common.accumulators.IntCounter;
import org.apache.flink.api.common.accumulators.IntMaximum;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.util.OutputTag;

/// One chained stage as a Flink operator: it holds the stage's active batch and steps it.
///
/// ```
///   processElement: decode → pending (waiting for room); while pending is full: yield to
///                   the mailbox at the lowest priority (steps run, room frees; a checkpoint
///                   barrier is taken meanwhile) — the operator never holds more than
///                   its batch plus `pendingLimit` samples, and Flink's credit-based flow
///                   control stops the upstream when it stops reading
///   step (a mailbox mail, re-posted while there is work): admit what fits → step → emit
///                   the samples that left (EXITED downstream, QUARANTINED to a side output)
///   endInput:       yield until batch and pending are empty (checkpoints still run)
///   snapshotState:  every held sample with its sub-stage, motion state and evaluator state (where
///                   its neighbour list was built), and the pending ones
/// ```
///
/// Steps and checkpoints both run on the task's mailbox thread, so a checkpoint always sees a
/// batch between two steps; a restored operator continues every sample exactly where it was.
final class StageOperator<S> extends AbstractStreamOperator<byte[]> implements OneInputStreamOperator<byte[], byte[]>, BoundedOneInput {
    /// Quarantined samples (with a `quarantined` info entry) leave through this side output.
    static final OutputTag<byte[]> QUARANTINE = new OutputTag<>("quarantine", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    private final JobSpec<S> spec;
    private final int index;
    private final int pendingLimit;
    private final transient MailboxExecutor mailbox;
    private transient MailboxExecutor waiting;
    private transient StageBatch<S> batch;
    private transient ArrayDeque<S> pending;
    private transient ListState<byte[]> heldState;
    private transient ListState<byte[]> pendingState;
    private transient boolean scheduled;
    private transient boolean freed;
    private transient List<Event<S>> events;
    private transient IntMaximum holdingMax;
    private transient LongCounter steps;
    private transient LongCounter[] sizeSteps;
    private transient boolean restored;
    private transient Histogram snapshotDelayMs;
    private transient Histogram checkpointMs;
    private transient java.util.Map<Long, Long> triggeredAt;
    private transient IntCounter checkpointsCompleted;
    private transient IntCounter checkpointsAborted;

    StageOperator(StreamOperatorParameters<byte[]> parameters, JobSpec<S> spec, int index, int pendingLimit) {
        super(parameters);
        this.spec = spec;
        this.index = index;
        this.pendingLimit = pendingLimit;
        this.mailbox = parameters.getMailboxExecutor();
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        heldState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("held", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        pendingState = context.getOperatorStateStore().getListState(
                new ListStateDescriptor<>("pending", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        batch = new StageBatch<>(spec.stages().get(index).create(), spec.sizer(), spec.capacity(index));
        pending = new ArrayDeque<>();
        events = new ArrayList<>();
        freed = true;
        restored = context.isRestored();
        if (restored) {
            for (byte[] h : heldState.get()) {
                batch.restore(held(h));
            }
            for (byte[] p : pendingState.get()) {
                pending.add(Bytes.decode(spec.codec(), p));
            }
        }
    }

    @Override
    public void close() throws Exception {
        if (batch != null) {
            batch.close(); // the helper threads of a split step, if the stage has any
        }
        super.close();
    }

    @Override
    public void open() throws Exception {
        super.open();
        // The waits inside processElement and endInput yield to every mail, the task's own
        // included: the mail that takes an unaligned checkpoint barrier (posted at the task's
        // lowest priority) then runs during the wait. Yielding at this operator's priority left
        // it queued until room freed — up to a whole step budget of the stage, 0.5-1 s in
        // `bench inflight --runner flink` — so checkpoints waited on a backpressured stage.
        waiting = getContainingTask().getMailboxExecutorFactory().createExecutor(TaskMailbox.MIN_PRIORITY);
        holdingMax = new IntMaximum();
        steps = new LongCounter();
        getRuntimeContext().addAccumulator(holdingAccumulator(index), holdingMax);
        getRuntimeContext().addAccumulator(stepsAccumulator(index), steps);
        sizeSteps = new LongCounter[spec.sizer().dimensions().size()];
        for (int d = 0; d < sizeSteps.length; d++) {
            sizeSteps[d] = new LongCounter();
            getRuntimeContext().addAccumulator(sizeStepsAccumulator(index, d), sizeSteps[d]);
        }
        IntCounter restoredCount = new IntCounter(restored ? 1 : 0);
        getRuntimeContext().addAccumulator(restoredAccumulator(index), restoredCount);
        snapshotDelayMs = new Histogram();
        checkpointMs = new Histogram();
        triggeredAt = new java.util.HashMap<>();
        getRuntimeContext().addAccumulator(checkpointDurationAccumulator(index), checkpointMs);
        checkpointsCompleted = new IntCounter();
        checkpointsAborted = new IntCounter();
        getRuntimeContext().addAccumulator(snapshotDelayAccumulator(index), snapshotDelayMs);
        getRuntimeContext().addAccumulator(checkpointsAccumulator(index, true), checkpointsCompleted);
        getRuntimeContext().addAccumulator(checkpointsAccumulator(index, false), checkpointsAborted);
        if (!batch.isEmpty() || !pending.isEmpty()) {
            schedule();
        }
    }

    @Override
    public void processElement(StreamRecord<byte[]> record) throws Exception {
        pending.add(Bytes.decode(spec.codec(), record.getValue()));
        freed = true; // a newcomer may fit the room there is
        holdingMax.add(batch.size() + pending.size());
        schedule();
        while (pending.size() > pendingLimit) {
            waiting.yield(); // run steps (and checkpoints) until room frees: backpressure, never a drop
        }
    }

    @Override
    public void endInput() throws Exception {
        while (!batch.isEmpty() || !pending.isEmpty()) {
            waiting.yield();
        }
    }

    private void schedule() {
        if (!scheduled) {
            scheduled = true;
            mailbox.execute(this::step, "step stage " + index);
        }
    }

    private void step() throws Exception {
        scheduled = false;
        if (freed || batch.isEmpty()) { // room was freed or a sample arrived: admit in order what fits now
            freed = false;
            List<S> waiting = new ArrayList<>(pending);
            pending.clear();
            pending.addAll(batch.admit(waiting, events::add));
            emit();
        }
        if (!batch.isEmpty()) {
            holdingMax.add(batch.size() + pending.size());
            for (int d = 0; d < sizeSteps.length; d++) {
                sizeSteps[d].add(batch.used(d));
            }
            batch.step(events::add);
            steps.add(1);
            emit();
        }
        if (!batch.isEmpty() || !pending.isEmpty()) {
            schedule();
        }
    }

    private void emit() {
        for (Event<S> e : events) {
            spec.notes().noted(e);
            if (e.kind() == Event.Kind.EXITED) {
                output.collect(new StreamRecord<>(Bytes.encode(spec.codec(), e.sample())));
            } else if (e.kind() == Event.Kind.QUARANTINED) {
                output.collect(QUARANTINE, new StreamRecord<>(Bytes.encode(spec.codec(), e.sample())));
            }
            if (e.left()) {
                freed = true;
            }
        }
        events.clear();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (checkpointsCompleted != null) {
            checkpointsCompleted.add(1);
            Long t = triggeredAt.remove(checkpointId);
            if (t != null) { // trigger to the completion notice: the checkpoint's duration as this instance saw it
                checkpointMs.add((int) Math.max(0, Math.min(Integer.MAX_VALUE, System.currentTimeMillis() - t)));
            }
            triggeredAt.keySet().removeIf(id -> id < checkpointId); // subsumed
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        super.notifyCheckpointAborted(checkpointId);
        if (checkpointsAborted != null) {
            checkpointsAborted.add(1);
            triggeredAt.remove(checkpointId);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (snapshotDelayMs != null) { // from the checkpoint's trigger on the JobManager to this snapshot
            snapshotDelayMs.add((int) Math.max(0, Math.min(Integer.MAX_VALUE, System.currentTimeMillis() - context.getCheckpointTimestamp())));
            triggeredAt.put(context.getCheckpointId(), context.getCheckpointTimestamp());
        }
        List<byte[]> held = new ArrayList<>();
        for (StageBatch.Held<S> h : batch.save()) {
            held.add(held(h));
        }
        heldState.update(held);
        List<byte[]> waiting = new ArrayList<>(pending.size());
        for (S s : pending) {
            waiting.add(Bytes.encode(spec.codec(), s));
        }
        pendingState.update(waiting);
    }

    private byte[] held(StageBatch.Held<S> h) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        byte[] sample = Bytes.encode(spec.codec(), h.sample());
        out.writeInt(h.status());
        out.writeInt(sample.length);
        out.write(sample);
        out.writeInt(h.motion().length);
        out.write(h.motion());
        out.writeInt(h.evaluation().length);
        out.write(h.evaluation());
        out.flush();
        return b.toByteArray();
    }

    private StageBatch.Held<S> held(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        int status = in.readInt();
        byte[] sample = new byte[in.readInt()];
        in.readFully(sample);
        byte[] motion = new byte[in.readInt()];
        in.readFully(motion);
        byte[] evaluation = new byte[in.readInt()];
        in.readFully(evaluation);
        return new StageBatch.Held<>(Bytes.decode(spec.codec(), sample), status, motion, evaluation);
    }

    /// The name of the accumulator with the most samples an instance of stage `i` held at once.
    static String holdingAccumulator(int i) {
        return "penstock-stage-" + i + "-holding-max";
    }

    /// The name of the accumulator counting the instances of stage `i` that started from a
    /// checkpoint (in the attempt that finished).
    static String restoredAccumulator(int i) {
        return "penstock-stage-" + i + "-restored";
    }

    /// The name of the accumulator summing, over the steps of stage `i`, the batch's size in
    /// dimension `d` (for atoms and d = 1: atom-steps).
    static String sizeStepsAccumulator(int i, int d) {
        return "penstock-stage-" + i + "-size-steps-" + d;
    }

    /// The name of the histogram of stage `i`'s snapshot delays: ms from a checkpoint's trigger
    /// (on the JobManager) to an instance's snapshot — how long the stage kept a checkpoint waiting.
    static String snapshotDelayAccumulator(int i) {
        return "penstock-stage-" + i + "-snapshot-delay-ms";
    }

    /// The name of the histogram of checkpoint durations (ms) seen by stage `i`'s instances: from
    /// a checkpoint's trigger to the instance's notice that it completed.
    static String checkpointDurationAccumulator(int i) {
        return "penstock-stage-" + i + "-checkpoint-ms";
    }

    /// The name of the accumulator counting, over stage `i`'s instances, the checkpoints they
    /// were told completed (`completed`) or aborted.
    static String checkpointsAccumulator(int i, boolean completed) {
        return "penstock-stage-" + i + "-checkpoints-" + (completed ? "completed" : "aborted");
    }

    /// The name of the accumulator counting the steps of stage `i` (all instances).
    static String stepsAccumulator(int i) {
        return "penstock-stage-" + i + "-steps";
    }
}
