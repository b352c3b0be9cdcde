package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Sink;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/// A result sink that appends each finished system to an extended XYZ file (ASE reads it),
/// flushed per system. Never full.
public final class ExtXyzSink implements Sink<AtomicSystem> {
    private final Path file;
    private final Writer out;
    private long held;

    /// A sink writing `file` (replaced if it exists).
    public ExtXyzSink(Path file) throws IOException {
        this.file = file;
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        this.out = Files.newBufferedWriter(file);
    }

    @Override
    public synchronized boolean offer(AtomicSystem s) throws IOException {
        ExtXyz.write(out, List.of(s));
        out.flush();
        held++;
        return true;
    }

    @Override
    public String name() {
        return file.toString();
    }

    @Override
    public synchronized long held() {
        return held;
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
