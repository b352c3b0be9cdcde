package dev.penstock.python;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/// Items made by a run on a daemon thread of its own, handed to Python one at a time: at most
/// `ahead` wait to be taken (the run waits for the consumer), then the run's end or its failure.
/// `close()` stops the run and waits for its thread.
///
/// @param <T> the item type
public final class Handover<T> implements AutoCloseable {
    /// A run that hands its items over with `put`.
    @FunctionalInterface
    public interface Run<T> {
        void run(Handover<T> into) throws Exception;
    }

    private static final Object END = new Object();
    private final BlockingQueue<Object> ready;
    private final Thread runner;
    private volatile boolean closed;
    private boolean ended;

    /// Starts `run` on a daemon thread named `name`.
    public Handover(String name, int ahead, Run<T> run) {
        this.ready = new ArrayBlockingQueue<>(Math.max(1, ahead) + 1);
        this.runner = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
            Object last = END;
            try {
                run.run(this);
            } catch (Throwable t) {
                last = t;
            }
            if (!closed) {
                try {
                    ready.put(last);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        runner.start();
    }

    /// Hands `item` over, waiting while `ahead` items wait (the run's side). Throws
    /// `InterruptedException` once the consumer has closed.
    public void put(T item) throws InterruptedException {
        if (closed) {
            throw new InterruptedException("closed");
        }
        ready.put(item);
    }

    /// The next item, waiting for it; null after the last. Throws the run's failure.
    @SuppressWarnings("unchecked")
    public T next() throws Exception {
        if (ended) {
            return null;
        }
        Object o = ready.take();
        if (o == END) {
            ended = true;
            return null;
        }
        if (o instanceof Throwable t) {
            ended = true;
            if (t instanceof Exception e) {
                throw e;
            }
            throw (Error) t;
        }
        return (T) o;
    }

    /// Stops the run (items not yet taken are dropped) and waits for its thread.
    @Override
    public void close() throws InterruptedException {
        closed = true;
        runner.interrupt();
        ready.clear();
        runner.join(60_000);
        ready.clear();
    }
}
