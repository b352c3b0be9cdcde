package dev.penstock.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.RowSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
}
