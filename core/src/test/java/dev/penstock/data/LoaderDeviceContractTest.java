package dev.penstock.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.Device;
import dev.penstock.device.DeviceException;
import dev.penstock.device.Stream;
import dev.penstock.device.TestingDevices;
import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/// The loader's contract on a device whose memory the host may not touch: samples are copied to
/// the device on the preprocessing stream and stacked there (`Collate.stack`, device copies),
/// with one batch of lookahead, compute gated on each batch, exact resume, a failed
/// preparation raised at its batch, and an early close that gives every sample back. One
/// subclass per device: the CPU device here, the CUDA driver's host emulation (device memory
/// the host cannot read) in the cuda module.
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LoaderDeviceContractTest {
    private static final int WIDTH = 16;
    private Device device;

    /// A fresh device for one test.
    protected abstract Device newDevice();

    @BeforeEach
    void open() {
        device = newDevice();
    }

    @AfterEach
    void closeDevice() {
        device.close();
    }

    /// Rows of `WIDTH` floats (`index * 100 + j`) in host memory, copied to device memory by
    /// `consume`; the copy of sample `bad` is followed by work that fails.
    static final class DeviceRows implements Dataset<Block, Block> {
        final HostArena arena = Memory.newSharedArena("rows");
        final ConcurrentLinkedQueue<Block> free = new ConcurrentLinkedQueue<>();
        final AtomicInteger loaded = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();
        final java.util.Set<Long> outstanding = ConcurrentHashMap.newKeySet();
        final long size;
        final long bad;

        DeviceRows(long size, long bad) {
            this.size = size;
            this.bad = bad;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public Block loadHost(long index, RandomGenerator rng) {
            Block b = free.poll();
            if (b == null) {
                synchronized (arena) {
                    b = arena.allocate(DType.F32, WIDTH);
                }
            }
            for (int j = 0; j < WIDTH; j++) {
                b.setFloat(j, index * 100 + j);
            }
            loaded.incrementAndGet();
            outstanding.add(b.segment().address());
            return b;
        }

        @Override
        public Block consume(Block host, PrepContext ctx) {
            Block onDevice = ctx.arena().allocate(DType.F32, WIDTH);
            ctx.stream().copy(host, onDevice);
            if (Math.round(host.getFloat(0) / 100) == bad) {
                ctx.stream().launch("decode sample " + bad, () -> {
                    throw new IllegalStateException("bad header");
                });
            }
            return onDevice;
        }

        @Override
        public void releaseHost(Block host) {
            assertThat(outstanding.remove(host.segment().address())).as("a host sample given back twice").isTrue();
            released.incrementAndGet();
            free.add(host);
        }
    }

    /// The batch's rows, copied back to the host on the compute stream (gated on the batch).
    private static float[][] rowsOf(DataLoader<Block, Block, Block> loader, Batch<Block> b, HostArena back) {
        Block host = back.allocate(DType.F32, b.size(), WIDTH);
        Stream compute = loader.computeStream();
        compute.copy(b.data(), host);
        compute.synchronize();
        float[][] rows = new float[b.size()][WIDTH];
        for (int r = 0; r < b.size(); r++) {
            for (int j = 0; j < WIDTH; j++) {
                rows[r][j] = host.getFloat((long) r * WIDTH + j);
            }
        }
        return rows;
    }

    private DataLoader<Block, Block, Block> loader(DeviceRows ds, Device on) {
        return DataLoader.builder(ds).device(on).batchSize(5).workers(3).seed(11).sampler("shuffled").collate(Collate.stack()).build();
    }

    private static void assertRowsAreTheSamples(Batch<Block> b, float[][] rows) {
        assertThat(rows.length).isEqualTo(b.size());
        for (int r = 0; r < b.size(); r++) {
            for (int j = 0; j < WIDTH; j++) {
                assertThat(rows[r][j]).as("batch %d row %d column %d", b.index(), r, j).isEqualTo(b.samples()[r] * 100 + j);
            }
        }
    }

    @Test
    void batchesAreStackedOnTheDeviceAndHoldEverySampleInOrder() {
        DeviceRows ds = new DeviceRows(37, -1);
        List<Long> seen = new ArrayList<>();
        try (HostArena back = Memory.newSharedArena("back"); var loader = loader(ds, device)) {
            for (Batch<Block> b : loader) {
                assertRowsAreTheSamples(b, rowsOf(loader, b, back));
                for (long s : b.samples()) {
                    seen.add(s);
                }
            }
        }
        assertThat(seen).hasSize(37).doesNotHaveDuplicates();
        assertThat(ds.released.get()).isEqualTo(ds.loaded.get());
        ds.arena.close();
    }

    @Test
    void batchNPlusOneIsEnqueuedBeforeComputeWaitsForBatchN() {
        List<String> recorded = new CopyOnWriteArrayList<>();
        DeviceRows ds = new DeviceRows(20, -1);
        try (var loader = loader(ds, TestingDevices.recording(device, recorded))) {
            loader.iterator().next();
            List<String> log = List.copyOf(recorded);
            int firstWait = log.indexOf("compute: waitFor");
            assertThat(firstWait).as("compute is gated on batch 0: %s", log).isPositive();
            assertThat(log.indexOf("prep: end batch 1")).as("batch 1 fully enqueued before compute waits for batch 0: %s", log)
                    .isBetween(0, firstWait);
            assertThat(log.indexOf("prep: begin batch 2")).as("no more than one batch of lookahead").isEqualTo(-1);
        }
        ds.arena.close();
    }

    @Test
    void aLoaderRestoredFromItsStateDeliversExactlyTheBatchesThatFollow() {
        List<long[]> whole = new ArrayList<>();
        DeviceRows ds = new DeviceRows(37, -1);
        try (var loader = loader(ds, device)) {
            for (Batch<Block> b : loader) {
                whole.add(b.samples());
            }
        }
        LoaderState saved;
        try (HostArena back = Memory.newSharedArena("back"); var loader = loader(ds, device)) {
            Iterator<Batch<Block>> it = loader.iterator();
            for (int i = 0; i < 3; i++) {
                assertThat(it.next().samples()).isEqualTo(whole.get(i));
            }
            saved = loader.state();
        }
        try (HostArena back = Memory.newSharedArena("back"); var loader = loader(ds, device)) {
            loader.restore(saved);
            List<long[]> rest = new ArrayList<>();
            for (Batch<Block> b : loader) {
                assertRowsAreTheSamples(b, rowsOf(loader, b, back));
                rest.add(b.samples());
            }
            assertThat(rest).containsExactlyElementsOf(whole.subList(3, whole.size()));
        }
        assertThat(ds.released.get()).isEqualTo(ds.loaded.get());
        ds.arena.close();
    }

    @Test
    void aFailedPreparationSurfacesAtItsBatchAndStrandsNoSample() {
        DeviceRows ds = new DeviceRows(24, 6);
        try (HostArena back = Memory.newSharedArena("back");
             var loader = DataLoader.builder(ds).device(device).batchSize(4).collate(Collate.stack()).build()) {
            Iterator<Batch<Block>> it = loader.iterator();
            Batch<Block> first = it.next();
            assertRowsAreTheSamples(first, rowsOf(loader, first, back));
            assertThatThrownBy(() -> {
                Batch<Block> second = it.next();
                second.ready().await();
            }).isInstanceOfAny(DeviceException.class, LoaderException.class)
                    .hasMessageContaining("decode sample 6").hasMessageContaining("bad header");
        }
        assertThat(ds.released.get()).as("every loaded host sample given back").isEqualTo(ds.loaded.get());
        ds.arena.close();
    }

    @Test
    void anEarlyCloseGivesEverySampleBackOnce() {
        DeviceRows ds = new DeviceRows(200, -1);
        try (var loader = DataLoader.builder(ds).device(device).batchSize(4).workers(6).prefetchDepth(20).collate(Collate.stack()).build()) {
            int n = 0;
            for (Batch<Block> b : loader) {
                if (++n == 3) {
                    break;
                }
            }
        }
        assertThat(ds.loaded.get()).isGreaterThanOrEqualTo(12);
        assertThat(ds.released.get()).as("every loaded host sample given back, once").isEqualTo(ds.loaded.get());
        assertThat(ds.outstanding).isEmpty();
        ds.arena.close();
    }
}
