package dev.penstock.device;

import dev.penstock.internal.Threads;
import dev.penstock.memory.Block;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;

/// A stream of `CpuDevice`: its queue run in order, either by a platform thread of its own (the
/// work goes on while the host does other things) or, for a driven stream
/// (`CpuDevice.newDrivenStream`), by the host thread that waits for it — `synchronize()`, an
/// event's `await`, or a stream thread reaching a `waitFor` of its event runs the queue up to the
/// point it waits for, so a thread that launches a step's work and then waits for it hands
/// nothing to another thread.
///
/// `failure` (the sticky error) is written by whoever runs the queue; `synchronize()` reads and
/// clears it under the monitor after the queue has passed a recorded event.
final class CpuStream implements Stream {
    private enum Kind { OP, RECORD, WAIT }

    /// A piece of the queue; a copy's name (`copy SRC -> DST`) is made only if an error needs it.
    private record Task(Kind kind, String given, Op op, CpuEvent event, Block src, Block dst) {
        Task(Kind kind, String name, Op op, CpuEvent event) {
            this(kind, name, op, event, null, null);
        }

        String name() {
            return given != null ? given : "copy " + src + " -> " + dst;
        }
    }

    private final CpuDevice device;
    private final String name;
    private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Thread thread; // null: driven
    private final ReentrantLock runner = new ReentrantLock(); // a driven stream's: one thread runs its queue at a time
    private volatile boolean stopping;
    private DeviceException failure; // guarded by this

    /// A stream with a thread of its own, or, if `driven`, run by the threads that wait for it.
    CpuStream(CpuDevice device, String name, boolean driven) {
        this.device = device;
        this.name = name;
        this.thread = driven ? null : Thread.ofPlatform().daemon().name("penstock-" + device.name() + "-" + name).unstarted(this::runLoop);
        if (thread != null) {
            thread.start();
        }
    }

    /// Runs a driven stream's queue on the calling thread until `event` (of this stream) is
    /// complete; nothing for a stream with its own thread, whose thread completes it.
    void drive(CpuEvent event) {
        if (thread != null || event.isDone()) {
            return;
        }
        runner.lock();
        try {
            while (!event.isDone()) {
                Task task = queue.poll();
                if (task == null) {
                    return; // cancelled by close(), which completed it, or recorded after it
                }
                run(task);
            }
        } finally {
            runner.unlock();
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public void launch(String opName, Op op) {
        enqueue(new Task(Kind.OP, opName, op, null));
    }

    @Override
    public void copy(Block src, Block dst) {
        enqueue(new Task(Kind.OP, null, () -> dst.copyFrom(src), null, src, dst));
    }

    @Override
    public Event record() {
        CpuEvent event = new CpuEvent(this);
        enqueue(new Task(Kind.RECORD, "record", null, event));
        return event;
    }

    @Override
    public void waitFor(Event event) {
        if (!(event instanceof CpuEvent cpuEvent)) {
            throw new IllegalArgumentException("stream " + name + " of " + device.name()
                    + " cannot wait for an event of another device kind: " + event);
        }
        enqueue(new Task(Kind.WAIT, "wait for " + event.stream().name(), null, cpuEvent));
    }

    @Override
    public void synchronize() {
        CpuEvent event = new CpuEvent(this);
        enqueue(new Task(Kind.RECORD, "synchronize", null, event));
        try {
            event.awaitQuietly(); // a driven stream's queue runs here, on this thread
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeviceException("synchronize", "interrupted while synchronizing stream " + name, e);
        }
        DeviceException f;
        synchronized (this) {
            f = failure;
            failure = null;
        }
        if (f != null) {
            throw new DeviceException(f.operation(), f.getMessage(), f);
        }
    }

    private void enqueue(Task task) {
        if (stopping) {
            throw new IllegalStateException("device " + device.name() + " is closed; cannot enqueue '" + task.name() + "' on stream " + name);
        }
        queue.add(task);
    }

    private void runLoop() {
        while (!stopping) {
            Task task;
            try {
                task = queue.take();
            } catch (InterruptedException e) {
                continue; // close() interrupts; the loop condition decides
            }
            run(task);
        }
    }

    private void run(Task task) {
        DeviceException current;
        synchronized (this) {
            current = failure;
        }
        switch (task.kind) {
            case RECORD -> task.event.complete(current);
            case OP -> {
                if (current == null) {
                    try {
                        task.op.run();
                    } catch (Throwable t) {
                        fail(new DeviceException(task.name(), "stream " + name + " of " + device.name()
                                + ": operation '" + task.name() + "' failed: " + t, t));
                    }
                }
            }
            case WAIT -> {
                if (current == null) {
                    try {
                        task.event.awaitQuietly();
                    } catch (InterruptedException e) {
                        fail(new DeviceException(task.name(), "stream " + name + " was interrupted in '" + task.name() + "'", e));
                        return;
                    }
                    DeviceException upstream = task.event.failure();
                    if (upstream != null) {
                        fail(new DeviceException(upstream.operation(), "stream " + name + " waited for stream "
                                + task.event.stream().name() + ", whose operation '" + upstream.operation() + "' failed: "
                                + upstream.getCause(), upstream));
                    }
                }
            }
        }
    }

    private synchronized void fail(DeviceException e) {
        if (failure == null) {
            failure = e;
        }
    }

    /// Stops taking work, cancels what is queued (failing its events) and interrupts the thread.
    void beginStop() {
        stopping = true;
        List<Task> rest = new ArrayList<>();
        queue.drainTo(rest);
        for (Task t : rest) {
            if (t.event != null && t.kind == Kind.RECORD) {
                t.event.complete(new DeviceException("close", "device " + device.name() + " was closed before stream "
                        + name + " reached this event", null));
            }
        }
        if (thread != null) {
            thread.interrupt();
        }
    }

    /// Waits until `deadlineNs` for the thread to end (a driven stream has none); logs it with
    /// its stack if it does not.
    boolean awaitStop(long deadlineNs) {
        return thread == null || Threads.joinUntil(List.of(thread), deadlineNs, "device " + device.name() + ", stream " + name);
    }
}
