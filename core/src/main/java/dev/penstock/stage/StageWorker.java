package dev.penstock.stage;

import dev.penstock.observe.StageWaitEvent;
import java.util.ArrayList;
import java.util.List;

/// The worker of one stage: receives what fits through its `Inlet`, steps, sends exits on
/// through its `Outlet`, counts; see `Pipeline` for the contracts and `Run` for the rest of a
/// run. The communication mode is chosen once, as the pair of inlet and outlet.
final class StageWorker<S> {
    final int i;
    final Stage<S> stage;
    final Capacity capacity;
    final StageBatch<S> batch;
    private final SamplesOnDemand<S> hookView; // what hooks are handed: the batch's samples, read only if they read them
    final long[] graduated;
    final long[] sampleSteps;
    long exited;
    long quarantinedHere;
    long waitIn;
    long waitOut;
    private long[] handoffs = new long[64];
    private int handoffCount;
    private long[] idleHandoffs = new long[64];
    private int idleHandoffCount;
    private Inlet<S> inlet;
    private Outlet<S> outlet;

    final Run<S> run;
    /// This worker's lane of the run's timeline (null: none recorded), and the lane its sends
    /// are recorded on (its own, or its sender thread's).
    final dev.penstock.observe.LaneRecorder lane;
    dev.penstock.observe.LaneRecorder sendLane;
    /// Same-kind spans closer than this are drawn as one (a stretch of steps between waits).
    static final long TIMELINE_GAP_NS = 1_000_000;
    private long stepPartStart; // where the open step's current part began (0: no step open)
    /// A send shorter than this did not wait for room.
    private static final long SEND_WAIT_NS = 20_000;

    StageWorker(Run<S> run, int i) {
        this.run = run;
        this.i = i;
        this.stage = run.cfg.stages().get(i);
        this.capacity = run.cfg.stageCapacities().get(i);
        this.batch = new StageBatch<>(stage, run.sizer, capacity);
        this.hookView = new SamplesOnDemand<>(batch);
        this.graduated = new long[stage.methods().size()];
        this.sampleSteps = new long[capacity.dimensions()];
        this.lane = run.cfg.timeline() == null ? null
                : new dev.penstock.observe.LaneRecorder(run.cfg.timeline(), laneName(), TIMELINE_GAP_NS);
        this.sendLane = lane;
    }

    /// `stage i: name`, this worker's timeline lane.
    String laneName() {
        return "stage " + i + ": " + stage.name();
    }

    /// A wait for input from `startNs` to now, on the timeline.
    void waitedForInput(long startNs) {
        if (lane != null) {
            lane.record("wait for input", startNs, System.nanoTime());
        }
    }

    void work() throws Exception {
        outlet = Outlet.of(this);
        inlet = Inlet.of(this);
        try {
            loop();
        } finally {
            batch.close();
            report();
            if (lane != null) {
                lane.flush();
            }
        }
        outlet.close();
        if (sendLane != lane) {
            sendLane.flush(); // the sender thread has ended
        }
        if (i + 1 < run.n && !run.stopping) {
            run.buffers.get(i).close();
        }
        if (run.barrier != null) {
            run.barrier.arriveAndDeregister();
        }
    }

    private void loop() throws Exception {
        while (!run.stopping) {
            outlet.beforeReceive();
            // nothing new while exits still wait to leave (synchronized steps)
            boolean inputDone = !outlet.holding() && inlet.receive(batch.isEmpty());
            if (batch.isEmpty() && !outlet.holding()) {
                if (inputDone) {
                    return;
                }
                if (run.barrier != null) {
                    run.barrier.arriveAndAwaitAdvance();
                }
                continue;
            }
            if (!batch.isEmpty()) {
                int held = batch.size();
                stepPartStart = lane == null ? 0 : System.nanoTime();
                for (int d = 0; d < sampleSteps.length; d++) {
                    sampleSteps[d] += batch.used(d);
                }
                batch.step(events);
                List<Hook<S>> hooks = run.cfg.hooks();
                for (int k = 0; k < hooks.size(); k++) { // indexed: a step allocates no iterator
                    Hook<S> h = hooks.get(k);
                    if (batch.steps() % h.every() == 0) {
                        List<S> now = hookView.reset(); // read from the batch only if the hook reads it
                        h.onStep(i, stage.name(), batch.steps(), now);
                        List<Hook.Verdict<S>> verdicts = h.check(i, batch.steps(), now);
                        for (int v = 0; v < verdicts.size(); v++) {
                            batch.quarantine(verdicts.get(v).sample(), verdicts.get(v).diagnosis(), events);
                        }
                    }
                }
                if (lane != null) {
                    lane.record("step", stepPartStart, System.nanoTime());
                    stepPartStart = 0;
                }
                if (run.cfg.debug()) {
                    run.trace.add("stage " + i + " (" + stage.name() + ") step " + batch.steps() + ": batch " + held + " -> "
                            + batch.size() + (i > 0 ? ", buffer in " + run.buffers.get(i - 1).population() : "")
                            + (i + 1 < run.n ? ", buffer out " + run.buffers.get(i).population() : ""));
                }
            }
            if (run.barrier != null) {
                run.barrier.arriveAndAwaitAdvance();
            }
        }
    }

