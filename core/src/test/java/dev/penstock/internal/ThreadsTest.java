package dev.penstock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.testing.LogCapture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/// Bounded joins report threads that did not stop, and an interrupt of the joining thread (Flink
/// cancelling a failed task) does not cut the wait short into a false report.
class ThreadsTest {
    @Test
    void anInterruptedCloserStillWaitsItsBoundAndKeepsTheInterrupt() throws Exception {
        Thread worker = Thread.ofPlatform().start(() -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        });
        try (LogCapture log = LogCapture.of(Threads.class.getName())) {
            Thread.currentThread().interrupt();
            boolean ended = Threads.joinUntil(List.of(worker), System.nanoTime() + TimeUnit.SECONDS.toNanos(5), "test");
            assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
            assertThat(ended).isTrue();
            assertThat(log.messages()).as("no thread reported as stuck").isEmpty();
        }
    }

    @Test
    void aThreadStillRunningAtTheDeadlineIsReportedWithItsName() throws Exception {
        Thread stuck = Thread.ofPlatform().name("stuck-one").start(() -> {
            try {
                Thread.sleep(2000);
            } catch (InterruptedException e) {
                // done
            }
        });
        try (LogCapture log = LogCapture.of(Threads.class.getName())) {
            assertThat(Threads.joinUntil(List.of(stuck), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), "test")).isFalse();
            assertThat(log.messages()).anySatisfy(m -> assertThat(m).contains("test: thread stuck-one did not stop"));
        }
        stuck.interrupt();
        stuck.join();
    }
}
