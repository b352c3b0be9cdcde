package dev.penstock.stage;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;

/// One execution of a `Pipeline`: the workers (and receivers and senders), the buffers, the
/// sampler, the counters. See `Pipeline` for the contracts.
final class Run<S> {
    private static final System.Logger LOG = System.getLogger(Pipeline.class.getName());
    static final int SCAN = 64; // samples a refill looks past when they do not fit

    final PipelineConfig<S> cfg;
    final int n;
    final Sizer<S> sizer;
    final List<Buffer<S>> buffers = new ArrayList<>();
    final ArrayDeque<S> unsampled;
    private final List<Thread> threads = new ArrayList<>();
    final List<Event<S>> quarantined = Collections.synchronizedList(new ArrayList<>());
    final List<String> trace = Collections.synchronizedList(new ArrayList<>());
    final Summary.StageReport[] reports;
    final List<Sink<S>> results;
    final Phaser barrier;
    volatile boolean stopping;
    private volatile Throwable failure;
    private volatile String failedWhere;
    private long delivered;
    private int workersLeft;
    /// When each sample in flight between two stages exited the earlier one (System.nanoTime).
    final java.util.concurrent.ConcurrentHashMap<Long, Long> exitedAt = new java.util.concurrent.ConcurrentHashMap<>();

    Run(PipelineConfig<S> cfg) {
        this.cfg = cfg;
        this.n = cfg.size();
        this.sizer = cfg.sizer();
        this.unsampled = new ArrayDeque<>(cfg.samples());
        this.reports = new Summary.StageReport[n];
        this.results = cfg.results();
        this.barrier = cfg.synchronizedSteps() ? new Phaser(n) : null;
        for (int i = 0; i + 1 < n; i++) {
            buffers.add(new Buffer<>("after stage " + i + " (" + cfg.stages().get(i).name() + ")", sizer, cfg.bufferCapacities().get(i),
                    cfg.overflow().get()));
        }
    }

    Summary<S> execute() {
        long t0 = System.nanoTime();
        workersLeft = n;
        for (int i = 0; i < n; i++) {
            int stage = i;
            threads.add(Thread.ofPlatform().daemon().name("penstock-stage-" + i + "-" + cfg.stages().get(i).name()).unstarted(() -> {
                try {
                    guarded("stage " + stage + " ('" + cfg.stages().get(stage).name() + "')", () -> new StageWorker<>(this, stage).work());
                } finally {
                    workerEnded();
                }
            }));
        }
        for (Thread t : List.copyOf(threads)) {
            t.start();
        }
        try {
            synchronized (this) { // woken by each worker's end and by the first failure
                while (workersLeft > 0 && failure == null) {
                    wait();
                }
            }
            if (failure != null) {
                stop(null);
            }
            for (Thread t : List.copyOf(threads)) {
                t.join(cfg.stopTimeout().toMillis());
            }
            List<Thread> helpers;
            synchronized (threads) { // receivers and senders started by workers
                helpers = List.copyOf(threads);
            }
            for (Thread t : helpers) {
                if (failure == null) {
                    t.join(cfg.stopTimeout().toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(e);
        }
        for (Sink<S> s : results) {
            if (failure == null) {
                try {
                    s.commit(); // the run succeeded: the results become visible, all at once per sink
                } catch (Exception e) {
                    fail("result sink '" + s.name() + "'", e);
                }
            }
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
        long deliveredCount;
        synchronized (this) {
            deliveredCount = delivered;
        }
        for (Buffer<S> b : buffers) {
            spilled.add(b.spilled());
        }
        return new Summary<>(List.of(reports), deliveredCount, List.copyOf(quarantined), spilled,
                Duration.ofNanos(System.nanoTime() - t0), List.copyOf(trace));
    }

    interface Body {
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

    private synchronized void workerEnded() {
        workersLeft--;
        notifyAll();
    }

    private synchronized void fail(String where, Throwable e) {
        if (failure == null && !(stopping && e instanceof InterruptedException)) {
            failure = e;
            failedWhere = where;
        }
        notifyAll();
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
        long deadline = System.nanoTime() + cfg.stopTimeout().toNanos();
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
                LOG.log(System.Logger.Level.WARNING, "pipeline thread " + t.getName() + " did not stop within " + cfg.stopTimeout());
            }
        }
    }

    synchronized void delivered() {
        delivered++;
    }

    Thread helper(String name, String where, Body body) {
        Thread t = Thread.ofPlatform().daemon().name(name).unstarted(() -> guarded(where, body));
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
        return t;
    }

}
