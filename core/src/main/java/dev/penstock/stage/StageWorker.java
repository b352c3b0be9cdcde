package dev.penstock.stage;

import dev.penstock.observe.StageWaitEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/// The worker of one stage (and its receiver and sender threads): receives what fits, steps,
/// sends exits on, counts; see `Pipeline` for the contracts and `Run` for the rest of a run.
final class StageWorker<S> {
    final int i;
    final Stage<S> stage;
    final Capacity capacity;
    final StageBatch<S> batch;
    final long[] graduated;
    final long[] sampleSteps;
    final List<S> pendingOut = new ArrayList<>();
    Inbox<S> inbox;
    boolean freed = true;
    Buffer<S> outbox;
    Thread sender;
    long exited;
    long quarantinedHere;
    long waitIn;
    long waitOut;
    private long[] handoffs = new long[64];
    private int handoffCount;
    private long[] idleHandoffs = new long[64];
    private int idleHandoffCount;

    private final Run<S> run;

    StageWorker(Run<S> run, int i) {
        this.run = run;
        this.i = i;
        this.stage = run.p.stages.get(i);
        this.capacity = run.p.capacityOf(i);
        this.batch = new StageBatch<>(stage, run.sizer, capacity);
        this.graduated = new long[stage.methods().size()];
        this.sampleSteps = new long[capacity.dimensions()];
    }

    void work() throws Exception {
        boolean async = run.p.mode != Pipeline.Mode.SYNC && run.barrier == null;
        if (async && i > 0) {
            Buffer<S> upstream = run.buffers.get(i - 1);
            inbox = new Inbox<>(run.sizer, capacity.dimensions(), upstream::poke);
            run.helper("penstock-receive-" + i, "receiver of stage " + i, this::receive);
        }
        if (run.p.mode == Pipeline.Mode.FULLY_ASYNC && run.barrier == null) {
            outbox = new Buffer<>("outbox of stage " + i, run.sizer, capacity, List.of());
            sender = run.helper("penstock-send-" + i, "sender of stage " + i, this::sendLoop);
        }
        try {
            loop();
        } finally {
            batch.close();
            report();
        }
        if (outbox != null) {
            outbox.close();
            sender.join();
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
            flushPending();
            boolean inputDone = receive(batch.isEmpty());
            if (batch.isEmpty() && pendingOut.isEmpty()) {
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
                for (int d = 0; d < sampleSteps.length; d++) {
                    sampleSteps[d] += batch.used(d);
                }
                batch.step(this::onEvent);
                for (Hook<S> h : run.p.hooks) {
                    if (batch.steps() % h.every() == 0) {
                        h.onStep(i, stage.name(), batch.steps(), batch.samples());
                        for (Hook.Verdict<S> v : h.check(i, batch.steps(), batch.samples())) {
                            batch.quarantine(v.sample(), v.diagnosis(), this::onEvent);
                        }
                    }
                }
                if (run.p.debug) {
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

    /// Admits what is waiting and fits; returns whether no more input will come.
    private boolean receive(boolean empty) throws Exception {
        if (!pendingOut.isEmpty()) {
            return false; // synchronized mode: nothing new until the exits have left
        }
        if (i == 0) {
            // refill every k steps, and only if room was freed since the last look (else
            // nothing new can fit); the scan passes over at most Run.SCAN samples that do not fit
            if (empty || (batch.steps() % run.p.refillEvery == 0 && freed)) {
                freed = false;
                List<S> take = new ArrayList<>();
                long[] used = new long[capacity.dimensions()];
                for (int d = 0; d < used.length; d++) {
                    used[d] = batch.used(d);
                }
                int passed = 0;
                for (Iterator<S> it = run.unsampled.iterator(); it.hasNext() && passed < Run.SCAN; ) {
                    S s = it.next();
                    if (capacity.fits(run.sizer, s, used)) {
                        it.remove();
                        take.add(s);
                        for (int d = 0; d < used.length; d++) {
                            used[d] += run.sizer.size(s, d);
                        }
                    } else {
                        passed++;
                    }
                }
                batch.admit(take, this::onEvent);
            }
            return run.unsampled.isEmpty();
        }
        if (inbox != null) {
            long t = System.nanoTime();
            StageWaitEvent event = empty ? waitEvent("input") : null;
            if (empty && !run.stopping) {
                inbox.awaitArrival(); // signalled by the receiver; interrupted if the run stops
            }
            waitIn += empty ? System.nanoTime() - t : 0;
            commit(event);
            boolean done = inbox.isDone(); // read before taking: nothing arrives after done
            batch.admit(handedOff(inbox.takeAll(), empty), this::onEvent);
            return done && inbox.isEmpty();
        }
        Buffer<S> in = run.buffers.get(i - 1);
        long t = System.nanoTime();
        StageWaitEvent event = empty ? waitEvent("input") : null;
        List<S> got = in.take(fitter(batch::used), empty && run.barrier == null ? Long.MAX_VALUE : 0);
        waitIn += empty ? System.nanoTime() - t : 0;
        commit(event);
        batch.admit(handedOff(got, empty), this::onEvent);
        return in.isDrained();
    }

    /// Records, for samples about to be admitted from upstream, how long ago they exited there
    /// (also as idle hand-offs when the batch was empty, waiting for them).
    private List<S> handedOff(List<S> admitted, boolean idle) {
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

    private java.util.function.Predicate<S> fitter(java.util.function.IntToLongFunction usedNow) {
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

    /// The receiver thread: fills the inbox while the worker steps. It waits in the upstream
    /// buffer until something fits the room not yet committed (re-checked on every arrival and
    /// every release from the batch), never polling.
    private void receive() throws Exception {
        Buffer<S> in = run.buffers.get(i - 1);
        while (!run.stopping) {
            List<S> got = in.takeWhenAccepted(() -> {
                long[] committed = inbox.snapshot();
                return fitter(d -> committed[d]);
            });
            if (!got.isEmpty()) {
                inbox.add(got);
            } else if (in.isDrained()) {
                inbox.finish();
                return;
            }
        }
    }

    private void sendLoop() throws Exception {
        while (true) {
            List<S> out = outbox.take(s -> true, Long.MAX_VALUE);
            for (S s : out) {
                send(s);
            }
            if (out.isEmpty() && outbox.isDrained()) {
                return;
            }
        }
    }

    private void onEvent(Event<S> e) {
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
                freed = true;
                if (inbox != null) {
                    inbox.release(e.sample());
                }
            }
            for (Hook<S> h : run.p.hooks) {
                h.onEvent(i, e);
            }
            if (e.kind() == Event.Kind.EXITED) {
                if (i + 1 < run.n) {
                    run.exitedAt.put(run.sizer.id(e.sample()), System.nanoTime());
                }
                if (outbox != null) {
                    outbox.put(e.sample());
                } else if (run.barrier != null && i + 1 < run.n) {
                    pendingOut.add(e.sample());
                } else {
                    send(e.sample());
                }
            }
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private void flushPending() throws Exception {
        for (Iterator<S> it = pendingOut.iterator(); it.hasNext(); ) {
            if (run.buffers.get(i).offer(it.next())) {
                it.remove();
            }
        }
    }

    private void send(S s) throws Exception {
        long t = System.nanoTime();
        StageWaitEvent event = waitEvent("output");
        if (i + 1 < run.n) {
            run.buffers.get(i).put(s);
        } else {
            deliver(s);
        }
        waitOut += System.nanoTime() - t;
        commit(event);
    }

    /// A JFR wait event begun now (null when nobody records it).
    private StageWaitEvent waitEvent(String direction) {
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

    private static void commit(StageWaitEvent e) {
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
