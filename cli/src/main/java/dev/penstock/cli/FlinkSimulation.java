package dev.penstock.cli;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import dev.penstock.flink.AtomsJob;
import dev.penstock.flink.FlinkRunner;
import dev.penstock.flink.JobSpec;
import dev.penstock.io.PendingOutput;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/// `simulate --runner flink`: the same pipeline as a Flink job on the embedded MiniCluster.
/// The job's exactly-once sink commits part files into `OUT.parts/`; once the job has finished
/// they are joined into OUT (and the folder removed).
final class FlinkSimulation {
    private FlinkSimulation() {
    }

    /// Every stage a device stage on each task's own `CpuDevice` (`AtomsJob.spec`), its kernels
    /// split over `kernelThreads`, quarantining a system flung more than `maxStep` Å in a step.
    static int run(PrintStream o, List<AtomicSystem> systems, String pipeline, String potential, long seed, long[] room,
                   List<Integer> parallelism, Duration checkpointInterval, java.util.Optional<FlinkRunner.Restarts> restarts, Path out,
                   int kernelThreads, double maxStep)
            throws Exception {
        JobSpec<AtomicSystem> spec = AtomsJob.spec(pipeline, potential, seed, room, kernelThreads, maxStep);
        int stages = spec.stages().size();
        FlinkRunner.Options options = new FlinkRunner.Options(parallelism, checkpointInterval, 4, restarts);
        Path parts = out.resolveSibling(out.getFileName() + ".parts");
        deleteTree(parts);
        if (parallelism.size() != 1 && parallelism.size() != stages) {
            throw new IllegalArgumentException("option '--parallelism': give one number or one per stage (" + stages + "), got " + parallelism);
        }
        // the job's uncommitted and committed parts are the run's own files until joined into OUT
        if (parts.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectories(parts, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        var env = FlinkRunner.localEnvironment(options.slots(stages), options);
        FlinkRunner.Result r = FlinkRunner.run(env, spec, systems, parts, options, "penstock simulate");
        long written = join(r.parts(), out);
        List<Path> quarantined = FlinkRunner.parts(parts.resolve("quarantined"));
        long bad = join(quarantined, out.resolveSibling(out.getFileName() + ".quarantined.xyz"));
        if (bad == 0) {
            deleteTree(parts);
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
        return bad == 0 ? 0 : 4;
    }

    /// Joins `parts` into `target` in name order, byte for byte (each part is checked to read as
    /// extended XYZ first, never parsed and re-written: every field stays exactly as the
    /// stage wrote it); returns the systems written.
    private static long join(List<Path> parts, Path target) throws IOException {
        if (parts.isEmpty()) {
            return 0;
        }
        long[] n = {0};
        PendingOutput.write(target, tmp -> {
            try (OutputStream w = Files.newOutputStream(tmp)) {
                for (Path p : parts) {
                    try (BufferedReader in = Files.newBufferedReader(p)) {
                        n[0] += ExtXyz.read(in, p).size();
                    }
                    Files.copy(p, w);
                }
            }
        });
        return n[0];
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = new ArrayList<>(s.toList());
        }
        all.sort(Comparator.reverseOrder());
        for (Path p : all) {
            Files.delete(p);
        }
    }
}
