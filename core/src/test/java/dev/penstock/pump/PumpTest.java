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
import java.util.concurrent.atomic.AtomicLong;
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
        dev.penstock.testing.LogCapture log = dev.penstock.testing.LogCapture.of("dev.penstock.internal.Threads");
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
            assertThat(log.records()).anySatisfy(r -> {
                assertThat(r.getLevel()).isEqualTo(java.util.logging.Level.WARNING);
                assertThat(java.text.MessageFormat.format(r.getMessage(), r.getParameters()))
                        .contains(prefix(c) + "0").contains("did not stop");
            });
        } finally {
            release.set(true);
            log.close();
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
    void aByteBudgetIsReservedBeforeDispatchNotOnlyCountedWhenLoadsLand() throws Exception {
        PumpConfig c = config(10, 10).withBudgetBytes(250);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    started.incrementAndGet();
                    gate.await(); // nothing lands: only reservations can hold dispatch back
                    return k;
                }).config(c).source(LongStream.range(0, 100).iterator()).sizer(v -> 100).estimate(k -> 100).start()) {
            Thread.sleep(50);
            assertThat(pump.inFlight()).as("100-byte items under a 250-byte budget").isEqualTo(2);
            assertThat(started.get()).isEqualTo(2);
            assertThat(pump.heldBytes()).isEqualTo(200);
            gate.countDown();
            for (int i = 0; i < 20; i++) {
                assertThat(pump.next()).isEqualTo(i);
                assertThat(pump.inFlight()).isLessThanOrEqualTo(2);
                assertThat(pump.heldBytes()).isLessThanOrEqualTo(250);
            }
        }
    }

    @Test
    void withoutAnEstimateTheFirstLoadIsSizedBeforeTheRestAreDispatched() throws Exception {
        PumpConfig c = config(10, 10).withBudgetBytes(250);
        AtomicInteger started = new AtomicInteger();
        try (Pump<Long> pump = Pump.<Long>builder(k -> {
                    started.incrementAndGet();
                    return k;
                }).config(c).source(LongStream.range(0, 100).iterator()).sizer(v -> 100).start()) {
            Thread.sleep(50);
            assertThat(pump.inFlight()).as("nothing sized yet: the first reserves the whole budget").isEqualTo(1);
            assertThat(started.get()).isEqualTo(1);
            for (int i = 0; i < 50; i++) {
                assertThat(pump.next()).isEqualTo(i);
                assertThat(pump.heldBytes()).isLessThanOrEqualTo(250);
            }
        }
    }

    /// Held bytes are counted where the memory is: by the loader when a load returns, given
    /// back when the consumer takes an item or the pump discards it.
    private static long peakHeld(long budget, int maxBytes, boolean withEstimate, long seed, boolean virtual) throws Exception {
        AtomicLong live = new AtomicLong();
        AtomicLong peak = new AtomicLong();
        PumpConfig c = config(32, 8).withBudgetBytes(budget).withVirtualThreads(virtual);
        PumpBuilder<long[]> b = Pump.<long[]>builder(k -> {
                    SplittableRandom r = new SplittableRandom(seed * 1_000_003 + k);
                    Thread.sleep(r.nextInt(0, 3)); // out-of-order completion
                    long bytes = r.nextLong(1, maxBytes + 1);
                    peak.accumulateAndGet(live.addAndGet(bytes), Math::max);
                    return new long[] {k, bytes};
                }).config(c).source(LongStream.range(0, 400).iterator()).sizer(v -> v[1])
                .onDiscard(v -> live.addAndGet(-v[1]));
        if (withEstimate) {
            b.estimate(k -> maxBytes);
        }
        try (Pump<long[]> pump = b.start()) {
            for (long i = 0; i < 400; i++) {
                long[] v = pump.next();
                assertThat(v[0]).isEqualTo(i);
                live.addAndGet(-v[1]);
                if (i % 7 == 0) {
                    Thread.sleep(1); // a consumer that sometimes lags
                }
            }
        }
        return peak.get();
    }

    @Test
    void heldBytesNeverExceedTheBudgetPlusOneItemUnderRandomSizesAndOutOfOrderLoads() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            assertThat(peakHeld(3000, 1000, true, seed, seed % 2 == 0)).as("seed %d, with an estimate", seed).isLessThanOrEqualTo(4000);
            assertThat(peakHeld(3000, 1000, false, seed, seed % 2 == 1)).as("seed %d, largest seen", seed).isLessThanOrEqualTo(4000);
        }
    }

    @Test
    void anItemLargerThanTheWholeBudgetFailsNamingTheOptionAndIsGivenBack() throws Exception {
        List<Long> discarded = java.util.Collections.synchronizedList(new ArrayList<>());
        try (Pump<Long> pump = Pump.<Long>builder(k -> k).config(config(4, 2).withBudgetBytes(250))
                .source(LongStream.range(0, 4).iterator()).sizer(v -> v == 2 ? 300 : 100).onDiscard(discarded::add).start()) {
            assertThat(pump.next()).isZero();
            assertThat(pump.next()).isEqualTo(1);
            assertThatThrownBy(pump::next).isInstanceOf(PumpException.class)
                    .hasMessageContaining("300 bytes").hasMessageContaining("'budgetBytes'").hasMessageContaining("key 2");
            assertThat(discarded).containsExactly(2L);
            assertThat(pump.next()).isEqualTo(3);
        }
    }

    @Test
    void everyLoadedResultIsHandedOutExactlyOnceWhenTheHeadLoadIsInterruptedByClose() throws Exception {
        for (boolean virtual : new boolean[] {false, true}) {
            List<Long> discarded = java.util.Collections.synchronizedList(new ArrayList<>());
            CountDownLatch behindHeadLoaded = new CountDownLatch(7);
            Pump<Long> pump = Pump.<Long>builder(k -> {
                        if (k == 3) {
                            Thread.sleep(60_000); // interrupted by close: never completes its slot
                        } else if (k > 3) {
                            behindHeadLoaded.countDown();
                        }
                        return k;
                    }).config(config(8, 8).withVirtualThreads(virtual)).source(LongStream.range(0, 100).iterator())
                    .onDiscard(discarded::add).start();
            for (long i = 0; i < 3; i++) {
                assertThat(pump.next()).isEqualTo(i);
            }
            assertThat(behindHeadLoaded.await(10, TimeUnit.SECONDS)).isTrue();
            pump.close();
            assertThat(discarded).as("virtual=%s", virtual).containsExactlyInAnyOrder(4L, 5L, 6L, 7L, 8L, 9L, 10L);
        }
    }

    @Test
    void underRandomCloseEveryLoadedResultIsTakenOrDiscardedExactlyOnce() throws Exception {
        for (int trial = 0; trial < 40; trial++) {
            SplittableRandom r = new SplittableRandom(trial);
            java.util.Set<Long> loaded = java.util.concurrent.ConcurrentHashMap.newKeySet();
            java.util.concurrent.ConcurrentLinkedQueue<Long> handedOut = new java.util.concurrent.ConcurrentLinkedQueue<>();
            long seed = trial;
            Pump<Long> pump = Pump.<Long>builder(k -> {
                        long spin = new SplittableRandom(seed * 31 + k).nextLong(0, 200_000);
                        long until = System.nanoTime() + spin; // busy, not interruptible: it finishes after close
                        while (System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                        loaded.add(k);
                        return k;
                    }).config(config(16, 6).withVirtualThreads(trial % 2 == 0)).source(LongStream.range(0, 1000).iterator())
                    .onDiscard(handedOut::add).start();
            int take = r.nextInt(0, 40);
            for (int i = 0; i < take; i++) {
                handedOut.add(pump.next());
            }
            pump.close();
            assertThat(ThreadCensus.awaitNone(prefix(pump.config()), Duration.ofSeconds(5))).isEmpty();
            List<Long> all = new ArrayList<>(handedOut);
            assertThat(all).as("trial %d: no result handed out twice", trial).doesNotHaveDuplicates();
            assertThat(new java.util.HashSet<>(all)).as("trial %d: every loaded result handed out", trial).isEqualTo(loaded);
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
