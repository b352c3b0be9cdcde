package dev.penstock.quantum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.penstock.memory.Block;
import dev.penstock.memory.DType;
import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/// The short path: arrays or segments in, `States` out — the same states as the batch path.
class EncoderArraysTest {
    private static double[][] rows(Encoding e, int n, int count, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int width = e == Encoding.AMPLITUDE ? (1 << n) - 1 : e == Encoding.BASIS ? 1 : (int) e.inputLength(n);
        double[][] rows = new double[count][width];
        for (double[] row : rows) {
            for (int j = 0; j < width; j++) {
                row[j] = e == Encoding.BASIS ? rng.nextInt(1 << n) : rng.nextDouble(-3, 3);
            }
        }
        return rows;
    }

    /// The states of `rows` through `encodeBatch` on `simd`'s kernels, interleaved.
    static double[][] viaBatch(Encoding e, int n, double[][] rows, boolean simd) {
        try (HostArena arena = Memory.newConfinedArena("batch")) {
            Block in = arena.allocate(DType.F64, rows.length, rows[0].length);
            Block out = arena.allocate(DType.C128, rows.length, 1L << n);
            for (int r = 0; r < rows.length; r++) {
                for (int j = 0; j < rows[r].length; j++) {
                    in.setDouble((long) r * rows[r].length + j, rows[r][j]);
                }
            }
            Encoder.of(e, n, simd).encodeBatch(in, out, 0, BadRowPolicy.FAIL);
            double[][] z = new double[rows.length][2 << n];
            for (int r = 0; r < rows.length; r++) {
                for (int i = 0; i < 1 << n; i++) {
                    z[r][2 * i] = out.getReal(((long) r << n) + i);
                    z[r][2 * i + 1] = out.getImag(((long) r << n) + i);
                }
            }
            return z;
        }
    }

    @Test
    void arraysInGiveTheBatchPathsStatesForEveryEncoding() {
        for (Encoding e : Encoding.values()) {
            int n = 4;
            double[][] rows = rows(e, n, 5, 7);
            double[][] want = viaBatch(e, n, rows, true);
            try (States s = Encoder.of(e, n).encode(rows)) {
                assertThat(s.count()).isEqualTo(5);
                assertThat(s.stateSize()).isEqualTo(16);
                assertThat(s.block().dtype()).isEqualTo(DType.C128);
                for (int r = 0; r < 5; r++) {
                    double[] re = s.real(r);
                    double[] im = s.imag(r);
                    for (int i = 0; i < 16; i++) {
                        assertThat(re[i]).as("%s [%d,%d]", e, r, i).isEqualTo(want[r][2 * i]);
                        assertThat(im[i]).as("%s [%d,%d]", e, r, i).isEqualTo(want[r][2 * i + 1]);
                    }
                }
            }
        }
    }

    @Test
    void theReadmeExample() {
        try (States states = Encoder.of(Encoding.AMPLITUDE, 2).encode(new double[][] {{3, 4, 0, 0}, {1, 1, 1, 1}})) {
            assertThat(states.real(0)).containsExactly(new double[] {0.6, 0.8, 0, 0}, within(1e-15));
            assertThat(states.real(1, 3)).isCloseTo(0.5, within(1e-15));
            assertThat(states.keptRows()).containsExactly(0, 1);
        }
    }

    @Test
    void floatRowsGiveComplex64AndASegmentIsReadInPlace() {
        float[][] rows = {{3, 4}, {0, 0}, {1, 0}};
        try (States s = Encoder.of(Encoding.AMPLITUDE, 1).encode(rows, BadRowPolicy.SKIP)) {
            assertThat(s.block().dtype()).isEqualTo(DType.C64);
            assertThat(s.count()).isEqualTo(2);
            assertThat(s.keptRows()).containsExactly(0, 2);
            assertThat(s.skipped()).singleElement().satisfies(x -> assertThat(x.row()).isEqualTo(1));
            assertThat(s.real(0, 1)).isCloseTo(0.8, within(1e-7));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(ValueLayout.JAVA_DOUBLE, 4);
            seg.setAtIndex(ValueLayout.JAVA_DOUBLE, 0, 3);
            seg.setAtIndex(ValueLayout.JAVA_DOUBLE, 1, 4);
            seg.setAtIndex(ValueLayout.JAVA_DOUBLE, 2, 0);
            seg.setAtIndex(ValueLayout.JAVA_DOUBLE, 3, 2);
            try (States s = Encoder.of(Encoding.AMPLITUDE, 1).encode(seg, DType.F64, 2, BadRowPolicy.FAIL)) {
                assertThat(s.count()).isEqualTo(2);
                assertThat(s.real(1, 1)).isEqualTo(1.0);
            }
            MemorySegment heap = MemorySegment.ofArray(new double[] {3, 4});
            try (States s = Encoder.of(Encoding.AMPLITUDE, 1).encode(heap, DType.F64, 2, BadRowPolicy.FAIL)) {
                assertThat(s.real(0, 0)).isCloseTo(0.6, within(1e-15));
            }
        }
    }

    @Test
    void raggedRowsAndBadRowsAreRefusedByName() {
        Encoder enc = Encoder.of(Encoding.ANGLE, 2);
        assertThatThrownBy(() -> enc.encode(new double[][] {{1, 2}, {1, 2, 3}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rows[1] has 3 values, rows[0] has 2");
        assertThatThrownBy(() -> enc.encode(new double[][] {{1, 2}, {1, Double.NaN}}))
                .isInstanceOf(EncodingException.class).hasMessageContaining("row 1");
        assertThatThrownBy(() -> enc.encode(MemorySegment.ofArray(new double[3]), DType.F64, 2, BadRowPolicy.FAIL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("width 2");
    }

    /// A JVM started without `--add-modules jdk.incubator.vector` (a user's plain `java -cp`)
    /// encodes on the scalar kernels, says so once, and gets their states bit for bit.
    @Test
    void aJvmWithoutTheVectorApiEncodesOnTheScalarKernels() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), NoVectorApi.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(printed).isZero();
        assertThat(printed.split("runs its scalar kernels", -1)).as(printed).hasSize(2);
        assertThat(printed).contains("--add-modules jdk.incubator.vector");
        List<String> expected = new ArrayList<>();
        for (Encoding e : Encoding.values()) {
            for (double[] state : viaBatch(e, 4, rows(e, 4, 3, 11), false)) {
                StringBuilder line = new StringBuilder(e.name());
                for (double v : state) {
                    line.append(' ').append(Long.toHexString(Double.doubleToRawLongBits(v)));
                }
                expected.add(line.toString());
            }
        }
        assertThat(printed.lines().filter(l -> !l.contains("scalar kernels") && !l.contains("VectorSupport")).toList())
                .containsExactlyElementsOf(expected);
    }

    /// The forked program of `aJvmWithoutTheVectorApiEncodesOnTheScalarKernels`.
    public static final class NoVectorApi {
        public static void main(String[] args) {
            for (Encoding e : Encoding.values()) {
                try (States s = Encoder.of(e, 4).encode(rows(e, 4, 3, 11))) {
                    for (int r = 0; r < s.count(); r++) {
                        StringBuilder line = new StringBuilder(e.name());
                        for (int i = 0; i < s.stateSize(); i++) {
                            line.append(' ').append(Long.toHexString(Double.doubleToRawLongBits(s.real(r, i))));
                            line.append(' ').append(Long.toHexString(Double.doubleToRawLongBits(s.imag(r, i))));
                        }
                        System.out.println(line);
                    }
                }
            }
        }
    }
}
