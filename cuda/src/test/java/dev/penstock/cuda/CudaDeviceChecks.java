package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.device.DeviceException;
import dev.penstock.device.Event;
import dev.penstock.memory.Block;
import dev.penstock.memory.BlockArena;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.memory.StagingPool;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/// The checks of a CUDA device beyond the `Device` contract: copies both ways through pinned
/// staging memory, events across streams, sticky host-op failures, every encoding kernel and
/// the device encode pipeline against the CPU reference. Run on a real GPU by
/// `CudaDeviceGpuTest` (tagged `cuda`) and on the host emulation of the driver by
/// `HostCudaDeviceTest` (every build).
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CudaDeviceChecks {
    CudaDevice device;

    /// The device under test (or a skipped test saying why there is none).
    abstract CudaDevice openDevice();

    @BeforeAll
    void open() {
        device = openDevice();
    }

    @AfterAll
    void close() {
        if (device != null) {
            device.close();
        }
    }

    private static Block host(HostArena a, DType t, long... shape) {
        return a.allocate(t, shape);
    }

    @Test
    void copiesGoThereAndBackThroughPinnedStaging() throws Exception {
        long n = 1 << 20;
        try (StagingPool pool = StagingPool.withBacking("pinned", 2, 8 * n, device.pinned()); BlockArena dev = device.newArena("test");
             HostArena h = Memory.newSharedArena("host")) {
            var lease = pool.acquire(Duration.ofSeconds(5));
            Block src = Block.wrap(lease.segment(), DType.F64, null, n);
            for (long i = 0; i < n; i++) {
                src.setDouble(i, i * 0.5);
            }
            Block a = dev.allocate(DType.F64, n);
            Block b = dev.allocate(DType.F64, n);
            Block back = host(h, DType.F64, n);
            CudaStream s = (CudaStream) device.newStream("copies");
            s.copy(src, a);
            s.copy(a, b);
            s.copy(b, back);
            s.synchronize();
            for (long i = 0; i < n; i += 4097) {
                assertThat(back.getDouble(i)).isEqualTo(i * 0.5);
            }
            lease.close();
        }
    }

    @Test
    void anEventOrdersTwoStreamsAndAFailedHostOpIsStickyAndNamed() {
        CudaStream a = (CudaStream) device.newStream("a");
        CudaStream b = (CudaStream) device.newStream("b");
        long[] order = new long[2];
        a.launch("slow", () -> {
            Thread.sleep(100);
            order[0] = System.nanoTime();
        });
        Event done = a.record();
        b.waitFor(done);
        b.launch("after", () -> order[1] = System.nanoTime());
        b.synchronize();
        assertThat(order[1]).isGreaterThan(order[0]);
        a.launch("explodes", () -> {
            throw new IllegalStateException("boom");
        });
        boolean[] ran = new boolean[1];
        a.launch("skipped", () -> ran[0] = true);
        Event after = a.record();
        assertThatThrownBy(after::await).isInstanceOf(DeviceException.class).hasMessageContaining("explodes");
        assertThatThrownBy(a::synchronize).isInstanceOf(DeviceException.class).hasMessageContaining("explodes");
        assertThat(ran[0]).isFalse();
        assertThat(a.record().await(Duration.ofSeconds(5))).isTrue(); // cleared after synchronize reported it
    }

    @Test
    void theDevicePipelineOnTheGpuWritesWhatTheCpuPipelineWrites() throws Exception {
        EncodeKernels kernels = new EncodeKernels(device);
        try (HostArena h = Memory.newSharedArena("rows");
             dev.penstock.device.CpuDevice cpu = new dev.penstock.device.CpuDevice()) {
            int rows = 1000;
            int n = 10;
            Block in = host(h, DType.F64, rows, 1 << n);
            SplittableRandom rnd = new SplittableRandom(3);
            for (long i = 0; i < in.elementCount(); i++) {
                in.setDouble(i, rnd.nextDouble(0.1, 2));
            }
            in.setDouble(500L << n, Double.NaN); // one bad row, skipped by both
            var cfg = new dev.penstock.quantum.EncodePipeline.Config(Encoding.AMPLITUDE, n, DType.C128, 64, 3, 2,
                    BadRowPolicy.SKIP);
            java.util.List<Double> gpu = new java.util.ArrayList<>();
            java.util.List<Double> ref = new java.util.ArrayList<>();
            var g = dev.penstock.quantum.DeviceEncodePipeline.run(device, (compute, r, count, states) -> kernels.encode((CudaStream) compute,
                    "amplitude", r, (int) r.shape(1), n, states, count), device::pinned, dev.penstock.quantum.RowSources.of(in),
                    b -> collect(b, gpu), cfg);
            var c = dev.penstock.quantum.EncodePipeline.run(cpu, dev.penstock.quantum.RowSources.of(in), b -> collect(b, ref), cfg);
            assertThat(g.rowsWritten()).isEqualTo(c.rowsWritten()).isEqualTo(rows - 1);
            assertThat(g.skipped()).hasSize(1);
            assertThat(gpu).hasSameSizeAs(ref);
            for (int i = 0; i < gpu.size(); i++) {
                assertThat(gpu.get(i)).as("value %d", i).isCloseTo(ref.get(i), within(1e-12));
            }
        }
    }

    private static void collect(Block states, java.util.List<Double> into) {
        for (long i = 0; i < states.elementCount(); i++) {
            into.add(states.getReal(i));
        }
    }

    @Test
    void everyEncodingMatchesTheCpuReference() {
        EncodeKernels kernels = new EncodeKernels(device);
        SplittableRandom rnd = new SplittableRandom(5);
        int rows = 37;
        for (Encoding e : Encoding.values()) {
            for (int n : e == Encoding.AMPLITUDE ? new int[] {1, 5, 12, 14} : new int[] {1, 5, 12}) { // 14: 1,024-thread blocks
                for (DType outType : new DType[] {DType.C128, DType.C64}) {
                    int len = (int) e.inputLength(n);
                    if (e == Encoding.AMPLITUDE) {
                        len = Math.max(1, (1 << n) - 3);
                    }
                    try (HostArena h = Memory.newSharedArena("host"); BlockArena dev = device.newArena("encode")) {
                        Block in = host(h, DType.F64, rows, len);
                        for (int r = 0; r < rows; r++) {
                            for (int k = 0; k < len; k++) {
                                double v = e == Encoding.BASIS ? rnd.nextInt(1 << n) : rnd.nextDouble(-3, 3);
                                in.setDouble((long) r * len + k, v);
                            }
                        }
                        Block want = host(h, outType, rows, 1L << n);
                        Encoder.of(e, n, false).encodeBatch(in, want, 0, BadRowPolicy.FAIL);
                        Block dIn = dev.allocate(DType.F64, rows, len);
                        Block dOut = dev.allocate(outType, rows, 1L << n);
                        Block got = host(h, outType, rows, 1L << n);
                        CudaStream s = (CudaStream) device.newStream("encode");
                        s.copy(in, dIn);
                        kernels.encode(s, e.label(), dIn, len, n, dOut, rows);
                        s.copy(dOut, got);
                        s.synchronize();
                        double tol = outType == DType.C128 ? 1e-12 : 2e-6;
                        MemorySegment ws = want.segment();
                        MemorySegment gs = got.segment();
                        long values = 2L * rows << n;
                        for (long i = 0; i < values; i++) {
                            double w = outType == DType.C128 ? ws.getAtIndex(ValueLayout.JAVA_DOUBLE, i) : ws.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                            double g = outType == DType.C128 ? gs.getAtIndex(ValueLayout.JAVA_DOUBLE, i) : gs.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                            assertThat(g).as("%s n=%d %s value %d", e.label(), n, outType, i).isCloseTo(w, within(tol));
                        }
                    }
                }
            }
        }
    }
}
