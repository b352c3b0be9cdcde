package dev.penstock.random;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.testing.Stats;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SeedsTest {

    @Test
    void theTwoCoordinateDeriveIsTheVarargsDerive() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        for (int k = 0; k < 1000; k++) {
            long seed = rnd.nextLong();
            long a = rnd.nextLong();
            long b = k % 3 == 0 ? k : rnd.nextLong();
            String domain = "penstock.test." + (k % 7);
            org.assertj.core.api.Assertions.assertThat(Seeds.derive(seed, domain, a, b)).isEqualTo(Seeds.derive(seed, domain, new long[] {a, b}));
        }
    }

    @Test
    void trailingZeroCoordinatesNoLongerCollide() {
        // SeedSequence in the original dropped trailing zeros: (b) and (b, 0) gave one seed.
        for (long b : new long[] {0, 1, 7, 1L << 40}) {
            assertThat(Seeds.derive(42, "d", b)).isNotEqualTo(Seeds.derive(42, "d", b, 0));
            assertThat(Seeds.derive(42, "d", b, 0)).isNotEqualTo(Seeds.derive(42, "d", b, 0, 0));
        }
        assertThat(Seeds.derive(42, "d")).isNotEqualTo(Seeds.derive(42, "d", 0));
    }

    @Test
    void coordinatesAreNotSplitIntoUnprefixedThirtyTwoBitWords() {
        // The original turned (5 + 2^32, 7) into the words (5, 1, 7): the same as (5, 1, 7).
        assertThat(Seeds.derive(3, "d", 5, 1, 7)).isNotEqualTo(Seeds.derive(3, "d", 5 + (1L << 32), 7));
        assertThat(Seeds.derive(3, "d", 5, 1, 7)).isNotEqualTo(Seeds.derive(3, "d", (1L << 32) | 5, 7));
    }

    @Test
    void domainsSeedsAndAllSixtyFourBitsSeparate() {
        assertThat(Seeds.derive(1, "a", 5)).isNotEqualTo(Seeds.derive(1, "b", 5));
        assertThat(Seeds.derive(1, "ab", 5)).isNotEqualTo(Seeds.derive(1, "a", 'b', 5));
        assertThat(Seeds.derive(1, "d", 5)).isNotEqualTo(Seeds.derive(2, "d", 5));
        // seeds that differ only in the high 32 bits (the original kept 32 usable bits)
        assertThat(Seeds.derive(1, "d", 5)).isNotEqualTo(Seeds.derive(1 + (1L << 32), "d", 5));
        assertThat(Seeds.derive(1L << 63, "d")).isNotEqualTo(Seeds.derive(0, "d"));
    }

    @Test
    void aMillionNeighbouringKeysGiveDistinctSeeds() {
        Set<Long> seen = new HashSet<>();
        for (int epoch = 0; epoch < 10; epoch++) {
            for (int i = 0; i < 100_000; i++) {
                seen.add(Seeds.derive(7, Seeds.SAMPLE, epoch, i));
            }
        }
        assertThat(seen).hasSize(1_000_000);
    }

    @Test
    void drawsAreTheSameForAnyThreadCountAndOrder() throws Exception {
        long[] serial = LongStream.range(0, 5000).map(i -> Seeds.generator(11, Seeds.SAMPLE, 2, i).nextLong()).toArray();
        for (int threads : new int[] {2, 7}) {
            long[] parallel = new long[5000];
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                // reversed submission order: the last index is drawn first
                List<Future<Long>> fs = IntStream.range(0, 5000).map(i -> 4999 - i)
                        .mapToObj(i -> pool.submit(() -> parallel[i] = Seeds.generator(11, Seeds.SAMPLE, 2, i).nextLong()))
                        .toList();
                for (Future<?> f : fs) {
                    f.get();
                }
            }
            assertThat(parallel).as("draws with %d threads", threads).isEqualTo(serial);
        }
    }

    @Test
    void firstDrawsOverOneHundredThousandIndicesAreUniform() {
        long seed = 20261130L;
        int cells = 256;
        long[] counts = new long[cells];
        for (int i = 0; i < 100_000; i++) {
            counts[Seeds.generator(seed, Seeds.SAMPLE, 0, i).nextInt(cells)]++;
        }
        double chi = Stats.chiSquareUniform(counts);
        assertThat(chi).as("chi-square of first draws (seed %d, 255 dof)", seed)
                .isLessThan(Stats.chiSquareCritical(cells - 1, 0.001));
        // and not suspiciously perfect either (would hint at a counter, not a generator)
        assertThat(chi).isGreaterThan(150);
    }

    @Test
    void lowBitsOfDerivedSeedsAreBalanced() {
        long ones = 0;
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            ones += Long.bitCount(Seeds.derive(5, "bits", i));
        }
        double mean = (double) ones / n;
        assertThat(mean).isBetween(31.9, 32.1);
    }

    @Test
    void generatorsAreReproducible() {
        var a = Seeds.generator(9, "x", 1, 2);
        var b = Seeds.generator(9, "x", 1, 2);
        for (int i = 0; i < 100; i++) {
            assertThat(a.nextDouble()).isEqualTo(b.nextDouble());
        }
    }
}
