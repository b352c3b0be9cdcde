package dev.penstock.flink;

import dev.penstock.stage.Capacity;
import dev.penstock.stage.Stage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/// Runs a stage pipeline as a Flink DataStream job:
///
/// ```
///   SampleSource (FLIP-27, id ranges) ─rebalance─▶ stage 0 ×P ─rebalance─▶ stage 1 ×P … ─▶ ResultFileSink (exactly once)
///        slot-sharing group "stage-0"               "stage-1"              …     └─ quarantine side outputs ─▶ quarantined/
/// ```
///
/// Each chained stage is one operator (its fused sub-stages inside it) with parallelism P (the
/// devices for it) in its own slot-sharing group, so stages land in different slots; between
/// operators travel encoded samples, and Flink's credit-based flow control is the backpressure.
/// The end of the bounded input is the done signal. With checkpointing on, the operators'
/// batches and pending samples are checkpointed and the result files appear per completed
/// checkpoint; after a failure the job resumes from the last checkpoint, restarted as the
/// cluster's restart strategy says unless `Options.restarts` sets one.
///
/// The embedded default is a local MiniCluster (`localEnvironment`); `SimulateJob` is the same
/// job as a `main` for `flink run` on a standalone cluster.
public final class FlinkRunner {
    private FlinkRunner() {
    }

    /// Restarts after a failure: `attempts` restarts (0: none, the first failure fails the job),
    /// `delay` apart (fixed delay).
    ///
    /// @param attempts restarts allowed (≥ 0)
    /// @param delay    wait before each restart (≥ 0)
    public record Restarts(int attempts, Duration delay) {
        /// Validates the values, naming the options.
        public Restarts {
            if (attempts < 0) {
                throw new IllegalArgumentException("option 'restart-attempts' must be at least 0, got " + attempts);
            }
            if (delay == null || delay.isNegative()) {
                throw new IllegalArgumentException("option 'restart-delay' must be at least 0, got " + delay);
            }
        }

        /// What the embedded MiniCluster does unless told otherwise: 3 restarts, 200 ms apart. A
        /// MiniCluster's one TaskManager comes back at once, so a short delay suffices.
        public static final Restarts EMBEDDED = new Restarts(3, Duration.ofMillis(200));
    }

    /// How the job runs.
    ///
    /// @param parallelism        instances of each stage (devices per stage): one number for every
    ///                           stage, or one per stage in chain order
    /// @param checkpointInterval time between checkpoints (zero: none; results then appear at the end)
    /// @param pendingLimit       samples a stage operator holds beyond its batch before it stops reading
    /// @param restarts           the restart strategy the job sets; empty: the cluster's own
    ///                           (`restart-strategy.*` in its configuration; for the embedded
    ///                           MiniCluster, `Restarts.EMBEDDED`)
    public record Options(List<Integer> parallelism, Duration checkpointInterval, int pendingLimit, java.util.Optional<Restarts> restarts) {
        /// Validates the options.
        public Options {
            parallelism = List.copyOf(parallelism);
            if (parallelism.isEmpty() || parallelism.stream().anyMatch(p -> p < 1) || pendingLimit < 1 || checkpointInterval.isNegative()) {
                throw new IllegalArgumentException("flink runner: 'parallelism' (each) and 'pendingLimit' must be ≥ 1, "
                        + "'checkpointInterval' ≥ 0, got " + parallelism + ", " + pendingLimit + ", " + checkpointInterval);
            }
            java.util.Objects.requireNonNull(restarts, "restarts (empty: the cluster's)");
        }

        /// The same parallelism for every stage, restarts as the cluster says.
        public Options(int parallelism, Duration checkpointInterval, int pendingLimit) {
            this(List.of(parallelism), checkpointInterval, pendingLimit, java.util.Optional.empty());
        }

        /// These options with the job setting its own restart strategy.
        public Options withRestarts(Restarts r) {
            return new Options(parallelism, checkpointInterval, pendingLimit, java.util.Optional.of(r));
        }

        /// Instances of stage `i`.
        public int parallelism(int i) {
            return parallelism.size() == 1 ? parallelism.getFirst() : parallelism.get(i);
        }

        /// Slots a job of `stages` stages needs (one slot-sharing group per stage).
        public int slots(int stages) {
            int sum = 0;
            for (int i = 0; i < stages; i++) {
                sum += parallelism(i);
            }
            return sum;
        }

        /// P instances per stage, a checkpoint every `interval`, restarts as the cluster says.
        public static Options of(int parallelism, Duration interval) {
            return new Options(parallelism, interval, 4);
        }
    }

    /// Slots a job of `stages` stages at `parallelism` needs (one slot-sharing group per stage).
    public static int slotsNeeded(int stages, int parallelism) {
        return stages * parallelism;
    }



