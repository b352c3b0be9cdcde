package dev.penstock.benchmarks;

import dev.penstock.pump.Pump;
import dev.penstock.pump.PumpConfig;
import java.util.PrimitiveIterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/// The `pump` workload: handoff cost per item through the `Pump` with zero-latency loads (one
/// I/O thread completes, the benchmark thread consumes), against an `ArrayBlockingQueue` fed by
/// one producer thread, in the same run. Allocation per item comes from `-prof gc`.
///
/// Run: `./penstock bench pump` (or `java -cp … org.openjdk.jmh.Main PumpBenchmark -prof gc`).
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Xmx1g"})
public class PumpBenchmark {
    static final Object ITEM = new Object();

    /// An endless key source that allocates nothing.
    static final class Counter implements PrimitiveIterator.OfLong {
        private long next;

        @Override
        public boolean hasNext() {
            return true;
        }

        @Override
        public long nextLong() {
            return next++;
        }
    }

    /// A pump whose loads return at once.
    @State(Scope.Thread)
    public static class PumpState {
        @Param({"256"})
        int depth;
        Pump<Object> pump;

        /// Starts the state for one trial.
        @Setup(Level.Trial)
        public void start() {
            // The thread running @Setup is the benchmark thread: it becomes the pump's consumer.
            pump = Pump.<Object>builder(k -> ITEM).config(PumpConfig.of(depth, 1).withName("jmh")).source(new Counter()).start();
        }

        /// Stops the state after the trial.
        @TearDown(Level.Trial)
        public void stop() {
            pump.close();
        }
    }

    /// An `ArrayBlockingQueue` of the same capacity with one producer thread.
    @State(Scope.Thread)
    public static class QueueState {
        @Param({"256"})
        int depth;
        ArrayBlockingQueue<Object> queue;
        Thread producer;

        /// Starts the state for one trial.
        @Setup(Level.Trial)
        public void start() {
            queue = new ArrayBlockingQueue<>(depth);
            producer = Thread.ofPlatform().daemon().name("jmh-abq-producer").start(() -> {
                try {
                    while (true) {
                        queue.put(ITEM);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        /// Stops the producer after the trial.
        @TearDown(Level.Trial)
        public void stop() throws InterruptedException {
            producer.interrupt();
            producer.join(1000);
        }
    }

    /// One item through the pump.
    @Benchmark
    public Object pump(PumpState s) {
        return s.pump.next();
    }

    /// One item through the queue.
    @Benchmark
    public Object arrayBlockingQueue(QueueState s) throws InterruptedException {
        return s.queue.take();
    }
}
