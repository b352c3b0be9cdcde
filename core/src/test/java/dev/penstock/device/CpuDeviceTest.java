package dev.penstock.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuDeviceTest extends DeviceContractTest {
    private static int counter;

    private String name;

    @Override
    protected Device newDevice() {
        name = "cputest" + (counter++);
        return new CpuDevice(name, Duration.ofSeconds(1));
    }

    @Override
    protected String threadPrefix() {
        return "penstock-" + name + "-";
    }

    @Test
    void aDrivenStreamRunsItsWorkInOrderOnTheThreadThatSynchronizes() {
        Stream s = device.newDrivenStream("driven");
        List<String> ran = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 50; i++) {
            int v = i;
            s.launch("op " + i, () -> ran.add(v + " " + Thread.currentThread().getName()));
        }
        assertThat(ran).as("launch only enqueues").isEmpty();
        s.synchronize();
        assertThat(ran).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(ran.get(i)).isEqualTo(i + " " + Thread.currentThread().getName());
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith(threadPrefix()));
    }

    @Test
    void aDrivenStreamsEventRunsTheWorkUpToItForWhoeverAwaitsIt() throws Exception {
        Stream s = device.newDrivenStream("driven");
        List<Integer> ran = new CopyOnWriteArrayList<>();
        s.launch("first", () -> ran.add(1));
        Event first = s.record();
        s.launch("second", () -> ran.add(2));
        AtomicReference<String> where = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().name("waiter").start(() -> {
            first.await();
            where.set(Thread.currentThread().getName());
        });
        waiter.join(10_000);
        assertThat(where).hasValue("waiter");
        assertThat(ran).as("only the work before the event").containsExactly(1);
        s.synchronize();
        assertThat(ran).containsExactly(1, 2);
    }

    @Test
    void aStreamThatWaitsForADrivenStreamsEventRunsItsWork() {
        Stream driven = device.newDrivenStream("driven");
        Stream other = device.newStream("other");
        AtomicReference<String> where = new AtomicReference<>();
        driven.launch("produce", () -> where.set(Thread.currentThread().getName()));
        other.waitFor(driven.record());
        List<String> seen = new CopyOnWriteArrayList<>();
        other.launch("consume", () -> seen.add(where.get()));
        Event done = other.record();
        done.await(); // the host waits on the other stream only: its thread drives the producer
        assertThat(seen).containsExactly(threadPrefix() + "other");
    }

    @Test
    void aDrivenStreamsFailureSurfacesAtSynchronizeAndSkipsTheWorkAfterIt() {
        Stream s = device.newDrivenStream("driven");
        List<String> ran = new CopyOnWriteArrayList<>();
        s.launch("bad kernel", () -> {
            throw new IllegalStateException("broken");
        });
        s.launch("after", () -> ran.add("after"));
        assertThatThrownBy(s::synchronize).isInstanceOf(DeviceException.class).hasMessageContaining("bad kernel")
                .hasMessageContaining("broken");
        assertThat(ran).isEmpty();
        s.launch("fine", () -> ran.add("fine"));
        s.synchronize();
        assertThat(ran).containsExactly("fine");
    }

    @Test
    void closingTheDeviceCancelsADrivenStreamsQueuedWork() {
        Stream s = device.newDrivenStream("driven");
        List<String> ran = new CopyOnWriteArrayList<>();
        s.launch("never", () -> ran.add("never"));
        Event e = s.record();
        device.close();
        assertThatThrownBy(e::await).isInstanceOf(DeviceException.class).hasMessageContaining("closed");
        assertThat(ran).isEmpty();
    }

    @Test
    void twoThreadsSynchronizingOneDrivenStreamRunEachOpOnce() throws Exception {
        Stream s = device.newDrivenStream("driven");
        List<Integer> ran = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        Runnable worker = () -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < 500; i++) {
                s.launch("op", () -> ran.add(ran.size()));
                if (i % 7 == 0) {
                    s.synchronize();
                }
            }
            s.synchronize();
        };
        Thread a = Thread.ofPlatform().start(worker);
        Thread b = Thread.ofPlatform().start(worker);
        go.countDown();
        a.join(TimeUnit.SECONDS.toMillis(20));
        b.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(ran).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(ran.get(i)).as("one op at a time, in order").isEqualTo(i);
        }
    }
}
