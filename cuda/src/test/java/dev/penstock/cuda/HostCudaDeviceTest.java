package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.device.DeviceException;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.memory.StagingPool;
import dev.penstock.observe.Timeline;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import dev.penstock.transfer.ChunkSource;
import dev.penstock.transfer.TransferConfig;
import dev.penstock.transfer.TransferEngine;
import dev.penstock.transfer.TransferStats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/// `CudaDeviceChecks` on the host emulation of the driver (`HostDriver`), which is strict where
/// a GPU would only misbehave later: device addresses are unreadable by the host, every call
/// needs the thread's current context, kernel parameters are taken by the PTX's sizes. Plus what
/// only the emulation can count: nothing is left allocated after `close()`.
class HostCudaDeviceTest extends CudaDeviceChecks {
    @Override
    CudaDevice openDevice() {
        return CudaDevice.open(HostDriver.probe(), 0);
    }

    @Test
    void aDeviceFreesEverythingItMadeWhenClosed() throws Exception {
        HostDriver.Counts before = HostDriver.counts();
        try (CudaDevice d = CudaDevice.open(HostDriver.probe(), 0); HostArena h = Memory.newSharedArena("host")) {
            EncodeKernels kernels = new EncodeKernels(d);
            BlockArena arena = d.newArena("leak check");
            PinnedBacking pinned = d.pinned();
            MemorySegment staging = pinned.allocate(8 * 64, 4096);
            Block in = Block.wrap(staging, DType.F64, null, 1, 64);
            for (int i = 0; i < 64; i++) {
                in.setDouble(i, i + 1);
            }
            Block dIn = arena.allocate(DType.F64, 1, 64);
            Block dOut = arena.allocate(DType.C128, 1, 64);
            Block out = h.allocate(DType.C128, 1, 64);
            CudaStream s = (CudaStream) d.newStream("leak check");
            for (int round = 0; round < 50; round++) {
                s.copy(in, dIn);
                kernels.encode(s, "amplitude", dIn, 64, 6, dOut, 1);
                s.copy(dOut, out);
                s.record().await();
            }
            s.synchronize();
            assertThat(out.getReal(63)).isCloseTo(64 / Math.sqrt(64 * 65 * 129 / 6.0), within(1e-12));
            HostDriver.Counts during = HostDriver.counts();
            assertThat(during.launches() - before.launches()).isEqualTo(50);
            assertThat(during.pageableCopies() - before.pageableCopies()).as("out is not pinned").isEqualTo(50);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (HostDriver.counts().events() - before.events() >= 10 && System.nanoTime() < deadline) {
                System.gc(); // the 50 events awaited above are unreachable: their CUevents go
                Thread.sleep(20);
            }
            assertThat(HostDriver.counts().events() - before.events()).as("CUevents of unreachable events while running").isLessThan(10);
            pinned.close();
        }
        HostDriver.Counts after = HostDriver.counts();
        assertThat(after.deviceAllocations()).isEqualTo(before.deviceAllocations());
        assertThat(after.pinnedAllocations()).isEqualTo(before.pinnedAllocations());
        assertThat(after.streams()).isEqualTo(before.streams());
        assertThat(after.events()).as("other tests' events may have gone meanwhile").isLessThanOrEqualTo(before.events());
    }