    /// A local MiniCluster environment with `slots` task slots. Its own configuration (the
    /// "cluster's") restarts a failed job as `Restarts.EMBEDDED` says; options that set restarts
    /// override that in the job, as on any cluster.
    public static StreamExecutionEnvironment localEnvironment(int slots, Options o) {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        loopbackOnly(conf);
        String work = FlinkWorkDir.path().toString(); // its working files: ours, private, removed
        conf.set(org.apache.flink.configuration.CoreOptions.TMP_DIRS, work);
        conf.set(org.apache.flink.configuration.WebOptions.TMP_DIR, work);
        conf.set(org.apache.flink.configuration.WebOptions.UPLOAD_DIR, work);
        restarts(conf, Restarts.EMBEDDED);
        return StreamExecutionEnvironment.createLocalEnvironment(Math.max(1, o.parallelism().stream().mapToInt(Integer::intValue).max()
                .orElse(1)), conf);
    }

    /// Binds everything the embedded MiniCluster opens — REST endpoint, RPC, blob server, the
    /// shuffle's data port — to 127.0.0.1: a command-line run opens nothing to the network (Flink's
    /// defaults bind the REST API, which can cancel jobs, to every interface). A job on a real
    /// cluster (`SimulateJob`) keeps the cluster's own settings.
    static void loopbackOnly(Configuration conf) {
        String loopback = "127.0.0.1";
        conf.set(RestOptions.BIND_ADDRESS, loopback);
        conf.set(RestOptions.ADDRESS, loopback);
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(JobManagerOptions.BIND_HOST, loopback);
        conf.set(JobManagerOptions.ADDRESS, loopback);
        conf.set(TaskManagerOptions.BIND_HOST, loopback);
        conf.set(TaskManagerOptions.HOST, loopback);
    }

