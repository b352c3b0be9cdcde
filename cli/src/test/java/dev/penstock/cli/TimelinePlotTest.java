package dev.penstock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.observe.Timeline.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/// What the timeline picture states in words: busy time per lane (waits excluded), the
/// bottleneck, the blank start, a first kernel that was a warm-up, and only the kinds that occur.
class TimelinePlotTest {
    @Test
    void theReadingNamesTheBottleneckTheStartUpTheWarmUpAndOnlyTheKindsThatOccur() {
        List<Span> spans = List.of(
                new Span("I/O thread 1", "read", 100, 200),
                new Span("host", "wait for staging", 200, 900),
                new Span("compute stream", "kernel", 210, 810), // the first: 600 ns against a median of 100
                new Span("compute stream", "kernel", 820, 920),
                new Span("compute stream", "kernel", 930, 1030),
                new Span("compute stream", "kernel", 1040, 1140),
                new Span("writer", "write", 900, 1000));
        TimelinePlot.Reading r = TimelinePlot.read(spans);
        assertThat(r.busyNs()).containsEntry("compute stream", 900L).containsEntry("host", 0L).containsEntry("I/O thread 1", 100L);
        assertThat(r.bottleneck()).isEqualTo("compute stream");
        assertThat(r.startUpNs()).isEqualTo(100);
        assertThat(r.warmUp()).isEqualTo(spans.get(2));
        assertThat(r.kinds()).containsExactly("read", "wait for staging", "kernel", "write");
        TimelinePlot.Reading even = TimelinePlot.read(List.of(new Span("compute stream", "kernel", 0, 100), new Span("compute stream", "kernel",
                100, 200), new Span("compute stream", "kernel", 200, 300)));
        assertThat(even.warmUp()).as("no kernel stands out").isNull();
        assertThat(even.startUpNs()).isZero();
    }

    @Test
    void aSimulateTimelineHasItsStagesInOrderAndItsWaitsApartFromItsSteps() {
        List<Span> spans = List.of(
                new Span("stage 1: nve", "wait for input", 0, 500),
                new Span("stage 0: fire+langevin", "step", 10, 400),
                new Span("stage 0: fire+langevin", "wait for room", 400, 450),
                new Span("stage 0: fire+langevin", "step", 450, 900),
                new Span("stage 1: nve", "step", 500, 700));
        TimelinePlot.Reading r = TimelinePlot.read(spans);
        assertThat(r.busyNs()).containsExactly(java.util.Map.entry("stage 0: fire+langevin", 840L), java.util.Map.entry("stage 1: nve", 200L));
        assertThat(r.bottleneck()).isEqualTo("stage 0: fire+langevin");
        assertThat(r.kinds()).containsExactly("step", "wait for input", "wait for room");
        assertThat(r.warmUp()).isNull();
    }
}
