package dev.penstock.device;

import dev.penstock.internal.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

/// A stream of `CpuDevice`: one platform thread that runs its queue in order.
///
/// The stream thread owns `failure` (the sticky error); `synchronize()` reads and clears it
/// under the monitor after the thread has passed a recorded event.
final class CpuStream implements Stream {
    private enum Kind { OP, RECORD, WAIT }

    private record Task(Kind kind, String name, Op op, CpuEvent event) {
    }

    private final CpuDevice device;
    private final String name;
    private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private DeviceException failure; // guarded by this

    CpuStream(CpuDevice device, String name) {
        this.device = device;
        this.name = name;
        this.thread = Thread.ofPlatform().daemon().name("penstock-" + device.name() + "-" + name).unstarted(this::runLoop);
        thread.start();
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
            event.awaitQuietly();
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
            throw new IllegalStateException("device " + device.name() + " is closed; cannot enqueue '" + task.name + "' on stream " + name);
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
                        fail(new DeviceException(task.name, "stream " + name + " of " + device.name()
                                + ": operation '" + task.name + "' failed: " + t, t));
                    }
                }
            }
            case WAIT -> {
                if (current == null) {
                    try {
                        task.event.awaitQuietly();
                    } catch (InterruptedException e) {
                        fail(new DeviceException(task.name, "stream " + name + " was interrupted in '" + task.name + "'", e));
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
        thread.interrupt();
    }

    /// Waits until `deadlineNs` for the thread to end; logs it with its stack if it does not.
    boolean awaitStop(long deadlineNs) {
        return Threads.joinUntil(List.of(thread), deadlineNs, "device " + device.name() + ", stream " + name);
    }
}