    /// Records, for samples about to be admitted from upstream, how long ago they exited there
    /// (also as idle hand-offs when the batch was empty, waiting for them).
    List<S> handedOff(List<S> admitted, boolean idle) {
        if (admitted.isEmpty()) {
            return admitted;
        }
        long now = System.nanoTime();
        for (S s : admitted) {
            Long t = run.exitedAt.remove(run.sizer.id(s));
            if (t != null) {
                if (handoffCount == handoffs.length) {
                    handoffs = java.util.Arrays.copyOf(handoffs, 2 * handoffCount);
                }
                handoffs[handoffCount++] = now - t;
                if (idle) {
                    if (idleHandoffCount == idleHandoffs.length) {
                        idleHandoffs = java.util.Arrays.copyOf(idleHandoffs, 2 * idleHandoffCount);
                    }
                    idleHandoffs[idleHandoffCount++] = now - t;
                }
            }
        }
        return admitted;
    }

    java.util.function.Predicate<S> fitter(java.util.function.IntToLongFunction usedNow) {
        long[] used = new long[capacity.dimensions()];
        for (int d = 0; d < used.length; d++) {
            used[d] = usedNow.applyAsLong(d);
        }
        return s -> {
            if (!capacity.fits(run.sizer, s, used)) {
                return false;
            }
            for (int d = 0; d < used.length; d++) {
                used[d] += run.sizer.size(s, d);
            }
            return true;
        };
    }

    /// `onEvent` as the batch takes it, made once (a method reference per step is an allocation).
    private final java.util.function.Consumer<Event<S>> events = this::onEvent;

    void onEvent(Event<S> e) {
        try {
            switch (e.kind()) {
                case GRADUATED -> graduated[e.subStage()]++;
                case EXITED -> {
                    graduated[e.subStage()]++;
                    exited++;
                }
                case QUARANTINED -> {
                    quarantinedHere++;
                    run.quarantined.add(e);
                }
            }
            if (e.left()) {
                inlet.released(e.sample());
            }
            for (Hook<S> h : run.cfg.hooks()) {
                h.onEvent(i, e);
            }
            if (e.kind() == Event.Kind.EXITED) {
                if (i + 1 < run.n) {
                    run.exitedAt.put(run.sizer.id(e.sample()), System.nanoTime());
                }
                outlet.exited(e.sample());
            }
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /// Hands `s` on (blocking while there is no room): into the buffer after this stage, or to
    /// the result sinks after the last.
    void send(S s) throws Exception {
        long t = System.nanoTime();
        StageWaitEvent event = waitEvent("output");
        if (i + 1 < run.n) {
            run.buffers.get(i).put(s);
        } else {
            deliver(s);
        }
        long now = System.nanoTime();
        waitOut += now - t;
        if (sendLane != null && now - t > SEND_WAIT_NS) {
            if (sendLane == lane && stepPartStart != 0) { // a wait inside a step: the step drawn around it
                lane.record("step", stepPartStart, t);
                stepPartStart = now;
            }
            sendLane.record(i + 1 < run.n ? "wait for room" : "write results", t, now); // the last stage hands to the sinks
        }
        commit(event);
    }

    /// A JFR wait event begun now (null when nobody records it).
    StageWaitEvent waitEvent(String direction) {
        StageWaitEvent e = new StageWaitEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.stage = i;
        e.name = stage.name();
        e.direction = direction;
        e.begin();
        return e;
    }

    static void commit(StageWaitEvent e) {
        if (e != null) {
            e.commit();
        }
    }

    private void deliver(S s) throws Exception {
        while (true) {
            for (Sink<S> sink : run.results) {
                boolean taken;
                try {
                    taken = sink.offer(s);
                } catch (SampleRefusedException refused) {
                    // this one sample cannot be written: quarantined with the reason, the run goes on
                    // (it has left its stage already: counted here, not released again)
                    quarantinedHere++;
                    run.quarantined.add(new Event<>(Event.Kind.QUARANTINED, s, -1, "sink " + sink.name(), 0, refused.getMessage()));
                    return;
                }
                if (taken) {
                    run.delivered();
                    return;
                }
            }
            if (run.stopping) {
                throw new IllegalStateException("stopping with sample " + run.sizer.id(s) + " undelivered: every result sink is full");
            }
            // every tier full: backpressure until one is drained (it signals; the others are
            // looked at again at least every 10 ms)
            run.results.getFirst().awaitRoom(10_000_000L);
        }
    }

    private void report() {
        run.reports[i] = new Summary.StageReport(stage.name(), batch.steps(), batch.evaluations(), graduated.clone(), exited,
                quarantinedHere, sampleSteps.clone(), capacity, waitIn, waitOut, sorted(handoffs, handoffCount),
                sorted(idleHandoffs, idleHandoffCount));
    }

    private static long[] sorted(long[] values, int count) {
        long[] h = java.util.Arrays.copyOf(values, count);
        java.util.Arrays.sort(h);
        return h;
    }
}
