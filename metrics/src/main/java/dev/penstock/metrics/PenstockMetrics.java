package dev.penstock.metrics;

import dev.penstock.quantum.RowSink;
import dev.penstock.stage.Event;
import dev.penstock.stage.Hook;
import dev.penstock.stage.Pipeline;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import dev.penstock.memory.StagingPool;
import dev.penstock.observe.StallReport;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/// Penstock's runs as Micrometer meters, for long runs watched by Prometheus, Grafana or any
/// registry Micrometer feeds:
///
/// ```
///   stage pipeline (pipeline(registry, run) as a Hook):
///     penstock.stage.steps        counter  {run, stage}   batch steps taken
///     penstock.stage.exited       counter  {run, stage}   samples that finished the stage
///     penstock.stage.quarantined  counter  {run, stage}   samples taken out with a diagnosis
///     penstock.stage.graduated    counter  {run, stage}   sub-stages finished inside a fused stage
///     penstock.stage.held         gauge    {run, stage}   samples in the stage's batch at its last step
///     penstock.stage.step.interval timer   {run, stage}   time between two steps (rate and stalls)
///   loader (loader(registry, run, report) reads the current epoch's StallReport at each scrape):
///     penstock.loader.batches         gauge  {run}  batches delivered in the epoch
///     penstock.loader.wait            time gauge {run}  the consumer's time waiting for batches
///     penstock.loader.load.busy       time gauge {run}  I/O threads' time loading samples
///     penstock.loader.prep            time gauge {run}  preparation (collate, transforms) time
///     penstock.loader.wait.fraction   gauge  {run}  share of the epoch's wall time spent waiting
///   staging pools (staging(registry, run): every pool alive in the JVM, summed at each scrape):
///     penstock.staging.buffers        gauge  {run}  buffers of the live pools
///     penstock.staging.leased         gauge  {run}  of them leased out now (pool use)
///     penstock.staging.wait           time gauge {run}  time takers waited for a free buffer
///   encode (encode(registry, run, sink) wraps the RowSink):
///     penstock.encode.rows        counter  {run}          states written
///     penstock.encode.chunks      counter  {run}          chunks handed to the writer
///     penstock.encode.write       timer    {run}          the sink's time per chunk
/// ```
///
/// The hook reads no sample (a device stage is not unpacked for it): steps, events, the times
/// between steps and the batch's count.
public final class PenstockMetrics {
    private PenstockMetrics() {
    }

    /// A hook that counts `pipeline`'s steps and events into `registry`, tagged `run` and each
    /// stage's name; add it with `pipeline.hook(…)`.
    public static <S> Hook<S> pipeline(MeterRegistry registry, String run, Pipeline<S> pipeline) {
        List<String> names = pipeline.stages().stream().map(dev.penstock.stage.Stage::name).toList();
        return new StageMeters<>(registry, run, names);
    }

    /// Gauges of a data loader's current epoch, read from `report` at each scrape (a supplier:
    /// a loader starts a new report each epoch, and a run may go through several loaders; NaN
    /// while it gives none), into `registry`, tagged `run`.
    public static void loader(MeterRegistry registry, String run, java.util.function.Supplier<StallReport> report) {
        java.util.function.ToDoubleFunction<java.util.function.Supplier<StallReport>> batches = r -> read(r, StallReport::count);
        // strong references: a gauge holds its object weakly, and the supplier is held by nothing else
        Gauge.builder("penstock.loader.batches", report, batches).description("batches delivered in the epoch").tag("run", run)
                .strongReference(true).register(registry);
        timeGauge(registry, run, report, "penstock.loader.wait", "the consumer's time waiting for batches", StallReport::totalWaitNs);
        timeGauge(registry, run, report, "penstock.loader.load.busy", "I/O threads' time loading samples", StallReport::totalLoadBusyNs);
        timeGauge(registry, run, report, "penstock.loader.prep", "preparation (collate, transforms) time", StallReport::totalPrepNs);
        Gauge.builder("penstock.loader.wait.fraction", report, r -> read(r, StallReport::exposedWaitFraction))
                .description("share of the epoch's wall time the consumer spent waiting").tag("run", run).strongReference(true).register(registry);
    }

