package dev.penstock.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.testing.ThreadCensus;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// The loader's three contracts on settings, release and memory (issue 20): every way of
/// setting an option means the same thing; every loaded sample is released exactly once,
/// however the iteration stops; a byte budget bounds the bytes loaded ahead of the consumer.
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoaderContractsTest {

    /// A dataset of `long[] {index, bytes}` samples that counts where every sample is: loads
    /// started, loaded, consumed (taken into a batch) and released (with duplicates caught).
    static class Ledger implements Dataset<long[], long[]> {
        final long size;
        final int maxBytes;
        final long estimate;
        final AtomicInteger started = new AtomicInteger();
        final Set<Long> loaded = ConcurrentHashMap.newKeySet();
        final Set<Long> released = ConcurrentHashMap.newKeySet();
        final AtomicInteger doubleReleases = new AtomicInteger();
        final AtomicLong ahead = new AtomicLong();    // bytes loaded and not yet consumed
        final AtomicLong peakAhead = new AtomicLong();
        volatile CountDownLatch gate;                 // when set, loads wait on it
        volatile long sleepSeed = -1;

        Ledger(long size, int maxBytes, long estimate) {
            this.size = size;
            this.maxBytes = maxBytes;
            this.estimate = estimate;
        }

        @Override
        public long size() {
            return size;
        }

        long bytesOf(long index) {
            return maxBytes <= 1 ? 1 : new SplittableRandom(index * 7919).nextLong(1, maxBytes + 1);
        }

        @Override
        public long[] loadHost(long index, RandomGenerator rng) throws Exception {
            started.incrementAndGet();
            CountDownLatch g = gate;
            if (g != null) {
                g.await();
            }
            if (sleepSeed >= 0) {
                Thread.sleep(new SplittableRandom(sleepSeed + index).nextInt(0, 3)); // out of order
            }
            long bytes = bytesOf(index);
            peakAhead.accumulateAndGet(ahead.addAndGet(bytes), Math::max);
            loaded.add(index);
            return new long[] {index, bytes};
        }

        @Override
        public long[] consume(long[] host, PrepContext ctx) {
            ahead.addAndGet(-host[1]);
            return host;
        }

        @Override
        public long hostBytes(long[] host) {
            return host[1];
        }

        @Override
        public long expectedHostBytes(long index) {
            return estimate;
        }

        @Override
        public void releaseHost(long[] host) {
            if (!released.add(host[0])) {
                doubleReleases.incrementAndGet();
            }
        }
    }

    // ---- every way of setting an option means the same thing ----

    private static LoaderConfig configOf(UnaryOperator<DataLoader.Builder<long[], long[], List<long[]>>> set) {
        try (var loader = set.apply(DataLoader.builder(new Ledger(10, 1, 1))).build()) {
            return loader.config();
        }
    }

    /// One option set through the builder's setter, through `config(LoaderConfig)`, and
    /// through `config` followed by an unrelated setter: the built loader's value is the same.
    private static <T> void sameEveryWay(String option, UnaryOperator<DataLoader.Builder<long[], long[], List<long[]>>> setter,
                                         UnaryOperator<LoaderConfig> with, Function<LoaderConfig, T> get, T expected) {
        LoaderConfig base = LoaderConfig.of(4);
        assertThat(get.apply(configOf(b -> setter.apply(b.batchSize(4))))).as(option + " by its setter").isEqualTo(expected);
        assertThat(get.apply(configOf(b -> b.config(with.apply(base))))).as(option + " by config(…)").isEqualTo(expected);
        assertThat(get.apply(configOf(b -> b.config(with.apply(base)).epoch(1)))).as(option + " by config(…) then another setter")
                .isEqualTo(expected);
        assertThat(get.apply(with.apply(base))).as(option + " in LoaderConfig itself").isEqualTo(expected);
    }

    @Test
    void prefetchDepthSetThroughConfigIsKept() {
        // the reported case: config(LoaderConfig.of(4).withPrefetchDepth(3)) built a depth of 8
        assertThat(configOf(b -> b.config(LoaderConfig.of(4).withPrefetchDepth(3))).prefetchDepth()).isEqualTo(3);
        sameEveryWay("prefetchDepth", b -> b.prefetchDepth(3), c -> c.withPrefetchDepth(3), LoaderConfig::prefetchDepth, 3);
        // a set depth survives a later batch size, however either was set
        assertThat(configOf(b -> b.prefetchDepth(3).batchSize(16)).prefetchDepth()).isEqualTo(3);
        assertThat(configOf(b -> b.config(LoaderConfig.of(4).withPrefetchDepth(3)).batchSize(16)).prefetchDepth()).isEqualTo(3);
        assertThat(LoaderConfig.of(4).withPrefetchDepth(3).withBatchSize(16).prefetchDepth()).isEqualTo(3);
    }

    @Test
    void anUnsetPrefetchDepthIsTwoBatchesOfTheFinalBatchSizeEveryWay() {
        assertThat(configOf(b -> b.batchSize(16)).prefetchDepth()).isEqualTo(32);
        assertThat(configOf(b -> b.config(LoaderConfig.of(16))).prefetchDepth()).isEqualTo(32);
        assertThat(configOf(b -> b.config(LoaderConfig.of(4)).batchSize(16)).prefetchDepth()).isEqualTo(32);
        assertThat(configOf(b -> b.config(LoaderConfig.of(4).withBatchSize(16))).prefetchDepth()).isEqualTo(32);
        assertThat(LoaderConfig.of(4).withBatchSize(16).prefetchDepth()).isEqualTo(32);
        assertThat(LoaderConfig.of(4).prefetchDepthSet()).isFalse();
        assertThat(LoaderConfig.of(4).toString()).contains("prefetchDepth=8 (two batches)");
    }

    @Test
    void theBuiltPumpPullsExactlyTheConfiguredDepthAhead() throws Exception {
        for (UnaryOperator<DataLoader.Builder<long[], long[], List<long[]>>> way : List.<UnaryOperator<DataLoader.Builder<long[], long[], List<long[]>>>>of(
                b -> b.batchSize(4).workers(16).prefetchDepth(3),
                b -> b.config(LoaderConfig.of(4).withWorkers(16).withPrefetchDepth(3)))) {
            Ledger ds = new Ledger(100, 1, 1);
            ds.gate = new CountDownLatch(1);
            try (var loader = way.apply(DataLoader.builder(ds)).build()) {
                var it = loader.iterator();
                Thread.sleep(100);
                assertThat(ds.started.get()).as("loads started before the first next()").isEqualTo(3);
                ds.gate.countDown();
                assertThat(it.next().data()).hasSize(4);
            }
        }
    }

    @Test
    void aBadValueFailsTheSameWayHoweverItIsSet() {
        assertThatThrownBy(() -> DataLoader.builder(new Ledger(10, 1, 1)).prefetchDepth(-1)).hasMessageContaining("'prefetchDepth'");
        assertThatThrownBy(() -> LoaderConfig.of(4).withPrefetchDepth(-1)).hasMessageContaining("'prefetchDepth'");
        assertThatThrownBy(() -> DataLoader.builder(new Ledger(10, 1, 1)).budgetBytes(0)).hasMessageContaining("'budgetBytes'");
        assertThatThrownBy(() -> LoaderConfig.of(4).withBudgetBytes(0)).hasMessageContaining("'budgetBytes'");
        assertThatThrownBy(() -> DataLoader.builder(new Ledger(10, 1, 1)).loadTimeout(Duration.ZERO)).hasMessageContaining("'loadTimeout'");
    }

    // ---- every loaded sample is released exactly once ----

    private static void assertEveryLoadedSampleReleasedOnce(Ledger ds, String what) {
        assertThat(ds.doubleReleases.get()).as(what + ": released twice").isZero();
        assertThat(ds.released).as(what + ": every loaded sample released").isEqualTo(ds.loaded);
    }

    @Test
    void anEarlyBreakThenCloseReleasesEverySampleThatWasLoaded() throws Exception {
        for (boolean virtual : new boolean[] {false, true}) {
            for (long seed = 0; seed < 10; seed++) {
                Ledger ds = new Ledger(200, 1, 1);
                ds.sleepSeed = seed;
                String name;
                try (var loader = DataLoader.builder(ds).batchSize(4).workers(6).prefetchDepth(20).virtualThreads(virtual).build()) {
                    name = loader.name();
                    int n = 0;
                    for (Batch<List<long[]>> b : loader) {
                        if (++n == 3) {
                            break;
                        }
                    }
                }
                assertThat(ThreadCensus.awaitNone("penstock-io-" + name + "-", Duration.ofSeconds(5))).isEmpty();
                assertThat(ds.loaded.size()).isGreaterThan(12);
                assertEveryLoadedSampleReleasedOnce(ds, "virtual=" + virtual + " seed=" + seed);
            }
        }
    }

    @Test
    void aHeadLoadInterruptedByCloseDoesNotStrandTheLoadsBehindIt() throws Exception {
        Ledger ds = new Ledger(200, 1, 1) {
            @Override
            public long[] loadHost(long index, RandomGenerator rng) throws Exception {
                if (index == 12) {
                    Thread.sleep(60_000); // the head when the consumer stops: interrupted by close
                }
                return super.loadHost(index, rng);
            }
        };
        String name;
        try (var loader = DataLoader.builder(ds).batchSize(4).workers(8).prefetchDepth(16).build()) {
            name = loader.name();
            var it = loader.iterator();
            it.next();
            it.next(); // batch 2 (samples 8-11) is prepared: 12 is the pump's head
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ds.loaded.containsAll(List.of(13L, 14L, 15L, 16L, 17L)) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }
        assertThat(ThreadCensus.awaitNone("penstock-io-" + name + "-", Duration.ofSeconds(5))).isEmpty();
        assertThat(ds.loaded).contains(13L, 17L).doesNotContain(12L);
        assertEveryLoadedSampleReleasedOnce(ds, "head interrupted");
    }

    @Test
    void aStreamingDatasetReleasesEverySampleItLoadedWhenTheConsumerStops() throws Exception {
        Set<Long> loaded = ConcurrentHashMap.newKeySet();
        Set<Long> released = ConcurrentHashMap.newKeySet();
        AtomicInteger twice = new AtomicInteger();
        StreamingDataset<Long, Long> stream = new StreamingDataset<>() {
            @Override
            public Long loadHost(long sequence, RandomGenerator rng) throws Exception {
                Thread.sleep(new SplittableRandom(sequence).nextInt(0, 3));
                loaded.add(sequence);
                return sequence;
            }

            @Override
            public Long consume(Long host, PrepContext ctx) {
                return host;
            }

            @Override
            public void releaseHost(Long host) {
                if (!released.add(host)) {
                    twice.incrementAndGet();
                }
            }
        };
        for (boolean virtual : new boolean[] {false, true}) {
            loaded.clear();
            released.clear();
            try (var loader = DataLoader.builder(stream).batchSize(3).workers(4).virtualThreads(virtual).build()) {
                for (Batch<List<Long>> b : loader) {
                    if (b.index() == 4) {
                        break;
                    }
                }
            }
            assertThat(twice.get()).isZero();
            assertThat(released).as("virtual=%s", virtual).isEqualTo(loaded);
        }
    }

    @Test
    void aFailedSampleEndsTheIterationAndEveryLoadedSampleIsStillReleased() throws Exception {
        Ledger ds = new Ledger(200, 1, 1) {
            @Override
            public long[] loadHost(long index, RandomGenerator rng) throws Exception {
                if (index == 9) {
                    throw new java.io.IOException("corrupt record at sample 9");
                }
                return super.loadHost(index, rng);
            }
        };
        ds.sleepSeed = 5;
        try (var loader = DataLoader.builder(ds).batchSize(4).workers(6).prefetchDepth(24).build()) {
            var it = loader.iterator();
            it.next();
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).isInstanceOf(LoaderException.class).hasMessageContaining("sample 9");
        }
        assertEveryLoadedSampleReleasedOnce(ds, "after a failed sample");
    }

    // ---- a byte budget bounds the bytes loaded ahead of the consumer ----

    @Test
    void bytesLoadedAheadNeverExceedTheBudgetPlusOneSample() throws Exception {
        for (long seed = 0; seed < 4; seed++) {
            for (long estimate : new long[] {1000, -1}) { // an upper-bound estimate, then none
                Ledger ds = new Ledger(300, 1000, estimate);
                ds.sleepSeed = seed;
                try (var loader = DataLoader.builder(ds).batchSize(2).workers(8).prefetchDepth(32).budgetBytes(3000)
                        .virtualThreads(seed % 2 == 0).build()) {
                    long n = 0;
                    for (Batch<List<long[]>> b : loader) {
                        n += b.data().size();
                        if (b.index() % 5 == 0) {
                            Thread.sleep(1); // a consumer that sometimes lags
                        }
                    }
                    assertThat(n).isEqualTo(300);
                }
                assertThat(ds.peakAhead.get()).as("seed %d, estimate %d", seed, estimate).isLessThanOrEqualTo(3000 + 1000);
                assertEveryLoadedSampleReleasedOnce(ds, "budget");
            }
        }
    }

    @Test
    void theReportedCaseABudgetOfThreeSamplesAtDepthThirtyTwoHoldsAtMostFour() throws Exception {
        Ledger ds = new Ledger(200, 1, -1) {
            @Override
            long bytesOf(long index) {
                return 100;
            }
        };
        ds.sleepSeed = 1;
        try (var loader = DataLoader.builder(ds).batchSize(1).workers(16).prefetchDepth(32).budgetBytes(300).build()) {
            for (Batch<List<long[]>> b : loader) {
                assertThat(b.data()).hasSize(1);
            }
        }
        assertThat(ds.peakAhead.get()).isLessThanOrEqualTo(400);
    }

    @Test
    void aSampleLargerThanTheWholeBudgetFailsItsBatchNamingTheOptionAndIsReleased() {
        Ledger ds = new Ledger(20, 1, -1) {
            @Override
            long bytesOf(long index) {
                return index == 6 ? 5000 : 100;
            }
        };
        try (var loader = DataLoader.builder(ds).batchSize(4).workers(2).budgetBytes(1000).build()) {
            var it = loader.iterator();
            assertThat(it.next().data()).hasSize(4);
            assertThatThrownBy(it::next).isInstanceOf(LoaderException.class).hasMessageContaining("sample 6")
                    .hasMessageContaining("5000 bytes").hasMessageContaining("'budgetBytes'");
        }
        assertEveryLoadedSampleReleasedOnce(ds, "oversized sample");
        assertThat(ds.released).contains(6L);
    }
}