    @Test
    void pinnedStagingClosedWithALeaseOutIsFreedWhenItComesBackAndDeadAfter() {
        HostDriver.Counts before = HostDriver.counts();
        StagingPool pool = StagingPool.withBacking("pinned, closed early", 2, 4096, device.pinned());
        dev.penstock.memory.Lease held = pool.tryAcquire();
        dev.penstock.memory.Lease spare = pool.tryAcquire();
        spare.close();
        pool.close();
        assertThat(HostDriver.counts().pinnedAllocations() - before.pinnedAllocations()).as("nothing freed under a live lease").isEqualTo(2);
        held.segment().set(ValueLayout.JAVA_LONG, 0, 42);
        assertThat(held.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        held.close();
        assertThat(HostDriver.counts().pinnedAllocations()).as("cuMemFreeHost once the last lease came back").isEqualTo(before.pinnedAllocations());
        assertThatThrownBy(() -> held.segment().set(ValueLayout.JAVA_LONG, 0, 7)).as("a stale view throws, it does not write freed pages")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> spare.segment().get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theTransferEngineRunsNoHostCodeInTheStreamsAndTimesCopiesAndKernelsByEvents() throws Exception {
        EncodeKernels kernels = new EncodeKernels(device);
        long chunk = 1 << 16;
        int chunks = 24;
        Timeline timeline = new Timeline();
        try (Arena host = Arena.ofShared(); BlockArena arena = device.newArena("sum"); HostArena h = Memory.newSharedArena("back");
             StagingPool pool = StagingPool.withBacking("pinned staging", 3, chunk, device.pinned());
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 3), pool)) {
            MemorySegment in = host.allocate(chunk * chunks, 4096);
            for (long i = 0; i < chunk * chunks / 8; i++) {
                in.setAtIndex(ValueLayout.JAVA_LONG, i, i);
            }
            Block sum = arena.allocate(DType.I64, 1);
            Block zero = h.allocate(DType.I64, 1);
            CudaStream init = (CudaStream) device.newStream("init");
            init.copy(zero, sum);
            init.synchronize();
            engine.record(timeline);
            HostDriver.Counts before = HostDriver.counts();
            TransferStats st = engine.run(chunk * chunks, ChunkSource.of(in),
                    (TransferEngine.DeviceKernel) (compute, k, data) -> kernels.readAll((CudaStream) compute, data, sum));
            HostDriver.Counts after = HostDriver.counts();
            assertThat(after.hostFunctions() - before.hostFunctions()).as("host functions enqueued by the run").isZero();
            assertThat(after.launches() - before.launches()).isEqualTo(chunks);
            Block back = h.allocate(DType.I64, 1);
            init.copy(sum, back);
            init.synchronize();
            long words = chunk * chunks / 8;
            assertThat(back.getLong(0)).isEqualTo(words * (words - 1) / 2);
            assertThat(st.copyNs()).isPositive();
            assertThat(st.kernelNs()).isPositive();
            assertThat(st.copyNs() + st.kernelNs()).isLessThan(2 * st.wallNs());
            java.util.Map<String, Long> spans = new java.util.HashMap<>();
            for (Timeline.Span sp : timeline.spans()) {
                spans.merge(sp.lane() + "/" + sp.kind(), 1L, Long::sum);
                assertThat(sp.endNs()).isGreaterThanOrEqualTo(sp.startNs());
            }
            assertThat(spans).containsEntry("copy stream/copy", (long) chunks).containsEntry("compute stream/kernel", (long) chunks);
        }
    }

