package dev.penstock.stage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;

/// One execution of a `Pipeline`: the workers (and receivers and senders), the buffers, the
/// sampler, the counters. See `Pipeline` for the contracts.
final class Run<S> {
    private static final System.Logger LOG = System.getLogger(Pipeline.class.getName());
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int SCAN = 64; // samples a refill looks past when they do not fit

    private final Pipeline<S> p;
    private final int n;
    private final Sizer<S> sizer;
    private final List<Buffer<S>> buffers = new ArrayList<>();
    private final ArrayDeque<S> unsampled;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Event<S>> quarantined = Collections.synchronizedList(new ArrayList<>());
    private final List<String> trace = Collections.synchronizedList(new ArrayList<>());
    private final Summary.StageReport[] reports;
    private final List<Sink<S>> results;
    private final Phaser barrier;
    private volatile boolean stopping;
    private volatile Throwable failure;
    private volatile String failedWhere;
    private long delivered;

    Run(Pipeline<S> p) {
        this.p = p;
        this.n = p.stages.size();
        if (p.sizer == null || p.samples == null) {
            throw new IllegalArgumentException("a pipeline needs a sizer and samples before run()");
        }
        this.sizer = p.sizer;
        this.unsampled = new ArrayDeque<>(p.samples);
        this.reports = new Summary.StageReport[n];
        this.results = p.results.isEmpty() ? List.of(MemorySink.unbounded("results")) : List.copyOf(p.results);
        this.barrier = p.synchronizedSteps ? new Phaser(n) : null;
        validate(p);
        for (int i = 0; i + 1 < n; i++) {
            Capacity c = p.bufferCapacity != null ? p.bufferCapacity : p.capacityOf(i + 1);
            buffers.add(new Buffer<>("after stage " + i + " (" + p.stages.get(i).name() + ")", sizer, c, p.overflow.get()));
        }
    }

    /// Refuses, before anything runs, what could never finish: a method without an end, a
    /// sample no stage or buffer could ever hold, two samples with one id.
    static <S> void validate(Pipeline<S> p) {
        if (p.sizer == null || p.samples == null) {
            throw new IllegalArgumentException("a pipeline needs a sizer and samples before run()");
        }
        int n = p.stages.size();
        Sizer<S> sizer = p.sizer;
        for (int i = 0; i < n; i++) {
            for (Method<S> m : p.stages.get(i).methods()) {
                if (!m.terminates()) {
                    throw new IllegalArgumentException("stage " + i + " ('" + p.stages.get(i).name() + "'): method '" + m.name()
                            + "' has no step budget or convergence rule, so its samples might never finish");
                }
            }
        }
        Set<Long> ids = new HashSet<>();
        List<String> oversize = new ArrayList<>();
        for (S s : p.samples) {
            if (!ids.add(sizer.id(s))) {
                throw new IllegalArgumentException("two samples have the id " + sizer.id(s) + "; ids must be unique");
            }
            for (int i = 0; i < n; i++) {
                Capacity c = p.capacityOf(i);
                Capacity b = i == 0 ? c : p.bufferCapacity != null ? p.bufferCapacity : c;
                if (!c.admits(sizer, s) || !b.admits(sizer, s)) {
                    oversize.add(sizer.id(s) + " (stage " + i + ": room " + c.describe(sizer.dimensions()) + ")");
                    break;
                }
            }
        }
        if (!oversize.isEmpty()) {
            throw new IllegalArgumentException(oversize.size() + " samples are larger than a stage or buffer can ever hold: "
                    + String.join(", ", oversize.subList(0, Math.min(20, oversize.size()))) + (oversize.size() > 20 ? ", …" : ""));
        }
    }

