package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.PendingOutput;
import dev.penstock.stage.SampleRefusedException;
import dev.penstock.stage.Sink;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// A result sink that appends each finished system to an extended XYZ file (ASE reads it).
/// The file is written beside `file` and renamed into place by `commit()`, which the pipeline
/// calls once the run has succeeded; closed without it (a failure), the file is deleted and
/// `file` is left as it was. A
/// system that cannot be written (an info value extended XYZ cannot hold) is refused alone
/// (`SampleRefusedException`: the pipeline quarantines it); the others are written. Never full.
public final class ExtXyzSink implements Sink<AtomicSystem> {
    private final Path file;
    private final PendingOutput pending;
    private final Writer out;
    private long held;
    private boolean closed;

    /// A sink that puts the systems at `file` on `commit()` (replacing it).
    public ExtXyzSink(Path file) throws IOException {
        this.file = file;
        this.pending = PendingOutput.file(file);
        try {
            this.out = Files.newBufferedWriter(pending.path());
        } catch (IOException e) {
            pending.close();
            throw e;
        }
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException, SampleRefusedException {
        StringWriter frame = new StringWriter();
        try {
            ExtXyz.write(frame, List.of(s));
        } catch (IllegalArgumentException e) {
            throw new SampleRefusedException(file + ": " + e.getMessage());
        }
        out.write(frame.toString());
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
        }
    }
}
