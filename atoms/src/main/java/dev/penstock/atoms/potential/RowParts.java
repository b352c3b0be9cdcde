package dev.penstock.atoms.potential;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/// The threads a file model splits one system's rows over (`Eam.threads`, `Tersoff.threads`):
/// part p of `count` takes rows [n·p/count, n·(p+1)/count), part `count − 1` on the caller. Each
/// part writes only its own arrays; the model sums them in part order, so its results are
/// deterministic for a given count.
final class RowParts implements AutoCloseable {
    final int count;
    final ExecutorService pool;

    /// `count` parts (≥ 2), the other threads named `name`-0, -1, ….
    RowParts(int count, String name) {
        if (count < 2) {
            throw new IllegalArgumentException("row parts: at least 2, got " + count);
        }
        this.count = count;
        this.pool = Executors.newFixedThreadPool(count - 1, Thread.ofPlatform().daemon().name(name + "-", 0).factory());
    }

    /// Where part `p` of `n` rows starts (`p` = `count`: n).
    int from(int n, int p) {
        return (int) ((long) n * p / count);
    }

    /// Runs `part` for parts 0 … count − 1 at once; returns when all are done, rethrowing the
    /// first failure (a part's exception, as thrown).
    void run(IntConsumer part) {
        List<Future<?>> tasks = new ArrayList<>(count - 1);
        for (int p = 0; p < count - 1; p++) {
            int q = p;
            tasks.add(pool.submit(() -> part.accept(q)));
        }
        RuntimeException failed = null;
        try {
            part.accept(count - 1);
        } catch (RuntimeException e) {
            failed = e;
        }
        for (Future<?> task : tasks) {
            try {
                task.get();
            } catch (ExecutionException e) {
                if (failed == null) {
                    failed = e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted computing forces", e);
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
