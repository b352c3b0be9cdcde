package dev.penstock.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.DeviceException;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// Work that fails on the preprocessing stream surfaces on the consumer, naming the operation,
/// and strands no host sample.
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrepFailureTest {

    /// `consume` enqueues a decode that fails for one sample.
    static final class FailingDecode implements Dataset<Long, Long> {
        final long badSample;
        final int onlyInEpoch; // -1: every epoch
        final Set<Long> released = ConcurrentHashMap.newKeySet();

        FailingDecode(long badSample) {
            this(badSample, -1);
        }

        FailingDecode(long badSample, int onlyInEpoch) {
            this.badSample = badSample;
            this.onlyInEpoch = onlyInEpoch;
        }

        @Override
        public long size() {
            return 24;
        }

        @Override
        public Long loadHost(long index, RandomGenerator rng) {
            return index;
        }

        @Override
        public Long consume(Long host, PrepContext ctx) {
            ctx.stream().launch("decode sample " + host, () -> {
                if (host == badSample && (onlyInEpoch < 0 || ctx.epoch() == onlyInEpoch)) {
                    throw new IllegalStateException("bad header");
                }
            });
            return host;
        }

        @Override
        public void releaseHost(Long host) {
            released.add(host);
        }
    }

    @Test
    void aConsumerThatSynchronisesSeesTheFailedOperationAtItsBatch() {
        FailingDecode ds = new FailingDecode(6);
        try (var loader = DataLoader.builder(ds).batchSize(4).build()) {
            Iterator<Batch<List<Long>>> it = loader.iterator();
            it.next().ready().await(); // batch 0 is fine
            // Batch 1's failure surfaces at batch 1: from the loader if its preparation has
            // already finished when next() is called, otherwise at the consumer's own sync.
            assertThatThrownBy(() -> it.next().ready().await())
                    .isInstanceOfAny(DeviceException.class, LoaderException.class)
                    .hasMessageContaining("decode sample 6").hasMessageContaining("bad header");
        }
        assertThat(ds.released).as("every pulled host sample was given back").hasSizeGreaterThanOrEqualTo(8)
                .contains(4L, 5L, 6L, 7L);
    }

    @Test
    void theLoaderRaisesAFinishedFailedPreparationAtItsBatch() throws Exception {
        FailingDecode ds = new FailingDecode(9);
        try (var loader = DataLoader.builder(ds).batchSize(4).build()) {
            Iterator<Batch<List<Long>>> it = loader.iterator();
            assertThat(it.next().index()).isZero();
            Thread.sleep(100); // batch 1 and 2 finish preparing (batch 2 fails) while we "compute"
            assertThat(it.next().index()).isEqualTo(1);
            Thread.sleep(100);
            assertThatThrownBy(it::next).isInstanceOf(LoaderException.class)
                    .hasMessageContaining("batch 2").hasMessageContaining("decode sample 9")
                    .hasMessageContaining("bad header");
        }
        assertThat(ds.released).contains(8L, 9L, 10L, 11L);
    }

    @Test
    void aLaterIterationIsNotPoisonedByAnEarlierFailure() {
        FailingDecode ds = new FailingDecode(1, 0);
        try (var loader = DataLoader.builder(ds).batchSize(4).build()) {
            Iterator<Batch<List<Long>>> it = loader.iterator();
            assertThatThrownBy(() -> it.next().ready().await()).isInstanceOfAny(DeviceException.class, LoaderException.class);
            loader.setEpoch(1);
            // epoch 1 decodes cleanly: the prep stream's failure from epoch 0 was cleared
            int batches = 0;
            for (Batch<List<Long>> b : loader) {
                b.ready().await();
                batches++;
            }
            assertThat(batches).isEqualTo(6);
        }
    }
}