    Summary<S> execute() {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int stage = i;
            threads.add(Thread.ofPlatform().daemon().name("penstock-stage-" + i + "-" + p.stages.get(i).name())
                    .unstarted(() -> guarded("stage " + stage + " ('" + p.stages.get(stage).name() + "')", () -> new Worker(stage).work())));
        }
        for (Thread t : List.copyOf(threads)) {
            t.start();
        }
        try {
            for (Thread t : List.copyOf(threads)) {
                while (t.isAlive()) {
                    t.join(100);
                    if (failure != null) {
                        stop(null);
                        break;
                    }
                }
            }
            List<Thread> helpers;
            synchronized (threads) { // receivers and senders started by workers
                helpers = List.copyOf(threads);
            }
            for (Thread t : helpers) {
                if (failure == null) {
                    t.join(p.stopTimeout.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(e);
        }
        for (Sink<S> s : results) {
            try {
                s.close();
            } catch (Exception e) {
                fail("result sink '" + s.name() + "'", e);
            }
        }
        if (failure != null) {
            throw new PipelineException("pipeline failed in " + failedWhere + ": " + failure, failure);
        }
        List<long[]> spilled = new ArrayList<>();
        for (Buffer<S> b : buffers) {
            spilled.add(b.spilled());
        }
        return new Summary<>(List.of(reports), delivered, List.copyOf(quarantined), spilled,
                Duration.ofNanos(System.nanoTime() - t0), List.copyOf(trace));
    }

    private interface Body {
        void run() throws Exception;
    }

    private void guarded(String where, Body body) {
        try {
            body.run();
        } catch (Throwable e) {
            if (!stopping || failure == null) {
                fail(where, e);
            }
            if (barrier != null) {
                barrier.forceTermination(); // nobody waits at a barrier for a dead worker
            }
        }
    }

    private synchronized void fail(String where, Throwable e) {
        if (failure == null && !(stopping && e instanceof InterruptedException)) {
            failure = e;
            failedWhere = where;
        }
        stopping = true;
        for (Buffer<S> b : buffers) {
            b.fail();
        }
    }

    /// Stops every thread within the stop timeout; logs any that did not stop.
    void stop(Throwable cause) {
        if (cause != null) {
            fail("the caller", cause);
        }
        stopping = true;
        for (Buffer<S> b : buffers) {
            b.fail();
        }
        List<Thread> all;
        synchronized (threads) {
            all = List.copyOf(threads);
        }
        for (Thread t : all) {
            if (t != Thread.currentThread()) {
                t.interrupt();
            }
        }
        long deadline = System.nanoTime() + p.stopTimeout.toNanos();
        for (Thread t : all) {
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left > 0 && t != Thread.currentThread()) {
                    t.join(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive() && t != Thread.currentThread()) {
                LOG.log(System.Logger.Level.WARNING, "pipeline thread " + t.getName() + " did not stop within " + p.stopTimeout);
            }
        }
    }

    private Thread helper(String name, String where, Body body) {
        Thread t = Thread.ofPlatform().daemon().name(name).unstarted(() -> guarded(where, body));
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
        return t;
    }

    /// The room a stage has committed: its batch plus its inbox (async receive).
    private final class Inbox {
        final long[] committed;
        final List<S> arrived = new ArrayList<>();
        volatile boolean done;

        Inbox(int dims) {
            committed = new long[dims];
        }

        synchronized long[] snapshot() {
            return committed.clone();
        }

        synchronized void add(List<S> samples) {
            for (S s : samples) {
                arrived.add(s);
                for (int d = 0; d < committed.length; d++) {
                    committed[d] += sizer.size(s, d);
                }
            }
        }

        synchronized List<S> takeAll() {
            List<S> out = new ArrayList<>(arrived);
            arrived.clear();
            return out;
        }

        synchronized void release(S s) {
            for (int d = 0; d < committed.length; d++) {
                committed[d] -= sizer.size(s, d);
            }
        }

        synchronized boolean isEmpty() {
            return arrived.isEmpty();
        }
    }

    private final class Worker {
        final int i;
        final Stage<S> stage;
        final Capacity capacity;
        final StageBatch<S> batch;
        final long[] graduated;
        final long[] sampleSteps;
        final List<S> pendingOut = new ArrayList<>();
        Inbox inbox;
        boolean freed = true;
        Buffer<S> outbox;
        Thread sender;
        long exited;
        long quarantinedHere;
        long waitIn;
        long waitOut;

        Worker(int i) {
            this.i = i;
            this.stage = p.stages.get(i);
            this.capacity = p.capacityOf(i);
            this.batch = new StageBatch<>(stage, sizer, capacity);
            this.graduated = new long[stage.methods().size()];
            this.sampleSteps = new long[capacity.dimensions()];
        }

        void work() throws Exception {
            boolean async = p.mode != Pipeline.Mode.SYNC && barrier == null;
            if (async && i > 0) {
                inbox = new Inbox(capacity.dimensions());
                helper("penstock-receive-" + i, "receiver of stage " + i, this::receive);
            }
            if (p.mode == Pipeline.Mode.FULLY_ASYNC && barrier == null) {
                outbox = new Buffer<>("outbox of stage " + i, sizer, capacity, List.of());
                sender = helper("penstock-send-" + i, "sender of stage " + i, this::sendLoop);
            }
            try {
                loop();
            } finally {
                report();
            }
            if (outbox != null) {
                outbox.close();
                sender.join();
            }
            if (i + 1 < n && !stopping) {
                buffers.get(i).close();
            }
            if (barrier != null) {
                barrier.arriveAndDeregister();
            }
        }

        private void loop() throws Exception {
            while (!stopping) {
                flushPending();
                boolean inputDone = receive(batch.isEmpty());
                if (batch.isEmpty() && pendingOut.isEmpty()) {
                    if (inputDone) {
                        return;
                    }
                    if (barrier != null) {
                        barrier.arriveAndAwaitAdvance();
                    }
                    continue;
                }
                if (!batch.isEmpty()) {
                    int held = batch.size();
                    for (int d = 0; d < sampleSteps.length; d++) {
                        sampleSteps[d] += batch.used(d);
                    }
                    batch.step(this::onEvent);
                    for (Hook<S> h : p.hooks) {
                        if (batch.steps() % h.every() == 0) {
                            h.onStep(i, stage.name(), batch.steps(), batch.samples());
                        }
                    }
                    if (p.debug) {
                        trace.add("stage " + i + " (" + stage.name() + ") step " + batch.steps() + ": batch " + held + " -> "
                                + batch.size() + (i > 0 ? ", buffer in " + buffers.get(i - 1).population() : "")
                                + (i + 1 < n ? ", buffer out " + buffers.get(i).population() : ""));
                    }
                }
                if (barrier != null) {
                    barrier.arriveAndAwaitAdvance();
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
                // nothing new can fit); the scan passes over at most SCAN samples that do not fit
                if (empty || (batch.steps() % p.refillEvery == 0 && freed)) {
                    freed = false;
                    List<S> take = new ArrayList<>();
                    long[] used = new long[capacity.dimensions()];
                    for (int d = 0; d < used.length; d++) {
                        used[d] = batch.used(d);
                    }
                    int passed = 0;
                    for (Iterator<S> it = unsampled.iterator(); it.hasNext() && passed < SCAN; ) {
                        S s = it.next();
                        if (capacity.fits(sizer, s, used)) {
                            it.remove();
                            take.add(s);
                            for (int d = 0; d < used.length; d++) {
                                used[d] += sizer.size(s, d);
                            }
                        } else {
                            passed++;
                        }
                    }
                    batch.admit(take, this::onEvent);
                }
                return unsampled.isEmpty();
            }
            if (inbox != null) {
                long t = System.nanoTime();
                while (empty && inbox.isEmpty() && !inbox.done && !stopping) {
                    synchronized (inbox) {
                        inbox.wait(20);
                    }
                }
                waitIn += empty ? System.nanoTime() - t : 0;
                boolean done = inbox.done; // read before taking: nothing arrives after done
                batch.admit(inbox.takeAll(), this::onEvent);
                return done && inbox.isEmpty();
            }
            Buffer<S> in = buffers.get(i - 1);
            long t = System.nanoTime();
            List<S> got = in.take(fitter(batch::used), empty && barrier == null ? POLL_NS : 0);
            waitIn += empty ? System.nanoTime() - t : 0;
            batch.admit(got, this::onEvent);
            return in.isDrained();
        }

        private java.util.function.Predicate<S> fitter(java.util.function.IntToLongFunction usedNow) {
            long[] used = new long[capacity.dimensions()];
            for (int d = 0; d < used.length; d++) {
                used[d] = usedNow.applyAsLong(d);
            }
            return s -> {
                if (!capacity.fits(sizer, s, used)) {
                    return false;
                }
                for (int d = 0; d < used.length; d++) {
                    used[d] += sizer.size(s, d);
                }
                return true;
            };
        }

        /// The receiver thread: fills the inbox while the worker steps.
        private void receive() throws Exception {
            Buffer<S> in = buffers.get(i - 1);
            while (!stopping) {
                long[] committed = inbox.snapshot();
                List<S> got = in.take(fitter(d -> committed[d]), POLL_NS);
                if (!got.isEmpty()) {
                    inbox.add(got);
                    synchronized (inbox) {
                        inbox.notifyAll();
                    }
                } else if (in.isDrained()) {
                    inbox.done = true;
                    synchronized (inbox) {
                        inbox.notifyAll();
                    }
                    return;
                }
            }
        }

        private void sendLoop() throws Exception {
            while (true) {
                List<S> out = outbox.take(s -> true, POLL_NS);
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
                        quarantined.add(e);
                    }
                }
                if (e.left()) {
                    freed = true;
                    if (inbox != null) {
                        inbox.release(e.sample());
                    }
                }
                for (Hook<S> h : p.hooks) {
                    h.onEvent(i, e);
                }
                if (e.kind() == Event.Kind.EXITED) {
                    if (outbox != null) {
                        outbox.put(e.sample());
                    } else if (barrier != null && i + 1 < n) {
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
                if (buffers.get(i).offer(it.next())) {
                    it.remove();
                }
            }
        }

        private void send(S s) throws Exception {
            long t = System.nanoTime();
            if (i + 1 < n) {
                buffers.get(i).put(s);
            } else {
                deliver(s);
            }
            waitOut += System.nanoTime() - t;
        }

        private void deliver(S s) throws Exception {
            while (true) {
                for (Sink<S> sink : results) {
                    if (sink.offer(s)) {
                        synchronized (Run.this) {
                            delivered++;
                        }
                        return;
                    }
                }
                if (stopping) {
                    throw new IllegalStateException("stopping with sample " + sizer.id(s) + " undelivered: every result sink is full");
                }
                Thread.sleep(5); // every tier full: backpressure until someone drains one
            }
        }

        private void report() {
            reports[i] = new Summary.StageReport(stage.name(), batch.steps(), batch.evaluations(), graduated.clone(), exited,
                    quarantinedHere, sampleSteps.clone(), capacity, waitIn, waitOut);
        }
    }
}