    private static void timeGauge(MeterRegistry registry, String run, java.util.function.Supplier<StallReport> report, String name,
            String description, java.util.function.ToLongFunction<StallReport> ns) {
        TimeGauge.builder(name, report, TimeUnit.NANOSECONDS, r -> read(r, x -> (double) ns.applyAsLong(x))).description(description)
                .tag("run", run).strongReference(true).register(registry);
    }

    private static double read(java.util.function.Supplier<StallReport> report, java.util.function.ToDoubleFunction<StallReport> f) {
        StallReport r = report.get();
        return r == null ? Double.NaN : f.applyAsDouble(r);
    }

    /// Gauges of staging-pool use over every pool alive in the JVM (an encode's read and transfer
    /// staging, a device stage's), summed at each scrape, into `registry`, tagged `run`.
    public static void staging(MeterRegistry registry, String run) {
        Gauge.builder("penstock.staging.buffers", () -> StagingPool.live().stream().mapToInt(StagingPool::size).sum())
                .description("buffers of the live staging pools").tag("run", run).strongReference(true).register(registry);
        Gauge.builder("penstock.staging.leased", () -> StagingPool.live().stream().mapToInt(StagingPool::leased).sum())
                .description("staging buffers leased out now").tag("run", run).strongReference(true).register(registry);
        TimeGauge.builder("penstock.staging.wait", () -> StagingPool.live().stream().mapToLong(StagingPool::waitNs).sum(),
                TimeUnit.NANOSECONDS).description("time takers waited for a free staging buffer").tag("run", run).register(registry);
    }

    /// `sink`, counting the rows and chunks it is given and timing it, into `registry`, tagged `run`.
    public static RowSink encode(MeterRegistry registry, String run, RowSink sink) {
        Counter rows = Counter.builder("penstock.encode.rows").description("states written").tag("run", run).register(registry);
        Counter chunks = Counter.builder("penstock.encode.chunks").description("chunks handed to the writer").tag("run", run).register(registry);
        Timer write = Timer.builder("penstock.encode.write").description("the sink's time per chunk").tag("run", run).register(registry);
        return states -> {
            long t0 = System.nanoTime();
            sink.write(states);
            write.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
            chunks.increment();
            rows.increment(states.rank() == 0 ? 1 : states.shape(0));
        };
    }

    /// The meters of one stage of a pipeline.
    private record Stage(Counter steps, Counter exited, Counter quarantined, Counter graduated, AtomicLong held, AtomicLong lastStep,
                         Timer interval) {
    }

    private static final class StageMeters<S> implements Hook<S> {
        private final MeterRegistry registry;
        private final String run;
        private final List<String> names;
        private final Map<Integer, Stage> stages = new ConcurrentHashMap<>();

        StageMeters(MeterRegistry registry, String run, List<String> names) {
            this.registry = registry;
            this.run = run;
            this.names = names;
        }

        private Stage stage(int index) {
            return stages.computeIfAbsent(index, k -> {
                String stage = k < names.size() ? names.get(k) : Integer.toString(k);
                AtomicLong held = new AtomicLong();
                Gauge.builder("penstock.stage.held", held, AtomicLong::get).description("samples in the stage's batch at its last step").tag("run", run)
                        .tag("stage", stage).register(registry);
                return new Stage(counter("penstock.stage.steps", "batch steps taken", stage),
                        counter("penstock.stage.exited", "samples that finished the stage", stage),
                        counter("penstock.stage.quarantined", "samples taken out with a diagnosis", stage),
                        counter("penstock.stage.graduated", "sub-stages finished inside a fused stage", stage), held, new AtomicLong(),
                        Timer.builder("penstock.stage.step.interval").description("time between two steps of the stage").tag("run", run)
                                .tag("stage", stage).register(registry));
            });
        }

        private Counter counter(String name, String description, String stage) {
            return Counter.builder(name).description(description).tag("run", run).tag("stage", stage).register(registry);
        }

        @Override
        public void onStep(int stage, String name, long step, List<S> samples) {
            Stage s = stage(stage);
            s.steps().increment();
            s.held().set(samples.size()); // the batch's count: no sample read
            long now = System.nanoTime();
            long last = s.lastStep().getAndSet(now);
            if (last != 0) {
                s.interval().record(now - last, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void onEvent(int stage, Event<S> event) {
            Stage s = stage(stage);
            switch (event.kind()) {
                case GRADUATED -> s.graduated().increment();
                case EXITED -> s.exited().increment();
                case QUARANTINED -> s.quarantined().increment();
            }
        }
    }
}
