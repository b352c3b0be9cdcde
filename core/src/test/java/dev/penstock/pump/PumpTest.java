package dev.penstock.pump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.ThreadCensus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PumpTest {
    private static final AtomicInteger IDS = new AtomicInteger();

    /// A source that counts how many keys were pulled; `limit` < 0 means infinite.
    private static final class CountingSource implements PrimitiveIterator.OfLong {
        final AtomicInteger pulled = new AtomicInteger();
        final long limit;

        CountingSource(long limit) {
            this.limit = limit;
        }

        @Override
        public boolean hasNext() {
            return limit < 0 || pulled.get() < limit;
        }

        @Override
        public long nextLong() {
            return pulled.getAndIncrement();
        }
    }

    private static PumpConfig config(int depth, int workers) {
        return PumpConfig.of(depth, workers).withName("t" + IDS.incrementAndGet());
    }

    private static String prefix(PumpConfig c) {
        return "penstock-io-" + c.name() + "-";
    }

    @Test
    void outOfOrderCompletionStillDeliversInPullOrder() {
        long seed = 1234;
        PumpConfig c = config(8, 6);
        List<Long> got = new ArrayList<>();
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    // later keys often finish first
                    Thread.sleep(new SplittableRandom(seed + k).nextInt(0, 4) + (k % 3 == 0 ? 3 : 0));
                    return k * 2;
                }).config(c).source(LongStream.range(0, 200).iterator()).start()) {
            while (pump.hasNext()) {
                got.add(pump.next());
            }
        }
        assertThat(got).as("seed %d", seed).containsExactlyElementsOf(LongStream.range(0, 200).map(k -> k * 2).boxed().toList());
    }

    @Test
    void loadingStartsBeforeTheFirstNextAndStopsAtDepth() throws Exception {
        PumpConfig c = config(5, 8);
        AtomicInteger started = new AtomicInteger();
        CountDownLatch gate = new CountDownLatch(1);
        CountingSource src = new CountingSource(-1);
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    started.incrementAndGet();
                    gate.await();
                    return k;
                }).config(c).source(src).start()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (started.get() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(started.get()).as("loads started with no next() call").isEqualTo(5);
            Thread.sleep(50);
            assertThat(started.get()).as("never more than depth in flight").isEqualTo(5);
            assertThat(src.pulled.get()).as("the source is pulled lazily").isEqualTo(5);
            gate.countDown();
            for (int i = 0; i < 3; i++) {
                assertThat(pump.next()).isEqualTo(i);
            }
            // breaking early pulled at most depth more than consumed
            assertThat(src.pulled.get()).isLessThanOrEqualTo(3 + 5);
            assertThat(pump.inFlight()).isLessThanOrEqualTo(5);
        }
    }

    @Test
    void neverMoreThanDepthLoadsRunAtOnce() {
        PumpConfig c = config(3, 8);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    Thread.sleep(1);
                    running.decrementAndGet();
                    return k;
                }).config(c).source(LongStream.range(0, 60).iterator()).start()) {
            long n = 0;
            while (pump.hasNext()) {
                pump.next();
                n++;
            }
            assertThat(n).isEqualTo(60);
        }
        assertThat(maxRunning.get()).isBetween(1, 3);
    }

    @Test
    void errorInItemSevenSurfacesAfterItemsZeroToSixAndLaterItemsStillFollow() {
        PumpConfig c = config(4, 4);
        List<Long> got = new ArrayList<>();
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    if (k == 7) {
                        throw new java.io.IOException("disk read failed");
                    }
                    Thread.sleep(k < 7 ? 5 : 0); // item 7 fails before earlier items finish
                    return k;
                }).config(c).source(LongStream.range(0, 10).iterator()).start()) {
            for (int i = 0; i < 7; i++) {
                got.add(pump.next());
            }
            assertThat(got).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
            assertThatThrownBy(pump::next)
                    .isInstanceOf(PumpException.class)
                    .hasMessageContaining("item 7")
                    .hasMessageContaining("disk read failed")
                    .hasCauseInstanceOf(java.io.IOException.class)
                    .satisfies(e -> assertThat(((PumpException) e).key()).isEqualTo(7));
            assertThat(pump.next()).isEqualTo(8);
            assertThat(pump.next()).isEqualTo(9);
            assertThat(pump.hasNext()).isFalse();
            assertThatThrownBy(pump::next).isInstanceOf(NoSuchElementException.class);
        }
    }

    @Test
    void aNullResultIsReportedWithItsKey() {
        try (Pump<Long> pump = Pump.<Long>builder(k -> k == 2 ? null : k).config(config(2, 2))
                .source(LongStream.range(0, 4).iterator()).start()) {
            pump.next();
            pump.next();
            assertThatThrownBy(pump::next).isInstanceOf(PumpException.class).hasMessageContaining("key 2")
                    .hasMessageContaining("null");
        }
    }

    @Test
    void aLoadThatBlocksForeverFailsNamingItsKeyAndTheThread() throws Exception {
        PumpConfig c = config(2, 2).withLoadTimeout(Duration.ofMillis(300));
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    if (k == 1) {
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    return k;
                }).config(c).source(LongStream.range(0, 5).iterator()).start()) {
            assertThat(pump.next()).isZero();
            assertThatThrownBy(pump::next).isInstanceOf(PumpException.class)
                    .hasMessageContaining("key 1").hasMessageContaining("did not finish loading")
                    .hasMessageContaining(prefix(c));
        }
        assertThat(ThreadCensus.awaitNone(prefix(c), Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void closeCancelsStopsEveryThreadAndIsBounded() throws Exception {
        PumpConfig c = config(16, 4);
        CountDownLatch started = new CountDownLatch(4);
        Pump<Long> pump = Pump.<Long>builder(k -> {
            started.countDown();
            Thread.sleep(Long.MAX_VALUE);
            return k;
        }).config(c).source(new CountingSource(-1)).start();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ThreadCensus.live(prefix(c))).hasSize(4);
        long t0 = System.nanoTime();
        pump.close();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(ThreadCensus.awaitNone(prefix(c), Duration.ofSeconds(5))).isEmpty();
        assertThat(pump.isTerminated()).isTrue();
        assertThatThrownBy(pump::next).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLoadThatIgnoresInterruptsIsLoggedWithItsThreadAndCloseStillReturnsInBound() throws Exception {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.penstock.internal.Threads");
        List<java.util.logging.LogRecord> records = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        PumpConfig c = config(2, 1).withCloseTimeout(Duration.ofMillis(300));
        try {
            Pump<Long> pump = Pump.<Long>builder(k -> {
                started.countDown();
                while (!release.get()) {
                    Thread.onSpinWait(); // deaf to interrupts
                }
                return k;
            }).config(c).source(LongStream.range(0, 10).iterator()).start();
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            long t0 = System.nanoTime();
            pump.close();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
            assertThat(pump.isTerminated()).isFalse();
            assertThat(records).anySatisfy(r -> {
                assertThat(r.getLevel()).isEqualTo(java.util.logging.Level.WARNING);
                assertThat(java.text.MessageFormat.format(r.getMessage(), r.getParameters()))
                        .contains(prefix(c) + "0").contains("did not stop");
            });
        } finally {
            release.set(true);
            jul.removeHandler(handler);
        }
        assertThat(ThreadCensus.awaitNone(prefix(c), Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void resultsNeverConsumedAreDiscardedOnClose() throws Exception {
        List<Long> discarded = java.util.Collections.synchronizedList(new ArrayList<>());
        PumpConfig c = config(4, 2);
        Pump<Long> pump = Pump.<Long>builder(k -> k).config(c).source(LongStream.range(0, 100).iterator())
                .onDiscard(discarded::add).start();
        assertThat(pump.next()).isZero();
        Thread.sleep(50); // let items 1..4 finish loading
        pump.close();
        assertThat(discarded).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }

    @Test
    void theByteBudgetHoldsBackDispatchUntilConsumedBytesDropBelowIt() throws Exception {
        PumpConfig c = config(10, 4).withBudgetBytes(250);
        CountingSource src = new CountingSource(100);
        CountDownLatch gate = new CountDownLatch(1);
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    gate.await(); // priming dispatches all 10 before any result holds bytes
                    return k;
                }).config(c).source(src).sizer(v -> 100).start()) {
            assertThat(src.pulled.get()).isEqualTo(10);
            gate.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (pump.heldBytes() < 1000 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(pump.heldBytes()).isEqualTo(1000);
            for (int i = 0; i < 6; i++) {
                pump.next(); // held: 900 … 400, all ≥ 250
                assertThat(src.pulled.get()).as("after %d next() calls", i + 1).isEqualTo(10);
            }
            pump.next(); // held 300 ≥ 250: still nothing
            assertThat(src.pulled.get()).isEqualTo(10);
            pump.next(); // held 200 < 250: dispatch resumes
            assertThat(src.pulled.get()).isGreaterThan(10);
        }
    }

    @Test
    void aConsumerThatOutrunsItsWorkersIsAlwaysWokenAndMayChangeThreads() throws Exception {
        // The consumer parks on almost every item; a lost wake-up would stall until the timeout.
        PumpConfig c = config(2, 1).withLoadTimeout(Duration.ofSeconds(20));
        long n = 100_000;
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    if (k % 1000 == 0) {
                        Thread.sleep(1);
                    }
                    return k;
                }).config(c).source(LongStream.range(0, n).iterator()).start()) {
            long sum = 0;
            for (long i = 0; i < n / 2; i++) {
                sum += pump.next();
            }
            long[] rest = new long[1];
            Thread other = Thread.ofPlatform().start(() -> {
                while (pump.hasNext()) {
                    rest[0] += pump.next();
                }
            });
            other.join();
            assertThat(sum + rest[0]).isEqualTo(n * (n - 1) / 2);
        }
    }

    @Test
    void virtualIoThreadsDeliverInOrderAndStopOnClose() throws Exception {
        PumpConfig c = config(8, 32).withVirtualThreads(true);
        CountDownLatch blocked = new CountDownLatch(1);
        Pump<Long> pump = Pump.<Long>builder(k -> {
            if (k == 150) {
                blocked.countDown();
                Thread.sleep(Long.MAX_VALUE); // stuck until close interrupts it
            }
            Thread.sleep(k % 3);
            return k;
        }).config(c).source(LongStream.range(0, 1000).iterator()).start();
        for (long i = 0; i < 150; i++) {
            assertThat(pump.next()).isEqualTo(i);
        }
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        pump.close();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(pump.isTerminated()).isTrue();
    }

    @Test
    void invalidOptionsFailNamingTheOption() {
        assertThatThrownBy(() -> PumpConfig.of(0, 1)).hasMessageContaining("'depth'").hasMessageContaining("0");
        assertThatThrownBy(() -> PumpConfig.of(-3, 1)).hasMessageContaining("'depth'").hasMessageContaining("-3");
        assertThatThrownBy(() -> PumpConfig.of(1, 0)).hasMessageContaining("'workers'");
        assertThatThrownBy(() -> PumpConfig.of(1, 1).withBudgetBytes(0)).hasMessageContaining("'budgetBytes'");
        assertThatThrownBy(() -> PumpConfig.of(1, 1).withLoadTimeout(Duration.ZERO)).hasMessageContaining("'loadTimeout'");
    }
}
