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
                   int kernelThreads, double maxStep)
            throws Exception {
        JobSpec<AtomicSystem> spec = AtomsJob.spec(pipeline, potential, seed, room, kernelThreads, maxStep);
        int stages = spec.stages().size();
        FlinkRunner.Options options = new FlinkRunner.Options(parallelism, checkpointInterval, 4, restarts);
        if (parallelism.size() != 1 && parallelism.size() != stages) {
            throw new IllegalArgumentException("option '--parallelism': give one number or one per stage (" + stages + "), got " + parallelism);
        }
        Path quarantinedFile = out.resolveSibling(out.getFileName() + ".quarantined.xyz");
        FlinkRunner.Result r;
        long written;
        long bad;
        // OUT and OUT.quarantined.xyz, checked and locked before the job, committed together after the
        // join; the job's parts in a hidden folder of the run's own (owner-only), gone however it ends
        try (dev.penstock.io.OutputSet outputs = dev.penstock.io.OutputSet.begin(out, false, List.of(quarantinedFile));
             PendingOutput scratch = PendingOutput.scratch(out.resolveSibling(out.getFileName() + ".parts"))) {
            Path parts = scratch.path();
            var env = FlinkRunner.localEnvironment(options.slots(stages), options);
            r = FlinkRunner.run(env, spec, systems, parts, options, "penstock simulate");
            written = join(r.parts(), out);
            bad = join(FlinkRunner.parts(parts.resolve("quarantined")), quarantinedFile);
            if (bad == 0) {
                dev.penstock.io.OutputSet.remove(quarantinedFile);
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
}
