package dev.penstock.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.data.TestingDataset.Sample;
import dev.penstock.testing.ThreadCensus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataLoaderTest {

    private static List<List<Sample>> epoch(DataLoader<Sample, Sample, List<Sample>> loader) {
        List<List<Sample>> out = new ArrayList<>();
        for (Batch<List<Sample>> b : loader) {
            out.add(b.data());
        }
        return out;
    }

    private static List<Long> indices(List<List<Sample>> batches) {
        return batches.stream().flatMap(List::stream).map(Sample::index).toList();
    }

    @Test
    void dropLastGivesFloorBatchesOtherwiseCeilWithAShortLastBatch() {
        try (var loader = DataLoader.builder(new TestingDataset(10)).batchSize(3).build()) {
            List<List<Sample>> batches = epoch(loader);
            assertThat(batches).extracting(List::size).containsExactly(3, 3, 3, 1);
            assertThat(loader.batchesPerEpoch()).isEqualTo(4);
        }
        try (var loader = DataLoader.builder(new TestingDataset(10)).batchSize(3).dropLast(true).build()) {
            List<List<Sample>> batches = epoch(loader);
            assertThat(batches).extracting(List::size).containsExactly(3, 3, 3);
            assertThat(indices(batches)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        }
    }

    @Test
    void outOfOrderLoadsStillDeliverSamplesInSamplerOrder() {
        TestingDataset ds = new TestingDataset(300);
        ds.delaySeed = 99;
        try (var loader = DataLoader.builder(ds).batchSize(7).workers(8).prefetchDepth(24).build()) {
            assertThat(indices(epoch(loader))).containsExactlyElementsOf(LongStream.range(0, 300).boxed().toList());
        }
        assertThat(ds.released).as("every host sample was released").hasSize(300);
    }

    @Test
    void shuffleOfEpochThreeIsTheSameWhetherEpochsZeroToTwoRanOrNot() {
        List<List<Long>> continuous = new ArrayList<>();
        try (var loader = DataLoader.builder(new TestingDataset(50)).batchSize(5).sampler("shuffled").seed(7).build()) {
            for (int e = 0; e < 4; e++) {
                continuous.add(indices(epoch(loader)));
            }
            assertThat(loader.state()).isEqualTo(new LoaderState(7, 4, 0));
        }
        List<Long> direct;
        try (var loader = DataLoader.builder(new TestingDataset(50)).batchSize(5).sampler("shuffled").seed(7).epoch(3).build()) {
            direct = indices(epoch(loader));
        }
        assertThat(direct).isEqualTo(continuous.get(3));
        assertThat(new HashSet<>(direct)).as("a permutation").hasSize(50);
        assertThat(continuous.get(0)).isNotEqualTo(continuous.get(1)).isNotEqualTo(LongStream.range(0, 50).boxed().toList());
        try (var loader = DataLoader.builder(new TestingDataset(50)).batchSize(5).sampler("shuffled").seed(8).epoch(3).build()) {
            assertThat(indices(epoch(loader))).as("another seed, another order").isNotEqualTo(direct);
        }
    }

    @Test
    void shardedRanksGetEqualBatchCountsAndCoverTheDataset() {
        for (boolean dropLast : new boolean[] {false, true}) {
            int world = 3;
            List<Integer> counts = new ArrayList<>();
            Set<Long> seen = new HashSet<>();
            for (int rank = 0; rank < world; rank++) {
                try (var loader = DataLoader.builder(new TestingDataset(10)).batchSize(2).shard(rank, world)
                        .sampler("shuffled").seed(3).dropLast(dropLast).build()) {
                    List<List<Sample>> batches = epoch(loader);
                    counts.add(batches.size());
                    seen.addAll(indices(batches));
                }
            }
            assertThat(counts).as("dropLast=%s", dropLast).containsOnly(counts.getFirst());
            if (dropLast) {
                assertThat(counts.getFirst()).isEqualTo(1); // ⌊10/3⌋ = 3 samples, ⌊3/2⌋ = 1 batch
            } else {
                assertThat(counts.getFirst()).isEqualTo(2); // ⌈10/3⌉ = 4 samples, 2 batches
                assertThat(seen).hasSize(10);
            }
        }
    }

    @Test
    void drawsAreTheSameForAnyWorkerCount() {
        List<Sample> one;
        List<Sample> many;
        TestingDataset slow = new TestingDataset(120);
        slow.delaySeed = 5;
        try (var loader = DataLoader.builder(slow).batchSize(8).workers(1).seed(11).sampler("shuffled").build()) {
            one = epoch(loader).stream().flatMap(List::stream).toList();
        }
        try (var loader = DataLoader.builder(slow).batchSize(8).workers(16).seed(11).sampler("shuffled").build()) {
            many = epoch(loader).stream().flatMap(List::stream).toList();
        }
        assertThat(many).isEqualTo(one);
        try (var loader = DataLoader.builder(slow).batchSize(8).workers(64).virtualThreads(true).seed(11)
                .sampler("shuffled").build()) {
            assertThat(epoch(loader).stream().flatMap(List::stream).toList()).as("virtual I/O threads").isEqualTo(one);
        }
        assertThat(one.stream().map(Sample::draw).distinct().count()).isEqualTo(120);
    }

    @Test
    void resumeMidEpochEqualsAContinuousRunBitForBit() {
        List<List<Sample>> continuous = new ArrayList<>();
        try (var loader = shuffledWithTransform()) {
            continuous.addAll(epoch(loader));
            continuous.addAll(epoch(loader));
        }
        LoaderState saved;
        List<List<Sample>> resumed = new ArrayList<>();
        try (var loader = shuffledWithTransform()) {
            epoch(loader); // epoch 0
            Iterator<Batch<List<Sample>>> it = loader.iterator();
            for (int i = 0; i < 4; i++) {
                resumed.add(it.next().data());
            }
            saved = loader.state();
        }
        assertThat(saved).isEqualTo(new LoaderState(21, 1, 4));
        try (var loader = shuffledWithTransform()) {
            loader.restore(saved);
            resumed.addAll(epoch(loader));
        }
        int perEpoch = continuous.size() / 2;
        assertThat(resumed).isEqualTo(continuous.subList(perEpoch, continuous.size()));
    }

    private static DataLoader<Sample, Sample, List<Sample>> shuffledWithTransform() {
        TestingDataset ds = new TestingDataset(45);
        ds.delaySeed = 1;
        return DataLoader.builder(ds).batchSize(4).workers(5).sampler("shuffled").seed(21)
                .transform((s, ctx, rng) -> new Sample(s.index(), s.draw() ^ rng.nextLong(), s.gaussian() + rng.nextDouble()))
                .build();
    }

    @Test
    void restoringAStateOfAnotherSeedFailsNamingTheOption() {
        try (var loader = DataLoader.builder(new TestingDataset(10)).batchSize(2).seed(1).build()) {
            assertThatThrownBy(() -> loader.restore(new LoaderState(2, 0, 1))).hasMessageContaining("seed")
                    .hasMessageContaining("2").hasMessageContaining("1");
            assertThatThrownBy(() -> loader.restore(new LoaderState(1, 0, 6))).hasMessageContaining("6");
        }
    }

    @Test
    void batchNIsDeliveredBeforeTheErrorOfBatchNPlusOne() {
        TestingDataset ds = new TestingDataset(20);
        ds.failAt = 9; // batch 2 with batch size 4
        try (var loader = DataLoader.builder(ds).batchSize(4).workers(4).build()) {
            Iterator<Batch<List<Sample>>> it = loader.iterator();
            assertThat(it.next().index()).isZero();
            // preparing batch 2 (the lookahead of this call) fails; batch 1 still comes out
            Batch<List<Sample>> b1 = it.next();
            assertThat(b1.index()).isEqualTo(1);
            assertThat(b1.data()).extracting(Sample::index).containsExactly(4L, 5L, 6L, 7L);
            assertThat(it.hasNext()).isTrue();
            assertThatThrownBy(it::next)
                    .isInstanceOf(LoaderException.class)
                    .hasMessageContaining("sample 9")
                    .hasMessageContaining("batch 2")
                    .hasMessageContaining("corrupt record")
                    .satisfies(e -> assertThat(((LoaderException) e).sampleIndex()).isEqualTo(9));
            assertThat(it.hasNext()).isFalse();
        }
        assertThat(ds.released).as("host samples pulled before the failure are released").contains(8L);
    }

    @Test
    void anErrorInTheFirstBatchIsRaisedByTheFirstNext() {
        TestingDataset ds = new TestingDataset(8);
        ds.failAt = 1;
        try (var loader = DataLoader.builder(ds).batchSize(4).build()) {
            assertThatThrownBy(() -> loader.iterator().next()).isInstanceOf(LoaderException.class).hasMessageContaining("sample 1");
        }
    }

    @Test
    void aDatasetReturningNullIsReportedWithItsIndex() {
        TestingDataset ds = new TestingDataset(8);
        ds.nullAt = 5;
        try (var loader = DataLoader.builder(ds).batchSize(2).build()) {
            assertThatThrownBy(() -> epoch(loader)).isInstanceOf(LoaderException.class)
                    .hasMessageContaining("sample 5").hasMessageContaining("null");
        }
    }

    @Test
    void aDatasetThatBlocksForeverIsReportedWithItsIndexAndNothingHangs() throws Exception {
        TestingDataset ds = new TestingDataset(8);
        ds.hangAt = 3;
        String prefix;
        try (var loader = DataLoader.builder(ds).batchSize(2)
                .config(LoaderConfig.of(2).withLoadTimeout(Duration.ofMillis(300))).build()) {
            prefix = "penstock-io-" + loader.name() + "-";
            assertThatThrownBy(() -> epoch(loader)).isInstanceOf(LoaderException.class)
                    .hasMessageContaining("sample 3").hasMessageContaining("did not finish loading");
        }
        assertThat(ThreadCensus.awaitNone(prefix, Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void anEarlyBreakThenCloseLeavesNoLiveThread() throws Exception {
        String name;
        try (var loader = DataLoader.builder(new TestingDataset(1000)).batchSize(4).workers(6).build()) {
            name = loader.name();
            for (Batch<List<Sample>> b : loader) {
                if (b.index() == 2) {
                    break;
                }
            }
            assertThat(ThreadCensus.live("penstock-io-" + name + "-")).as("I/O threads while open").hasSize(6);
        }
        assertThat(ThreadCensus.awaitNone("penstock-io-" + name + "-", Duration.ofSeconds(5))).isEmpty();
        assertThat(ThreadCensus.awaitNone("penstock-" + name + "-", Duration.ofSeconds(5))).isEmpty();
    }

    @Test
    void startingANewIterationStopsThePreviousOnesThreads() throws Exception {
        try (var loader = DataLoader.builder(new TestingDataset(1000)).batchSize(4).workers(3).build()) {
            loader.iterator().next();
            loader.iterator().next();
            loader.iterator().next();
            Thread.sleep(20);
            assertThat(ThreadCensus.live("penstock-io-" + loader.name() + "-")).hasSize(3);
        }
    }

    @Test
    void invalidOptionsFailAtConstructionNamingTheOptionAndValue() {
        TestingDataset ds = new TestingDataset(4);
        assertThatThrownBy(() -> DataLoader.builder(ds).batchSize(0)).hasMessageContaining("'batchSize'").hasMessageContaining("0");
        assertThatThrownBy(() -> DataLoader.builder(ds).prefetchDepth(-2)).hasMessageContaining("'prefetchDepth'").hasMessageContaining("-2");
        assertThatThrownBy(() -> DataLoader.builder(ds).sampler("bogus")).hasMessageContaining("'sampler'").hasMessageContaining("bogus");
        assertThatThrownBy(() -> DataLoader.builder(ds).shard(4, 4)).hasMessageContaining("'rank'").hasMessageContaining("4");
        assertThatThrownBy(() -> DataLoader.builder(ds).workers(0)).hasMessageContaining("'workers'");
        assertThatThrownBy(() -> DataLoader.builder(ds).epoch(-1)).hasMessageContaining("'epoch'");
    }

    @Test
    void aMultiDatasetConcatenatesAndTagsSamples() {
        MultiDataset<Sample, Sample> multi = MultiDataset.of(new TestingDataset(3), new TestingDataset(0), new TestingDataset(2));
        assertThat(multi.size()).isEqualTo(5);
        try (var loader = DataLoader.builder(multi).batchSize(2).build()) {
            List<Tagged<Sample>> all = new ArrayList<>();
            for (Batch<List<Tagged<Sample>>> b : loader) {
                all.addAll(b.data());
            }
            assertThat(all).extracting(Tagged::dataset).containsExactly(0, 0, 0, 2, 2);
            assertThat(all).extracting(Tagged::localIndex).containsExactly(0L, 1L, 2L, 0L, 1L);
        }
    }

    @Test
    void aStreamingDatasetBatchesOnTheFlyUntilTheConsumerStops() throws Exception {
        StreamingDataset<Long, Long> stream = new StreamingDataset<>() {
            @Override
            public Long loadHost(long sequence, java.util.random.RandomGenerator rng) {
                return sequence * sequence;
            }

            @Override
            public Long consume(Long host, PrepContext ctx) {
                return host;
            }
        };
        String name;
        List<Long> got = new ArrayList<>();
        try (var loader = DataLoader.builder(stream).batchSize(3).workers(2).build()) {
            name = loader.name();
            assertThat(loader.batchesPerEpoch()).isEqualTo(-1);
            for (Batch<List<Long>> b : loader) {
                got.addAll(b.data());
                if (b.index() == 4) {
                    break;
                }
            }
        }
        assertThat(got).containsExactlyElementsOf(LongStream.range(0, 15).map(i -> i * i).boxed().toList());
        assertThat(ThreadCensus.awaitNone("penstock-io-" + name + "-", Duration.ofSeconds(5))).isEmpty();
    }
}
