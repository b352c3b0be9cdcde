package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.io.PendingOutput;
import dev.penstock.stage.SampleRefusedException;
import dev.penstock.stage.Sink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/// A result sink that writes the one finished system of a run as a LAMMPS data file
/// (`LammpsData.write`): beside `file`, renamed into place by `commit()`; closed without it (a
/// failure), `file` is left as it was. A data file holds one system: a second is refused alone
/// (the pipeline quarantines it), as is a system `LammpsData.unwritable` names.
public final class LammpsDataSink implements Sink<AtomicSystem> {
    private final Path file;
    private final double psPerTau;
    private final PendingOutput pending;
    private AtomicSystem held;
    private boolean closed;

    /// A sink that puts the system at `file` on `commit()`, its velocities in Å/ps (`psPerTau`
    /// ps a Penstock time unit).
    public LammpsDataSink(Path file, double psPerTau) throws IOException {
        this.file = file;
        this.psPerTau = psPerTau;
        this.pending = PendingOutput.file(file);
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException, SampleRefusedException {
        if (held != null) {
            throw new SampleRefusedException(file + ": a LAMMPS data file holds one system; system " + held.id() + " is written, system "
                    + s.id() + " is not (write .xyz or .zarr for several)");
        }
        String why = LammpsData.unwritable(s);
        if (why != null) {
            throw new SampleRefusedException(file + ": " + why);
        }
        held = s;
        return true;
    }

    @Override
    public String name() {
        return file.getFileName().toString();
    }

    @Override
    public synchronized long held() {
        return held == null ? 0 : 1;
    }

    /// Writes the system (an empty run writes nothing there: `file` holds no system) and renames
    /// the file into place.
    @Override
    public synchronized void commit() throws IOException {
        if (closed) {
            throw new IllegalStateException(file + ": sink already closed");
        }
        try (var w = Files.newBufferedWriter(pending.path(), StandardCharsets.UTF_8)) {
            if (held != null) {
                LammpsData.write(w, held, psPerTau);
            }
        }
        pending.commit();
        closed = true;
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            pending.close();
        }
    }
}
