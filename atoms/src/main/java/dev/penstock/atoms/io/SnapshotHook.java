package dev.penstock.atoms.io;

import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/// Snapshots to extended XYZ: every `every` steps of each stage, every system the stage holds
/// (a frame each, with `stage=` and `step=` in its comment: on a device stage the sub-stage it is
/// in and the steps it has taken there, so `step=0` is its input and `step=k` the state a run of
/// k steps ends with), into `DIR/stage-<i>.xyz`; and, once
/// per system and sub-stage, the system as it graduates (`DIR/converged.xyz`, with `stage=`
/// naming the sub-stage and `steps=` the steps it took there). Thread-safe: each file is
/// written under its own lock. `close()` flushes and closes the files.
public final class SnapshotHook implements Hook<AtomicSystem>, AutoCloseable {
    private final Path dir;
    private final int every;
    private final List<Writer> perStage = new ArrayList<>();
    private final Writer converged;

    /// Snapshots every `every` steps (0: only the converged snapshots) into `dir`.
    public SnapshotHook(Path dir, int every) throws IOException {
        if (every < 0) {
            throw new IllegalArgumentException("snapshots: 'every' must be ≥ 0, got " + every);
        }
        Files.createDirectories(dir);
        this.dir = dir;
        this.every = every;
        this.converged = Files.newBufferedWriter(dir.resolve("converged.xyz"));
    }

    @Override
    public int every() {
        return every == 0 ? Integer.MAX_VALUE : every;
    }

    private Writer stageFile(int stage) throws IOException {
        synchronized (perStage) {
            while (perStage.size() <= stage) {
                perStage.add(null);
            }
            if (perStage.get(stage) == null) {
                perStage.set(stage, Files.newBufferedWriter(dir.resolve("stage-" + stage + ".xyz")));
            }
            return perStage.get(stage);
        }
    }

    @Override
    public void onStep(int stage, String name, long step, List<AtomicSystem> samples) throws IOException {
        if (every == 0) {
            return;
        }
        Writer w = stageFile(stage);
        synchronized (w) {
            for (AtomicSystem s : samples) {
                // labelled with the step whose state it holds: a device stage says, per system, the
                // sub-stage and the steps taken there (the first evaluation is step 0: the input)
                boolean known = s.heldStep() >= 0;
                write(w, s, known ? s.heldIn() : name, "step", known ? s.heldStep() : step);
            }
        }
    }

    @Override
    public void onEvent(int stage, Event<AtomicSystem> e) throws IOException {
        if (e.kind() == Event.Kind.QUARANTINED) {
            return;
        }
        synchronized (converged) {
            write(converged, e.sample(), e.method(), "steps", e.steps());
        }
    }

    private static void write(Writer w, AtomicSystem s, String stage, String key, long value) throws IOException {
        String oldStage = s.info().put("stage", stage);
        String oldValue = s.info().put(key, Long.toString(value));
        try {
            ExtXyz.write(w, List.of(s));
        } finally {
            restore(s, "stage", oldStage);
            restore(s, key, oldValue);
        }
    }

    private static void restore(AtomicSystem s, String key, String old) {
        if (old == null) {
            s.info().remove(key);
        } else {
            s.info().put(key, old);
        }
    }

    @Override
    public void close() {
        try {
            synchronized (perStage) {
                for (Writer w : perStage) {
                    if (w != null) {
                        w.close();
                    }
                }
            }
            synchronized (converged) {
                converged.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
