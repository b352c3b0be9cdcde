package dev.penstock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.LogCapture;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StagingPoolTest {
    private long liveBefore;
    private StagingPool pool;

    @BeforeEach
    void open() {
        liveBefore = Memory.liveBytes();
        pool = StagingPool.allocate("test-pool", 3, 8192);
    }

    @AfterEach
    void everyLeaseCameBackAndNothingLeaked() {
        assertThat(pool.leased()).as("leases out at the end of the test").isZero();
        pool.close();
        assertThat(Memory.liveBytes()).isEqualTo(liveBefore);
    }

    @Test
    @SuppressWarnings("try") // b is returned early on purpose, inside its try block
    void buffersArePageAlignedCountedAndHandedOutMostRecentlyReturnedFirst() {
        assertThat(Memory.liveBytes() - liveBefore).isEqualTo(3 * 8192);
        try (Lease a = pool.tryAcquire(); Lease b = pool.tryAcquire()) {
            assertThat(a.segment().address() % 4096).isZero();
            assertThat(b.segment().address() % 4096).isZero();
            assertThat(a.index()).isNotEqualTo(b.index());
            assertThat(a.segment().byteSize()).isEqualTo(8192);
            int bi = b.index();
            b.close();
            try (Lease c = pool.tryAcquire()) {
                assertThat(c.index()).as("LIFO: the cache-warm buffer goes out again").isEqualTo(bi);
            }
        }
    }

    @Test
    void tryAcquireNeverBlocksAndSaysNoWhenEmpty() {
        List<Lease> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(pool.tryAcquire());
        }
        assertThat(pool.tryAcquire()).isNull();
        assertThat(pool.available()).isZero();
        assertThat(pool.peakInUse()).isEqualTo(3);
        all.forEach(Lease::close);
        assertThat(pool.available()).isEqualTo(3);
    }

    @Test
    void aLeaseReturnsItselfOnlyOnce() {
        Lease a = pool.tryAcquire();
        a.close();
        Lease b = pool.tryAcquire();
        a.close(); // a second close must not put the buffer b now holds back on the free list
        Lease c = pool.tryAcquire();
        Lease d = pool.tryAcquire();
        assertThat(pool.tryAcquire()).isNull();
        assertThat(List.of(b.index(), c.index(), d.index())).doesNotHaveDuplicates();
        b.close();
        c.close();
        d.close();
    }

    @Test
    void acquireTimesOutNamingThePoolAndItsSize() throws Exception {
        List<Lease> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(pool.acquire(Duration.ofSeconds(1)));
        }
        assertThatThrownBy(() -> pool.acquire(Duration.ofMillis(50))).isInstanceOf(StagingTimeoutException.class)
                .hasMessageContaining("test-pool").hasMessageContaining("3 buffers").hasMessageContaining("8192");
        assertThat(pool.waitNs()).isGreaterThanOrEqualTo(Duration.ofMillis(50).toNanos());
        all.forEach(Lease::close);
    }

    @Test
    void aWaiterGetsTheBufferThatComesBack() throws Exception {
        List<Lease> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(pool.tryAcquire());
        }
        AtomicReference<Lease> got = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                got.set(pool.acquire(Duration.ofSeconds(10)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread.sleep(30);
        all.get(1).close();
        waiter.join(5000);
        assertThat(got.get().index()).isEqualTo(all.get(1).index());
        got.get().close();
        all.get(0).close();
        all.get(2).close();
    }

    @Test
    void closeFailsCurrentAndFutureWaitersInsteadOfHangingThem() throws Exception {
        try (LogCapture log = LogCapture.of(StagingPool.class.getName())) { // the lease still held at close is reported
            closeFailsWaiters();
            assertThat(log.messages()).anySatisfy(m -> assertThat(m).contains("'closing' closed with buffer 0 still leased"));
        }
    }

    private static void closeFailsWaiters() throws Exception {
        StagingPool small = StagingPool.allocate("closing", 1, 4096);
        Lease held = small.tryAcquire();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            waiting.countDown();
            try {
                small.acquire(Duration.ofMinutes(5));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        waiting.await();
        Thread.sleep(30);
        long t0 = System.nanoTime();
        small.close();
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(failure.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closing").hasMessageContaining("closed");
        assertThatThrownBy(small::tryAcquire).isInstanceOf(IllegalStateException.class);
        held.close(); // after close: harmless
    }

    @Test
    void leasesStillOutAtCloseAreReportedWithWhereTheyWereTaken() {
        try (LogCapture log = LogCapture.of(StagingPool.class.getName())) {
            StagingPool leaky = StagingPool.allocate("leaky", 2, 4096);
            Lease forgotten = takeAndForget(leaky);
            leaky.close();
            assertThat(log.records()).anySatisfy(r -> {
                assertThat(r.getMessage()).contains("leaky").contains("buffer " + forgotten.index());
                assertThat(r.getThrown().getStackTrace()).anySatisfy(e -> assertThat(e.getMethodName()).isEqualTo("takeAndForget"));
            });
            forgotten.close(); // found at last: the pool's memory goes with it
        }
    }

    @Test
    void awaitingEveryLeaseBackReturnsWhenTheLastComesBackEvenWhenInterrupted() throws Exception {
        Lease a = pool.tryAcquire();
        Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            a.close();
        });
        Thread.currentThread().interrupt(); // Flink cancelling the closing thread
        assertThat(pool.awaitAllReturned(Duration.ofSeconds(10))).isTrue();
        assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
        Lease b = pool.tryAcquire();
        assertThat(pool.awaitAllReturned(Duration.ofMillis(20))).as("one still out").isFalse();
        b.close();
    }

    @Test
    void aPoolClosedWithALeaseOutFreesNothingUntilTheLastLeaseComesBack() {
        StagingPool early = StagingPool.allocate("closed early", 2, 4096);
        Lease a = early.tryAcquire();
        Lease b = early.tryAcquire();
        b.close();
        try (LogCapture log = LogCapture.of(StagingPool.class.getName())) {
            early.close();
            assertThat(log.messages()).anySatisfy(m -> assertThat(m).contains("'closed early' closed with buffer " + a.index()));
        }
        assertThat(Memory.liveBytes() - liveBefore - 3 * 8192).as("the closed pool's memory is still held").isEqualTo(2 * 4096);
        a.segment().set(ValueLayout.JAVA_LONG, 0, 42); // the holder may still write its buffer
        assertThat(a.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        a.close();
        assertThat(Memory.liveBytes() - liveBefore).isEqualTo(3 * 8192);
        assertThatThrownBy(() -> a.segment().set(ValueLayout.JAVA_LONG, 0, 7)).as("a touch after the free throws, it does not write")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.segment().get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }

    private static Lease takeAndForget(StagingPool p) {
        return p.tryAcquire();
    }

    @Test
    void underContentionNoBufferIsEverHeldTwice() throws Exception {
        AtomicIntegerArray holders = new AtomicIntegerArray(3);
        List<Future<?>> fs = new ArrayList<>();
        try (ExecutorService ex = Executors.newFixedThreadPool(8)) {
            for (int t = 0; t < 8; t++) {
                fs.add(ex.submit(() -> {
                    for (int i = 0; i < 2000; i++) {
                        try (Lease l = pool.acquire(Duration.ofSeconds(10))) {
                            assertThat(holders.incrementAndGet(l.index())).isEqualTo(1);
                            Thread.onSpinWait();
                            holders.decrementAndGet(l.index());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        assertThat(pool.acquisitions()).isEqualTo(16_000);
    }

    @Test
    void invalidSizesAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> StagingPool.allocate("x", 0, 10)).hasMessageContaining("'buffers'");
        assertThatThrownBy(() -> StagingPool.allocate("x", 1, 0)).hasMessageContaining("'bufferBytes'");
    }
}
