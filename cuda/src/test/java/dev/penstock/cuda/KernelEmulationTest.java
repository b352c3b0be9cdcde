package dev.penstock.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.quantum.BadRowPolicy;
import dev.penstock.quantum.Encoder;
import dev.penstock.quantum.Encoding;
import dev.penstock.testing.Ci;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// The CUDA kernels' arithmetic and indexing, checked without a GPU: `src/test/cpp/emulate.cpp`
/// compiles `encode.cu` for the host (each block's threads as std::threads meeting at a barrier
/// for `__syncthreads`) and its output must match the CPU `Encoder` for every encoding, several
/// sizes and both precisions. Needs g++ (C++20); the GPU tests check the real device.
class KernelEmulationTest {
    @TempDir
    static Path dir;
    private static Path emulator;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(Ci.required() || Files.isExecutable(Path.of("/usr/bin/g++")), "g++ is not installed");
        emulator = dir.resolve("emulate");
        Process p = new ProcessBuilder("/usr/bin/g++", "-std=c++20", "-O1", "-pthread", "-Isrc/test/cpp/stub", "-o", emulator.toString(),
                "src/test/cpp/emulate.cpp").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
    }

    private static double[] run(String encoding, int n, int rows, int len, boolean c128, double[] in) throws Exception {
        Path input = dir.resolve("in.f64");
        Path output = dir.resolve("out.bin");
        ByteBuffer b = ByteBuffer.allocate(8 * in.length).order(ByteOrder.LITTLE_ENDIAN);
        for (double x : in) {
            b.putDouble(x);
        }
        Files.write(input, b.array());
        Process p = new ProcessBuilder(emulator.toString(), encoding, Integer.toString(n), Integer.toString(rows), Integer.toString(len),
                c128 ? "c128" : "c64", input.toString(), output.toString()).redirectErrorStream(true).start();
        String msg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(msg).isZero();
        ByteBuffer o = ByteBuffer.wrap(Files.readAllBytes(output)).order(ByteOrder.LITTLE_ENDIAN);
        double[] values = new double[2 * rows << n];
        for (int i = 0; i < values.length; i++) {
            values[i] = c128 ? o.getDouble() : o.getFloat();
        }
        return values;
    }

    @Test
    void amplitudeRowsNearTheLimitsOfDoubleTakeTheScaledPathAndStillMatch() throws Exception {
        int n = 6;
        int len = 64;
        double[] magnitudes = {1e200, 1e-200, 1e-139, 1e139, 3e-150, 1.0, 1e-310, 1e-318}; // the last two: subnormal rows
        double[] in = new double[magnitudes.length * len];
        SplittableRandom rnd = new SplittableRandom(17);
        for (int r = 0; r < magnitudes.length; r++) {
            for (int k = 0; k < len; k++) {
                in[r * len + k] = magnitudes[r] * rnd.nextDouble(-1, 1);
            }
        }
        for (boolean c128 : new boolean[] {true, false}) {
            double[] got = run("amplitude", n, magnitudes.length, len, c128, in);
            try (HostArena h = Memory.newSharedArena("reference")) {
                Block rowsBlock = h.allocate(DType.F64, magnitudes.length, len);
                for (int i = 0; i < in.length; i++) {
                    rowsBlock.setDouble(i, in[i]);
                }
                Block want = h.allocate(c128 ? DType.C128 : DType.C64, magnitudes.length, 1L << n);
                Encoder.of(Encoding.AMPLITUDE, n, false).encodeBatch(rowsBlock, want, 0, BadRowPolicy.FAIL);
                for (int i = 0; i < got.length; i++) {
                    double w = c128 ? want.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i)
                            : want.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i);
                    assertThat(got[i]).as("row %d (|x| ~ %g) value %d", i / (2 * len), magnitudes[i / (2 * len)], i)
                            .isCloseTo(w, within(c128 ? 1e-14 : 2e-7));
                }
            }
        }
    }

    @Test
    void everyKernelComputesWhatTheCpuEncoderComputes() throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        int rows = 3;
        for (Encoding e : Encoding.values()) {
            for (int n : new int[] {1, 3, 7}) {
                for (boolean c128 : new boolean[] {true, false}) {
                    int len = e == Encoding.AMPLITUDE ? Math.max(1, (1 << n) - 1) : (int) e.inputLength(n);
                    double[] in = new double[rows * len];
                    for (int i = 0; i < in.length; i++) {
                        in[i] = e == Encoding.BASIS ? rnd.nextInt(1 << n) : rnd.nextDouble(-3, 3);
                    }
                    double[] got = run(e.label(), n, rows, len, c128, in);
                    try (HostArena h = Memory.newSharedArena("reference")) {
                        Block rowsBlock = h.allocate(DType.F64, rows, len);
                        for (int i = 0; i < in.length; i++) {
                            rowsBlock.setDouble(i, in[i]);
                        }
                        DType outType = c128 ? DType.C128 : DType.C64;
                        Block want = h.allocate(outType, rows, 1L << n);
                        Encoder.of(e, n, false).encodeBatch(rowsBlock, want, 0, BadRowPolicy.FAIL);
                        double tol = c128 ? 1e-12 : 2e-6;
                        for (int i = 0; i < got.length; i++) {
                            double w = c128 ? want.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, i)
                                    : want.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i);
                            assertThat(got[i]).as("%s n=%d %s value %d", e.label(), n, c128 ? "c128" : "c64", i).isCloseTo(w, within(tol));
                        }
                    }
                }
            }
        }
    }
}
