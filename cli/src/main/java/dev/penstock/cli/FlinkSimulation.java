package dev.penstock.cli;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.flink.AtomsJob;
import dev.penstock.flink.FlinkRunner;
import dev.penstock.flink.JobSpec;
import dev.penstock.io.OutputSet;
import dev.penstock.io.PendingOutput;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/// `simulate --runner flink`: the same pipeline as a Flink job on the embedded MiniCluster.
/// The job's exactly-once sink commits part files into a hidden folder of the run's own beside OUT
/// (`PendingOutput.scratch`, owner-only, removed however the run ends); once the job has finished
/// they are joined into OUT and `OUT.quarantined.xyz`, committed together (`OutputSet`).
final class FlinkSimulation {
    private FlinkSimulation() {
    }

    /// Every stage a device stage on each task's own `CpuDevice` (`AtomsJob.spec`), its kernels
    /// split over `kernelThreads`, quarantining a system flung more than `maxStep` Å in a step.
    static int run(PrintStream o, List<AtomicSystem> systems, String pipeline, String potential, long seed, long[] room,
                   List<Integer> parallelism, Duration checkpointInterval, java.util.Optional<FlinkRunner.Restarts> restarts, Path out,
                   int kernelThreads, double maxStep, boolean inputOrder)
            throws Exception {
        JobSpec<AtomicSystem> spec = AtomsJob.spec(pipeline, potential, seed, room, kernelThreads, maxStep);
        int stages = spec.stages().size();
        FlinkRunner.Options options = new FlinkRunner.Options(parallelism, checkpointInterval, 4, restarts);
        if (parallelism.size() != 1 && parallelism.size() != stages) {
            throw new IllegalArgumentException("option '--parallelism': give one number or one per stage (" + stages + "), got " + parallelism);
        }
        Path quarantinedFile = out.resolveSibling(out.getFileName() + ".quarantined.xyz");
        FlinkRunner.Result r;
        Outcomes outcomes = new Outcomes();
        long written;
        long bad;
        // OUT and OUT.quarantined.xyz, checked and locked before the job, committed together after the
        // join; the job's parts in a hidden folder of the run's own (owner-only), gone however it ends
        try (OutputSet outputs = OutputSet.begin(out, false, List.of(quarantinedFile));
             PendingOutput scratch = PendingOutput.scratch(out.resolveSibling(out.getFileName() + ".parts"))) {
            Path parts = scratch.path();
            var env = FlinkRunner.localEnvironment(options.slots(stages), options);
            r = FlinkRunner.run(env, spec, systems, parts, options, "penstock simulate");
            written = join(r.parts(), out, inputOrder ? positions(systems) : null, outcomes);
            bad = join(FlinkRunner.parts(parts.resolve("quarantined")), quarantinedFile, inputOrder ? positions(systems) : null, null);
            if (bad == 0) {
                OutputSet.remove(quarantinedFile);
            }
            outputs.commit();
        }
        double wall = r.wall().toNanos() / 1e9;
        long atomSteps = 0;
        o.printf(Locale.ROOT, "%-10s %10s %12s %14s%n", "stage", "steps", "atom-steps", "most held");
        for (int i = 0; i < stages; i++) {
            atomSteps += r.sizeSteps(i, 1);
            o.printf(Locale.ROOT, "%-10s %10d %12.3g %14d%n", "stage " + i, r.steps(i), (double) r.sizeSteps(i, 1), r.holdingMax(i));
        }
        o.printf(Locale.ROOT, "%,d of %,d systems finished on Flink (local MiniCluster, parallelism %s, checkpoint every %d ms) in "
                + "%.2f s (%,d quarantined); %.3g atom-steps/s; written to %s%n", written, systems.size(), parallelism.toString(),
                checkpointInterval.toMillis(), wall, bad, atomSteps / wall, out);
        o.println(outcomes.line());
        return bad > 0 ? ExitCodes.QUARANTINED : outcomes.unconverged() > 0 ? ExitCodes.UNCONVERGED : ExitCodes.OK;
    }

    /// Each system's index in the input, by id.
    private static java.util.Map<Long, Integer> positions(List<AtomicSystem> systems) {
        java.util.Map<Long, Integer> position = new java.util.HashMap<>();
        for (int k = 0; k < systems.size(); k++) {
            position.put(systems.get(k).id(), k);
        }
        return position;
    }

    /// Joins `parts` into `target` byte for byte (each part is checked to read as extended XYZ
    /// first, never parsed and re-written: every field stays exactly as the stage wrote it), its
    /// frames in input order when `position` is given (system id → index in the input; the parts
    /// hold them in completion order), else in the parts' name order; returns the systems written, each counted in `outcomes` (when given).
    private static long join(List<Path> parts, Path target, java.util.Map<Long, Integer> position, Outcomes outcomes) throws IOException {
        if (parts.isEmpty()) {
            return 0;
        }
        List<Frame> frames = new java.util.ArrayList<>();
        for (Path p : parts) {
            List<AtomicSystem> read;
            try (BufferedReader in = Files.newBufferedReader(p)) {
                read = ExtXyz.read(in, p);
            }
            frames.addAll(Frame.of(p, read));
            if (outcomes != null) {
                read.forEach(outcomes::add);
            }
        }
        if (position != null) {
            frames.sort(java.util.Comparator.comparingInt(f -> position.getOrDefault(f.id(), Integer.MAX_VALUE)));
        }
        PendingOutput.write(target, tmp -> {
            try (OutputStream w = Files.newOutputStream(tmp); var files = new Frame.Parts()) {
                for (Frame f : frames) {
                    files.copy(f, w);
                }
            }
        });
        return frames.size();
    }

    /// One frame of a part file: where its bytes lie, and its system's id.
    private record Frame(Path part, long offset, long length, long id) {
        /// The frames of `part`, whose systems (in file order) are `systems`: each frame is its
        /// count line, its comment line and one line per atom.
        static List<Frame> of(Path part, List<AtomicSystem> systems) throws IOException {
            byte[] all = Files.readAllBytes(part);
            List<Frame> out = new java.util.ArrayList<>(systems.size());
            int at = 0;
            for (AtomicSystem s : systems) {
                while (at < all.length && (all[at] == '\n' || all[at] == '\r' || all[at] == ' ')) {
                    at++; // blank lines between frames belong to none
                }
                int start = at;
                for (int line = 0; line < s.atoms() + 2; line++) {
                    while (at < all.length && all[at] != '\n') {
                        at++;
                    }
                    at = Math.min(all.length, at + 1);
                }
                out.add(new Frame(part, start, at - start, s.id()));
            }
            return out;
        }

        /// The parts, opened once each, for copying frames out of them.
        static final class Parts implements AutoCloseable {
            private final java.util.Map<Path, java.nio.channels.FileChannel> open = new java.util.HashMap<>();

            void copy(Frame f, OutputStream w) throws IOException {
                java.nio.channels.FileChannel ch = open.get(f.part());
                if (ch == null) {
                    ch = java.nio.channels.FileChannel.open(f.part());
                    open.put(f.part(), ch);
                }
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) f.length());
                while (b.hasRemaining() && ch.read(b, f.offset() + b.position()) > 0) {
                    // read the frame's bytes
                }
                w.write(b.array(), 0, b.position());
            }

            @Override
            public void close() throws IOException {
                for (java.nio.channels.FileChannel ch : open.values()) {
                    ch.close();
                }
            }
        }
    }
}
