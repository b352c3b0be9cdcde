package dev.penstock.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.device.TestingDevices;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.observe.BatchStall;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// One-batch lookahead on the preprocessing stream and deferred gating of the compute stream.
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LookaheadTest {

    /// Samples whose `consume` enqueues slow work on the prep stream.
    static final class SlowPrepDataset implements Dataset<Long, Long> {
        final List<Long> consumed = new CopyOnWriteArrayList<>();
        final Set<Long> prepared = ConcurrentHashMap.newKeySet();
        final long prepMs;

        SlowPrepDataset(long prepMs) {
            this.prepMs = prepMs;
        }

        @Override
        public long size() {
            return 12;
        }

        @Override
        public Long loadHost(long index, RandomGenerator rng) {
            return index;
        }

        @Override
        public Long consume(Long host, PrepContext ctx) {
            consumed.add(host);
            ctx.stream().launch("prep sample " + host, () -> {
                Thread.sleep(prepMs);
                prepared.add(host);
            });
            return host;
        }
    }

    @Test
    void batchNPlusOneIsEnqueuedBeforeComputeWaitsForBatchN() {
        List<String> recorded = new CopyOnWriteArrayList<>();
        try (Device device = TestingDevices.recording(new CpuDevice(), recorded);
             var loader = DataLoader.builder(new SlowPrepDataset(0)).batchSize(3).device(device).build()) {
            Iterator<Batch<List<Long>>> it = loader.iterator();
            it.next();
            List<String> log = List.copyOf(recorded);
            int firstWait = log.indexOf("compute: waitFor");
            assertThat(firstWait).isPositive();
            assertThat(log.indexOf("prep: end batch 1")).as("batch 1 fully enqueued before compute waits for batch 0: %s", log)
                    .isBetween(0, firstWait);
            assertThat(log.indexOf("prep: begin batch 2")).as("no more than one batch of lookahead").isEqualTo(-1);
        }
    }

    @Test
    void theHostIsNotBlockedWhileComputeIsGatedOnTheBatch() {
        SlowPrepDataset ds = new SlowPrepDataset(300);
        try (var loader = DataLoader.builder(ds).batchSize(2).build()) {
            Iterator<Batch<List<Long>>> it = loader.iterator();
            Batch<List<Long>> b0 = it.next();
            // next() returned while batch 0's preparation (2 × 300 ms) still runs on the prep stream
            assertThat(b0.ready().isDone()).isFalse();
            assertThat(ds.consumed).as("the lookahead consumed batch 1").contains(2L, 3L);
            AtomicBoolean sawBatchPrepared = new AtomicBoolean();
            loader.computeStream().launch("model step", () -> sawBatchPrepared.set(ds.prepared.containsAll(b0.data())));
            loader.computeStream().synchronize();
            assertThat(sawBatchPrepared).as("compute work ran after batch 0's prep").isTrue();
        }
    }

    /// Host samples are 1-d f32 blocks from a small pool; batches are stacked on the prep stream.
    static class BlockDataset implements Dataset<Block, Block> {
        final HostArena arena = Memory.newSharedArena("samples");
        final java.util.concurrent.ConcurrentLinkedQueue<Block> free = new java.util.concurrent.ConcurrentLinkedQueue<>();

        @Override
        public long size() {
            return 37;
        }

        @Override
        public Block loadHost(long index, RandomGenerator rng) {
            Block b = free.poll();
            if (b == null) {
                synchronized (arena) {
                    b = arena.allocate(DType.F32, 16);
                }
            }
            for (int j = 0; j < 16; j++) {
                b.setFloat(j, index * 100 + j);
            }
            return b;
        }

        @Override
        public Block consume(Block host, PrepContext ctx) {
            return host; // device memory is host memory on the CPU device; collate copies it
        }

        @Override
        public void releaseHost(Block host) {
            free.add(host);
        }
    }

    @Test
    void stackedBatchesHoldTheRightDataAndAllBatchMemoryIsFreed() {
        long before = Memory.liveBytes();
        BlockDataset ds = new BlockDataset();
        List<float[]> firstRows = new ArrayList<>();
        try (var loader = DataLoader.builder(ds).batchSize(5).workers(3).collate(Collate.stack()).build()) {
            for (Batch<Block> b : loader) {
                b.ready().await();
                assertThat(b.data().shape()).containsExactly(b.size(), 16);
                for (int r = 0; r < b.size(); r++) {
                    assertThat(b.data().getFloat(r * 16L + 7)).isEqualTo(b.samples()[r] * 100 + 7);
                }
                firstRows.add(new float[] {b.data().getFloat(0)});
            }
            assertThat(loader.stallReport().batches()).hasSize(8);
            assertThat(loader.stallReport().batches()).allSatisfy(s -> assertThat(s.prepNs()).isPositive());
        }
        assertThat(firstRows).hasSize(8);
        ds.arena.close();
        assertThat(Memory.liveBytes()).as("batch arenas and sample pool freed").isEqualTo(before);
    }

    /// Blocks whose first four samples each hold the prep stream for 700 ms.
    static final class SlowStartBlocks extends BlockDataset {
        final java.util.concurrent.atomic.AtomicInteger slow = new java.util.concurrent.atomic.AtomicInteger(4);

        @Override
        public Block consume(Block host, PrepContext ctx) {
            if (slow.getAndDecrement() > 0) {
                ctx.stream().launch("slow prep", () -> Thread.sleep(700));
            }
            return host;
        }
    }

    @Test
    void aCloseThatGivesUpOnTheStreamsRecyclesNothingTheyMayStillWrite() {
        long before = Memory.liveBytes();
        SlowStartBlocks ds = new SlowStartBlocks();
        List<String> warnings;
        try (var log = dev.penstock.testing.LogCapture.of(LoaderIterator.class.getName());
             var loader = DataLoader.builder(ds).batchSize(2).workers(2).collate(Collate.stack())
                     .closeTimeout(java.time.Duration.ofMillis(50)).build()) {
            Iterator<Batch<Block>> first = loader.iterator();
            Batch<Block> stale = first.next(); // its stacking waits behind 1.4 s of prep work
            long staleAddress = stale.data().segment().address();
            Iterator<Batch<Block>> second = loader.iterator(); // closes the first, which gives up after 50 ms; resumes at batch 1
            warnings = List.copyOf(log.messages());
            Set<Long> secondAddresses = new java.util.HashSet<>();
            while (second.hasNext()) {
                Batch<Block> b = second.next();
                b.ready().await();
                secondAddresses.add(b.data().segment().address());
                for (int r = 0; r < b.size(); r++) {
                    assertThat(b.data().getFloat(r * 16L + 3)).isEqualTo(b.samples()[r] * 100 + 3);
                }
            }
            assertThat(secondAddresses).as("the resumed iteration never gets batch memory the prep stream may still write")
                    .doesNotContain(staleAddress);
        }
        assertThat(warnings).anySatisfy(m -> assertThat(m).contains("did not finish within").contains("not recycled"));
        assertThat(Memory.liveBytes() - before).as("abandoned batch memory is leaked, never freed under a writer").isPositive();
        ds.arena.close();
    }

    @Test
    void theStallReportAccountsEveryBatch() {
        Dataset<Long, Long> slowLoads = new Dataset<>() {
            @Override
            public long size() {
                return 20;
            }

            @Override
            public Long loadHost(long index, RandomGenerator rng) throws Exception {
                Thread.sleep(2);
                return index;
            }

            @Override
            public Long consume(Long host, PrepContext ctx) {
                return host;
            }
        };
        try (var loader = DataLoader.builder(slowLoads).batchSize(4).workers(1).prefetchDepth(1).build()) {
            for (Batch<List<Long>> b : loader) {
                assertThat(b.size()).isEqualTo(4);
            }
            List<BatchStall> stalls = loader.stallReport().batches();
            assertThat(stalls).extracting(BatchStall::batch).containsExactly(0L, 1L, 2L, 3L, 4L);
            // one worker, depth 1: the consumer waits for every load, each at least 2 ms
            assertThat(stalls).allSatisfy(s -> assertThat(s.loadBusyNs()).isGreaterThanOrEqualTo(4 * 2_000_000L));
            assertThat(loader.stallReport().totalWaitNs()).isPositive();
            assertThat(loader.stallReport().exposedWaitFraction()).isBetween(0.0, 1.0);
            assertThat(loader.stallReport().summary()).contains("5 batches");
        }
    }
}
