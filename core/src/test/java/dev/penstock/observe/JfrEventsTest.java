package dev.penstock.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.data.Batch;
import dev.penstock.data.DataLoader;
import dev.penstock.data.Dataset;
import dev.penstock.data.PrepContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.random.RandomGenerator;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

class JfrEventsTest {

    @Test
    void pumpWaitsAndBatchPreparationAreRecorded() throws Exception {
        Dataset<Long, Long> slow = new Dataset<>() {
            @Override
            public long size() {
                return 12;
            }

            @Override
            public Long loadHost(long index, RandomGenerator rng) throws Exception {
                Thread.sleep(3); // one worker, depth 1: the consumer waits for every sample
                return index;
            }

            @Override
            public Long consume(Long host, PrepContext ctx) {
                return host;
            }
        };
        Path file = Files.createTempFile("penstock", ".jfr");
        try (Recording rec = new Recording()) {
            rec.enable(PumpWaitEvent.class).withThreshold(java.time.Duration.ZERO);
            rec.enable(PrepEvent.class).withThreshold(java.time.Duration.ZERO);
            rec.start();
            try (var loader = DataLoader.builder(slow).batchSize(4).workers(1).prefetchDepth(1).build()) {
                for (Batch<List<Long>> b : loader) {
                    b.ready().await();
                }
            }
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        List<RecordedEvent> waits = events.stream().filter(e -> e.getEventType().getName().equals("dev.penstock.PumpWait")).toList();
        List<RecordedEvent> preps = events.stream().filter(e -> e.getEventType().getName().equals("dev.penstock.Prep")).toList();
        assertThat(waits).isNotEmpty();
        assertThat(waits).allSatisfy(e -> assertThat(e.getDuration().toNanos()).isPositive());
        assertThat(waits).hasSizeGreaterThanOrEqualTo(6); // one worker, depth 1: most samples are waited for
        assertThat(waits).allSatisfy(e -> assertThat(e.getLong("key")).isBetween(0L, 11L));
        assertThat(preps).extracting(e -> e.getLong("batch")).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThat(preps).allSatisfy(e -> assertThat(e.getInt("samples")).isEqualTo(4));
    }
}