    /// The job's own settings: the restart strategy only if the options set one (else the
    /// cluster's stands), the checkpoint interval if any. Checkpoint storage is never set here:
    /// the cluster's `state.checkpoints.dir` (or the JobManager's memory) holds them.
    static void configure(Configuration conf, Options o) {
        o.restarts().ifPresent(r -> restarts(conf, r));
        if (!o.checkpointInterval().isZero()) {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, o.checkpointInterval());
        }
    }

    private static void restarts(Configuration conf, Restarts r) {
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, r.attempts() == 0 ? "none" : "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, r.attempts());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, r.delay());
    }

    /// Checks `samples` against every stage's room (as `Pipeline.check` does), encodes them and
    /// adds the job to `env`: source, one operator per stage, result and quarantine sinks under
    /// `out`. Returns the stage names.
    public static <S> List<String> build(StreamExecutionEnvironment env, JobSpec<S> spec, List<S> samples, Path out, Options o) {
        Configuration conf = new Configuration();
        configure(conf, o);
        env.configure(conf);
        if (!o.checkpointInterval().isZero()) {
            env.enableCheckpointing(o.checkpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
            // a backpressured stage stops reading its input (that is the backpressure), so an
            // aligned barrier would wait behind every record in flight to it; unaligned barriers
            // overtake them and the records in flight are stored with the checkpoint
            env.getCheckpointConfig().enableUnalignedCheckpoints();
        }
        if (o.parallelism().size() != 1 && o.parallelism().size() != spec.stages().size()) {
            throw new IllegalArgumentException("option 'parallelism': give one number or one per stage (" + spec.stages().size()
                    + "), got " + o.parallelism());
        }
        List<String> names = new ArrayList<>();
        List<Stage<S>> probes = new ArrayList<>();
        for (JobSpec.StageFactory<S> f : spec.stages()) {
            Stage<S> probe = f.create(); // fails here, on the client, if the stage cannot be made
            for (var m : probe.methods()) {
                if (!m.terminates()) {
                    throw new IllegalArgumentException("stage " + names.size() + " ('" + probe.name() + "'): method '" + m.name()
                            + "' has no step budget or convergence rule, so its samples might never finish");
                }
            }
            names.add(probe.name());
            probes.add(probe);
        }
        List<byte[]> records = new ArrayList<>(samples.size());
        Set<Long> ids = new HashSet<>();
        for (S s : samples) {
            long id = spec.sizer().id(s);
            if (!ids.add(id)) {
                throw new IllegalArgumentException("two samples have the id " + id + "; ids must be unique");
            }
            for (int i = 0; i < names.size(); i++) {
                String why = probes.get(i).evaluator().refusal(s);
                if (why != null) {
                    throw new IllegalArgumentException("stage " + i + " ('" + names.get(i) + "'): " + why);
                }
                Capacity c = spec.capacity(i);
                if (!c.admits(spec.sizer(), s)) {
                    throw new IllegalArgumentException("sample " + id + " is larger than stage " + i + " can ever hold ("
                            + c.describe(spec.sizer().dimensions()) + ")");
                }
            }
            records.add(Bytes.encode(spec.codec(), s));
        }
        DataStream<byte[]> stream = env.fromSource(new SampleSource(records), WatermarkStrategy.noWatermarks(), "samples")
                .setParallelism(Math.min(o.parallelism(0), records.size())).slotSharingGroup("stage-0");
        DataStream<byte[]> quarantined = null;
        for (int i = 0; i < names.size(); i++) {
            SingleOutputStreamOperator<byte[]> op = stream.rebalance()
                    .transform("stage " + i + ": " + names.get(i), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                            new StageOperatorFactory<>(spec, i, o.pendingLimit()))
                    .setParallelism(o.parallelism(i)).slotSharingGroup("stage-" + i).uid("penstock-stage-" + i);
            DataStream<byte[]> q = op.getSideOutput(StageOperator.QUARANTINE);
            quarantined = quarantined == null ? q : quarantined.union(q);
            stream = op;
        }
        String last = "stage-" + (names.size() - 1);
        stream.sinkTo(new ResultFileSink<>(out, "xyz", spec)).setParallelism(o.parallelism(names.size() - 1)).slotSharingGroup(last)
                .name("results").uid("penstock-results");
        quarantined.sinkTo(new ResultFileSink<>(out.resolve("quarantined"), "xyz", spec)).setParallelism(1).slotSharingGroup(last)
                .name("quarantined").uid("penstock-quarantined");
        return names;
    }

    /// What a run did.
    ///
    /// @param wall    wall time from submission to the end
    /// @param result  Flink's result (accumulators: steps and the most samples held, per stage)
    /// @param parts   the committed result files
    public record Result(Duration wall, JobExecutionResult result, List<Path> parts) {
        /// Steps of stage `i`, all instances together.
        public long steps(int i) {
            Long v = result.getAccumulatorResult(StageOperator.stepsAccumulator(i));
            return v == null ? 0 : v;
        }

        /// Σ over the steps of stage `i` of its batches' size in dimension `d` (atoms: atom-steps).
        public long sizeSteps(int i, int d) {
            Long v = result.getAccumulatorResult(StageOperator.sizeStepsAccumulator(i, d));
            return v == null ? 0 : v;
        }

        /// Instances of stage `i` that started from a checkpoint (in the attempt that finished).
        public int restored(int i) {
            Integer v = result.getAccumulatorResult(StageOperator.restoredAccumulator(i));
            return v == null ? 0 : v;
        }

        /// The `q`-quantile (0…1) of stage `i`'s snapshot delays in ms — from a checkpoint's
        /// trigger to an instance's snapshot, every instance and checkpoint — or -1 if none.
        public long snapshotDelayMs(int i, double q) {
            return quantile(StageOperator.snapshotDelayAccumulator(i), q);
        }

        /// The `q`-quantile (0…1) of checkpoint durations in ms as stage `i`'s instances saw them
        /// — from a checkpoint's trigger to the notice that it completed — or -1 if none completed.
        public long checkpointMs(int i, double q) {
            return quantile(StageOperator.checkpointDurationAccumulator(i), q);
        }

        private long quantile(String histogram, double q) {
            java.util.TreeMap<Integer, Integer> h = result.getAccumulatorResult(histogram);
            if (h == null || h.isEmpty()) {
                return -1;
            }
            long total = h.values().stream().mapToLong(Integer::longValue).sum();
            long rank = Math.max(1, (long) Math.ceil(q * total));
            long seen = 0;
            for (var e : h.entrySet()) {
                seen += e.getValue();
                if (seen >= rank) {
                    return e.getKey();
                }
            }
            return h.lastKey();
        }

        /// Checkpoints stage `i`'s instances were told completed (`completed`) or aborted, summed
        /// over the instances.
        public int checkpoints(int i, boolean completed) {
            Integer v = result.getAccumulatorResult(StageOperator.checkpointsAccumulator(i, completed));
            return v == null ? 0 : v;
        }

        /// The most samples one instance of stage `i` held at once (batch and pending).
        public int holdingMax(int i) {
            Integer v = result.getAccumulatorResult(StageOperator.holdingAccumulator(i));
            return v == null ? 0 : v;
        }
    }

    /// Builds the job on `env`, runs it to the end and lists the committed result files.
    public static <S> Result run(StreamExecutionEnvironment env, JobSpec<S> spec, List<S> samples, Path out, Options o, String jobName)
            throws Exception {
        build(env, spec, samples, out, o);
        long t0 = System.nanoTime();
        JobClient client = env.executeAsync(jobName);
        JobExecutionResult r = client.getJobExecutionResult().get();
        return new Result(Duration.ofNanos(System.nanoTime() - t0), r, parts(out));
    }

    /// The committed result files in `dir` (`part-*`), in name order.
    public static List<Path> parts(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList();
        }
    }
}
