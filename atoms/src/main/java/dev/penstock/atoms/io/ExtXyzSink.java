package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.PendingOutput;
import dev.penstock.stage.SampleRefusedException;
import dev.penstock.stage.Sink;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// A result sink that appends each finished system to an extended XYZ file (ASE reads it).
/// The file is written beside `file` and renamed into place by `commit()`, which the pipeline
/// calls once the run has succeeded; closed without it (a failure), the file is deleted and
/// `file` is left as it was. A
/// system that cannot be written (an info value extended XYZ cannot hold) is refused alone
/// (`SampleRefusedException`: the pipeline quarantines it); the others are written. Never full.
///
/// Order: as systems finish, or — given a `rank` (e.g. each system's position in the input) — in
/// rank order: each frame is then formatted as it arrives (refusals still come at once) and
/// spooled to a second hidden file beside `file`; `commit()` copies the frames in rank order into
/// the output (equal ranks in arrival order), so memory holds two numbers per system.
public final class ExtXyzSink implements Sink<AtomicSystem> {
    private final Path file;
    private final PendingOutput pending;
    private final PendingOutput spool; // null: written in arrival order
    private final java.util.function.ToLongFunction<AtomicSystem> rank;
    private final java.io.OutputStream out;
    private long[] ranks = new long[64];
    private long[] ends = new long[64]; // byte offset after each spooled frame
    private long spooled;
    private long held;
    private boolean closed;

    /// A sink that puts the systems at `file` on `commit()` (replacing it), in the order they finish.
    public ExtXyzSink(Path file) throws IOException {
        this(file, null);
    }

    /// A sink that puts the systems at `file` on `commit()` in the order of `rank` (null: the
    /// order they finish).
    public ExtXyzSink(Path file, java.util.function.ToLongFunction<AtomicSystem> rank) throws IOException {
        this.file = file;
        this.rank = rank;
        this.pending = PendingOutput.file(file);
        PendingOutput sp = null;
        try {
            sp = rank == null ? null : PendingOutput.file(file.resolveSibling(file.getFileName() + ".unordered"));
            this.out = new java.io.BufferedOutputStream(Files.newOutputStream(sp == null ? pending.path() : sp.path()));
        } catch (IOException e) {
            if (sp != null) {
                sp.close();
            }
            pending.close();
            throw e;
        }
        this.spool = sp;
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException, SampleRefusedException {
        StringWriter frame = new StringWriter();
        try {
            ExtXyz.write(frame, List.of(s));
        } catch (IllegalArgumentException e) {
            throw new SampleRefusedException(file + ": " + e.getMessage());
        }
        byte[] text = frame.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8); // encoded once: written and measured
        out.write(text);
        if (spool != null) {
            if (held == ranks.length) {
                ranks = java.util.Arrays.copyOf(ranks, 2 * ranks.length);
                ends = java.util.Arrays.copyOf(ends, 2 * ends.length);
            }
            spooled += text.length;
            ranks[(int) held] = rank.applyAsLong(s);
            ends[(int) held] = spooled;
        }
        held++;
        return true;
    }

    /// Flushes, syncs and renames the file into place: `file` now holds every system offered.
    /// The pipeline calls it when a run succeeds.
    @Override
    public synchronized void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(file + ": sink already closed");
        }
        out.close();
        if (spool != null) {
            Integer[] order = new Integer[(int) held];
            for (int k = 0; k < order.length; k++) {
                order[k] = k;
            }
            java.util.Arrays.sort(order, java.util.Comparator.comparingLong(k -> ranks[k])); // stable: equal ranks keep arrival order
            try (java.nio.channels.FileChannel from = java.nio.channels.FileChannel.open(spool.path());
                 java.nio.channels.FileChannel to = java.nio.channels.FileChannel.open(pending.path(), java.nio.file.StandardOpenOption.WRITE,
                         java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
                for (int k : order) {
                    long start = k == 0 ? 0 : ends[k - 1];
                    long length = ends[k] - start;
                    for (long done = 0; done < length; ) {
                        done += from.transferTo(start + done, length - done, to);
                    }
                }
            }
            spool.close(); // the spool was only ever ours: deleted
        }
        pending.commit();
    }

    @Override
    public String name() {
        return file.toString();
    }

    @Override
    public synchronized long held() {
        return held;
    }

    /// Closes the sink; unless `commit()` came first, what was written is deleted and `file` is
    /// left as it was.
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (pending) {
            out.close();
        } finally {
            if (spool != null) {
                spool.close();
            }
        }
    }
}
