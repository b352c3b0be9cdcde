package dev.penstock.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.ThreadCensus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// The contract every `Device` passes: in-order streams, cross-stream ordering by events
/// without blocking the host, host `await`, failures raised at the next synchronisation point
/// naming the operation, and a bounded `close()`.
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class DeviceContractTest {
    protected Device device;

    /// A fresh device for each test.
    protected abstract Device newDevice();

    /// Prefix of the names of the threads the device starts, if any ("" if it starts none).
    protected abstract String threadPrefix();

    @BeforeEach
    void open() {
        device = newDevice();
    }

    @AfterEach
    void closeDevice() {
        if (device != null) { // null when a subclass skipped the test (no such device here)
            device.close();
        }
    }

    @Test
    void workOnOneStreamRunsInEnqueueOrder() {
        Stream s = device.newStream("a");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 200; i++) {
            int v = i;
            s.launch("op " + i, () -> {
                if (v % 17 == 0) {
                    Thread.sleep(1);
                }
                seen.add(v);
            });
        }
        s.synchronize();
        assertThat(seen).hasSize(200).isSorted();
    }

    @Test
    void waitForOrdersStreamsWithoutBlockingTheHost() throws Exception {
        Stream producer = device.newStream("producer");
        Stream consumer = device.newStream("consumer");
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean produced = new AtomicBoolean();
        AtomicBoolean sawProduced = new AtomicBoolean();
        producer.launch("blocked producer", () -> {
            release.await();
            produced.set(true);
        });
        Event e = producer.record();
        long t0 = System.nanoTime();
        consumer.waitFor(e);
        consumer.launch("reader", () -> sawProduced.set(produced.get()));
        Event done = consumer.record();
        long enqueueMs = (System.nanoTime() - t0) / 1_000_000;
        // The host got here while the producer is still blocked: waitFor did not block it.
        assertThat(e.isDone()).isFalse();
        assertThat(done.isDone()).isFalse();
        assertThat(enqueueMs).as("waitFor must return without waiting for the event").isLessThan(5_000);
        release.countDown();
        done.await();
        assertThat(sawProduced).isTrue();
    }

    @Test
    void hostAwaitBlocksUntilTheEventCompletes() throws Exception {
        Stream s = device.newStream("a");
        CountDownLatch gate = new CountDownLatch(1);
        s.launch("gated", gate::await);
        Event e = s.record();
        assertThat(e.await(Duration.ofMillis(50))).isFalse();
        gate.countDown();
        assertThat(e.await(Duration.ofSeconds(10))).isTrue();
        assertThat(e.isDone()).isTrue();
    }

    @Test
    void eventsTimeTheWorkBetweenThemOnTheHostClock() {
        Stream s = device.newStream("timed");
        Stream other = device.newStream("other");
        long before = System.nanoTime();
        Event start = s.record();
        s.launch("20 ms", () -> Thread.sleep(20));
        Event end = s.record();
        other.waitFor(end);
        Event after = other.record();
        after.await();
        long returned = System.nanoTime();
        long t0 = start.completedAtNanos();
        long t1 = end.completedAtNanos();
        assertThat(t1 - t0).as("the 20 ms op lies between the two events").isBetween(19_000_000L, 10_000_000_000L);
        assertThat(t0).as("on the host clock").isGreaterThan(before - 2_000_000L);
        assertThat(t1).isLessThan(returned + 2_000_000L);
        assertThat(after.completedAtNanos()).as("a waiting stream reaches its event after the event it waited for")
                .isGreaterThanOrEqualTo(t1 - 1_000_000L);
    }

    @Test
    void aFailureSurfacesAtTheNextSynchronizeNamingTheOperation() {
        Stream s = device.newStream("a");
        AtomicBoolean ranAfter = new AtomicBoolean();
        s.launch("decode sample 42", () -> {
            throw new IllegalStateException("bad bytes");
        });
        s.launch("after the failure", () -> ranAfter.set(true));
        assertThatThrownBy(s::synchronize)
                .isInstanceOf(DeviceException.class)
                .hasMessageContaining("decode sample 42")
                .hasMessageContaining("bad bytes")
                .satisfies(t -> assertThat(((DeviceException) t).operation()).isEqualTo("decode sample 42"));
        assertThat(ranAfter).as("work after a failure is skipped").isFalse();
        // Reported once, the failure is cleared: the stream works again.
        s.launch("fine", () -> ranAfter.set(true));
        s.synchronize();
        assertThat(ranAfter).isTrue();
    }

    @Test
    void aFailureSurfacesAtAwaitOfALaterEvent() {
        Stream s = device.newStream("a");
        s.launch("kernel x", () -> {
            throw new ArithmeticException("overflow");
        });
        Event e = s.record();
        assertThatThrownBy(e::await).isInstanceOf(DeviceException.class).hasMessageContaining("kernel x");
    }

    @Test
    void aFailureAfterTheWaitWasEnqueuedReachesTheWaitingStreamsFromTheirWaitOn() {
        Stream a = device.newStream("a");
        Stream b = device.newStream("b");
        Stream c = device.newStream("c");
        CountDownLatch gate = new CountDownLatch(1);
        a.launch("gated op", () -> {
            gate.await();
            throw new IllegalStateException("late");
        });
        Event aDone = a.record();
        AtomicBoolean beforeWait = new AtomicBoolean();
        AtomicBoolean afterWait = new AtomicBoolean();
        AtomicBoolean inC = new AtomicBoolean();
        b.launch("before the wait", () -> beforeWait.set(true));
        b.waitFor(aDone);
        b.launch("after the wait", () -> afterWait.set(true));
        Event bDone = b.record();
        c.waitFor(bDone);
        c.launch("in c", () -> inC.set(true));
        Event cDone = c.record();
        gate.countDown(); // a fails only now, after every wait was enqueued
        assertThatThrownBy(cDone::await).isInstanceOf(DeviceException.class).hasMessageContaining("gated op");
        assertThatThrownBy(b::synchronize).isInstanceOf(DeviceException.class).hasMessageContaining("gated op");
        assertThat(beforeWait).as("work before the wait is not the upstream's").isTrue();
        assertThat(afterWait).isFalse();
        assertThat(inC).isFalse();
    }

    @Test
    void aStreamWaitingOnAFailedEventFailsNamingTheOriginalOperation() {
        Stream a = device.newStream("a");
        Stream b = device.newStream("b");
        a.launch("upstream op", () -> {
            throw new IllegalArgumentException("nope");
        });
        b.waitFor(a.record());
        AtomicBoolean ran = new AtomicBoolean();
        b.launch("downstream op", () -> ran.set(true));
        assertThatThrownBy(b::synchronize).isInstanceOf(DeviceException.class).hasMessageContaining("upstream op");
        assertThat(ran).isFalse();
    }

    @Test
    void closeIsBoundedEvenWithWorkThatWouldRunForever() throws Exception {
        Stream s = device.newStream("stuck");
        CountDownLatch started = new CountDownLatch(1);
        s.launch("sleep forever", () -> {
            started.countDown();
            Thread.sleep(Long.MAX_VALUE);
        });
        Event never = s.record();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        device.close();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ms).isLessThan(5_000);
        assertThatThrownBy(never::await).isInstanceOf(DeviceException.class);
        if (!threadPrefix().isEmpty()) {
            assertThat(ThreadCensus.awaitNone(threadPrefix(), Duration.ofSeconds(5))).isEmpty();
        }
    }

    @Test
    void arenasOfTheDeviceAllocateBlocks() {
        try (var arena = device.newArena("t")) {
            var b = arena.allocate(dev.penstock.memory.DType.F32, 8);
            assertThat(b.elementCount()).isEqualTo(8);
            assertThat(arena.allocatedBytes()).isEqualTo(32);
        }
    }
}
