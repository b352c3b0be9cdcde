package dev.penstock.flink;

import dev.penstock.atoms.io.ExtXyz;
import dev.penstock.atoms.system.AtomicSystem;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/// `penstock simulate` as a job for a standalone Flink cluster, from the job jar
/// (`flink/target/penstock-flink-*-job.jar`, which carries Penstock but not Flink):
///
/// ```
///   flink run -c dev.penstock.flink.SimulateJob penstock-flink-0.1.0-SNAPSHOT-job.jar \
///       --input systems.xyz --out /shared/results \
///       --pipeline "fire(fmax=0.05) + langevin(T=300, dt=1, steps=2000) | nve(dt=1, steps=1000)" \
///       --potential "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5)" [--parallelism 2 | 2,1] \
///       [--checkpoint-interval 1000] [--max-atoms 4096] [--max-systems 256] [--max-edges N] [--seed 0]
///       [--restart-attempts N] [--restart-delay MS] [--threads N] [--max-step Å]
/// ```
///
/// The client reads `--input` and ships the systems with the job; `--out` must be a folder every
/// task manager can write (results appear there as `part-*.xyz` per completed checkpoint).
/// Checkpoint storage and restart strategy come from the cluster's configuration, as usual;
/// `--restart-attempts` / `--restart-delay` make the job set its own fixed-delay restarts instead.
/// Every stage is a device stage (its batch packed on each task's own `CpuDevice`, kernels split
/// over `--threads`, 1 by default), as `simulate` runs them; `--max-step` quarantines a system with
/// an atom that moves more than that many Å in a step (default: no limit). `--device cpu` is
/// accepted and is the only device.
public final class SimulateJob {
    private static final Set<String> KEYS = Set.of("input", "out", "pipeline", "potential", "parallelism", "checkpoint-interval",
            "max-atoms", "max-systems", "max-edges", "seed", "restart-attempts", "restart-delay", "device", "threads", "max-step");

    private SimulateJob() {
    }

    /// Parses `--key value` pairs; unknown keys and missing values are errors naming the option.
    static Map<String, String> options(String[] args) {
        return JobArgs.parse(args, KEYS, List.of("input", "out", "pipeline", "potential"));
    }

    /// Builds the job from `args` on `env` (without running it); returns its stage names.
    static List<String> build(StreamExecutionEnvironment env, String[] args) throws Exception {
        Map<String, String> o = options(args);
        // every number first, each error naming its option, before the input is read
        long[] room = {JobArgs.number(o, "max-systems", 256), JobArgs.number(o, "max-atoms", 4096), JobArgs.number(o, "max-edges", Long.MAX_VALUE)};
        List<Integer> parallelism = new java.util.ArrayList<>();
        for (String p : o.getOrDefault("parallelism", "1").split(",")) {
            parallelism.add(JobArgs.integer(Map.of("parallelism", p), "parallelism", 1));
        }
        FlinkRunner.Options options = new FlinkRunner.Options(parallelism, Duration.ofMillis(JobArgs.number(o, "checkpoint-interval", 1000)), 4,
                restarts(o));
        long seed = JobArgs.number(o, "seed", 0);
        int threads = JobArgs.integer(o, "threads", 1);
        double maxStep = JobArgs.decimal(o, "max-step", Double.POSITIVE_INFINITY);
        String device = o.getOrDefault("device", "cpu");
        if (!device.equals("cpu")) {
            throw new IllegalArgumentException("option '--device': the job runs its stages on cpu only (each task its own CpuDevice), got '"
                    + device + "'");
        }
        Path input = Path.of(o.get("input"));
        List<AtomicSystem> systems;
        try (BufferedReader in = Files.newBufferedReader(input)) {
            systems = ExtXyz.read(in, input);
        }
        JobSpec<AtomicSystem> spec = AtomsJob.spec(o.get("pipeline"), o.get("potential"), seed, room, threads, maxStep);
        return FlinkRunner.build(env, spec, systems, Path.of(o.get("out")), options);
    }

    /// The job's own restart strategy if `--restart-attempts` or `--restart-delay` (ms) is given
    /// (the other then defaults to 3 attempts / 200 ms); else none, so the cluster's holds.
    static java.util.Optional<FlinkRunner.Restarts> restarts(Map<String, String> o) {
        if (!o.containsKey("restart-attempts") && !o.containsKey("restart-delay")) {
            return java.util.Optional.empty();
        }
        int attempts = JobArgs.integer(o, "restart-attempts", FlinkRunner.Restarts.EMBEDDED.attempts());
        Duration delay = Duration.ofMillis(JobArgs.number(o, "restart-delay", FlinkRunner.Restarts.EMBEDDED.delay().toMillis()));
        return java.util.Optional.of(new FlinkRunner.Restarts(attempts, delay));
    }

    /// Entry point for `flink run`.
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        build(env, args);
        env.execute("penstock simulate");
    }
}
