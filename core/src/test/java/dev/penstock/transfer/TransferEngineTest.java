package dev.penstock.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.CpuDevice;
import dev.penstock.device.Device;
import dev.penstock.device.TestingDevices;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Lease;
import dev.penstock.memory.Memory;
import dev.penstock.memory.StagingPool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransferEngineTest {
    private long liveBefore;
    private Device device;

    @BeforeEach
    void open() {
        liveBefore = Memory.liveBytes();
    }

    @AfterEach
    void closeDevice() {
        if (device != null) {
            device.close();
        }
        assertThat(Memory.liveBytes()).as("device buffers, staging pool and input freed").isEqualTo(liveBefore);
    }

    /// Byte `i` of the input: differs between neighbouring chunks and within a chunk.
    private static byte pattern(long i) {
        return (byte) (i * 7 + (i >>> 9) * 31);
    }

    private static MemorySegment input(HostArena arena, long bytes) {
        MemorySegment s = arena.allocateBytes(bytes);
        for (long i = 0; i < bytes; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        }
        return s;
    }

    /// A kernel that checks every byte of its chunk against the input pattern.
    private static Kernel verifying(long chunkBytes, List<String> errors, AtomicLong seenBytes, long kernelSleepMs) {
        return (chunk, data) -> {
            if (kernelSleepMs > 0) {
                Thread.sleep(kernelSleepMs);
            }
            MemorySegment s = data.segment();
            for (long j = 0; j < data.byteSize(); j++) {
                if (s.get(ValueLayout.JAVA_BYTE, j) != pattern(chunk * chunkBytes + j)) {
                    errors.add("chunk " + chunk + " byte " + j);
                    return;
                }
            }
            seenBytes.addAndGet(data.byteSize());
        };
    }

    private void runIntegrity(Device dev, long kernelSleepMs) throws Exception {
        device = dev;
        long chunk = 4096;
        long total = 37 * chunk + 123; // a short last chunk
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicLong seen = new AtomicLong();
        try (HostArena arena = Memory.newSharedArena("input");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 3))) {
            MemorySegment in = input(arena, total);
            TransferStats stats = engine.run(total, ChunkSource.of(in), verifying(chunk, errors, seen, kernelSleepMs));
            assertThat(errors).as("chunks that saw overwritten or wrong bytes").isEmpty();
            assertThat(seen.get()).isEqualTo(total);
            assertThat(stats.chunks()).isEqualTo(38);
            assertThat(engine.staging().leased()).isZero();
        }
    }

    @Test
    void everyChunkArrivesIntactWhenTheKernelIsSlow() throws Exception {
        runIntegrity(new CpuDevice(), 3);
    }

    @Test
    void everyChunkArrivesIntactWhenTheCopyIsSlow() throws Exception {
        runIntegrity(TestingDevices.slowCopies(new CpuDevice(), 3), 0);
    }

    @Test
    void aKernelThatEnqueuesItsOwnWorkSeesEveryChunkIntact() throws Exception {
        // the device-kernel form: the kernel enqueues on the compute stream itself, as a GPU
        // kernel launch does; here it enqueues the same slow verifying work as a host op
        device = new CpuDevice();
        long chunk = 4096;
        long total = 37 * chunk + 123;
        List<String> errors = new CopyOnWriteArrayList<>();
        AtomicLong seen = new AtomicLong();
        Kernel verify = verifying(chunk, errors, seen, 2);
        try (HostArena arena = Memory.newSharedArena("input");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 3))) {
            MemorySegment in = input(arena, total);
            TransferStats stats = engine.run(total, ChunkSource.of(in),
                    (TransferEngine.DeviceKernel) (compute, k, data) -> compute.launch("verify " + k, () -> verify.run(k, data)));
            assertThat(errors).as("chunks that saw overwritten or wrong bytes").isEmpty();
            assertThat(seen.get()).isEqualTo(total);
            assertThat(stats.chunks()).isEqualTo(38);
        }
    }

    /// The stats keep the first chunk's kernel time apart (a fresh JVM's JIT warm-up shows there),
    /// for host kernels and for kernels that enqueue their own work alike.
    @Test
    void theFirstChunksKernelIsTimedApart() throws Exception {
        device = new CpuDevice();
        long chunk = 4096;
        long total = 6 * chunk;
        try (HostArena arena = Memory.newSharedArena("input");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 2))) {
            MemorySegment in = input(arena, total);
            Kernel slowFirst = (k, data) -> Thread.sleep(k == 0 ? 60 : 2);
            TransferStats host = engine.run(total, ChunkSource.of(in), slowFirst);
            TransferStats enqueued = engine.run(total, ChunkSource.of(in),
                    (TransferEngine.DeviceKernel) (compute, k, data) -> compute.launch("k" + k, () -> slowFirst.run(k, data)));
            for (TransferStats st : new TransferStats[] {host, enqueued}) {
                assertThat(st.firstKernelNs()).as("chunk 0's kernel").isBetween(60_000_000L, st.kernelNs() - 5 * 2_000_000L);
            }
            assertThat(engine.run(0, ChunkSource.of(in), slowFirst).firstKernelNs()).as("no chunk").isZero();
        }
    }

    /// Runs `check` on a CPU device and on one whose copies are slow (`slowCopies`).
    private interface OnDevices {
        void check(Device dev, boolean slowCopies) throws Exception;
    }

    private void onBothDevices(OnDevices check) throws Exception {
        for (boolean slowCopies : new boolean[] {false, true}) {
            try (Device dev = slowCopies ? TestingDevices.slowCopies(new CpuDevice(), 2) : new CpuDevice()) {
                check.check(dev, slowCopies);
            }
        }
        device = null;
    }

    @Test
    void aDirectSourceIsCopiedFromWhereItLiesWithoutStagingAndStaysIntact() throws Exception {
        onBothDevices((dev, slowCopies) -> {
            long chunk = 4096;
            long total = 37 * chunk + 123;
            List<String> errors = new CopyOnWriteArrayList<>();
            AtomicLong seen = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong asked = new AtomicLong();
            AtomicLong mostAhead = new AtomicLong();
            try (HostArena arena = Memory.newSharedArena("input");
                 TransferEngine engine = new TransferEngine(dev, TransferConfig.of(chunk, 3))) {
                MemorySegment in = input(arena, total);
                ChunkSource direct = ChunkSource.direct(in);
                ChunkSource counted = new ChunkSource() {
                    @Override
                    public void read(long offset, MemorySegment staging, long bytes) throws Exception {
                        reads.incrementAndGet();
                        direct.read(offset, staging, bytes);
                    }

                    @Override
                    public MemorySegment direct(long offset, long bytes) {
                        mostAhead.accumulateAndGet(asked.incrementAndGet() - seen.get() / chunk, Math::max);
                        return direct.direct(offset, bytes);
                    }
                };
                TransferStats stats = engine.run(total, counted, verifying(chunk, errors, seen, slowCopies ? 0 : 2));
                assertThat(errors).as("chunks that saw overwritten or wrong bytes").isEmpty();
                assertThat(seen.get()).isEqualTo(total);
                assertThat(stats.chunks()).isEqualTo(38);
                assertThat(reads.get()).as("no staging copies").isZero();
                assertThat(engine.staging().leased()).isZero();
                assertThat(mostAhead.get()).as("chunks asked for ahead of the kernels").isLessThanOrEqualTo(3 + 3 + 1);
            }
        });
    }

    /// A source that reads ahead into buffers of its own (`filled`): the device copies from them
    /// (no staging buffer, no copy into one; the engine's staging pool is never allocated) and
    /// each comes back to its pool once copied — also when a kernel or a read fails mid-run.
    @Test
    void aSourceThatFillsItsOwnBuffersIsCopiedFromThemAndGetsEachBack() throws Exception {
        onBothDevices((dev, slowCopies) -> {
            long chunk = 4096;
            long total = 37 * chunk + 123;
            List<String> errors = new CopyOnWriteArrayList<>();
            AtomicLong seen = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            try (HostArena arena = Memory.newSharedArena("input");
                 StagingPool own = StagingPool.allocate("the source's read-ahead", 5, chunk);
                 TransferEngine engine = new TransferEngine(dev, TransferConfig.of(chunk, 3))) {
                MemorySegment in = input(arena, total);
                ChunkSource readAhead = fillingFrom(own, in, reads, () -> -1L);
                long before = Memory.liveBytes();
                TransferStats stats = engine.run(total, readAhead, verifying(chunk, errors, seen, slowCopies ? 0 : 2));
                assertThat(errors).as("chunks that saw overwritten or wrong bytes").isEmpty();
                assertThat(seen.get()).isEqualTo(total);
                assertThat(stats.chunks()).isEqualTo(38);
                assertThat(reads.get()).as("no staging copies").isZero();
                assertThat(own.leased()).as("every filled buffer back in its pool").isZero();
                assertThat(Memory.liveBytes()).as("no staging pool allocated").isEqualTo(before);

                assertThatThrownBy(() -> engine.run(total, readAhead, (k, data) -> {
                    if (k == 5) {
                        throw new ArithmeticException("NaN in row 3");
                    }
                })).isInstanceOf(TransferException.class).hasMessageContaining("chunk 5");
                assertThat(own.leased()).as("after a kernel failed").isZero();
                long[] bad = {7};
                assertThatThrownBy(() -> engine.run(total, fillingFrom(own, in, reads, () -> bad[0]), (k, data) -> { }))
                        .isInstanceOf(TransferException.class).hasMessageContaining("chunk 7").hasMessageContaining("disk gone");
                assertThat(own.leased()).as("after a read failed").isZero();
            }
        });
    }

    /// A source that fills a buffer of `pool` with the input's bytes for each chunk; the chunk
    /// `failing` names (-1: none) fails to read.
    private static ChunkSource fillingFrom(StagingPool pool, MemorySegment in, AtomicLong reads,
                                           java.util.function.LongSupplier failing) {
        return new ChunkSource() {
            @Override
            public void read(long offset, MemorySegment staging, long bytes) {
                reads.incrementAndGet();
                MemorySegment.copy(in, offset, staging, 0, bytes);
            }

            @Override
            public Lease filled(long offset, long bytes) throws Exception {
                if (offset / pool.bufferBytes() == failing.getAsLong()) {
                    throw new java.io.IOException("disk gone");
                }
                Lease lease = pool.acquire(java.time.Duration.ofSeconds(10));
                lease.segment().asSlice(0, bytes).fill((byte) 0x5a);
                MemorySegment.copy(in, offset, lease.segment(), 0, bytes);
                return lease;
            }
        };
    }

    @Test
    void aFillInParallelPartsCopiesEveryByteOfEveryChunk() throws Exception {
        try (HostArena arena = Memory.newSharedArena("input")) {
            long total = 5 * 4096 * 3 + 123;
            MemorySegment in = input(arena, total);
            for (int parts : new int[] {1, 2, 3, 5, 64}) {
                for (long chunk : new long[] {1, 4096, 3 * 4096 + 7, total}) {
                    ChunkSource fill = ChunkSource.of(in, parts);
                    MemorySegment staging = arena.allocateBytes(chunk);
                    for (long offset = 0; offset < total; offset += chunk) {
                        long bytes = Math.min(chunk, total - offset);
                        staging.fill((byte) 0x5a);
                        fill.read(offset, staging, bytes);
                        for (long j = 0; j < bytes; j++) {
                            if (staging.get(ValueLayout.JAVA_BYTE, j) != pattern(offset + j)) {
                                throw new AssertionError("parts " + parts + ", chunk " + chunk + ", offset " + offset + ": byte " + j);
                            }
                        }
                        if (bytes < chunk) {
                            assertThat(staging.get(ValueLayout.JAVA_BYTE, bytes)).as("nothing past the chunk").isEqualTo((byte) 0x5a);
                        }
                    }
                }
            }
            assertThatThrownBy(() -> ChunkSource.of(in, 0)).hasMessageContaining("parts must be at least 1");
        }
    }

    @Test
    void deviceMemoryStaysBoundedBySlotsWhateverTheInputSize() throws Exception {
        device = new CpuDevice();
        long chunk = 64 * 1024;
        AtomicLong maxLive = new AtomicLong();
        try (TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 2))) {
            engine.staging(); // the staging pool, allocated once when first needed
            long before = Memory.liveBytes();
            long total = 256 * chunk; // 16 MiB through 128 KiB of device memory
            engine.run(total, (offset, staging, bytes) -> staging.asSlice(0, bytes).fill((byte) 1),
                    (k, data) -> maxLive.accumulateAndGet(Memory.liveBytes(), Math::max));
            assertThat(engine.deviceBytes()).isEqualTo(2 * chunk);
            assertThat(maxLive.get()).as("no allocation during the run").isEqualTo(before);
        }
    }

    @Test
    void aKernelErrorSurfacesWithItsChunkAndTheEngineStopsCleanly() throws Exception {
        device = new CpuDevice();
        long chunk = 1024;
        AtomicLong kernelsRun = new AtomicLong();
        try (TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 2))) {
            assertThatThrownBy(() -> engine.run(100 * chunk, (o, s, b) -> { }, (k, data) -> {
                kernelsRun.incrementAndGet();
                if (k == 5) {
                    throw new ArithmeticException("NaN in row 3");
                }
            })).isInstanceOf(TransferException.class)
                    .hasMessageContaining("chunk 5").hasMessageContaining("NaN in row 3")
                    .satisfies(e -> assertThat(((TransferException) e).chunk()).isEqualTo(5));
            assertThat(kernelsRun.get()).as("nothing after the failure ran").isEqualTo(6);
            assertThat(engine.staging().leased()).isZero();
            // and the engine works again
            AtomicLong again = new AtomicLong();
            engine.run(10 * chunk, (o, s, b) -> { }, (k, data) -> again.incrementAndGet());
            assertThat(again.get()).isEqualTo(10);
        }
    }

    @Test
    void aReadErrorSurfacesWithItsChunk() throws Exception {
        device = new CpuDevice();
        try (TransferEngine engine = new TransferEngine(device, TransferConfig.of(1000, 2))) {
            assertThatThrownBy(() -> engine.run(10_000, (offset, s, b) -> {
                if (offset == 7000) {
                    throw new java.io.IOException("disk gone");
                }
            }, (k, data) -> { })).isInstanceOf(TransferException.class).hasMessageContaining("chunk 7")
                    .hasMessageContaining("disk gone");
            assertThat(engine.staging().leased()).isZero();
        }
    }

    @Test
    void invalidOptionsAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> TransferConfig.of(0, 2)).hasMessageContaining("'chunkBytes'");
        assertThatThrownBy(() -> TransferConfig.of(10, 0)).hasMessageContaining("'slots'");
    }

    @Test
    void theLastChunkMayBeShort() throws Exception {
        device = new CpuDevice();
        List<Long> sizes = new CopyOnWriteArrayList<>();
        try (TransferEngine engine = new TransferEngine(device, TransferConfig.of(100, 2))) {
            engine.run(250, (o, s, b) -> { }, (k, data) -> sizes.add(data.byteSize()));
        }
        assertThat(sizes).containsExactly(100L, 100L, 50L);
    }
}
