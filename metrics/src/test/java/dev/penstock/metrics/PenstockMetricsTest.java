package dev.penstock.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.RowSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/// The encode binding counts what reaches the sink and passes every block on.
class PenstockMetricsTest {
    @Test
    void theEncodeSinkCountsRowsAndChunksAndTimesTheSink() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicLong passed = new AtomicLong();
        RowSink sink = PenstockMetrics.encode(registry, "t", states -> passed.addAndGet(states.shape(0)));
        try (HostArena arena = Memory.newSharedArena("metrics")) {
            sink.write(arena.allocate(DType.C128, 5, 4));
            sink.write(arena.allocate(DType.C128, 3, 4));
        }
        assertThat(passed.get()).isEqualTo(8);
        assertThat(registry.get("penstock.encode.rows").tag("run", "t").counter().count()).isEqualTo(8);
        assertThat(registry.get("penstock.encode.chunks").tag("run", "t").counter().count()).isEqualTo(2);
        assertThat(registry.get("penstock.encode.write").tag("run", "t").timer().count()).isEqualTo(2);
    }

    /// The loader's gauges follow the loader the supplier gives, epoch by epoch: NaN before any,
    /// then the batches delivered and the waits of a slow loader's epoch as they grow.
    @Test
    void theLoaderGaugesReadTheCurrentEpoch() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        java.util.concurrent.atomic.AtomicReference<dev.penstock.data.DataLoader<?, ?, ?>> current = new java.util.concurrent.atomic.AtomicReference<>();
        PenstockMetrics.loader(registry, "t", () -> current.get() == null ? null : current.get().stallReport());
        assertThat(registry.get("penstock.loader.batches").gauge().value()).isNaN();
        System.gc(); // the gauges must hold their supplier: nothing else does
        dev.penstock.data.Dataset<Long, Long> slow = new dev.penstock.data.Dataset<>() {
            @Override
            public long size() {
                return 12;
            }

            @Override
            public Long loadHost(long index, java.util.random.RandomGenerator rng) throws Exception {
                Thread.sleep(5); // one worker: the consumer waits
                return index;
            }

            @Override
            public Long consume(Long host, dev.penstock.data.PrepContext ctx) {
                return host;
            }
        };
        try (var loader = dev.penstock.data.DataLoader.builder(slow).batchSize(4).workers(1).prefetchDepth(1).build()) {
            current.set(loader);
            int seen = 0;
            for (var b : loader) {
                b.ready().await();
                seen++;
                if (seen == 2) {
                    assertThat(registry.get("penstock.loader.batches").gauge().value()).isEqualTo(2);
                }
            }
            assertThat(registry.get("penstock.loader.batches").gauge().value()).isEqualTo(3);
            double waitMs = registry.get("penstock.loader.wait").timeGauge().value(TimeUnit.MILLISECONDS);
            assertThat(waitMs).as("12 loads of 5 ms on one thread, waited for").isGreaterThan(20);
            assertThat(registry.get("penstock.loader.load.busy").timeGauge().value(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(55);
            assertThat(registry.get("penstock.loader.wait.fraction").gauge().value()).isBetween(0.2, 1.0);
            assertThat(loader.stallReport().toString()).startsWith("StallReport[3 batches in ").contains("consumer waited");
        }
    }

    /// Staging use over the live pools: a pool's buffers and leases count while it is open.
    @Test
    void theStagingGaugesSumTheLivePools() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PenstockMetrics.staging(registry, "t");
        double before = registry.get("penstock.staging.buffers").gauge().value();
        double leasedBefore = registry.get("penstock.staging.leased").gauge().value();
        System.gc();
        try (dev.penstock.memory.StagingPool pool = dev.penstock.memory.StagingPool.allocate("metered", 3, 4096)) {
            assertThat(registry.get("penstock.staging.buffers").gauge().value()).isEqualTo(before + 3);
            try (var lease = pool.tryAcquire()) {
                assertThat(registry.get("penstock.staging.leased").gauge().value()).isEqualTo(leasedBefore + 1);
            }
            assertThat(registry.get("penstock.staging.leased").gauge().value()).isEqualTo(leasedBefore);
        }
        assertThat(registry.get("penstock.staging.buffers").gauge().value()).isEqualTo(before);
        assertThat(registry.get("penstock.staging.wait").timeGauge().value(TimeUnit.NANOSECONDS)).isGreaterThanOrEqualTo(0);
    }
}
