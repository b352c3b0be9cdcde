package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.device.DeviceException;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
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
            assertThat(out.getReal(63)).isCloseTo(64 / Math.sqrt(64 * 65 * 129 / 6.0), org.assertj.core.api.Assertions.within(1e-12));
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