    @Test
    void registeredInputIsCopiedWhereItLiesWithoutStagingOrPageableCopies() throws Exception {
        EncodeKernels kernels = new EncodeKernels(device);
        long chunk = 1 << 16;
        int chunks = 10;
        HostDriver.Counts start = HostDriver.counts();
        try (Arena host = Arena.ofShared(); BlockArena arena = device.newArena("sum"); HostArena h = Memory.newSharedArena("back");
             TransferEngine engine = new TransferEngine(device, TransferConfig.of(chunk, 3))) {
            MemorySegment in = host.allocate(chunk * chunks, 4096);
            for (long i = 0; i < chunk * chunks / 8; i++) {
                in.setAtIndex(ValueLayout.JAVA_LONG, i, 3 * i);
            }
            Block sum = arena.allocate(DType.I64, 1);
            Block zero = h.allocate(DType.I64, 1);
            CudaStream init = (CudaStream) device.newStream("init");
            init.copy(zero, sum);
            init.synchronize();
            try (AutoCloseable pinned = device.pin(in)) {
                assertThatThrownBy(() -> device.pin(in.asSlice(4096, 4096))).hasMessageContaining("CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
                HostDriver.Counts before = HostDriver.counts();
                engine.run(chunk * chunks, ChunkSource.direct(in),
                        (TransferEngine.DeviceKernel) (compute, k, data) -> kernels.readAll((CudaStream) compute, data, sum));
                HostDriver.Counts after = HostDriver.counts();
                assertThat(after.pageableCopies() - before.pageableCopies()).as("copies from unregistered memory").isZero();
                assertThat(engine.staging().leased()).isZero();
            }
            Block back = h.allocate(DType.I64, 1);
            init.copy(sum, back);
            init.synchronize();
            long words = chunk * chunks / 8;
            assertThat(back.getLong(0)).isEqualTo(3 * words * (words - 1) / 2);
        }
        assertThat(HostDriver.counts().pinnedAllocations()).as("registration undone").isEqualTo(start.pinnedAllocations());
    }

    @Test
    void theDeviceEncodePipelineDrawsItsTimelineFromTheDevicesEvents() throws Exception {
        EncodeKernels kernels = new EncodeKernels(device);
        int n = 6;
        int rows = 300;
        Timeline timeline = new Timeline();
        try (HostArena h = Memory.newSharedArena("rows")) {
            Block in = h.allocate(DType.F64, rows, 1 << n);
            for (long i = 0; i < in.elementCount(); i++) {
                in.setDouble(i, 1 + (i % 7));
            }
            var cfg = new dev.penstock.quantum.EncodePipeline.Config(dev.penstock.quantum.Encoding.AMPLITUDE, n, DType.C128, 64, 3, 2,
                    dev.penstock.quantum.BadRowPolicy.FAIL);
            long[] written = new long[1];
            var s = dev.penstock.quantum.DeviceEncodePipeline.run(device, (compute, r, count, states) -> kernels.encode((CudaStream) compute,
                    "amplitude", r, (int) r.shape(1), n, states, count), device::pinned, dev.penstock.quantum.RowSources.of(in),
                    b -> written[0] += b.shape(0), cfg, timeline);
            assertThat(s.rowsWritten()).isEqualTo(rows).isEqualTo(written[0]);
            assertThat(s.transfer().copyNs()).isPositive();
            assertThat(s.transfer().kernelNs()).isPositive();
        }
        java.util.Map<String, Long> kinds = new java.util.TreeMap<>();
        for (Timeline.Span sp : timeline.spans()) {
            kinds.merge(sp.lane().replaceAll("\\d+$", "N") + "/" + sp.kind(), 1L, Long::sum);
        }
        assertThat(kinds).containsEntry("copy stream/copy", 5L).containsEntry("compute stream/kernel", 5L).containsEntry("writer/write", 5L)
                .containsEntry("I/O thread N/read", 5L);
    }

    @Test
    void aHostOpThatCallsCudaFailsTheStreamNamingTheCallAndTheOp() {
        CudaStream s = (CudaStream) device.newStream("calls back");
        try (BlockArena arena = device.newArena("t"); HostArena h = Memory.newSharedArena("host")) {
            Block d = arena.allocate(DType.F64, 8);
            Block host = h.allocate(DType.F64, 8);
            s.launch("copies from a host op", () -> s.copy(host, d));
            assertThatThrownBy(s::synchronize).isInstanceOf(DeviceException.class).hasMessageContaining("copies from a host op")
                    .hasMessageContaining("CUDA_ERROR_NOT_PERMITTED");
        }
    }

    @Test
    void aDriverErrorIsNamedWithTheCallAndTheErrorsName() {
        device.enter();
        try (Arena a = Arena.ofConfined()) {
            byte[] ptx = EncodeKernels.ptx();
            MemorySegment image = a.allocate(ptx.length + 1L);
            MemorySegment.copy(ptx, 0, image, ValueLayout.JAVA_BYTE, 0, ptx.length);
            MemorySegment module = device.driver().moduleLoadData(image);
            assertThatThrownBy(() -> device.driver().moduleGetFunction(module, "no_such_kernel")).isInstanceOf(CudaException.class)
                    .hasMessage("cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500)");
            MemorySegment notPtx = a.allocateFrom("this is not PTX");
            assertThatThrownBy(() -> device.driver().moduleLoadData(notPtx)).hasMessageContaining("CUDA_ERROR_INVALID_PTX");
        }
    }

    @Test
    void aKernelArgumentOfTheWrongSizeIsRefusedBeforeTheLaunch() {
        EncodeKernels kernels = new EncodeKernels(device);
        long launched = HostDriver.counts().launches();
        try (BlockArena arena = device.newArena("t")) {
            Block in = arena.allocate(DType.F64, 1, 8);
            Block out = arena.allocate(DType.C128, 1, 8);
            CudaStream s = (CudaStream) device.newStream("wrong sizes");
            CudaFunction amplitude = kernels.function("amplitude_f64_c128");
            assertThatThrownBy(() -> s.launchKernel(amplitude, 1, 1, 256, 2048, in, 8, 8, 3, out)) // stride is a long
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("kernel amplitude_f64_c128: parameter 1 is 8 bytes in its PTX, got a Integer (4 bytes)");
            assertThatThrownBy(() -> s.launchKernel(amplitude, 1, 1, 256, 2048, in, 8L, 8, 3))
                    .hasMessage("kernel amplitude_f64_c128 takes 5 parameters, got 4");
            s.launchKernel(amplitude, 1, 1, 256, 2048, in, 8L, 8, 3, out);
            s.synchronize();
        }
        assertThat(HostDriver.counts().launches() - launched).isEqualTo(1);
    }

    @Test
    void twoDevicesWorkSideBySideFromTheSameThreadsAndRefuseEachOthersMemory() throws Exception {
        assertThat(HostDriver.probe().devices()).isEqualTo(2);
        try (CudaDevice second = CudaDevice.open(HostDriver.probe(), 1); BlockArena a0 = device.newArena("zero");
             BlockArena a1 = second.newArena("one"); HostArena h = Memory.newSharedArena("host")) {
            assertThat(second.name()).startsWith("cuda:1");
            EncodeKernels k0 = new EncodeKernels(device);
            EncodeKernels k1 = new EncodeKernels(second);
            int n = 5;
            Block in = h.allocate(DType.F64, 4, 1 << n);
            for (long i = 0; i < in.elementCount(); i++) {
                in.setDouble(i, 1 + i % 5);
            }
            Block want = h.allocate(DType.C128, 4, 1 << n);
            Encoder.of(Encoding.AMPLITUDE, n, false).encodeBatch(in, want, 0, BadRowPolicy.FAIL);
            CudaStream s0 = (CudaStream) device.newStream("zero");
            CudaStream s1 = (CudaStream) second.newStream("one");
            Block d0 = a0.allocate(DType.F64, 4, 1 << n);
            Block d1 = a1.allocate(DType.F64, 4, 1 << n);
            Block o0 = a0.allocate(DType.C128, 4, 1 << n);
            Block o1 = a1.allocate(DType.C128, 4, 1 << n);
            Block g0 = h.allocate(DType.C128, 4, 1 << n);
            Block g1 = h.allocate(DType.C128, 4, 1 << n);
            for (int round = 0; round < 3; round++) { // alternating devices on one thread: each call makes its context current
                s0.copy(in, d0);
                s1.copy(in, d1);
                k0.encode(s0, "amplitude", d0, 1 << n, n, o0, 4);
                k1.encode(s1, "amplitude", d1, 1 << n, n, o1, 4);
                s0.copy(o0, g0);
                s1.copy(o1, g1);
            }
            s0.synchronize();
            s1.synchronize();
            for (long i = 0; i < want.elementCount(); i++) {
                assertThat(g0.getReal(i)).isCloseTo(want.getReal(i), within(1e-12));
                assertThat(g1.getReal(i)).isCloseTo(want.getReal(i), within(1e-12));
            }
            assertThatThrownBy(() -> s0.copy(d1, d0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot copy memory of cuda:1");
        }
    }

    @Test
    void everyCallWorksFromAFreshPlatformThread() throws Exception {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().start(() -> {
            try (BlockArena arena = device.newArena("fresh thread"); HostArena h = Memory.newSharedArena("host")) {
                Block d = arena.allocate(DType.I64, 4);
                Block src = h.allocate(DType.I64, 4);
                Block back = h.allocate(DType.I64, 4);
                for (int i = 0; i < 4; i++) {
                    src.setLong(i, 7L * i);
                }
                CudaStream s = (CudaStream) device.newStream("fresh");
                s.copy(src, d);
                s.copy(d, back);
                assertThat(s.record().await(Duration.ofSeconds(10))).isTrue();
                assertThat(back.getLong(3)).isEqualTo(21);
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.join();
        assertThat(failure[0]).isNull();
    }
}
